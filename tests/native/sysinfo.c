/* sysinfo.c: a native-style C program that logs the versions of its
 * environment and sizes its buffers by element type, as native programs do
 * at start-up: aclsysGetCANNVersion, aclsysGetVersionStr, aclsysGetVersionNum
 * and aclDataTypeSize. It prints one line per fact for the test to check. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

int main(void)
{
    int32_t major = 0, minor = 0, patch = 0;
    aclError ret = aclrtGetVersion(&major, &minor, &patch);
    printf("aclrtGetVersion %d %d.%d.%d\n", ret, major, minor, patch);

    static const struct {
        aclCANNPackageName name;
        const char *label;
    } pkgs[] = {{ACL_PKG_NAME_CANN, "cann"}, {ACL_PKG_NAME_RUNTIME, "runtime"}, {ACL_PKG_NAME_DRIVER, "driver"}};
    for (size_t i = 0; i < sizeof pkgs / sizeof pkgs[0]; i++) {
        aclCANNPackageVersion v;
        memset(&v, 0x7f, sizeof v);
        ret = aclsysGetCANNVersion(pkgs[i].name, &v);
        printf("aclsysGetCANNVersion %s %d version=%s major=%s minor=%s release=%s patch=%s\n", pkgs[i].label, ret,
               v.version, v.majorVersion, v.minorVersion, v.releaseVersion, v.patchVersion);
    }
    aclCANNPackageVersion bad;
    printf("aclsysGetCANNVersion 99 %d\n", aclsysGetCANNVersion((aclCANNPackageName)99, &bad));
    printf("aclsysGetCANNVersion NULL %d\n", aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL));

    char pkg[][16] = {"runtime", "opp-kernel", "nosuchpkg"};
    for (size_t i = 0; i < sizeof pkg / sizeof pkg[0]; i++) {
        char str[ACL_PKG_VERSION_MAX_SIZE] = {0};
        int32_t num = -1;
        aclError rs = aclsysGetVersionStr(pkg[i], str);
        aclError rn = aclsysGetVersionNum(pkg[i], &num);
        printf("aclsysGetVersion %s %d %s %d %d\n", pkg[i], rs, rs == ACL_SUCCESS ? str : "-", rn, num);
    }
    printf("aclsysGetVersionNum NULL %d\n", aclsysGetVersionNum(pkg[0], NULL));

    static const struct {
        aclDataType t;
        const char *name;
    } types[] = {
        {ACL_DT_UNDEFINED, "ACL_DT_UNDEFINED"}, {ACL_FLOAT, "ACL_FLOAT"}, {ACL_FLOAT16, "ACL_FLOAT16"},
        {ACL_INT8, "ACL_INT8"}, {ACL_INT32, "ACL_INT32"}, {ACL_UINT8, "ACL_UINT8"}, {ACL_INT16, "ACL_INT16"},
        {ACL_UINT16, "ACL_UINT16"}, {ACL_UINT32, "ACL_UINT32"}, {ACL_INT64, "ACL_INT64"}, {ACL_UINT64, "ACL_UINT64"},
        {ACL_DOUBLE, "ACL_DOUBLE"}, {ACL_BOOL, "ACL_BOOL"}, {ACL_STRING, "ACL_STRING"},
        {ACL_COMPLEX64, "ACL_COMPLEX64"}, {ACL_COMPLEX128, "ACL_COMPLEX128"}, {ACL_BF16, "ACL_BF16"},
        {ACL_INT4, "ACL_INT4"}, {ACL_UINT1, "ACL_UINT1"}, {ACL_COMPLEX32, "ACL_COMPLEX32"},
        {ACL_HIFLOAT8, "ACL_HIFLOAT8"}, {ACL_FLOAT8_E5M2, "ACL_FLOAT8_E5M2"},
        {ACL_FLOAT8_E4M3FN, "ACL_FLOAT8_E4M3FN"}, {ACL_FLOAT8_E8M0, "ACL_FLOAT8_E8M0"},
        {ACL_FLOAT6_E3M2, "ACL_FLOAT6_E3M2"}, {ACL_FLOAT6_E2M3, "ACL_FLOAT6_E2M3"},
        {ACL_FLOAT4_E2M1, "ACL_FLOAT4_E2M1"}, {ACL_FLOAT4_E1M2, "ACL_FLOAT4_E1M2"},
        {(aclDataType)1000, "1000"},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        printf("aclDataTypeSize %s %d %zu\n", types[i].name, (int)types[i].t, aclDataTypeSize(types[i].t));
    }
    printf("sysinfo: OK\n");
    return 0;
}
