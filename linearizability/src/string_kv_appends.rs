//! A string key-value key with appends, read the way its histories are
//! written: every put and append value unique and non-empty (porcupine's
//! and Jepsen's kv tests append "x 6 0 y"). A value a get returned then
//! splits one way only into the put it began with (if any) and the appends
//! after it, so it names each append's place: the value before it is what
//! the append found. Each state is named by the op that set it (the put,
//! or the append it ends with), so that the decision compares short names
//! rather than whole strings, and a key of thousands of appends costs no
//! more than its reads' length.

use super::history::Op;
use super::memo::WordHasher;
use super::model::Access;
use super::string_kv::{StrKvOp, StrKvOutput};
use std::collections::BTreeSet;
use std::hash::BuildHasherDefault;

// Looked up, never walked: a fixed hasher all the same.
type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<WordHasher>>;
type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// What a state is named by: the op that set it, or the initial state.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Setter<'a> {
    Init,
    Put(&'a str),
    Append(&'a str),
}

impl Setter<'_> {
    /// A name no value can make by accident; the initial state is "", as
    /// [`super::StringKv`]'s is.
    fn name(self) -> String {
        match self {
            Setter::Init => String::new(),
            Setter::Put(v) => format!("p{v}"),
            Setter::Append(v) => format!("a{v}"),
        }
    }
}

/// The accesses of one key's ops (see [`super::Model::accesses`]), states
/// named by their setters; `None` where a value repeats, is empty, or a
/// read splits more than one way: then the key is searched.
pub(super) fn accesses(ops: &[&Op<StrKvOp, StrKvOutput>]) -> Option<Vec<Access<String>>> {
    let mut puts: HashSet<&str> = HashSet::default();
    let mut appends: HashSet<&str> = HashSet::default();
    for o in ops {
        let fresh = match &o.input {
            StrKvOp::Put(_, v) => !v.is_empty() && !appends.contains(v.as_str()) && puts.insert(v),
            StrKvOp::Append(_, v) => !v.is_empty() && !puts.contains(v.as_str()) && appends.insert(v),
            StrKvOp::Get(_) => true,
        };
        if !fresh {
            return None;
        }
    }
    // Past the memory cap the key is left to the search, which says so.
    if crate::mem::over_cap() {
        return None;
    }
    let values = Values::new(&puts, &appends);
    // Each append -> the setter of the state it found, from the first read
    // that shows it; a read that shows it after anything else saw a state
    // no order makes, and is named so that nothing wrote it.
    let mut found: HashMap<&str, Setter> = HashMap::default();
    fn known(o: &Op<StrKvOp, StrKvOutput>) -> Option<&StrKvOutput> {
        o.output.as_ref().filter(|_| o.is_completed())
    }
    let mut read_names: Vec<Option<String>> = vec![None; ops.len()];
    for (i, o) in ops.iter().enumerate() {
        if i % 4096 == 0 && crate::mem::over_cap() {
            return None;
        }
        let (StrKvOp::Get(_), Some(StrKvOutput::Value(s))) = (&o.input, known(o)) else {
            continue;
        };
        let name = match values.split(s)? {
            Some(tokens) => {
                let mut before = Setter::Init;
                let mut consistent = true;
                for t in &tokens {
                    if let Setter::Append(a) = *t {
                        consistent &= *found.entry(a).or_insert(before) == before;
                    }
                    before = *t;
                }
                if consistent {
                    before.name()
                } else {
                    format!("!{i}")
                }
            }
            None => format!("!{i}"),
        };
        read_names[i] = Some(name);
    }
    ops.iter()
        .enumerate()
        .map(|(i, o)| match (&o.input, known(o)) {
            (StrKvOp::Get(_), None) => Some(Access::Nothing),
            (StrKvOp::Get(_), Some(StrKvOutput::Value(_))) => read_names[i].take().map(Access::Read),
            (StrKvOp::Put(_, v), None | Some(StrKvOutput::Done)) => Some(Access::Write(Setter::Put(v).name())),
            (StrKvOp::Append(_, v), None | Some(StrKvOutput::Done)) => Some(match found.get(v.as_str()) {
                Some(before) => Access::Update {
                    from: before.name(),
                    to: Setter::Append(v).name(),
                },
                // Seen by no read: it acts as a write of a state nobody
                // read (what came after it, if anything, was a put).
                None => Access::Write(Setter::Append(v).name()),
            }),
            _ => None,
        })
        .collect()
}

/// The values written, by length, to split a read into.
struct Values<'a> {
    puts: &'a HashSet<&'a str>,
    appends: &'a HashSet<&'a str>,
    put_lengths: Vec<usize>,
    append_lengths: Vec<usize>,
    /// The appended values' (length, first byte, last byte), as bits: a
    /// stretch of a read that no value could be is passed over without a
    /// probe of `appends`, whose lookups miss the cache on big keys.
    shapes: Vec<u64>,
}

/// The bit of a value's shape in [`Values::shapes`].
fn shape(v: &[u8]) -> usize {
    let (first, last) = (v.first().copied().unwrap_or(0), v.last().copied().unwrap_or(0));
    ((v.len() & 63) << 16) | (usize::from(first) << 8) | usize::from(last)
}

impl<'a> Values<'a> {
    fn new(puts: &'a HashSet<&'a str>, appends: &'a HashSet<&'a str>) -> Values<'a> {
        // Sorted, so that the lengths are tried in one order on every run.
        let lengths = |set: &HashSet<&str>| {
            let l: BTreeSet<usize> = set.iter().map(|v| v.len()).collect();
            l.into_iter().collect()
        };
        let mut shapes = vec![0u64; (64 << 16) / 64];
        for v in appends {
            let b = shape(v.as_bytes());
            shapes[b / 64] |= 1 << (b % 64);
        }
        Values {
            puts,
            appends,
            put_lengths: lengths(puts),
            append_lengths: lengths(appends),
            shapes,
        }
    }

    /// Whether some appended value has the shape of `t`.
    fn may_be_appended(&self, t: &[u8]) -> bool {
        let b = shape(t);
        self.shapes[b / 64] & (1 << (b % 64)) != 0
    }

    /// `s` as the put it begins with (if any) and the appends after it:
    /// `Some(Some(..))` if it splits exactly one way, `Some(None)` if no
    /// way at all or only by appending a value twice (a state no order
    /// makes), `None` if more than one way (the caller falls back).
    fn split(&self, s: &'a str) -> Option<Option<Vec<Setter<'a>>>> {
        let n = s.len();
        // ways[i]: how many ways s[i..] splits into appends (0, 1, or 2
        // for more), and the length of the first append of the one way.
        let mut ways = vec![(0u8, 0usize); n + 1];
        ways[n] = (1, 0);
        for i in (0..n).rev() {
            for &l in self.append_lengths.iter().filter(|&&l| i + l <= n) {
                let (w, _) = ways[i + l];
                if w > 0
                    && self.may_be_appended(&s.as_bytes()[i..i + l])
                    && s.get(i..i + l).is_some_and(|t| self.appends.contains(t))
                {
                    ways[i] = (ways[i].0.saturating_add(w).min(2), l);
                }
            }
        }
        // The put it may begin with, or none (appends from the start).
        let mut starts: Vec<(Setter<'a>, usize)> = Vec::new();
        if ways[0].0 > 0 {
            starts.push((Setter::Init, 0));
        }
        for &l in self.put_lengths.iter().filter(|&&l| l <= n) {
            if let Some(p) = s.get(..l).filter(|p| self.puts.contains(p)) {
                if ways[l].0 > 0 {
                    starts.push((Setter::Put(p), l));
                }
            }
        }
        let total: u32 = starts.iter().map(|&(_, at)| u32::from(ways[at].0)).sum();
        match (total, starts.first()) {
            (0, _) | (_, None) => Some(None),
            (1, Some(&(first, mut at))) => {
                let mut tokens = vec![first];
                if first == Setter::Init {
                    tokens.clear();
                }
                let mut seen = BTreeSet::new();
                while at < n {
                    let l = ways[at].1;
                    let t = &s[at..at + l];
                    if !seen.insert(t) {
                        return Some(None);
                    }
                    tokens.push(Setter::Append(t));
                    at += l;
                }
                Some(Some(tokens))
            }
            _ => None,
        }
    }
}
