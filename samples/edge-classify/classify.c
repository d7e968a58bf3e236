/*
 * edge-classify: an edge-inference plugin, end to end, in the style of the
 * public CANN inference samples (C, the native API, built for wasm32
 * against the SDK's native layout, module "acl32").
 *
 * It classifies a small image with the model the host approved under the
 * name "shapes" (samples/edge-classify/train.py trains it):
 *
 *   1. reads a binary PGM or PPM image: from a file (argv[1], through a
 *      mount), from stdin (no argument, or "-": aclwasm serve gives a
 *      command the request body there), or, in the export "classify",
 *      from the call's input bytes (aclwasm call, a host's CallBytes);
 *   2. pre-processes it here, in wasm: decodes it, converts it to gray,
 *      reduces it by area averaging to the model's input size (read from
 *      the model's description) and normalises it as (v - 0.5) / 0.25;
 *   3. copies it to the device (a pinned host buffer, aclrtMemcpyAsync),
 *      runs the model with aclmdlExecuteAsync, then the softmax of its
 *      logits with the operator library (aclnnSoftmax), and copies the
 *      probabilities back, all queued on one stream and waited for once;
 *   4. answers the top k classes, one line each: "RANK LABEL PROBABILITY"
 *      (k: the environment variable TOP_K, 3 by default).
 *
 * Exit codes (and the export's status): 0, 1 for an input it cannot use
 * (the reason on stderr), 2 for a failed ACL call (the call, its code and
 * the host's message on stderr).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <acl/acl_mdl.h>
#include <aclnnop/aclnn_softmax.h>
#include <aclwasm/io.h>

#define MODEL "shapes"
#define MAX_INPUT (16u << 20) /* bytes of an image file */
#define MAX_SIDE 4096u        /* pixels of an image's width or height */
#define MAX_CLASSES 1000

/* The model's classes, in the order of its outputs (train.py's CLASSES). */
static const char *const labels[] = {"hstripes", "vstripes", "disc", "cross", "checker"};

/* An input the sample cannot use: the reason on stderr, status 1. */
static int bad(const char *why)
{
    fprintf(stderr, "edge-classify: bad input: %s\n", why);
    return 1;
}

/* An image decoded to gray values in [0, 1]. */
struct image {
    uint32_t w, h;
    float *px; /* h rows of w */
};

/* pnmNumber reads a header field of a PNM file: whitespace and comments
 * ("#" to the end of the line) first, then a decimal number. */
static int pnmNumber(const uint8_t *b, size_t n, size_t *at, uint32_t *v)
{
    size_t i = *at;
    for (;;) {
        while (i < n && isspace(b[i]))
            i++;
        if (i < n && b[i] == '#') {
            while (i < n && b[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    if (i >= n || !isdigit(b[i]))
        return -1;
    uint32_t x = 0;
    for (; i < n && isdigit(b[i]); i++) {
        if (x > 100000)
            return -1;
        x = x * 10 + (uint32_t)(b[i] - '0');
    }
    *at = i;
    *v = x;
    return 0;
}

/* decode reads a binary PGM (P5) or PPM (P6) with 8-bit samples; a PPM
 * becomes gray with the luma weights of ITU-R BT.601. */
static int decode(const uint8_t *b, size_t n, struct image *img)
{
    if (n < 2 || b[0] != 'P' || (b[1] != '5' && b[1] != '6'))
        return bad("not a binary PGM (P5) or PPM (P6) image");
    uint32_t chans = b[1] == '6' ? 3 : 1, maxval;
    size_t at = 2;
    if (pnmNumber(b, n, &at, &img->w) || pnmNumber(b, n, &at, &img->h) || pnmNumber(b, n, &at, &maxval))
        return bad("a malformed PNM header");
    if (img->w == 0 || img->h == 0 || img->w > MAX_SIDE || img->h > MAX_SIDE)
        return bad("the width and height must be 1 to 4096");
    if (maxval == 0 || maxval > 255)
        return bad("only 8-bit samples (maxval 1 to 255) are supported");
    if (at >= n || !isspace(b[at]))
        return bad("a malformed PNM header");
    at++; /* the one whitespace byte before the samples */
    size_t count = (size_t)img->w * img->h;
    if (n - at < count * chans)
        return bad("the image data is shorter than its header says");
    img->px = malloc(count * sizeof(float));
    if (img->px == NULL)
        return bad("out of memory");
    const uint8_t *s = b + at;
    for (size_t i = 0; i < count; i++) {
        float v = chans == 1 ? s[i] : 0.299f * s[3 * i] + 0.587f * s[3 * i + 1] + 0.114f * s[3 * i + 2];
        img->px[i] = v / (float)maxval;
    }
    return 0;
}

/* areaWeights fills w (out x in) with the weights of area averaging: output
 * pixel o covers [o*s, (o+1)*s) of the input, s = in/out, and each input
 * pixel counts by its overlap with that range, over s. */
static void areaWeights(uint32_t in, uint32_t out, float *w)
{
    double s = (double)in / out;
    for (uint32_t o = 0; o < out; o++) {
        double lo = o * s, hi = (o + 1) * s;
        for (uint32_t i = 0; i < in; i++) {
            double a = lo > i ? lo : i, z = hi < i + 1 ? hi : i + 1;
            w[(size_t)o * in + i] = z > a ? (float)((z - a) / s) : 0.0f;
        }
    }
}

/* preprocess reduces img to oh x ow by area averaging (rows first, then
 * columns) and normalises each value as (v - 0.5) / 0.25 into dst. */
static int preprocess(const struct image *img, uint32_t oh, uint32_t ow, float *dst)
{
    float *wy = malloc((size_t)oh * img->h * sizeof(float));
    float *wx = malloc((size_t)ow * img->w * sizeof(float));
    float *tmp = malloc((size_t)img->h * ow * sizeof(float));
    int rc = 0;
    if (wy == NULL || wx == NULL || tmp == NULL) {
        rc = bad("out of memory");
        goto out;
    }
    areaWeights(img->h, oh, wy);
    areaWeights(img->w, ow, wx);
    for (uint32_t y = 0; y < img->h; y++) {
        for (uint32_t x = 0; x < ow; x++) {
            float acc = 0;
            for (uint32_t i = 0; i < img->w; i++)
                acc += wx[(size_t)x * img->w + i] * img->px[(size_t)y * img->w + i];
            tmp[(size_t)y * ow + x] = acc;
        }
    }
    for (uint32_t y = 0; y < oh; y++) {
        for (uint32_t x = 0; x < ow; x++) {
            float acc = 0;
            for (uint32_t i = 0; i < img->h; i++)
                acc += wy[(size_t)y * img->h + i] * tmp[(size_t)i * ow + x];
            dst[(size_t)y * ow + x] = (acc - 0.5f) / 0.25f;
        }
    }
out:
    free(wy);
    free(wx);
    free(tmp);
    return rc;
}

/* topK writes the k most probable classes of prob[0..n) to out (cap
 * bytes), one "RANK LABEL PROBABILITY" line each, the most probable first
 * (a tie goes to the lower class index). */
static int topK(const float *prob, int n, int k, char *out, size_t cap)
{
    int order[MAX_CLASSES];
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && prob[order[j - 1]] < prob[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    size_t at = 0;
    for (int r = 0; r < k && r < n; r++) {
        char name[32];
        const char *label = name;
        if (n == (int)(sizeof labels / sizeof labels[0]))
            label = labels[order[r]];
        else
            snprintf(name, sizeof name, "class%d", order[r]);
        int m = snprintf(out + at, cap - at, "%d %s %.6f\n", r + 1, label, prob[order[r]]);
        if (m < 0 || (size_t)m >= cap - at)
            return -1;
        at += (size_t)m;
    }
    return (int)at;
}

/* topKFromEnv is TOP_K (1 to classes), or 3 (at most classes). */
static int topKFromEnv(int classes)
{
    const char *s = getenv("TOP_K");
    int k = 3;
    if (s != NULL && *s != '\0') {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end != '\0' || v < 1)
            return -1;
        k = v > classes ? classes : (int)v;
    }
    return k < classes ? k : classes;
}

/* What one classification holds, released by release in any state. */
struct run {
    struct image img;
    int initialized, device, loaded;
    uint32_t id;
    aclrtStream stream;
    aclmdlDesc *desc;
    aclmdlDataset *in, *out;
    aclDataBuffer *inBuf, *logitsBuf;
    void *devIn, *devLogits, *devProb, *ws, *hostIn, *hostProb;
    aclTensor *logits, *prob;
    aclOpExecutor *executor;
};

/* release frees what r holds, the reverse of classify's order, and returns
 * 2 if a release failed (said on stderr), else 0. */
static int release(struct run *r)
{
    int rc = 0;
#define RELEASE(cond, call)                                                                        \
    do {                                                                                           \
        if (cond) {                                                                                \
            int ret_ = (int)(call);                                                                \
            if (ret_ != ACL_SUCCESS) {                                                             \
                fprintf(stderr, "edge-classify: FAIL: %s: %d: %s\n", #call, ret_, aclGetRecentErrMsg()); \
                rc = 2;                                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    /* An executor that never ran is the program's to destroy. */
    RELEASE(r->executor != NULL, aclDestroyAclOpExecutor(r->executor));
    RELEASE(r->logits != NULL, aclDestroyTensor(r->logits));
    RELEASE(r->prob != NULL, aclDestroyTensor(r->prob));
    RELEASE(r->inBuf != NULL, aclDestroyDataBuffer(r->inBuf));
    RELEASE(r->logitsBuf != NULL, aclDestroyDataBuffer(r->logitsBuf));
    RELEASE(r->in != NULL, aclmdlDestroyDataset(r->in));
    RELEASE(r->out != NULL, aclmdlDestroyDataset(r->out));
    RELEASE(r->ws != NULL, aclrtFree(r->ws));
    RELEASE(r->devProb != NULL, aclrtFree(r->devProb));
    RELEASE(r->devLogits != NULL, aclrtFree(r->devLogits));
    RELEASE(r->devIn != NULL, aclrtFree(r->devIn));
    RELEASE(r->hostProb != NULL, aclrtFreeHost(r->hostProb));
    RELEASE(r->hostIn != NULL, aclrtFreeHost(r->hostIn));
    RELEASE(r->desc != NULL, aclmdlDestroyDesc(r->desc));
    RELEASE(r->loaded, aclmdlUnload(r->id));
    RELEASE(r->stream != NULL, aclrtDestroyStream(r->stream));
    RELEASE(r->device, aclrtResetDevice(0));
    RELEASE(r->initialized, aclFinalize());
#undef RELEASE
    free(r->img.px);
    return rc;
}

/* Runs an ACL call; a failure prints it and ends the classification with 2. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int ret_ = (int)(call);                                                                    \
        if (ret_ != ACL_SUCCESS) {                                                                 \
            fprintf(stderr, "edge-classify: FAIL: %s: %d: %s\n", #call, ret_, aclGetRecentErrMsg()); \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

/* Ends the classification with 2 when a constructor returned NULL. */
#define CHECK_NEW(ptr, what)                                                                       \
    do {                                                                                           \
        if ((ptr) == NULL) {                                                                       \
            fprintf(stderr, "edge-classify: FAIL: %s: %s\n", what, aclGetRecentErrMsg());         \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

/* steps runs the pipeline on the image file's bytes, keeping what it makes
 * in r, and writes the answer to out (cap bytes) and its length to *len. */
static int steps(struct run *r, const uint8_t *file, size_t n, char *out, size_t cap, int *len)
{
    int rc = decode(file, n, &r->img);
    if (rc != 0)
        return rc;
    CHECK(aclInit(NULL));
    r->initialized = 1;
    CHECK(aclrtSetDevice(0));
    r->device = 1;
    CHECK(aclrtCreateStream(&r->stream));
    CHECK(aclmdlLoadFromFile(MODEL, &r->id));
    r->loaded = 1;
    CHECK_NEW(r->desc = aclmdlCreateDesc(), "aclmdlCreateDesc");
    CHECK(aclmdlGetDesc(r->desc, r->id));

    /* The model's description decides the pre-processing: one input
       [1, 1, H, W] and one output [1, classes], both float32. */
    aclmdlIODims in, out1;
    CHECK(aclmdlGetInputDims(r->desc, 0, &in));
    CHECK(aclmdlGetOutputDims(r->desc, 0, &out1));
    if (aclmdlGetNumInputs(r->desc) != 1 || aclmdlGetNumOutputs(r->desc) != 1 || in.dimCount != 4 ||
        in.dims[0] != 1 || in.dims[1] != 1 || in.dims[2] < 1 || in.dims[2] > 1024 || in.dims[3] < 1 ||
        in.dims[3] > 1024 || aclmdlGetInputDataType(r->desc, 0) != ACL_FLOAT || out1.dimCount != 2 ||
        out1.dims[0] != 1 || out1.dims[1] < 1 || out1.dims[1] > MAX_CLASSES ||
        aclmdlGetOutputDataType(r->desc, 0) != ACL_FLOAT) {
        fprintf(stderr, "edge-classify: model %s: want one input [1, 1, H, W] and one output [1, classes], float32\n",
                MODEL);
        return 1;
    }
    uint32_t oh = (uint32_t)in.dims[2], ow = (uint32_t)in.dims[3];
    int classes = (int)out1.dims[1], k = topKFromEnv(classes);
    if (k < 0)
        return bad("TOP_K is not a count of classes (1 or more)");
    size_t inSize = aclmdlGetInputSizeByIndex(r->desc, 0), outSize = aclmdlGetOutputSizeByIndex(r->desc, 0);
    fprintf(stderr, "edge-classify: %ux%u image -> %ux%u, model %s (%d classes)\n", r->img.w, r->img.h, ow, oh, MODEL,
            classes);

    CHECK(aclrtMallocHost(&r->hostIn, inSize));
    CHECK(aclrtMallocHost(&r->hostProb, outSize));
    if ((rc = preprocess(&r->img, oh, ow, r->hostIn)) != 0)
        return rc;
    CHECK(aclrtMalloc(&r->devIn, inSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&r->devLogits, outSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&r->devProb, outSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_NEW(r->in = aclmdlCreateDataset(), "aclmdlCreateDataset");
    CHECK_NEW(r->out = aclmdlCreateDataset(), "aclmdlCreateDataset");
    CHECK_NEW(r->inBuf = aclCreateDataBuffer(r->devIn, inSize), "aclCreateDataBuffer");
    CHECK_NEW(r->logitsBuf = aclCreateDataBuffer(r->devLogits, outSize), "aclCreateDataBuffer");
    CHECK(aclmdlAddDatasetBuffer(r->in, r->inBuf));
    CHECK(aclmdlAddDatasetBuffer(r->out, r->logitsBuf));

    /* The post-processing runs on the device: the softmax over the
       classes, with the operator library. */
    int64_t shape[2] = {1, classes}, strides[2] = {classes, 1};
    CHECK_NEW(r->logits = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, r->devLogits),
              "aclCreateTensor");
    CHECK_NEW(r->prob = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, r->devProb),
              "aclCreateTensor");
    uint64_t wsSize = 0;
    CHECK(aclnnSoftmaxGetWorkspaceSize(r->logits, 1, r->prob, &wsSize, &r->executor));
    if (wsSize > 0)
        CHECK(aclrtMalloc(&r->ws, wsSize, ACL_MEM_MALLOC_HUGE_FIRST));

    /* One stream: upload, model, softmax, download; one wait. */
    CHECK(aclrtMemcpyAsync(r->devIn, inSize, r->hostIn, inSize, ACL_MEMCPY_HOST_TO_DEVICE, r->stream));
    CHECK(aclmdlExecuteAsync(r->id, r->in, r->out, r->stream));
    aclOpExecutor *executor = r->executor;
    r->executor = NULL; /* a launch consumes its executor */
    CHECK(aclnnSoftmax(r->ws, wsSize, executor, r->stream));
    CHECK(aclrtMemcpyAsync(r->hostProb, outSize, r->devProb, outSize, ACL_MEMCPY_DEVICE_TO_HOST, r->stream));
    CHECK(aclrtSynchronizeStream(r->stream));

    *len = topK(r->hostProb, classes, k, out, cap);
    if (*len < 0)
        return bad("the answer does not fit its buffer");
    return 0;
}

/* classify runs the pipeline on the image file's bytes and writes the
 * answer to out (cap bytes) and its length to *len: the status, 0, 1 (bad
 * input) or 2 (an ACL call failed), each failure said on stderr. */
static int classify(const uint8_t *file, size_t n, char *out, size_t cap, int *len)
{
    struct run r = {0};
    int rc = steps(&r, file, n, out, cap, len);
    int rrc = release(&r);
    return rc != 0 ? rc : rrc;
}

static char answer[64 * MAX_CLASSES];

/* readAll reads f to its end into a new buffer (at most MAX_INPUT bytes). */
static uint8_t *readAll(FILE *f, size_t *n)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *b = malloc(cap);
    while (b != NULL) {
        len += fread(b + len, 1, cap - len, f);
        if (len < cap || cap == MAX_INPUT)
            break;
        uint8_t *nb = realloc(b, cap * 2);
        if (nb == NULL)
            free(b);
        b = nb;
        cap *= 2;
    }
    if (b != NULL && (ferror(f) || (len == cap && fgetc(f) != EOF))) {
        free(b);
        return NULL;
    }
    *n = len;
    return b;
}

/* The command: edge-classify [FILE]. FILE "-" or none: stdin. */
int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: edge-classify [IMAGE.pgm|IMAGE.ppm|-]\n");
        return 1;
    }
    const char *path = argc == 2 ? argv[1] : "-";
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "edge-classify: %s: ", path);
        perror(NULL);
        return 1;
    }
    size_t n = 0;
    uint8_t *file = readAll(f, &n);
    if (f != stdin)
        fclose(f);
    if (file == NULL) {
        fprintf(stderr, "edge-classify: %s: unreadable, or larger than 16 MiB\n", path);
        return 1;
    }
    int len = 0, rc = classify(file, n, answer, sizeof answer, &len);
    free(file);
    if (rc == 0)
        fwrite(answer, 1, (size_t)len, stdout);
    return rc;
}

/* The export for a bytes call (aclwasm call, aclwasm serve with
 * serve.export, a host's CallBytes): the input is the image file, the
 * output the answer. */
__attribute__((export_name("classify"))) int32_t classifyBytes(void)
{
    int32_t n = aclwasm_input_len();
    if (n <= 0 || (uint32_t)n > MAX_INPUT)
        return bad("the input must be an image file of 1 byte to 16 MiB");
    uint8_t *file = malloc((size_t)n);
    if (file == NULL)
        return bad("out of memory");
    int32_t rc = aclwasm_input_read(file, n);
    if (rc != 0) {
        free(file);
        fprintf(stderr, "edge-classify: FAIL: aclwasm_input_read: %d: %s\n", rc, aclGetRecentErrMsg());
        return 2;
    }
    int len = 0;
    rc = classify(file, (size_t)n, answer, sizeof answer, &len);
    free(file);
    if (rc == 0 && (rc = aclwasm_output_write(answer, len)) != 0) {
        fprintf(stderr, "edge-classify: FAIL: aclwasm_output_write: %d: %s\n", rc, aclGetRecentErrMsg());
        return 2;
    }
    return rc;
}
