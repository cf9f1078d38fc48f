//! Which of Knossos' models a Jepsen history is checked against: the one
//! asked for, which must have every op the history holds, or else the one
//! its ops imply.

use super::history::ParseError;
use super::jepsen_ops::{both, either, JepsenOps};
use super::mutex::Mutex;
use super::parse_jepsen_edn::Value;
use super::queue::{FifoQueue, UnorderedQueue};
use super::register::Register;
use super::set::Set;
use std::collections::BTreeMap;

/// What to do with a model once its type is known: [`JepsenModel::apply`]
/// calls it with the model chosen at run time.
pub trait ModelUser {
    /// What [`ModelUser::with`] returns.
    type Output;
    /// Does its work with `model`, of the type chosen at run time.
    fn with<M: JepsenOps>(self, model: &M) -> Self::Output;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// The models Knossos checks Jepsen histories against, chosen by name or
/// by the `:f`s a history holds.
pub enum JepsenModel {
    /// A register of `:read` and `:write`.
    Register,
    /// A register with `:cas` as well.
    CasRegister,
    /// One lock: `:acquire`, `:release`.
    Mutex,
    /// A set: `:add`, `:read` of all of it.
    Set,
    /// A queue that dequeues in the order enqueued.
    FifoQueue,
    /// A queue that dequeues any element it holds.
    UnorderedQueue,
}

impl JepsenModel {
    /// In the order a history's ops pick one: the first that has them all.
    pub const ALL: [JepsenModel; 6] = [
        JepsenModel::Register,
        JepsenModel::CasRegister,
        JepsenModel::Mutex,
        JepsenModel::Set,
        JepsenModel::FifoQueue,
        JepsenModel::UnorderedQueue,
    ];

    /// As `--model` and Knossos name it.
    pub fn name(self) -> &'static str {
        match self {
            JepsenModel::Register => "register",
            JepsenModel::CasRegister => "cas-register",
            JepsenModel::Mutex => "mutex",
            JepsenModel::Set => "set",
            JepsenModel::FifoQueue => "fifo-queue",
            JepsenModel::UnorderedQueue => "unordered-queue",
        }
    }

    /// Its ops' `:f`s.
    pub fn fs(self) -> &'static [&'static str] {
        match self {
            // The register without :cas.
            JepsenModel::Register => &Register::<Value>::FS[..2],
            JepsenModel::CasRegister => Register::<Value>::FS,
            JepsenModel::Mutex => Mutex::FS,
            JepsenModel::Set => Set::<Value>::FS,
            JepsenModel::FifoQueue => FifoQueue::<Value>::FS,
            JepsenModel::UnorderedQueue => UnorderedQueue::<Value>::FS,
        }
    }

    /// Hand `user` this model; a register starts holding `initial`.
    pub fn apply<U: ModelUser>(self, initial: Value, user: U) -> U::Output {
        match self {
            JepsenModel::Register | JepsenModel::CasRegister => user.with(&super::parse_jepsen_edn::register(initial)),
            JepsenModel::Mutex => user.with(&Mutex),
            JepsenModel::Set => user.with(&Set::<Value>::new()),
            JepsenModel::FifoQueue => user.with(&FifoQueue::<Value>::new()),
            JepsenModel::UnorderedQueue => user.with(&UnorderedQueue::<Value>::new()),
        }
    }

    /// Whether it is one of the two registers.
    pub fn is_register(self) -> bool {
        matches!(self, JepsenModel::Register | JepsenModel::CasRegister)
    }

    /// The model `asked` for, or the one the ops imply; `fs` is each `:f`
    /// of the history with the first line it is on. An op the model does
    /// not have, or ops that imply no one model, are an error at the line
    /// of the first op that does not fit.
    pub fn choose(asked: Option<JepsenModel>, fs: &BTreeMap<String, usize>) -> Result<JepsenModel, ParseError> {
        let mut by_line: Vec<(usize, &str)> = fs.iter().map(|(f, &line)| (line, f.as_str())).collect();
        by_line.sort();
        if let Some(model) = asked {
            return match by_line.iter().find(|(_, f)| !model.fs().contains(f)) {
                None => Ok(model),
                Some(&(line, f)) => Err(ParseError::at(line, model.refusal(f))),
            };
        }
        let fits = |m: &JepsenModel| by_line.iter().all(|(_, f)| m.fs().contains(f));
        match JepsenModel::ALL.iter().copied().find(fits) {
            Some(JepsenModel::FifoQueue) if fits(&JepsenModel::UnorderedQueue) => Err(ParseError::at(
                by_line.first().map_or(1, |(line, _)| *line),
                "queue ops: --model fifo-queue or --model unordered-queue says which queue they are checked against",
            )),
            Some(model) => Ok(model),
            None => Err(no_model(&by_line)),
        }
    }

    fn refusal(self, f: &str) -> String {
        let has = JepsenModel::ALL.iter().find(|m| m.fs().contains(&f));
        let hint = has.map_or(String::new(), |m| format!(" (--model {} has :{f})", m.name()));
        format!(
            "{} :{f} op, but the {} model has only {}{hint}",
            article(f),
            self.name(),
            both(self.fs())
        )
    }
}

/// Why no model fits `by_line` (each `:f` and its first line, in line
/// order): an `:f` no model has, or else the first op that leaves no model
/// with all the ops up to it.
fn no_model(by_line: &[(usize, &str)]) -> ParseError {
    let known = |f: &str| JepsenModel::ALL.iter().any(|m| m.fs().contains(&f));
    if let Some(&(line, f)) = by_line.iter().find(|(_, f)| !known(f)) {
        let mut all: Vec<&str> = JepsenModel::ALL.iter().flat_map(|m| m.fs().iter().copied()).collect();
        let mut seen = std::collections::BTreeSet::new();
        all.retain(|f| seen.insert(*f));
        return ParseError::at(
            line,
            format!("expected :f {} (Knossos' models), found :{f}", either(&all)),
        );
    }
    let has = |m: &JepsenModel, fs: &[&str]| fs.iter().all(|f| m.fs().contains(f));
    for (k, &(line, f)) in by_line.iter().enumerate() {
        let so_far: Vec<&str> = by_line[..=k].iter().map(|(_, g)| *g).collect();
        if !JepsenModel::ALL.iter().any(|m| has(m, &so_far)) {
            let clash = by_line[..k]
                .iter()
                .find(|(_, g)| !JepsenModel::ALL.iter().any(|m| has(m, &[f, g])))
                .unwrap_or(&by_line[0]);
            return ParseError::at(
                line,
                format!(
                    "{} :{f} op, but no model has both it and the :{} of line {}; --model names the one to check",
                    article(f),
                    clash.1,
                    clash.0
                ),
            );
        }
    }
    ParseError::whole("no model fits the history's ops")
}

fn article(f: &str) -> &'static str {
    if f.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(ops: &[(&str, usize)]) -> BTreeMap<String, usize> {
        ops.iter().map(|(f, l)| (f.to_string(), *l)).collect()
    }

    fn chosen(asked: Option<JepsenModel>, ops: &[(&str, usize)]) -> Result<&'static str, String> {
        JepsenModel::choose(asked, &fs(ops))
            .map(JepsenModel::name)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_ops_pick_the_smallest_model_that_has_them() {
        assert_eq!(chosen(None, &[]), Ok("register"));
        assert_eq!(chosen(None, &[("read", 1), ("write", 2)]), Ok("register"));
        assert_eq!(chosen(None, &[("read", 1), ("cas", 4)]), Ok("cas-register"));
        assert_eq!(chosen(None, &[("release", 2), ("acquire", 1)]), Ok("mutex"));
        assert_eq!(chosen(None, &[("read", 1), ("add", 2)]), Ok("set"));
        let queue = [("enqueue", 3), ("dequeue", 5)];
        assert!(chosen(None, &queue)
            .unwrap_err()
            .starts_with("3: queue ops: --model fifo-queue or"));
        assert_eq!(chosen(Some(JepsenModel::UnorderedQueue), &queue), Ok("unordered-queue"));
    }

    #[test]
    fn an_op_that_fits_no_model_is_named_with_its_line() {
        assert_eq!(
            chosen(Some(JepsenModel::Register), &[("read", 1), ("cas", 3)]),
            Err(
                "3: a :cas op, but the register model has only :read and :write (--model cas-register has :cas)".into()
            )
        );
        assert_eq!(
            chosen(Some(JepsenModel::Mutex), &[("txn", 2)]),
            Err("2: a :txn op, but the mutex model has only :acquire and :release".into())
        );
        assert_eq!(
            chosen(None, &[("read", 1), ("txn", 2)]),
            Err("2: expected :f :read, :write, :cas, :acquire, :release, :add, :enqueue or :dequeue (Knossos' models), found :txn".into())
        );
        assert_eq!(
            chosen(None, &[("write", 1), ("read", 2), ("add", 7), ("enqueue", 4)]),
            Err(
                "4: an :enqueue op, but no model has both it and the :write of line 1; --model names the one to check"
                    .into()
            )
        );
        assert_eq!(
            chosen(None, &[("read", 1), ("write", 2), ("add", 3)]).unwrap_err(),
            "3: an :add op, but no model has both it and the :write of line 2; --model names the one to check"
        );
    }
}
