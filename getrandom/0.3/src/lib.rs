//! getrandom 0.3's API; the bytes come from dst's `tokio::dst::fill_random`.

#![warn(missing_docs)]

#[macro_use]
#[path = "../../error_impls.rs"]
mod error_impls;

use std::mem::MaybeUninit;
use std::num::NonZeroI32;

/// Why no random bytes could be had.
#[derive(Copy, Clone, Eq, PartialEq)]
pub struct Error(NonZeroI32);

error_impls!(Error);

impl Error {
    /// This target has no source of entropy.
    pub const UNSUPPORTED: Error = Self::new_internal(0);
    /// The system returned an error number that is not positive.
    pub const ERRNO_NOT_POSITIVE: Error = Self::new_internal(1);
    /// An error that should never happen.
    pub const UNEXPECTED: Error = Self::new_internal(2);
    /// Codes from here on are not the operating system's.
    pub const INTERNAL_START: u32 = 1 << 31;
    /// Codes from here on are users' own.
    pub const CUSTOM_START: u32 = (1 << 31) + (1 << 30);

    /// The operating system's error number, if the error is one.
    pub fn raw_os_error(self) -> Option<i32> {
        (self.0.get() > 0).then_some(self.0.get())
    }

    fn code_number(self) -> u32 {
        self.0.get() as u32
    }

    /// A custom error, numbered `n` from [`Error::CUSTOM_START`].
    pub const fn new_custom(n: u16) -> Error {
        Self::from_code(Self::CUSTOM_START + n as u32)
    }

    const fn new_internal(n: u16) -> Error {
        Self::from_code(Self::INTERNAL_START + n as u32)
    }

    /// Codes past `i32::MAX` wrap to negative, as getrandom 0.3 keeps them.
    const fn from_code(code: u32) -> Error {
        match NonZeroI32::new(code as i32) {
            Some(c) => Error(c),
            None => unreachable!(),
        }
    }
}

/// Fills `dest` with random bytes: the simulated node's seeded stream
/// inside a dst run, the system's entropy elsewhere.
pub fn fill(dest: &mut [u8]) -> Result<(), Error> {
    tokio::dst::fill_random(dest).map_err(|e| {
        let code = e.raw_os_error().filter(|n| *n > 0).and_then(NonZeroI32::new);
        code.map_or(Error::UNEXPECTED, Error)
    })
}

/// [`fill`] into memory not yet initialized; the filled bytes.
pub fn fill_uninit(dest: &mut [MaybeUninit<u8>]) -> Result<&mut [u8], Error> {
    for b in dest.iter_mut() {
        b.write(0);
    }
    // SAFETY: every byte was just written.
    let bytes = unsafe { &mut *(dest as *mut [MaybeUninit<u8>] as *mut [u8]) };
    fill(bytes)?;
    Ok(bytes)
}

/// A random `u32`.
pub fn u32() -> Result<u32, Error> {
    let mut b = [0u8; 4];
    fill(&mut b)?;
    Ok(u32::from_ne_bytes(b))
}

/// A random `u64`.
pub fn u64() -> Result<u64, Error> {
    let mut b = [0u8; 8];
    fill(&mut b)?;
    Ok(u64::from_ne_bytes(b))
}
