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

use super::edn::Edn;
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

    fn f(&self, input: &Self::Input) -> &'static str;

    /// An invoke's op, from its `:f` (one of [`JepsenOps::FS`]) and `:value`.
    fn input(&self, f: &str, value: &Edn) -> Result<Self::Input, String>;

    /// What an `:ok` completion of `input` returned, from its `:value`.
    fn output(&self, input: &Self::Input, value: &Edn) -> Result<Self::Output, String>;
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

    fn input(&self, f: &str, value: &Edn) -> Result<RegisterOp<Value>, String> {
        match (f, value) {
            ("read", _) => Ok(RegisterOp::Read),
            ("write", v) => Ok(RegisterOp::Write(Value::from(v))),
            ("cas", Edn::Vector(pair) | Edn::List(pair)) if pair.len() == 2 => {
                Ok(RegisterOp::Cas(Value::from(&pair[0]), Value::from(&pair[1])))
            }
            ("cas", other) => Err(format!(
                "expected a :cas :value like [old new], found {}",
                other.brief()
            )),
            _ => unknown::<_, Self>(f),
        }
    }

    fn output(&self, input: &RegisterOp<Value>, value: &Edn) -> Result<RegisterOutput<Value>, String> {
        Ok(match input {
            RegisterOp::Read => RegisterOutput::Read(Some(Value::from(value))),
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

    fn input(&self, f: &str, _value: &Edn) -> Result<MutexOp, String> {
        match f {
            "acquire" => Ok(MutexOp::Acquire),
            "release" => Ok(MutexOp::Release),
            _ => unknown::<_, Self>(f),
        }
    }

    fn output(&self, _input: &MutexOp, _value: &Edn) -> Result<(), String> {
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

    fn input(&self, f: &str, value: &Edn) -> Result<SetOp<Value>, String> {
        match f {
            "add" => Ok(SetOp::Add(Value::from(value))),
            "read" => Ok(SetOp::Read),
            _ => unknown::<_, Self>(f),
        }
    }

    fn output(&self, input: &SetOp<Value>, value: &Edn) -> Result<SetOutput<Value>, String> {
        match (input, value) {
            (SetOp::Add(_), _) => Ok(SetOutput::Added),
            (SetOp::Read, Edn::Vector(items) | Edn::List(items) | Edn::Set(items)) => {
                Ok(SetOutput::read(items.iter().map(Value::from)))
            }
            (SetOp::Read, other) => Err(format!(
                "expected a set :read's :value like #{{1 2}} or [1 2], found {}",
                other.brief()
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

            fn input(&self, f: &str, value: &Edn) -> Result<QueueOp<Value>, String> {
                match f {
                    "enqueue" => Ok(QueueOp::Enqueue(Value::from(value))),
                    "dequeue" => Ok(QueueOp::Dequeue),
                    _ => unknown::<_, Self>(f),
                }
            }

            fn output(&self, input: &QueueOp<Value>, value: &Edn) -> Result<QueueOutput<Value>, String> {
                Ok(match input {
                    QueueOp::Enqueue(_) => QueueOutput::Enqueued,
                    QueueOp::Dequeue => QueueOutput::Dequeued(Value::from(value)),
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
