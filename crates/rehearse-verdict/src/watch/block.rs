//! A block of driver-log lines the watcher collects before deciding on it: a failure (its
//! exception and `Caused by` chain, frames bounded) or a progress report's JSON.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
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

#[derive(Debug, Clone)]
pub(super) struct Block {
    pub(super) kind: Kind,
    pub(super) lines: Vec<String>,
    pub(super) frames_run: usize,
    pub(super) omitted: usize,
    pub(super) json: String,
    pub(super) depth: JsonDepth,
}

impl Block {
    pub(super) fn new(kind: Kind, first: &str) -> Block {
        Block {
            kind,
            lines: vec![first.trim_end().to_owned()],
            frames_run: 0,
            omitted: 0,
            json: String::new(),
            depth: JsonDepth::default(),
        }
    }

    pub(super) fn is_terminal(&self) -> bool {
        match self.kind {
            Kind::Termination { ours } => ours,
            Kind::ThreadDeath { terminal } => terminal,
            Kind::Traceback | Kind::Startup => true,
            Kind::Failure | Kind::Progress => false,
        }
    }

    /// Adds a continuation line, keeping every message/cause line and a bounded run of frames.
    pub(super) fn push(&mut self, line: &str) {
        if self.lines.len() >= BLOCK_MAX_LINES {
            self.omitted += 1;
            return;
        }
        if crate::rules::is_frame(line) {
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
    pub(super) fn push_json(&mut self, line: &str) -> bool {
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
