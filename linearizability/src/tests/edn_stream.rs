//! Items read from a stream in chunks of every size are the items, and the
//! errors, that the whole text gives: a value, string, comment or char cut
//! by a chunk's end is read as if it were not.

use crate::edn::{Edn, EdnError, Items, Reader};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::BufReader;

/// The whole text's items, read as the history reader read them before it
/// streamed.
fn whole(text: &str) -> Result<Vec<(usize, Edn)>, EdnError> {
    let mut r = Reader::new(text);
    let mut items = Vec::new();
    match r.enter()? {
        Some(seq) => {
            while let Some(item) = r.next_in(seq)? {
                items.push(item);
            }
            if let Some((line, _)) = r.next_form()? {
                return Err(EdnError {
                    line,
                    message: "unexpected value after the history's closing bracket".into(),
                });
            }
        }
        None => {
            while let Some(item) = r.next_form()? {
                items.push(item);
            }
        }
    }
    Ok(items)
}

/// Read `chunk` bytes ahead at a time, from reads of `read` bytes at most.
fn streamed(bytes: &[u8], chunk: usize, read: usize) -> Result<Vec<(usize, Edn)>, EdnError> {
    let mut items = Items::with_chunk(BufReader::with_capacity(read, bytes), chunk);
    let mut out = Vec::new();
    while let Some(item) = items.next()? {
        out.push(item);
    }
    Ok(out)
}

/// Debug text, so that NaN equals NaN.
fn shown(r: &Result<Vec<(usize, Edn)>, EdnError>) -> String {
    format!("{r:?}")
}

const CASES: [&str; 16] = [
    "[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :ok, :f :read, :value nil}]\n",
    "{:process 0 :f :write :value \"a\\u00e9\\\"b\"}\n#jepsen.history.Op{:index 1, :value [1 2]}\n",
    "\u{feff}[{:a 1} ; a comment ]\n #_ {:skipped 1} {:b \\] :c \\newline}]",
    "(1 2 (3 4) 12345678901234567890 -1.5e10 4/6 ##Inf #\"re\\\"x\" é日本)",
    "[{:process 0, :type :invoke, :f :read}\n {:process 1}",
    "[{:process 0}] []",
    "[{:process 0, :value \"unterminated}]\n",
    "{:a 1}\n{:a 2} {:a\n3}\n; the end",
    "#_ #_ 1 2 {:a #inst \"2020-01-01\"} #:ns{:x 1 :_/y 2} ^{:m 1} [x]",
    "[1 2 3",
    "{:a}",
    "[{:a 1}]\n  \n;;\n",
    "",
    "  \n ; only a comment",
    "\\u00e9 \\o101 \\uD83D #{1 2} 'x",
    "[\"\\uD83D\\uDE00\" \"\\uD83D\" abc/def :k/w 0x1F 2r101 1N 1.5M]",
];

#[test]
fn every_chunking_reads_as_the_whole_text() {
    for text in CASES {
        let want = shown(&whole(text));
        for chunk in 1..=24 {
            for read in [1, 2, 3, 7, 64] {
                let got = shown(&streamed(text.as_bytes(), chunk, read));
                assert_eq!(got, want, "{text:?} in chunks of {chunk}, reads of {read}");
            }
        }
    }
}

#[test]
fn random_texts_read_as_the_whole_text_in_random_chunks() {
    const PIECES: [&str; 32] = [
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "#{",
        "#_",
        "#tag ",
        "^:m ",
        " ",
        ",",
        "\n",
        ";c\n",
        ":process",
        " 0",
        "12",
        "-3.5",
        "\"s\\\"é\"",
        "\\a",
        "\\newline",
        "nil",
        ":f",
        ":read",
        "é",
        "日",
        "#\"r\"",
        "##NaN",
        "1/2",
        "#:n{",
        "\"",
        "\\u00e9",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    for _ in 0..3_000 {
        let text: String = (0..rng.gen_range(0..40))
            .map(|_| PIECES[rng.gen_range(0..PIECES.len())])
            .collect();
        let want = shown(&whole(&text));
        let (chunk, read) = (rng.gen_range(1..12), rng.gen_range(1..9));
        let got = shown(&streamed(text.as_bytes(), chunk, read));
        assert_eq!(got, want, "{text:?} in chunks of {chunk}, reads of {read}");
    }
}

#[test]
fn bytes_that_are_not_utf8_are_refused_on_their_line() {
    let bytes = b"[{:a 1}\n {:b \"\xff\"}]";
    for chunk in [1, 3, 100] {
        let e = streamed(bytes, chunk, 2).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (2, "not UTF-8 text"), "chunk {chunk}");
    }
    // A char cut by the end of the input.
    let e = streamed("[\"é".as_bytes().split_last().unwrap().1, 1, 1).unwrap_err();
    assert_eq!(e.message, "not UTF-8 text");
}

#[test]
fn a_value_longer_than_a_chunk_grows_the_buffer() {
    let long = format!(
        "[{{:value \"{}\"}} {{:value [{}]}}]",
        "x".repeat(100_000),
        "1 ".repeat(50_000)
    );
    assert_eq!(shown(&streamed(long.as_bytes(), 16, 4096)), shown(&whole(&long)));
}
