//! The incremental watcher a trial feeds while Spark runs: driver-log lines (stderr and
//! stdout, in any interleaving) and event-log lines go in; a [`Classification`] comes out
//! as soon as the verdict is certain, or from [`Watcher::finish`] when the driver ended.
//!
//! It does not read files, spawn processes or measure time: the caller owns those and says
//! how the driver ended ([`Ended`]). [`classify`](super::classify()) is this watcher fed a
//! whole log, so both paths give the same verdict for the same lines.
//!
//! # When a verdict is certain
//!
//! | line or event                                                               | verdict |
//! |-----------------------------------------------------------------------------|---------|
//! | a progress report that proves the resume (see `judge.rs`)                    | `resumed`, at once; in a live trial ([`TrialContext::require_input_rows`], [`TrialContext::require_paths`]) once a batch read rows and every path of the query ran (`exercised.rs`), else at the end `resume-unproven` |
//! | a progress report with restarted batch ids or other start offsets             | `started-fresh`, at once |
//! | ERROR "Query … terminated with error" of this query, once its exception and `Caused by` chain ended (the next record starts) | by the rules |
//! | a PySpark traceback, `Exception in thread "main"` (or the query's stream thread), a JVM/container start failure, once complete | by the rules |
//! | `QueryTerminatedEvent` of this query with an exception                      | by the rules, at once (the event holds the whole text) |
//!
//! Everything else waits for [`Watcher::finish`]. Executor ERRORs are kept (bounded) as
//! context: tasks are retried, so they alone decide nothing.
//!
//! # Speed
//!
//! Most lines of a driver log can never matter. Outside an open block, a line costs one
//! copy into the evidence ring and one SIMD multi-literal search for the anchors
//! ([`scan::has_anchor`]); only lines with an anchor are parsed.

use std::collections::VecDeque;

use serde_json::Value;

use super::builtin::BuiltinRule;
use super::evidence::{clip, clip_owned, dedup_keep_order, show_offsets};
use super::exercised::PathTracker;
use super::judge::{
    judge_failure, judge_progress, starting_offsets_hint, FailureJudgement, ProgressJudgement,
    RunFacts,
};
use super::progress::{JsonDepth, Progress};
use super::rules::RuleTable;
use super::scan::{self, Level};
use super::signs::{self, Sign};
use super::warnings::{self, Warning};
use super::{BatchId, Classification, TrialContext, Verdict};

mod at_end;
mod block;
mod decision;
mod progress_report;
#[cfg(test)]
mod tests;

use block::{Block, Kind};
use decision::Decision;

/// Recent lines kept verbatim (clipped) as evidence for endings without a decisive line.
const RECENT_LINES: usize = 32;
/// Lines kept per failure block (frames beyond [`FRAMES_PER_CAUSE`] per cause are dropped).
const BLOCK_MAX_LINES: usize = 600;
/// Frames kept after each exception header / `Caused by`.
const FRAMES_PER_CAUSE: usize = 40;
/// Failure blocks kept as context before the decisive one.
const EARLIER_BLOCKS: usize = 24;
/// Longest progress JSON collected (bytes); longer reports are read as cut.
const PROGRESS_MAX_BYTES: usize = 4 << 20;

/// How the driver ended, as the trial (or `rehearse classify`) knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The driver process exited with this code (`None`: killed, or the code is unknown).
    Exited(Option<i64>),
    /// The trial stopped waiting after this many seconds without a verdict.
    TimedOut(u64),
    /// A log file was read to its end (`rehearse classify`); how the driver ended is unknown.
    EndOfInput,
}

/// Watches one restart; see the module docs.
#[derive(Debug, Clone)]
pub struct Watcher {
    ctx: TrialContext,
    rules: &'static RuleTable,
    decided: Option<Classification>,
    announced: bool,
    recent: VecDeque<String>,
    open: Option<Block>,
    /// Inside a WARN/DEBUG/TRACE record: its continuation lines are not failure text.
    skipping: bool,
    facts: Facts,
}

#[derive(Debug, Clone, Default)]
struct Facts {
    driver_started: bool,
    /// The JVM launcher or container runtime failed (a whole log, not an excerpt).
    launcher_failed: bool,
    /// The start line of this query (id = checkpoint's id, or any when unknown).
    query_start: Option<String>,
    /// Whether the last "Starting … [id = …]" line was this query's.
    last_start_is_ours: Option<bool>,
    /// runId of the latest start of our query (driver log or QueryStartedEvent).
    our_run: Option<String>,
    /// Ids of other queries seen (bounded).
    other_ids: Vec<String>,
    other_evidence: Option<String>,
    fresh_start: Option<String>,
    /// Id of the query of the last "Starting … [id = …]" line.
    last_start_id: Option<String>,
    /// "Resuming at batch N" lines, each with the id of the query that printed it.
    resuming: Vec<(Option<String>, u64, String)>,
    /// The resume line of this query (the last one when ids are unknown).
    resuming_at: Option<(u64, String)>,
    first_batch: Option<u64>,
    unproven: Option<(String, Vec<String>)>,
    earlier: VecDeque<Vec<String>>,
    error_class_hint: Option<String>,
    ended_normally: Option<String>,
    unmatched_top: Option<Vec<String>>,
    /// Resume proved by a batch that read no rows, waiting for one that reads rows
    /// ([`TrialContext::require_input_rows`]): (rule, evidence, offsets_match).
    awaiting_rows: Option<(BuiltinRule, Vec<String>, Option<bool>)>,
    /// Resume proved and rows read, waiting for every path the query has to run
    /// ([`TrialContext::require_paths`]): (rule, evidence, offsets_match).
    awaiting_paths: Option<AwaitingPaths>,
    /// The paths of the restarted run, from its progress reports (`exercised.rs`).
    paths: PathTracker,
    /// Semantic warnings seen so far (at most one per code).
    warnings: Vec<Warning>,
    /// Progress reports read (driver log or event log), for [`Watcher::progress_reports`].
    progress_reports: u64,
    /// The first idle signal since the last executed batch, while paths are awaited
    /// ([`Watcher::went_idle`]): the second one ends the watch.
    idle_once: Option<String>,
    /// The first sign seen (`signs.rs`: a WARN/ERROR message explaining a stalled or
    /// unexplained end) and its line.
    sign: Option<(&'static Sign, String)>,
}

/// A proved resume waiting for the query's paths to run.
#[derive(Debug, Clone)]
struct AwaitingPaths {
    rule: BuiltinRule,
    evidence: Vec<String>,
    offsets_match: Option<bool>,
    /// The rows were read by a later batch than the proof (the remedy says so).
    read_later: bool,
}

impl Watcher {
    /// A watcher for a restart of the checkpoint described by `ctx`, with the default rules.
    pub fn new(ctx: TrialContext) -> Watcher {
        Watcher::with_rules(ctx, RuleTable::default_table())
    }

    /// A watcher using another rule table (e.g. a scenario's).
    pub fn with_rules(ctx: TrialContext, rules: &'static RuleTable) -> Watcher {
        Watcher {
            rules,
            decided: None,
            announced: false,
            recent: VecDeque::with_capacity(RECENT_LINES),
            open: None,
            skipping: false,
            facts: Facts {
                paths: PathTracker::new(!ctx.operator_ids.is_empty(), ctx.checkpoint_watermark_ms)
                    .nothing_fresh(ctx.nothing_fresh),
                ..Facts::default()
            },
            ctx,
        }
    }

    /// The checkpoint facts this watcher judges against.
    pub fn context(&self) -> &TrialContext {
        &self.ctx
    }

    /// The paths of the restarted run its progress reports showed so far (`None`: no batch).
    pub(crate) fn exercised(&self) -> Option<super::Exercised> {
        self.facts
            .paths
            .saw_a_batch()
            .then(|| self.facts.paths.exercised())
    }

    /// A watcher like `self` for the later batches of the same run (`rehearse classify` reads
    /// past a proved resume with a fresh watcher): its watermark comparison starts where this
    /// one's did. Without the checkpoint's watermark a fresh watcher took the first later
    /// report's watermark as its base, so a watermark that moved from batch 5 to batch 6 was
    /// "never moved" (new-user pass, session 13).
    pub(crate) fn for_later_batches(&self) -> Watcher {
        let mut w = Watcher::with_rules(self.ctx.clone(), self.rules);
        if let Some(base) = self.facts.paths.watermark_base() {
            w.facts.paths.continue_watermark_from(base);
        }
        w
    }

    /// The most recent driver-log lines (clipped), oldest first.
    pub fn recent_lines(&self) -> impl Iterator<Item = &str> {
        self.recent.iter().map(String::as_str)
    }

    /// How many progress reports the watcher has read. What depends on progress
    /// ([`Watcher::waiting_for`], [`Watcher::so_far`]) changes only when this does, so a caller
    /// asks for it then, not per line.
    pub fn progress_reports(&self) -> u64 {
        self.facts.progress_reports
    }

    /// Batches of the restarted run (executed, this query's) seen so far.
    pub fn batches_seen(&self) -> u64 {
        self.facts.paths.batches()
    }

    /// What the log proved up to now, as if it ended here: the verdict when already certain,
    /// else the judgement at the end of a log, with the batch facts, paths and warnings seen.
    /// For a trial whose own parts failed under it (`trial/parts.rs`): the watch is dropped, what
    /// it had proved is kept as evidence.
    pub fn so_far(&self) -> Classification {
        match &self.decided {
            Some(c) => c.clone(),
            None => self.clone().finish(Ended::EndOfInput),
        }
    }

    /// What a proved resume is still waiting for before it can be `resumed`: the names of the
    /// query's paths that have not run yet (`state-evicted`, `watermark-advanced`, …), or
    /// `rows-read` while no batch after the restart read the seeded records. `None` while the
    /// resume is not proved, or once the verdict is certain. A live trial says it (session-6
    /// pass: a trial waited out its whole timeout printing nothing).
    pub fn waiting_for(&self) -> Option<Vec<String>> {
        if self.decided.is_some() {
            return None;
        }
        if self.facts.awaiting_paths.is_some() {
            let names: Vec<String> = self
                .facts
                .paths
                .exercised()
                .not_run()
                .into_iter()
                .map(|(name, _)| name.to_string())
                .collect();
            return (!names.is_empty()).then_some(names);
        }
        self.facts
            .awaiting_rows
            .as_ref()
            .map(|_| vec!["rows-read".to_string()])
    }

    /// The verdict, if already certain (it is also returned once by `push_*`).
    pub fn verdict(&self) -> Option<&Classification> {
        self.decided.as_ref()
    }

    /// Feeds one driver-log line (without its newline). Returns the classification the
    /// first time the verdict becomes certain, `None` otherwise.
    pub fn push_line(&mut self, line: &str) -> Option<Classification> {
        if self.decided.is_some() {
            return None;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        // ANSI colour (log4j2 `%highlight{…}`, `ESC[31mERROR ESC[0m`) is read as the plain
        // text on every line: a header, and equally an exception line or a stack frame, which a
        // `%highlight{%m%n%throwable}` pattern colours one by one — with escapes left in, the
        // frame rules never matched and a failure read as no rule matched. Reports sanitize
        // evidence anyway, so nothing the user could read is lost.
        let plain = scan::strip_ansi(line);
        let line: &str = &plain;
        if let Some(w) = warnings::line_warning(line) {
            self.warn(w);
        }
        self.remember(line);
        if line.as_bytes().first() == Some(&b'{') && scan::is_json_record(line) {
            if scan::has_anchor(line) || self.open.is_some() {
                if let Some(lines) = scan::json_record_lines(line) {
                    for l in &lines {
                        self.feed(l);
                        if self.decided.is_some() {
                            break;
                        }
                    }
                    return self.announce();
                }
            } else {
                return None;
            }
        }
        self.feed(line);
        self.announce()
    }

    /// Feeds one event-log line (a JSON object). Only `StreamingQueryListener$Query*Event`s
    /// are read; other events are skipped without parsing.
    pub fn push_event(&mut self, json_line: &str) -> Option<Classification> {
        if self.decided.is_some() || !json_line.contains("StreamingQueryListener$Query") {
            return None;
        }
        let Ok(v) = serde_json::from_str::<Value>(json_line.trim()) else {
            return None;
        };
        let event = v.get("Event").and_then(Value::as_str).unwrap_or("");
        let kind = event.rsplit('$').next().unwrap_or("");
        let raw = clip_owned(json_line);
        match kind {
            "QueryStartedEvent" => {
                let id = v.get("id").and_then(Value::as_str).map(str::to_owned);
                let run = v.get("runId").and_then(Value::as_str).map(str::to_owned);
                self.on_query_start(id, run, format!("event log: {raw}"));
            }
            "QueryProgressEvent" => {
                if let Some(p) = v.get("progress") {
                    let progress = Progress::from_json(p);
                    let summary =
                        format!(
                        "event log: QueryProgressEvent id={} runId={} batchId={} startOffsets={}",
                        progress.id.as_deref().unwrap_or("?"),
                        progress.run_id.as_deref().unwrap_or("?"),
                        progress.batch_id.map_or_else(|| "?".into(), |b| b.to_string()),
                        progress
                            .start_offsets
                            .as_deref()
                            .map_or_else(|| "?".into(), show_offsets)
                    );
                    self.on_progress(progress, vec![summary]);
                }
            }
            "QueryTerminatedEvent" => {
                let id = v.get("id").and_then(Value::as_str);
                let ours = match (&self.ctx.query_id, id) {
                    (Some(want), Some(got)) => want == got,
                    _ => true,
                };
                let hint = v
                    .get("errorClassOnException")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                match v.get("exception").and_then(Value::as_str) {
                    Some(exc) if !exc.is_empty() => {
                        let mut b = Block::new(
                            Kind::Termination { ours },
                            "event log: QueryTerminatedEvent with exception",
                        );
                        for l in exc.lines() {
                            b.push(l);
                        }
                        if ours {
                            self.facts.error_class_hint = hint;
                        }
                        self.close(b);
                    }
                    _ if ours => self.facts.ended_normally = Some(format!("event log: {raw}")),
                    _ => {}
                }
            }
            _ => {}
        }
        self.announce()
    }

    /// runId of the latest start of the checkpoint's query seen so far.
    pub fn current_run(&self) -> Option<&str> {
        self.facts.our_run.as_deref()
    }

    /// Whether a failure block (exception, traceback) is open: read, but not yet closed by the
    /// next log record. [`Watcher::finish`] judges it.
    pub fn has_open_block(&self) -> bool {
        self.open.is_some()
    }

    /// The verdict once the driver ended (or the trial stopped waiting). Returns the
    /// already-certain verdict if there was one.
    pub fn finish(mut self, ended: Ended) -> Classification {
        if let Some(b) = self.open.take() {
            self.close(b);
        }
        if let Some(c) = self.decided.take() {
            return c;
        }
        self.decide_at_end(ended)
    }

    // ---- internals -------------------------------------------------------------------

    fn announce(&mut self) -> Option<Classification> {
        match &self.decided {
            Some(c) if !self.announced => {
                self.announced = true;
                Some(c.clone())
            }
            _ => None,
        }
    }

    fn remember(&mut self, line: &str) {
        let mut slot = if self.recent.len() == RECENT_LINES {
            self.recent.pop_front().unwrap_or_default()
        } else {
            String::new()
        };
        slot.clear();
        slot.push_str(&clip(line));
        self.recent.push_back(slot);
    }

    fn feed(&mut self, line: &str) {
        if let Some(block) = self.open.as_mut() {
            if !scan::is_record_start(line) {
                if block.kind == Kind::Progress {
                    // The driver's stdout and stderr are read apart and merged line by line: a
                    // console sink's table (`Batch: 5`, `+----+`) can land inside a progress
                    // report's JSON. Spark pretty-prints every line of it indented or as a
                    // bracket, so any other line came from the other stream; appended, it broke
                    // the JSON and the report was lost (issue 25 §8: a path not seen).
                    if !scan::is_progress_json_line(line) {
                        return;
                    }
                    if block.push_json(line) {
                        let b = self.open.take().expect("open block");
                        self.close(b);
                    }
                } else {
                    // .NET for Spark prefixes every line of a trace with its own header.
                    let l = if line.starts_with('[') {
                        scan::strip_foreign_prefix(line).unwrap_or(line)
                    } else {
                        line
                    };
                    block.push(l);
                }
                return;
            }
            let b = self.open.take().expect("open block");
            self.close(b);
            if self.decided.is_some() {
                return;
            }
        } else if self.skipping && !scan::is_record_start(line) {
            return;
        }
        self.skipping = false;
        self.scan(line);
    }

    /// A line that is not the continuation of an open block. Record headers are judged by
    /// level and message start alone (no search); other lines only if they hold an anchor.
    fn scan(&mut self, line: &str) {
        if let Some(h) = scan::parse_header(line) {
            self.scan_record(line, h.level, h.msg);
            return;
        }
        if !scan::has_anchor(line) {
            return;
        }
        let t = line.trim_start();
        if let Some(rest) = scan::strip_foreign_prefix(t) {
            // YARN's "User class threw exception: …" and .NET's "[Error] [JvmBridge] …": an
            // error without Spark's record header.
            let mut b = Block::new(Kind::Failure, line);
            if !rest.is_empty() {
                b.push(rest);
            }
            self.open = Some(b);
            return;
        }
        if t.starts_with("Traceback (most recent call last)") {
            self.open = Some(Block::new(Kind::Traceback, line));
        } else if let Some(rest) = t.strip_prefix("Exception in thread \"") {
            let thread = rest.split('"').next().unwrap_or("");
            let terminal = thread == "main"
                || (thread.starts_with("stream execution thread")
                    && self.is_ours(scan::parse_pretty_id(thread).0.as_deref()));
            self.open = Some(Block::new(Kind::ThreadDeath { terminal }, line));
        } else if t.starts_with("Spark Command:") {
            self.facts.driver_started = true;
        } else if scan::is_startup_failure(t) {
            self.facts.launcher_failed = true;
            self.open = Some(Block::new(Kind::Startup, line));
        } else if super::rules::is_frame(t) || scan::is_exception_header(t) {
            self.open = Some(Block::new(Kind::Failure, line));
        }
    }

    fn scan_record(&mut self, line: &str, level: Level, msg: &str) {
        if level >= Level::Warn && self.facts.sign.is_none() {
            if let Some(sign) = signs::sign_of(msg) {
                self.facts.sign = Some((sign, clip_owned(line)));
            }
        }
        if level >= Level::Error {
            if msg.contains("terminated with error") {
                let ours = self.is_ours(scan::parse_pretty_id(msg).0.as_deref());
                self.open = Some(Block::new(Kind::Termination { ours }, line));
            } else {
                self.open = Some(Block::new(Kind::Failure, line));
            }
            return;
        }
        // A WARN's (or DEBUG's) stack trace is not failure text: benign WARNs carry traces
        // (e.g. 4.0 reading a 3.x checkpoint). INFO records rarely do, so lines after an
        // INFO line are still looked at (an exception there came from another stream).
        self.skipping = level != Level::Info;
        if let Some(json) = msg.strip_prefix("Streaming query made progress: ") {
            let mut b = Block::new(Kind::Progress, line);
            b.json.push_str(json);
            if b.depth.feed(json) {
                self.close(b);
            } else {
                self.open = Some(b);
            }
        } else if msg.starts_with("Running Spark version") {
            self.facts.driver_started = true;
        } else if msg.starts_with("Streaming query has been idle and waiting for new data") {
            // Spark 3.5+ posts no progress report for an idle trigger (a QueryIdleEvent and
            // this line instead). The line names no query: only trusted when no other query
            // was seen in this driver.
            if self.facts.awaiting_paths.is_some()
                && self.facts.other_ids.is_empty()
                && self.facts.fresh_start.is_none()
            {
                self.went_idle(format!(
                    "the query went idle: \"{}\" (MicroBatchExecution, 3.5+), so every seeded record was read and no batch can run again",
                    clip(msg)
                ));
            }
        } else if let Some(rest) = msg.strip_prefix("Resuming at batch ") {
            if self.facts.last_start_is_ours != Some(false) {
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = n.parse() {
                    let ev = clip_owned(line);
                    if self.facts.resuming.len() < 64 {
                        self.facts
                            .resuming
                            .push((self.facts.last_start_id.clone(), n, ev.clone()));
                    }
                    self.facts.resuming_at = Some((n, ev));
                }
            }
        } else if let Some(load) = super::store_load::parse(msg) {
            // A RocksDB store read a version of the checkpoint's state (`store_load.rs`). The
            // 3.x line names no query: only trusted when no other query ran in this driver; a
            // 4.x line names its run, which must be ours when ours is known.
            let ours = match (&load.run_id, &self.facts.our_run) {
                (Some(line_run), Some(run)) => line_run == run,
                _ => true,
            };
            if ours && self.facts.other_ids.is_empty() {
                self.facts
                    .paths
                    .saw_store_load(load.operator, load.version, clip_owned(line));
            }
        } else if let Some(rest) = msg.strip_prefix("Starting ") {
            if rest.starts_with("new streaming query") {
                if self.facts.last_start_is_ours != Some(false) {
                    self.facts.fresh_start = Some(clip_owned(line));
                }
            } else if scan::find_pretty_id(rest).is_some() {
                let (id, run) = scan::parse_pretty_id(rest);
                self.on_query_start(id, run, clip_owned(line));
            }
        }
    }

    fn is_ours(&self, id: Option<&str>) -> bool {
        match (&self.ctx.query_id, id) {
            (Some(want), Some(got)) => want == got,
            _ => true,
        }
    }

    /// The "Resuming at batch N" of the query a progress report belongs to: matched by id;
    /// without an id, only when every resume line came from one query.
    fn resuming_for(&self, id: Option<&str>) -> Option<u64> {
        let r = &self.facts.resuming;
        match id {
            Some(id) if r.iter().any(|(q, _, _)| q.is_some()) => r
                .iter()
                .rev()
                .find(|(q, _, _)| q.as_deref() == Some(id))
                .map(|(_, n, _)| *n),
            _ => {
                let first = r.first()?;
                r.iter()
                    .all(|(q, _, _)| *q == first.0)
                    .then(|| r.last().map(|(_, n, _)| *n))
                    .flatten()
            }
        }
    }

    fn on_query_start(&mut self, id: Option<String>, run: Option<String>, evidence: String) {
        self.facts.last_start_id.clone_from(&id);
        let ours = self.is_ours(id.as_deref());
        self.facts.last_start_is_ours = Some(ours);
        if ours {
            // With several runs in one log the run judged is the one started last: its start
            // line is the evidence (the same run's event-log start keeps the driver's line).
            if run.is_some() && run != self.facts.our_run {
                self.facts.query_start = Some(evidence);
            } else {
                self.facts.query_start.get_or_insert(evidence);
            }
            self.facts.our_run = run;
        } else if let Some(id) = id {
            self.note_other(id, evidence);
        }
    }

    fn note_other(&mut self, id: String, evidence: String) {
        if self.facts.other_ids.len() < 8 && !self.facts.other_ids.contains(&id) {
            self.facts.other_ids.push(id);
        }
        self.facts.other_evidence.get_or_insert(evidence);
    }

    fn close(&mut self, b: Block) {
        match b.kind {
            Kind::Progress => {
                let p = Progress::from_text(&b.json);
                let mut ev = b.lines;
                if let Some(offs) = &p.start_offsets {
                    ev.push(format!("startOffsets = {}", show_offsets(offs)));
                }
                self.on_progress(p, ev);
            }
            _ if b.is_terminal() => self.decide_failure(b),
            _ => {
                if self.facts.earlier.len() == EARLIER_BLOCKS {
                    self.facts.earlier.pop_front();
                }
                self.facts.earlier.push_back(b.lines);
            }
        }
    }
}
