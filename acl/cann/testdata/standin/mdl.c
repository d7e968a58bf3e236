/* ---- offline models (ABI v1.3 section 13.4) ----
 *
 * Included by standin.c (it uses the stand-in's state). The stand-in runs
 * one small fixed model of its own instead of the graph engine's offline
 * models: a text file whose first line is the magic below, then lines
 *
 *   n N          the model's one input "x" and one output "y": N float32
 *   op affine    y = 2x + 1 (the default); "op fail" fails as it runs;
 *                "op stall" runs until its stream's work is cancelled
 *                (aclrtStreamAbort), touching nothing
 *   work B       device memory the model works in (aclmdlQuerySize)
 *   weight B     device memory of its weights
 *
 * so that a test writes such a ".om" file. The functions check what they
 * are given as the native runtime does, in the same order and with its
 * codes: NULLs (100000), no context (107002), an unreadable or invalid
 * file (145002, 145006), an unknown model id (145003), datasets whose
 * buffer count is not the model's (145000), a buffer more than 64 bytes
 * smaller than the model's input or output (500002), a buffer outside
 * every device allocation (107000 when queued; 507899 when it runs, as a
 * freed buffer fails the stream). A model unloaded while an execution of
 * it is queued fails that execution (145003). */

#define OM_MAGIC "aclwasm-standin-om\n"
#define OM_SLACK 64

enum {
    GE_PARAM_INVALID = 145000,
    GE_MODEL_PATH_INVALID = 145002,
    GE_MODEL_ID_INVALID = 145003,
    GE_MODEL_DATA_SIZE_INVALID = 145006,
    GE_FAILURE = 500002,
    RT_MODEL_EXECUTE = 507011,
};

struct om {
    uint32_t id;
    int dead;
    int fail, stall;
    size_t n; /* elements of x and y */
    size_t work, weight;
};
static struct om **oms;
static size_t noms, capoms;
static uint32_t om_next;

typedef struct aclmdlDesc {
    uint32_t id; /* 0: empty */
    size_t n;
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

/* om_parse reads a model file: 0 when it cannot be read (145002), -1
 * when it is not a model (145006), 1 when it is. */
static int om_parse(const char *path, struct om *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    int ok = fgets(line, sizeof line, f) && strcmp(line, OM_MAGIC) == 0 ? 1 : -1;
    while (ok == 1 && fgets(line, sizeof line, f)) {
        char key[32], val[64];
        unsigned long long v;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%31s %63s", key, val) != 2)
            ok = -1;
        else if (strcmp(key, "op") == 0)
            ok = strcmp(val, "affine") == 0 ? (m->fail = 0, 1)
                 : strcmp(val, "fail") == 0 ? (m->fail = 1, 1)
                 : strcmp(val, "stall") == 0 ? (m->stall = 1, 1)
                 : -1;
        else if (sscanf(val, "%llu", &v) != 1)
            ok = -1;
        else if (strcmp(key, "n") == 0 && v > 0 && v <= (1ull << 28))
            m->n = (size_t)v;
        else if (strcmp(key, "work") == 0)
            m->work = (size_t)v;
        else if (strcmp(key, "weight") == 0)
            m->weight = (size_t)v;
        else
            ok = -1;
    }
    fclose(f);
    if (ok == 1 && m->n == 0)
        ok = -1;
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
        d->id = o->id, d->n = o->n;
    pthread_mutex_unlock(&mu);
    LOG(rc, "aclmdlGetDesc(modelDesc=0x%" PRIxPTR ", modelId=%u", P(d), modelId);
    return rc;
}

/* One input and one output, when the description is filled. */
static size_t om_ios(const aclmdlDesc *d) { return d && d->id ? 1 : 0; }
EXPORT size_t aclmdlGetNumInputs(aclmdlDesc *d) { return om_ios(d); }
EXPORT size_t aclmdlGetNumOutputs(aclmdlDesc *d) { return om_ios(d); }
EXPORT size_t aclmdlGetInputSizeByIndex(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? d->n * 4 : 0; }
EXPORT size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? d->n * 4 : 0; }
EXPORT const char *aclmdlGetInputNameByIndex(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? "x" : ""; }
EXPORT const char *aclmdlGetOutputNameByIndex(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? "y" : ""; }
/* ACL_FLOAT (0) and ACL_FORMAT_ND (2); -1, the UNDEFINED values, past the
 * description's inputs or outputs. */
EXPORT int32_t aclmdlGetInputDataType(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? 0 : -1; }
EXPORT int32_t aclmdlGetOutputDataType(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? 0 : -1; }
EXPORT int32_t aclmdlGetInputFormat(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? 2 : -1; }
EXPORT int32_t aclmdlGetOutputFormat(aclmdlDesc *d, size_t i) { return i < om_ios(d) ? 2 : -1; }

static aclError om_dims(aclmdlDesc *d, size_t i, aclmdlIODims *dims, const char *name)
{
    if (!d || !dims)
        return INVALID_PARAM;
    if (i >= om_ios(d))
        return INVALID_PARAM;
    strcpy(dims->name, name);
    dims->dimCount = 1;
    dims->dims[0] = (int64_t)d->n;
    return OK;
}
EXPORT aclError aclmdlGetInputDims(aclmdlDesc *d, size_t i, aclmdlIODims *dims) { return om_dims(d, i, dims, "x"); }
EXPORT aclError aclmdlGetOutputDims(aclmdlDesc *d, size_t i, aclmdlIODims *dims) { return om_dims(d, i, dims, "y"); }

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

/* An execution as a stream task (T_KERNEL): the model and the two
 * buffers. */
struct om_run {
    struct om *m;
    uint32_t id;
    float *x, *y;
};

static aclError om_exec(void *arg, const int *cancel)
{
    struct om_run *r = arg;
    if (r->m->dead)
        return GE_MODEL_ID_INVALID;
    if (r->m->fail)
        return RT_MODEL_EXECUTE;
    if (r->m->stall) {
        while (!__atomic_load_n(cancel, __ATOMIC_RELAXED)) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        return OK;
    }
    for (size_t i = 0; i < r->m->n; i++)
        r->y[i] = 2 * r->x[i] + 1;
    return OK;
}

/* om_queue checks an execution and queues it on s. Called with mu held. */
static aclError om_queue(uint32_t modelId, const aclmdlDataset *in, const aclmdlDataset *out, struct stream *s)
{
    struct om *o = find_om(modelId);
    if (!o)
        return GE_MODEL_ID_INVALID;
    if (in->n != 1 || out->n != 1)
        return GE_PARAM_INVALID;
    const aclDataBuffer *bs[2] = {in->bufs[0], out->bufs[0]};
    size_t need = o->n * 4;
    for (int k = 0; k < 2; k++)
        if (!bs[k]->data || (bs[k]->size < need && need - bs[k]->size > OM_SLACK))
            return GE_FAILURE;
    for (int k = 0; k < 2; k++)
        if (!in_dev(bs[k]->data, need))
            return RT_PARAM_INVALID;
    struct om_run *r = malloc(sizeof *r);
    struct task *t = new_task(T_KERNEL);
    t->dsts = calloc(2, sizeof *t->dsts);
    t->sizes = calloc(2, sizeof *t->sizes);
    if (!r || !t->dsts || !t->sizes)
        abort();
    r->m = o, r->id = modelId, r->x = bs[0]->data, r->y = bs[1]->data;
    t->kfn = om_exec, t->karg = r, t->kfree = free, t->count = 2;
    t->dsts[0] = bs[0]->data, t->dsts[1] = bs[1]->data;
    t->sizes[0] = t->sizes[1] = need;
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
