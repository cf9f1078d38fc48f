//! JSON files dst reads back (reports, fuzz summaries, cursors, corpus
//! lines, scenarios) are read as strictly as dst writes them: a key twice
//! in one object, or a key no field of the type knows, is refused with its
//! path. serde keeps the last of two equal keys and skips keys it does not
//! know, so an edited or foreign file would otherwise read as something it
//! does not say.

use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::Serialize;
use serde_json::{Map, Number, Value};
use std::fmt;

/// Parses `text` as JSON, refusing an object that names a key twice.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = NoDuplicates.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// [`parse`] for an object whose array under the key `field` may be long:
/// its elements are parsed one at a time (refusing repeated keys, as
/// everywhere) and handed to `each` with their position, never held
/// together; the value returned has an empty array under `field`. An error
/// `each` returns ends the parse; it is handed back as `Err(Ok(error))`,
/// a JSON error as `Err(Err(error))`.
pub fn parse_streaming(
    text: &str,
    field: &str,
    each: &mut dyn FnMut(u64, Value) -> Result<(), String>,
) -> Result<Value, Result<String, serde_json::Error>> {
    stream(serde_json::Deserializer::from_str(text), field, each)
}

/// [`parse_streaming`] of the text `reader` gives, never held whole.
pub fn parse_streaming_from(
    reader: impl std::io::Read,
    field: &str,
    each: &mut dyn FnMut(u64, Value) -> Result<(), String>,
) -> Result<Value, Result<String, serde_json::Error>> {
    stream(serde_json::Deserializer::from_reader(reader), field, each)
}

fn stream<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    field: &str,
    each: &mut dyn FnMut(u64, Value) -> Result<(), String>,
) -> Result<Value, Result<String, serde_json::Error>> {
    let mut stopped = None;
    let top = Streaming {
        field,
        array: false,
        each,
        stopped: &mut stopped,
    };
    let parsed = top.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match (parsed, stopped) {
        (_, Some(e)) => Err(Ok(e)),
        (Ok(v), None) => Ok(v),
        (Err(e), None) => Err(Err(e)),
    }
}

/// A value of [`parse_streaming`]: the top level, whose `field` is
/// streamed, or (`array`) that field's value, whose elements are.
struct Streaming<'a> {
    field: &'a str,
    array: bool,
    each: &'a mut dyn FnMut(u64, Value) -> Result<(), String>,
    stopped: &'a mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Streaming<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Streaming<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        NoDuplicates.visit_bool(b)
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Value, E> {
        NoDuplicates.visit_i64(n)
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Value, E> {
        NoDuplicates.visit_u64(n)
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Value, E> {
        NoDuplicates.visit_f64(n)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        NoDuplicates.visit_str(s)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        NoDuplicates.visit_unit()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if !self.array {
            return NoDuplicates.visit_seq(seq);
        }
        let mut n = 0;
        while let Some(v) = seq.next_element_seed(NoDuplicates)? {
            if let Err(e) = (self.each)(n, v) {
                *self.stopped = Some(e);
                return Err(A::Error::custom("stopped"));
            }
            n += 1;
        }
        Ok(Value::Array(Vec::new()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.array {
            return NoDuplicates.visit_map(map);
        }
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            once(&out, &k)?;
            let v = if k == self.field {
                map.next_value_seed(Streaming {
                    field: self.field,
                    array: true,
                    each: &mut *self.each,
                    stopped: &mut *self.stopped,
                })?
            } else {
                map.next_value_seed(NoDuplicates)?
            };
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// Reads `text` as a `T`: [`parse`], then the type, then [`unknown_key`].
/// The error is serde's, or names the key.
pub fn from_str<T: DeserializeOwned + Serialize>(text: &str) -> Result<T, String> {
    from_value(&parse(text).map_err(|e| e.to_string())?)
}

/// [`from_str`] of a value already parsed with [`parse`].
pub fn from_value<T: DeserializeOwned + Serialize>(v: &Value) -> Result<T, String> {
    let typed = T::deserialize(v).map_err(|e| e.to_string())?;
    match unknown_key::<T>(v, &typed) {
        Some(path) => Err(format!("unknown field {path}")),
        None => Ok(typed),
    }
}

/// Probes past this many keys that the typed value does not write back
/// are not tried: a file with that many is not one dst wrote.
const PROBES_MAX: usize = 64;

/// The path of the first key of `input` that `T` does not know, if any.
///
/// A key missing from `typed` written back is either unknown or a field
/// left at its default (which dst does not write). To tell them apart
/// without knowing `T`'s fields, the key's value is replaced by a boolean
/// and then by a string: a field of any type refuses one of the two, an
/// unknown key is skipped both times. A null is taken for an absent
/// optional field, whatever the key.
pub fn unknown_key<T: DeserializeOwned + Serialize>(input: &Value, typed: &T) -> Option<String> {
    let back = serde_json::to_value(typed).ok()?;
    let mut missing = Vec::new();
    absent(input, &back, &mut Vec::new(), &mut missing);
    for (n, path) in missing.iter().enumerate() {
        if n == PROBES_MAX {
            return Some(format!(
                "{} (and {} more keys dst does not write)",
                show(path),
                missing.len() - n
            ));
        }
        let takes = |probe: Value| {
            let mut v = input.clone();
            *at(&mut v, path) = probe;
            T::deserialize(&v).is_ok()
        };
        if takes(Value::Bool(true)) && takes(Value::String("\u{1}".into())) {
            return Some(show(path));
        }
    }
    None
}

#[derive(Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Paths of non-null keys in `input` that `back` lacks.
fn absent(input: &Value, back: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match (input, back) {
        (Value::Object(i), Value::Object(b)) => {
            for (k, v) in i {
                path.push(Seg::Key(k.clone()));
                match b.get(k) {
                    Some(bv) => absent(v, bv, path, out),
                    None if !v.is_null() => out.push(path.clone()),
                    None => {}
                }
                path.pop();
            }
        }
        (Value::Array(i), Value::Array(b)) => {
            for (n, (v, bv)) in i.iter().zip(b).enumerate() {
                path.push(Seg::Index(n));
                absent(v, bv, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(n) => &mut v[*n],
    })
}

fn show(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(&format!("{k:?}")),
            Seg::Key(k) => s.push_str(&format!(".{k:?}")),
            Seg::Index(n) => s.push_str(&format!("[{n}]")),
        }
    }
    crate::one_line::one_line(&s)
}

/// Checks that no object of `text` names a key twice, at any depth,
/// building nothing: for a file read straight into a type that refuses
/// keys it does not know (`deny_unknown_fields` at every level), where
/// [`parse`]'s value of the whole file would take many times its text.
pub fn check_keys(text: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    KeysOnce.deserialize(&mut de)?;
    de.end()
}

/// Visits a value for [`check_keys`], holding only the keys of the objects
/// it is inside.
struct KeysOnce;

impl<'de> DeserializeSeed<'de> for KeysOnce {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeysOnce {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(KeysOnce)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::BTreeSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if seen.contains(&k) {
                return Err(A::Error::custom(format!(
                    "duplicate key {}",
                    crate::one_line::one_line(&format!("{k:?}"))
                )));
            }
            map.next_value_seed(KeysOnce)?;
            seen.insert(k);
        }
        Ok(())
    }
}

/// Refuses `k` if `out` has it already.
fn once<E: serde::de::Error>(out: &Map<String, Value>, k: &str) -> Result<(), E> {
    match out.contains_key(k) {
        true => Err(E::custom(format!(
            "duplicate key {}",
            crate::one_line::one_line(&format!("{k:?}"))
        ))),
        false => Ok(()),
    }
}

/// Builds a [`Value`] as serde_json does, but refuses a repeated key.
struct NoDuplicates;

impl<'de> DeserializeSeed<'de> for NoDuplicates {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NoDuplicates {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Value, E> {
        Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(NoDuplicates)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            once(&out, &k)?;
            let v = map.next_value_seed(NoDuplicates)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Outer {
        a: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<u64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        c: Vec<Inner>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        d: bool,
        #[serde(default)]
        free: Value,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inner {
        x: String,
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert!(parse(r#"{"a": 1, "b": {"x": [1, {"y": 2}]}}"#).is_ok());
        let e = parse(r#"{"a": 1, "b": {"x": [1, {"y": 2, "y": 3}]}}"#).unwrap_err();
        assert!(e.to_string().contains("duplicate key \"y\""), "{e}");
        assert!(parse(r#"{"a": 1, "a": 1}"#).is_err());
        assert!(parse(r#"{"a": 1} x"#).is_err());
    }

    #[test]
    fn keys_are_checked_without_a_value_as_parse_checks_them() {
        for text in [
            r#"{"a": 1, "b": {"x": [1, {"y": 2}]}}"#,
            r#"[{"a": 1}, {"a": 2}]"#,
            r#"{"a": {"a": {"a": 1}}}"#,
            r#"{"a": 1, "b": {"x": [1, {"y": 2, "y": 3}]}}"#,
            r#"{"a": 1, "a": 1}"#,
            r#"{"a": 1} x"#,
            r#"{"a": [1, {"b": 2, "c": 3, "b": 4}]}"#,
            r#"{"a": "#,
        ] {
            let (a, b) = (check_keys(text), parse(text));
            assert_eq!(a.is_ok(), b.is_ok(), "{text}");
            if let (Err(a), Err(b)) = (a, b) {
                assert_eq!(a.to_string(), b.to_string(), "{text}");
            }
        }
    }

    #[test]
    fn a_streamed_array_is_handed_out_an_element_at_a_time_as_strictly() {
        let mut seen = Vec::new();
        let v = parse_streaming(
            r#"{"a": [9], "t": [{"x": 1}, 2, [3]], "b": {"t": [4]}}"#,
            "t",
            &mut |n, e| {
                seen.push((n, e));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(v, serde_json::json!({"a": [9], "t": [], "b": {"t": [4]}}));
        assert_eq!(
            seen,
            vec![
                (0, serde_json::json!({"x": 1})),
                (1, 2.into()),
                (2, serde_json::json!([3]))
            ]
        );
        let mut none = |_, _| Ok(());
        let err = |text: &str, each: &mut dyn FnMut(u64, Value) -> Result<(), String>| {
            parse_streaming(text, "t", each).map(|_| ()).unwrap_err()
        };
        assert!(
            matches!(err(r#"{"t": [{"x": 1, "x": 2}]}"#, &mut none), Err(e) if e.to_string().contains("duplicate key"))
        );
        assert!(matches!(err(r#"{"t": [], "t": []}"#, &mut none), Err(e) if e.to_string().contains("duplicate key")));
        assert!(matches!(err(r#"{"t": [1, 2"#, &mut none), Err(e) if e.is_eof()));
        let mut stop = |n, _| if n == 1 { Err("no".to_string()) } else { Ok(()) };
        assert!(matches!(err(r#"{"t": [1, 2, 3]}"#, &mut stop), Ok(e) if e == "no"));
        // Anything but an array under the key is parsed as it is, for the type to refuse.
        assert_eq!(
            parse_streaming(r#"{"t": 5}"#, "t", &mut none).unwrap(),
            serde_json::json!({"t": 5})
        );
    }

    #[test]
    fn unknown_keys_are_named_and_defaults_written_out_are_not() {
        let ok = |t: &str| from_str::<Outer>(t).unwrap();
        ok(r#"{"a": 1}"#);
        ok(r#"{"a": 1, "b": null, "c": [], "d": false, "free": {"anything": 1}}"#);
        ok(r#"{"a": 1, "zzz": null}"#);
        let err = |t: &str| from_str::<Outer>(t).unwrap_err();
        assert_eq!(err(r#"{"a": 1, "zzz": 1}"#), "unknown field \"zzz\"");
        assert_eq!(err(r#"{"a": 1, "zzz": true}"#), "unknown field \"zzz\"");
        assert_eq!(
            err(r#"{"a": 1, "c": [{"x": "q"}, {"x": "r", "y\n": []}]}"#),
            "unknown field \"c\"[1].\"y\\n\""
        );
    }
}
