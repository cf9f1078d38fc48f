//! A fuzz verdict as CI pages show it: JUnit XML (one test case per
//! scenario and one per unexpected seed, the replay command in the failure)
//! and a Markdown job summary.

use super::record::FuzzRecord;
use linearizability::one_line::one_line;
use std::fmt::Write;

/// The command that replays a seed: its report if one was written, else a
/// run of the seed.
pub fn replay_command(r: &FuzzRecord, scenario: &str, seed: u64) -> String {
    let sc = r.scenarios.iter().find(|s| s.scenario == scenario);
    match sc
        .and_then(|s| s.tally.findings.get(&seed))
        .and_then(|f| f.report.as_ref())
    {
        Some(p) => crate::hint::replay(p),
        None => crate::hint::run(sc.and_then(|s| s.source.as_deref()).unwrap_or(scenario), seed, &r.bugs),
    }
}

/// Why scenario `i` failed as a whole, one line each (none if it passed).
pub(crate) fn scenario_problems(r: &FuzzRecord, i: usize) -> Vec<String> {
    let s = &r.scenarios[i];
    let j = r.judge(i);
    let mut out = Vec::new();
    if s.tally.unexpected > 0 {
        out.push(format!(
            "{} unexpected seeds: {:?}",
            s.tally.unexpected, s.tally.failing_seeds
        ));
    }
    if j.judges_coverage() && !s.coverage_missing.is_empty() {
        out.push(format!(
            "coverage goals no seed reached: {}",
            s.coverage_missing.join(", ")
        ));
    }
    if s.expected_violation_unseen {
        out.push("the expected violation was never seen".into());
    }
    out
}

/// JUnit XML for a fuzz record: a test case per scenario, and one per unexpected seed
/// with its replay command in the failure.
pub fn junit(r: &FuzzRecord) -> String {
    let mut cases = String::new();
    let mut tests = 0;
    let mut failures = 0;
    for (i, s) in r.scenarios.iter().enumerate() {
        tests += 1;
        let problems = scenario_problems(r, i);
        let _ = write!(
            cases,
            "    <testcase classname=\"dst.fuzz\" name=\"{}\" time=\"0\">",
            esc(&s.scenario)
        );
        if !problems.is_empty() {
            failures += 1;
            let _ = write!(
                cases,
                "\n      <failure message=\"{}\" type=\"scenario\">{}</failure>\n    ",
                esc(&problems[0]),
                esc(&problems.join("\n"))
            );
        }
        let _ = writeln!(
            cases,
            "<system-out>{}</system-out></testcase>",
            esc(&format!(
                "{} seeds: {} pass, {} expected, {} unexpected",
                s.tally.seeds, s.tally.pass, s.tally.expected, s.tally.unexpected
            ))
        );
        for (seed, line) in &s.tally.failures {
            tests += 1;
            failures += 1;
            let replay = replay_command(r, &s.scenario, *seed);
            let _ = writeln!(
                cases,
                "    <testcase classname=\"dst.fuzz.{}\" name=\"seed {seed}\" time=\"0\">\n      <failure message=\"{}\" type=\"unexpected\">{}</failure>\n    </testcase>",
                esc(&s.scenario),
                esc(line),
                esc(&format!("{line}\nreplay: {replay}"))
            );
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dst\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n  <testsuite name=\"dst fuzz\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{:.3}\">\n{cases}  </testsuite>\n</testsuites>\n",
        r.seconds
    )
}

/// Text for XML content and attributes: markup escaped, and characters
/// XML 1.0 cannot carry at all (most control characters) replaced.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Text for Markdown: on one line, with every character Markdown (and the
/// HTML GitHub renders inside it) could read as markup escaped, so a
/// scenario name or a failure line shows as written and cannot add links,
/// images, tags or table cells to the job page.
fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `s` as a Markdown code span: fenced by one backtick more than its
/// longest run of them, padded so a backtick at either end stays inside,
/// and with table pipes escaped (GitHub splits cells on them even there).
fn md_code(s: &str) -> String {
    let s = one_line(s).replace('|', "\\|");
    let mut run = 0;
    let mut longest = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {s} {fence}")
}

/// A Markdown summary for a CI job page (GitHub's `GITHUB_STEP_SUMMARY`).
pub fn markdown(r: &FuzzRecord) -> String {
    let mut m = String::new();
    let shards = if r.merged.is_empty() {
        format!("shard {}/{}", r.shard.index, r.shard.count)
    } else {
        format!("{} shards merged", r.merged.len())
    };
    let _ = writeln!(
        m,
        "### dst fuzz: {}\n\n{shards}, {:.0} s{}{}\n",
        if r.ok { "ok" } else { "FAILED" },
        r.seconds,
        if r.bugs.is_empty() {
            String::new()
        } else {
            format!(", bugs: {}", md_text(&r.bugs.join(" ")))
        },
        if r.interrupted { ", interrupted" } else { "" }
    );
    m.push_str(
        "| scenario | seeds | pass | expected | unexpected | coverage | verdict |\n|---|---|---|---|---|---|---|\n",
    );
    for (i, s) in r.scenarios.iter().enumerate() {
        let t = &s.tally;
        let verdict = if r.deferred {
            "left to merge".to_string()
        } else if s.ok {
            "ok".to_string()
        } else {
            format!("FAILED: {}", scenario_problems(r, i).join("; "))
        };
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {}/{} | {} |",
            md_text(&s.scenario),
            t.seeds,
            t.pass,
            t.expected,
            t.unexpected,
            s.goals.len().saturating_sub(s.coverage_missing.len()),
            s.goals.len(),
            md_text(&verdict)
        );
    }
    for s in &r.scenarios {
        for (seed, line) in &s.tally.failures {
            let _ = writeln!(
                m,
                "\n- {} seed {seed}: {}\n  replay: {}",
                md_code(&s.scenario),
                md_text(line),
                md_code(&replay_command(r, &s.scenario, *seed))
            );
        }
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_text_is_escaped_and_stripped_of_what_xml_cannot_carry() {
        assert_eq!(super::esc("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;\u{FFFD}");
    }

    #[test]
    fn markdown_text_and_code_show_as_written() {
        assert_eq!(
            super::md_text("a|b <img> [x](y)\n"),
            "a\\|b \\<img\\> \\[x\\]\\(y\\)\\\\n"
        );
        assert_eq!(super::md_code("a`b``c|d"), "``` a`b``c\\|d ```");
        assert_eq!(super::md_code("plain"), "` plain `");
    }
}
