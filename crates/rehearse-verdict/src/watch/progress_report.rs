//! The decision at a progress report of the restarted run: proof of the resume, a fresh
//! start, or waiting for a batch that reads rows and for every path of the query
//! (`exercised.rs`), with the semantic warnings a report shows.

use super::*;

impl Watcher {
    pub(super) fn on_progress(&mut self, p: Progress, evidence: Vec<String>) {
        self.facts.progress_reports += 1;
        let Some(evidence) = self.unless_earlier_run(&p, evidence) else {
            return;
        };
        if self.is_ours(p.id.as_deref()) && self.facts.fresh_start.is_none() {
            self.facts.paths.observe(&p);
            if !p.idle {
                // A batch ran (an idle report repeats the last batch's stateOperators, so
                // `executed` alone does not say it): idleness is counted afresh from here.
                self.facts.idle_once = None;
            }
        }
        if self.facts.awaiting_paths.is_some() {
            self.confirm_paths();
            // state-loaded is judged on the first batch after the restart only: once that
            // batch did not prove it, no later one can — end now, not at the timeout (new-user
            // pass, session 7: 4 minutes waited for it).
            if self.facts.awaiting_paths.is_some()
                && self
                    .facts
                    .paths
                    .exercised()
                    .state_loaded
                    .as_ref()
                    .is_some_and(|l| !l.ran)
            {
                self.paths_cannot_run(
                    "state-loaded is judged on the first batch after the restart only, and that batch did not prove it: no later batch can".to_string(),
                );
                return;
            }
            if self.facts.awaiting_paths.is_some()
                && p.idle
                && self.is_ours(p.id.as_deref())
                && self.facts.fresh_start.is_none()
            {
                self.went_idle(format!(
                    "the query went idle: the trigger for batch {} found no new record and ran no batch (numInputRows 0, no addBatch), so every seeded record was read and no batch can run again",
                    p.batch_id.map(|b| b.to_string()).unwrap_or_else(|| "-".into())
                ));
            }
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
    pub(super) fn unless_earlier_run(
        &mut self,
        p: &Progress,
        evidence: Vec<String>,
    ) -> Option<Vec<String>> {
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

    /// Keeps a semantic warning, once per code (the first evidence wins).
    pub(super) fn warn(&mut self, w: Warning) {
        if !self.facts.warnings.iter().any(|k| k.code == w.code) {
            self.facts.warnings.push(w);
        }
    }

    /// After a resume proof that read no rows: the first batch of our query that reads rows
    /// makes it `resumed` (see [`TrialContext::require_input_rows`]).
    pub(super) fn confirm_rows_read(&mut self, p: &Progress, evidence: Vec<String>) {
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
    pub(super) fn resume_unless_paths_wait(&mut self, proof: AwaitingPaths) {
        if self.ctx.require_paths && !self.facts.paths.exercised().all_ran() {
            self.facts.awaiting_paths = Some(proof);
            return;
        }
        self.decide_resumed(proof);
    }

    /// `resumed`, the exercised paths' evidence appended. The proof's rule id stays; in a live
    /// trial the remedy says a later batch processed new records.
    pub(super) fn decide_resumed(&mut self, proof: AwaitingPaths) {
        let AwaitingPaths {
            rule,
            evidence: mut ev,
            offsets_match,
            read_later,
        } = proof;
        let e = self.facts.paths.exercised();
        if self.facts.paths.saw_a_batch() {
            ev.extend(e.evidence_lines());
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
    pub(super) fn confirm_paths(&mut self) {
        if !self.facts.paths.exercised().all_ran() {
            return;
        }
        if let Some(proof) = self.facts.awaiting_paths.take() {
            self.decide_resumed(proof);
        }
    }

    /// A progress report proved the resume: `resumed` now, or, when the trial needs a batch
    /// that read rows and this one read none, once such a batch comes.
    pub(super) fn on_resume_proved(
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
    pub(super) fn start_evidence(&self) -> Vec<String> {
        let mut ev = Vec::new();
        ev.extend(self.facts.query_start.clone());
        ev.extend(self.facts.resuming_at.as_ref().map(|r| r.1.clone()));
        ev
    }
}
