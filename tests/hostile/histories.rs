//! History files as `dst check` reads them: Jepsen register logs, Jepsen
//! EDN histories of each model, EDN kv maps, dst event lines and reports.
//! A history that parses is also checked, so the search meets whatever odd
//! histories the parsers let by.

use crate::assert_one_line;
use crate::mutate::{config, hostile};
use crate::samples::{self, bytes, EDN, JEPSEN, JEPSEN_EDN};
use linearizability::{
    self as lin, parse_edn, parse_jepsen, parse_jepsen_edn, History, JepsenModel, JepsenOps, Model, ModelUser, Options,
    ParseError,
};
use proptest::prelude::*;
use sim::lin::parse_dst;

/// Enough steps to judge the samples, few enough for thousands of cases.
const STEPS: Options = Options {
    budget_per_key: 20_000,
    memo_bytes_max: lin::DEFAULT_MEMO_MIB_MAX << 20,
    interruptible: false,
};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A refusal is one line; a history that parses is checked.
fn judge<M: Model>(model: &M, parsed: Result<History<M::Input, M::Output>, ParseError>) -> Result<(), TestCaseError> {
    match parsed {
        Ok(h) => {
            lin::check(model, &h, &STEPS);
        }
        Err(e) => assert_one_line!(e.to_string()),
    }
    Ok(())
}

/// Judge a Jepsen history as the ops of whichever model is chosen.
struct JudgeAs<'a>(&'a parse_jepsen_edn::Forms);

impl ModelUser for JudgeAs<'_> {
    type Output = Result<(), TestCaseError>;

    fn with<M: JepsenOps>(self, model: &M) -> Self::Output {
        judge(model, self.0.history(model))
    }
}

proptest! {
    #![proptest_config(config(4_000))]

    #[test]
    fn jepsen_logs(b in hostile(bytes(JEPSEN))) {
        judge(&lin::Register::new(), parse_jepsen::parse(&text(&b)))?;
    }

    #[test]
    fn edn_kv_maps(b in hostile(bytes(EDN))) {
        judge(&lin::StringKv, parse_edn::parse(&text(&b)))?;
    }

    #[test]
    fn jepsen_edn_histories(
        b in hostile(bytes(JEPSEN_EDN)),
        asked in prop::option::of(prop::sample::select(JepsenModel::ALL.to_vec())),
    ) {
        let forms = parse_jepsen_edn::read(&text(&b));
        match forms.and_then(|f| JepsenModel::choose(asked, &f.fs()).map(|m| (f, m))) {
            Ok((forms, model)) => model.apply(parse_jepsen_edn::Value::Nil, JudgeAs(&forms))?,
            Err(e) => assert_one_line!(e.to_string()),
        }
    }
}

proptest! {
    #![proptest_config(config(2_000))]

    #[test]
    fn dst_event_lines(b in hostile(vec![samples::event_lines().into_bytes()])) {
        judge(&lin::DstKv, parse_dst::parse(&text(&b)))?;
    }
}
