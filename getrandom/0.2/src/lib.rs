//! getrandom 0.2's API; the bytes come from dst's `tokio::dst::fill_random`.

#![warn(missing_docs)]

#[macro_use]
#[path = "../../error_impls.rs"]
mod error_impls;

use std::mem::MaybeUninit;
use std::num::NonZeroU32;

/// Why no random bytes could be had.
#[derive(Copy, Clone, Eq, PartialEq)]
pub struct Error(NonZeroU32);

error_impls!(Error);

const fn internal_error(n: u16) -> Error {
    match NonZeroU32::new(Error::INTERNAL_START + n as u32) {
        Some(code) => Error(code),
        None => unreachable!(),
    }
}

impl Error {
    /// This target has no source of entropy.
    pub const UNSUPPORTED: Error = internal_error(0);
    /// The system returned an error number that is not positive.
    pub const ERRNO_NOT_POSITIVE: Error = internal_error(1);
    /// An error that should never happen.
    pub const UNEXPECTED: Error = internal_error(2);
    /// `SecRandomCopyBytes` failed.
    pub const IOS_SEC_RANDOM: Error = internal_error(3);
    /// `RtlGenRandom` failed.
    pub const WINDOWS_RTL_GEN_RANDOM: Error = internal_error(4);
    /// RDRAND failed.
    pub const FAILED_RDRAND: Error = internal_error(5);
    /// The CPU has no RDRAND.
    pub const NO_RDRAND: Error = internal_error(6);
    /// The browser has no Web Crypto.
    pub const WEB_CRYPTO: Error = internal_error(7);
    /// `getRandomValues` failed.
    pub const WEB_GET_RANDOM_VALUES: Error = internal_error(8);
    /// VxWorks' generator is not seeded.
    pub const VXWORKS_RAND_SECURE: Error = internal_error(11);
    /// Node.js has no crypto.
    pub const NODE_CRYPTO: Error = internal_error(12);
    /// `randomFillSync` failed.
    pub const NODE_RANDOM_FILL_SYNC: Error = internal_error(13);
    /// Node.js is an ES module here.
    pub const NODE_ES_MODULE: Error = internal_error(14);
    /// Codes from here on are not the operating system's.
    pub const INTERNAL_START: u32 = 1 << 31;
    /// Codes from here on are users' own.
    pub const CUSTOM_START: u32 = (1 << 31) + (1 << 30);

    /// The operating system's error number, if the error is one.
    pub fn raw_os_error(self) -> Option<i32> {
        (self.0.get() < Self::INTERNAL_START).then_some(self.0.get() as i32)
    }

    fn code_number(self) -> u32 {
        self.0.get()
    }

    /// The bare error code.
    pub const fn code(self) -> NonZeroU32 {
        self.0
    }
}

impl From<NonZeroU32> for Error {
    fn from(code: NonZeroU32) -> Self {
        Error(code)
    }
}

/// Fills `dest` with random bytes: the simulated node's seeded stream
/// inside a dst run, the system's entropy elsewhere.
pub fn getrandom(dest: &mut [u8]) -> Result<(), Error> {
    tokio::dst::fill_random(dest).map_err(|e| {
        let code = e.raw_os_error().and_then(|n| NonZeroU32::new(n as u32));
        code.map_or(Error::UNEXPECTED, Error)
    })
}

/// [`getrandom`] into memory not yet initialized; the filled bytes.
pub fn getrandom_uninit(dest: &mut [MaybeUninit<u8>]) -> Result<&mut [u8], Error> {
    for b in dest.iter_mut() {
        b.write(0);
    }
    // SAFETY: every byte was just written.
    let bytes = unsafe { &mut *(dest as *mut [MaybeUninit<u8>] as *mut [u8]) };
    getrandom(bytes)?;
    Ok(bytes)
}

/// Registers a custom source, as getrandom 0.2 lets a target without one
/// do. Under dst the source is the run's, so the function is checked for
/// its type and otherwise not called.
#[macro_export]
macro_rules! register_custom_getrandom {
    ($path:path) => {
        const _: fn(&mut [u8]) -> ::core::result::Result<(), $crate::Error> = $path;
    };
}
