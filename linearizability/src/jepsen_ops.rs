//! How the ops of each of Knossos' models are written in Jepsen's history
//! files: the op's `:f`, what an invoke's `:value` asks for and what an
//! `:ok`'s `:value` says. An `:ok`'s value is read only where the op
//! returns something (a read, a dequeue); elsewhere the invoke's counts.
//!
//! | model | ops |
//! |---|---|
//! | register, cas-register | `:read` (ok: the value), `:write v`, `:cas [old new]` |
//! | mutex | `:acquire`, `:release` (value nil) |
//! | set | `:add v`, `:read` (ok: a vector, list or `#{..}` of the elements) |
//! | fifo-queue, unordered-queue | `:enqueue v`, `:dequeue` (ok: the value) |

use super::jepsen_events::{OpValue, Shown};
use super::model::Model;
use super::mutex::{Mutex, MutexOp};
use super::parse_jepsen_edn::Value;
use super::queue::{FifoQueue, QueueOp, QueueOutput, UnorderedQueue};
use super::register::{Register, RegisterOp, RegisterOutput};
use super::set::{Set, SetOp, SetOutput};

/// A model whose ops Jepsen's history files hold.
pub trait JepsenOps: Model {
    /// Every `:f` the model takes, without its colon.
    const FS: &'static [&'static str];

    /// The `:f` of `input`, without its colon.
    fn f(&self, input: &Self::Input) -> &'static str;

    /// An invoke's op, from its `:f` (one of [`JepsenOps::FS`]) and `:value`.
    fn input(&self, f: &str, value: Shown<'_>) -> Result<Self::Input, String>;

    /// What an `:ok` completion of `input` returned, from its `:value`.
    fn output(&self, input: &Self::Input, value: Shown<'_>) -> Result<Self::Output, String>;
}

/// Whether some model reads the `:value` of an op with `:f` `f` that is an
/// invoke, or an `:ok`: a value no model reads need not be kept.
pub fn reads_value(f: &str, invoke: bool, ok: bool) -> bool {
    match f {
        "write" | "cas" | "add" | "enqueue" => invoke,
        "read" | "dequeue" => ok,
        _ => false,
    }
}

/// Whether some model may refuse `value` as such an op's: a cas's that is
/// no pair, a set read's that is no collection. Only then is the text it
/// was written as needed.
pub fn may_refuse(f: &str, invoke: bool, value: &OpValue) -> bool {
    match f {
        "cas" => invoke && !value.is_pair(),
        "read" => !invoke && !value.is_items(),
        _ => false,
    }
}

/// `:a`, `:a or :b`, `:a, :b or :c`: for messages.
pub fn either(fs: &[&str]) -> String {
    list(fs, "or")
}

/// `:a`, `:a and :b`, `:a, :b and :c`: for messages.
pub fn both(fs: &[&str]) -> String {
    list(fs, "and")
}

fn list(fs: &[&str], last: &str) -> String {
    let fs: Vec<String> = fs.iter().map(|f| format!(":{f}")).collect();
    match fs.split_last() {
        Some((tail, init)) if !init.is_empty() => format!("{} {last} {tail}", init.join(", ")),
        _ => fs.concat(),
    }
}

/// What an op whose `:f` is not one of `M`'s is told; `found` as written.
pub fn expected_f<M: JepsenOps>(found: &str) -> String {
    format!("expected :f {}, found {found}", either(M::FS))
}

fn unknown<T, M: JepsenOps>(f: &str) -> Result<T, String> {
    Err(expected_f::<M>(&format!(":{f}")))
}

impl JepsenOps for Register<Value> {
    const FS: &'static [&'static str] = &["read", "write", "cas"];

    fn f(&self, input: &RegisterOp<Value>) -> &'static str {
        match input {
            RegisterOp::Read => "read",
            RegisterOp::Write(_) => "write",
            RegisterOp::Cas(..) => "cas",
        }
    }

    fn input(&self, f: &str, value: Shown<'_>) -> Result<RegisterOp<Value>, String> {
        match f {
            "read" => Ok(RegisterOp::Read),
            "write" => Ok(RegisterOp::Write(value.value.into_value())),
            "cas" => {
                let brief = value.brief();
                match value.value.into_pair() {
                    Ok((old, new)) => Ok(RegisterOp::Cas(old, new)),
                    Err(_) => Err(format!("expected a :cas :value like [old new], found {brief}")),
                }
            }
            _ => unknown::<_, Self>(f),
        }
    }

    fn output(&self, input: &RegisterOp<Value>, value: Shown<'_>) -> Result<RegisterOutput<Value>, String> {
        Ok(match input {
            RegisterOp::Read => RegisterOutput::Read(Some(value.value.into_value())),
            _ => RegisterOutput::Done,
        })
    }
}

impl JepsenOps for Mutex {
    const FS: &'static [&'static str] = &["acquire", "release"];

    fn f(&self, input: &MutexOp) -> &'static str {
        match input {
            MutexOp::Acquire => "acquire",
            MutexOp::Release => "release",
        }
    }

    fn input(&self, f: &str, _value: Shown<'_>) -> Result<MutexOp, String> {
        match f {
            "acquire" => Ok(MutexOp::Acquire),
            "release" => Ok(MutexOp::Release),
            _ => unknown::<_, Self>(f),
        }
    }

    fn output(&self, _input: &MutexOp, _value: Shown<'_>) -> Result<(), String> {
        Ok(())
    }
}

impl JepsenOps for Set<Value> {
    const FS: &'static [&'static str] = &["add", "read"];

    fn f(&self, input: &SetOp<Value>) -> &'static str {
        match input {
            SetOp::Add(_) => "add",
            SetOp::Read => "read",
        }
    }

    fn input(&self, f: &str, value: Shown<'_>) -> Result<SetOp<Value>, String> {
        match f {
            "add" => Ok(SetOp::Add(value.value.into_value())),
            "read" => Ok(SetOp::Read),
            _ => unknown::<_, Self>(f),
        }
    }

    fn output(&self, input: &SetOp<Value>, value: Shown<'_>) -> Result<SetOutput<Value>, String> {
        if let SetOp::Add(_) = input {
            return Ok(SetOutput::Added);
        }
        let brief = value.brief();
        match value.value.into_items() {
            Ok(items) => Ok(SetOutput::read(items)),
            Err(_) => Err(format!(
                "expected a set :read's :value like #{{1 2}} or [1 2], found {brief}"
            )),
        }
    }
}

/// Both queues read the same ops.
macro_rules! queue_ops {
    ($queue:ident) => {
        impl JepsenOps for $queue<Value> {
            const FS: &'static [&'static str] = &["enqueue", "dequeue"];

            fn f(&self, input: &QueueOp<Value>) -> &'static str {
                match input {
                    QueueOp::Enqueue(_) => "enqueue",
                    QueueOp::Dequeue => "dequeue",
                }
            }

            fn input(&self, f: &str, value: Shown<'_>) -> Result<QueueOp<Value>, String> {
                match f {
                    "enqueue" => Ok(QueueOp::Enqueue(value.value.into_value())),
                    "dequeue" => Ok(QueueOp::Dequeue),
                    _ => unknown::<_, Self>(f),
                }
            }

            fn output(&self, input: &QueueOp<Value>, value: Shown<'_>) -> Result<QueueOutput<Value>, String> {
                Ok(match input {
                    QueueOp::Enqueue(_) => QueueOutput::Enqueued,
                    QueueOp::Dequeue => QueueOutput::Dequeued(value.value.into_value()),
                })
            }
        }
    };
}

queue_ops!(FifoQueue);
queue_ops!(UnorderedQueue);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_sentences() {
        assert_eq!(either(&["a"]), ":a");
        assert_eq!(both(&["a", "b"]), ":a and :b");
        assert_eq!(either(&["a", "b", "c"]), ":a, :b or :c");
    }
}
