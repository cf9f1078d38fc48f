use super::File;
use crate::dst::{self, OpenFlags, Route};
use std::io;
use std::path::Path;

/// How to open a file, as tokio's: on a node, the flags its file system
/// honours (unix modes and custom flags are kept for real files only).
#[derive(Clone, Debug)]
pub struct OpenOptions {
    flags: OpenFlags,
    real: real::fs::OpenOptions,
}

macro_rules! flag {
    ($($name:ident),*) => {
        $(
            #[doc = concat!("Sets the `", stringify!($name), "` flag.")]
            pub fn $name(&mut self, $name: bool) -> &mut OpenOptions {
                self.flags.$name = $name;
                self.real.$name($name);
                self
            }
        )*
    };
}

impl OpenOptions {
    /// No flag set.
    pub fn new() -> OpenOptions {
        OpenOptions {
            flags: OpenFlags::default(),
            real: real::fs::OpenOptions::new(),
        }
    }

    flag!(read, write, append, truncate, create, create_new);

    /// Sets the unix mode of a file made (a node's files have none).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.real.mode(mode);
        self
    }

    /// Sets extra `open` flags (a node's files ignore them).
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.real.custom_flags(flags);
        self
    }

    /// Opens `path` with these options.
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref();
        match dst::route("tokio::fs::OpenOptions::open") {
            Route::Node(here, sim) => {
                let id = sim.fs_open(here, path, self.flags)?;
                Ok(File::node(here, id, dst::normal_path(path), self.flags))
            }
            Route::Real => self.real.open(path).await.map(File::real),
        }
    }
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions::new()
    }
}
