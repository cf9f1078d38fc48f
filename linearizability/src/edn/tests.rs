//! The EDN reader on every piece of syntax Clojure's printer writes, on
//! broken text (errors name their line) and on arbitrary bytes.

use super::{read_one, Edn, EdnError, Reader, DEPTH_MAX};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn one(text: &str) -> Edn {
    read_one(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

fn all(text: &str) -> Vec<(usize, Edn)> {
    let mut r = Reader::new(text);
    let mut out = Vec::new();
    while let Some(v) = r.next_form().unwrap_or_else(|e| panic!("{text:?}: {e:?}")) {
        out.push(v);
    }
    out
}

fn err(text: &str) -> EdnError {
    let mut r = Reader::new(text);
    loop {
        match r.next_form() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("{text:?} read without an error"),
            Err(e) => return e,
        }
    }
}

fn kw(k: &str) -> Edn {
    Edn::Keyword(k.into())
}

fn s(v: &str) -> Edn {
    Edn::Str(v.into())
}

#[test]
fn scalars() {
    assert_eq!(one("nil"), Edn::Nil);
    assert_eq!(one("true"), Edn::Bool(true));
    assert_eq!(one("false"), Edn::Bool(false));
    assert_eq!(one(":ok"), kw("ok"));
    assert_eq!(one(":jepsen.nemesis/x"), kw("jepsen.nemesis/x"));
    assert_eq!(one("foo"), Edn::Symbol("foo".into()));
    assert_eq!(one("clojure.core/inc"), Edn::Symbol("clojure.core/inc".into()));
    assert_eq!(one("-"), Edn::Symbol("-".into()));
    assert_eq!(one("+a"), Edn::Symbol("+a".into()));
    assert_eq!(one("é'"), Edn::Symbol("é'".into()));
}

#[test]
fn numbers() {
    assert_eq!(one("42"), Edn::Int(42));
    assert_eq!(one("-7"), Edn::Int(-7));
    assert_eq!(one("+7"), Edn::Int(7));
    assert_eq!(one("-0"), Edn::Int(0));
    assert_eq!(one("3N"), Edn::Int(3));
    assert_eq!(one("-9223372036854775808"), Edn::Int(i64::MIN));
    assert_eq!(one("9223372036854775808"), Edn::BigInt("9223372036854775808".into()));
    assert_eq!(
        one("-123456789012345678901234567890N"),
        Edn::BigInt("-123456789012345678901234567890".into())
    );
    assert_eq!(one("1.5"), Edn::Float(1.5));
    assert_eq!(one("-2.5e3"), Edn::Float(-2500.0));
    assert_eq!(one("1E-2"), Edn::Float(0.01));
    assert_eq!(one("1e5"), Edn::Float(100000.0));
    assert_eq!(one("3."), Edn::Float(3.0));
    assert_eq!(one("1.50M"), Edn::Decimal("1.50".into()));
    assert_eq!(one("+2M"), Edn::Decimal("2".into()));
    assert_eq!(one("-1.5e10M"), Edn::Decimal("-1.5e10".into()));
    assert_eq!(one("##Inf"), Edn::Float(f64::INFINITY));
    assert_eq!(one("##-Inf"), Edn::Float(f64::NEG_INFINITY));
    assert!(matches!(one("##NaN"), Edn::Float(f) if f.is_nan()));
    assert_eq!(one("1/3"), Edn::Ratio("1/3".into()));
    assert_eq!(one("-2/4"), Edn::Ratio("-1/2".into()));
    assert_eq!(one("4/2"), Edn::Int(2));
    assert_eq!(one("0/5"), Edn::Int(0));
    assert_eq!(one("0x1F"), Edn::Int(31));
    assert_eq!(one("-0X10N"), Edn::Int(-16));
    assert_eq!(one("017"), Edn::Int(15));
    assert_eq!(one("2r101"), Edn::Int(5));
    assert_eq!(one("36rZ"), Edn::Int(35));
    assert_eq!(one("0xFFFFFFFFFFFFFFFF"), Edn::BigInt("18446744073709551615".into()));
    for bad in [
        "1/0", "08", "1.2.3", "1e", "0x", "0xG", "37r1", "0r1", "12abc", "1/x", "##Foo", "1.5N",
    ] {
        assert!(read_one(bad).is_err(), "{bad}");
    }
}

#[test]
fn strings_and_characters() {
    assert_eq!(one(r#""a\"b\\c\nd\te\rf""#), s("a\"b\\c\nd\te\rf"));
    assert_eq!(one(r#""\u00e9\u0041""#), s("éA"));
    assert_eq!(one(r#""\uD83D\uDE00""#), s("😀"));
    assert_eq!(one(r#""\101\0""#), s("A\0"));
    assert_eq!(one("\"two\nlines, é\""), s("two\nlines, é"));
    assert_eq!(one(r#""\b\f""#), s("\u{8}\u{c}"));
    for (text, c) in [
        (r"\a", 'a'),
        (r"\newline", '\n'),
        (r"\space", ' '),
        (r"\tab", '\t'),
        (r"\return", '\r'),
        (r"\backspace", '\u{8}'),
        (r"\formfeed", '\u{c}'),
        (r"\u0041", 'A'),
        (r"\o101", 'A'),
        (r"\(", '('),
        (r"\\", '\\'),
        (r"\é", 'é'),
        (r"\,", ','),
    ] {
        assert_eq!(one(text), Edn::Char(c), "{text}");
    }
    assert_eq!(one(r"[\a \b]"), Edn::Vector(vec![Edn::Char('a'), Edn::Char('b')]));
    for bad in [
        r#""\x""#,
        r#""\u12""#,
        r#""\uDC00""#,
        r#""\uD800x""#,
        r"\foo",
        r"\u12",
        r#""\400""#,
    ] {
        assert!(read_one(bad).is_err(), "{bad}");
    }
}

#[test]
fn collections() {
    let v = one("[1 [2] ()]");
    assert_eq!(
        v,
        Edn::Vector(vec![Edn::Int(1), Edn::Vector(vec![Edn::Int(2)]), Edn::List(vec![])])
    );
    assert_eq!(one("(a 1)"), Edn::List(vec![Edn::Symbol("a".into()), Edn::Int(1)]));
    let m = one("{:a 1, :b [2 3], \"c\" nil}");
    assert_eq!(m.get("a"), Some(&Edn::Int(1)));
    assert_eq!(m.get("b"), Some(&Edn::Vector(vec![Edn::Int(2), Edn::Int(3)])));
    assert_eq!(m.get("c"), None);
    assert_eq!(one("#{1 :a}"), Edn::Set(vec![Edn::Int(1), kw("a")]));
    assert_eq!(one("{}"), Edn::Map(vec![]));
    assert_eq!(one("#{}"), Edn::Set(vec![]));
    assert_eq!(one(",,[,1,,2,],,"), one("[1 2]"));
    assert_eq!(one("#:jepsen{:a 1, :_/b 2, :x/c 3}"), one("{:jepsen/a 1 :b 2 :x/c 3}"));
}

#[test]
fn tags_records_and_objects() {
    let tagged = |t: &str, v: Edn| Edn::Tagged(t.into(), Box::new(v));
    assert_eq!(
        one(r#"#inst "2024-01-02T03:04:05.000-00:00""#),
        tagged("inst", s("2024-01-02T03:04:05.000-00:00"))
    );
    assert_eq!(
        one(r#"#uuid"5f3c0e3a-0000-4000-8000-000000000000""#),
        tagged("uuid", s("5f3c0e3a-0000-4000-8000-000000000000"))
    );
    let op = one("#jepsen.history.Op{:index 0, :type :invoke}");
    assert_eq!(op, tagged("jepsen.history.Op", one("{:index 0 :type :invoke}")));
    let object = one("#object[java.lang.Exception 0x1b2c3d \"boom\"]");
    assert!(matches!(object, Edn::Tagged(ref t, _) if t == "object"), "{object:?}");
    assert!(matches!(
        one("#error {:cause \"x\" :via [{:type java.io.IOException}]}"),
        Edn::Tagged(..)
    ));
    assert_eq!(one("#my/tag #other 1"), tagged("my/tag", tagged("other", Edn::Int(1))));
    assert_eq!(one(r#"#"a\d+\"b""#), Edn::Regex(r#"a\d+\"b"#.into()));
}

#[test]
fn discards_comments_and_metadata_are_skipped() {
    assert_eq!(one("#_ 1 2"), Edn::Int(2));
    assert_eq!(one("[1 #_ [2 3] 4]"), one("[1 4]"));
    assert_eq!(one("[#_ #_ 1 2 3]"), one("[3]"));
    assert_eq!(one("{:a #_ :b 1}"), one("{:a 1}"));
    assert_eq!(one("; a comment\n[1 ; another\n 2] ; end"), one("[1 2]"));
    assert_eq!(one("#!shebang\n:x"), kw("x"));
    assert_eq!(one("^{:tag String} [1]"), one("[1]"));
    assert_eq!(one("^:private ^Foo x"), Edn::Symbol("x".into()));
    assert_eq!(one("\u{feff}1"), Edn::Int(1));
    assert_eq!(
        all("1 :a\n\n\"b\"\n[\n]"),
        vec![(1, Edn::Int(1)), (1, kw("a")), (3, s("b")), (4, Edn::Vector(vec![]))]
    );
    assert_eq!(all("  ;; nothing\n #_ [1 2]\n"), vec![]);
}

#[test]
fn printing_reads_back_the_same_value() {
    let text = r#"[nil true 1 -2N 123456789012345678901234567890 1.5 -0.0 2.5M 1/3 \a \newline "q\"\\\n\u0001é"
        :k :a/b sym (1 2) {:a [1] "b" #{2}} #inst "2024" #jepsen.history.Op{:index 0} #"re\d" ##Inf]"#;
    let v = one(text);
    assert_eq!(one(&v.to_string()), v);
    assert_eq!(one(&v.canonical()).canonical(), v.canonical());
    assert_eq!(one("{:b 2, :a 1}").canonical(), "{:a 1, :b 2}");
    assert_eq!(one("#{3 1 2}").canonical(), "#{1 2 3}");
    assert_eq!(one("(1 (2))").canonical(), "[1 [2]]");
    assert_eq!(one("-0.0").canonical(), one("0.0").canonical());
    assert_eq!(one(&"x".repeat(100)).brief().chars().count(), 63);
}

#[test]
fn errors_name_their_line() {
    let e = err("[1\n 2\n \"abc\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (3, "unterminated string, open to the end of the input")
    );
    let e = err("{:a 1}\n{:b\n [1 2]\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "expected '}' to close the map, found the end of the input")
    );
    let e = err("(1\n\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (1, "expected ')' to close the list, found the end of the input")
    );
    let e = err("[#{1\n 2 [3]\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (1, "expected '}' to close the set, found the end of the input")
    );
    let e = err("[1 2\n 3}\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "expected a value, found a closing bracket '}'")
    );
    let e = err("{:a 1\n :b}");
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "expected a value for key :b, found the closing bracket '}'")
    );
    let e = err("1\n2\n3\n12abc");
    assert_eq!((e.line, e.message.as_str()), (4, "cannot read '12abc' as a number"));
    assert_eq!(err("\n\"\\q\"").line, 2);
    assert_eq!(
        err("#_").message,
        "expected a value to discard after #_, found the end of the input"
    );
    assert_eq!(
        err("#inst").message,
        "expected a value after the tag #inst, found the end of the input"
    );
    assert_eq!(
        err("^{:a 1}").message,
        "expected a value after the metadata, found the end of the input"
    );
    assert_eq!(err("# x").message, "'#' with no tag after it");
    assert_eq!(err("#(inc %)").message, "'#(' is not EDN");
    assert_eq!(err("#<Object>").message, "'#<' is not EDN");
    assert_eq!(err("@x").message, "'@' is not EDN");
    assert_eq!(err("::auto").message, "'::auto' is not an EDN keyword");
    assert_eq!(err("#:{:a 1}").message, "expected a namespaced map like #:ns{:a 1}");
    let line = Reader::new("{:a 1").one_line().next_form().unwrap_err();
    assert_eq!(line.message, "expected '}' to close the map, found the end of the line");
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let ok = format!("{}{}", "[".repeat(DEPTH_MAX), "]".repeat(DEPTH_MAX));
    assert!(read_one(&ok).is_ok());
    let deep = format!("{}{}", "[".repeat(DEPTH_MAX + 2), "]".repeat(DEPTH_MAX + 2));
    assert_eq!(
        read_one(&deep).unwrap_err().message,
        format!("nested deeper than {DEPTH_MAX}")
    );
    for open in ["[", "(", "{", "#{", "{:a ", "#_ ", "^:m ", "#t ", "#:n{:a ", "[#_"] {
        let hostile = open.repeat(200_000);
        let e = read_one(&hostile).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{open}: {e:?}");
    }
}

/// Printable and structural characters, multi-byte ones and controls.
const ALPHABET: &str = "[](){}#_^\\\";:,\n\t -+./0123456789eENMuo aéx😀\u{0}\u{7f}\u{feff}!@~`'%";

#[test]
fn arbitrary_text_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let chars: Vec<char> = ALPHABET.chars().collect();
    let samples = [
        "[{:process 0, :type :invoke, :f :cas, :value [1 2]} #jepsen.history.Op{:f :read :value \"x\\u00e9\"}]",
        "{:a #{1 2/3 4.5M} :b (\\a \\newline) ^:m #_ x #inst \"2020\" c ##NaN}",
    ];
    for i in 0..20_000 {
        let text: String = if i % 2 == 0 {
            (0..rng.gen_range(0..40))
                .map(|_| chars[rng.gen_range(0..chars.len())])
                .collect()
        } else {
            let mut t: Vec<char> = samples[i % 4 / 2].chars().collect();
            for _ in 0..rng.gen_range(1..5) {
                let at = rng.gen_range(0..=t.len());
                let c = chars[rng.gen_range(0..chars.len())];
                match rng.gen_range(0..3) {
                    0 if at < t.len() => {
                        t.remove(at);
                    }
                    1 if at < t.len() => t[at] = c,
                    _ => t.insert(at, c),
                }
            }
            t.into_iter().collect()
        };
        let mut r = Reader::new(&text);
        for _ in 0..1_000 {
            match r.next_form() {
                Ok(Some((_, v))) => {
                    // What was read prints as text that reads back.
                    // (After a space: a BOM is skipped only at the start.)
                    let back = read_one(&format!(" {v}"));
                    let same = back.as_ref().map(Edn::canonical) == Ok(v.canonical());
                    assert!(same, "{text:?}: {v:?} printed {} read {back:?}", v);
                }
                Ok(None) => break,
                Err(e) => {
                    assert!(e.line >= 1 && e.line <= text.split('\n').count(), "{text:?}: {e:?}");
                    break;
                }
            }
        }
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    for _ in 0..20_000 {
        let bytes: Vec<u8> = (0..rng.gen_range(0..64)).map(|_| rng.gen()).collect();
        let text = String::from_utf8_lossy(&bytes);
        let mut r = Reader::new(&text);
        while let Ok(Some(_)) = r.next_form() {}
    }
}

#[test]
fn duplicate_map_keys_and_set_members_are_refused_as_clojure_refuses_them() {
    assert_eq!(err("{:a 1 :b 2 :a 3}").message, "duplicate map key :a");
    assert_eq!(err("#{1 2 1N}").message, "duplicate set member 1");
    assert_eq!(err("#{[1 2] (1 2)}").message, "duplicate set member (1 2)");
    assert_eq!(err("#:x{:a 1 :x/a 2}").message, "duplicate map key :x/a");
    assert!(err("[{:k 1}\n {:k 2 :k 3}]").line == 2);
    one("{:a 1 \"a\" 2 a 3}");
    one("#{1 1.0 \"1\" \\1}");
}

/// The memory cap's bound on a parse (`mem::PARSED_PER_TEXT_BYTE`) holds
/// a value per two bytes of text: a value must stay within that.
#[test]
fn a_value_fits_the_parse_bound_of_the_memory_cap() {
    let per_value = std::mem::size_of::<Edn>() as u64;
    assert!(
        per_value * 4 / 3 <= 2 * crate::mem::PARSED_PER_TEXT_BYTE,
        "Edn is {per_value} bytes"
    );
}
