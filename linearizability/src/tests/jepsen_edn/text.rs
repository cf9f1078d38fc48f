//! A generated history as the text Jepsen writes: op maps with keys
//! shuffled and extras added, some as records, nemesis ops between them,
//! one a line or in one vector, on many lines or on one.

use super::subjects::{In, Out, Subject};
use super::{End, GenOp};
use crate::jepsen_ops::JepsenOps;
use crate::parse_jepsen_edn::Value;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How a history's integers are written.
pub(super) struct Style {
    /// Some with Clojure's `N` (a BigInt equal to the long).
    big: bool,
}

impl Style {
    pub(super) fn draw(rng: &mut ChaCha8Rng) -> Style {
        Style { big: rng.gen_bool(0.3) }
    }

    fn value(&self, rng: &mut ChaCha8Rng, v: &Value) -> String {
        match v {
            Value::Int(i) if self.big && rng.gen_bool(0.5) => format!("{i}N"),
            v => v.to_string(),
        }
    }
}

/// One op event as Jepsen prints it, keys shuffled, extras added.
fn op_map<S: Subject>(
    rng: &mut ChaCha8Rng,
    style: &Style,
    subject: &S,
    op: &GenOp<In<S>, Out<S>>,
    completes: bool,
    index: usize,
) -> String {
    let (kind, answer) = match (completes, &op.end) {
        (false, _) => ("invoke", None),
        (true, End::Ok(out)) => ("ok", Some(out)),
        (true, End::Fail) => ("fail", None),
        (true, End::Info) => ("info", None),
    };
    let f = subject.model().f(&op.input);
    let form = rng.gen_range(0..4);
    let value = subject.value(&op.input, answer, form, &mut |v| style.value(rng, v));
    let mut entries = vec![
        format!(":process {}", op.process),
        format!(":type :{kind}"),
        format!(":f :{f}"),
        format!(":value {value}"),
    ];
    if rng.gen_bool(0.5) {
        entries.push(format!(":time {}", index * 1_000));
        entries.push(format!(":index {index}"));
    }
    if kind == "info" || kind == "fail" {
        entries.push(":error [:timeout \"no answer, \\\"sorry\\\"\"]".into());
    }
    entries.shuffle(rng);
    let sep = if rng.gen_bool(0.5) { ", " } else { " " };
    let map = format!("{{{}}}", entries.join(sep));
    if rng.gen_bool(0.3) {
        format!("#jepsen.history.Op{map}")
    } else {
        map
    }
}

pub(super) fn history<S: Subject>(
    rng: &mut ChaCha8Rng,
    style: &Style,
    subject: &S,
    ops: &[GenOp<In<S>, Out<S>>],
    events: &[(usize, bool)],
) -> String {
    let mut maps = Vec::new();
    for (i, &(k, completes)) in events.iter().enumerate() {
        if rng.gen_bool(0.1) {
            maps.push("{:process :nemesis, :type :info, :f :start, :value [:isolated {\"n1\" #{\"n2\"}}]}".into());
        }
        maps.push(op_map(rng, style, subject, &ops[k], completes, i));
    }
    match rng.gen_range(0..3) {
        0 => maps.join("\n") + "\n",
        1 => format!("[{}]\n", maps.join("\n ")),
        // One line: positions become op indexes.
        _ => format!("[{}]", maps.join(" ")),
    }
}
