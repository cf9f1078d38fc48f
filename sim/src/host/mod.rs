//! What runs around the simulation on the real machine: the files dst
//! writes and reads ([`files`]), JSON read as strictly as it is written
//! ([`strict`]), the signals and closed pipes that stop a long command
//! ([`interrupt`]), and a large text input read as a stream
//! ([`TextInput`]). Nothing here runs inside a simulated run, except the
//! flag a single run looks at to be cut short.

pub mod files;
pub mod interrupt;
pub mod strict;
mod text_input;

pub use text_input::TextInput;
