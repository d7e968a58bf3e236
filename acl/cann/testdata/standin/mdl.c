/* ---- offline models (ABI v1.3 section 13.4) ----
 *
 * Included by standin.c (it uses the stand-in's state). The stand-in runs
 * small fixed models of its own instead of the graph engine's offline
 * models: a text file whose first line is the magic below, then lines
 *
 *   input NAME TYPE D...   an input: its name, type (float or int32) and
 *                          dims (at most OM_DIMS); in order
 *   output NAME TYPE D...  an output, likewise
 *   n N                    shorthand for one input "x" and one output "y"
 *                          of N float32 (instead of input and output lines)
 *   op OP                  what it computes, from input 0 (float) into
 *                          each output (float) of m elements: "affine"
 *                          (the default) y = 2x + 1 over x's first m;
 *                          "softmax" the softmax of x's first m; "divide"
 *                          output 0 = input 0 / input 1 (int32,
 *                          truncated), failing as it runs on a zero
 *                          divisor; "fail" fails as it runs; "stall" runs
 *                          until its stream's work is cancelled
 *                          (aclrtStreamAbort), touching nothing
 *   work B                 device memory the model works in (aclmdlQuerySize)
 *   weight B               device memory of its weights
 *   # ...                  a comment
 *
 * so that a test writes such a ".om" file, or gives a test model's
 * counterpart (the .om files beside this one: the inputs and outputs of the
 * simulator's test models). The functions check what they are given as
 * the native runtime does, in the same order and with its codes: NULLs
 * (100000), no context (107002), an unreadable or invalid file (145002,
 * 145006), an unknown model id (145003), datasets whose buffer counts are
 * not the model's (145000), a buffer more than 64 bytes smaller than the
 * model's input or output (500002), a buffer outside every device
 * allocation (107000 when queued; 507899 when it runs, as a freed buffer
 * fails the stream). A model unloaded while an execution of it is queued
 * fails that execution (145003). */

#define OM_MAGIC "aclwasm-standin-om\n"
#define OM_SLACK 64
#define OM_IOS 8  /* inputs, and outputs, at most */
#define OM_DIMS 8 /* dims of one, at most */

enum {
    GE_PARAM_INVALID = 145000,
    GE_MODEL_PATH_INVALID = 145002,
    GE_MODEL_ID_INVALID = 145003,
    GE_MODEL_DATA_SIZE_INVALID = 145006,
    GE_FAILURE = 500002,
    RT_MODEL_EXECUTE = 507011,
};

enum { OM_AFFINE, OM_SOFTMAX, OM_DIVIDE, OM_FAIL, OM_STALL };

/* om_io is one input or output. */
struct om_io {
    char name[64];
    int32_t type;
    size_t ndims;
    int64_t dims[OM_DIMS];
    size_t elems; /* the product of dims */
};

/* om_sig is a model's inputs and outputs: io[0, nin) then io[nin,
 * nin+nout). */
struct om_sig {
    size_t nin, nout;
    struct om_io io[2 * OM_IOS];
};

struct om {
    uint32_t id;
    int dead;
    int op;
    struct om_sig sig;
    size_t work, weight;
};
static struct om **oms;
static size_t noms, capoms;
static uint32_t om_next;

typedef struct aclmdlDesc {
    uint32_t id; /* 0: empty */
    struct om_sig sig;
} aclmdlDesc;

typedef struct aclDataBuffer {
    void *data;
    size_t size;
} aclDataBuffer;

#define DS_MAX 16
typedef struct aclmdlDataset {
    size_t n;
    aclDataBuffer *bufs[DS_MAX];
} aclmdlDataset;

typedef struct {
    char name[128];
    size_t dimCount;
    int64_t dims[128];
} aclmdlIODims;
_Static_assert(sizeof(aclmdlIODims) == 1160, "aclmdlIODims is 1160 bytes");

static size_t om_bytes(const struct om_io *io) { return io->elems * 4; /* float and int32 */ }

/* om_io_parse reads "NAME TYPE D..." (the rest of an input or output
 * line) into io: 0 when it is not one. */
static int om_io_parse(char *rest, struct om_io *io)
{
    char *save = NULL, *name = strtok_r(rest, " \t\n", &save), *type = strtok_r(NULL, " \t\n", &save);
    if (!name || !type || strlen(name) >= sizeof io->name)
        return 0;
    strcpy(io->name, name);
    if (strcmp(type, "float") == 0)
        io->type = DT_FLOAT;
    else if (strcmp(type, "int32") == 0)
        io->type = DT_INT32;
    else
        return 0;
    io->ndims = 0, io->elems = 1;
    for (char *d; (d = strtok_r(NULL, " \t\n", &save));) {
        char *end;
        unsigned long long v = strtoull(d, &end, 10);
        if (*end || v == 0 || v > (1ull << 28) || io->ndims == OM_DIMS || io->elems > (1ull << 28) / v)
            return 0;
        io->dims[io->ndims++] = (int64_t)v;
        io->elems *= (size_t)v;
    }
    return io->ndims > 0;
}

/* om_valid reports whether op can run over sig. */
static int om_valid(const struct om *m)
{
    const struct om_sig *g = &m->sig;
    if (g->nin == 0 || g->nout == 0)
        return 0;
    switch (m->op) {
    case OM_AFFINE:
    case OM_SOFTMAX:
        for (size_t k = 0; k < g->nin + g->nout; k++)
            if (g->io[k].type != DT_FLOAT || (k >= g->nin && g->io[k].elems > g->io[0].elems))
                return 0;
        return 1;
    case OM_DIVIDE:
        if (g->nin != 2 || g->nout != 1)
            return 0;
        for (size_t k = 0; k < 3; k++)
            if (g->io[k].type != DT_INT32 || g->io[k].elems != g->io[0].elems)
                return 0;
        return 1;
    }
    return 1;
}

/* om_parse reads a model file: 0 when it cannot be read (145002), -1
 * when it is not a model (145006), 1 when it is. */
static int om_parse(const char *path, struct om *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int ok = fgets(line, sizeof line, f) && strcmp(line, OM_MAGIC) == 0 ? 1 : -1;
    int shorthand = 0;
    struct om_sig outs = {0}; /* the outputs, until the inputs are known */
    while (ok == 1 && fgets(line, sizeof line, f)) {
        char key[32], val[64];
        unsigned long long v;
        int at = 0;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%31s %63s%n", key, val, &at) != 2)
            ok = -1;
        else if (strcmp(key, "input") == 0 || strcmp(key, "output") == 0) {
            int in = key[0] == 'i';
            size_t *n = in ? &m->sig.nin : &outs.nout;
            struct om_io *io = in ? &m->sig.io[*n] : &outs.io[*n];
            sscanf(line, "%31s%n", key, &at);
            ok = shorthand || *n == OM_IOS || !om_io_parse(line + at, io) ? -1 : 1;
            (*n)++;
        } else if (strcmp(key, "op") == 0)
            ok = strcmp(val, "affine") == 0    ? (m->op = OM_AFFINE, 1)
                 : strcmp(val, "softmax") == 0 ? (m->op = OM_SOFTMAX, 1)
                 : strcmp(val, "divide") == 0  ? (m->op = OM_DIVIDE, 1)
                 : strcmp(val, "fail") == 0    ? (m->op = OM_FAIL, 1)
                 : strcmp(val, "stall") == 0   ? (m->op = OM_STALL, 1)
                                               : -1;
        else if (sscanf(val, "%llu", &v) != 1)
            ok = -1;
        else if (strcmp(key, "n") == 0 && v > 0 && v <= (1ull << 28) && !shorthand && !m->sig.nin && !outs.nout) {
            shorthand = 1;
            m->sig.nin = outs.nout = 1;
            m->sig.io[0] = (struct om_io){.name = "x", .type = DT_FLOAT, .ndims = 1, .dims = {(int64_t)v}, .elems = v};
            outs.io[0] = (struct om_io){.name = "y", .type = DT_FLOAT, .ndims = 1, .dims = {(int64_t)v}, .elems = v};
        } else if (strcmp(key, "work") == 0)
            m->work = (size_t)v;
        else if (strcmp(key, "weight") == 0)
            m->weight = (size_t)v;
        else
            ok = -1;
    }
    fclose(f);
    if (ok == 1) {
        m->sig.nout = outs.nout;
        memcpy(&m->sig.io[m->sig.nin], outs.io, outs.nout * sizeof outs.io[0]);
        if (!om_valid(m))
            ok = -1;
    }
    return ok;
}

static struct om *find_om(uint32_t id)
{
    for (size_t i = 0; i < noms; i++)
        if (oms[i]->id == id && !oms[i]->dead)
            return oms[i];
    return NULL;
}

/* aclmdlLoadFromFile: modelPath, modelId (100000); the context (107002);
 * the file (145002 unreadable, 145006 not a model). */
EXPORT aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId)
{
    aclError rc = OK;
    struct om m = {0};
    int p;
    pthread_mutex_lock(&mu);
    if (!modelPath || !modelId)
        rc = INVALID_PARAM;
    else if (!ctx_ok())
        rc = RT_CONTEXT_NULL;
    else if ((p = om_parse(modelPath, &m)) != 1)
        rc = p == 0 ? GE_MODEL_PATH_INVALID : GE_MODEL_DATA_SIZE_INVALID;
    else {
        struct om *o = malloc(sizeof *o);
        if (!o)
            abort();
        *o = m;
        o->id = ++om_next;
        PUSH(oms, noms, capoms, o);
        *modelId = o->id;
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclmdlLoadFromFile(modelPath=%s, modelId=0x%" PRIxPTR, modelPath ? modelPath : "NULL", P(modelId));
    return rc;
}

/* aclmdlQuerySize: fileName, workSize, weightSize (100000); the file. */
EXPORT aclError aclmdlQuerySize(const char *fileName, size_t *workSize, size_t *weightSize)
{
    aclError rc = OK;
    struct om m = {0};
    int p;
    if (!fileName || !workSize || !weightSize)
        rc = INVALID_PARAM;
    else if ((p = om_parse(fileName, &m)) != 1)
        rc = p == 0 ? GE_MODEL_PATH_INVALID : GE_MODEL_DATA_SIZE_INVALID;
    else
        *workSize = m.work, *weightSize = m.weight;
    LOG(rc, "aclmdlQuerySize(fileName=%s, workSize=0x%" PRIxPTR ", weightSize=0x%" PRIxPTR, fileName ? fileName : "NULL",
        P(workSize), P(weightSize));
    return rc;
}

/* aclmdlUnload: the model id (145003). Executions still queued fail. */
EXPORT aclError aclmdlUnload(uint32_t modelId)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct om *o = find_om(modelId);
    if (!o)
        rc = GE_MODEL_ID_INVALID;
    else {
        o->dead = 1;
        for (size_t i = 0; i < noms; i++)
            if (oms[i] == o) {
                oms[i] = oms[--noms];
                break;
            }
        bury(o);
    }
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclmdlUnload(modelId=%u", modelId);
    return rc;
}

/* aclwasmStandinModels returns how many models are loaded. */
EXPORT size_t aclwasmStandinModels(void)
{
    pthread_mutex_lock(&mu);
    size_t n = noms;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT aclmdlDesc *aclmdlCreateDesc(void)
{
    aclmdlDesc *d = calloc(1, sizeof *d);
    LOG(OK, "aclmdlCreateDesc(");
    return d;
}

EXPORT aclError aclmdlDestroyDesc(aclmdlDesc *d)
{
    aclError rc = d ? OK : INVALID_PARAM;
    free(d);
    LOG(rc, "aclmdlDestroyDesc(modelDesc=0x%" PRIxPTR, P(d));
    return rc;
}

/* aclmdlGetDesc: modelDesc (100000), the model id (145003). */
EXPORT aclError aclmdlGetDesc(aclmdlDesc *d, uint32_t modelId)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct om *o = NULL;
    if (!d)
        rc = INVALID_PARAM;
    else if (!(o = find_om(modelId)))
        rc = GE_MODEL_ID_INVALID;
    else
        d->id = o->id, d->sig = o->sig;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclmdlGetDesc(modelDesc=0x%" PRIxPTR ", modelId=%u", P(d), modelId);
    return rc;
}

/* om_io_at is input (or output) i of a filled description, NULL past
 * them or for an empty one. */
static const struct om_io *om_io_at(const aclmdlDesc *d, size_t i, int output)
{
    if (!d || !d->id || i >= (output ? d->sig.nout : d->sig.nin))
        return NULL;
    return &d->sig.io[output ? d->sig.nin + i : i];
}
EXPORT size_t aclmdlGetNumInputs(aclmdlDesc *d) { return d && d->id ? d->sig.nin : 0; }
EXPORT size_t aclmdlGetNumOutputs(aclmdlDesc *d) { return d && d->id ? d->sig.nout : 0; }
static size_t om_size(aclmdlDesc *d, size_t i, int output)
{
    const struct om_io *io = om_io_at(d, i, output);
    return io ? om_bytes(io) : 0;
}
EXPORT size_t aclmdlGetInputSizeByIndex(aclmdlDesc *d, size_t i) { return om_size(d, i, 0); }
EXPORT size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *d, size_t i) { return om_size(d, i, 1); }
static const char *om_name(aclmdlDesc *d, size_t i, int output)
{
    const struct om_io *io = om_io_at(d, i, output);
    return io ? io->name : "";
}
EXPORT const char *aclmdlGetInputNameByIndex(aclmdlDesc *d, size_t i) { return om_name(d, i, 0); }
EXPORT const char *aclmdlGetOutputNameByIndex(aclmdlDesc *d, size_t i) { return om_name(d, i, 1); }
/* The type, and ACL_FORMAT_ND (2); -1, the UNDEFINED values, past the
 * description's inputs or outputs. */
static int32_t om_type(aclmdlDesc *d, size_t i, int output)
{
    const struct om_io *io = om_io_at(d, i, output);
    return io ? io->type : -1;
}
EXPORT int32_t aclmdlGetInputDataType(aclmdlDesc *d, size_t i) { return om_type(d, i, 0); }
EXPORT int32_t aclmdlGetOutputDataType(aclmdlDesc *d, size_t i) { return om_type(d, i, 1); }
EXPORT int32_t aclmdlGetInputFormat(aclmdlDesc *d, size_t i) { return om_io_at(d, i, 0) ? 2 : -1; }
EXPORT int32_t aclmdlGetOutputFormat(aclmdlDesc *d, size_t i) { return om_io_at(d, i, 1) ? 2 : -1; }

static aclError om_dims(aclmdlDesc *d, size_t i, aclmdlIODims *dims, int output)
{
    if (!d || !dims)
        return INVALID_PARAM;
    const struct om_io *io = om_io_at(d, i, output);
    if (!io)
        return INVALID_PARAM;
    strcpy(dims->name, io->name);
    dims->dimCount = io->ndims;
    memcpy(dims->dims, io->dims, io->ndims * sizeof io->dims[0]);
    return OK;
}
EXPORT aclError aclmdlGetInputDims(aclmdlDesc *d, size_t i, aclmdlIODims *dims) { return om_dims(d, i, dims, 0); }
EXPORT aclError aclmdlGetOutputDims(aclmdlDesc *d, size_t i, aclmdlIODims *dims) { return om_dims(d, i, dims, 1); }

EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *b = calloc(1, sizeof *b);
    if (b)
        b->data = data, b->size = size;
    LOG(OK, "aclCreateDataBuffer(data=0x%" PRIxPTR ", size=%zu", P(data), size);
    return b;
}

EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *b)
{
    aclError rc = b ? OK : INVALID_PARAM;
    free((void *)b);
    return rc;
}

EXPORT aclmdlDataset *aclmdlCreateDataset(void) { return calloc(1, sizeof(aclmdlDataset)); }

EXPORT aclError aclmdlDestroyDataset(const aclmdlDataset *ds)
{
    aclError rc = ds ? OK : INVALID_PARAM;
    free((void *)ds);
    return rc;
}

/* aclmdlAddDatasetBuffer: dataset, dataBuffer (100000); full (100000). */
EXPORT aclError aclmdlAddDatasetBuffer(aclmdlDataset *ds, aclDataBuffer *b)
{
    if (!ds || !b || ds->n == DS_MAX)
        return INVALID_PARAM;
    ds->bufs[ds->n++] = b;
    return OK;
}

/* An execution as a stream task (T_KERNEL): the model and its buffers,
 * the inputs' then the outputs'. */
struct om_run {
    struct om *m;
    void *bufs[2 * OM_IOS];
};

/* om_exp is e^x for x <= 0, without libm (the stand-in links none):
 * e^(x/1024) by its series, squared ten times. */
static double om_exp(double x)
{
    if (x < -100)
        return 0;
    double t = x / 1024, term = 1, e = 1;
    for (int i = 1; i < 10; i++)
        e += term *= t / i;
    for (int i = 0; i < 10; i++)
        e *= e;
    return e;
}

static aclError om_exec(void *arg, const int *cancel)
{
    struct om_run *r = arg;
    const struct om_sig *g = &r->m->sig;
    if (r->m->dead)
        return GE_MODEL_ID_INVALID;
    switch (r->m->op) {
    case OM_FAIL:
        return RT_MODEL_EXECUTE;
    case OM_STALL:
        while (!__atomic_load_n(cancel, __ATOMIC_RELAXED)) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        return OK;
    case OM_DIVIDE: {
        const int32_t *a = r->bufs[0], *b = r->bufs[1];
        int32_t *q = r->bufs[2];
        for (size_t i = 0; i < g->io[0].elems; i++)
            if (b[i] == 0 || (a[i] == INT32_MIN && b[i] == -1))
                return RT_MODEL_EXECUTE; /* before writing anything */
        for (size_t i = 0; i < g->io[0].elems; i++)
            q[i] = a[i] / b[i];
        return OK;
    }
    }
    const float *x = r->bufs[0];
    for (size_t k = g->nin; k < g->nin + g->nout; k++) {
        float *y = r->bufs[k];
        size_t m = g->io[k].elems;
        if (r->m->op == OM_AFFINE) {
            for (size_t i = 0; i < m; i++)
                y[i] = 2 * x[i] + 1;
            continue;
        }
        float top = x[0];
        double sum = 0;
        for (size_t i = 1; i < m; i++)
            top = x[i] > top ? x[i] : top;
        for (size_t i = 0; i < m; i++)
            sum += y[i] = (float)om_exp((double)x[i] - top);
        for (size_t i = 0; i < m; i++)
            y[i] = (float)(y[i] / sum);
    }
    return OK;
}

/* om_queue checks an execution and queues it on s: the counts (both
 * first), the sizes, then the addresses. Called with mu held. */
static aclError om_queue(uint32_t modelId, const aclmdlDataset *in, const aclmdlDataset *out, struct stream *s)
{
    struct om *o = find_om(modelId);
    if (!o)
        return GE_MODEL_ID_INVALID;
    const struct om_sig *g = &o->sig;
    if (in->n != g->nin || out->n != g->nout)
        return GE_PARAM_INVALID;
    size_t n = g->nin + g->nout;
    const aclDataBuffer *bs[2 * OM_IOS];
    for (size_t k = 0; k < n; k++)
        bs[k] = k < g->nin ? in->bufs[k] : out->bufs[k - g->nin];
    for (size_t k = 0; k < n; k++) {
        size_t need = om_bytes(&g->io[k]);
        if (!bs[k]->data || (bs[k]->size < need && need - bs[k]->size > OM_SLACK))
            return GE_FAILURE;
    }
    for (size_t k = 0; k < n; k++)
        if (!in_dev(bs[k]->data, om_bytes(&g->io[k])))
            return RT_PARAM_INVALID;
    struct om_run *r = malloc(sizeof *r);
    struct task *t = new_task(T_KERNEL);
    t->dsts = calloc(n, sizeof *t->dsts);
    t->sizes = calloc(n, sizeof *t->sizes);
    if (!r || !t->dsts || !t->sizes)
        abort();
    r->m = o;
    for (size_t k = 0; k < n; k++) {
        r->bufs[k] = t->dsts[k] = bs[k]->data;
        t->sizes[k] = om_bytes(&g->io[k]);
    }
    t->kfn = om_exec, t->karg = r, t->kfree = free, t->count = n;
    enqueue(s, t);
    return OK;
}

/* aclmdlExecuteAsync: input, output (100000); the stream (107002,
 * 107017, 107003); then the model and datasets (om_queue). */
EXPORT aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output, aclrtStream stream)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    if (!input || !output)
        rc = INVALID_PARAM;
    else if ((rc = get_stream(stream, &s)) == OK)
        rc = om_queue(modelId, input, output, s);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclmdlExecuteAsync(modelId=%u, input=0x%" PRIxPTR ", output=0x%" PRIxPTR ", stream=0x%" PRIxPTR, modelId,
        P(input), P(output), P(stream));
    return rc;
}

/* aclmdlExecute: as aclmdlExecuteAsync on the context's default stream,
 * waited for; the execution's failure is its code. */
EXPORT aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output)
{
    aclError rc = OK;
    pthread_mutex_lock(&mu);
    struct stream *s = NULL;
    if (!input || !output)
        rc = INVALID_PARAM;
    else if ((rc = get_stream(NULL, &s)) == OK && (rc = om_queue(modelId, input, output, s)) == OK)
        rc = stream_wait(s, -1);
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclmdlExecute(modelId=%u, input=0x%" PRIxPTR ", output=0x%" PRIxPTR, modelId, P(input), P(output));
    return rc;
}
