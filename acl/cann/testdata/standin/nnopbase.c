/*
 * nnopbase.c: a stand-in for libnnopbase.so, the operator library's
 * objects (aclnn/acl_meta.h): aclCreateTensor, aclCreateScalar,
 * aclCreateIntArray, aclCreateFloatArray, aclCreateBoolArray,
 * aclCreateTensorList and their destructions, with the native signatures.
 * As natively, a creation copies what it is given (a tensor keeps its
 * data address), returns NULL for what it cannot hold, and a tensor
 * list's destruction destroys its tensors. aclwasmStandinNNStats reports
 * the live objects, so that tests check a caller destroys what it made.
 *
 * Build (beside the stand-in libascendcl.so):
 *   gcc -shared -fPIC -O2 -fvisibility=hidden -o libnnopbase.so nnopbase.c
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nn.h"

#define MAGIC_T 0x7e75u
#define MAGIC_S 0x5ca1u
#define MAGIC_A 0xa77au
#define MAGIC_L 0x1157u

static _Atomic int64_t live[NN_KINDS];

EXPORT void aclwasmStandinNNCount(int kind, int delta) { live[kind] += delta; }

/* aclwasmStandinNNStats writes the live tensors, scalars, arrays, tensor
 * lists and executors. */
EXPORT void aclwasmStandinNNStats(int64_t *out)
{
    for (int i = 0; i < NN_KINDS; i++)
        out[i] = live[i];
}

EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, int dataType, const int64_t *stride,
                                  int64_t offset, int format, const int64_t *storageDims, uint64_t storageDimsNum,
                                  void *tensorData)
{
    if ((!viewDims && viewDimsNum) || (!storageDims && storageDimsNum) || viewDimsNum > 8 || storageDimsNum > 8)
        return NULL;
    aclTensor *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->magic = MAGIC_T, t->dtype = dataType, t->format = format, t->offset = offset, t->data = tensorData;
    t->ndim = viewDimsNum, t->nstorage = storageDimsNum;
    if (viewDimsNum)
        memcpy(t->dims, viewDims, viewDimsNum * sizeof *viewDims);
    if (storageDimsNum)
        memcpy(t->storage, storageDims, storageDimsNum * sizeof *storageDims);
    for (int64_t i = (int64_t)viewDimsNum - 1, acc = 1; i >= 0; i--) { /* NULL strides: contiguous */
        t->strides[i] = stride ? stride[i] : acc;
        acc *= t->dims[i] > 0 ? t->dims[i] : 1;
    }
    live[NN_TENSORS]++;
    return t;
}

EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    if (!tensor)
        return NN_OK;
    if (tensor->magic != MAGIC_T)
        return NN_ERR_PARAM_INVALID;
    ((aclTensor *)tensor)->magic = 0;
    free((void *)tensor);
    live[NN_TENSORS]--;
    return NN_OK;
}

static size_t dtype_size(int t)
{
    switch (t) {
    case DT_FLOAT:
    case DT_INT32:
        return 4;
    case DT_FLOAT16:
        return 2;
    case DT_INT64:
        return 8;
    case 2: /* int8 */
    case 4: /* uint8 */
    case 12: /* bool */
        return 1;
    }
    return 0;
}

EXPORT aclScalar *aclCreateScalar(void *value, int dataType)
{
    size_t n = dtype_size(dataType);
    if (!value || !n)
        return NULL;
    aclScalar *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->magic = MAGIC_S, s->dtype = dataType;
    memcpy(s->bits, value, n);
    live[NN_SCALARS]++;
    return s;
}

EXPORT aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    if (!scalar)
        return NN_OK;
    if (scalar->magic != MAGIC_S)
        return NN_ERR_PARAM_INVALID;
    free((void *)scalar);
    live[NN_SCALARS]--;
    return NN_OK;
}

/* dup copies n elements of size sz (NULL for none, which is still an array). */
static void *dup(const void *v, uint64_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (p && n)
        memcpy(p, v, n * sz);
    return p;
}

#define ARRAY(Name, Type, Elem)                                                 \
    EXPORT Type *aclCreate##Name(const Elem *value, uint64_t size)              \
    {                                                                           \
        if (!value && size)                                                     \
            return NULL;                                                        \
        Type *a = calloc(1, sizeof *a);                                         \
        if (!a || !(a->v = dup(value, size, sizeof(Elem)))) {                   \
            free(a);                                                            \
            return NULL;                                                        \
        }                                                                       \
        a->magic = MAGIC_A, a->n = size;                                        \
        live[NN_ARRAYS]++;                                                      \
        return a;                                                               \
    }                                                                           \
    EXPORT aclnnStatus aclDestroy##Name(const Type *array)                      \
    {                                                                           \
        if (!array)                                                             \
            return NN_OK;                                                       \
        if (array->magic != MAGIC_A)                                            \
            return NN_ERR_PARAM_INVALID;                                        \
        free(array->v);                                                         \
        free((void *)array);                                                    \
        live[NN_ARRAYS]--;                                                      \
        return NN_OK;                                                           \
    }

ARRAY(IntArray, aclIntArray, int64_t)
ARRAY(FloatArray, aclFloatArray, float)
ARRAY(BoolArray, aclBoolArray, bool)

EXPORT aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    if (!value && size)
        return NULL;
    aclTensorList *l = calloc(1, sizeof *l);
    if (!l || !(l->v = dup(value, size, sizeof *value))) {
        free(l);
        return NULL;
    }
    l->magic = MAGIC_L, l->n = size;
    live[NN_LISTS]++;
    return l;
}

EXPORT aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    if (!array)
        return NN_OK;
    if (array->magic != MAGIC_L)
        return NN_ERR_PARAM_INVALID;
    for (uint64_t i = 0; i < array->n; i++) /* as natively, the list owns its tensors */
        aclDestroyTensor(array->v[i]);
    free(array->v);
    free((void *)array);
    live[NN_LISTS]--;
    return NN_OK;
}

/* aclDestroyAclOpExecutor destroys an executor that will not run. */
EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (!executor)
        return NN_OK;
    if (executor->magic != MAGIC_E)
        return NN_ERR_INNER;
    executor->magic = 0;
    free(executor->job);
    free(executor);
    live[NN_EXECUTORS]--;
    return NN_OK;
}
