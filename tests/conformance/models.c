/*
 * models.c: conformance of the models the host approves (guest ABI section
 * 13.4, acl/acl_mdl.h), as conformance.c is of section 5: every aclmdl
 * argument check with its native code (docs/check-order.md, generated from
 * acl.Order, cites the native source in hicann/ge), names the host did not
 * approve, datasets with buffers too small, freed and forged, execution on
 * a destroyed stream, unload while an execution is queued, cancellation by
 * aclrtDestroyStreamForce, and a model that fails as it runs. It prints
 * one line per check and "conformance: N passed, M failed", and exits 1 if
 * any check failed.
 *
 * The host approves the test models of acl/sim/model/testdata/genmodels.py
 * under the names "mlp" (x[1,8] -> logits[1,4], probs[1,4]), "cnn"
 * (image[1,3,32,32] -> probs[1,10]) and "divide" (a[1,4] / b[1,4], int32),
 * and under "junk" a file of the backend's model kind that is no model,
 * on the simulated device with two devices (tests/conformance/run does),
 * and on the native backend the stand-in library's counterparts of the
 * same names, inputs, outputs and types (the .om files of
 * acl/cann/testdata/standin, run by tests/cann, two devices): every check
 * holds on both.
 *
 * Build: scripts/build-guests.sh conformance (models.wasm, the wide
 * profile, and models32.wasm, the native layout).
 */
#include <stdio.h>
#include <string.h>

#include <acl/acl.h>
#include <acl/acl_mdl.h>

#include "check.h"

#ifdef ACLWASM_WIDE
#define PROFILE "acl (wide)"
/* A device address no allocation can have (device addresses are 64-byte aligned). */
#define FORGED_DEVICE ((aclrtPtr)0x7654321000ULL + 3)
/* A guest pointer as the address a copy takes. */
#define HPTR(p) ((aclrtPtr)(uintptr_t)(p))
/* Byte k of device memory at p. */
#define AT(p, k) ((p) + (k))
#else
#define PROFILE "acl32 (native layout)"
#define FORGED_DEVICE ((void *)(uintptr_t)(0xFFFE0000u - 0x10000u + 3))
#define HPTR(p) ((void *)(p))
#define AT(p, k) ((void *)((char *)(p) + (k)))
#endif

/* The graph engine's codes (ge_error_codes.h) and ACL_ERROR_GE_FAILURE. */
#define GE_PARAM_INVALID 145000
#define GE_MODEL_PATH_INVALID 145002
#define GE_MODEL_ID_INVALID 145003
#define GE_MODEL_DATA_SIZE_INVALID 145006
#define GE_FAILURE 500002

/* A gptr whose bytes are not inside guest memory. */
#define BAD_GPTR ((void *)(uintptr_t)0xFFFFFFF0u)

static unsigned char host[4096];

static aclrtPtr dev(size_t n)
{
    aclrtPtr p = 0;
    if (aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        printf("FAIL aclrtMalloc(%zu): %s\n", n, aclGetRecentErrMsg());
        failed++;
    }
    return p;
}

/* dataset makes a dataset of n buffers, (addr, size) pairs. */
static aclmdlDataset *dataset(int n, aclrtPtr a0, size_t s0, aclrtPtr a1, size_t s1)
{
    aclmdlDataset *ds = aclmdlCreateDataset();
    if (n > 0) {
        aclmdlAddDatasetBuffer(ds, aclCreateDataBuffer(a0, s0));
    }
    if (n > 1) {
        aclmdlAddDatasetBuffer(ds, aclCreateDataBuffer(a1, s1));
    }
    return ds;
}

/* A held stream: a wait for an event recorded and then reset lasts until
   its next record, which release() makes on another stream. */
static aclrtEvent gate;
static aclrtStream opener;

static void hold(aclrtStream s)
{
    OK(aclrtCreateEvent(&gate));
    OK(aclrtRecordEvent(gate, opener));
    OK(aclrtSynchronizeStream(opener));
    OK(aclrtResetEvent(gate, opener));
    OK(aclrtSynchronizeStream(opener));
    OK(aclrtStreamWaitEvent(s, gate));
}

static void release(void) { OK(aclrtRecordEvent(gate, opener)); }

static void loads(void)
{
    section("load: approved names only");
    uint32_t id = 0;
    EXPECT(aclmdlLoadFromFile(NULL, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlLoadFromFile("nope", &id), GE_MODEL_PATH_INVALID);
    EXPECT(aclmdlLoadFromFile("/etc/passwd", NULL), GE_MODEL_PATH_INVALID); /* a path is no name; before modelId */
    EXPECT(aclmdlLoadFromFile("mlp", NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlLoadFromFile("mlp", BAD_GPTR), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlLoadFromFileWithMem("mlp", &id, FORGED_DEVICE, 16, 0, 0), ACL_ERROR_INVALID_PARAM);
    size_t work = 1, weight = 1;
    EXPECT(aclmdlQuerySize(NULL, &work, &weight), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlQuerySize("nope", NULL, NULL), GE_MODEL_PATH_INVALID);
    EXPECT(aclmdlQuerySize("mlp", &work, NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlQuerySize("mlp", &work, &weight));
    section("query size: failures write nothing");
    size_t work0 = work, weight0 = weight;
    work = weight = 0x5a5a;
    EXPECT(aclmdlQuerySize("nope", &work, &weight), GE_MODEL_PATH_INVALID);        /* not approved */
    EXPECT(aclmdlQuerySize("/etc/passwd", &work, &weight), GE_MODEL_PATH_INVALID); /* a path is no name */
#ifndef ACLWASM_WIDE /* the wide SDK answers in its own words, then copies them (a guest fault) */
    EXPECT(aclmdlQuerySize("mlp", BAD_GPTR, &weight), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlQuerySize("mlp", &work, BAD_GPTR), ACL_ERROR_INVALID_PARAM);
#endif
    EXPECT(aclmdlQuerySize("junk", &work, &weight), GE_MODEL_DATA_SIZE_INVALID); /* approved, no model */
    CHECK(work == 0x5a5a && weight == 0x5a5a);
    EXPECT(aclmdlLoadFromFile("junk", &id), GE_MODEL_DATA_SIZE_INVALID); /* as a load reads it */
    OK(aclmdlQuerySize("mlp", &work, &weight));
    CHECK(work == work0 && weight == weight0); /* the same answer again */
    section("load: guest models (refused by the default policy)");
    EXPECT(aclmdlLoadFromMem(NULL, 16, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlLoadFromMem(host, 0, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlLoadFromMem(host, 16, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlLoadFromMem(host, 16, &id), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclmdlLoadFromMemWithMem(host, 16, &id, 0, 0, 0, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    section("load and unload");
    uint32_t a = 0, b = 0;
    OK(aclmdlLoadFromFile("mlp", &a));
    OK(aclmdlLoadFromFile("mlp", &b));
    CHECK(a != b);
    OK(aclmdlUnload(a));
    EXPECT(aclmdlUnload(a), GE_MODEL_ID_INVALID);
    OK(aclmdlUnload(b));
}

static void descriptions(void)
{
    section("descriptions");
    uint32_t id = 0;
    OK(aclmdlLoadFromFile("mlp", &id));
    aclmdlDesc *d = aclmdlCreateDesc();
    CHECK(d != NULL);
    CHECK(aclmdlGetNumInputs(d) == 0); /* empty */
    CHECK(aclmdlGetNumInputs(NULL) == 0);
    aclmdlIODims dims;
    EXPECT(aclmdlGetInputDims(d, 0, &dims), ACL_ERROR_INVALID_PARAM); /* empty: no input 0 */
    EXPECT(aclmdlGetDesc(NULL, id), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetDesc(d, 999), GE_MODEL_ID_INVALID);
    OK(aclmdlGetDesc(d, id));
    CHECK(aclmdlGetNumInputs(d) == 1);
    CHECK(aclmdlGetNumOutputs(d) == 2);
    CHECK(aclmdlGetInputSizeByIndex(d, 0) == 32);
    CHECK(aclmdlGetOutputSizeByIndex(d, 1) == 16);
    CHECK(aclmdlGetInputSizeByIndex(d, 1) == 0);
    CHECK(aclmdlGetInputDataType(d, 0) == ACL_FLOAT);
    CHECK(aclmdlGetOutputDataType(d, 2) == ACL_DT_UNDEFINED);
    CHECK(aclmdlGetInputFormat(d, 0) == ACL_FORMAT_ND);
    CHECK(aclmdlGetOutputFormat(NULL, 0) == ACL_FORMAT_UNDEFINED);
    CHECK(strcmp(aclmdlGetInputNameByIndex(d, 0), "x") == 0);
    CHECK(strcmp(aclmdlGetOutputNameByIndex(d, 1), "probs") == 0);
    CHECK(strcmp(aclmdlGetOutputNameByIndex(d, 2), "") == 0);
    EXPECT(aclmdlGetInputDims(NULL, 0, &dims), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetInputDims(d, 0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetInputDims(d, 1, &dims), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetOutputDims(d, 0, BAD_GPTR), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlGetOutputDims(d, 1, &dims));
    CHECK(strcmp(dims.name, "probs") == 0 && dims.dimCount == 2 && dims.dims[0] == 1 && dims.dims[1] == 4);
    size_t index = 7;
    EXPECT(aclmdlGetInputIndexByName(NULL, "x", &index), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetInputIndexByName(d, NULL, &index), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetInputIndexByName(d, "x", NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlGetInputIndexByName(d, "probs", &index), ACL_ERROR_INVALID_PARAM); /* an output */
    OK(aclmdlGetInputIndexByName(d, "x", &index));
    CHECK(index == 0);
    EXPECT(aclmdlDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlDestroyDesc(d));
    OK(aclmdlUnload(id));

    section("datasets");
    aclmdlDataset *ds = aclmdlCreateDataset();
    CHECK(ds != NULL);
    EXPECT(aclmdlAddDatasetBuffer(NULL, aclCreateDataBuffer(0, 0)), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlAddDatasetBuffer(ds, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclmdlAddDatasetBuffer(ds, BAD_GPTR), ACL_ERROR_INVALID_PARAM);
    CHECK(aclmdlGetDatasetNumBuffers(ds) == 0);
    CHECK(aclmdlGetDatasetNumBuffers(NULL) == 0);
    CHECK(aclmdlGetDatasetBuffer(ds, 0) == NULL);
    aclDataBuffer *db = aclCreateDataBuffer(0, 0);
    OK(aclmdlAddDatasetBuffer(ds, db));
    CHECK(aclmdlGetDatasetBuffer(ds, 0) == db);
    EXPECT(aclmdlDestroyDataset(NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlDestroyDataset(ds));
}

static void executions(void)
{
    uint32_t id = 0, cnn = 0;
    OK(aclmdlLoadFromFile("mlp", &id));
    OK(aclmdlLoadFromFile("cnn", &cnn));
    aclrtPtr x = dev(32), y = dev(16), z = dev(16);
    aclmdlDataset *in = dataset(1, x, 32, 0, 0), *out = dataset(2, y, 16, z, 16);

    section("execute: arguments");
    EXPECT(aclmdlExecute(999, NULL, out), ACL_ERROR_INVALID_PARAM); /* before the model id */
    EXPECT(aclmdlExecute(999, in, out), GE_MODEL_ID_INVALID);
    EXPECT(aclmdlExecute(id, out, in), GE_PARAM_INVALID); /* counts differ */
    OK(aclmdlExecute(id, in, out));
    OK(aclmdlExecuteAsync(id, in, out, NULL));
    OK(aclrtSynchronizeStream(NULL));

    section("execute: datasets' buffers");
    aclrtPtr image = dev(12288), probs = dev(40);
    aclmdlDataset *short1 = dataset(1, image, 12288 - 65, 0, 0), *ok1 = dataset(1, image, 12288 - 64, 0, 0);
    aclmdlDataset *probsds = dataset(1, probs, 40, 0, 0);
    EXPECT(aclmdlExecute(cnn, short1, probsds), GE_FAILURE); /* more than 64 bytes short */
    OK(aclmdlExecute(cnn, ok1, probsds));                    /* 64 short: the model's size still fits image */
    aclrtPtr w = dev(16);
    OK(aclrtFree(w));
    EXPECT(aclmdlExecute(id, in, dataset(2, y, 16, w, 16)), ACL_ERROR_INVALID_PARAM);          /* freed */
    EXPECT(aclmdlExecute(id, dataset(1, FORGED_DEVICE, 32, 0, 0), out), ACL_ERROR_INVALID_PARAM); /* forged */
    EXPECT(aclmdlExecute(id, dataset(1, HPTR(host), 32, 0, 0), out), ACL_ERROR_INVALID_PARAM); /* guest memory */
    EXPECT(aclmdlExecute(id, in, dataset(2, AT(y, 8), 16, z, 16)), ACL_ERROR_INVALID_PARAM); /* leaves y's allocation */
    EXPECT(aclmdlExecute(id, in, dataset(2, 0, 16, z, 16)), ACL_ERROR_INVALID_PARAM);     /* NULL data */

    section("execute: streams");
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtDestroyStream(s));
    EXPECT(aclmdlExecuteAsync(id, in, out, s), ACL_ERROR_RT_INVALID_HANDLE); /* destroyed */

    section("execute: the model's device");
    /* A model runs in the context it was loaded in: with another device
       current it is refused (natively the runtime's model context check),
       queued nowhere and writing nothing. */
    OK(aclrtMemset(z, 16, 0x5a, 16));
    OK(aclrtSetDevice(1));
    aclrtPtr x1 = dev(32);
    aclmdlDataset *in1 = dataset(1, x1, 32, 0, 0);
    OK(aclrtCreateStream(&s));
    EXPECT(aclmdlExecute(id, in, out), ACL_ERROR_RT_MODEL_CONTEXT);
    EXPECT(aclmdlExecuteAsync(id, in, out, s), ACL_ERROR_RT_MODEL_CONTEXT);
    EXPECT(aclmdlExecuteAsync(id, in, out, NULL), ACL_ERROR_RT_MODEL_CONTEXT); /* device 1's default stream */
    OK(aclrtSynchronizeStream(s));
    OK(aclrtSynchronizeStream(NULL));
    OK(aclrtDestroyStream(s));
    OK(aclrtSetDevice(0));
    memset(host, 0, 16);
    OK(aclrtMemcpy(HPTR(host), 16, z, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(host[0] == 0x5a && host[15] == 0x5a); /* nothing written */
    /* Back on the model's device, memory of the other device is no buffer of it. */
    EXPECT(aclmdlExecute(id, in1, out), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlExecute(id, in, out));
    OK(aclrtSetDevice(1));
    OK(aclmdlDestroyDataset(in1));
    OK(aclrtFree(x1));
    OK(aclrtSetDevice(0));

    section("execute: unload while queued");
    OK(aclrtCreateStream(&opener));
    OK(aclrtCreateStream(&s));
    uint32_t id2 = 0;
    OK(aclmdlLoadFromFile("mlp", &id2));
    OK(aclrtMemset(z, 16, 0, 16));
    hold(s);
    OK(aclmdlExecuteAsync(id2, in, out, s));
    OK(aclmdlUnload(id2));
    EXPECT(aclmdlExecuteAsync(id2, in, out, s), GE_MODEL_ID_INVALID);
    release();
    OK(aclrtSynchronizeStream(s));
    float p[4];
    OK(aclrtMemcpy(HPTR(p), sizeof p, z, sizeof p, ACL_MEMCPY_DEVICE_TO_HOST));
    float sum = p[0] + p[1] + p[2] + p[3];
    CHECK(sum > 0.999f && sum < 1.001f); /* the softmax ran after the unload */
    OK(aclrtDestroyEvent(gate));

    section("execute: aclrtDestroyStreamForce cancels");
    OK(aclrtMemset(z, 16, 0x5a, 16));
    hold(s);
    OK(aclmdlExecuteAsync(id, in, out, s));
    OK(aclrtDestroyStreamForce(s));
    memset(host, 0, 16);
    OK(aclrtMemcpy(HPTR(host), 16, z, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(host[0] == 0x5a && host[15] == 0x5a); /* nothing written */
    release();
    OK(aclrtSynchronizeStream(opener));
    OK(aclrtDestroyEvent(gate));

    section("execute: a model that fails as it runs");
    uint32_t div = 0;
    OK(aclmdlLoadFromFile("divide", &div));
    aclrtPtr a = dev(16), b = dev(16), q = dev(16);
    int32_t nums[4] = {7, -9, 100, 3};
    OK(aclrtMemcpy(a, 16, HPTR(nums), 16, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemset(b, 16, 0, 16)); /* divisors 0 */
    OK(aclrtMemset(q, 16, 0x5a, 16));
    OK(aclrtCreateStream(&s));
    OK(aclmdlExecuteAsync(div, dataset(2, a, 16, b, 16), dataset(1, q, 16, 0, 0), s));
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_MODEL_EXECUTE);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "model \"divide\" failed as it ran") != NULL);
    EXPECT(aclmdlExecute(div, dataset(2, a, 16, b, 16), dataset(1, q, 16, 0, 0)), ACL_ERROR_RT_MODEL_EXECUTE);
    memset(host, 0, 16);
    OK(aclrtMemcpy(HPTR(host), 16, q, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(host[0] == 0x5a && host[15] == 0x5a);
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(opener));
    OK(aclmdlUnload(div));
    OK(aclmdlUnload(cnn));
    OK(aclmdlUnload(id));
}

int main(void)
{
    printf("models conformance, profile %s\n", PROFILE);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        printf("FAIL setup: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    loads();
    descriptions();
    executions();
    return summary();
}
