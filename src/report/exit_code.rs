//! The exit code of `rehearse run` for a finished report: the contract CI scripts read.
//!
//! Only the verdicts decide it; "rehearse could not run" codes (usage, bad input, environment)
//! are chosen by the binary before any report exists (see [`crate::exit`]).

use super::model::RunReport;
use crate::exit;
use crate::verdict::Verdict;

/// The exit code for a finished run, from the trials that did not pass ([`TrialReport::passed`]).
///
/// | trials that did not pass                          | exit code                          |
/// |---------------------------------------------------|------------------------------------|
/// | none (also: a run with no trials)                 | [`exit::SUCCESS`] (0)              |
/// | all with the same verdict `v`, and `v` ≠ resumed  | `v.exit_code()` (10–17)            |
/// | all `resumed` (each expected another verdict)     | [`exit::VERDICT_MIXED`] (1)        |
/// | verdicts differ                                   | [`exit::VERDICT_MIXED`] (1)        |
///
/// The `resumed` row exists because a trial that resumed where the scenario expected a failure
/// did not pass, yet `Verdict::Resumed.exit_code()` is 0: a run with a failing trial must never
/// exit 0.
///
/// [`TrialReport::passed`]: super::TrialReport::passed
pub fn exit_code(report: &RunReport) -> i32 {
    let mut failing = report
        .trials
        .iter()
        .filter(|trial| !trial.passed())
        .map(|trial| trial.verdict);
    let Some(first) = failing.next() else {
        return exit::SUCCESS;
    };
    if first == Verdict::Resumed || failing.any(|verdict| verdict != first) {
        exit::VERDICT_MIXED
    } else {
        first.exit_code()
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
        assert_eq!(exit_code(&report), exit::SUCCESS);
    }

    #[test]
    fn no_trials_is_success() {
        let report = with_verdicts(&[]);
        assert_eq!(exit_code(&report), exit::SUCCESS);
    }

    #[test]
    fn expected_failure_that_happened_is_success() {
        let report = with_verdicts(&[
            (Verdict::Resumed, None),
            (Verdict::StateStoreError, Some(Verdict::StateStoreError)),
        ]);
        assert_eq!(exit_code(&report), exit::SUCCESS);
    }

    #[test]
    fn one_failing_verdict_gives_its_own_code() {
        let report = with_verdicts(&[
            (Verdict::Resumed, None),
            (Verdict::StateStoreError, None),
            (Verdict::StateStoreError, None),
        ]);
        assert_eq!(exit_code(&report), Verdict::StateStoreError.exit_code());
        assert_eq!(exit_code(&report), 17);
    }

    #[test]
    fn every_failing_verdict_maps_to_its_code() {
        for verdict in Verdict::ALL.into_iter().filter(|v| *v != Verdict::Resumed) {
            let report = with_verdicts(&[(verdict, None)]);
            assert_eq!(exit_code(&report), verdict.exit_code(), "{verdict}");
            assert_ne!(exit_code(&report), exit::SUCCESS, "{verdict}");
        }
    }

    #[test]
    fn different_failing_verdicts_are_mixed() {
        let report = with_verdicts(&[
            (Verdict::OffsetLogError, None),
            (Verdict::StateStoreError, None),
        ]);
        assert_eq!(exit_code(&report), exit::VERDICT_MIXED);
    }

    #[test]
    fn passing_trials_do_not_mix_the_failing_verdict() {
        // The passing `state-store-error` (expected) must not count against the failing one.
        let report = with_verdicts(&[
            (Verdict::StateStoreError, Some(Verdict::StateStoreError)),
            (Verdict::Timeout, None),
        ]);
        assert_eq!(exit_code(&report), Verdict::Timeout.exit_code());
    }

    #[test]
    fn resumed_where_a_failure_was_expected_is_never_success() {
        let report = with_verdicts(&[(Verdict::Resumed, Some(Verdict::StateStoreError))]);
        assert_eq!(exit_code(&report), exit::VERDICT_MIXED);
    }

    #[test]
    fn fixtures_exit_codes() {
        assert_eq!(exit_code(&test_helpers::resumed()), exit::SUCCESS);
        assert_eq!(exit_code(&test_helpers::state_store_error()), 17);
        assert_eq!(
            exit_code(&test_helpers::mixed_with_expected()),
            exit::VERDICT_MIXED
        );
        assert_eq!(
            exit_code(&test_helpers::empty_evidence()),
            Verdict::Timeout.exit_code()
        );
    }
}
