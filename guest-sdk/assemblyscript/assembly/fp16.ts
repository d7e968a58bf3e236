// The pure helpers of the native acl_base.h: element types with their sizes
// (DataType, the native aclDataType, and dataTypeSize) and IEEE 754 half
// precision (floatToFloat16 and float16ToFloat, the native
// aclFloatToFloat16 and aclFloat16ToFloat). They call nothing in the host,
// as in the C SDK.

/** The element type of a tensor or a buffer (aclDataType), with the native values. */
export enum DataType {
  /** ACL_DT_UNDEFINED */
  UNDEFINED = -1,
  /** ACL_FLOAT */
  FLOAT = 0,
  /** ACL_FLOAT16 */
  FLOAT16 = 1,
  /** ACL_INT8 */
  INT8 = 2,
  /** ACL_INT32 */
  INT32 = 3,
  /** ACL_UINT8 */
  UINT8 = 4,
  /** ACL_INT16 */
  INT16 = 6,
  /** ACL_UINT16 */
  UINT16 = 7,
  /** ACL_UINT32 */
  UINT32 = 8,
  /** ACL_INT64 */
  INT64 = 9,
  /** ACL_UINT64 */
  UINT64 = 10,
  /** ACL_DOUBLE */
  DOUBLE = 11,
  /** ACL_BOOL */
  BOOL = 12,
  /** ACL_STRING */
  STRING = 13,
  /** ACL_COMPLEX64 */
  COMPLEX64 = 16,
  /** ACL_COMPLEX128 */
  COMPLEX128 = 17,
  /** ACL_BF16 */
  BF16 = 27,
  /** ACL_INT4 */
  INT4 = 29,
  /** ACL_UINT1 */
  UINT1 = 30,
  /** ACL_COMPLEX32 */
  COMPLEX32 = 33,
  /** ACL_HIFLOAT8 */
  HIFLOAT8 = 34,
  /** ACL_FLOAT8_E5M2 */
  FLOAT8_E5M2 = 35,
  /** ACL_FLOAT8_E4M3FN */
  FLOAT8_E4M3FN = 36,
  /** ACL_FLOAT8_E8M0 */
  FLOAT8_E8M0 = 37,
  /** ACL_FLOAT6_E3M2 */
  FLOAT6_E3M2 = 38,
  /** ACL_FLOAT6_E2M3 */
  FLOAT6_E2M3 = 39,
  /** ACL_FLOAT4_E2M1 */
  FLOAT4_E2M1 = 40,
  /** ACL_FLOAT4_E1M2 */
  FLOAT4_E1M2 = 41,
}

/**
 * The size in bytes of one element of type t, as the native aclDataTypeSize:
 * 0 for STRING and UNDEFINED, 1 for the sub-byte UINT1 and INT4, and 8 for a
 * value the native table does not name.
 */
export function dataTypeSize(t: i32): i32 {
  switch (t) {
    case DataType.STRING:
    case DataType.UNDEFINED:
      return 0;
    case DataType.UINT1:
    case DataType.INT4:
    case DataType.BOOL:
    case DataType.INT8:
    case DataType.UINT8:
    case DataType.HIFLOAT8:
    case DataType.FLOAT8_E5M2:
    case DataType.FLOAT8_E4M3FN:
    case DataType.FLOAT8_E8M0:
      return 1;
    case DataType.FLOAT16:
    case DataType.INT16:
    case DataType.UINT16:
    case DataType.BF16:
      return 2;
    case DataType.FLOAT:
    case DataType.INT32:
    case DataType.UINT32:
    case DataType.COMPLEX32:
      return 4;
    case DataType.COMPLEX128:
      return 16;
    default:
      return 8;
  }
}

/**
 * Converts a float to IEEE binary16 bits, as the native aclFloatToFloat16:
 * round to nearest, ties to even; beyond the largest half (65504) to
 * infinity, below half the smallest subnormal (2^-25) to a zero of the
 * float's sign; a NaN stays a NaN (quiet, its top payload bits kept).
 */
export function floatToFloat16(value: f32): u16 {
  const b = reinterpret<u32>(value);
  const sign = (b >> 16) & 0x8000;
  const exp = <i32>((b >> 23) & 0xff);
  const man = b & 0x7fffff;
  if (exp == 0xff) {
    return <u16>(sign | 0x7c00 | (man != 0 ? 0x200 | (man >> 13) : 0));
  }
  const e = exp - 127 + 15; // the half's biased exponent
  if (e >= 31) return <u16>(sign | 0x7c00);
  let q: u32, rem: u32, half: u32;
  if (e <= 0) {
    // A subnormal half (or zero): the value in units of 2^-24.
    if (e < -10) return <u16>sign;
    const m = man | 0x800000;
    const shift = <u32>(14 - e);
    q = m >> shift;
    rem = m & ((1 << shift) - 1);
    half = 1 << (shift - 1);
  } else {
    q = (<u32>e << 10) | (man >> 13);
    rem = man & 0x1fff;
    half = 0x1000;
  }
  // A carry moves to the next exponent, and past the largest to infinity.
  if (rem > half || (rem == half && (q & 1) != 0)) q++;
  return <u16>(sign | q);
}

/** Converts IEEE binary16 bits to a float, exactly (every half is a float), as the native aclFloat16ToFloat. */
export function float16ToFloat(value: u16): f32 {
  const h = <u32>value;
  const sign = (h & 0x8000) << 16;
  const exp = (h >> 10) & 0x1f;
  const man = h & 0x3ff;
  if (exp == 0x1f) return reinterpret<f32>(sign | 0x7f800000 | (man << 13));
  if (exp != 0) return reinterpret<f32>(sign | ((exp + 127 - 15) << 23) | (man << 13));
  // Zero or subnormal: the integer significand scaled by 2^-24 (exact).
  const v = <f32>man * (1.0 / 16777216.0);
  return sign != 0 ? -v : v;
}
