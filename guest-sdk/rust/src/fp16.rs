//! The pure helpers of the native `acl_base.h`: element types with their
//! sizes ([`DataType`], the native `aclDataType` and `aclDataTypeSize`) and
//! IEEE 754 half precision ([`Float16`], the native `aclFloat16` with
//! `aclFloatToFloat16` and `aclFloat16ToFloat`). They call nothing in the
//! host, as in the C SDK.

/// The native `aclDataType`: the element type of a tensor or a buffer, with
/// the native values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct DataType(pub i32);

impl DataType {
    /// `ACL_DT_UNDEFINED`.
    pub const UNDEFINED: DataType = DataType(-1);
    /// `ACL_FLOAT` (fp32).
    pub const FLOAT: DataType = DataType(0);
    /// `ACL_FLOAT16`.
    pub const FLOAT16: DataType = DataType(1);
    /// `ACL_INT8`.
    pub const INT8: DataType = DataType(2);
    /// `ACL_INT32`.
    pub const INT32: DataType = DataType(3);
    /// `ACL_UINT8`.
    pub const UINT8: DataType = DataType(4);
    /// `ACL_INT16`.
    pub const INT16: DataType = DataType(6);
    /// `ACL_UINT16`.
    pub const UINT16: DataType = DataType(7);
    /// `ACL_UINT32`.
    pub const UINT32: DataType = DataType(8);
    /// `ACL_INT64`.
    pub const INT64: DataType = DataType(9);
    /// `ACL_UINT64`.
    pub const UINT64: DataType = DataType(10);
    /// `ACL_DOUBLE`.
    pub const DOUBLE: DataType = DataType(11);
    /// `ACL_BOOL`.
    pub const BOOL: DataType = DataType(12);
    /// `ACL_STRING`.
    pub const STRING: DataType = DataType(13);
    /// `ACL_COMPLEX64`.
    pub const COMPLEX64: DataType = DataType(16);
    /// `ACL_COMPLEX128`.
    pub const COMPLEX128: DataType = DataType(17);
    /// `ACL_BF16`.
    pub const BF16: DataType = DataType(27);
    /// `ACL_INT4`.
    pub const INT4: DataType = DataType(29);
    /// `ACL_UINT1`.
    pub const UINT1: DataType = DataType(30);
    /// `ACL_COMPLEX32`.
    pub const COMPLEX32: DataType = DataType(33);
    /// `ACL_HIFLOAT8`.
    pub const HIFLOAT8: DataType = DataType(34);
    /// `ACL_FLOAT8_E5M2`.
    pub const FLOAT8_E5M2: DataType = DataType(35);
    /// `ACL_FLOAT8_E4M3FN`.
    pub const FLOAT8_E4M3FN: DataType = DataType(36);
    /// `ACL_FLOAT8_E8M0`.
    pub const FLOAT8_E8M0: DataType = DataType(37);
    /// `ACL_FLOAT6_E3M2`.
    pub const FLOAT6_E3M2: DataType = DataType(38);
    /// `ACL_FLOAT6_E2M3`.
    pub const FLOAT6_E2M3: DataType = DataType(39);
    /// `ACL_FLOAT4_E2M1`.
    pub const FLOAT4_E2M1: DataType = DataType(40);
    /// `ACL_FLOAT4_E1M2`.
    pub const FLOAT4_E1M2: DataType = DataType(41);

    /// The size in bytes of one element, as the native `aclDataTypeSize`:
    /// 0 for `STRING` and `UNDEFINED`, 1 for the sub-byte `UINT1` and `INT4`,
    /// and 8 for a value the native table does not name.
    pub const fn size(self) -> usize {
        match self.0 {
            -1 | 13 => 0,
            30 | 29 | 12 | 2 | 4 | 34 | 35 | 36 | 37 => 1,
            1 | 6 | 7 | 27 => 2,
            0 | 3 | 8 | 33 => 4,
            17 => 16,
            _ => 8,
        }
    }
}

/// The native `aclFloat16`: an IEEE 754 binary16 value as its 16 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Float16(pub u16);

impl Float16 {
    /// Converts `f` as the native `aclFloatToFloat16`: round to nearest,
    /// ties to even; beyond the largest half (65504) to infinity, below half
    /// the smallest subnormal (2^-25) to a zero of `f`'s sign; a NaN stays a
    /// NaN (quiet, its top payload bits kept).
    pub fn from_f32(f: f32) -> Float16 {
        let b = f.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let exp = ((b >> 23) & 0xff) as i32;
        let man = b & 0x7f_ffff;
        if exp == 0xff {
            return Float16(
                sign | 0x7c00
                    | if man != 0 {
                        0x200 | (man >> 13) as u16
                    } else {
                        0
                    },
            );
        }
        let e = exp - 127 + 15; // the half's biased exponent
        if e >= 31 {
            return Float16(sign | 0x7c00);
        }
        let (mut q, rem, half) = if e <= 0 {
            // A subnormal half (or zero): the value in units of 2^-24.
            if e < -10 {
                return Float16(sign);
            }
            let m = man | 0x80_0000;
            let shift = (14 - e) as u32;
            (m >> shift, m & ((1 << shift) - 1), 1u32 << (shift - 1))
        } else {
            (((e as u32) << 10) | (man >> 13), man & 0x1fff, 0x1000)
        };
        // A carry moves to the next exponent, and past the largest to infinity.
        if rem > half || (rem == half && q & 1 != 0) {
            q += 1;
        }
        Float16(sign | q as u16)
    }

    /// Converts to `f32`, exactly (every half is an `f32`), as the native
    /// `aclFloat16ToFloat`.
    pub fn to_f32(self) -> f32 {
        let h = self.0 as u32;
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let man = h & 0x3ff;
        if exp == 0x1f {
            f32::from_bits(sign | 0x7f80_0000 | (man << 13))
        } else if exp != 0 {
            f32::from_bits(sign | ((exp + 127 - 15) << 23) | (man << 13))
        } else {
            // Zero or subnormal: the integer significand scaled by 2^-24 (exact).
            let v = man as f32 * (1.0 / 16_777_216.0);
            if sign != 0 {
                -v
            } else {
                v
            }
        }
    }

    /// Whether this is a NaN.
    pub const fn is_nan(self) -> bool {
        self.0 & 0x7c00 == 0x7c00 && self.0 & 0x3ff != 0
    }
}

impl From<f32> for Float16 {
    fn from(f: f32) -> Float16 {
        Float16::from_f32(f)
    }
}

impl From<Float16> for f32 {
    fn from(h: Float16) -> f32 {
        h.to_f32()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference value of a binary16 encoding, from its fields.
    fn half_value(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let (e, m) = (((h >> 10) & 0x1f) as i32, (h & 0x3ff) as f64);
        match (e, m == 0.0) {
            (0x1f, true) => sign * f64::INFINITY,
            (0x1f, false) => f64::NAN,
            (0, _) => sign * m * 2f64.powi(-24),
            _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
        }
    }

    /// The reference rounding, by search: the nearer of the two halves around
    /// |x| (65536 standing for the one past the largest), the even one on a tie.
    fn nearest_half(x: f32) -> u16 {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let a = (x as f64).abs();
        // The largest finite half at or below a, by bisection.
        let (mut lo, mut hi) = (0u16, 0x7c00u16);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if half_value(mid) <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        if half_value(lo) == a {
            return sign | lo;
        }
        let next = if lo < 0x7bff {
            half_value(lo + 1)
        } else {
            65536.0
        };
        let (d, u) = (a - half_value(lo), next - a);
        if d < u || (d == u && lo & 1 == 0) {
            sign | lo
        } else {
            sign | (lo + 1)
        }
    }

    #[test]
    fn every_half_to_f32_and_back() {
        for h in 0..=u16::MAX {
            let f = Float16(h).to_f32();
            let r = half_value(h);
            if r.is_nan() {
                assert!(
                    f.is_nan() && Float16::from_f32(f).is_nan(),
                    "NaN {:#06x}",
                    h
                );
                continue;
            }
            assert!(
                f as f64 == r && f.is_sign_negative() == (r.is_sign_negative()),
                "{:#06x}: {} want {}",
                h,
                f,
                r
            );
            assert_eq!(Float16::from_f32(f), Float16(h), "round trip of {:#06x}", h);
        }
    }

    #[test]
    fn from_f32_rounds_to_nearest_even() {
        let check = |x: f32| {
            assert_eq!(
                Float16::from_f32(x).0,
                nearest_half(x),
                "from_f32({} = {:#010x})",
                x,
                x.to_bits()
            );
        };
        for h in 0u16..0x7bff {
            let m = (half_value(h) as f32 + half_value(h + 1) as f32) / 2.0;
            for x in [
                m,
                f32::from_bits(m.to_bits() - 1),
                f32::from_bits(m.to_bits() + 1),
            ] {
                check(x);
                check(-x);
            }
        }
        for b in [
            0x477f_e000u32,
            0x477f_f000,
            0x7f7f_ffff,
            0x3300_0000,
            0x3300_0001,
            0x0000_0001,
            0x387f_e000,
            0x7f80_0000,
        ] {
            check(f32::from_bits(b));
        }
        assert!(Float16::from_f32(f32::NAN).is_nan());
        assert_eq!(
            Float16::from_f32(f32::from_bits(0xffc0_0001)).0 & 0x8000,
            0x8000
        );
    }

    #[test]
    fn data_type_sizes_are_native() {
        let want = [
            (DataType::UNDEFINED, 0),
            (DataType::FLOAT, 4),
            (DataType::FLOAT16, 2),
            (DataType::INT8, 1),
            (DataType::INT32, 4),
            (DataType::UINT8, 1),
            (DataType::INT16, 2),
            (DataType::UINT16, 2),
            (DataType::UINT32, 4),
            (DataType::INT64, 8),
            (DataType::UINT64, 8),
            (DataType::DOUBLE, 8),
            (DataType::BOOL, 1),
            (DataType::STRING, 0),
            (DataType::COMPLEX64, 8),
            (DataType::COMPLEX128, 16),
            (DataType::BF16, 2),
            (DataType::INT4, 1),
            (DataType::UINT1, 1),
            (DataType::COMPLEX32, 4),
            (DataType::HIFLOAT8, 1),
            (DataType::FLOAT8_E5M2, 1),
            (DataType::FLOAT8_E4M3FN, 1),
            (DataType::FLOAT8_E8M0, 1),
            (DataType::FLOAT6_E3M2, 8),
            (DataType::FLOAT6_E2M3, 8),
            (DataType::FLOAT4_E2M1, 8),
            (DataType::FLOAT4_E1M2, 8),
            (DataType(1000), 8),
        ];
        for (t, size) in want {
            assert_eq!(t.size(), size, "{:?}", t);
        }
    }
}
