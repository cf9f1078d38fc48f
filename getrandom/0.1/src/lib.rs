//! getrandom 0.1's API; the bytes come from dst's `tokio::dst::fill_random`.

#![warn(missing_docs)]

#[macro_use]
#[path = "../../error_impls.rs"]
mod error_impls;

use std::num::NonZeroU32;

/// Why no random bytes could be had.
#[derive(Copy, Clone, Eq, PartialEq)]
pub struct Error(NonZeroU32);

error_impls!(Error);

impl Error {
    /// Unknown error.
    #[deprecated(since = "0.1.7")]
    pub const UNKNOWN: Error = UNSUPPORTED;
    /// System entropy source is unavailable.
    #[deprecated(since = "0.1.7")]
    pub const UNAVAILABLE: Error = UNSUPPORTED;
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
    pub fn code(self) -> NonZeroU32 {
        self.0
    }
}

const UNSUPPORTED: Error = Error(match NonZeroU32::new(Error::INTERNAL_START) {
    Some(c) => c,
    None => unreachable!(),
});

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
        code.map_or(UNSUPPORTED, Error)
    })
}
