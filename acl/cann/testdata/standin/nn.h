/*
 * nn.h: the objects of the stand-in operator library, shared by its two
 * halves as natively: nnopbase.c (libnnopbase.so, the tensors, scalars and
 * arrays of aclnn/acl_meta.h) and opapi.c (libopapi.so, the operators).
 */
#ifndef STANDIN_NN_H
#define STANDIN_NN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

typedef int aclnnStatus;
typedef void *aclrtStream;

/* The operator library's codes (aclnn/aclnn_base.h). */
enum {
    NN_OK = 0,
    NN_ERR_PARAM_NULLPTR = 161001,
    NN_ERR_PARAM_INVALID = 161002,
    NN_ERR_INNER = 561000,
};

/* The aclDataType and aclFormat values the stand-in operators know. */
enum { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT32 = 3, DT_INT64 = 9 };

typedef struct aclTensor {
    uint32_t magic;
    int dtype, format;
    uint64_t ndim, nstorage;
    int64_t dims[8], strides[8], storage[8];
    int64_t offset;
    void *data;
} aclTensor;

typedef struct aclScalar {
    uint32_t magic;
    int dtype;
    uint8_t bits[8];
} aclScalar;

typedef struct aclIntArray {
    uint32_t magic;
    uint64_t n;
    int64_t *v;
} aclIntArray;

typedef struct aclFloatArray {
    uint32_t magic;
    uint64_t n;
    float *v;
} aclFloatArray;

typedef struct aclBoolArray {
    uint32_t magic;
    uint64_t n;
    bool *v;
} aclBoolArray;

typedef struct aclTensorList {
    uint32_t magic;
    uint64_t n;
    aclTensor **v;
} aclTensorList;

/* An executor: what aclnnXxxGetWorkspaceSize made for aclnnXxx to run
 * (opapi.c's job), used up by aclnnXxx or aclDestroyAclOpExecutor. */
typedef struct aclOpExecutor {
    uint32_t magic;
    void *job;
} aclOpExecutor;
#define MAGIC_E 0xe8ecu

/* Live-object bookkeeping of libnnopbase.so, for opapi.c's executors. */
EXPORT void aclwasmStandinNNCount(int kind, int delta);
enum { NN_TENSORS, NN_SCALARS, NN_ARRAYS, NN_LISTS, NN_EXECUTORS, NN_KINDS };

#endif
