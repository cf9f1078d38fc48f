// The traits every getrandom release implements on its `Error`, written
// once for the three: each release's `Error` gives `raw_os_error()` and
// `code_number()`, and this says the rest.
macro_rules! error_impls {
    ($error:ident) => {
        impl ::std::fmt::Debug for $error {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct("Error")
                    .field("code", &self.code_number())
                    .finish()
            }
        }

        impl ::std::fmt::Display for $error {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match self.raw_os_error() {
                    Some(errno) => ::std::io::Error::from_raw_os_error(errno).fmt(f),
                    None => write!(f, "getrandom: error code {}", self.code_number()),
                }
            }
        }

        impl ::std::error::Error for $error {}

        impl From<$error> for ::std::io::Error {
            fn from(e: $error) -> ::std::io::Error {
                match e.raw_os_error() {
                    Some(errno) => ::std::io::Error::from_raw_os_error(errno),
                    None => ::std::io::Error::other(e),
                }
            }
        }
    };
}
