//! A GitHub-flavoured Markdown summary of a matrix, fit for `$GITHUB_STEP_SUMMARY`: the
//! differences first, one grid table per shape and provider, then the evidence of every cell
//! that did not resume. Plain text (no HTML, no ANSI), verdicts by name.

use std::io::{self, Write};

use super::model::{Cell, CellStatus, MatrixReport};
use crate::report::text;
use crate::verdict::Verdict;

/// Writes `report` as Markdown: header and summary, the differences, the grids, then the
/// evidence of the cells that did not resume or differ.
pub fn write_markdown(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let diffs = report.differences();
    write_header(report, diffs.len(), out)?;
    write_differences(&diffs, out)?;
    writeln!(out)?;
    writeln!(
        out,
        "In the grids, rows are the Spark version that wrote the checkpoint and columns the version \
         that restarted it; · is a cell this report does not hold (another shard, or not finished)."
    )?;
    for shape in &report.shapes {
        for provider in &report.providers {
            write_grid(report, shape, provider, out)?;
        }
    }
    let shown: Vec<&Cell> = report
        .cells
        .iter()
        .filter(|c| {
            c.status != CellStatus::NotApplicable
                && (c.verdict != Some(Verdict::Resumed) || !c.passed() || c.parity_failed())
        })
        .collect();
    if !shown.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "### Evidence of the cells that did not resume or differ"
        )?;
        for c in shown {
            write_evidence(c, out)?;
        }
    }
    write_output(report, out)?;
    write_parity(report, out)
}

/// Each cell's output parity against its source checkpoint's control (the suite's `control =
/// true`), then the rows of the cells that differ; nothing when no cell has a parity.
fn write_parity(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let cells: Vec<&Cell> = report.cells.iter().filter(|c| c.parity.is_some()).collect();
    if cells.is_empty() && report.controls.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "### Output parity against the control")?;
    writeln!(out)?;
    writeln!(
        out,
        "Each source checkpoint was also restarted on its own version with the unchanged job (the control); \
         each cell's output after the restart is compared with the control's, row order ignored."
    )?;
    writeln!(out)?;
    for c in &report.controls {
        writeln!(
            out,
            "- control of `{}` on {}: {}",
            c.id(),
            escape(&c.version),
            escape(&c.outcome())
        )?;
    }
    for c in report
        .controls
        .iter()
        .filter(|c| c.verdict != Some(Verdict::Resumed))
    {
        writeln!(out)?;
        writeln!(out, "Evidence of the control of `{}`:", c.id())?;
        writeln!(out)?;
        writeln!(out, "```text")?;
        for line in text::evidence_lines(&c.evidence) {
            writeln!(out, "{}", line.replace("```", "ˋˋˋ"))?;
        }
        writeln!(out, "```")?;
    }
    if cells.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "| cell | parity | rows only in the cell | rows only in the control | compared, or why not |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for c in &cells {
        let Some(p) = &c.parity else { continue };
        let status = match (p.status, c.parity_failed(), p.may_differ) {
            (crate::report::ParityStatus::Differs, true, _) => format!("**{}**", p.status),
            (crate::report::ParityStatus::Differs, false, true) => {
                format!("{} (allowed)", p.status)
            }
            _ => p.status.to_string(),
        };
        let what = match &p.reason {
            Some(r) => r.clone(),
            None => p.compared.join("; "),
        };
        writeln!(
            out,
            "| `{}` | {status} (control on {}) | {} | {} | {} |",
            c.id(),
            escape(&p.control_version),
            p.rows_only_in_target,
            p.rows_only_in_control,
            escape(&what)
        )?;
    }
    for c in cells.iter().filter(|c| c.parity_differs().is_some()) {
        let Some(p) = &c.parity else { continue };
        writeln!(out)?;
        writeln!(out, "Rows of `{}` only on one side:", c.id())?;
        writeln!(out)?;
        writeln!(out, "```text")?;
        for (side, rows) in [
            ("cell", &p.examples_only_in_target),
            ("control", &p.examples_only_in_control),
        ] {
            for r in rows {
                writeln!(
                    out,
                    "only in the {side}: {}",
                    text::sanitize(r).replace("```", "ˋˋˋ")
                )?;
            }
        }
        writeln!(out, "```")?;
    }
    Ok(())
}

/// What the restarted jobs wrote to their output topics, per cell that has any (evidence, not
/// part of the verdict); nothing when no cell has an output topic.
fn write_output(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let cells: Vec<&Cell> = report
        .cells
        .iter()
        .filter(|c| !c.output.is_empty())
        .collect();
    if cells.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "### Output topics after the restart")?;
    writeln!(out)?;
    writeln!(out, "| cell | topic | records written after the restart |")?;
    writeln!(out, "|---|---|---|")?;
    for c in cells {
        for o in &c.output {
            writeln!(
                out,
                "| {} | {} | {} |",
                code(&c.id()).replace('|', "\\|"),
                code(&o.topic).replace('|', "\\|"),
                o.records_after_restart
            )?;
        }
    }
    Ok(())
}

/// The title, the one-line summary, and how to regenerate the report (when the suite file is
/// known).
fn write_header(report: &MatrixReport, differences: usize, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "## rehearse matrix: {}", escape(&report.suite))?;
    writeln!(out)?;
    writeln!(
        out,
        "{}: **{} as expected, {} different**{}. Wall time {} with {} cells at once.",
        escape(&report.scope()),
        report.cells.len() - differences,
        differences,
        match report.parity_failures().len() {
            0 => String::new(),
            n => format!(
                "; **{} whose output differs from the control's**",
                text::count(n, "cell", "cells")
            ),
        },
        text::seconds(report.seconds),
        report.jobs,
    )?;
    if let Some(file) = &report.suite_file {
        writeln!(out)?;
        writeln!(
            out,
            "Regenerate: `rehearse matrix {} --markdown FILE` (real Spark and Kafka in containers; \
             rows are the Spark version that wrote the checkpoint, columns the version that restarted it).",
            text::sanitize(file).replace('`', "'")
        )?;
    }
    Ok(())
}

/// The table of cells that differ from the suite (nothing when every cell agrees).
fn write_differences(diffs: &[&Cell], out: &mut impl Write) -> io::Result<()> {
    if diffs.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "### Differences from the suite's expectations")?;
    writeln!(out)?;
    writeln!(out, "| cell | expected | actual | rule |")?;
    writeln!(out, "|---|---|---|---|")?;
    for c in diffs {
        writeln!(
            out,
            "| `{}` | {} | **{}** | {} |",
            c.id(),
            match &c.expected_reason {
                Some(r) => format!("{} ({})", c.expected, escape(r)),
                None => c.expected.to_string(),
            },
            c.label(),
            c.rule
                .as_deref()
                .map(|r| code(r).replace('|', "\\|"))
                .unwrap_or_else(|| "-".into())
        )?;
    }
    Ok(())
}

/// The grid table of one shape and provider: sources down, targets across, differing cells in
/// bold with their expectation.
fn write_grid(
    report: &MatrixReport,
    shape: &str,
    provider: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "### {} · {}", escape(shape), escape(provider))?;
    writeln!(out)?;
    let head: Vec<String> = report.targets.iter().map(|t| format!("→ {t}")).collect();
    writeln!(out, "| source | {} |", head.join(" | "))?;
    writeln!(out, "|---|{}", "---|".repeat(report.targets.len()))?;
    for s in &report.sources {
        let cells: Vec<String> = report
            .targets
            .iter()
            .map(|t| match report.cell(shape, provider, s, t) {
                Some(c) if !c.passed() => {
                    format!("**{}** (expected {})", c.label(), c.expected)
                }
                Some(c) if c.parity_failed() => format!("**{}{}**", c.label(), c.parity_mark()),
                Some(c) => format!("{}{}", c.label(), c.parity_mark()),
                None => "·".to_string(),
            })
            .collect();
        writeln!(out, "| {s} | {} |", cells.join(" | "))?;
    }
    // Which artifact each column ran (per-line jars: `[job.per_target]`).
    let artifacts = report.artifacts(shape, provider);
    if !artifacts.is_empty() {
        writeln!(out)?;
        for (what, targets) in artifacts {
            let to: Vec<String> = targets.iter().map(|t| format!("→ {t}")).collect();
            writeln!(out, "- job {}: {}", to.join(", "), code(&what))?;
        }
    }
    Ok(())
}

/// The evidence of one cell: heading, rule, expectation reason, remedy, and the evidence lines
/// in a fenced block.
fn write_evidence(c: &Cell, out: &mut impl Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "#### `{}`: {}{}",
        c.id(),
        c.label(),
        if c.passed() { " (as expected)" } else { "" }
    )?;
    writeln!(out)?;
    if let Some(rule) = &c.rule {
        writeln!(out, "Rule {}.", code(rule))?;
    }
    if let Some(reason) = &c.expected_reason {
        writeln!(out, "Expected because: {}", escape(reason))?;
    }
    if let Some(job) = &c.job {
        writeln!(out, "Job: {}.", code(&job.describe()))?;
    }
    if let Some(remedy) = &c.remedy {
        writeln!(out, "Remedy: {}", escape(remedy))?;
    }
    if let Some(p) = &c.parity {
        writeln!(out, "Parity: {}", escape(&p.summary()))?;
    }
    writeln!(out)?;
    writeln!(out, "```text")?;
    for line in text::evidence_lines(&c.evidence) {
        writeln!(out, "{}", line.replace("```", "ˋˋˋ"))?;
    }
    writeln!(out, "```")
}

/// Inline text: Markdown punctuation escaped, and a line break (an `expect` reason may be a
/// multi-line TOML string) becomes a space so it cannot start a heading, a rule or a table row.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in text::sanitize(s).chars() {
        if ch == '\n' {
            out.push(' ');
            continue;
        }
        if "\\`*_[]<>|#".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// A code span on one line (in a table cell, `|` must be escaped on top: GFM splits cells first).
fn code(s: &str) -> String {
    format!(
        "`{}`",
        text::sanitize(s).replace('`', "'").replace('\n', " ")
    )
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::report;
    use super::*;

    #[test]
    fn markdown_lists_differences_then_grids_then_evidence() {
        let mut out = Vec::new();
        write_markdown(&report(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        insta::assert_snapshot!(text);
        assert!(text.find("### Differences").unwrap() < text.find("### dedup").unwrap());
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn output_counts_are_listed_per_cell_when_a_cell_has_them() {
        let mut r = report();
        let mut out = Vec::new();
        write_markdown(&r, &mut out).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("Output topics"));
        r.cells[0].output = vec![crate::report::OutputCount {
            topic: "orders-out".into(),
            records_after_restart: 17,
            sample: vec![],
        }];
        let mut out = Vec::new();
        write_markdown(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(&format!("| `{}` | `orders-out` | 17 |", r.cells[0].id())),
            "{text}"
        );
    }

    #[test]
    fn free_text_cannot_break_a_table_or_start_a_heading() {
        let mut r = report();
        r.cells[2].rule = Some("rule|with`tick\nand line".into());
        r.cells[2].expected_reason = Some("SPARK-1\n# not a heading\n---".into());
        let mut out = Vec::new();
        write_markdown(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("| `rule\\|with'tick and line` |"), "{text}");
        assert!(
            text.contains("Expected because: SPARK-1 \\# not a heading ---"),
            "{text}"
        );
        assert!(!text.lines().any(|l| l.starts_with("# ")), "{text}");
    }
}
