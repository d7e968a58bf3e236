// An inference program in the style of the public CANN samples
// (resnet50_firstapp): it loads a model by name with aclmdlLoadFromFile,
// reads its description, allocates one device buffer per input and
// output of the sizes the description gives, runs the model with
// aclmdlExecuteAsync on a stream and prints the outputs. Built with the
// SDK's include path only; the host approves the model ("--model
// mlp=FILE"). Prints one line per step.
#include <acl/acl.h>
#include <acl/acl_mdl.h>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(call)                                                      \
    do {                                                                 \
        aclError e_ = (call);                                            \
        if (e_ != ACL_SUCCESS) {                                         \
            printf("%s: %d (%s)\n", #call, e_, aclGetRecentErrMsg());    \
            return 1;                                                    \
        }                                                                \
    } while (0)

static aclmdlDataset *makeDataset(std::vector<void *> &bufs, const std::vector<size_t> &sizes)
{
    aclmdlDataset *ds = aclmdlCreateDataset();
    for (size_t i = 0; i < sizes.size(); i++) {
        void *dev = nullptr;
        if (aclrtMalloc(&dev, sizes[i], ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
            return nullptr;
        }
        bufs.push_back(dev);
        aclDataBuffer *db = aclCreateDataBuffer(dev, sizes[i]);
        if (aclmdlAddDatasetBuffer(ds, db) != ACL_SUCCESS) {
            return nullptr;
        }
    }
    return ds;
}

int main()
{
    uint32_t id = 0;
    printf("unapproved: %d\n", aclmdlLoadFromFile("/etc/passwd", &id));
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));
    CHECK(aclmdlLoadFromFile("mlp", &id));
    aclmdlDesc *desc = aclmdlCreateDesc();
    CHECK(aclmdlGetDesc(desc, id));
    size_t nin = aclmdlGetNumInputs(desc), nout = aclmdlGetNumOutputs(desc);
    printf("inputs %zu, outputs %zu\n", nin, nout);
    std::vector<size_t> insz, outsz;
    for (size_t i = 0; i < nin; i++) {
        aclmdlIODims dims;
        CHECK(aclmdlGetInputDims(desc, i, &dims));
        insz.push_back(aclmdlGetInputSizeByIndex(desc, i));
        printf("input %zu: %s, %zu dims [%lld, %lld], %zu bytes, type %d, format %d\n", i, aclmdlGetInputNameByIndex(desc, i),
               dims.dimCount, (long long)dims.dims[0], (long long)dims.dims[1], insz[i], aclmdlGetInputDataType(desc, i),
               aclmdlGetInputFormat(desc, i));
    }
    for (size_t i = 0; i < nout; i++) {
        outsz.push_back(aclmdlGetOutputSizeByIndex(desc, i));
        printf("output %zu: %s, %zu bytes\n", i, aclmdlGetOutputNameByIndex(desc, i), outsz[i]);
    }
    size_t idx = 99;
    CHECK(aclmdlGetInputIndexByName(desc, "x", &idx));
    printf("index of x: %zu\n", idx);

    std::vector<void *> inbufs, outbufs;
    aclmdlDataset *input = makeDataset(inbufs, insz), *output = makeDataset(outbufs, outsz);
    if (input == nullptr || output == nullptr) {
        printf("dataset: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    std::vector<float> x(insz[0] / sizeof(float));
    for (size_t i = 0; i < x.size(); i++) {
        x[i] = (float)i / 4 - 1;
    }
    CHECK(aclrtMemcpy(inbufs[0], insz[0], x.data(), insz[0], ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclmdlExecuteAsync(id, input, output, stream));
    CHECK(aclrtSynchronizeStream(stream));
    for (size_t o = 0; o < nout; o++) {
        std::vector<float> y(outsz[o] / sizeof(float));
        CHECK(aclrtMemcpy(y.data(), outsz[o], outbufs[o], outsz[o], ACL_MEMCPY_DEVICE_TO_HOST));
        printf("%s:", aclmdlGetOutputNameByIndex(desc, o));
        for (float v : y) {
            printf(" %.4f", v);
        }
        printf("\n");
    }

    // A buffer whose model-sized range leaves its allocation is refused
    // at queue time. (A few bytes short is accepted, as natively: the
    // graph engine allows 64 bytes for a device allocation's padding.)
    aclDataBuffer *small = aclCreateDataBuffer(static_cast<char *>(inbufs[0]) + 4, insz[0] - 4);
    aclmdlDataset *bad = aclmdlCreateDataset();
    CHECK(aclmdlAddDatasetBuffer(bad, small));
    printf("past its allocation: %d\n", aclmdlExecute(id, bad, output));

    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(input); i++) {
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(input, i));
    }
    CHECK(aclmdlDestroyDataset(input));
    CHECK(aclmdlDestroyDesc(desc));
    CHECK(aclmdlUnload(id));
    printf("unload again: %d\n", aclmdlUnload(id));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("done\n");
    return 0;
}
