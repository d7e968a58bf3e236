use core::fmt;

/// An address in the sandbox's address space: a guest pointer zero-extended
/// (below 2^32) or an opaque device address from `aclrtMalloc` (2^32 and
/// above, 64-byte aligned). `addr.add(k)` names byte `k` after `addr`.
/// 0 is NULL.
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Addr(pub u64);

impl Addr {
    /// The NULL address.
    pub const NULL: Addr = Addr(0);

    /// The address of the first element of a slice in guest memory.
    pub fn of<T>(s: &[T]) -> Addr {
        Addr(s.as_ptr() as usize as u64)
    }

    /// The address of the first element of a mutable slice in guest memory.
    pub fn of_mut<T>(s: &mut [T]) -> Addr {
        Addr(s.as_mut_ptr() as usize as u64)
    }

    /// The address of a guest pointer.
    pub fn from_ptr<T>(p: *const T) -> Addr {
        Addr(p as usize as u64)
    }

    /// The address `k` bytes after `self` (wrapping; the host checks ranges).
    #[must_use]
    pub const fn add(self, k: u64) -> Addr {
        Addr(self.0.wrapping_add(k))
    }

    /// Whether this is NULL.
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// Whether this cannot be guest memory (it is at or above 2^32).
    pub const fn is_device(self) -> bool {
        self.0 >= 1 << 32
    }

    /// The guest pointer this address names, or `None` for a device address.
    pub fn as_guest_ptr(self) -> Option<*mut u8> {
        if self.is_device() {
            None
        } else {
            Some(self.0 as usize as *mut u8)
        }
    }
}

impl fmt::Debug for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Addr({:#x})", self.0)
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl fmt::LowerHex for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}
