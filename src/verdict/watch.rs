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
use super::warnings::{self, Warning};
use super::{BatchId, Classification, TrialContext, Verdict};

mod at_end;

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
#[derive(Debug)]
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

#[derive(Debug, Default)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// ERROR "Query … terminated with error" (`ours`: this query's).
    Termination { ours: bool },
    /// Python `Traceback (most recent call last):` (PySpark prints it on stdout).
    Traceback,
    /// `Exception in thread "…"` (`terminal`: main, or this query's stream thread).
    ThreadDeath { terminal: bool },
    /// JVM launcher or container runtime failure.
    Startup,
    /// Any other ERROR/FATAL record, or a bare exception / stack frame.
    Failure,
    /// A "Streaming query made progress" JSON being collected.
    Progress,
}

#[derive(Debug)]
struct Block {
    kind: Kind,
    lines: Vec<String>,
    frames_run: usize,
    omitted: usize,
    json: String,
    depth: JsonDepth,
}

impl Block {
    fn new(kind: Kind, first: &str) -> Block {
        Block {
            kind,
            lines: vec![first.trim_end().to_owned()],
            frames_run: 0,
            omitted: 0,
            json: String::new(),
            depth: JsonDepth::default(),
        }
    }

    fn is_terminal(&self) -> bool {
        match self.kind {
            Kind::Termination { ours } => ours,
            Kind::ThreadDeath { terminal } => terminal,
            Kind::Traceback | Kind::Startup => true,
            Kind::Failure | Kind::Progress => false,
        }
    }

    /// Adds a continuation line, keeping every message/cause line and a bounded run of frames.
    fn push(&mut self, line: &str) {
        if self.lines.len() >= BLOCK_MAX_LINES {
            self.omitted += 1;
            return;
        }
        if super::rules::is_frame(line) {
            self.frames_run += 1;
            if self.frames_run > FRAMES_PER_CAUSE {
                self.omitted += 1;
                return;
            }
        } else {
            self.frames_run = 0;
        }
        self.lines.push(line.trim_end().to_owned());
    }

    /// Adds a line of progress JSON; `true` once the JSON object closed.
    fn push_json(&mut self, line: &str) -> bool {
        if self.json.len() > PROGRESS_MAX_BYTES {
            return false;
        }
        let key = line.trim_start();
        if self.lines.len() < 64 && (key.starts_with("\"batchId\"") || key.starts_with("\"id\"")) {
            self.lines.push(clip_owned(line));
        }
        self.json.push('\n');
        self.json.push_str(line);
        self.depth.feed(line)
    }
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
                paths: PathTracker::new(!ctx.operator_ids.is_empty(), ctx.checkpoint_watermark_ms),
                ..Facts::default()
            },
            ctx,
        }
    }

    /// The checkpoint facts this watcher judges against.
    pub fn context(&self) -> &TrialContext {
        &self.ctx
    }

    /// The most recent driver-log lines (clipped), oldest first.
    pub fn recent_lines(&self) -> impl Iterator<Item = &str> {
        self.recent.iter().map(String::as_str)
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
        slot.push_str(clip(line));
        self.recent.push_back(slot);
    }

    fn feed(&mut self, line: &str) {
        if let Some(block) = self.open.as_mut() {
            if !scan::is_record_start(line) {
                if block.kind == Kind::Progress {
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

    fn on_progress(&mut self, p: Progress, evidence: Vec<String>) {
        let Some(evidence) = self.unless_earlier_run(&p, evidence) else {
            return;
        };
        if self.is_ours(p.id.as_deref()) && self.facts.fresh_start.is_none() {
            self.facts.paths.observe(&p);
        }
        if self.facts.awaiting_paths.is_some() {
            self.confirm_paths();
            return;
        }
        if self.facts.awaiting_rows.is_some() {
            self.confirm_rows_read(&p, evidence);
            return;
        }
        let resuming_at = self.resuming_for(p.id.as_deref());
        let j = judge_progress(&self.ctx, &p, resuming_at, self.facts.fresh_start.is_some());
        if j == ProgressJudgement::OtherQuery {
            if let Some(id) = p.id {
                self.note_other(id, evidence.first().cloned().unwrap_or_default());
            }
            return;
        }
        if p.executed && self.facts.first_batch.is_none() {
            self.facts.first_batch = p.batch_id;
        }
        let mut ev = Vec::new();
        match j {
            ProgressJudgement::NotProof(reason) => {
                // The common case in a long log: keep only the last one, without copying context.
                self.facts.unproven = Some((reason, evidence));
            }
            ProgressJudgement::Resumed {
                rule,
                offsets_match,
            } => {
                ev.extend(self.start_evidence());
                ev.extend(evidence);
                self.on_resume_proved(&p, rule, offsets_match, ev);
            }
            ProgressJudgement::StartedFresh {
                rule,
                reason,
                offsets_match,
            } => {
                ev.extend(self.start_evidence());
                ev.extend(evidence);
                ev.extend(self.facts.fresh_start.clone());
                ev.push(reason);
                self.decide(Decision::builtin(rule, ev).offsets_match(offsets_match));
            }
            ProgressJudgement::OtherQuery => {}
        }
    }

    /// The report's evidence, unless it is a report of an earlier run of our query (logs
    /// concatenated, or an event log of several runs): that proves nothing about the run
    /// that started last, and is kept only as the last unproven report.
    fn unless_earlier_run(&mut self, p: &Progress, evidence: Vec<String>) -> Option<Vec<String>> {
        if let (Some(ours), Some(run)) = (&self.facts.our_run, &p.run_id) {
            if ours != run {
                self.facts.unproven = Some((
                    format!("a progress report of run {run}, not of the run started last ({ours})"),
                    evidence,
                ));
                return None;
            }
        }
        Some(evidence)
    }

    /// After a resume proof that read no rows: the first batch of our query that reads rows
    /// makes it `resumed` (see [`TrialContext::require_input_rows`]).
    /// Keeps a semantic warning, once per code (the first evidence wins).
    fn warn(&mut self, w: Warning) {
        if !self.facts.warnings.iter().any(|k| k.code == w.code) {
            self.facts.warnings.push(w);
        }
    }

    fn confirm_rows_read(&mut self, p: &Progress, evidence: Vec<String>) {
        let Some((rule, proof, offsets_match)) = self.facts.awaiting_rows.clone() else {
            return;
        };
        let ours = match (&self.ctx.query_id, &p.id) {
            (Some(q), Some(id)) => q == id,
            _ => true,
        };
        if !ours || p.input_rows == 0 {
            return;
        }
        let mut ev = proof;
        ev.extend(evidence);
        ev.push(format!(
            "batch {} read {} rows after the restart: the restarted query processed new records through its state",
            p.batch_id.map(|b| b.to_string()).unwrap_or_else(|| "-".into()),
            p.input_rows
        ));
        self.facts.awaiting_rows = None;
        self.resume_unless_paths_wait(AwaitingPaths {
            rule,
            evidence: ev,
            offsets_match,
            read_later: true,
        });
    }

    /// The resume is proved and a batch read rows: `resumed` now, unless the trial needs every
    /// path to run ([`TrialContext::require_paths`]) and one has not yet.
    fn resume_unless_paths_wait(&mut self, proof: AwaitingPaths) {
        if self.ctx.require_paths && !self.facts.paths.exercised().all_ran() {
            self.facts.awaiting_paths = Some(proof);
            return;
        }
        self.decide_resumed(proof);
    }

    /// `resumed`, the exercised paths' evidence appended. The proof's rule id stays; in a live
    /// trial the remedy says a later batch processed new records.
    fn decide_resumed(&mut self, proof: AwaitingPaths) {
        let AwaitingPaths {
            rule,
            evidence: mut ev,
            offsets_match,
            read_later,
        } = proof;
        let e = self.facts.paths.exercised();
        if self.facts.paths.saw_a_batch() {
            ev.push(format!("exercised paths: {}", e.summary()));
            for (name, p) in e.paths() {
                if let Some(p) = p {
                    ev.push(format!("{name}: {}", p.evidence));
                }
            }
            ev.extend(e.not_measured.iter().cloned());
        }
        let d = Decision::builtin(rule, ev).offsets_match(offsets_match);
        let d = if read_later {
            d.remedy(BuiltinRule::ResumedAndReadRows.remedy())
        } else {
            d
        };
        self.decide(d);
    }

    /// While waiting for the paths: `resumed` once every one ran.
    fn confirm_paths(&mut self) {
        if !self.facts.paths.exercised().all_ran() {
            return;
        }
        if let Some(proof) = self.facts.awaiting_paths.take() {
            self.decide_resumed(proof);
        }
    }

    /// A progress report proved the resume: `resumed` now, or, when the trial needs a batch
    /// that read rows and this one read none, once such a batch comes.
    fn on_resume_proved(
        &mut self,
        p: &Progress,
        rule: BuiltinRule,
        offsets_match: Option<bool>,
        mut ev: Vec<String>,
    ) {
        for w in warnings::progress_warnings(&self.ctx, p) {
            self.warn(w);
        }
        if offsets_match == Some(true) {
            ev.push(format!(
                "start offsets equal the checkpoint's committed offsets {}",
                show_offsets(&self.ctx.committed_offsets)
            ));
        } else {
            ev.push("start offsets NOT checked: the checkpoint's committed offsets are unknown (give --checkpoint); batch ids continue Spark's own \"Resuming at batch N\"".into());
        }
        if self.ctx.require_input_rows && p.input_rows == 0 {
            // The re-run of an empty pending batch: the offsets continue, but no row went
            // through the query yet. Wait for a batch that reads the fresh records.
            ev.push(format!(
                "batch {} read no rows; waiting for a batch that reads the fresh records",
                p.batch_id
                    .map(|b| b.to_string())
                    .unwrap_or_else(|| "-".into())
            ));
            self.facts.awaiting_rows = Some((rule, ev, offsets_match));
            return;
        }
        self.resume_unless_paths_wait(AwaitingPaths {
            rule,
            evidence: ev,
            offsets_match,
            read_later: false,
        });
    }

    /// The start line of our query and Spark's resume line, when seen.
    fn start_evidence(&self) -> Vec<String> {
        let mut ev = Vec::new();
        ev.extend(self.facts.query_start.clone());
        ev.extend(self.facts.resuming_at.as_ref().map(|r| r.1.clone()));
        ev
    }

    fn decide_failure(&mut self, b: Block) {
        let facts = self.run_facts();
        let earlier: Vec<&[String]> = self.facts.earlier.iter().map(Vec::as_slice).collect();
        let mut j = judge_failure(
            self.rules,
            &self.ctx,
            &b.lines,
            &earlier,
            self.facts.error_class_hint.as_deref(),
            facts,
        );
        if let Some(fresh) = self.facts.fresh_start.clone() {
            let mut ev = vec![fresh];
            ev.extend(j.evidence);
            ev.push(format!(
                "the query failed ({} by rule {}) after starting without the checkpoint's offsets",
                j.verdict, j.rule
            ));
            self.decide(
                Decision::builtin(BuiltinRule::NewQueryStarted, ev).error_class(j.error_class),
            );
            return;
        }
        let mut ev = Vec::new();
        ev.extend(self.facts.resuming_at.as_ref().map(|r| r.1.clone()));
        ev.extend(std::mem::take(&mut j.evidence));
        if b.omitted > 0 {
            ev.push(format!(
                "({} stack lines of this failure not kept)",
                b.omitted
            ));
        }
        self.decide(Decision::judged(j, ev));
    }

    fn run_facts(&self) -> RunFacts {
        RunFacts {
            driver_started: self.facts.driver_started,
            query_started: self.facts.query_start.is_some(),
        }
    }

    fn decide(&mut self, d: Decision) {
        self.decided = Some(self.classification(d));
    }

    /// The classification of a decision: evidence deduplicated, the batch facts this watcher
    /// saw, and for a failed restart the `startingOffsets` a fresh start could use.
    fn classification(&self, d: Decision) -> Classification {
        let Decision {
            verdict,
            rule,
            mut evidence,
            mut remedy,
            start_offsets_match,
            error_class,
        } = d;
        dedup_keep_order(&mut evidence);
        if matches!(
            verdict,
            Verdict::StateStoreError
                | Verdict::OffsetLogError
                | Verdict::PlanChange
                | Verdict::UnclassifiedFailure
        ) {
            if let Some(hint) = starting_offsets_hint(&self.ctx) {
                remedy = format!("{remedy} {hint}");
            }
        }
        Classification {
            verdict,
            rule,
            evidence,
            last_committed_batch: self.ctx.last_committed_batch,
            first_batch_after_restart: self.facts.first_batch.map(BatchId),
            start_offsets_match,
            remedy,
            resuming_at: self.facts.resuming_at.as_ref().map(|r| BatchId(r.0)),
            error_class,
            excerpt: self.is_excerpt(),
            warnings: self.facts.warnings.clone(),
            exercised: self
                .facts
                .paths
                .saw_a_batch()
                .then(|| self.facts.paths.exercised()),
            several_runs: None,
        }
    }
}

/// A verdict with its rule, remedy and evidence, before the watcher adds what it knows of
/// the run (batch ids, the `startingOffsets` hint).
#[derive(Debug)]
struct Decision {
    verdict: Verdict,
    rule: String,
    remedy: String,
    evidence: Vec<String>,
    start_offsets_match: Option<bool>,
    error_class: Option<String>,
}

impl Decision {
    /// A built-in rule's verdict, id and remedy.
    fn builtin(rule: BuiltinRule, evidence: Vec<String>) -> Decision {
        Decision {
            verdict: rule.verdict(),
            rule: rule.id().to_owned(),
            remedy: rule.remedy().to_owned(),
            evidence,
            start_offsets_match: None,
            error_class: None,
        }
    }

    /// A judged failure's verdict, rule, remedy and error class, with this evidence.
    fn judged(j: FailureJudgement, evidence: Vec<String>) -> Decision {
        Decision {
            verdict: j.verdict,
            rule: j.rule,
            remedy: j.remedy,
            evidence,
            start_offsets_match: None,
            error_class: j.error_class,
        }
    }

    fn offsets_match(self, start_offsets_match: Option<bool>) -> Decision {
        Decision {
            start_offsets_match,
            ..self
        }
    }

    fn error_class(self, error_class: Option<String>) -> Decision {
        Decision {
            error_class,
            ..self
        }
    }

    fn remedy(self, remedy: &str) -> Decision {
        Decision {
            remedy: remedy.to_owned(),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const START: &str = "26/11/30 13:10:15.454 INFO MicroBatchExecution: Starting q [id = 347f, runId = f932]. Use file:/c to store the query checkpoint.";
    const RESUMING: &str = "26/11/30 13:10:15.945 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {KafkaV2[Subscribe[t]]: {\"t\":{\"0\":42}}} and available offsets {KafkaV2[Subscribe[t]]: {\"t\":{\"0\":50}}}";
    const VERSION_WARN: &str = "26/11/30 13:09:06.682 WARN OffsetSeqMetadata: Conf 'spark.sql.streaming.stateStore.encodingFormat' was not found in the offset log, using default value 'unsaferow'";

    fn ctx() -> TrialContext {
        TrialContext {
            query_id: Some("347f".into()),
            last_committed_batch: Some(BatchId(3)),
            pending_batch: None,
            committed_offsets: vec![Some(json!({"t":{"0":42}}))],
            operator_ids: vec![0],
            require_input_rows: false,
            require_paths: false,
            checkpoint_watermark_ms: None,
            job: None,
        }
    }

    /// A pretty progress report as `ProgressReporter` (4.0) prints it.
    fn progress(logger: &str, batch: u64, start: &str) -> String {
        format!(
            "26/11/30 13:09:12.149 INFO {logger}: Streaming query made progress: {{\n  \"id\" : \"347f\",\n  \"runId\" : \"f932\",\n  \"batchId\" : {batch},\n  \"numInputRows\" : 8,\n  \"durationMs\" : {{\n    \"addBatch\" : 900\n  }},\n  \"stateOperators\" : [ ],\n  \"sources\" : [ {{\n    \"description\" : \"KafkaV2[Subscribe[t]]\",\n    \"startOffset\" : {start},\n    \"endOffset\" : {{\n      \"t\" : {{\n        \"0\" : 50\n      }}\n    }},\n    \"numInputRows\" : 8\n  }} ],\n  \"sink\" : {{\n    \"description\" : \"console\"\n  }}\n}}"
        )
    }

    fn run(log: &str, ctx: TrialContext, ended: Ended) -> Classification {
        let mut w = Watcher::new(ctx);
        for l in log.lines() {
            w.push_line(l);
        }
        w.finish(ended)
    }

    const STATE_FAILURE: &str = "26/11/30 13:13:34.338 ERROR MicroBatchExecution: Query q [id = 347f, runId = f932] terminated with error
org.apache.spark.sql.execution.streaming.state.StateStoreKeySchemaNotCompatible: [STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE] Provided key schema does not match existing state key schema. SQLSTATE: XXKST
\tat org.apache.spark.sql.execution.streaming.state.StateSchemaCompatibilityChecker.check(StateSchemaCompatibilityChecker.scala:1)
26/11/30 13:13:34.339 INFO MicroBatchExecution: Async log purge executor pool for query q [id = 347f, runId = f932] has been shutdown";

    #[test]
    fn resuming_line_then_failure_is_never_resumed() {
        let log = format!("{START}\n{RESUMING}\n{STATE_FAILURE}");
        for ended in [
            Ended::Exited(Some(1)),
            Ended::EndOfInput,
            Ended::TimedOut(60),
        ] {
            let c = run(&log, ctx(), ended);
            assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
            assert_eq!(c.resuming_at, Some(BatchId(4)));
            assert_eq!(
                c.error_class.as_deref(),
                Some("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE")
            );
        }
        // Even with nothing after "Resuming" and a clean exit: not resumed.
        let c = run(
            &format!("{START}\n{RESUMING}"),
            ctx(),
            Ended::Exited(Some(0)),
        );
        assert_ne!(c.verdict, Verdict::Resumed);
        let c = run(
            &format!("{START}\n{RESUMING}"),
            TrialContext::default(),
            Ended::EndOfInput,
        );
        assert_ne!(c.verdict, Verdict::Resumed);
    }

    #[test]
    fn no_progress_at_all_is_never_resumed() {
        for ended in [
            Ended::Exited(Some(0)),
            Ended::Exited(None),
            Ended::TimedOut(300),
            Ended::EndOfInput,
        ] {
            for ctx in [ctx(), TrialContext::default()] {
                let c = run(&format!("{START}\n{VERSION_WARN}"), ctx, ended);
                assert_ne!(c.verdict, Verdict::Resumed, "{ended:?}");
            }
        }
        assert_eq!(
            run(START, ctx(), Ended::TimedOut(300)).verdict,
            Verdict::Timeout
        );
        assert_eq!(
            run("", ctx(), Ended::Exited(Some(127))).verdict,
            Verdict::EnvironmentError
        );
    }

    #[test]
    fn a_plain_version_change_is_never_plan_change() {
        let warns = "26/11/30 13:09:06.682 WARN OffsetSeqMetadata: Conf 'spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan' was not found in the offset log, using default value 'true'
26/11/30 13:09:07.702 WARN StateMetadataPartitionReader: Failed to find operator metadata for path=file:/c with exception=java.io.FileNotFoundException: File file:/c/state/0/_metadata/metadata does not exist
26/11/30 13:09:07.733 WARN IncrementalExecution: Error reading metadata path for stateful operator. This may due to no prior committed batch, or previously run on lower versions: File file:/c/state/0/_metadata/metadata does not exist
26/11/30 13:09:11.070 WARN HDFSBackedStateStoreProvider: The state for version 4 doesn't exist in loadedMaps. Reading snapshot file and delta files if needed...Note that this is normal for the first batch of starting query.";
        let resumed = format!(
            "{START}\n{VERSION_WARN}\n{warns}\n{RESUMING}\n{}",
            progress(
                "ProgressReporter",
                4,
                "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }"
            )
        );
        let c = run(&resumed, ctx(), Ended::Exited(Some(0)));
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
        // Without any progress, the warnings alone decide nothing, and never plan-change.
        for ended in [
            Ended::Exited(Some(0)),
            Ended::Exited(Some(1)),
            Ended::EndOfInput,
        ] {
            let c = run(
                &format!("{START}\n{VERSION_WARN}\n{warns}\n{RESUMING}"),
                ctx(),
                ended,
            );
            assert_ne!(c.verdict, Verdict::PlanChange, "{c:?}");
            assert_ne!(c.verdict, Verdict::Resumed, "{c:?}");
        }
    }

    /// `progress` with another batch id and row count (an empty re-run reads 0 rows).
    fn progress_rows(batch: u64, start: &str, rows: u64) -> String {
        progress("MicroBatchExecution", batch, start).replace(
            "\"numInputRows\" : 8",
            &format!("\"numInputRows\" : {rows}"),
        )
    }

    #[test]
    fn a_live_trial_waits_for_a_batch_that_reads_rows_before_resumed() {
        let strict = TrialContext {
            require_input_rows: true,
            ..ctx()
        };
        let empty_rerun = progress_rows(4, "{\"t\":{\"0\":42}}", 0);
        let data = progress_rows(5, "{\"t\":{\"0\":42}}", 5);
        // The empty re-run alone decides nothing live ...
        let mut w = Watcher::new(strict.clone());
        let mut early = None;
        for l in format!("{START}\n{empty_rerun}").lines() {
            early = early.or(w.push_line(l));
        }
        assert!(early.is_none(), "{early:?}");
        // ... a batch that reads rows then proves it, citing both batches ...
        for l in data.lines() {
            early = early.or(w.push_line(l));
        }
        let c = early.expect("resumed once rows were read");
        assert_eq!(c.verdict, Verdict::Resumed);
        assert_eq!(c.first_batch_after_restart, Some(BatchId(4)));
        assert_eq!(c.start_offsets_match, Some(true));
        assert!(
            c.evidence.iter().any(|e| e.contains("batch 5 read 5 rows")),
            "{c:?}"
        );
        // ... a failure after the empty re-run is the failure ...
        let c = run(
            &format!("{START}\n{empty_rerun}\n{STATE_FAILURE}"),
            strict.clone(),
            Ended::Exited(Some(1)),
        );
        assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
        // ... and no such batch before the end is not resumed.
        let c = run(
            &format!("{START}\n{empty_rerun}"),
            strict,
            Ended::TimedOut(60),
        );
        assert_eq!(c.verdict, Verdict::Timeout, "{c:?}");
        assert_eq!(c.rule, "resumed-without-reading-rows");
        // classify of a finished log (no fresh-record promise): the re-run proves.
        let c = run(&format!("{START}\n{empty_rerun}"), ctx(), Ended::EndOfInput);
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    }

    /// A one-line progress report of a windowed aggregation: state rows, watermark, sink rows.
    fn windowed(batch: u64, rows: u64, state: (i64, i64, i64), wm: &str, sink: i64) -> String {
        let p = json!({
            "id": "347f", "runId": "f932", "batchId": batch, "numInputRows": rows,
            "durationMs": {"addBatch": 10},
            "eventTime": {"watermark": wm},
            "stateOperators": [{"numRowsTotal": state.0, "numRowsUpdated": state.1, "numRowsRemoved": state.2}],
            "sources": [{"startOffset": {"t": {"0": 42}}, "numInputRows": rows}],
            "sink": {"description": "KafkaSink", "numOutputRows": sink}
        });
        format!(
            "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {p}"
        )
    }

    fn live_paths_ctx() -> TrialContext {
        TrialContext {
            require_input_rows: true,
            require_paths: true,
            checkpoint_watermark_ms: crate::text::parse_utc_millis("2024-01-01T00:00:30.000Z"),
            ..ctx()
        }
    }

    #[test]
    fn a_live_trial_is_resumed_only_once_every_path_of_the_query_ran() {
        // Batch 4 resumes and reads rows: state loaded and updated, but no window closed yet.
        let first = windowed(4, 5, (6, 2, 0), "2024-01-01T00:00:30.000Z", 0);
        // Batch 5 (the no-data batch once the watermark moved): windows evicted and written.
        let closed = windowed(5, 0, (2, 0, 4), "2024-01-01T00:00:50.000Z", 4);
        let mut w = Watcher::new(live_paths_ctx());
        assert!(w.push_line(START).is_none());
        assert!(
            w.push_line(&first).is_none(),
            "not resumed before a window closed"
        );
        let c = w.push_line(&closed).expect("resumed once every path ran");
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
        let e = c.exercised.as_ref().expect("paths recorded");
        assert!(e.all_ran(), "{e:?}");
        assert!(
            c.evidence
                .iter()
                .any(|l| l.contains("state-evicted: batch 5: numRowsRemoved 4")),
            "{:?}",
            c.evidence
        );
        // The trial ends before a window closed: resume-unproven, naming the paths.
        for ended in [Ended::TimedOut(240), Ended::Exited(Some(0))] {
            let c = run(
                &format!(
                    "{START}
{first}"
                ),
                live_paths_ctx(),
                ended,
            );
            assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
            assert_eq!(c.rule, "resume-unproven");
            assert!(
                c.remedy
                    .ends_with("Paths not run: watermark-advanced, state-evicted, sink-wrote."),
                "{}",
                c.remedy
            );
            assert!(
                c.evidence.iter().any(|l| l.contains("no window closed")),
                "{c:?}"
            );
            assert_eq!(c.start_offsets_match, Some(true));
        }
        // The sink failing once the first window closes is the failure, never resumed.
        let c = run(
            &format!(
                "{START}
{first}
{STATE_FAILURE}"
            ),
            live_paths_ctx(),
            Ended::Exited(Some(1)),
        );
        assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
        // classify of a finished log: the paths are evidence, the first batch proves.
        let c = run(
            &format!(
                "{START}
{first}"
            ),
            ctx(),
            Ended::EndOfInput,
        );
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
        assert!(!c.exercised.expect("recorded").all_ran());
    }

    #[test]
    fn a_stateless_query_is_resumed_once_its_sink_wrote() {
        let stateless = |batch: u64, sink: i64| {
            let p = json!({
                "id": "347f", "runId": "f932", "batchId": batch, "numInputRows": 3,
                "durationMs": {"addBatch": 10}, "stateOperators": [],
                "sources": [{"startOffset": {"t": {"0": 42}}, "numInputRows": 3}],
                "sink": {"description": "KafkaSink", "numOutputRows": sink}
            });
            format!("26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {p}")
        };
        let ctx = TrialContext {
            operator_ids: vec![],
            require_input_rows: true,
            require_paths: true,
            ..ctx()
        };
        let mut w = Watcher::new(ctx.clone());
        w.push_line(START);
        let c = w
            .push_line(&stateless(4, 3))
            .expect("every path ran at once");
        assert_eq!(c.verdict, Verdict::Resumed);
        let e = c.exercised.expect("recorded");
        assert_eq!(e.state_loaded, None);
        assert_eq!(e.state_evicted, None);
        // A filter that drops every fresh record: the sink never wrote, not resumed.
        let c = run(
            &format!(
                "{START}
{}",
                stateless(4, 0)
            ),
            ctx,
            Ended::TimedOut(60),
        );
        assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
        assert!(
            c.remedy.ends_with("Paths not run: sink-wrote."),
            "{}",
            c.remedy
        );
    }

    #[test]
    fn batch_zero_after_committed_batches_is_started_fresh() {
        let log = format!(
            "{START}\n26/11/30 13:10:15.945 INFO MicroBatchExecution: Starting new streaming query.\n{}",
            progress("MicroBatchExecution", 0, "null")
        );
        let mut w = Watcher::new(ctx());
        let mut early = None;
        for l in log.lines() {
            early = early.or(w.push_line(l));
        }
        let c = early.expect("batch 0 after committed batches is certain at once");
        assert_eq!(c.verdict, Verdict::StartedFresh);
        assert_eq!(c.rule, "batch-ids-restarted");
    }

    #[test]
    fn right_batch_id_with_wrong_start_offsets_is_not_resumed() {
        let log = format!(
            "{START}\n{}",
            progress(
                "runtime.ProgressReporter",
                4,
                "{\n      \"t\" : {\n        \"0\" : 0\n      }\n    }"
            )
        );
        let c = run(&log, ctx(), Ended::Exited(Some(0)));
        assert_eq!(c.verdict, Verdict::StartedFresh, "{c:?}");
        assert_eq!(c.start_offsets_match, Some(false));
        assert_eq!(c.rule, "start-offsets-differ");
    }

    #[test]
    fn progress_is_proof_whatever_logger_prints_it() {
        for logger in [
            "MicroBatchExecution",
            "ProgressReporter",
            "runtime.ProgressReporter",
        ] {
            let log = format!(
                "{START}\n{RESUMING}\n{}",
                progress(
                    logger,
                    4,
                    "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }"
                )
            );
            let mut w = Watcher::new(ctx());
            let decided = log
                .lines()
                .find_map(|l| w.push_line(l))
                .expect("certain on the progress line");
            assert_eq!(decided.verdict, Verdict::Resumed, "{logger}");
            assert_eq!(decided.start_offsets_match, Some(true));
            assert_eq!(decided.first_batch_after_restart, Some(BatchId(4)));
        }
    }

    #[test]
    fn progress_printing_offsets_as_json_strings_is_read_too() {
        let log = format!(
            "{START}\n{}",
            progress("ProgressReporter", 4, "\"{\\\"t\\\":{\\\"0\\\":42}}\"")
        );
        assert_eq!(
            run(&log, ctx(), Ended::EndOfInput).verdict,
            Verdict::Resumed
        );
    }

    #[test]
    fn progress_of_another_query_is_not_proof() {
        let other = progress(
            "ProgressReporter",
            4,
            "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }",
        )
        .replace("347f", "9999");
        let c = run(
            &format!("{START}\n{RESUMING}\n{other}"),
            ctx(),
            Ended::Exited(Some(0)),
        );
        assert_ne!(c.verdict, Verdict::Resumed, "{c:?}");
    }

    #[test]
    fn resume_line_of_one_query_is_not_proof_for_another() {
        // No checkpoint given: only Spark's own resume line ties a batch to the checkpoint,
        // and it must be the resume line of the query that made the progress.
        let other_start = START
            .replace("347f", "9999")
            .replace("Starting q ", "Starting other ");
        let other = progress(
            "ProgressReporter",
            4,
            "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }",
        )
        .replace("347f", "9999");
        let log = format!("{START}\n{RESUMING}\n{other_start}\n{other}");
        let c = run(&log, TrialContext::default(), Ended::Exited(Some(0)));
        assert_ne!(c.verdict, Verdict::Resumed, "{c:?}");
        // Its own resume line makes it continuity proof (offsets unchecked).
        let log = format!("{other_start}\n{}\n{other}", RESUMING);
        let c = run(&log, TrialContext::default(), Ended::Exited(Some(0)));
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
        assert_eq!(c.start_offsets_match, None);
    }

    #[test]
    fn failing_or_ending_before_the_query_started_gives_one_rule_and_remedy() {
        let spark = "26/11/30 13:09:01.000 INFO SparkContext: Running Spark version 4.0.1";
        let died = "Exception in thread \"main\" java.lang.IllegalArgumentException: bad option\n\tat org.example.Job.main(Job.java:1)";
        let failed = run(&format!("{spark}\n{died}"), ctx(), Ended::Exited(Some(1)));
        let ended = run(spark, ctx(), Ended::Exited(Some(0)));
        for c in [&failed, &ended] {
            assert_eq!(c.verdict, Verdict::EnvironmentError, "{c:?}");
            assert_eq!(c.rule, "failed-before-query-start");
            assert!(
                c.remedy
                    .starts_with("The driver ended before the streaming query started"),
                "{}",
                c.remedy
            );
        }
    }

    #[test]
    fn a_warn_with_a_stack_trace_is_not_failure_text() {
        let log = format!(
            "{START}\n26/11/30 13:10:18.793 WARN TaskSetManager: Lost task 0.0 in stage 1.0 (TID 1): retrying\njava.lang.IllegalStateException: Error reading delta file file:/c/state/0/0/2.delta of HDFSStateStoreProvider[id = (op=0,part=0),dir = file:/c/state/0/0]: file:/c/state/0/0/2.delta does not exist\n\tat org.apache.spark.Foo.bar(Foo.scala:1)"
        );
        let c = run(&log, ctx(), Ended::Exited(Some(0)));
        // No failure was logged and no batch completed: no outcome, not a failure (issue 14).
        assert_eq!(c.verdict, Verdict::NoOutcome, "{c:?}");
        assert_eq!(c.rule, "no-batch-after-restart");
    }

    #[test]
    fn a_finished_log_with_no_batch_and_no_failure_is_no_outcome() {
        // A real driver start, the query's start and Spark's resume line, then the end.
        let log = format!(
            "26/11/30 13:10:14.001 INFO SparkContext: Running Spark version 3.5.3\n{START}\n26/11/30 13:10:15.945 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {{}} and available offsets {{}}"
        );
        for ended in [Ended::EndOfInput, Ended::Exited(Some(0))] {
            let c = run(&log, ctx(), ended);
            assert_eq!(c.verdict, Verdict::NoOutcome, "{c:?}");
            assert!(c.remedy.contains("no failure was logged"), "{}", c.remedy);
            assert!(!c.excerpt);
        }
    }

    #[test]
    fn idle_trigger_report_is_not_proof() {
        let idle = "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {\n  \"id\" : \"347f\",\n  \"batchId\" : 4,\n  \"numInputRows\" : 0,\n  \"durationMs\" : {\n    \"latestOffset\" : 3,\n    \"triggerExecution\" : 3\n  },\n  \"stateOperators\" : [ ],\n  \"sources\" : [ {\n    \"startOffset\" : {\"t\":{\"0\":42}},\n    \"endOffset\" : {\"t\":{\"0\":42}},\n    \"numInputRows\" : 0\n  } ]\n}";
        let c = run(
            &format!("{START}\n{RESUMING}\n{idle}"),
            ctx(),
            Ended::TimedOut(120),
        );
        assert_eq!(c.verdict, Verdict::Timeout, "{c:?}");
    }

    #[test]
    fn termination_is_certain_once_its_exception_block_ends() {
        let mut w = Watcher::new(ctx());
        let lines: Vec<&str> = STATE_FAILURE.lines().collect();
        for l in &lines[..lines.len() - 1] {
            assert!(
                w.push_line(l).is_none(),
                "not before the Caused-by chain ended: {l}"
            );
        }
        let c = w
            .push_line(lines[lines.len() - 1])
            .expect("certain at the next record");
        assert_eq!(c.verdict, Verdict::StateStoreError);
        assert!(w.push_line("anything").is_none(), "announced once");
    }

    #[test]
    fn structured_json_layout_is_read_like_the_pattern_layout() {
        let lines = [
            r#"{"ts":"2026-11-30T13:10:15.454Z","level":"INFO","msg":"Starting q [id = 347f, runId = f932]. Use file:/c to store the query checkpoint.","context":{},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#,
            r#"{"ts":"2026-11-30T13:10:15.945Z","level":"INFO","msg":"Resuming at batch 4 with committed offsets {}","context":{},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#,
            r#"{"ts":"2026-11-30T13:10:16.000Z","level":"ERROR","msg":"Query q [id = 347f, runId = f932] terminated with error","context":{},"exception":{"class":"java.lang.IllegalStateException","msg":"Failed to read log file file:/c/commits/3. Incomplete log file in the offset commit log","stacktrace":"java.lang.IllegalStateException: Failed to read log file file:/c/commits/3. Incomplete log file in the offset commit log\n\tat org.apache.spark.sql.execution.streaming.checkpointing.CommitLog.deserialize(CommitLog.scala:61)"},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#,
        ];
        let c = run(&lines.join("\n"), ctx(), Ended::Exited(Some(1)));
        assert_eq!(c.verdict, Verdict::OffsetLogError, "{c:?}");
        assert_eq!(c.rule, "log-file-incomplete");
        let p = format!(
            r#"{{"ts":"2026-11-30T13:10:17.000Z","level":"INFO","msg":{},"context":{{}},"logger":"org.apache.spark.sql.execution.streaming.runtime.ProgressReporter"}}"#,
            serde_json::to_string(&format!(
                "Streaming query made progress: {}",
                progress("X", 4, "{\"t\":{\"0\":42}}")
                    .split_once("progress: ")
                    .unwrap()
                    .1
            ))
            .unwrap()
        );
        let c = run(&format!("{}\n{p}", lines[0]), ctx(), Ended::EndOfInput);
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    }

    #[test]
    fn pyspark_traceback_alone_is_classified_through_its_wrappers() {
        let log = "Traceback (most recent call last):
  File \"/job.py\", line 57, in <module>
    q.awaitTermination()
pyspark.errors.exceptions.captured.StreamingQueryException: [STREAM_FAILED] Query [id = 347f, runId = f932] terminated with exception: Job aborted due to stage failure: Task 0 in stage 1.0 failed 1 times, most recent failure: Lost task 0.0 in stage 1.0 (TID 1) (host executor driver): java.lang.IllegalStateException: Error reading delta file file:/c/state/0/0/2.delta of HDFSStateStoreProvider[id = (op=0,part=0),dir = file:/c/state/0/0]: file:/c/state/0/0/2.delta does not exist";
        let c = run(log, ctx(), Ended::Exited(Some(1)));
        assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
        assert_eq!(c.rule, "state-delta-file-missing");
        assert!(c.remedy.contains("startingOffsets"), "{}", c.remedy);
        // The same text for an operator the checkpoint does not have: the query changed.
        let c = run(
            &log.replace("state/0/0/2.delta", "state/1/0/1.delta")
                .replace("op=0", "op=1"),
            ctx(),
            Ended::Exited(Some(1)),
        );
        assert_eq!(c.verdict, Verdict::PlanChange, "{c:?}");
        assert_eq!(c.rule, "state-operator-not-in-checkpoint");
    }

    #[test]
    fn event_log_failure_uses_error_class_only_as_a_hint() {
        let mut w = Watcher::new(ctx());
        let ev = r#"{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent","id":"347f","runId":"f932","exception":"org.apache.spark.SparkException: opaque","errorClassOnException":"CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"}"#;
        let c = w.push_event(ev).expect("a terminated event is certain");
        assert_eq!(c.verdict, Verdict::StateStoreError);
        assert!(
            c.evidence
                .iter()
                .any(|e| e.contains("errorClassOnException")),
            "{c:?}"
        );
    }

    #[test]
    fn evidence_lines_are_clipped() {
        let long = STATE_FAILURE.replace("SQLSTATE: XXKST", &"x".repeat(5000));
        let c = run(&long, ctx(), Ended::Exited(Some(1)));
        assert!(c
            .evidence
            .iter()
            .all(|e| e.len() <= crate::verdict::evidence::EVIDENCE_LINE_MAX + 3));
    }
}
