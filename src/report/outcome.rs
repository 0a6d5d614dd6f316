//! The outcome of a finished report, which decides its exit code: [`decide`] is the one order
//! `rehearse run` ([`outcome`], [`ending`]) and `rehearse matrix` ([`super::matrix::outcome`])
//! both end by — verdicts, then parity, then the fresh run, then denied warnings.
//!
//! Only the report decides it; "rehearse could not run" outcomes (usage, bad input, environment)
//! are chosen by the binary before any report exists, and the numbers are in [`crate::exit`].

use super::model::RunReport;
use crate::exit::Outcome;
use crate::verdict::Verdict;

/// How a finished run ends: [`Outcome::SourceChanged`] (71) with the error to say when the
/// source checkpoint changed during it (a remote source listed again with other sizes or
/// ETags, or a local one whose hashes differ after a trial: rehearse must never write it),
/// else [`outcome`] with nothing to say. The report is written either way.
pub fn ending(report: &RunReport) -> (Outcome, Option<String>) {
    if let Some(remote) = report
        .remote_source
        .as_ref()
        .filter(|r| r.unchanged == Some(false))
    {
        return (
            Outcome::SourceChanged,
            Some(format!(
                "the remote source checkpoint {} changed during the rehearsal: {}",
                remote.url,
                remote.changes.join(", ")
            )),
        );
    }
    if report.trials.iter().any(|t| !t.source_untouched) {
        return (
            Outcome::SourceChanged,
            Some(
                "the source checkpoint changed during the rehearsal; see the notes in the report"
                    .to_string(),
            ),
        );
    }
    (outcome(report), None)
}

/// The outcome of a finished run, from the trials that did not pass ([`TrialReport::passed`]).
///
/// | trials that did not pass                          | outcome                            |
/// |---------------------------------------------------|------------------------------------|
/// | none, and a parity that fails (`differs`; a target's or a fresh run's) | [`Outcome::ParityDiffers`] (21) |
/// | none, and a fresh run that failed or whose start is not proven | [`Outcome::FreshFailed`] (22) |
/// | none, and a warning with `deny_warnings`          | [`Outcome::WarningsDenied`] (19)   |
/// | none (also: a run with no trials)                 | [`Outcome::Success`] (0)           |
/// | all with the same verdict `v`, and `v` ≠ resumed  | [`Outcome::Verdict`]`(v)` (10–17)  |
/// | all `resumed` (each expected another verdict)     | [`Outcome::VerdictsDiffer`] (1)    |
/// | verdicts differ                                   | [`Outcome::VerdictsDiffer`] (1)    |
///
/// The `resumed` row exists because a trial that resumed where the scenario expected a failure
/// did not pass, yet `Outcome::Verdict(Resumed)` exits 0: a run with a failing trial must never
/// exit 0.
///
/// [`TrialReport::passed`]: super::TrialReport::passed
pub fn outcome(report: &RunReport) -> Outcome {
    let mut failing = report
        .trials
        .iter()
        .filter(|trial| !trial.passed())
        .map(|trial| trial.verdict);
    let verdicts = failing.next().map(|first| {
        if first == Verdict::Resumed || failing.any(|verdict| verdict != first) {
            Outcome::VerdictsDiffer
        } else {
            Outcome::Verdict(first)
        }
    });
    decide(&Judgement {
        verdicts,
        parity_failed: report
            .trials
            .iter()
            .any(|t| t.parity_failed() || t.fresh_parity_failed()),
        fresh_failed: report.trials.iter().any(|t| t.fresh_failed()),
        warned: report.trials.iter().any(|t| !t.warnings.is_empty()),
        deny_warnings: report.deny_warnings,
    })
}

/// What a finished report (a run's or a matrix's) says, for [`decide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Judgement {
    /// The outcome the verdicts that did not pass imply (a run's failing trials, a matrix's
    /// differences or missing shards); `None` when every verdict passed.
    pub verdicts: Option<Outcome>,
    /// A parity failed (`differs`, not allowed by `may-differ`): a target's, a cell's or a
    /// fresh run's.
    pub parity_failed: bool,
    /// A fresh run failed or did not start at the committed offsets (a matrix has none).
    pub fresh_failed: bool,
    /// A trial or cell carries a semantic warning.
    pub warned: bool,
    /// Warnings fail the report (`--deny-warnings` / `deny_warnings = true`).
    pub deny_warnings: bool,
}

/// The one order a finished report's outcome follows, for `rehearse run` and `rehearse matrix`
/// alike: a verdict that fails is the news; parity is judged only when every verdict passed
/// ([`Outcome::ParityDiffers`], 21), then the fresh run ([`Outcome::FreshFailed`], 22), then
/// warnings when denied ([`Outcome::WarningsDenied`], 19), else [`Outcome::Success`].
pub fn decide(judgement: &Judgement) -> Outcome {
    if let Some(verdicts) = judgement.verdicts {
        verdicts
    } else if judgement.parity_failed {
        Outcome::ParityDiffers
    } else if judgement.fresh_failed {
        Outcome::FreshFailed
    } else if judgement.deny_warnings && judgement.warned {
        Outcome::WarningsDenied
    } else {
        Outcome::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_helpers;

    fn with_verdicts(verdicts: &[(Verdict, Option<Verdict>)]) -> RunReport {
        let template = test_helpers::resumed().trials.remove(0);
        let mut report = test_helpers::resumed();
        report.trials = verdicts
            .iter()
            .map(|&(verdict, expected_verdict)| crate::report::TrialReport {
                verdict,
                expected_verdict,
                ..template.clone()
            })
            .collect();
        report
    }

    #[test]
    fn every_trial_resumed_is_success() {
        let report = with_verdicts(&[(Verdict::Resumed, None), (Verdict::Resumed, None)]);
        assert_eq!(outcome(&report), Outcome::Success);
    }

    #[test]
    fn a_differing_parity_fails_a_passing_run_but_never_hides_a_failed_verdict() {
        let mut report = test_helpers::resumed_with_parity(crate::report::ParityStatus::Differs);
        assert_eq!(outcome(&report), Outcome::ParityDiffers);
        assert_eq!(outcome(&report).code(), 21);
        report.trials[0].parity.as_mut().unwrap().may_differ = true;
        assert_eq!(
            outcome(&report),
            Outcome::Success,
            "allowed by the scenario"
        );
        for status in [
            crate::report::ParityStatus::Same,
            crate::report::ParityStatus::NotChecked,
        ] {
            assert_eq!(
                outcome(&test_helpers::resumed_with_parity(status)),
                Outcome::Success
            );
        }
        let mut failing = test_helpers::state_store_error();
        failing.trials[0].parity =
            test_helpers::resumed_with_parity(crate::report::ParityStatus::Differs).trials[0]
                .parity
                .clone();
        assert_ne!(
            outcome(&failing),
            Outcome::ParityDiffers,
            "the verdict is the news"
        );
    }

    #[test]
    fn a_warning_fails_the_run_only_when_warnings_are_denied() {
        let mut report = test_helpers::resumed_with_warning();
        assert_eq!(outcome(&report), Outcome::Success);
        report.deny_warnings = true;
        assert_eq!(outcome(&report), Outcome::WarningsDenied);
        assert_eq!(outcome(&report).code(), 19);
        let mut clean = test_helpers::resumed();
        clean.deny_warnings = true;
        assert_eq!(outcome(&clean), Outcome::Success);
        // A failing trial keeps its own outcome: the verdict is the news.
        let mut failing = test_helpers::state_store_error();
        failing.deny_warnings = true;
        failing.trials[0].warnings = report.trials[0].warnings.clone();
        assert_eq!(
            outcome(&failing),
            Outcome::Verdict(Verdict::StateStoreError)
        );
    }

    /// Issue 13 §4: a remedy that failed or did not start at the committed offsets exits 22
    /// when every verdict passed; its parity `differs` exits 21 unless expected (state).
    #[test]
    fn a_failed_or_misplaced_fresh_run_fails_a_passing_run() {
        use crate::report::{ParityStatus, StartStatus};
        let ok =
            test_helpers::resumed_with_fresh(true, StartStatus::Proven, Some(ParityStatus::Same));
        assert_eq!(outcome(&ok), Outcome::Success);
        for (ran, status) in [
            (false, StartStatus::Proven),
            (true, StartStatus::Elsewhere),
            (true, StartStatus::Unproven),
        ] {
            let r = test_helpers::resumed_with_fresh(ran, status, None);
            assert_eq!(outcome(&r), Outcome::FreshFailed, "{ran} {status}");
            assert_eq!(outcome(&r).code(), 22);
        }
        let differs = test_helpers::resumed_with_fresh(
            true,
            StartStatus::Proven,
            Some(ParityStatus::Differs),
        );
        assert_eq!(outcome(&differs), Outcome::ParityDiffers);
        let mut expected = differs.clone();
        if let Some(p) = expected.trials[0]
            .fresh
            .as_mut()
            .and_then(|f| f.parity.as_mut())
        {
            p.may_differ = true;
        }
        assert_eq!(outcome(&expected), Outcome::Success);
        // A failing verdict stays the news.
        let mut failing = test_helpers::state_store_error();
        failing.trials[0].fresh =
            test_helpers::resumed_with_fresh(false, StartStatus::Unproven, None).trials[0]
                .fresh
                .clone();
        assert_eq!(
            outcome(&failing),
            Outcome::Verdict(Verdict::StateStoreError)
        );
    }

    #[test]
    fn no_trials_is_success() {
        let report = with_verdicts(&[]);
        assert_eq!(outcome(&report), Outcome::Success);
    }

    #[test]
    fn expected_failure_that_happened_is_success() {
        let report = with_verdicts(&[
            (Verdict::Resumed, None),
            (Verdict::StateStoreError, Some(Verdict::StateStoreError)),
        ]);
        assert_eq!(outcome(&report), Outcome::Success);
    }

    #[test]
    fn one_failing_verdict_gives_its_own_code() {
        let report = with_verdicts(&[
            (Verdict::Resumed, None),
            (Verdict::StateStoreError, None),
            (Verdict::StateStoreError, None),
        ]);
        assert_eq!(outcome(&report), Outcome::Verdict(Verdict::StateStoreError));
        assert_eq!(outcome(&report).code(), 17);
    }

    #[test]
    fn every_failing_verdict_maps_to_its_code() {
        for verdict in Verdict::ALL.into_iter().filter(|v| *v != Verdict::Resumed) {
            let report = with_verdicts(&[(verdict, None)]);
            assert_eq!(outcome(&report), Outcome::Verdict(verdict), "{verdict}");
            assert_ne!(outcome(&report).code(), 0, "{verdict}");
        }
    }

    #[test]
    fn different_failing_verdicts_are_mixed() {
        let report = with_verdicts(&[
            (Verdict::OffsetLogError, None),
            (Verdict::StateStoreError, None),
        ]);
        assert_eq!(outcome(&report), Outcome::VerdictsDiffer);
    }

    #[test]
    fn passing_trials_do_not_mix_the_failing_verdict() {
        // The passing `state-store-error` (expected) must not count against the failing one.
        let report = with_verdicts(&[
            (Verdict::StateStoreError, Some(Verdict::StateStoreError)),
            (Verdict::Timeout, None),
        ]);
        assert_eq!(outcome(&report), Outcome::Verdict(Verdict::Timeout));
    }

    #[test]
    fn resumed_where_a_failure_was_expected_is_never_success() {
        let report = with_verdicts(&[(Verdict::Resumed, Some(Verdict::StateStoreError))]);
        assert_eq!(outcome(&report), Outcome::VerdictsDiffer);
    }

    #[test]
    fn fixtures_exit_codes() {
        assert_eq!(outcome(&test_helpers::resumed()), Outcome::Success);
        assert_eq!(outcome(&test_helpers::state_store_error()).code(), 17);
        assert_eq!(
            outcome(&test_helpers::mixed_with_expected()),
            Outcome::VerdictsDiffer
        );
        assert_eq!(
            outcome(&test_helpers::empty_evidence()),
            Outcome::Verdict(Verdict::Timeout)
        );
    }

    /// A source that changed ends the run with 71 and its message, whatever the verdicts.
    #[test]
    fn a_changed_source_ends_the_run_whatever_the_verdicts() {
        let mut report = test_helpers::resumed();
        assert_eq!(ending(&report), (Outcome::Success, None));
        report.trials[0].source_untouched = false;
        let (outcome, message) = ending(&report);
        assert_eq!(outcome, Outcome::SourceChanged);
        assert_eq!(
            message.as_deref(),
            Some("the source checkpoint changed during the rehearsal; see the notes in the report")
        );
    }

    /// The shared order: each step hides every later one, and warnings count only when denied.
    #[test]
    fn decide_follows_verdict_parity_fresh_warnings() {
        let all = Judgement {
            verdicts: Some(Outcome::MatrixDiffers),
            parity_failed: true,
            fresh_failed: true,
            warned: true,
            deny_warnings: true,
        };
        assert_eq!(decide(&all), Outcome::MatrixDiffers);
        let all = Judgement {
            verdicts: Some(Outcome::Verdict(Verdict::Timeout)),
            ..all
        };
        assert_eq!(decide(&all), Outcome::Verdict(Verdict::Timeout));
        let no_verdict = Judgement {
            verdicts: None,
            ..all
        };
        assert_eq!(decide(&no_verdict), Outcome::ParityDiffers);
        let no_parity = Judgement {
            parity_failed: false,
            ..no_verdict
        };
        assert_eq!(decide(&no_parity), Outcome::FreshFailed);
        let no_fresh = Judgement {
            fresh_failed: false,
            ..no_parity
        };
        assert_eq!(decide(&no_fresh), Outcome::WarningsDenied);
        let allowed = Judgement {
            deny_warnings: false,
            ..no_fresh
        };
        assert_eq!(decide(&allowed), Outcome::Success);
        assert_eq!(decide(&Judgement::default()), Outcome::Success);
    }
}
