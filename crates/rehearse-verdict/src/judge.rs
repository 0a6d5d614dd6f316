//! The classifier's judgements, as pure functions: what one progress report proves
//! ([`judge_progress`]) and which rule explains a failure ([`judge_failure`]). The
//! [`Watcher`](super::Watcher) calls them; they know nothing of lines, blocks or endings.
//!
//! # When is a restart `resumed`?
//!
//! Only on positive proof from a progress report (driver log or `QueryProgressEvent`) of a
//! micro-batch that ran after the restart. "Resuming at batch N" is not proof: Spark prints
//! it before any state is loaded, and every state-store failure in the corpus follows it.
//!
//! | progress of the query (id = checkpoint's id when known)              | committed offsets known | judgement |
//! |----------------------------------------------------------------------|-------------------------|-----------|
//! | other query id                                                       | –                       | ignored (another query) |
//! | batchId < expected (e.g. 0) while the checkpoint has committed batches | –                     | `started-fresh` (`batch-ids-restarted`) |
//! | idle trigger (no batch ran: no rows, no state operators, no addBatch) | –                      | not proof |
//! | batchId ≥ expected, query id not shown although known                 | –                      | not proof |
//! | batchId ≥ expected, every `sources[i].startOffset` == `committed[i]`  | yes                    | **`resumed`** (`progress-after-restart`) |
//! | batchId == expected, start offsets differ                            | yes                     | `started-fresh` (`start-offsets-differ`) |
//! | batchId > expected, start offsets differ, or offsets not shown       | yes                     | not proof (a later batch) |
//! | batchId == expected == N of Spark's own "Resuming at batch N"        | no                      | **`resumed`** (`batch-ids-continue`), `start_offsets_match: None`, evidence says offsets were not checked |
//! | anything else                                                        | no                      | not proof |
//!
//! "expected" is the pending batch if the checkpoint has one, else last committed + 1;
//! without a checkpoint (`rehearse classify LOG` alone) it is the N of "Resuming at batch N".
//! Decision for the no-checkpoint case: batch-id continuity with Spark's own resume line is
//! accepted as `resumed`, because Spark set the start offsets from the offset log it named;
//! what stays unchecked (is it the right checkpoint?) is said in the evidence and the
//! remedy, and `start_offsets_match` stays `None`. Anything weaker is not `resumed`.

use serde_json::Value;

use super::builtin::BuiltinRule;
use super::evidence::{clip_owned, dedup_keep_order, show_offsets};
use super::progress::Progress;
use super::rules::{FailureText, RuleTable};
use super::{TrialContext, Verdict};

/// What one progress report proves.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProgressJudgement {
    /// A batch after the restart continued the checkpoint.
    Resumed {
        /// [`BuiltinRule::ProgressAfterRestart`] or [`BuiltinRule::BatchIdsContinue`].
        rule: BuiltinRule,
        /// `Some(true)` when the start offsets were compared, `None` when they could not be.
        offsets_match: Option<bool>,
    },
    /// The query did not use the checkpoint.
    StartedFresh {
        /// The built-in rule.
        rule: BuiltinRule,
        /// Why, in words.
        reason: String,
        /// `Some(false)` when offsets were compared and differ.
        offsets_match: Option<bool>,
    },
    /// A report of another query.
    OtherQuery,
    /// Says nothing certain (the reason is kept for the final evidence).
    NotProof(String),
}

/// Batch id the first batch after a restart must have (see the module table).
pub(crate) fn expected_batch(ctx: &TrialContext, resuming_at: Option<u64>) -> Option<u64> {
    match (ctx.pending_batch, ctx.last_committed_batch) {
        (Some(p), _) => Some(p.0),
        (None, Some(c)) => Some(c.0 + 1),
        (None, None) => resuming_at,
    }
}

/// Judges one progress report against the checkpoint (see the module table): another
/// query's, a fresh start, a batch that cannot prove anything, or a batch judged by its
/// start offsets (when the checkpoint's are known) or by Spark's own resume line.
pub(crate) fn judge_progress(
    ctx: &TrialContext,
    p: &Progress,
    resuming_at: Option<u64>,
    fresh_start_seen: bool,
) -> ProgressJudgement {
    if let (Some(want), Some(got)) = (&ctx.query_id, &p.id) {
        if want != got {
            return ProgressJudgement::OtherQuery;
        }
    }
    let expected = expected_batch(ctx, resuming_at);
    if let Some(fresh) = started_fresh(ctx, p, expected, fresh_start_seen) {
        return fresh;
    }
    let (b, exp) = match batch_to_judge(ctx, p, expected) {
        Ok(batch) => batch,
        Err(reason) => return ProgressJudgement::NotProof(reason),
    };
    if ctx.committed_offsets.is_empty() {
        judge_by_resume_line(b, exp, resuming_at)
    } else {
        judge_by_start_offsets(ctx, p, b, exp)
    }
}

/// The signs of a fresh start a report shows whatever its offsets: a batch id below the
/// checkpoint's, or batch 0 after Spark said it started a new query.
fn started_fresh(
    ctx: &TrialContext,
    p: &Progress,
    expected: Option<u64>,
    fresh_start_seen: bool,
) -> Option<ProgressJudgement> {
    let has_batches = ctx.last_committed_batch.is_some() || ctx.pending_batch.is_some();
    if let (Some(b), Some(exp), true) = (p.batch_id, expected, has_batches) {
        if b < exp {
            return Some(ProgressJudgement::StartedFresh {
                rule: BuiltinRule::BatchIdsRestarted,
                reason: format!(
                    "batch {b} ran after the restart, but the checkpoint's next batch is {exp}: the query did not continue the checkpoint's batch ids"
                ),
                offsets_match: None,
            });
        }
    }
    if fresh_start_seen && p.batch_id == Some(0) {
        return Some(ProgressJudgement::StartedFresh {
            rule: BuiltinRule::NewQueryRanBatchZero,
            reason: "Spark logged \"Starting new streaming query\" and ran batch 0: it found no offset log to resume from".into(),
            offsets_match: None,
        });
    }
    None
}

/// The batch id of a report that can be tied to the checkpoint, with the expected one; or
/// why the report proves nothing.
fn batch_to_judge(
    ctx: &TrialContext,
    p: &Progress,
    expected: Option<u64>,
) -> Result<(u64, u64), String> {
    if !p.executed {
        return Err(
            "only an idle trigger was reported (no rows, no state operators, no addBatch): no batch ran".into(),
        );
    }
    let Some(b) = p.batch_id else {
        return Err("the progress has no batchId (Spark 2.1/2.2)".into());
    };
    let Some(exp) = expected else {
        return Err(
            "nothing tells which batch id continues the checkpoint (no --checkpoint and no \"Resuming at batch N\" line)".into(),
        );
    };
    if b < exp {
        return Err(format!("batch {b} is before the expected batch {exp}"));
    }
    if ctx.query_id.is_some() && p.id.is_none() {
        return Err(format!(
            "the report of batch {b} does not show the query id, so it cannot be tied to the checkpoint"
        ));
    }
    Ok((b, exp))
}

/// Batch `b` (≥ `exp`) judged by its start offsets against the checkpoint's committed ones.
fn judge_by_start_offsets(ctx: &TrialContext, p: &Progress, b: u64, exp: u64) -> ProgressJudgement {
    let Some(starts) = &p.start_offsets else {
        return ProgressJudgement::NotProof(format!(
            "the report of batch {b} does not show its start offsets (the log was cut)"
        ));
    };
    if offsets_equal(starts, &ctx.committed_offsets) {
        return ProgressJudgement::Resumed {
            rule: BuiltinRule::ProgressAfterRestart,
            offsets_match: Some(true),
        };
    }
    if b == exp {
        return ProgressJudgement::StartedFresh {
            rule: BuiltinRule::StartOffsetsDiffer,
            reason: format!(
                "batch {b} started from {} but the checkpoint's committed offsets are {}: the query did not continue from the checkpoint",
                show_offsets(starts),
                show_offsets(&ctx.committed_offsets)
            ),
            offsets_match: Some(false),
        };
    }
    ProgressJudgement::NotProof(format!(
        "batch {b} is not the first batch after the restart and its start offsets are not the committed ones"
    ))
}

/// Batch `b` (≥ `exp`) judged by batch-id continuity with Spark's own "Resuming at batch N"
/// (no committed offsets to compare; see the module table).
fn judge_by_resume_line(b: u64, exp: u64, resuming_at: Option<u64>) -> ProgressJudgement {
    match resuming_at {
        Some(n) if n == exp && b == exp => ProgressJudgement::Resumed {
            rule: BuiltinRule::BatchIdsContinue,
            offsets_match: None,
        },
        Some(n) => ProgressJudgement::NotProof(format!(
            "Spark resumed at batch {n} but the checkpoint's next batch is {exp}, and the start offsets cannot be compared"
        )),
        None => ProgressJudgement::NotProof(format!(
            "no \"Resuming at batch N\" line and no committed offsets: batch {b} cannot be tied to the checkpoint"
        )),
    }
}

/// JSON value equality of start offsets, source by source (strings holding JSON compare as JSON).
pub(crate) fn offsets_equal(starts: &[Option<Value>], committed: &[Option<Value>]) -> bool {
    starts.len() == committed.len()
        && starts.iter().zip(committed).all(|(s, c)| {
            let s = s.as_ref().and_then(super::progress::normalise_offset);
            let c = c.as_ref().and_then(super::progress::normalise_offset);
            s == c
        })
}

/// The outcome of matching a failure against the rules.
#[derive(Debug, Clone)]
pub(crate) struct FailureJudgement {
    pub verdict: Verdict,
    pub rule: String,
    pub remedy: String,
    pub evidence: Vec<String>,
    pub error_class: Option<String>,
}

/// Facts about the run that decide a failure no rule explains.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunFacts {
    /// Spark's driver started (`Running Spark version`, `Spark Command:`).
    pub driver_started: bool,
    /// The streaming query (this checkpoint's, when known) was started.
    pub query_started: bool,
}

/// Matches a failure (its primary block, then every earlier failure block as fallback)
/// against the rules, and applies the operator-id check for state errors.
pub(crate) fn judge_failure(
    rules: &RuleTable,
    ctx: &TrialContext,
    primary: &[String],
    earlier: &[&[String]],
    hint: Option<&str>,
    facts: RunFacts,
) -> FailureJudgement {
    // The primary block first; then with every earlier failure block (a 3.x "Job aborted"
    // may say less than the executor's ERROR); the event log's error class only last.
    let primary_text = FailureText {
        lines: primary.to_vec(),
        error_class_hint: None,
    };
    let facts_held = trial_facts(ctx, primary, earlier);
    if let Some(found) = rules.first_match_given(&primary_text, &facts_held) {
        return finish_match(rules, ctx, &primary_text, found);
    }
    let mut text = FailureText {
        lines: primary.to_vec(),
        error_class_hint: hint.map(str::to_owned),
    };
    for b in earlier {
        text.lines.extend(b.iter().cloned());
    }
    let m = rules.first_match_given(&text, &facts_held);
    match m {
        Some(found) => finish_match(rules, ctx, &text, found),
        None => {
            let top = top_exception_lines(&text.lines);
            // A Python traceback with nothing of Spark in it, before Spark's driver said a word:
            // the job died before it could restart anything (found by the breaker).
            let job_died_first = !facts.driver_started
                && !facts.query_started
                && text
                    .lines
                    .iter()
                    .any(|l| l.starts_with("Traceback (most recent call last)"))
                && !text
                    .lines
                    .iter()
                    .any(|l| l.contains("py4j") || l.contains("org.apache.spark"));
            let state_frame = state_store_frame(&text.lines);
            let rule = if job_died_first {
                BuiltinRule::JobFailedBeforeSparkStarted
            } else if state_frame.is_some() {
                BuiltinRule::StateStoreFrame
            } else if facts.driver_started && !facts.query_started {
                BuiltinRule::FailedBeforeQueryStart
            } else {
                BuiltinRule::NoRuleMatched
            };
            let mut evidence = top;
            if let Some(f) = state_frame {
                evidence.push(format!(
                    "thrown inside the state store: {}",
                    clip_owned(f.trim())
                ));
            }
            FailureJudgement {
                verdict: rule.verdict(),
                rule: rule.id().into(),
                remedy: rule.remedy().into(),
                evidence,
                error_class: first_error_class(&text.lines),
            }
        }
    }
}

/// The facts of this trial a rule's `when` may name (`rules::FACTS`); `module-beside-job`
/// from the failure's lines (the `primary` block and the `earlier` ones).
fn trial_facts(ctx: &TrialContext, primary: &[String], earlier: &[&[String]]) -> Vec<&'static str> {
    let mut facts = Vec::new();
    if ctx.job.as_ref().and_then(|j| j.line_change()).is_some() {
        facts.push("job-built-for-another-line");
    }
    let lines = primary.iter().chain(earlier.iter().flat_map(|b| b.iter()));
    if lines
        .filter_map(|l| missing_module(l))
        .any(|m| not_shipped_why(ctx, m).is_some())
    {
        facts.push("module-beside-job");
    }
    facts
}

/// The module a `ModuleNotFoundError: No module named 'X'` line names (`X`, dotted or not).
fn missing_module(line: &str) -> Option<&str> {
    let rest = line.split_once("ModuleNotFoundError: No module named '")?.1;
    rest.split('\'').next().filter(|m| !m.is_empty())
}

/// Why the top-level name of `module` (`lib` of `lib.sub`) beside the job did not travel with
/// it, when it is one of [`JobFacts::not_shipped`](super::JobFacts::not_shipped).
fn not_shipped_why<'c>(ctx: &'c TrialContext, module: &str) -> Option<&'c str> {
    let top = module.split('.').next().unwrap_or(module);
    ctx.job
        .as_ref()?
        .not_shipped
        .iter()
        .find(|(name, _)| name == top)
        .map(|(_, why)| why.as_str())
}

/// A remedy's `{module}` and `{why}` filled from the failure's `ModuleNotFoundError` line.
fn fill_module_remedy(remedy: &str, ctx: &TrialContext, lines: &[String]) -> String {
    let Some(module) = lines.iter().find_map(|l| missing_module(l)) else {
        return remedy.to_owned();
    };
    let module = rehearse_base::text::sanitize(module);
    let why = not_shipped_why(ctx, &module).unwrap_or("");
    remedy.replace("{module}", &module).replace("{why}", why)
}

/// A `when = "job-built-for-another-line"` row's remedy with its placeholders filled:
/// `{source_line}`, `{source_scala}`, `{target_line}`, `{target_scala}` (from the job's facts),
/// `{jar}` (the artifact) and `{class}` (the class of the job's first frame in the failure).
fn fill_linkage_remedy(remedy: &str, ctx: &TrialContext, user_frame: Option<&str>) -> String {
    let Some(job) = &ctx.job else {
        return remedy.to_owned();
    };
    let Some((from, from_scala, to, to_scala)) = job.line_change() else {
        return remedy.to_owned();
    };
    let class = user_frame
        .map(|f| {
            let method = f.trim_start().trim_start_matches("at ");
            let method = method.split('(').next().unwrap_or(method);
            method
                .rsplit_once('.')
                .map_or(method, |(class, _)| class)
                .to_owned()
        })
        .unwrap_or_else(|| "the job's code".to_owned());
    remedy
        .replace("{source_line}", &from)
        .replace("{source_scala}", from_scala)
        .replace("{target_line}", &to)
        .replace("{target_scala}", to_scala)
        .replace("{jar}", &job.artifact)
        .replace("{class}", &class)
}

fn finish_match(
    rules: &RuleTable,
    ctx: &TrialContext,
    text: &FailureText,
    m: super::rules::RuleMatch<'_>,
) -> FailureJudgement {
    let mut evidence = Vec::new();
    if let Some(first) = text.lines.first() {
        evidence.push(clip_owned(first));
    }
    for &i in m.lines.iter().take(4) {
        evidence.push(clip_owned(&text.lines[i]));
    }
    for l in text
        .lines
        .iter()
        .filter(|l| l.trim_start().starts_with("Caused by:"))
        .take(4)
    {
        evidence.push(clip_owned(l));
    }
    if m.by_hint {
        evidence.push(format!(
            "errorClassOnException (event log hint): {}",
            text.error_class_hint.as_deref().unwrap_or("")
        ));
    }
    dedup_keep_order(&mut evidence);
    let user_frame = rules.user_frame(&text.lines);
    let remedy = match m.rule.when.as_deref() {
        Some("job-built-for-another-line") => {
            if let Some(f) = user_frame {
                evidence.push(format!("in the job's own code: {}", clip_owned(f.trim())));
            }
            fill_linkage_remedy(&m.rule.remedy, ctx, user_frame)
        }
        _ if m.rule.remedy.contains("{module}") => {
            fill_module_remedy(&m.rule.remedy, ctx, &text.lines)
        }
        _ => m.rule.remedy.clone(),
    };
    let mut j = FailureJudgement {
        verdict: m.rule.verdict,
        rule: m.rule.id.clone(),
        remedy,
        evidence,
        error_class: first_error_class(&text.lines).or_else(|| text.error_class_hint.clone()),
    };
    if j.verdict == Verdict::StateStoreError && !ctx.operator_ids.is_empty() {
        let ops = state_operator_ids(&text.lines);
        if let Some(op) = ops.iter().find(|op| !ctx.operator_ids.contains(op)) {
            j.evidence.push(format!(
                "the failure names state of operator {op}, but the checkpoint has state only for operators {:?} (rule {} matched first)",
                ctx.operator_ids, m.rule.id
            ));
            let rule = BuiltinRule::StateOperatorNotInCheckpoint;
            j.verdict = rule.verdict();
            j.rule = rule.id().into();
            j.remedy = rule.remedy().replace("{op}", &op.to_string());
        }
    }
    j
}

/// The frame where an exception of the text was thrown, when that is the state store: for the
/// top exception and each `Caused by`, its first frame outside the JDK, Scala, Hadoop, RocksDB's
/// JNI and common libraries, if it is in Spark's state package or a state store provider.
/// Frames deeper down (`StateStoreRDD.compute` under a user function) do not count.
fn state_store_frame(lines: &[String]) -> Option<&str> {
    use std::sync::OnceLock;
    static STATE: OnceLock<regex::Regex> = OnceLock::new();
    let state = STATE.get_or_init(|| {
        regex::Regex::new(
            r"^at (?:org\.apache\.spark\.sql\.execution\.streaming\.state\.|[\w$.]*\.streaming\.(?:state|rocksdb)\.|[\w$.]*StateStoreProvider\b)",
        )
        .expect("state frame regex compiles")
    });
    const LIBRARY: &[&str] = &[
        "at java.",
        "at javax.",
        "at jdk.",
        "at sun.",
        "at scala.",
        "at org.rocksdb.",
        "at org.apache.hadoop.",
        "at com.google.",
        "at org.apache.commons.",
        "at com.fasterxml.",
        "at org.json4s.",
        "at net.jpountz.",
        "at org.xerial.",
        "at com.github.luben.",
    ];
    let mut looking = false;
    for l in lines {
        let t = l.trim_start();
        if super::rules::is_frame(t) {
            if looking && !LIBRARY.iter().any(|p| t.starts_with(p)) {
                looking = false;
                if state.is_match(t) {
                    return Some(l);
                }
            }
        } else if super::scan::is_exception_header(t) {
            looking = true;
        }
    }
    None
}

/// Operator ids named by state paths (`…/state/<op>/<part>/…`) or provider ids (`op=<op>`).
fn state_operator_ids(lines: &[String]) -> Vec<u32> {
    use std::sync::OnceLock;
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"/state/(\d+)/\d+/|\(op=(\d+),").expect("operator id regex compiles")
    });
    let mut ops = Vec::new();
    for l in lines {
        for c in re.captures_iter(l) {
            if let Some(op) = c
                .get(1)
                .or_else(|| c.get(2))
                .and_then(|m| m.as_str().parse().ok())
            {
                if !ops.contains(&op) {
                    ops.push(op);
                }
            }
        }
    }
    ops
}

/// The first bracketed error class in the text (`[STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE]`),
/// skipping the wrappers that say nothing (`STREAM_FAILED`, `INTERNAL_ERROR`).
fn first_error_class(lines: &[String]) -> Option<String> {
    use std::sync::OnceLock;
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"\[([A-Z][A-Z0-9_]{2,}(?:\.[A-Z0-9_]+)?)\]")
            .expect("error class regex compiles")
    });
    lines
        .iter()
        .flat_map(|l| {
            re.captures_iter(l)
                .map(|c| c[1].to_owned())
                .collect::<Vec<_>>()
        })
        .find(|c| c != "STREAM_FAILED" && c != "INTERNAL_ERROR")
}

/// The block's first line, its first exception header and its deepest `Caused by`.
fn top_exception_lines(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(first) = lines.first() {
        out.push(clip_owned(first));
    }
    if let Some(h) = lines.iter().find(|l| super::scan::is_exception_header(l)) {
        out.push(clip_owned(h));
    }
    if let Some(c) = lines
        .iter()
        .rev()
        .find(|l| l.trim_start().starts_with("Caused by:"))
    {
        out.push(clip_owned(c));
    }
    dedup_keep_order(&mut out);
    out
}

/// The `startingOffsets` a query could be started with on a fresh checkpoint, taken from
/// the last committed Kafka offsets (the remedy of a failed restart).
pub(crate) fn starting_offsets_hint(ctx: &TrialContext) -> Option<String> {
    let kafka: Vec<String> = ctx
        .committed_offsets
        .iter()
        .filter_map(|o| o.as_ref().and_then(super::progress::normalise_offset))
        .filter(is_kafka_offsets)
        .map(|v| v.to_string())
        .collect();
    match kafka.as_slice() {
        [] => None,
        [one] => Some(format!(
            "To start on a new checkpoint with bounded reprocessing, use .option(\"startingOffsets\", '{one}')."
        )),
        many => Some(format!(
            "To start on a new checkpoint with bounded reprocessing, use these startingOffsets, one per Kafka source in plan order: {}.",
            many.join(" ; ")
        )),
    }
}

/// `{"topic":{"0":42,…},…}`.
fn is_kafka_offsets(v: &Value) -> bool {
    v.as_object().is_some_and(|topics| {
        !topics.is_empty()
            && topics.values().all(|parts| {
                parts.as_object().is_some_and(|p| {
                    p.iter()
                        .all(|(k, o)| k.parse::<u32>().is_ok() && o.is_i64())
                })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use crate::BatchId;
    use serde_json::json;

    fn ctx() -> TrialContext {
        TrialContext {
            query_id: Some("q".into()),
            last_committed_batch: Some(BatchId(3)),
            pending_batch: None,
            committed_offsets: vec![Some(json!({"t":{"0":42}}))],
            operator_ids: vec![0],
            require_input_rows: false,
            require_paths: false,
            nothing_fresh: false,
            checkpoint_watermark_ms: None,
            job: None,
        }
    }

    fn progress(batch: u64, start: Value) -> Progress {
        Progress {
            id: Some("q".into()),
            run_id: Some("r".into()),
            batch_id: Some(batch),
            executed: true,
            start_offsets: Some(vec![Some(start)]),
            input_rows: 0,
            watermark: Default::default(),
            state: None,
            sink_rows: None,
            idle: false,
        }
    }

    /// Issue 26 §3: a job's `import lib.util` as PySpark's driver prints it, before Spark
    /// started. With `lib/` beside the job but not shipped (no `__init__.py`), the remedy says
    /// so; otherwise it names `py_files` and `requirements`. Never "fix the job".
    #[test]
    fn a_missing_module_names_py_files_and_what_stayed_beside_the_job() {
        let lines: Vec<String> = [
            "Traceback (most recent call last):",
            "  File \"/sandbox/job/app.py\", line 4, in <module>",
            "    from lib.util import parse_event",
            "ModuleNotFoundError: No module named 'lib'",
        ]
        .map(String::from)
        .to_vec();
        let facts = RunFacts {
            driver_started: false,
            query_started: false,
        };
        let rules = RuleTable::default_table();
        let plain = judge_failure(rules, &ctx(), &lines, &[], None, facts);
        assert_eq!(plain.verdict, Verdict::EnvironmentError);
        assert_eq!(plain.rule, "python-module-not-found");
        assert!(
            plain.remedy.contains("`lib`") && plain.remedy.contains("py_files"),
            "{}",
            plain.remedy
        );
        assert!(!plain.remedy.contains('{'), "{}", plain.remedy);

        let beside = TrialContext {
            job: Some(super::super::JobFacts {
                artifact: "app.py".into(),
                target: "4.0.1".into(),
                not_shipped: vec![(
                    "lib".into(),
                    "a directory without __init__.py (only packages travel with the job)".into(),
                )],
                ..Default::default()
            }),
            ..ctx()
        };
        let j = judge_failure(rules, &beside, &lines, &[], None, facts);
        assert_eq!(j.rule, "python-module-beside-job-not-shipped");
        assert!(
            j.remedy
                .starts_with("`lib` is beside the job (a directory without __init__.py")
                && j.remedy.contains("py_files"),
            "{}",
            j.remedy
        );
        // Another module than the one left behind: the plain row.
        let other: Vec<String> = lines
            .iter()
            .map(|l| l.replace("'lib'", "'requests'"))
            .collect();
        assert_eq!(
            judge_failure(rules, &beside, &other, &[], None, facts).rule,
            "python-module-not-found"
        );
    }

    #[test]
    fn right_batch_and_offsets_resume() {
        let j = judge_progress(&ctx(), &progress(4, json!({"t":{"0":42}})), Some(4), false);
        assert!(
            matches!(
                j,
                ProgressJudgement::Resumed {
                    offsets_match: Some(true),
                    ..
                }
            ),
            "{j:?}"
        );
    }

    #[test]
    fn right_batch_wrong_offsets_is_not_resumed() {
        let j = judge_progress(&ctx(), &progress(4, json!({"t":{"0":0}})), Some(4), false);
        assert!(
            matches!(
                j,
                ProgressJudgement::StartedFresh {
                    rule: BuiltinRule::StartOffsetsDiffer,
                    ..
                }
            ),
            "{j:?}"
        );
    }

    #[test]
    fn batch_zero_after_committed_batches_is_started_fresh() {
        let j = judge_progress(&ctx(), &progress(0, json!({"t":{"0":42}})), None, true);
        assert!(
            matches!(
                j,
                ProgressJudgement::StartedFresh {
                    rule: BuiltinRule::BatchIdsRestarted,
                    ..
                }
            ),
            "{j:?}"
        );
    }

    #[test]
    fn pending_batch_rerun_resumes() {
        let mut c = ctx();
        c.last_committed_batch = Some(BatchId(2));
        c.pending_batch = Some(BatchId(3));
        let j = judge_progress(&c, &progress(3, json!({"t":{"0":42}})), Some(3), false);
        assert!(matches!(j, ProgressJudgement::Resumed { .. }), "{j:?}");
    }

    #[test]
    fn other_query_is_ignored() {
        let mut p = progress(4, json!({"t":{"0":42}}));
        p.id = Some("other".into());
        assert_eq!(
            judge_progress(&ctx(), &p, Some(4), false),
            ProgressJudgement::OtherQuery
        );
    }

    #[test]
    fn without_offsets_only_spark_resume_line_and_same_batch_count() {
        let none = TrialContext::default();
        let mut p = progress(4, json!({"t":{"0":42}}));
        p.id = None;
        assert!(matches!(
            judge_progress(&none, &p, None, false),
            ProgressJudgement::NotProof(_)
        ));
        assert!(matches!(
            judge_progress(&none, &p, Some(4), false),
            ProgressJudgement::Resumed {
                rule: BuiltinRule::BatchIdsContinue,
                offsets_match: None
            }
        ));
        let p5 = progress(5, json!(null));
        assert!(matches!(
            judge_progress(&none, &p5, Some(4), false),
            ProgressJudgement::NotProof(_)
        ));
    }

    #[test]
    fn state_store_frame_is_where_the_exception_was_thrown() {
        let lines = |t: &str| t.lines().map(str::to_owned).collect::<Vec<_>>();
        // EOFException reading a snapshot: thrown by the JDK, first own frame in the state store.
        let eof = lines("java.io.EOFException\n\tat java.io.DataInputStream.readInt(DataInputStream.java:392)\n\tat org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider.readSnapshotFile(HDFSBackedStateStoreProvider.scala:528)");
        assert!(state_store_frame(&eof).is_some_and(|f| f.contains("readSnapshotFile")));
        // A user function failing inside a stateful task: the state store is deeper down.
        let udf = lines("org.apache.spark.SparkException: Job aborted due to stage failure\nCaused by: java.lang.ArithmeticException: / by zero\n\tat com.example.Job$.parse(Job.scala:12)\n\tat org.apache.spark.sql.execution.streaming.state.StateStoreRDD.compute(StateStoreRDD.scala:127)");
        assert_eq!(state_store_frame(&udf), None);
        let ctx = TrialContext::default();
        let facts = RunFacts {
            driver_started: true,
            query_started: true,
        };
        let j = judge_failure(RuleTable::default_table(), &ctx, &eof, &[], None, facts);
        assert_eq!(j.verdict, Verdict::StateStoreError);
        assert_eq!(j.rule, "state-store-frame");
        assert!(
            j.evidence.iter().any(|e| e.contains("readSnapshotFile")),
            "{:?}",
            j.evidence
        );
        let j = judge_failure(RuleTable::default_table(), &ctx, &udf, &[], None, facts);
        assert_eq!(j.verdict, Verdict::UnclassifiedFailure);
    }

    #[test]
    fn kafka_remedy_names_starting_offsets() {
        let hint = starting_offsets_hint(&ctx()).unwrap();
        assert!(hint.contains(r#"'{"t":{"0":42}}'"#), "{hint}");
        let file = TrialContext {
            committed_offsets: vec![Some(json!({"logOffset": 2}))],
            ..TrialContext::default()
        };
        assert_eq!(starting_offsets_hint(&file), None);
    }
}
