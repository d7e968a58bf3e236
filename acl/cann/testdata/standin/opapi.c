/*
 * opapi.c: a stand-in for libopapi.so, the operator library, for testing
 * package cann's operator launches without an Ascend NPU. It computes a
 * few operators in C, written apart from the simulator's Go, so that tests
 * compare the two: every operator of the simulator's table (acl/aclnn),
 * each in the library's two-phase form with the native signatures, on
 * fewer data types than natively (float32; Cast and the in-place ones
 * also float16 and int32):
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
 * attribute. -DNO_SOFTMAX leaves out Softmax: a caller asking for it
 * finds no symbol, as with a library built without it. A test-only
 * export, aclwasmStandinStallOps, makes operators stall on the device
 * until their stream's work is cancelled (see kernel).
 *
 * Build (beside the stand-in libascendcl.so and libnnopbase.so; it links
 * libnnopbase.so as the native library does, and finds libascendcl.so's
 * kernel launch by path, see find_launch):
 *   gcc -shared -fPIC -O2 -fvisibility=hidden -o libopapi.so opapi.c \
 *       -L. -lnnopbase -Wl,-rpath,'$ORIGIN' -ldl -lpthread -lm
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn.h"

/* The stand-in runtime's kernel launch (standin.c). */
typedef int (*launch_fn)(aclrtStream stream, int (*kfn)(void *, const int *), void *karg, void (*kfree)(void *), void *const *bufs,
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

static int aclwasmStandinLaunch(aclrtStream stream, int (*kfn)(void *, const int *), void *karg, void (*kfree)(void *),
                                void *const *bufs, const size_t *sizes, size_t n)
{
    pthread_once(&launch_once, find_launch);
    if (!launch) {
        kfree(karg);
        return NN_ERR_INNER;
    }
    return launch(stream, kfn, karg, kfree, bufs, sizes, n);
}

enum {
    OP_ADD, OP_MULS, OP_CAST, OP_REDUCE_SUM, OP_MM, OP_SCALE,
    /* The rest of the operator table: elementwise, then the others. */
    OP_SUB, OP_MUL, OP_DIV, OP_ADDS, OP_SUBS,
    OP_ABS, OP_NEG, OP_EXP, OP_SQRT, OP_RELU, OP_SIGMOID,
    OP_SOFTMAX, OP_MATMUL, OP_COPY, OP_FILL, OP_ZERO,
};

/* job is what an executor runs: the operator and its own copy of the
 * arguments, tensors first (inputs, then the output last). */
struct job {
    int op;
    int nt;
    aclTensor t[3];
    float alpha, scalar; /* Add's alpha, Muls's other, StandinScale's scale */
    double fill;         /* InplaceFillScalar's value */
    int64_t k;           /* StandinScale's k, Softmax's dim */
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

/* binop is a float32 arithmetic operator on x and y, with Add's and
 * Sub's alpha: alpha 1 a plain sum or difference, otherwise alpha*y
 * rounded to float32 on its own before the sum (the device's Axpy). */
static float binop(int op, float x, float y, float alpha)
{
    switch (op) {
    case OP_ADD:
    case OP_ADDS:
        return alpha == 1 ? x + y : x + (float)(alpha * y);
    case OP_SUB:
    case OP_SUBS:
        return alpha == 1 ? x - y : x + (float)(-alpha * y);
    case OP_MUL:
    case OP_MULS:
        return x * y;
    case OP_DIV:
        return x / y;
    }
    return 0;
}

/* unop is a float32 operator of one value; the transcendental ones
 * compute in double and round once to float. */
static float unop(int op, float x)
{
    switch (op) {
    case OP_ABS:
        return fabsf(x);
    case OP_NEG:
        return -x;
    case OP_EXP:
        return (float)exp((double)x);
    case OP_SQRT:
        return sqrtf(x);
    case OP_RELU:
        return x > 0 || x != x ? x : 0; /* NaN passes, -0 becomes +0 */
    case OP_SIGMOID:
        return (float)(1 / (1 + exp(-(double)x)));
    }
    return 0;
}

static void softmax(const struct job *j);
static void matmul(const struct job *j);

/* Test only: aclwasmStandinStallOps(n) makes the next n operators that
 * execute stall instead of computing: each waits, touching nothing, until
 * its stream's work is cancelled (aclrtStreamAbort, or
 * aclrtDestroyStreamForce) or the next aclwasmStandinStallOps call, then
 * ends without an error. No native library has it: the tests of the
 * run's time limit (host/operator_test.go) use it to hold an operator
 * running on the device, and release it with aclwasmStandinStallOps(0)
 * at their end so that a failing test does not hang.
 * aclwasmStandinStalled() is how many operators are stalled now. */
static int stalls, stalled;
static unsigned stall_gen;

EXPORT int aclwasmStandinStalled(void) { return __atomic_load_n(&stalled, __ATOMIC_SEQ_CST); }

EXPORT void aclwasmStandinStallOps(int n)
{
    __atomic_store_n(&stalls, n, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&stall_gen, 1, __ATOMIC_SEQ_CST);
}

/* stall takes one stall, if any is left, and returns its generation + 1
 * (0: none). */
static unsigned stall(void)
{
    unsigned gen = __atomic_load_n(&stall_gen, __ATOMIC_SEQ_CST);
    int n = __atomic_load_n(&stalls, __ATOMIC_SEQ_CST);
    while (n > 0)
        if (__atomic_compare_exchange_n(&stalls, &n, n - 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return gen + 1;
    return 0;
}

static int compute(struct job *j);

/* kernel is the device side of every operator: the job, on the stream's
 * worker; cancel is the stream's cancel flag. */
static int kernel(void *arg, const int *cancel)
{
    unsigned gen = stall();
    if (gen) {
        __atomic_add_fetch(&stalled, 1, __ATOMIC_SEQ_CST);
        while (!__atomic_load_n(cancel, __ATOMIC_RELAXED) && __atomic_load_n(&stall_gen, __ATOMIC_SEQ_CST) + 1 == gen) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        __atomic_sub_fetch(&stalled, 1, __ATOMIC_SEQ_CST);
        return 0;
    }
    return compute(arg);
}

static int compute(struct job *j)
{
    aclTensor *out = &j->t[j->nt - 1];
    int64_t idx[8] = {0}, a[8], b[8];
    if (elems(out->dims, out->ndim) == 0 && j->op != OP_REDUCE_SUM)
        return 0;
    switch (j->op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
        do {
            bidx(&j->t[0], idx, out->ndim, a);
            bidx(&j->t[1], idx, out->ndim, b);
            put(out, idx, binop(j->op, (float)get(&j->t[0], a), (float)get(&j->t[1], b), j->alpha));
        } while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_ADDS:
    case OP_SUBS:
    case OP_MULS:
        do
            put(out, idx, binop(j->op, (float)get(&j->t[0], idx), j->scalar, j->alpha));
        while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_ABS:
    case OP_NEG:
    case OP_EXP:
    case OP_SQRT:
    case OP_RELU:
    case OP_SIGMOID:
        do
            put(out, idx, unop(j->op, (float)get(&j->t[0], idx)));
        while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_SOFTMAX:
        softmax(j);
        return 0;
    case OP_MATMUL:
        matmul(j);
        return 0;
    case OP_COPY: /* selfRef = src broadcast, converted */
        do {
            bidx(&j->t[0], idx, out->ndim, a);
            put(out, idx, get(&j->t[0], a));
        } while (next(idx, out->dims, out->ndim));
        return 0;
    case OP_FILL:
    case OP_ZERO:
        do
            put(out, idx, out->dtype == DT_INT32 ? j->fill : (float)j->fill);
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

/* softmax is out = exp(x - max) / sum(exp(x - max)) along dim k, in
 * double, each result rounded once to float. */
static void softmax(const struct job *j)
{
    const aclTensor *self = &j->t[0], *out = &j->t[1];
    int64_t rows[8], idx[8] = {0};
    uint64_t n = self->ndim;
    int64_t d = n ? j->k : 0, l = n ? self->dims[d] : 1;
    memcpy(rows, self->dims, n * sizeof *rows);
    if (n)
        rows[d] = 1;
    do {
        double m = -INFINITY, sum = 0;
        for (int64_t i = 0; i < l; i++) {
            if (n)
                idx[d] = i;
            m = fmax(m, get(self, idx));
        }
        for (int64_t i = 0; i < l; i++) {
            if (n)
                idx[d] = i;
            sum += exp(get(self, idx) - m);
        }
        for (int64_t i = 0; i < l; i++) {
            if (n)
                idx[d] = i;
            put(out, idx, (float)(exp(get(self, idx) - m) / sum));
        }
        if (n)
            idx[d] = 0;
    } while (next(idx, rows, n));
}

/* matmul is torch.matmul over float32 in float32: a 1-D self is a row,
 * a 1-D other a column (their dim dropped from out), the batch dims
 * (all but the last two) broadcast. The products accumulate in order of
 * k, as Mm's. */
static void matmul(const struct job *j)
{
    const aclTensor *x = &j->t[0], *y = &j->t[1], *out = &j->t[2];
    uint64_t nx = x->ndim, ny = y->ndim, nb = out->ndim - (nx > 1) - (ny > 1);
    int64_t m = nx > 1 ? x->dims[nx - 2] : 1, k = x->dims[nx - 1], n = ny > 1 ? y->dims[ny - 1] : 1;
    int64_t bidx[8] = {0}, xi[8], yi[8], oi[8];
    do {
        /* The batch index in x and y: right-aligned, size-1 dims at 0. */
        for (uint64_t i = 0; nx > 2 && i < nx - 2; i++)
            xi[i] = x->dims[i] == 1 ? 0 : bidx[i + nb - (nx - 2)];
        for (uint64_t i = 0; ny > 2 && i < ny - 2; i++)
            yi[i] = y->dims[i] == 1 ? 0 : bidx[i + nb - (ny - 2)];
        memcpy(oi, bidx, nb * sizeof *oi);
        for (int64_t r = 0; r < m; r++)
            for (int64_t c = 0; c < n; c++) {
                float s = 0;
                for (int64_t p = 0; p < k; p++) {
                    if (nx > 1)
                        xi[nx - 2] = r;
                    xi[nx - 1] = p;
                    if (ny > 1)
                        yi[ny - 2] = p, yi[ny - 1] = c;
                    else
                        yi[0] = p;
                    s += (float)get(x, xi) * (float)get(y, yi);
                }
                uint64_t o = nb;
                if (nx > 1)
                    oi[o++] = r;
                if (ny > 1)
                    oi[o++] = c;
                put(out, oi, s);
            }
    } while (next(bidx, out->dims, nb));
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

/* broadcast_ok: out has the broadcast shape of self and other. */
static int broadcast_ok(const aclTensor *self, const aclTensor *other, const aclTensor *out)
{
    for (uint64_t k = 0; k < out->ndim; k++) {
        int64_t d = out->dims[out->ndim - 1 - k];
        for (int s = 0; s < 2; s++) {
            const aclTensor *t = s ? other : self;
            if (k < t->ndim && t->dims[t->ndim - 1 - k] != d && t->dims[t->ndim - 1 - k] != 1)
                return 0;
        }
    }
    return self->ndim <= out->ndim && other->ndim <= out->ndim;
}

/* binary is the GetWorkspaceSize of a float32 operator of two tensors
 * with broadcasting (alpha NULL where it has none). */
static aclnnStatus binary(int op, const aclTensor *self, const aclTensor *other, const aclScalar *alpha, int hasAlpha,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !other || (hasAlpha && !alpha) || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || other->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) ||
        !tensor_ok(other) || !tensor_ok(out) || !broadcast_ok(self, other, out))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, other, out};
    struct job *j = new_job(op, 3, ts);
    j->alpha = hasAlpha ? scalar_f(alpha) : 1;
    return finish(j, workspaceSize, executor);
}

/* scalar is the GetWorkspaceSize of a float32 operator of a tensor and
 * a scalar (alpha NULL where it has none). */
static aclnnStatus scalar(int op, const aclTensor *self, const aclScalar *other, const aclScalar *alpha, int hasAlpha,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !other || (hasAlpha && !alpha) || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) || !same_dims(self, out))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    struct job *j = new_job(op, 2, ts);
    j->scalar = scalar_f(other);
    j->alpha = hasAlpha ? scalar_f(alpha) : 1;
    return finish(j, workspaceSize, executor);
}

/* unary is the GetWorkspaceSize of a float32 operator of one tensor. */
static aclnnStatus unary(int op, const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (self->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) || !same_dims(self, out))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    return finish(new_job(op, 2, ts), workspaceSize, executor);
}

EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return binary(OP_ADD, self, other, alpha, 1, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return binary(OP_SUB, self, other, alpha, 1, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return binary(OP_MUL, self, other, NULL, 0, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return binary(OP_DIV, self, other, NULL, 0, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return scalar(OP_ADDS, self, other, alpha, 1, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return scalar(OP_SUBS, self, other, alpha, 1, out, workspaceSize, executor);
}

#define UNARY(Name, OP)                                                                                              \
    EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, \
                                                     aclOpExecutor **executor)                                       \
    {                                                                                                                \
        return unary(OP, self, out, workspaceSize, executor);                                                        \
    }
UNARY(Abs, OP_ABS)
UNARY(Neg, OP_NEG)
UNARY(Exp, OP_EXP)
UNARY(Sqrt, OP_SQRT)
UNARY(Relu, OP_RELU)
UNARY(Sigmoid, OP_SIGMOID)

EXPORT aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return scalar(OP_MULS, self, other, NULL, 0, out, workspaceSize, executor);
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

#ifndef NO_SOFTMAX
EXPORT aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!self || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    int64_t rank = self->ndim ? (int64_t)self->ndim : 1;
    if (self->dtype != DT_FLOAT || out->dtype != DT_FLOAT || !tensor_ok(self) || !same_dims(self, out) ||
        dim >= rank || dim < -rank)
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, out};
    struct job *j = new_job(OP_SOFTMAX, 2, ts);
    j->k = dim < 0 ? dim + rank : dim;
    return finish(j, workspaceSize, executor);
}
#endif

EXPORT aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                               int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)cubeMathType;
    if (!self || !other || !out || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    uint64_t nx = self->ndim, ny = other->ndim;
    if (self->dtype != DT_FLOAT || other->dtype != DT_FLOAT || out->dtype != DT_FLOAT || nx == 0 || ny == 0 ||
        nx > 6 || ny > 6 || !tensor_ok(out))
        return NN_ERR_PARAM_INVALID;
    if (self->dims[nx - 1] != other->dims[ny > 1 ? ny - 2 : 0])
        return NN_ERR_PARAM_INVALID;
    /* out's shape: the broadcast batch dims, then m (a 2-D self), then n
     * (a 2-D other). */
    uint64_t bx = nx > 2 ? nx - 2 : 0, by = ny > 2 ? ny - 2 : 0, nb = bx > by ? bx : by;
    int64_t want[8];
    for (uint64_t k = 0; k < nb; k++) {
        int64_t a = k < bx ? self->dims[bx - 1 - k] : 1, b = k < by ? other->dims[by - 1 - k] : 1;
        if (a != b && a != 1 && b != 1)
            return NN_ERR_PARAM_INVALID;
        want[nb - 1 - k] = a == 1 ? b : a;
    }
    uint64_t nw = nb;
    if (nx > 1)
        want[nw++] = self->dims[nx - 2];
    if (ny > 1)
        want[nw++] = other->dims[ny - 1];
    if (nw != out->ndim || memcmp(want, out->dims, nw * sizeof *want))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {self, other, out};
    return finish(new_job(OP_MATMUL, 3, ts), workspaceSize, executor);
}

/* The in-place operators: float32, float16 and int32, a conversion to
 * int32 only from int32 (as Cast's). */
static int store_ok(int dt) { return dt == DT_FLOAT || dt == DT_FLOAT16 || dt == DT_INT32; }

EXPORT aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    if (!selfRef || !src || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (!store_ok(selfRef->dtype) || !store_ok(src->dtype) || (selfRef->dtype == DT_INT32 && src->dtype != DT_INT32) ||
        !tensor_ok(selfRef) || !tensor_ok(src) || !broadcast_ok(src, src, selfRef))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {src, selfRef};
    return finish(new_job(OP_COPY, 2, ts), workspaceSize, executor);
}

EXPORT aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!selfRef || !value || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (!store_ok(selfRef->dtype) || !tensor_ok(selfRef) || (value->dtype != DT_FLOAT && value->dtype != DT_INT32) ||
        (selfRef->dtype == DT_INT32 && value->dtype != DT_INT32))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {selfRef};
    struct job *j = new_job(OP_FILL, 1, ts);
    int32_t i;
    memcpy(&i, value->bits, 4);
    j->fill = value->dtype == DT_INT32 ? i : scalar_f(value);
    return finish(j, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    if (!selfRef || !workspaceSize || !executor)
        return NN_ERR_PARAM_NULLPTR;
    if (!store_ok(selfRef->dtype) || !tensor_ok(selfRef))
        return NN_ERR_PARAM_INVALID;
    const aclTensor *ts[] = {selfRef};
    return finish(new_job(OP_ZERO, 1, ts), workspaceSize, executor);
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

EXPORT aclnnStatus aclnnSub(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_SUB, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_MUL, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_DIV, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnAdds(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_ADDS, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnSubs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_SUBS, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_ABS, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnNeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_NEG, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnExp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_EXP, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_SQRT, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_RELU, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnSigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_SIGMOID, workspace, workspaceSize, executor, stream);
}

#ifndef NO_SOFTMAX
EXPORT aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_SOFTMAX, workspace, workspaceSize, executor, stream);
}
#endif

EXPORT aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_MATMUL, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnInplaceCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_COPY, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnInplaceFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_FILL, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnInplaceZero(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return run(OP_ZERO, workspace, workspaceSize, executor, stream);
}
