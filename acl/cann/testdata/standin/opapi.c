/*
 * opapi.c: a stand-in for libopapi.so, the operator library, for testing
 * package cann's operator launches without an Ascend NPU. It computes a
 * few operators in C, written apart from the simulator's Go, so that tests
 * compare the two: Add, Muls, Cast, ReduceSum and Mm, each in the
 * library's two-phase form with the native signatures:
 *
 *   aclnnXxxGetWorkspaceSize(args..., uint64_t *workspaceSize, aclOpExecutor **executor)
 *     checks NULLs (161001), data types and shapes (161002), and makes a
 *     single-use executor that holds its own copy of the arguments;
 *   aclnnXxx(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
 *     checks the workspace and queues the computation on the stream
 *     (aclwasmStandinLaunch of the stand-in libascendcl.so), in stream
 *     order, over the tensors' device memory; the executor is used up.
 *
 * ReduceSum asks for a workspace (its accumulators, 8 bytes per output
 * element) and computes in it, so that a caller that gives too little or
 * none is caught. StandinScale, no native operator, takes a float
 * attribute. Other operators are not exported: a caller asking for one
 * finds no symbol, as with a library built without it.
 *
 * Build (beside the stand-in libascendcl.so and libnnopbase.so; it links
 * libnnopbase.so as the native library does, and finds libascendcl.so's
 * kernel launch by path, see find_launch):
 *   gcc -shared -fPIC -O2 -fvisibility=hidden -o libopapi.so opapi.c \
 *       -L. -lnnopbase -Wl,-rpath,'$ORIGIN' -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn.h"

/* The stand-in runtime's kernel launch (standin.c). */
typedef int (*launch_fn)(aclrtStream stream, int (*kfn)(void *), void *karg, void (*kfree)(void *), void *const *bufs,
                         const size_t *sizes, size_t n);
static launch_fn launch;
static pthread_once_t launch_once = PTHREAD_ONCE_INIT;

/* find_launch finds aclwasmStandinLaunch in the libascendcl.so beside
 * this library, which the backend has loaded. The native library links
 * libascendcl.so by name; the stand-in looks it up by path instead, so
 * that the loader never learns "libascendcl.so" as a name of the stand-in
 * (it would then answer a later dlopen by that bare name, which tests of
 * the library search rely on failing). */
static void find_launch(void)
{
    Dl_info info;
    char path[PATH_MAX];
    if (!dladdr((void *)find_launch, &info) || !info.dli_fname)
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 0;
    snprintf(path, sizeof path, "%.*s%slibascendcl.so", dir, info.dli_fname, slash ? "/" : "");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (h)
        launch = (launch_fn)dlsym(h, "aclwasmStandinLaunch");
}

static int aclwasmStandinLaunch(aclrtStream stream, int (*kfn)(void *), void *karg, void (*kfree)(void *),
                                void *const *bufs, const size_t *sizes, size_t n)
{
    pthread_once(&launch_once, find_launch);
    if (!launch) {
        kfree(karg);
        return NN_ERR_INNER;
    }
    return launch(stream, kfn, karg, kfree, bufs, sizes, n);
}

enum { OP_ADD, OP_MULS, OP_CAST, OP_REDUCE_SUM, OP_MM, OP_SCALE };

/* job is what an executor runs: the operator and its own copy of the
 * arguments, tensors first (inputs, then the output last). */
struct job {
    int op;
    int nt;
    aclTensor t[3];
    float alpha, scalar; /* Add's alpha, Muls's other, StandinScale's scale */
    int64_t k;           /* StandinScale's k */
    int reduce[8];       /* ReduceSum: which of self's dims it sums */
    int keep;
    uint64_t ws;    /* the workspace it asked for */
    double *acc;    /* ReduceSum: its accumulators, in the workspace */
};

static size_t esz(int dt)
{
    switch (dt) {
    case DT_FLOAT:
    case DT_INT32:
        return 4;
    case DT_FLOAT16:
        return 2;
    case DT_INT64:
        return 8;
    }
    return 0;
}

static int64_t elems(const int64_t *dims, uint64_t n)
{
    int64_t c = 1;
    for (uint64_t i = 0; i < n; i++)
        c *= dims[i];
    return c;
}

static char *at(const aclTensor *t, const int64_t *idx)
{
    int64_t off = t->offset;
    for (uint64_t k = 0; k < t->ndim; k++)
        off += idx[k] * t->strides[k];
    return (char *)t->data + off * (int64_t)esz(t->dtype);
}

static double get(const aclTensor *t, const int64_t *idx)
{
    const char *p = at(t, idx);
    switch (t->dtype) {
    case DT_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case DT_FLOAT16: {
        _Float16 h;
        memcpy(&h, p, 2);
        return (double)h;
    }
    case DT_INT32: {
        int32_t i;
        memcpy(&i, p, 4);
        return i;
    }
    }
    int64_t l;
    memcpy(&l, p, 8);
    return (double)l;
}

/* put stores v, a value of the result's type held exactly in a double
 * (float results are floats), rounding to nearest even for float16. */
static void put(const aclTensor *t, const int64_t *idx, double v)
{
    char *p = at(t, idx);
    switch (t->dtype) {
    case DT_FLOAT: {
        float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    case DT_FLOAT16: {
        _Float16 h = (_Float16)v;
        memcpy(p, &h, 2);
        return;
    }
    case DT_INT32: {
        int32_t i = (int32_t)v;
        memcpy(p, &i, 4);
        return;
    }
    }
    int64_t l = (int64_t)v;
    memcpy(p, &l, 8);
}

/* next steps idx through dims in row-major order; 0 after the last. */
static int next(int64_t *idx, const int64_t *dims, uint64_t n)
{
    for (int64_t k = (int64_t)n - 1; k >= 0; k--) {
        if (++idx[k] < dims[k])
            return 1;
        idx[k] = 0;
    }
    return 0;
}

/* bidx is the index in t, broadcast to out's n dims, of out's idx. */
static void bidx(const aclTensor *t, const int64_t *idx, uint64_t n, int64_t *out)
{
    for (uint64_t j = 0; j < t->ndim; j++)
        out[j] = t->dims[j] == 1 ? 0 : idx[j + n - t->ndim];
}

static int kernel(void *arg)
{
    struct job *j = arg;
    aclTensor *out = &j->t[j->nt - 1];
    int64_t idx[8] = {0}, a[8], b[8];
    if (elems(out->dims, out->ndim) == 0 && j->op != OP_REDUCE_SUM)
        return 0;
    switch (j->op) {
    case OP_ADD:
        do {
            bidx(&j->t[0], idx, out->ndim, a);
            bidx(&j->t[1], idx, out->ndim, b);
            float x = (float)get(&j->t[0], a), y = (float)get(&j->t[1], b);
            put(out, idx, j->alpha == 1 ? x + y : x + (float)(j->alpha * y));
        } while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_MULS:
        do
            put(out, idx, (float)get(&j->t[0], idx) * j->scalar);
        while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_SCALE:
        do
            put(out, idx, (float)get(&j->t[0], idx) * j->scalar + (float)j->k);
        while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_CAST:
        do
            put(out, idx, get(&j->t[0], idx));
        while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_REDUCE_SUM: {
        const aclTensor *self = &j->t[0];
        int64_t n = elems(out->dims, out->ndim);
        memset(j->acc, 0, (size_t)n * sizeof *j->acc);
        if (elems(self->dims, self->ndim) > 0)
            do {
                int64_t pos = 0; /* out's row-major position of idx */
                for (uint64_t k = 0; k < self->ndim; k++)
                    if (!j->reduce[k])
                        pos = pos * self->dims[k] + idx[k];
                j->acc[pos] += get(self, idx);
            } while (next(idx, self->dims, self->ndim));
        memset(idx, 0, sizeof idx);
        if (n > 0)
            for (int64_t i = 0; i < n; i++, next(idx, out->dims, out->ndim))
                put(out, idx, (float)j->acc[i]);
        return 0;
    }
    case OP_MM: {
        const aclTensor *x = &j->t[0], *y = &j->t[1];
        int64_t m = x->dims[0], k = x->dims[1], n = y->dims[1];
        for (int64_t r = 0; r < m; r++)
            for (int64_t c = 0; c < n; c++) {
                float s = 0;
                for (int64_t p = 0; p < k; p++) {
                    int64_t xi[2] = {r, p}, yi[2] = {p, c};
                    s += (float)get(x, xi) * (float)get(y, yi);
                }
                int64_t oi[2] = {r, c};
                put(out, oi, s);
            }
        return 0;
    }
    }
    return NN_ERR_INNER;
}

static float scalar_f(const aclScalar *s)
{
    float f;
    int32_t i;
    switch (s->dtype) {
    case DT_FLOAT:
        memcpy(&f, s->bits, 4);
        return f;
    case DT_INT32:
        memcpy(&i, s->bits, 4);
        return (float)i;
    }
    return 0;
}

/* The checks every tensor gets: dims within 8, a known data type. */
static int tensor_ok(const aclTensor *t) { return t->ndim <= 8 && esz(t->dtype) != 0; }

/* finish makes the executor of j and writes the workspace size. */
static aclnnStatus finish(struct job *j, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    aclOpExecutor *e = calloc(1, sizeof *e);
    if (!e) {
        free(j);
        return NN_ERR_INNER;
    }
    e->magic = MAGIC_E, e->job = j;
    *workspaceSize = j->ws;
    *executor = e;
    aclwasmStandinNNCount(NN_EXECUTORS, 1);
    return NN_OK;
}

static struct job *new_job(int op, int nt, const aclTensor *const *ts)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        abort();
    j->op = op, j->nt = nt;
    for (int i = 0; i < nt; i++)
        j->t[i] = *ts[i];
    return j;
}

static int same_dims(const aclTensor *a, const aclTensor *b)
{
    return a->ndim == b->ndim && !memcmp(a->dims, b->dims, a->ndim * sizeof *a->dims);
}

EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !other || !alpha || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || other->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) ||
        !tensor_ok(other) || !tensor_ok(out))
        return NN_ERR_PARAM_INVALID;
    /* Broadcasting: out has the broadcast shape of self and other. */
    for (uint64_t k = 0; k < out->ndim; k++) {
        int64_t d = out->dims[out->ndim - 1 - k];
        for (int s = 0; s < 2; s++) {
            const aclTensor *t = s ? other : self;
            if (k < t->ndim && t->dims[t->ndim - 1 - k] != d && t->dims[t->ndim - 1 - k] != 1)
                return NN_ERR_PARAM_INVALID;
        }
    }
    if (self->ndim > out->ndim || other->ndim > out->ndim)
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, other, out};
    struct job *j = new_job(OP_ADD, 3, ts);
    j->alpha = scalar_f(alpha);
    return finish(j, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !other || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) || !same_dims(self, out))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    struct job *j = new_job(OP_MULS, 2, ts);
    j->scalar = scalar_f(other);
    return finish(j, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, int dtype, aclTensor *out, uint64_t *workspaceSize,
                                             aclOpExecutor **executor)
{
    if (!self || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    int from = self->dtype;
    if (!tensor_ok(self) || !tensor_ok(out) || out->dtype != dtype || !same_dims(self, out) || dtype == DT_INT64 ||
        from == DT_INT64 || (dtype == DT_INT32 && from != DT_INT32))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    return finish(new_job(OP_CAST, 2, ts), workspaceSize, executor);
}

EXPORT aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDims, int dtype,
                                                  aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !dim || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) || !tensor_ok(out))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    struct job *j = new_job(OP_REDUCE_SUM, 2, ts);
    for (uint64_t i = 0; i < dim->n; i++) {
        int64_t d = dim->v[i] < 0 ? dim->v[i] + (int64_t)self->ndim : dim->v[i];
        if (d < 0 || d >= (int64_t)self->ndim) {
            free(j);
            return NN_ERR_PARAM_INVALID;
        }
        j->reduce[d] = 1;
    }
    for (uint64_t k = 0; k < self->ndim && dim->n == 0; k++) /* no dims: all of them */
        j->reduce[k] = 1;
    /* out's shape: self's with the summed dims 1 (keepDims) or gone. */
    int64_t want[8];
    uint64_t nw = 0;
    for (uint64_t k = 0; k < self->ndim; k++)
        if (!j->reduce[k] || keepDims)
            want[nw++] = j->reduce[k] ? 1 : self->dims[k];
    if (nw != out->ndim || memcmp(want, out->dims, nw * sizeof *want)) {
        free(j);
        return NN_ERR_PARAM_INVALID;
    }
    j->keep = keepDims;
    j->ws = (uint64_t)elems(out->dims, out->ndim) * sizeof(double);
    return finish(j, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                           int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)cubeMathType;
    if (!self || !mat2 || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || mat2->dtype != DT_FLOAT || out->dtype != DT_FLOAT || self->ndim != 2 ||
        mat2->ndim != 2 || out->ndim != 2 || self->dims[1] != mat2->dims[0] || out->dims[0] != self->dims[0] ||
        out->dims[1] != mat2->dims[1])
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, mat2, out};
    return finish(new_job(OP_MM, 3, ts), workspaceSize, executor);
}

/* StandinScale is no native operator: out = self * scale + k, float32,
 * whose float attribute between an object and an integer shows that a
 * caller passes it in a floating-point register, as the C ABI does
 * (natively e.g. a double eps). */
EXPORT aclnnStatus aclnnStandinScaleGetWorkspaceSize(const aclTensor *self, float scale, int64_t k, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) || !same_dims(self, out))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    struct job *j = new_job(OP_SCALE, 2, ts);
    j->scalar = scale, j->k = k;
    return finish(j, workspaceSize, executor);
}

static void job_free(void *arg) { free(arg); }

/* storage is the bytes of t's storage. */
static size_t storage(const aclTensor *t) { return (size_t)elems(t->storage, t->nstorage) * esz(t->dtype); }

/* run is aclnnXxx: the executor (used up whatever happens), the
 * workspace, then the computation queued on the stream over the tensors'
 * storage and the workspace. */
static aclnnStatus run(int op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    if (!executor)
        return NN_ERR_PARAM_NULLPTR;
    struct job *j = executor->job;
    if (executor->magic != MAGIC_E || j->op != op)
        return NN_ERR_INNER;
    executor->magic = 0;
    free(executor);
    aclwasmStandinNNCount(NN_EXECUTORS, -1);
    if (workspaceSize < j->ws || (j->ws && !workspace)) {
        free(j);
        return NN_ERR_PARAM_INVALID;
    }
    void *bufs[4];
    size_t sizes[4];
    size_t n = 0;
    for (int i = 0; i < j->nt; i++)
        if (storage(&j->t[i]))
            bufs[n] = j->t[i].data, sizes[n++] = storage(&j->t[i]);
    if (j->ws) {
        j->acc = workspace;
        bufs[n] = workspace, sizes[n++] = j->ws;
    }
    return aclwasmStandinLaunch(stream, kernel, j, job_free, bufs, sizes, n);
}

EXPORT aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_ADD, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnMuls(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_MULS, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_CAST, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_REDUCE_SUM, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnMm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_MM, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnStandinScale(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_SCALE, workspace, workspaceSize, executor, stream);
}
