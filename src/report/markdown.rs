//! A GitHub-flavoured Markdown summary of a run, fit for a CI job summary
//! (`$GITHUB_STEP_SUMMARY`) or a pull-request comment.
//!
//! Plain text only: no ANSI codes (evidence is stripped of them), no emoji, no HTML. Verdicts are
//! written by name (`resumed`, `state-store-error`) so the summary reads the same in a terminal,
//! a browser and a screen reader. Like the terminal summary, the layout is not a stable interface.

use std::io::{self, Write};

use super::model::{RunReport, TrialReport};
use super::text;

/// Writes `report` as Markdown: a heading with the scenario, one table row per target, then a
/// section per trial that did not pass (rule, remedy, evidence in fenced code blocks,
/// `startingOffsets`).
pub fn write_markdown(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "## rehearse: {}", escape(&report.scenario))?;
    writeln!(out)?;
    let total = report.trials.len();
    let passed = report
        .trials
        .iter()
        .filter(|t| t.passed() && !t.checks_failed())
        .count();
    let written_by = match &report.source_version {
        Some(version) => format!(" (written by Spark {})", escape(version)),
        None => String::new(),
    };
    writeln!(
        out,
        "Checkpoint {}{written_by} restarted on {}: **{passed} passed, {} failed**.",
        code(&report.source_checkpoint.display().to_string()),
        text::count(total, "target version", "target versions"),
        total - passed,
    )?;
    if let Some(line) = super::terminal::parity_unchecked_line(report) {
        writeln!(out, "\n> **Note:** {}.", escape(&line))?;
    }
    if let Some(remote) = &report.remote_source {
        writeln!(
            out,
            "\n{}",
            escape(&super::terminal::remote_source_line(remote))
        )?;
    }

    let changed: Vec<&str> = report
        .trials
        .iter()
        .filter(|t| !t.source_untouched)
        .map(|t| t.target_version.as_str())
        .collect();
    if !changed.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "> **Warning:** the source checkpoint changed during the trial on {}: something else \
             writes to it (is the production query still running?).",
            escape(&changed.join(", "))
        )?;
    }

    if report.trials.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    write_copy_line(report, out)?;
    write_jobs_line(report, out)?;
    writeln!(out)?;
    write_table(report, out)?;
    if let Some(c) = &report.control {
        writeln!(out)?;
        writeln!(out, "{}", escape(&super::terminal::control_line(c)))?;
    }
    for trial in &report.trials {
        if !trial.passed() {
            writeln!(out)?;
            write_failure(trial, out)?;
        }
    }
    write_output(report, out)?;
    let kept: Vec<&TrialReport> = report
        .trials
        .iter()
        .filter(|t| {
            t.passed()
                && (t.sandbox.is_some()
                    || !t.notes.is_empty()
                    || !t.warnings.is_empty()
                    || t.parity.is_some()
                    || t.fresh.is_some())
        })
        .collect();
    if !kept.is_empty() {
        writeln!(out)?;
        // A target whose verdict passed but whose parity or fresh run failed is not "passing"
        // (new-user pass, session 8: a parity `differs` sat under "Notes on passing targets").
        if kept.iter().any(|t| t.checks_failed()) {
            writeln!(out, "### Checks beside the verdict, and notes")?;
        } else {
            writeln!(out, "### Notes on passing targets")?;
        }
        writeln!(out)?;
        for trial in kept {
            if let Some(f) = &trial.fresh {
                writeln!(
                    out,
                    "- spark-{}: **fresh {}**: {}",
                    escape(&trial.target_version),
                    if f.failed() { "FAILED" } else { "ran" },
                    escape(&f.summary())
                )?;
                if let Some(p) = &f.parity {
                    writeln!(out, "  - fresh parity: {}", escape(&p.summary()))?;
                }
            }
            if let Some(p) = &trial.parity {
                writeln!(
                    out,
                    "- spark-{}: **parity {}**: {}",
                    escape(&trial.target_version),
                    code(&p.status.to_string()),
                    escape(&p.summary())
                )?;
                for (side, rows) in [
                    ("only in target", &p.examples_only_in_target),
                    ("only in control", &p.examples_only_in_control),
                ] {
                    for row in rows {
                        writeln!(out, "  - {side}: {}", code(row))?;
                    }
                }
            }
            for warning in &trial.warnings {
                writeln!(
                    out,
                    "- spark-{}: **warning {}**: {} ({})",
                    escape(&trial.target_version),
                    code(&warning.code),
                    escape(&warning.message),
                    escape(&warning.evidence.join("; "))
                )?;
            }
            for note in &trial.notes {
                writeln!(
                    out,
                    "- spark-{}: {}",
                    escape(&trial.target_version),
                    escape(note)
                )?;
            }
            if let Some(sandbox) = &trial.sandbox {
                writeln!(
                    out,
                    "- spark-{}: sandbox kept at {}",
                    escape(&trial.target_version),
                    code(&sandbox.display().to_string())
                )?;
            }
        }
    }
    Ok(())
}

/// `### Output topics`: per trial and `[[output_topics]]` entry, the records the restarted job
/// wrote there and the first one shown; nothing when no trial has output topics.
fn write_output(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    if report.trials.iter().all(|t| t.output.is_empty()) {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "### Output topics")?;
    writeln!(out)?;
    writeln!(
        out,
        "| Target | Topic | Records after the restart | First record |"
    )?;
    writeln!(out, "| --- | --- | ---: | --- |")?;
    for trial in &report.trials {
        for o in &trial.output {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                escape(&trial.target_version),
                code(&o.topic),
                o.records_after_restart,
                o.sample.first().map_or("-".to_owned(), |s| code(s)),
            )?;
        }
    }
    Ok(())
}

/// One line: the job artifact each trial ran, when the reports know it.
fn write_jobs_line(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    let each: Vec<String> = report
        .trials
        .iter()
        .filter_map(|t| {
            t.job
                .as_ref()
                .map(|j| format!("spark-{}: {}", t.target_version, j.describe()))
        })
        .collect();
    if each.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "Jobs: {}.", escape(&each.join("; ")))
}

/// One line: what the sandbox copies held (the same for every target, or per target).
fn write_copy_line(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    let first = &report.trials[0].copy;
    if report.trials.iter().all(|t| t.copy == *first) {
        return writeln!(out, "Sandbox copy: {}.", escape(&text::copy(first)));
    }
    let each: Vec<String> = report
        .trials
        .iter()
        .map(|t| format!("spark-{}: {}", t.target_version, text::copy(&t.copy)))
        .collect();
    writeln!(out, "Sandbox copies: {}.", escape(&each.join("; ")))
}

fn write_table(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    let with_expected = report.trials.iter().any(|t| t.expected_verdict.is_some());
    let expected_heading = if with_expected { " Expected |" } else { "" };
    let expected_rule = if with_expected { " --- |" } else { "" };
    writeln!(
        out,
        "| Target | Result | Verdict |{expected_heading} Batches (before → after) | Start offsets | Time to verdict |"
    )?;
    writeln!(out, "| --- | --- | --- |{expected_rule} --- | --- | ---: |")?;
    for trial in &report.trials {
        let expected = if with_expected {
            let name = trial
                .expected_verdict
                .map_or("-".to_owned(), |v| code(v.name()));
            format!(" {name} |")
        } else {
            String::new()
        };
        writeln!(
            out,
            "| {} | {} | {} |{expected} {} | {} | {} |",
            escape(&trial.target_version),
            row_result(trial),
            code(trial.verdict.name()),
            text::batches(trial.last_committed_batch, trial.first_batch_after_restart),
            text::offsets_check(trial.start_offsets_match),
            seconds(trial.seconds_to_verdict),
        )?;
    }
    Ok(())
}

fn write_failure(trial: &TrialReport, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "### spark-{}: {}",
        escape(&trial.target_version),
        code(trial.verdict.name())
    )?;
    writeln!(out)?;
    if let Some(expected) = trial.expected_verdict {
        writeln!(out, "- **Expected:** {}", code(expected.name()))?;
    }
    writeln!(out, "- **Rule:** {}", code(&trial.rule))?;
    writeln!(out, "- **Remedy:** {}", escape(&trial.remedy))?;
    if let Some(e) = &trial.exercised {
        writeln!(out, "- **Exercised paths:** {}", escape(&e.summary()))?;
        for (name, p) in e.not_run() {
            writeln!(
                out,
                "- **Not run:** {}: {}",
                code(name),
                escape(&p.evidence)
            )?;
        }
    }
    if let Some(p) = &trial.parity {
        writeln!(out, "- **Parity:** {}", escape(&p.summary()))?;
    }
    if let Some(f) = &trial.fresh {
        writeln!(out, "- **Fresh:** {}", escape(&f.summary()))?;
        if let Some(p) = &f.parity {
            writeln!(out, "- **Fresh parity:** {}", escape(&p.summary()))?;
        }
    }
    if let Some(job) = &trial.job {
        writeln!(out, "- **Job:** {}", escape(&job.describe()))?;
    }
    if let Some(deps) = &trial.dependencies {
        writeln!(out, "- **Dependencies:** {}", escape(&deps.describe()))?;
    }
    for note in &trial.notes {
        writeln!(out, "- **Note:** {}", escape(note))?;
    }
    for warning in &trial.warnings {
        writeln!(
            out,
            "- **Warning {}:** {}",
            code(&warning.code),
            escape(&warning.message)
        )?;
    }
    if let Some(sandbox) = &trial.sandbox {
        writeln!(
            out,
            "- **Sandbox kept:** {}",
            code(&sandbox.display().to_string())
        )?;
    } else if let Some(logs) = &trial.logs {
        writeln!(
            out,
            "- **Driver log:** {}",
            code(&logs.join("logs").join("driver.log").display().to_string())
        )?;
    }
    writeln!(out)?;
    let evidence = text::evidence_lines(&trial.evidence);
    if evidence.is_empty() {
        writeln!(out, "No evidence lines were recorded.")?;
    } else {
        writeln!(out, "Evidence:")?;
        writeln!(out)?;
        fenced(out, "text", &evidence.join("\n"))?;
    }
    if let Some(offsets) = &trial.starting_offsets {
        writeln!(out)?;
        writeln!(
            out,
            "`startingOffsets` for a fresh checkpoint, from the last committed offsets:"
        )?;
        writeln!(out)?;
        fenced(out, "json", offsets)?;
    }
    Ok(())
}

/// A fenced code block whose fence is longer than any run of backticks inside `body`, so log
/// lines that contain a fence cannot close the block early.
fn fenced(out: &mut impl Write, info: &str, body: &str) -> io::Result<()> {
    let fence = "`".repeat(longest_backtick_run(body).max(2) + 1);
    writeln!(out, "{fence}{info}")?;
    writeln!(out, "{}", text::sanitize(body.trim_end_matches('\n')))?;
    writeln!(out, "{fence}")
}

/// A code span (`` `x` ``) whose delimiters outlast any backticks inside, with the padding
/// CommonMark asks for when the content starts or ends with a backtick.
fn code(s: &str) -> String {
    let s = text::sanitize(s).replace('|', "\\|");
    let ticks = "`".repeat(longest_backtick_run(&s) + 1);
    if s.starts_with('`') || s.ends_with('`') {
        format!("{ticks} {s} {ticks}")
    } else {
        format!("{ticks}{s}{ticks}")
    }
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Text outside code: escape what would turn into markup or break a table row.
fn escape(s: &str) -> String {
    let mut escaped = String::with_capacity(s.len());
    for c in text::sanitize(s).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#'
        ) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// `41.3 s`.
fn seconds(secs: f64) -> String {
    format!("{secs:.1} s")
}

/// The result column of a target's row: `pass`, `**FAIL**` for a failing verdict, or
/// `**FAIL**` with the check that failed when the verdict passed (parity, the fresh run).
fn row_result(trial: &TrialReport) -> String {
    if !trial.passed() {
        return "**FAIL**".into();
    }
    let mut failed = Vec::new();
    if trial.parity_failed() {
        failed.push("parity differs");
    }
    if trial.fresh_failed() {
        failed.push("fresh run failed");
    }
    if trial.fresh_parity_failed() {
        failed.push("fresh parity differs");
    }
    if failed.is_empty() {
        "pass".into()
    } else {
        format!("**FAIL** ({})", failed.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_helpers;

    fn render(report: &RunReport) -> String {
        test_helpers::render(crate::report::Format::Markdown, report)
    }

    test_helpers::writer_snapshot_tests!();

    #[test]
    fn no_ansi_codes_even_from_evidence() {
        let mut report = test_helpers::state_store_error();
        report.trials[0].evidence = vec!["\x1b[31mERROR\x1b[0m boom".to_owned()];
        let rendered = render(&report);
        assert!(!rendered.contains('\x1b'));
        assert!(rendered.contains("ERROR boom"));
    }

    #[test]
    fn a_fence_in_evidence_does_not_close_the_block() {
        let mut report = test_helpers::state_store_error();
        report.trials[0].evidence = vec!["```".to_owned(), "after".to_owned()];
        let rendered = render(&report);
        assert!(
            rendered.contains("````text\n```\nafter\n````\n"),
            "{rendered}"
        );
    }

    #[test]
    fn code_spans_survive_backticks_and_pipes() {
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("`x`"), "`` `x` ``");
    }
}
