//! `dst check HISTORY`: is a history recorded elsewhere linearizable?
//! Exit 0 linearizable, 1 not, 3 unknown (the step budget or the search's memory cap ran out), 2 for
//! a file that cannot be read or parsed, with the line at fault.

use super::args::{CheckArgs, HistoryFormat};
use super::Exit;
use clap::ValueEnum;
use linearizability::parse_jepsen_edn::{self, Value};
use linearizability::{
    self as lin, Checked, Events, History, JepsenModel, JepsenOps, Model, ModelUser, Op, Options, Outcome, ParseError,
};
use serde_json::{json, Value as Json};
use sim::host::TextInput;
use sim::lin::parse_dst;

/// Ops of the longest partial linearization shown in text output.
const SHOWN: usize = 10;

pub fn main(reg: &sim::Registry, args: &CheckArgs) -> Exit {
    let started = std::time::Instant::now();
    let heap = linearizability::mem::mark();
    // Everything from here counts against one cap: the text read, the
    // history, each key's decision and search.
    linearizability::mem::cap_from_here(args.max_mib << 20);
    let file = sim::host::files::shown(&args.history).to_string();
    let initial = match args.initial.as_deref().map(Value::parse).transpose() {
        Ok(v) => v,
        Err(e) => return bad(&format!("--initial: {e}")),
    };
    // Read as a stream: a history file can be far larger than the ops
    // kept of it.
    let mut input = match TextInput::open(&args.history, sim::report::GUNZIP_BYTES_MAX) {
        Ok(t) => t,
        Err(e) => return bad(&e),
    };
    let format = match args.format.map_or_else(|| sniff(&mut input), Ok) {
        Ok(f) => f,
        Err(e) => return bad(&e),
    };
    let format_name = name(format);
    if args.model.is_some() && format != HistoryFormat::JepsenEdn {
        return refuse(
            &mut input,
            &format!("--model is for jepsen-edn histories, and {file} is read as {format_name}"),
        );
    }
    if initial.is_some() && !matches!(format, HistoryFormat::Jepsen | HistoryFormat::JepsenEdn) {
        return refuse(
            &mut input,
            &format!("--initial is for register histories (jepsen, jepsen-edn), and {file} is read as {format_name}"),
        );
    }
    let opts = Options {
        budget_per_key: args.budget,
        memo_bytes_max: args.max_mib << 20,
        interruptible: true,
    };
    if let Some(Err(e)) = args.html.as_deref().map(sim::host::files::refuse_special) {
        return refuse(&mut input, &e);
    }
    let wanted = Wanted {
        html: args.html.is_some().then_some(file.as_str()),
        json: args.json,
    };
    let mut model = None;
    let judged = match format {
        HistoryFormat::Jepsen => {
            let initial = match initial {
                None | Some(Value::Nil) => None,
                Some(Value::Int(i)) => Some(i),
                Some(v) => return bad(&format!("--initial: a Jepsen log's register holds integers, not {v}")),
            };
            let register = lin::Register::starting_at(initial);
            lin::parse_jepsen::parse_from(&mut input).map(|h| judge(&register, &h, &opts, "line", wanted))
        }
        HistoryFormat::JepsenEdn => {
            let chosen = parse_jepsen_edn::read_from(&mut input)
                .and_then(|events| JepsenModel::choose(args.model, &events.fs()).map(|m| (events, m)));
            match chosen {
                Ok((_, m)) if initial.is_some() && !m.is_register() => {
                    return bad(&format!(
                        "--initial is for register histories, and {file} is checked as a {} history",
                        m.name()
                    ))
                }
                Ok((events, m)) => {
                    model = Some(m);
                    let judge = JudgeJepsen {
                        events,
                        opts: &opts,
                        wanted,
                    };
                    m.apply(initial.unwrap_or(Value::Nil), judge)
                }
                Err(e) => Err(e),
            }
        }
        HistoryFormat::Edn => {
            lin::parse_edn::parse_from(&mut input).map(|h| judge(&lin::StringKv, &h, &opts, "line", wanted))
        }
        HistoryFormat::Json => match input.rest() {
            Ok(text) => dst_history(reg, &text).map(|h| judge(&lin::DstKv, &h, &opts, "event", wanted)),
            Err(message) if linearizability::mem::over_cap() => Err(ParseError { line: None, message }),
            Err(e) => return bad(&e),
        },
    };
    // Reading stops where it passes the memory cap: that is the verdict,
    // whatever the reader made of the text cut short.
    let judged = match judged {
        Err(_) if linearizability::mem::over_cap() => Ok(over_cap_reading(args.max_mib)),
        j => j,
    };
    // A reader stops at the first bad line; a fault of the file further on
    // (its size, gzip, UTF-8) is what it is refused for, as it was when the
    // file was read whole before anything else.
    if let (Err(_), Err(e)) = (&judged, input.finish()) {
        return bad(&e);
    }
    let mut judged = match judged {
        Ok(j) => j,
        Err(ParseError { line: Some(l), message }) => return bad(&format!("{file}:{l}: {message}")),
        Err(ParseError { line: None, message }) => return bad(&format!("{file}: {message}")),
    };
    if let (Some(path), Some(view)) = (&args.html, &judged.view) {
        let page = crate::view::page(&file, view);
        if let Err(e) = sim::host::files::write_atomic(path, page.as_bytes()) {
            return bad(&format!("view not written: {e}"));
        }
    }
    if args.json {
        judged.json["file"] = json!(file);
        judged.json["format"] = json!(format_name);
        if let Some(m) = model {
            judged.json["model"] = json!(m.name());
        }
        judged.json["budget_per_key"] = json!(args.budget);
        judged.json["max_mib"] = json!(args.max_mib);
        let total = started.elapsed().as_secs_f64();
        let search = judged.json["seconds"]["search"].as_f64().unwrap_or(0.0);
        judged.json["seconds"] = json!({"read_and_parse": (total - search).max(0.0), "search": search, "total": total});
        // The most heap the command held at once (null where dst's counting
        // allocator is not the program's).
        judged.json["peak_heap_bytes"] = json!(linearizability::mem::peak_since(heap));
        let mut text = judged.json.to_string();
        if let Some(list) = &judged.linearized {
            text.insert_str(1, &format!("\"linearized\":{list},"));
        }
        sim::outln!("{text}");
    } else {
        sim::outln!("{file}: {}", judged.text.join("\n"));
    }
    match judged.code {
        0 => Exit::Clean,
        3 => Exit::Undecided,
        _ => Exit::Found,
    }
}

/// The verdict when the text read, or the history made of it, passed
/// the memory cap before any key was checked.
fn over_cap_reading(max_mib: u64) -> Judged {
    let reason = format!("the history took more than the memory cap of {max_mib} MiB while it was read");
    Judged {
        code: 3,
        text: vec![format!("unknown: {reason}; a larger --max-mib may decide it")],
        json: json!({"result": "unknown", "reason": reason, "limit": "memory"}),
        linearized: None,
        view: None,
    }
}

fn bad(msg: &str) -> Exit {
    Exit::Bad(msg.to_string())
}

/// Refuse the command for `msg`, unless the file has a fault of its own,
/// which is said first.
fn refuse(input: &mut TextInput, msg: &str) -> Exit {
    match input.finish() {
        Err(e) => bad(&e),
        Ok(()) => bad(msg),
    }
}

fn name(format: HistoryFormat) -> String {
    format
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// Without --format, from the file's start, without taking it.
fn sniff(input: &mut TextInput) -> Result<HistoryFormat, String> {
    let mut n = 64 << 10;
    loop {
        let (start, all) = input.prefix(n)?;
        if let Some(format) = sniff_start(start, all) {
            return Ok(format);
        }
        // A first line of megabytes is not read whole (and parsed again at
        // every doubling) to tell the format: what its start shows decides.
        if n >= SNIFF_BYTES_MAX {
            return Ok(sniff_start(start, true).unwrap_or(HistoryFormat::JepsenEdn));
        }
        n *= 2;
    }
}

/// The most of a history's start read to tell its format.
const SNIFF_BYTES_MAX: usize = 256 << 10;

/// A Jepsen log starts with its log lines, dst JSON with `{"`, Jepsen's
/// history.edn with `[` or a map (or record) of an op. The kv format's maps
/// are EDN too: they have a `:key`. `None` when `text`, the start of the
/// file (`all` of it or not), is too short to tell.
fn sniff_start(text: &str, all: bool) -> Option<HistoryFormat> {
    let whole_lines = match all {
        true => text,
        false => &text[..text.rfind('\n').map_or(0, |i| i + 1)],
    };
    let first = whole_lines
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with(';'));
    let first = match (first, all) {
        (Some(first), _) => first,
        (None, true) => "",
        (None, false) => return None,
    };
    if first.starts_with(['[', '(', '#']) {
        return Some(HistoryFormat::JepsenEdn);
    }
    Some(match first.strip_prefix('{').map(str::trim_start) {
        Some(rest) if rest.starts_with(':') => {
            let mut r = lin::edn::Reader::new(text);
            let form = r.next_form();
            if r.past_end() && !all {
                return None;
            }
            let has_key = match form {
                Ok(Some((_, map))) => map.get("key").is_some(),
                // Unreadable: the kv reader has said what is wrong with such lines.
                _ => first.contains(":key"),
            };
            if has_key {
                HistoryFormat::Edn
            } else {
                HistoryFormat::JepsenEdn
            }
        }
        Some(_) => HistoryFormat::Json,
        None => HistoryFormat::Jepsen,
    })
}

/// A Jepsen history's ops, judged as the model's they are.
struct JudgeJepsen<'a> {
    events: Events,
    opts: &'a Options,
    wanted: Wanted<'a>,
}

impl ModelUser for JudgeJepsen<'_> {
    type Output = Result<Judged, ParseError>;

    fn with<M: JepsenOps>(self, model: &M) -> Result<Judged, ParseError> {
        let unit = self.events.unit();
        let h = self.events.into_history(model)?;
        Ok(judge(model, &h, self.opts, unit, self.wanted))
    }
}

struct Judged {
    code: u8,
    /// Lines for a human; the first follows "FILE: ".
    text: Vec<String>,
    json: Json,
    /// The longest partial linearization of a failure as a JSON array,
    /// written out rather than built as a value (a million ops would take
    /// gigabytes as one), when JSON was asked for.
    linearized: Option<String>,
    /// The page's data, when a page was asked for.
    view: Option<Json>,
}

/// What is asked for besides the verdict's text.
#[derive(Clone, Copy)]
struct Wanted<'a> {
    /// The file's name, when its page is wanted.
    html: Option<&'a str>,
    json: bool,
}

fn judge<M: Model>(model: &M, h: &History<M::Input, M::Output>, opts: &Options, unit: &str, wanted: Wanted) -> Judged {
    if linearizability::mem::over_cap() {
        return over_cap_reading(opts.memo_bytes_max >> 20);
    }
    let mut v = verdict(model, h, opts, unit, wanted.json);
    v.judged.view = wanted.html.map(|file| {
        let line = v.judged.text.first().cloned().unwrap_or_default();
        crate::view::history_data(model, h, &v.outcome, file, unit, &line)
    });
    v.judged
}

struct Verdict {
    judged: Judged,
    outcome: Outcome,
}

/// `json_wanted`: whether the failure's partial linearization is wanted
/// as JSON.
fn verdict<M: Model>(
    model: &M,
    h: &History<M::Input, M::Output>,
    opts: &Options,
    unit: &str,
    json_wanted: bool,
) -> Verdict {
    // Wall time is reported, never judged: a verdict is the same on every machine.
    let started = std::time::Instant::now();
    let c: Checked = lin::check(model, h, opts);
    let search_s = started.elapsed().as_secs_f64();
    let keys = if c.keys == 1 { "key" } else { "keys" };
    let by_key: Vec<Json> = c
        .by_key
        .iter()
        .map(|k| json!({"key": k.key, "ops": k.ops, "decided_by": k.decided_by, "steps": k.steps, "result": k.result}))
        .collect();
    let mut json = json!({
        "ops": c.ops,
        "keys": c.keys,
        "keys_without_search": c.keys_without_search,
        "steps": c.steps,
        "positions": unit,
        "by_key": by_key,
        "seconds": {"search": search_s},
    });
    let unsearched = match (c.keys_without_search, c.keys) {
        (0, _) => String::new(),
        (k, n) if k == n => format!(
            "; {} without a search: unique values",
            if n == 1 { "decided" } else { "all decided" }
        ),
        (k, _) => format!("; {k} decided without a search: unique values"),
    };
    let judged = match &c.outcome {
        Outcome::Linearizable => {
            json["result"] = json!("linearizable");
            // Linearizable, as Knossos and porcupine judge such a history, but
            // said so that an empty or cut file is not taken for a checked one.
            let nothing = (c.ops == 0).then_some(
                "nothing to check: no client operation that took effect or could have (an empty history, nemesis ops only, or failed ops only)",
            );
            if let Some(n) = nothing {
                json["note"] = json!(n);
            }
            Judged {
                code: 0,
                text: vec![format!(
                    "linearizable ({} ops on {} {keys}, {} search steps{unsearched}){}",
                    c.ops,
                    c.keys,
                    c.steps,
                    nothing.map_or(String::new(), |n| format!("; {n}"))
                )],
                json,
                linearized: None,
                view: None,
            }
        }
        Outcome::Unknown { key, reason, limit } => {
            let (limit, hint) = match limit {
                lin::Limit::Budget => ("budget", "; a larger --budget may decide it"),
                lin::Limit::Memo | lin::Limit::Memory => ("memory", "; a larger --max-mib may decide it"),
                lin::Limit::Interrupted => ("interrupted", ""),
            };
            json["result"] = json!("unknown");
            json["key"] = json!(key);
            json["reason"] = json!(reason);
            json["limit"] = json!(limit);
            Judged {
                code: 3,
                text: vec![format!("unknown: {reason}{hint}")],
                json,
                linearized: None,
                view: None,
            }
        }
        Outcome::NotLinearizable(f) => {
            let show = |i: usize| lin::describe_op(model, &h.ops[i], unit);
            let op_json = |i: usize| op_json(model, &h.ops[i]);
            json["result"] = json!("not-linearizable");
            json["key"] = json!(f.key);
            json["unplaced"] = op_json(f.unplaced);
            let linearized = json_wanted.then(|| {
                let mut list = String::from("[");
                for (k, &i) in f.linearized.iter().enumerate() {
                    if k > 0 {
                        list.push(',');
                    }
                    list.push_str(&op_json(i).to_string());
                }
                list.push(']');
                list
            });
            json["state"] = json!(f.state);
            if let Some(why) = &f.why {
                json["why"] = json!(why);
            }
            json["message"] = json!(f.message(model, h, unit));
            let n = f.linearized.len();
            let mut text = vec![
                format!("NOT linearizable on key {}", f.key),
                format!("  cannot place: {}", show(f.unplaced)),
                match n {
                    0 => "  after: no op could be linearized before it".to_string(),
                    _ if n > SHOWN => format!("  after the longest partial linearization, {n} ops (the last {SHOWN}):"),
                    _ => format!("  after the longest partial linearization, {n} ops:"),
                },
            ];
            text.extend(
                f.linearized[n.saturating_sub(SHOWN)..]
                    .iter()
                    .map(|&i| format!("    {}", show(i))),
            );
            text.push(format!("  state there: {}", f.state));
            if let Some(why) = &f.why {
                text.push(format!("  why: {why}"));
            }
            Judged {
                code: 1,
                text,
                json,
                linearized,
                view: None,
            }
        }
    };
    Verdict {
        judged,
        outcome: c.outcome,
    }
}

fn op_json<M: Model>(model: &M, op: &Op<M::Input, M::Output>) -> Json {
    json!({
        "client": op.client,
        "op": model.describe_op(&op.input, op.output.as_ref()),
        "invoke": op.invoke,
        "complete": op.complete,
    })
}

/// The history of a dst report or of event lines; a compact report's whole
/// trace is regenerated from its seed first.
fn dst_history(reg: &sim::Registry, text: &str) -> Result<lin::History<sim::KvOp, sim::KvResult>, ParseError> {
    if !parse_dst::is_report(text) {
        return parse_dst::parse(text);
    }
    // Of a full trace, only the client operations' events are held.
    let r = sim::report::Report::parse_keeping(text, &|e| e.kind.is_client_op()).map_err(ParseError::whole)?;
    let r = match r.is_compact() {
        false => r,
        // The run is made again, holding only its history: its own
        // checkers must judge it as they did, whatever the cap (what it
        // leaves counts against it).
        true => linearizability::mem::uncapped(|| {
            dst_runner::report_scenario(reg, &r).and_then(|s| dst_runner::with_history_trace(reg, &s, r))
        })
        .map_err(ParseError::whole)?,
    };
    parse_dst::of_report(&r)
}
