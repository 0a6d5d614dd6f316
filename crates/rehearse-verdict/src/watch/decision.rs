//! A decision and how it becomes a [`Classification`]: a failure judged by the rules, a
//! built-in verdict, and the batch facts and `startingOffsets` hint the watcher adds.

use super::*;

impl Watcher {
    pub(super) fn decide_failure(&mut self, b: Block) {
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

    /// Why a `resumed` with nothing fresh seeded is `resume-unproven`, in terms of the paths
    /// the evidence lists just before: the ones that ran (a re-run of the batch the checkpoint
    /// had planned can load and evict state) ran without a fresh record, the others could not
    /// run. Never "no path ran" beside a path listed as ran (new-user pass, session 8).
    fn nothing_fresh_evidence(&self) -> String {
        let mut text = "no fresh records were seeded past the checkpoint's offsets (fresh_records = 0, or a records_file with nothing after them): the restart proved its offsets, but no batch after it had a new record to read".to_owned();
        let paths = self
            .facts
            .paths
            .saw_a_batch()
            .then(|| self.facts.paths.exercised());
        let (ran, not_run) = paths.as_ref().map_or_else(Default::default, |e| {
            let not_run: Vec<&str> = e.not_run().into_iter().map(|(name, _)| name).collect();
            (e.ran(), not_run)
        });
        if !ran.is_empty() {
            text.push_str(&format!(
                "; {} ran without one (on the records of the batch the checkpoint had planned, or on none), which proves nothing of how the query treats new records",
                ran.join(", ")
            ));
        }
        if !not_run.is_empty() {
            text.push_str(&format!("; {} could not run", not_run.join(", ")));
        }
        if ran.is_empty() && not_run.is_empty() {
            text.push_str("; no path of the query beyond its offsets was seen to run");
        }
        text
    }

    pub(super) fn run_facts(&self) -> RunFacts {
        RunFacts {
            driver_started: self.facts.driver_started,
            query_started: self.facts.query_start.is_some(),
        }
    }

    pub(super) fn decide(&mut self, d: Decision) {
        self.decided = Some(self.classification(d));
    }

    /// The classification of a decision: evidence deduplicated, the batch facts this watcher
    /// saw, and for a failed restart the `startingOffsets` a fresh start could use.
    pub(super) fn classification(&self, d: Decision) -> Classification {
        let Decision {
            verdict,
            rule,
            mut evidence,
            mut remedy,
            start_offsets_match,
            error_class,
        } = d;
        // A generic "nothing known happened" with a sign in the log: the sign names it.
        let (verdict, rule) = match &self.facts.sign {
            Some((sign, line)) if signs::replaceable(&rule) => {
                evidence.push(line.clone());
                evidence.push(format!(
                    "(rule {} would have decided; this line explains it: {})",
                    rule, sign.source
                ));
                remedy = sign.remedy.clone();
                (sign.verdict, sign.id.clone())
            }
            _ => (verdict, rule),
        };
        dedup_keep_order(&mut evidence);
        // Nothing fresh seeded: the offsets are proved, no path could run on a fresh record.
        let (verdict, rule) = if verdict == Verdict::Resumed && self.ctx.nothing_fresh {
            let row = BuiltinRule::NothingFreshSeeded;
            evidence.push(self.nothing_fresh_evidence());
            remedy = row.remedy().to_string();
            (row.verdict(), row.id().to_string())
        } else {
            (verdict, rule)
        };
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
pub(super) struct Decision {
    pub(super) verdict: Verdict,
    pub(super) rule: String,
    pub(super) remedy: String,
    pub(super) evidence: Vec<String>,
    pub(super) start_offsets_match: Option<bool>,
    pub(super) error_class: Option<String>,
}

impl Decision {
    /// A built-in rule's verdict, id and remedy.
    pub(super) fn builtin(rule: BuiltinRule, evidence: Vec<String>) -> Decision {
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
    pub(super) fn judged(j: FailureJudgement, evidence: Vec<String>) -> Decision {
        Decision {
            verdict: j.verdict,
            rule: j.rule,
            remedy: j.remedy,
            evidence,
            start_offsets_match: None,
            error_class: j.error_class,
        }
    }

    pub(super) fn offsets_match(self, start_offsets_match: Option<bool>) -> Decision {
        Decision {
            start_offsets_match,
            ..self
        }
    }

    pub(super) fn error_class(self, error_class: Option<String>) -> Decision {
        Decision {
            error_class,
            ..self
        }
    }

    pub(super) fn remedy(self, remedy: &str) -> Decision {
        Decision {
            remedy: remedy.to_owned(),
            ..self
        }
    }
}
