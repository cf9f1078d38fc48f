//! Numbers as Clojure reads them: integers (`N`, hex, octal, radix),
//! floats (`M` for BigDecimal) and ratios, in lowest terms.

use super::Edn;

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Decimal integers (`N` optional), floats (`M` for BigDecimal) and ratios,
/// as Clojure's printer writes them.
pub(super) fn number(t: &str) -> Option<Edn> {
    let (negative, unsigned) = match t.as_bytes()[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let sign = if negative { "-" } else { "" };
    let int = unsigned.strip_suffix('N').unwrap_or(unsigned);
    if digits(int) {
        // Clojure reads a leading zero as octal.
        if int.len() > 1 && int.starts_with('0') {
            return radix(negative, &int[1..], 8);
        }
        return Some(integer(negative, int));
    }
    // The printer writes hex in `#object[java.lang.Object 0x1b2c3d ...]`.
    if let Some(hex) = int.strip_prefix("0x").or_else(|| int.strip_prefix("0X")) {
        return radix(negative, hex, 16);
    }
    if let Some((r, d)) = int.split_once(['r', 'R']) {
        let r: u32 = r.parse().ok().filter(|_| digits(r) && !r.starts_with('0'))?;
        return (2..=36).contains(&r).then(|| radix(negative, d, r)).flatten();
    }
    if let Some((n, d)) = unsigned.split_once('/') {
        if !digits(n) || !digits(d) {
            return None;
        }
        return ratio(negative, n, d);
    }
    let (body, decimal) = match unsigned.strip_suffix('M') {
        Some(b) => (b, true),
        None => (unsigned, false),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, frac) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let exp_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    if !digits(whole) || !frac.is_none_or(|f| f.is_empty() || digits(f)) || !exp_ok {
        return None;
    }
    if decimal {
        return Some(Edn::Decimal(format!("{sign}{body}")));
    }
    let normal = format!(
        "{sign}{whole}.{}{}",
        frac.filter(|f| !f.is_empty()).unwrap_or("0"),
        exponent.map(|e| format!("e{e}")).unwrap_or_default()
    );
    normal.parse().ok().map(Edn::Float)
}

/// Digits in base `r`; None if they are not, or exceed 128 bits.
fn radix(negative: bool, d: &str, r: u32) -> Option<Edn> {
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let v = u128::from_str_radix(d, r).ok()?;
    Some(integer(negative, &v.to_string()))
}

fn integer(negative: bool, digits: &str) -> Edn {
    let text = if negative {
        format!("-{digits}")
    } else {
        digits.to_string()
    };
    match text.parse::<i64>() {
        Ok(i) => Edn::Int(i),
        Err(_) => Edn::BigInt(text),
    }
}

fn ratio(negative: bool, n: &str, d: &str) -> Option<Edn> {
    let (Ok(mut n), Ok(mut d)) = (n.parse::<u128>(), d.parse::<u128>()) else {
        // Too large to reduce: kept as written.
        let n = n.trim_start_matches('0');
        return Some(Edn::Ratio(format!("{}{n}/{d}", if negative { "-" } else { "" })));
    };
    if d == 0 {
        return None;
    }
    let g = gcd(n, d);
    (n, d) = (n / g, d / g);
    if d == 1 {
        return Some(integer(negative && n != 0, &n.to_string()));
    }
    Some(Edn::Ratio(format!("{}{n}/{d}", if negative { "-" } else { "" })))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
