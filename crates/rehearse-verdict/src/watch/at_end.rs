//! What the watcher decides when the driver has ended (or the trial timed out) without a
//! verdict yet: an ordered table of named checks ([`AT_END`]), the first that decides wins,
//! then "no proof of a resume".

use super::*;

impl Watcher {
    /// Whether the lines read are an excerpt (an error pasted from a ticket) rather than a
    /// driver log: nothing says Spark or the query started, resumed or ran a batch, so the
    /// batch facts are unknown. An excerpt is never `resumed`: that needs a progress report.
    pub(super) fn is_excerpt(&self) -> bool {
        let f = &self.facts;
        !f.driver_started
            && !f.launcher_failed
            && f.query_start.is_none()
            && f.fresh_start.is_none()
            && f.resuming_at.is_none()
            && f.first_batch.is_none()
            && f.unproven.is_none()
            && f.other_ids.is_empty()
    }

    /// Step 3a: An excerpt whose failure text no block held (two pasted lines without an
    /// exception header, or a message no block opened for): the rules over all its lines.
    pub(super) fn known_text_in_excerpt(&mut self, end: &Ending) -> Option<Decision> {
        if !self.is_excerpt() || self.recent.is_empty() {
            return None;
        }
        let lines: Vec<String> = self.recent.iter().cloned().collect();
        let mut j = judge_failure(self.rules, &self.ctx, &lines, &[], None, self.run_facts());
        if [
            BuiltinRule::NoRuleMatched,
            BuiltinRule::FailedBeforeQueryStart,
            BuiltinRule::JobFailedBeforeSparkStarted,
        ]
        .iter()
        .any(|r| r.id() == j.rule)
        {
            return None;
        }
        let mut ev = std::mem::take(&mut j.evidence);
        ev.push(format!(
            "(an excerpt: no Spark start, query start or batch was logged; {})",
            end.text
        ));
        Some(Decision::judged(j, ev))
    }

    // ---- the decision table when the driver ended ------------------------------------

    /// The driver ended without a certain verdict: the first of [`AT_END`] that decides,
    /// else [`Watcher::no_resume_proof`].
    pub(super) fn decide_at_end(mut self, ended: Ended) -> Classification {
        let end = Ending::new(ended, &self.recent);
        let d = AT_END
            .iter()
            .find_map(|check| check(&mut self, &end))
            .unwrap_or_else(|| self.no_resume_proof(&end));
        self.classification(d)
    }

    /// Step 1: Spark said it started a new query: whatever followed, the checkpoint was not used.
    pub(super) fn new_query_was_started(&mut self, end: &Ending) -> Option<Decision> {
        let fresh = self.facts.fresh_start.clone()?;
        let ev = vec![fresh, end.text.clone()];
        Some(Decision::builtin(BuiltinRule::NewQueryStarted, ev))
    }

    /// Step 2: Only other query ids ran: the checkpoint's query never started.
    pub(super) fn only_other_queries_ran(&mut self, end: &Ending) -> Option<Decision> {
        let want = self.ctx.query_id.as_deref()?;
        if self.facts.query_start.is_some() || self.facts.other_ids.is_empty() {
            return None;
        }
        let mut ev: Vec<String> = self.facts.other_evidence.iter().cloned().collect();
        ev.push(format!(
            "the checkpoint's query id is {want}, but only {} ran: the checkpoint was not used ({})",
            self.facts.other_ids.join(", "),
            end.text
        ));
        Some(Decision::builtin(BuiltinRule::QueryIdDiffers, ev))
    }

    /// Step 3: Failures seen without a terminal line: the rules over all of them. When no rule
    /// knows them, their top exception is kept for the checks below.
    pub(super) fn failures_without_termination(&mut self, end: &Ending) -> Option<Decision> {
        if self.facts.earlier.is_empty() {
            return None;
        }
        let mut blocks: Vec<Vec<String>> = self.facts.earlier.iter().cloned().collect();
        let primary = blocks.pop().unwrap_or_default();
        let refs: Vec<&[String]> = blocks.iter().map(Vec::as_slice).collect();
        let mut j = judge_failure(
            self.rules,
            &self.ctx,
            &primary,
            &refs,
            self.facts.error_class_hint.as_deref(),
            self.run_facts(),
        );
        if j.rule == BuiltinRule::NoRuleMatched.id()
            || (j.rule == BuiltinRule::FailedBeforeQueryStart.id()
                && end.ended == Ended::EndOfInput)
        {
            self.facts.unmatched_top = Some(j.evidence);
            return None;
        }
        let mut ev = std::mem::take(&mut j.evidence);
        ev.push(format!(
            "({}; no query termination line was seen)",
            end.text
        ));
        Some(Decision::judged(j, ev))
    }

    /// Step 3b: The restart continued the checkpoint, but no batch read rows before the end:
    /// not proof enough for `resumed` (see [`TrialContext::require_input_rows`]).
    pub(super) fn resumed_without_reading_rows(&mut self, end: &Ending) -> Option<Decision> {
        let (_, proof, offsets_match) = self.facts.awaiting_rows.clone()?;
        let mut ev = proof;
        ev.extend(self.facts.unmatched_top.clone().unwrap_or_default());
        ev.extend(end.recent.iter().cloned());
        ev.push(format!("no batch read the fresh records ({})", end.text));
        Some(
            Decision::builtin(BuiltinRule::ResumedWithoutReadingRows, ev)
                .offsets_match(offsets_match),
        )
    }

    /// Step 3c: The restart continued the checkpoint and read rows, but a path the query has
    /// did not run before the end (see [`TrialContext::require_paths`]): not `resumed`.
    pub(super) fn paths_did_not_run(&mut self, end: &Ending) -> Option<Decision> {
        let proof = self.facts.awaiting_paths.clone()?;
        let e = self.facts.paths.exercised();
        let mut ev = proof.evidence;
        ev.extend(e.evidence_lines());
        let names: Vec<&str> = e.not_run().into_iter().map(|(name, _)| name).collect();
        ev.extend(self.facts.unmatched_top.clone().unwrap_or_default());
        ev.extend(end.recent.iter().cloned());
        ev.push(format!(
            "not run before the end ({}): {}",
            end.text,
            names.join(", ")
        ));
        let rule = BuiltinRule::ResumeUnproven;
        let remedy = format!("{} Paths not run: {}.", rule.remedy(), names.join(", "));
        Some(
            Decision::builtin(rule, ev)
                .remedy(&remedy)
                .offsets_match(proof.offsets_match),
        )
    }

    /// Before the end: a live trial waiting for paths sees the query go idle (an idle trigger
    /// report, [`Progress::idle`]). The trial seeds every record before the restart, so the
    /// query has read them all and, with no batch left to run, no path can run any more:
    /// `resume-unproven` now rather than after the whole timeout.
    /// `why`: the idle report or Spark's idle line (3.5+ logs "Streaming query has been idle
    /// and waiting for new data more than N ms." and posts no idle progress report).
    pub(super) fn paths_cannot_run(&mut self, why: String) {
        let end = Ending {
            ended: Ended::EndOfInput,
            text: why,
            recent: Vec::new(),
        };
        if let Some(d) = self.paths_did_not_run(&end) {
            self.decide(d);
        }
    }

    /// The query went idle (`why`: an idle trigger report, or 3.5+'s idle line) while paths are
    /// awaited. The first signal since the last executed batch is only remembered; the second
    /// ends the watch ([`Watcher::paths_cannot_run`]). Spark repeats the signal every
    /// `spark.sql.streaming.noDataProgressEventInterval` (10 s), so this waits one interval
    /// more: a no-data batch (the one that evicts state) whose report reaches us late — through
    /// the event log, which is flushed and polled apart from the driver log — is still seen.
    /// The same scenario gave `resume-unproven` once and `resumed` twice (issue 25 §8).
    pub(super) fn went_idle(&mut self, why: String) {
        match self.facts.idle_once.take() {
            None => self.facts.idle_once = Some(why),
            Some(first) => {
                self.paths_cannot_run(format!("{first}; still idle at the next signal: {why}"))
            }
        }
    }

    /// Step 4: Out of time.
    pub(super) fn timed_out(&mut self, end: &Ending) -> Option<Decision> {
        let Ended::TimedOut(_) = end.ended else {
            return None;
        };
        let mut ev = self.start_evidence();
        if let Some((reason, pev)) = self.facts.unproven.clone() {
            ev.extend(pev);
            ev.push(format!("not proof of resume: {reason}"));
        }
        ev.extend(self.facts.unmatched_top.clone().unwrap_or_default());
        ev.extend(end.recent.iter().cloned());
        ev.push(end.text.clone());
        Some(Decision::builtin(BuiltinRule::NoOutcomeBeforeTimeout, ev))
    }

    /// Step 5: The driver exited and Spark never showed up.
    pub(super) fn spark_did_not_start(&mut self, end: &Ending) -> Option<Decision> {
        let exited = matches!(end.ended, Ended::Exited(_));
        if !exited
            || self.facts.driver_started
            || self.facts.query_start.is_some()
            || self.facts.unmatched_top.is_some()
        {
            return None;
        }
        let mut ev = self.start_evidence();
        ev.extend(end.recent.iter().cloned());
        ev.push(end.text.clone());
        Some(Decision::builtin(BuiltinRule::SparkDidNotStart, ev))
    }

    /// Step 5b: The driver exited after Spark started, before the query started.
    pub(super) fn ended_before_query_start(&mut self, end: &Ending) -> Option<Decision> {
        let exited = matches!(end.ended, Ended::Exited(_));
        if !exited || !self.facts.driver_started || self.facts.query_start.is_some() {
            return None;
        }
        let mut ev = self.start_evidence();
        ev.extend(self.facts.unmatched_top.clone().unwrap_or_default());
        ev.extend(end.recent.iter().cloned());
        ev.push(end.text.clone());
        Some(Decision::builtin(BuiltinRule::FailedBeforeQueryStart, ev))
    }

    /// Step 6: An exception no rule knows.
    pub(super) fn unknown_failure(&mut self, end: &Ending) -> Option<Decision> {
        let top = self.facts.unmatched_top.clone()?;
        let mut ev = self.start_evidence();
        ev.extend(top);
        ev.push(end.text.clone());
        Some(Decision::builtin(BuiltinRule::NoRuleMatched, ev))
    }

    /// Step 7: Progress that proves nothing, or no batch at all: never `resumed`.
    pub(super) fn no_resume_proof(&self, end: &Ending) -> Decision {
        let mut ev = self.start_evidence();
        let rule = if let Some((reason, pev)) = self.facts.unproven.clone() {
            ev.extend(pev);
            ev.push(format!("not proof of resume: {reason}"));
            BuiltinRule::NoResumeProof
        } else {
            BuiltinRule::NoBatchAfterRestart
        };
        ev.extend(self.facts.ended_normally.clone());
        ev.extend(end.recent.iter().cloned());
        ev.push(end.text.clone());
        Decision::builtin(rule, ev)
    }
}

/// A check of the decision table at the end: a decision, or `None` to ask the next one.
pub(super) type EndCheck = fn(&mut Watcher, &Ending) -> Option<Decision>;

/// The decision table when the driver ended without a certain verdict, in order: the first
/// check that decides wins; [`Watcher::no_resume_proof`] decides when none does.
pub(super) const AT_END: [EndCheck; 10] = [
    Watcher::new_query_was_started,
    Watcher::only_other_queries_ran,
    Watcher::failures_without_termination,
    Watcher::known_text_in_excerpt,
    Watcher::resumed_without_reading_rows,
    Watcher::paths_did_not_run,
    Watcher::timed_out,
    Watcher::spark_did_not_start,
    Watcher::ended_before_query_start,
    Watcher::unknown_failure,
];

/// How the driver ended, in words for the evidence, and the last lines it wrote.
pub(super) struct Ending {
    ended: Ended,
    text: String,
    recent: Vec<String>,
}

impl Ending {
    fn new(ended: Ended, recent: &VecDeque<String>) -> Ending {
        let text = match ended {
            Ended::Exited(Some(c)) => format!("driver exited with code {c}"),
            Ended::Exited(None) => "driver ended (killed, or exit code unknown)".into(),
            Ended::TimedOut(secs) => format!("no verdict within {secs} s"),
            Ended::EndOfInput => "end of the log".into(),
        };
        let recent = recent
            .iter()
            .rev()
            .take(6)
            .rev()
            .map(|l| clip_owned(l))
            .collect();
        Ending {
            ended,
            text,
            recent,
        }
    }
}
