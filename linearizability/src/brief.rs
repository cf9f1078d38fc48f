//! Collections in a failure's words: a set or queue of thousands of
//! elements is written as its first and last few with its size, so that
//! a failure's line stays a line a person reads.

/// Elements written out from the start of a long collection.
const HEAD: usize = 8;
/// Elements written out from its end.
const TAIL: usize = 4;

/// `items` between `open` and `close`, separated by spaces; past
/// `HEAD + TAIL` of them, the middle is "…" and the size follows.
pub(super) fn brief(items: &[String], open: &str, close: &str) -> String {
    let n = items.len();
    if n <= HEAD + TAIL {
        return format!("{open}{}{close}", items.join(" "));
    }
    format!(
        "{open}{} … {}{close} ({n} elements)",
        items[..HEAD].join(" "),
        items[n - TAIL..].join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_collection_keeps_its_ends_and_says_its_size() {
        let few: Vec<String> = (0..12).map(|i| i.to_string()).collect();
        assert_eq!(brief(&few, "#{", "}"), "#{0 1 2 3 4 5 6 7 8 9 10 11}");
        let many: Vec<String> = (0..20_000).map(|i| i.to_string()).collect();
        assert_eq!(
            brief(&many, "[", "]"),
            "[0 1 2 3 4 5 6 7 … 19996 19997 19998 19999] (20000 elements)"
        );
        assert_eq!(brief(&[], "#{", "}"), "#{}");
    }
}
