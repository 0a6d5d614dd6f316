//! JUnit XML for CI systems (Jenkins, GitLab, GitHub test reporters), built with `quick-junit`.
//!
//! # Mapping (Jenkins dialect)
//!
//! | JUnit                                   | rehearse |
//! |-----------------------------------------|----------|
//! | `<testsuites name="rehearse">`          | one run of one scenario |
//! | `<testsuite name=SCENARIO>`             | the scenario; properties `source_checkpoint` and, when known, `source_version` |
//! | `<testcase name="spark-VERSION" classname=SCENARIO time=SECONDS>` | one trial: the checkpoint restarted on one target version; `time` is seconds to verdict |
//! | no `<failure>`/`<error>` child          | the trial passed ([`TrialReport::passed`]): `resumed`, or the expected verdict |
//! | `<failure type=VERDICT message=…>`      | the trial did not pass; `type` is the verdict name (`state-store-error`), `message` is the rule and the remedy (and the expected verdict, when one was given) |
//! | `<error type="environment-error" …>`    | the trial did not pass because the rehearsal could not test the restart (image, connector jar, container, JVM): a problem of the harness, not a finding about the checkpoint |
//! | text of `<failure>`/`<error>`           | the `startingOffsets` JSON for a fresh start from the last committed offsets, when there is one |
//! | `<system-out>`                          | every trial, passing or not: verdict, rule, batch ids, the evidence lines verbatim, notes, the kept sandbox |
//! | `<system-err>`                          | only when the source checkpoint changed during the trial: a warning |
//!
//! No timestamps and no report UUID are written: the report model has neither, and leaving them
//! out keeps the XML a pure function of the report.
//!
//! Jenkins counts both `<failure>` and `<error>` as failed tests, so the distinction costs
//! nothing there and tells a reader of the raw XML which side the problem is on.

use std::io::{self, Write};
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::model::{RunReport, TrialReport};
use super::text;
use crate::verdict::Verdict;

/// Writes `report` as JUnit XML (see the module docs for the mapping).
pub fn write_junit(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    let junit = build(report);
    // Serialize into memory first: quick-junit wraps I/O errors in its own type, and an error of
    // `out` should reach the caller as the plain `io::Error` it is.
    let mut xml = Vec::new();
    junit.serialize(&mut xml).map_err(io::Error::other)?;
    out.write_all(&xml)
}

fn build(report: &RunReport) -> Report {
    let mut suite = TestSuite::new(report.scenario.as_str());
    suite.add_property(Property::new(
        "source_checkpoint",
        report.source_checkpoint.display().to_string(),
    ));
    if let Some(version) = &report.source_version {
        suite.add_property(Property::new("source_version", version.as_str()));
    }
    let mut total = Duration::ZERO;
    for trial in &report.trials {
        let time = duration(trial.seconds_to_verdict);
        total += time.unwrap_or_default();
        suite.add_test_case(test_case(report, trial, time));
    }
    suite.set_time(total);

    let mut junit = Report::new("rehearse");
    junit.set_time(total);
    junit.add_test_suite(suite);
    junit
}

fn test_case(report: &RunReport, trial: &TrialReport, time: Option<Duration>) -> TestCase {
    let status = if trial.passed() && trial.parity_failed() {
        // The verdict passed; the output did not match the control's (issue 13 §3).
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_type("parity-differs");
        if let Some(p) = &trial.parity {
            status.set_message(p.summary());
        }
        status
    } else if trial.passed() && (trial.fresh_failed() || trial.fresh_parity_failed()) {
        // The verdict passed; the remedy on a new empty checkpoint did not (issue 13 §4).
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        if let Some(f) = &trial.fresh {
            if f.failed() {
                status.set_type("fresh-failed");
                status.set_message(f.summary());
            } else if let Some(p) = &f.parity {
                status.set_type("parity-differs");
                status.set_message(format!("fresh run: {}", p.summary()));
            }
        }
        status
    } else if trial.passed() {
        TestCaseStatus::success()
    } else {
        let kind = match trial.verdict {
            Verdict::EnvironmentError => NonSuccessKind::Error,
            _ => NonSuccessKind::Failure,
        };
        let mut status = TestCaseStatus::non_success(kind);
        status
            .set_type(trial.verdict.name())
            .set_message(crate::text::mask(&message(trial)).into_owned());
        if let Some(offsets) = &trial.starting_offsets {
            status.set_description(format!("startingOffsets: {offsets}"));
        }
        status
    };
    let mut case = TestCase::new(format!("spark-{}", trial.target_version), status);
    // JUnit's `classname` is meant for the class that holds the test method; Jenkins shows it as
    // the package/class level above the test name. The scenario is the closest thing rehearse has,
    // and it groups every target of one scenario together when several reports are merged.
    case.set_classname(report.scenario.as_str());
    if let Some(time) = time {
        case.set_time(time);
    }
    // Notes and warnings quote driver-log lines too: the whole text is masked.
    case.set_system_out(crate::text::mask(&system_out(trial)).into_owned());
    if !trial.source_untouched {
        case.set_system_err(
            "WARNING: the source checkpoint changed during this trial (its hash after the trial \
             differs from before): something else writes to it.",
        );
    }
    case
}

/// `state-store-error (rule state-schema-not-compatible): <remedy>`, prefixed with
/// `expected resumed, got ` when the scenario expected another verdict.
fn message(trial: &TrialReport) -> String {
    let expected = match trial.expected_verdict {
        Some(expected) => format!("expected {expected}, got "),
        None => String::new(),
    };
    format!(
        "{expected}{} (rule {}): {}",
        trial.verdict, trial.rule, trial.remedy
    )
}

/// Verdict, rule, batch ids, then the evidence lines and notes, one per line.
///
/// Tabs become four spaces: `quick-junit` strips control characters, tab included, which would
/// glue every `\tat org.apache…` frame of a Java stack trace to the left margin.
fn system_out(trial: &TrialReport) -> String {
    let mut out = format!("verdict: {} (rule {})\n", trial.verdict, trial.rule);
    if let Some(job) = &trial.job {
        out.push_str(&format!("job: {}\n", job.describe()));
    }
    if let Some(expected) = trial.expected_verdict {
        out.push_str(&format!("expected: {expected}\n"));
    }
    out.push_str(&format!(
        "batches: {}, start offsets: {}\n",
        text::batches(trial.last_committed_batch, trial.first_batch_after_restart),
        text::offsets_check(trial.start_offsets_match),
    ));
    let evidence = text::evidence_lines(&trial.evidence);
    if evidence.is_empty() {
        out.push_str("evidence: (none recorded)\n");
    } else {
        out.push_str("evidence:\n");
        for line in evidence {
            out.push_str(&line);
            out.push('\n');
        }
    }
    if let Some(e) = &trial.exercised {
        out.push_str(&format!("exercised paths: {}\n", e.summary()));
        for (name, p) in e.not_run() {
            out.push_str(&format!("  not run: {name}: {}\n", p.evidence));
        }
    }
    if let Some(f) = &trial.fresh {
        out.push_str(&format!("fresh: {}\n", f.summary()));
        for e in &f.start.evidence {
            out.push_str(&format!("  start: {e}\n"));
        }
        if let Some(p) = &f.parity {
            out.push_str(&format!("  fresh parity: {}\n", p.summary()));
        }
    }
    if let Some(p) = &trial.parity {
        out.push_str(&format!("parity: {}\n", p.summary()));
        for line in &p.compared {
            out.push_str(&format!("  compared: {line}\n"));
        }
        for row in &p.examples_only_in_target {
            out.push_str(&format!("  only in target: {row}\n"));
        }
        for row in &p.examples_only_in_control {
            out.push_str(&format!("  only in control: {row}\n"));
        }
    }
    for note in &trial.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    for warning in &trial.warnings {
        out.push_str(&format!("warning: {}: {}\n", warning.code, warning.message));
        for line in &warning.evidence {
            out.push_str(&format!("  {line}\n"));
        }
    }
    if let Some(sandbox) = &trial.sandbox {
        out.push_str(&format!("sandbox (kept): {}\n", sandbox.display()));
    } else if let Some(logs) = &trial.logs {
        out.push_str(&format!(
            "driver log: {}\n",
            logs.join("logs").join("driver.log").display()
        ));
    }
    // No trailing newline: JUnit readers trim it, and the XML round-trips exactly without it.
    out.truncate(out.trim_end().len());
    out.replace('\t', "    ")
}

/// Seconds as a `Duration`, or `None` for a value `Duration` cannot hold (negative, NaN): the
/// `time` attribute is then left out rather than invented.
fn duration(seconds: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_helpers;

    fn render(report: &RunReport) -> String {
        test_helpers::render(crate::report::Format::Junit, report)
    }

    test_helpers::writer_snapshot_tests!();

    #[test]
    fn round_trips_through_quick_junit() {
        let report = test_helpers::mixed_with_expected();
        let parsed = Report::deserialize_from_str(&render(&report)).expect("well-formed JUnit");
        assert_eq!(parsed, build(&report));
    }

    #[test]
    fn negative_seconds_leave_time_out() {
        let mut report = test_helpers::resumed();
        report.trials[0].seconds_to_verdict = -1.0;
        let xml = render(&report);
        assert!(!xml.contains("<testcase name=\"spark-4.0.1\" classname=\"windowed-counts\" time="));
    }
}
