//! Hostile inputs made from valid samples the ways files get broken: cut
//! short, bytes flipped, lines lost, repeated or swapped, numbers out of any
//! range, nesting without end, bytes that are not UTF-8; and plain noise.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed};
use serde_json::Value as Json;

/// `cases` cases from a fixed seed, nothing persisted: the same inputs on
/// every run and no file left in the tree.
pub fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0xd57),
        max_shrink_iters: 4_096,
        ..Config::default()
    }
}

/// Text a parser may choke on, spliced in anywhere.
const TOKENS: &[&[u8]] = &[
    b"18446744073709551616",
    b"-9223372036854775809",
    b"99999999999999999999999999999",
    b"-1",
    b"1e309",
    b"-0.0",
    b"NaN",
    b"null",
    b"nil",
    b"\"\"",
    b"\"\\u0000\"",
    b"\"\\ud800\"",
    b"\"a\\nb\"",
    b"[",
    b"]",
    b"{",
    b"}",
    b"\"",
    b"\\",
    b":",
    b",",
    b"#",
    b"\n",
    b"\r",
    b"\t",
    b"\x0b",
    b"\0",
    b"\xe2\x80\xa8",
    b"\xff",
    b"\xc3",
    b"\xf0\x9f\xa6\x80",
    b":invoke",
    b":ok",
    b":nemesis",
    b"\"kind\":\"invoke\"",
];

#[derive(Clone, Debug)]
pub enum Edit {
    Cut(Index),
    Flip(Index, u8),
    Noise(Index, Vec<u8>),
    Token(Index, Index),
    DropLine(Index),
    DupLine(Index),
    SwapLines(Index, Index),
    /// The digits around a position become a hostile number.
    Number(Index, Index),
    Nest(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<Index>().prop_map(Edit::Cut),
        (any::<Index>(), 1u8..).prop_map(|(i, m)| Edit::Flip(i, m)),
        (any::<Index>(), prop::collection::vec(any::<u8>(), 1..12)).prop_map(|(i, b)| Edit::Noise(i, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Edit::Token(i, t)),
        any::<Index>().prop_map(Edit::DropLine),
        any::<Index>().prop_map(Edit::DupLine),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Edit::Number(i, t)),
        (1usize..5_000, prop::sample::select(b"[{(".to_vec())).prop_map(|(n, b)| Edit::Nest(n, b)),
    ]
}

fn at(i: &Index, len: usize) -> usize {
    i.index(len + 1)
}

/// Line ranges including their line feeds.
fn lines(b: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push(start..b.len());
    }
    out
}

pub fn apply(mut b: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let ls = lines(&b);
        match e {
            Edit::Cut(i) => b.truncate(at(i, b.len())),
            Edit::Flip(i, m) if !b.is_empty() => {
                let p = i.index(b.len());
                b[p] ^= m;
            }
            Edit::Noise(i, noise) => {
                let p = at(i, b.len());
                b.splice(p..p, noise.iter().copied());
            }
            Edit::Token(i, t) => {
                let p = at(i, b.len());
                b.splice(p..p, t.get(TOKENS).iter().copied());
            }
            Edit::DropLine(i) if !ls.is_empty() => {
                b.drain(i.get(&ls).clone());
            }
            Edit::DupLine(i) if !ls.is_empty() => {
                let r = i.get(&ls).clone();
                let copy = b[r.clone()].to_vec();
                b.splice(r.start..r.start, copy);
            }
            Edit::SwapLines(x, y) if !ls.is_empty() => {
                let mut parts: Vec<Vec<u8>> = ls.iter().map(|r| b[r.clone()].to_vec()).collect();
                parts.swap(x.index(ls.len()), y.index(ls.len()));
                b = parts.concat();
            }
            Edit::Number(i, t) if !b.is_empty() => {
                let p = i.index(b.len());
                let (mut s, mut e) = (p, p);
                while s > 0 && b[s - 1].is_ascii_digit() {
                    s -= 1;
                }
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                b.splice(s..e, t.get(&TOKENS[..6]).iter().copied());
            }
            Edit::Nest(n, open) => {
                let close = match open {
                    b'[' => b']',
                    b'{' => b'}',
                    _ => b')',
                };
                let mut nested = vec![*open; *n];
                nested.append(&mut b);
                nested.extend(std::iter::repeat_n(close, *n / 2));
                b = nested;
            }
            _ => {}
        }
    }
    b
}

/// One of `samples` with a few edits, now and then noise or nothing.
pub fn hostile(samples: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        12 => (prop::sample::select(samples), prop::collection::vec(edit(), 1..5))
            .prop_map(|(s, e)| apply(s, &e)),
        1 => prop::collection::vec(any::<u8>(), 0..300),
        1 => Just(Vec::new()),
    ]
}

/// A JSON value where a field (or element) used to be: of the wrong type,
/// out of range, absurd, or nested past any limit.
fn json_value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::from),
        any::<i64>().prop_map(Json::from),
        Just(Json::from(u64::MAX)),
        prop::sample::select(vec![
            u64::from(u32::MAX),
            u64::from(u32::MAX / 2 + 1),
            u64::from(u16::MAX) + 1,
            1 << 53
        ])
        .prop_map(Json::from),
        Just(Json::from(-1)),
        Just(Json::from(0)),
        Just(Json::from(1e300)),
        Just(Json::from(0.5)),
        any::<String>().prop_map(Json::from),
        Just(Json::from("a\nb\rc\u{2028}")),
        Just(Json::from("")),
    ];
    let nested = leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::from),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4).prop_map(|m| Json::Object(m.into_iter().collect())),
        ]
    });
    prop_oneof![
        8 => nested,
        1 => (1usize..400).prop_map(|n| (0..n).fold(Json::Null, |v, _| Json::Array(vec![v]))),
    ]
}

#[derive(Clone, Debug)]
pub enum JsonEdit {
    Replace(Vec<Index>, Json),
    Remove(Vec<Index>),
    /// A field no reader knows, beside the one reached.
    Unknown(Vec<Index>, Json),
    /// Every field of the object reached takes the same value, so values
    /// that are each fine alone can add up.
    Every(Vec<Index>, Json),
    /// One of the numbers anywhere in the document goes to a limit.
    Limit(Index, Json),
}

/// The edges of the integer types a reader might use, and past them.
fn limit() -> impl Strategy<Value = Json> {
    prop::sample::select(vec![
        Json::from(0),
        Json::from(-1),
        Json::from(u32::MAX),
        Json::from(u32::MAX / 2 + 1),
        Json::from(i64::MAX),
        Json::from(u64::MAX),
        Json::from(1e300),
        Json::from(0.5),
    ])
}

fn count_numbers(v: &Json) -> usize {
    match v {
        Json::Number(_) => 1,
        Json::Array(a) => a.iter().map(count_numbers).sum(),
        Json::Object(m) => m.values().map(count_numbers).sum(),
        _ => 0,
    }
}

/// The `n`th number in document order, counting down `n` as it goes.
fn nth_number<'a>(v: &'a mut Json, n: &mut usize) -> Option<&'a mut Json> {
    if v.is_number() {
        if *n == 0 {
            return Some(v);
        }
        *n -= 1;
        return None;
    }
    children(v).into_iter().find_map(|c| nth_number(c, n))
}

pub fn json_edit() -> impl Strategy<Value = JsonEdit> {
    let path = || prop::collection::vec(any::<Index>(), 0..5);
    prop_oneof![
        4 => (path(), json_value()).prop_map(|(p, v)| JsonEdit::Replace(p, v)),
        2 => path().prop_map(JsonEdit::Remove),
        1 => (path(), json_value()).prop_map(|(p, v)| JsonEdit::Unknown(p, v)),
        1 => (path(), json_value()).prop_map(|(p, v)| JsonEdit::Every(p, v)),
        3 => (any::<Index>(), limit()).prop_map(|(i, v)| JsonEdit::Limit(i, v)),
    ]
}

fn children(v: &mut Json) -> Vec<&mut Json> {
    match v {
        Json::Object(m) => m.values_mut().collect(),
        Json::Array(a) => a.iter_mut().collect(),
        _ => Vec::new(),
    }
}

fn is_container(v: &Json) -> bool {
    matches!(v, Json::Object(m) if !m.is_empty()) || matches!(v, Json::Array(a) if !a.is_empty())
}

/// The object or array `path` leads to: each step picks a field or element
/// of what it reached; the path ends early where that would be a leaf.
fn walk<'a>(v: &'a mut Json, path: &[Index]) -> &'a mut Json {
    let Some((step, rest)) = path.split_first() else {
        return v;
    };
    let k = match children(v) {
        c if c.is_empty() => return v,
        c => step.index(c.len()),
    };
    if !is_container(children(v)[k]) {
        return v;
    }
    let child = children(v).swap_remove(k);
    walk(child, rest)
}

pub fn apply_json(v: &mut Json, edits: &[JsonEdit]) {
    for e in edits {
        match e {
            JsonEdit::Replace(p, new) => {
                let (parent, last) = p.split_at(p.len().saturating_sub(1));
                let target = walk(v, parent);
                match (target, last.first()) {
                    (Json::Object(m), Some(i)) if !m.is_empty() => {
                        let k = i.index(m.len());
                        *m.values_mut().nth(k).expect("k < len") = new.clone();
                    }
                    (Json::Array(a), Some(i)) if !a.is_empty() => {
                        let k = i.index(a.len());
                        a[k] = new.clone();
                    }
                    (t, _) => *t = new.clone(),
                }
            }
            JsonEdit::Remove(p) => {
                let (parent, last) = p.split_at(p.len().saturating_sub(1));
                match (walk(v, parent), last.first()) {
                    (Json::Object(m), Some(i)) if !m.is_empty() => {
                        let k = m.keys().nth(i.index(m.len())).expect("k < len").clone();
                        m.remove(&k);
                    }
                    (Json::Array(a), Some(i)) if !a.is_empty() => {
                        a.remove(i.index(a.len()));
                    }
                    _ => {}
                }
            }
            JsonEdit::Unknown(p, new) => {
                if let Json::Object(m) = walk(v, p) {
                    m.insert("no_such_field".into(), new.clone());
                }
            }
            JsonEdit::Limit(i, new) => {
                let count = count_numbers(v);
                if count > 0 {
                    let mut n = i.index(count);
                    *nth_number(v, &mut n).expect("n < count") = new.clone();
                }
            }
            JsonEdit::Every(p, new) => {
                if let Json::Object(m) = walk(v, p) {
                    m.values_mut().for_each(|x| *x = new.clone());
                }
            }
        }
    }
}
