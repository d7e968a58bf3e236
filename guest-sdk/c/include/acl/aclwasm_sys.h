/*
 * aclwasm_sys.h: the functions of the native acl_base.h and acl.h that are
 * pure computation or answer from what the host already reports, so they are
 * SDK functions here, not imports: aclDataType and aclDataTypeSize,
 * aclFloat16 with aclFloatToFloat16 and aclFloat16ToFloat, and the package
 * version queries aclsysGetCANNVersion, aclsysGetVersionStr and
 * aclsysGetVersionNum. Included by acl_base.h; do not include it directly.
 *
 * Native facts (public CANN headers and the runtime's API documentation):
 * the aclDataType values and aclDataTypeSize's sizes are those of the public
 * acl_base.h and the runtime's aclDataTypeSize (0 for ACL_STRING and
 * ACL_DT_UNDEFINED, 1 byte for the sub-byte types ACL_UINT1 and ACL_INT4, 8
 * for any value it does not name); aclCANNPackageName, aclCANNPackageVersion,
 * ACL_PKG_VERSION_MAX_SIZE (128) and ACL_PKG_VERSION_PARTS_MAX_SIZE (64) are
 * those of the public acl.h; aclsysGetVersionNum weighs major, minor and
 * patch by 10000000, 100000 and 1000.
 *
 * The sandbox has no installed CANN packages: every package it knows has the
 * version of the host's ACL runtime, the three numbers aclrtGetVersion
 * reports ("1.17.0"), so a program that compares versions sees one
 * consistent answer. Package names are those of the native share/info
 * directories (runtime, compiler, ge_compiler, hccl, toolkit, opp,
 * opp_kernel, driver, and the umbrella cann); any other name gives ACL_ERROR_INVALID_FILE, as
 * natively for a package that is not installed.
 */
#ifndef ACLWASM_SYS_H_
#define ACLWASM_SYS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* ---- data types ---- */

/** The element types of tensors and buffers, with the native values. */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41,
} aclDataType;

/**
 * Returns the size in bytes of one element of dataType, as natively: 0 for
 * ACL_STRING and ACL_DT_UNDEFINED, 1 for the sub-byte ACL_UINT1 and ACL_INT4,
 * and 8 for a value the table does not name (the native default).
 */
static inline size_t aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_UINT1:
    case ACL_INT4:
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 8;
    }
}

/* ---- half precision ---- */

/** An IEEE 754 binary16 value, as its 16 bits (natively uint16_t). */
typedef uint16_t aclFloat16;

/**
 * Converts a float to binary16, rounding to nearest, ties to even: values
 * beyond the largest half (65504) round to infinity, values below half the
 * smallest subnormal (2^-25) to a zero of their sign; infinities stay
 * infinities and a NaN stays a NaN (quiet, its top payload bits kept).
 */
static inline aclFloat16 aclFloatToFloat16(float value)
{
    uint32_t f;
    __builtin_memcpy(&f, &value, sizeof f);
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t exp = (f >> 23) & 0xffu;
    uint32_t man = f & 0x7fffffu;
    if (exp == 0xffu) {
        return (aclFloat16)(sign | 0x7c00u | (man != 0 ? 0x200u | (man >> 13) : 0));
    }
    int32_t e = (int32_t)exp - 127 + 15; /* the half's biased exponent */
    if (e >= 31) {
        return (aclFloat16)(sign | 0x7c00u);
    }
    uint32_t q, rem, halfway;
    if (e <= 0) {
        /* A subnormal half (or zero): the value in units of 2^-24, from the
           24-bit significand (a float subnormal is far below 2^-25). */
        if (e < -10) {
            return (aclFloat16)sign;
        }
        uint32_t m = man | 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        q = m >> shift;
        rem = m & ((1u << shift) - 1);
        halfway = 1u << (shift - 1);
    } else {
        q = ((uint32_t)e << 10) | (man >> 13);
        rem = man & 0x1fffu;
        halfway = 0x1000u;
    }
    /* A carry out of the significand moves to the next exponent, and out of
       the largest one to infinity: both are right. */
    if (rem > halfway || (rem == halfway && (q & 1u) != 0)) {
        q++;
    }
    return (aclFloat16)(sign | q);
}

/** Converts a binary16 value to float; every half is exactly a float. */
static inline float aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = ((uint32_t)value & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)value >> 10) & 0x1fu;
    uint32_t man = (uint32_t)value & 0x3ffu;
    uint32_t f;
    if (exp == 0x1fu) {
        f = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        f = sign | ((exp - 15 + 127) << 23) | (man << 13);
    } else if (man == 0) {
        f = sign;
    } else {
        /* Subnormal: normalize (at most 10 shifts). */
        int32_t e = -14;
        while ((man & 0x400u) == 0) {
            man <<= 1;
            e--;
        }
        f = sign | ((uint32_t)(e + 127) << 23) | ((man & 0x3ffu) << 13);
    }
    float out;
    __builtin_memcpy(&out, &f, sizeof out);
    return out;
}

/* ---- package versions ---- */

/** The capacity of aclCANNPackageVersion.version and of aclsysGetVersionStr's buffer, as natively. */
#define ACL_PKG_VERSION_MAX_SIZE 128
/** The capacity of each part of aclCANNPackageVersion, as natively. */
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

/** The packages aclsysGetCANNVersion knows, with the native values. */
typedef enum aclCANNPackageName {
    ACL_PKG_NAME_CANN,
    ACL_PKG_NAME_RUNTIME,
    ACL_PKG_NAME_COMPILER,
    ACL_PKG_NAME_HCCL,
    ACL_PKG_NAME_TOOLKIT,
    ACL_PKG_NAME_OPP,
    ACL_PKG_NAME_OPP_KERNEL,
    ACL_PKG_NAME_DRIVER
} aclCANNPackageName;

/** A package version as NUL-terminated strings, with the native layout (512 bytes). */
typedef struct aclCANNPackageVersion {
    char version[ACL_PKG_VERSION_MAX_SIZE];
    char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;

ACLWASM_STATIC_ASSERT(sizeof(aclCANNPackageVersion) == 512, "native layout");

/* aclwasmPutUint_ writes v in decimal at s and returns the end (no NUL). */
static inline char *aclwasmPutUint_(char *s, uint32_t v)
{
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) {
        *s++ = digits[--n];
    }
    return s;
}

/* aclwasmVersion_ reads the host's ACL version (aclrtGetVersion). */
static inline aclError aclwasmVersion_(int32_t v[3])
{
    return (aclError)aclwasm_raw_aclrtGetVersion(&v[0], &v[1], &v[2]);
}

/* aclwasmKnownPackage_ reports whether name is a package of the native
   share/info directories; '-' and '_' are the same, as natively. */
static inline int aclwasmKnownPackage_(const char *name)
{
    static const char *const known[] = {"cann", "runtime", "compiler", "hccl", "toolkit",
                                        "opp", "opp_kernel", "driver", "ge_compiler"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        const char *a = name, *b = known[k];
        while (*a != '\0' && (*a == *b || (*a == '-' && *b == '_'))) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            return 1;
        }
    }
    return 0;
}

/**
 * Writes the version of a package: the host's ACL version for every package
 * name of the enum ("1.17.0": majorVersion "1", minorVersion "17",
 * releaseVersion "0", patchVersion "0", the native split of a three-part
 * version). ACL_ERROR_INVALID_PARAM for a NULL version or a name outside the
 * enum, as natively.
 */
static inline aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    if (version == NULL || (int)name < (int)ACL_PKG_NAME_CANN || (int)name > (int)ACL_PKG_NAME_DRIVER) {
        return ACL_ERROR_INVALID_PARAM;
    }
    int32_t v[3];
    aclError ret = aclwasmVersion_(v);
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    /* Loops rather than memset: a freestanding guest has no libc. */
    for (size_t k = 0; k < sizeof *version; k++) {
        ((char *)version)[k] = '\0';
    }
    char *s = aclwasmPutUint_(version->version, (uint32_t)v[0]);
    *s++ = '.';
    s = aclwasmPutUint_(s, (uint32_t)v[1]);
    *s++ = '.';
    aclwasmPutUint_(s, (uint32_t)v[2]);
    aclwasmPutUint_(version->majorVersion, (uint32_t)v[0]);
    aclwasmPutUint_(version->minorVersion, (uint32_t)v[1]);
    aclwasmPutUint_(version->releaseVersion, (uint32_t)v[2]);
    version->patchVersion[0] = '0';
    return ACL_SUCCESS;
}

/**
 * Writes the version string of the package pkgName ("runtime", "driver",
 * ...: see the top of this header) to versionStr, which holds
 * ACL_PKG_VERSION_MAX_SIZE bytes as natively: the host's ACL version,
 * "1.17.0". ACL_ERROR_INVALID_PARAM for a NULL argument;
 * ACL_ERROR_INVALID_FILE for a package the sandbox does not know.
 */
static inline aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    if (pkgName == NULL || versionStr == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!aclwasmKnownPackage_(pkgName)) {
        return ACL_ERROR_INVALID_FILE;
    }
    aclCANNPackageVersion v;
    aclError ret = aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v);
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    size_t k = 0;
    do {
        versionStr[k] = v.version[k];
    } while (v.version[k++] != '\0');
    return ACL_SUCCESS;
}

/**
 * Writes the version of the package pkgName as a number that grows with the
 * version, as natively: major * 10000000 + minor * 100000 + patch * 1000
 * (1.17.0 is 11700000). Errors as aclsysGetVersionStr.
 */
static inline aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    if (pkgName == NULL || versionNum == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!aclwasmKnownPackage_(pkgName)) {
        return ACL_ERROR_INVALID_FILE;
    }
    int32_t v[3];
    aclError ret = aclwasmVersion_(v);
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    *versionNum = v[0] * 10000000 + v[1] * 100000 + v[2] * 1000;
    return ACL_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#if defined(__cplusplus) && defined(__wasi__)
#include "aclwasm_cxxabi.h"
#endif

#endif /* ACLWASM_SYS_H_ */
