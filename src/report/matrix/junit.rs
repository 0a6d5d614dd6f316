//! JUnit XML of a matrix (quick-junit): one `<testsuite>` per shape and provider, one
//! `<testcase name="SOURCE->TARGET">` per cell. A cell that disagrees with the suite is a
//! `<failure type=VERDICT>` (or an `<error>` when no trial could run); a not-applicable cell is
//! `<skipped>`; every cell's evidence is in its `<system-out>`.

use std::io::{self, Write};
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::model::{Cell, CellStatus, MatrixReport};
use crate::report::text;

/// Writes `report` as JUnit XML.
pub fn write_junit(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let mut junit = Report::new(format!("rehearse matrix {}", report.suite));
    let mut total = Duration::ZERO;
    for shape in &report.shapes {
        for provider in &report.providers {
            let mut suite = TestSuite::new(format!("{}.{shape}.{provider}", report.suite));
            let mut time = Duration::ZERO;
            for c in report
                .cells
                .iter()
                .filter(|c| &c.shape == shape && &c.provider == provider)
            {
                let case = test_case(report, c);
                time += c
                    .seconds
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
                    .unwrap_or_default();
                suite.add_test_case(case);
            }
            suite.set_time(time);
            total += time;
            junit.add_test_suite(suite);
        }
    }
    junit.set_time(total);
    let mut xml = Vec::new();
    junit.serialize(&mut xml).map_err(io::Error::other)?;
    out.write_all(&xml)
}

fn test_case(report: &MatrixReport, c: &Cell) -> TestCase {
    let status = match (c.status, c.passed()) {
        (CellStatus::NotApplicable, _) => {
            let mut s = TestCaseStatus::skipped();
            if let Some(reason) = c.evidence.first() {
                s.set_message(text::sanitize(reason).into_owned());
            }
            s
        }
        (_, true) if c.parity_failed() => {
            // As the run's JUnit: the verdict agreed, the output differs from the control's.
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("parity-differs");
            if let Some(p) = &c.parity {
                s.set_message(text::sanitize(&p.summary()));
            }
            s
        }
        (_, true) => TestCaseStatus::success(),
        (CellStatus::Ran, false) => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type(c.label());
            s.set_message(format!(
                "expected {}, got {} (rule {})",
                c.expected,
                c.label(),
                c.rule.as_deref().unwrap_or("-")
            ));
            s
        }
        (_, false) => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_type(c.label());
            s.set_message(format!("expected {}, but {}", c.expected, c.label()));
            s
        }
    };
    let mut case = TestCase::new(format!("{}->{}", c.source, c.target), status);
    case.set_classname(format!("{}.{}.{}", report.suite, c.shape, c.provider));
    if let Some(s) = c.seconds.filter(|s| s.is_finite() && *s >= 0.0) {
        case.set_time(Duration::from_secs_f64(s));
    }
    let mut body = format!("verdict: {}\nexpected: {}\n", c.label(), c.expected);
    if let Some(rule) = &c.rule {
        body.push_str(&format!("rule: {rule}\n"));
    }
    body.push_str(&format!(
        "batches: {}\nstart offsets: {}\n",
        text::batches(c.last_committed_batch, c.first_batch_after_restart),
        text::offsets_check(c.start_offsets_match)
    ));
    for line in text::evidence_lines(&c.evidence) {
        body.push_str(&line);
        body.push('\n');
    }
    for note in &c.notes {
        body.push_str(&format!("note: {}\n", text::sanitize(note)));
    }
    if let Some(p) = &c.parity {
        body.push_str(&format!("parity: {}\n", text::sanitize(&p.summary())));
        for r in &p.examples_only_in_target {
            body.push_str(&format!("only in the cell: {}\n", text::sanitize(r)));
        }
        for r in &p.examples_only_in_control {
            body.push_str(&format!("only in the control: {}\n", text::sanitize(r)));
        }
    }
    for o in &c.output {
        body.push_str(&format!(
            "output: {} records written to {} after the restart\n",
            o.records_after_restart,
            text::sanitize(&o.topic)
        ));
    }
    case.set_system_out(body);
    case
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::report;
    use super::*;

    #[test]
    fn one_case_per_cell_failures_for_differences_skips_for_not_applicable() {
        let mut out = Vec::new();
        write_junit(&report(), &mut out).unwrap();
        let xml = String::from_utf8(out).unwrap();
        insta::assert_snapshot!(xml);
        assert_eq!(xml.matches("<testcase").count(), 4);
        assert_eq!(xml.matches("<failure").count(), 1);
        assert_eq!(xml.matches("<skipped").count(), 1);
    }

    #[test]
    fn a_cells_output_counts_are_in_its_system_out() {
        let mut r = report();
        r.cells[0].output = vec![crate::report::OutputCount {
            topic: "orders-out".into(),
            records_after_restart: 17,
            sample: vec![],
        }];
        let mut out = Vec::new();
        write_junit(&r, &mut out).unwrap();
        let xml = String::from_utf8(out).unwrap();
        assert!(
            xml.contains("output: 17 records written to orders-out after the restart"),
            "{xml}"
        );
    }
}
