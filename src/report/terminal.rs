//! The human summary of a run, for a terminal: one table row per target, then the details a
//! data engineer needs for every trial that did not pass (rule, evidence, remedy,
//! `startingOffsets`), and where kept sandboxes are.
//!
//! This text is not a stable interface (the JSON document and JUnit XML are): its layout may
//! change in any release. It writes only to the writer it is given; whether to colour is the
//! caller's decision ([`TerminalStyle`]), made by the binary from "is stdout a terminal" and
//! `NO_COLOR`. It draws no progress bars ([`super::progress_style`] decides whether the binary
//! may).

use std::io::{self, Write};

use super::model::{RunReport, TrialReport};
use super::text;

/// How the terminal summary is drawn, as decided by the caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TerminalStyle {
    /// Whether to use ANSI colours and bold. `false` produces plain text.
    pub color: bool,
}

/// ANSI styles used by the summary; only emitted when [`TerminalStyle::color`] is set.
#[derive(Debug, Clone, Copy)]
enum Paint {
    Bold,
    Green,
    Red,
    Yellow,
    Dim,
}

impl Paint {
    fn code(self) -> &'static str {
        match self {
            Paint::Bold => "\x1b[1m",
            Paint::Green => "\x1b[1;32m",
            Paint::Red => "\x1b[1;31m",
            Paint::Yellow => "\x1b[1;33m",
            Paint::Dim => "\x1b[2m",
        }
    }
}

impl TerminalStyle {
    /// `text` wrapped in `paint` when colour is on, else `text` unchanged.
    fn paint(self, paint: Paint, text: &str) -> String {
        if self.color {
            format!("{}{text}\x1b[0m", paint.code())
        } else {
            text.to_owned()
        }
    }
}

/// Writes the summary of `report`: a header, the per-target table, details for every trial that
/// did not pass, notes and kept sandboxes of passing trials, and a closing line.
pub fn write_summary(
    report: &RunReport,
    out: &mut impl Write,
    style: TerminalStyle,
) -> io::Result<()> {
    write_header(report, out, style)?;
    if report.trials.is_empty() {
        writeln!(out, "\nNo targets were rehearsed.")?;
        return Ok(());
    }
    writeln!(out)?;
    write_table(report, out, style)?;
    if let Some(c) = &report.control {
        writeln!(out)?;
        writeln!(out, "{}", control_line(c))?;
    }
    for trial in &report.trials {
        if !trial.passed() {
            writeln!(out)?;
            write_failure(trial, out, style)?;
        } else if trial.sandbox.is_some()
            || !trial.notes.is_empty()
            || !trial.warnings.is_empty()
            || !trial.output.is_empty()
            || trial.executors.is_some()
            || trial.exercised.is_some()
            || trial.parity.is_some()
            || trial.fresh.is_some()
        {
            writeln!(out)?;
            write_pass_notes(trial, report.deny_warnings, out, style)?;
        }
    }
    writeln!(out)?;
    write_footer(report, out, style)
}

/// `control: spark-3.5.3 resumed (rule …): the unchanged job on the source version, …`.
pub(super) fn control_line(c: &TrialReport) -> String {
    format!(
        "control: spark-{} {} (rule {}) in {}: the checkpoint restarted on the source version with the unchanged job; each target's parity compares with it",
        c.target_version,
        c.verdict,
        c.rule,
        text::seconds(c.seconds_to_verdict)
    )
}

fn write_header(report: &RunReport, out: &mut impl Write, style: TerminalStyle) -> io::Result<()> {
    let written_by = match &report.source_version {
        Some(version) => format!(" (written by Spark {version})"),
        None => String::new(),
    };
    writeln!(
        out,
        "{} {}: checkpoint {}{written_by} on {}",
        style.paint(Paint::Bold, "Rehearsed"),
        style.paint(Paint::Bold, &report.scenario),
        report.source_checkpoint.display(),
        text::count(report.trials.len(), "target", "targets"),
    )?;
    if let Some(remote) = &report.remote_source {
        writeln!(out, "  {}", remote_source_line(remote))?;
    }
    Ok(())
}

/// One line on a remote source: what was staged, and whether the source was unchanged at the end.
pub(crate) fn remote_source_line(r: &crate::report::RemoteSourceReport) -> String {
    let end = match (r.unchanged, &r.verify_error) {
        (Some(true), _) => format!("unchanged at the end ({} compared)", r.compared),
        (Some(false), _) => format!(
            "CHANGED during the run ({}): {}",
            r.compared,
            r.changes.join(", ")
        ),
        (None, Some(e)) => format!("not checked at the end: {e}"),
        (None, None) => "not checked at the end".to_string(),
    };
    let c = &r.staged;
    let what = match (&c.why_full, c.working_set) {
        (_, true) => "the restart's working set".to_string(),
        (Some(why), false) => format!("everything ({why})"),
        (None, false) => "everything (--full-copy)".to_string(),
    };
    format!(
        "remote source {}: staged {what}, {} of its {} files ({} of {} bytes), only listed and read there; {end}",
        r.url, c.files, c.source_files, c.bytes, c.source_bytes
    )
}

/// A table column: its heading and whether its cells are right-aligned.
struct Column {
    heading: &'static str,
    right: bool,
}

/// One table row: each cell as plain text with its paint, so widths are measured before
/// colouring.
type Row = Vec<(String, Option<Paint>)>;

/// The per-target table: a dim heading row, then one row per trial, columns padded to their
/// widest cell.
fn write_table(report: &RunReport, out: &mut impl Write, style: TerminalStyle) -> io::Result<()> {
    let with_expected = report.trials.iter().any(|t| t.expected_verdict.is_some());
    let columns = table_columns(with_expected);
    let rows: Vec<Row> = report
        .trials
        .iter()
        .map(|trial| trial_row(trial, with_expected, report.deny_warnings))
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            rows.iter()
                .map(|row| row[i].0.chars().count())
                .chain([column.heading.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let headings: Row = columns
        .iter()
        .map(|c| (c.heading.to_owned(), Some(Paint::Dim)))
        .collect();
    for row in std::iter::once(&headings).chain(&rows) {
        writeln!(out, "{}", table_line(&columns, &widths, row, style))?;
    }
    Ok(())
}

/// The table's columns; EXPECTED only when some trial has an expected verdict.
fn table_columns(with_expected: bool) -> Vec<Column> {
    let left = |heading| Column {
        heading,
        right: false,
    };
    let mut columns = vec![left("RESULT"), left("TARGET"), left("VERDICT")];
    if with_expected {
        columns.push(left("EXPECTED"));
    }
    columns.extend([
        left("BATCHES"),
        left("OFFSETS"),
        Column {
            heading: "TIME",
            right: true,
        },
    ]);
    columns
}

/// A trial that passed but carries a semantic warning, in a run that denies warnings
/// (`--deny-warnings` / `deny_warnings = true`): the run exits 19 for it, so the table must not
/// say PASS.
fn denied(trial: &TrialReport, deny_warnings: bool) -> bool {
    deny_warnings && trial.passed() && !trial.checks_failed() && !trial.warnings.is_empty()
}

/// The cells of one trial, in [`table_columns`] order.
fn trial_row(trial: &TrialReport, with_expected: bool, deny_warnings: bool) -> Row {
    let (result, paint) = if denied(trial, deny_warnings) {
        ("DENIED", Paint::Red)
    } else if trial.passed() && !trial.checks_failed() {
        ("PASS", Paint::Green)
    } else {
        ("FAIL", Paint::Red)
    };
    let mut row = vec![
        (result.to_owned(), Some(paint)),
        (trial.target_version.clone(), None),
        (trial.verdict.name().to_owned(), None),
    ];
    if with_expected {
        let expected = trial.expected_verdict.map_or("-", |v| v.name());
        row.push((expected.to_owned(), None));
    }
    let offsets = text::offsets_check(trial.start_offsets_match);
    let offsets_paint = (trial.start_offsets_match == Some(false)).then_some(Paint::Red);
    row.extend([
        (
            text::batches(trial.last_committed_batch, trial.first_batch_after_restart),
            None,
        ),
        (offsets.to_owned(), offsets_paint),
        (text::seconds(trial.seconds_to_verdict), None),
    ]);
    row
}

/// One table line: cells padded to `widths` (right-aligned where the column says so), painted
/// after padding, no trailing spaces.
fn table_line(columns: &[Column], widths: &[usize], row: &Row, style: TerminalStyle) -> String {
    let mut line = String::from(" ");
    for (i, (cell, paint)) in row.iter().enumerate() {
        let pad = " ".repeat(widths[i] - cell.chars().count());
        let painted = match paint {
            Some(paint) => style.paint(*paint, cell),
            None => cell.clone(),
        };
        line.push(' ');
        if columns[i].right {
            line.push_str(&pad);
            line.push_str(&painted);
        } else {
            line.push_str(&painted);
            // No trailing spaces after the last column.
            if i + 1 < row.len() {
                line.push_str(&pad);
            }
        }
        if i + 1 < row.len() {
            line.push(' ');
        }
    }
    line
}

/// A labelled detail line, the labels aligned: `  remedy:    text`.
/// One `  label: value` line; the value's secrets masked (a note may quote a driver-log line).
fn detail(out: &mut impl Write, label: &str, value: &str) -> io::Result<()> {
    let label = format!("{label}:");
    let value = crate::text::mask(value);
    if value.is_empty() {
        writeln!(out, "  {label}")
    } else {
        writeln!(out, "  {label:<17}{value}")
    }
}

fn write_failure(
    trial: &TrialReport,
    out: &mut impl Write,
    style: TerminalStyle,
) -> io::Result<()> {
    let expected = match trial.expected_verdict {
        Some(expected) => format!(" (expected {expected})"),
        None => String::new(),
    };
    writeln!(
        out,
        "{} spark-{}: {}{expected}",
        style.paint(Paint::Red, "FAIL"),
        trial.target_version,
        style.paint(Paint::Bold, trial.verdict.name()),
    )?;
    detail(out, "rule", &trial.rule)?;
    let evidence = text::evidence_lines(&trial.evidence);
    if evidence.is_empty() {
        detail(out, "evidence", "(none recorded)")?;
    } else {
        detail(out, "evidence", "")?;
        for line in &evidence {
            writeln!(out, "    {} {line}", style.paint(Paint::Dim, "│"))?;
        }
    }
    detail(out, "remedy", &trial.remedy)?;
    if let Some(offsets) = &trial.starting_offsets {
        detail(out, "startingOffsets", offsets)?;
    }
    detail(out, "seeding", &seeding_line(trial))?;
    write_notes_and_sandbox(trial, out, style)
}

fn write_pass_notes(
    trial: &TrialReport,
    deny_warnings: bool,
    out: &mut impl Write,
    style: TerminalStyle,
) -> io::Result<()> {
    let result = if trial.checks_failed() {
        style.paint(Paint::Red, "FAIL")
    } else if denied(trial, deny_warnings) {
        style.paint(Paint::Red, "DENIED")
    } else {
        style.paint(Paint::Green, "PASS")
    };
    let differs = if trial.parity_failed() {
        ", but its output differs from the control's"
    } else if trial.fresh_failed() {
        ", but the remedy (its job on a new empty checkpoint) failed or did not start at the committed offsets"
    } else if trial.fresh_parity_failed() {
        ", but the remedy's output differs from the control's"
    } else {
        ""
    };
    writeln!(
        out,
        "{} spark-{}: {}{differs}",
        result,
        trial.target_version,
        trial.verdict.name()
    )?;
    write_notes_and_sandbox(trial, out, style)
}

fn write_notes_and_sandbox(
    trial: &TrialReport,
    out: &mut impl Write,
    style: TerminalStyle,
) -> io::Result<()> {
    for o in &trial.output {
        detail(
            out,
            "output",
            &format!(
                "{}: {} after the restart",
                o.topic,
                text::count(o.records_after_restart as usize, "record", "records")
            ),
        )?;
        for line in &o.sample {
            writeln!(out, "    {} {line}", style.paint(Paint::Dim, "│"))?;
        }
    }
    if let Some(e) = &trial.exercised {
        detail(out, "exercised", &e.summary())?;
        for (name, p) in e.not_run() {
            detail(
                out,
                "not run",
                &text::sanitize(&format!("{name}: {}", p.evidence)),
            )?;
        }
        for why in &e.not_measured {
            detail(out, "not measured", &text::sanitize(why))?;
        }
    }
    if let Some(f) = &trial.fresh {
        detail(out, "fresh", &crate::text::sanitize(&f.summary()))?;
        for e in &f.start.evidence {
            detail(out, "start", &crate::text::sanitize(e))?;
        }
        if let Some(p) = &f.parity {
            detail(out, "fresh parity", &crate::text::sanitize(&p.summary()))?;
        }
    }
    if let Some(p) = &trial.parity {
        detail(out, "parity", &crate::text::sanitize(&p.summary()))?;
        if p.status != crate::report::ParityStatus::Same {
            for line in &p.compared {
                detail(out, "compared", &crate::text::sanitize(line))?;
            }
        }
        for (side, rows) in [
            ("only in target", &p.examples_only_in_target),
            ("only in control", &p.examples_only_in_control),
        ] {
            for row in rows {
                writeln!(
                    out,
                    "    {} {side}: {}",
                    style.paint(Paint::Dim, "│"),
                    crate::text::sanitize(row)
                )?;
            }
        }
    }
    detail(out, "copy", &text::copy(&trial.copy))?;
    if let Some(job) = &trial.job {
        detail(out, "job", &job.describe())?;
    }
    if let Some(e) = &trial.executors {
        detail(
            out,
            "executors",
            &format!(
                "{} on {}",
                e.count,
                if e.workers.is_empty() {
                    "no worker".to_string()
                } else {
                    e.workers.join(", ")
                }
            ),
        )?;
        for removed in &e.removed {
            detail(out, "executor lost", removed)?;
        }
    }
    if let Some(deps) = &trial.dependencies {
        detail(out, "dependencies", &deps.describe())?;
    }
    for note in &trial.notes {
        detail(out, "note", note)?;
    }
    for warning in &trial.warnings {
        writeln!(
            out,
            "  {} {}",
            style.paint(Paint::Yellow, &format!("warning: {}:", warning.code)),
            warning.message
        )?;
        for line in text::evidence_lines(&warning.evidence) {
            writeln!(out, "      {line}")?;
        }
    }
    if !trial.source_untouched {
        writeln!(
            out,
            "  {}",
            style.paint(
                Paint::Red,
                "WARNING: the source checkpoint changed during this trial (its hash after the \
                 trial differs from before)"
            )
        )?;
    }
    if let Some(sandbox) = &trial.sandbox {
        detail(out, "sandbox (kept)", &sandbox.display().to_string())?;
    } else if let Some(logs) = &trial.logs {
        detail(
            out,
            "driver log",
            &logs.join("logs").join("driver.log").display().to_string(),
        )?;
    }
    Ok(())
}

/// `1 topic (events: 4 partitions), 4792 filler + 200 fresh records, offsets rebased`.
fn seeding_line(trial: &TrialReport) -> String {
    let seeding = &trial.seeding;
    if seeding.topics.is_empty() {
        return "no topics created".to_owned();
    }
    let topics: Vec<String> = seeding
        .topics
        .iter()
        .map(|(name, partitions)| {
            format!(
                "{name}: {}",
                text::count(*partitions as usize, "partition", "partitions")
            )
        })
        .collect();
    let mut line = format!(
        "{} ({}), {} filler + {} fresh records",
        text::count(seeding.topics.len(), "topic", "topics"),
        topics.join(", "),
        seeding.filler_records,
        seeding.fresh_records,
    );
    if seeding.rebased {
        line.push_str(", offsets rebased");
    }
    line
}

fn write_footer(report: &RunReport, out: &mut impl Write, style: TerminalStyle) -> io::Result<()> {
    let total = report.trials.len();
    let denied = report
        .trials
        .iter()
        .filter(|t| denied(t, report.deny_warnings))
        .count();
    let passed = report
        .trials
        .iter()
        .filter(|t| t.passed() && !t.checks_failed())
        .count()
        - denied;
    let failed = total - passed - denied;
    let summary = if denied > 0 {
        format!(
            "{}: {passed} passed, {failed} failed, {denied} denied",
            text::count(total, "target", "targets"),
        )
    } else {
        format!(
            "{}: {passed} passed, {failed} failed",
            text::count(total, "target", "targets"),
        )
    };
    let paint = if passed == total {
        Paint::Green
    } else {
        Paint::Red
    };
    writeln!(out, "{}", style.paint(paint, &summary))?;
    let differs = report
        .trials
        .iter()
        .filter(|t| t.passed() && t.parity_failed())
        .count();
    if differs > 0 {
        let line = format!(
            "{} resumed, but wrote other rows than the control run (parity differs): exit {} unless the scenario says parity = \"may-differ\"",
            text::count(differs, "target", "targets"),
            crate::exit::Outcome::ParityDiffers.code()
        );
        writeln!(out, "{}", style.paint(Paint::Red, &line))?;
    }
    let fresh_failed = report
        .trials
        .iter()
        .filter(|t| t.passed() && t.fresh_failed())
        .count();
    if fresh_failed > 0 {
        let line = format!(
            "{} resumed, but the remedy run on a new empty checkpoint failed or its start is not proven at the committed offsets: exit {}",
            text::count(fresh_failed, "target", "targets"),
            crate::exit::Outcome::FreshFailed.code()
        );
        writeln!(out, "{}", style.paint(Paint::Red, &line))?;
    }
    if let Some(line) = parity_unchecked_line(report) {
        writeln!(out, "{}", style.paint(Paint::Yellow, &line))?;
    }
    let warned = report
        .trials
        .iter()
        .filter(|t| t.passed() && !t.warnings.is_empty())
        .count();
    if warned > 0 {
        let line = if report.deny_warnings {
            format!(
                "{} resumed with semantic warnings, denied (--deny-warnings / deny_warnings): exit {}",
                text::count(warned, "target", "targets"),
                crate::exit::Outcome::WarningsDenied.code()
            )
        } else {
            format!(
                "{} resumed with semantic warnings (see above; --deny-warnings fails on them)",
                text::count(warned, "target", "targets")
            )
        };
        writeln!(out, "{}", style.paint(Paint::Yellow, &line))?;
    }
    let changed: Vec<&str> = report
        .trials
        .iter()
        .filter(|t| !t.source_untouched)
        .map(|t| t.target_version.as_str())
        .collect();
    if changed.is_empty() {
        writeln!(
            out,
            "Source checkpoint untouched: hashed the same after every trial as before it."
        )
    } else {
        writeln!(
            out,
            "{}",
            style.paint(
                Paint::Red,
                &format!(
                    "WARNING: the source checkpoint changed during the trial on {}: \
                     something else writes to it (is the production query still running?)",
                    changed.join(", ")
                )
            )
        )
    }
}

/// Said when a run with a control checked no target's parity (every one `not-checked`): the
/// run compared nothing with the control, and its exit code does not count it (README, "Output
/// parity": `not-checked` never fails a run, `must-match` included). `None` otherwise.
pub(super) fn parity_unchecked_line(report: &RunReport) -> Option<String> {
    let parities: Vec<&super::Parity> = report
        .trials
        .iter()
        .filter_map(|t| t.parity.as_ref())
        .collect();
    let first = parities.first()?;
    if parities
        .iter()
        .any(|p| p.status != super::ParityStatus::NotChecked)
    {
        return None;
    }
    Some(format!(
        "parity not checked for {} ({}): nothing was compared with the control, and the exit code does not count it",
        text::count(parities.len(), "target", "targets"),
        first.reason.as_deref().unwrap_or("no reason recorded")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_helpers;

    fn render(report: &RunReport, style: TerminalStyle) -> String {
        let mut out = Vec::new();
        write_summary(report, &mut out, style).expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("the summary is UTF-8")
    }

    #[test]
    fn a_run_whose_every_parity_is_not_checked_says_so_in_the_terminal_and_markdown() {
        use crate::report::ParityStatus;
        let unchecked = test_helpers::resumed_with_parity(ParityStatus::NotChecked);
        let text = render(&unchecked, TerminalStyle { color: false });
        assert!(
            text.contains("parity not checked for 1 target (the control did not resume"),
            "{text}"
        );
        assert_eq!(crate::report::outcome(&unchecked).code(), 0, "not counted");
        let mut md = Vec::new();
        crate::report::write_markdown(&unchecked, &mut md).unwrap();
        let md = String::from_utf8(md).unwrap();
        assert!(
            md.contains("**Note:** parity not checked for 1 target"),
            "{md}"
        );
        for checked in [ParityStatus::Same, ParityStatus::Differs] {
            let report = test_helpers::resumed_with_parity(checked);
            assert_eq!(parity_unchecked_line(&report), None, "{checked}");
        }
        assert_eq!(parity_unchecked_line(&test_helpers::resumed()), None);
    }

    #[test]
    fn snapshots() {
        for (name, report) in test_helpers::fixtures() {
            let rendered = render(&report, TerminalStyle { color: false });
            insta::assert_snapshot!(name, rendered);
        }
    }

    /// Issue 13 §4: a target that resumed but whose remedy run started elsewhere is not PASS,
    /// and every writer says what the fresh run found (terminal, Markdown, JUnit, JSON).
    #[test]
    fn a_failed_fresh_run_fails_its_target_in_every_writer() {
        use crate::report::StartStatus;
        let report = test_helpers::resumed_with_fresh(true, StartStatus::Elsewhere, None);
        let text = render(&report, TerminalStyle { color: false });
        assert!(!text.contains("PASS"), "{text}");
        assert!(text.contains("start elsewhere: other offsets"), "{text}");
        assert!(text.contains("exit 22"), "{text}");
        let mut md = Vec::new();
        crate::report::write_markdown(&report, &mut md).unwrap();
        let md = String::from_utf8(md).unwrap();
        assert!(md.contains("start elsewhere"), "{md}");
        assert!(md.contains("| **FAIL** (fresh run failed) |"), "{md}");
        let mut xml = Vec::new();
        crate::report::write_junit(&report, &mut xml).unwrap();
        let xml = String::from_utf8(xml).unwrap();
        assert!(xml.contains("type=\"fresh-failed\""), "{xml}");
        let mut json = Vec::new();
        crate::report::write_json(&report, &mut json).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let f = &v["trials"][0]["fresh"];
        assert_eq!(f["start"]["status"], "elsewhere", "{v:#}");
        assert_eq!(f["passed"], false);
        assert_eq!(v["trials"][0]["passed"], false);
        assert_eq!(v["exit_code"], 22);
        let ok = test_helpers::resumed_with_fresh(true, StartStatus::Proven, None);
        let text = render(&ok, TerminalStyle { color: false });
        assert!(
            text.contains("PASS") && text.contains("start proven at"),
            "{text}"
        );
    }

    /// Breaker pass, session 6: under `--deny-warnings` a resume with a warning exits 19, but
    /// the table said `PASS` and the footer "1 passed".
    #[test]
    fn a_denied_warning_is_not_shown_as_passed() {
        let mut report = test_helpers::resumed_with_warning();
        report.deny_warnings = true;
        let rendered = render(&report, TerminalStyle { color: false });
        assert!(!rendered.contains("PASS"), "{rendered}");
        assert!(rendered.contains("DENIED"), "{rendered}");
        assert!(
            rendered.contains("0 passed, 0 failed, 1 denied"),
            "{rendered}"
        );
        report.deny_warnings = false;
        let rendered = render(&report, TerminalStyle { color: false });
        assert!(
            rendered.contains("PASS") && !rendered.contains("DENIED"),
            "{rendered}"
        );
        assert!(rendered.contains("1 passed, 0 failed"), "{rendered}");
    }

    #[test]
    fn snapshot_live_values_redacted() {
        let (report, sandbox) = test_helpers::live();
        let rendered = render(&report, TerminalStyle::default());
        insta::assert_snapshot!(test_helpers::redact(&rendered, &sandbox));
    }

    #[test]
    fn snapshot_colored() {
        // Escape codes made visible so the snapshot file stays readable.
        let rendered = render(
            &test_helpers::mixed_with_expected(),
            TerminalStyle { color: true },
        );
        insta::assert_snapshot!(rendered.replace('\x1b', "␛"));
    }

    #[test]
    fn plain_style_has_no_escape_codes() {
        for (name, report) in test_helpers::fixtures() {
            let rendered = render(&report, TerminalStyle { color: false });
            assert!(!rendered.contains('\x1b'), "{name}");
        }
    }

    #[test]
    fn evidence_escape_codes_are_stripped_even_with_color() {
        let mut report = test_helpers::state_store_error();
        report.trials[0].evidence = vec!["\x1b[31mERROR\x1b[0m boom".to_owned()];
        let rendered = render(&report, TerminalStyle { color: true });
        assert!(rendered.contains(" ERROR boom\n"));
        assert!(!rendered.contains("\x1b[31m"));
    }
}
