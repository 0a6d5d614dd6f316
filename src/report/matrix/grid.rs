//! The terminal view of a matrix: differences first, then one grid per shape and provider
//! (rows: source versions, columns: target versions). Plain text; the layout is not a stable
//! interface (use the JSON document for machines).

use std::io::{self, Write};

use super::model::{Cell, MatrixReport};
use crate::report::text;

/// Evidence lines shown per difference in the terminal (all of them are in every file report).
const EVIDENCE_LINES: usize = 4;

/// Writes the summary line, the differences (with their first evidence lines), then the grids.
/// A cell that disagrees with the suite is marked `✗`; a cell this report does not hold (another
/// shard's, or not finished) is `·`.
pub fn write_grid(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let diffs = report.differences();
    let mut shards = if report.shards.is_empty() {
        String::new()
    } else {
        format!(", shards {}", report.shards.join(","))
    };
    if let Some(why) = report.incompleteness() {
        shards.push_str(&format!("\n{why}"));
    }
    writeln!(
        out,
        "rehearse matrix {}: {}, {} as expected, {} differ{} (jobs {}, {}){shards}",
        report.suite,
        text::count(report.cells.len(), "cell", "cells"),
        report.cells.len() - diffs.len(),
        diffs.len(),
        if diffs.len() == 1 { "s" } else { "" },
        report.jobs,
        text::seconds(report.seconds),
    )?;
    let parity = report.parity_failures();
    if !parity.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "PARITY DIFFERS (the cell's output after the restart ≠ its control's)"
        )?;
        for c in &parity {
            let summary = c.parity.as_ref().map(|p| p.summary()).unwrap_or_default();
            writeln!(out, "  ✗ {}: {}", c.id(), text::sanitize(&summary))?;
            for e in c
                .parity
                .iter()
                .flat_map(|p| {
                    let t = p.examples_only_in_target.iter().map(|r| ("target", r));
                    t.chain(p.examples_only_in_control.iter().map(|r| ("control", r)))
                })
                .take(EVIDENCE_LINES)
            {
                writeln!(out, "      only in the {}: {}", e.0, text::sanitize(e.1))?;
            }
        }
    }
    if !diffs.is_empty() {
        writeln!(out)?;
        writeln!(out, "DIFFERENCES (expected → actual)")?;
        for c in &diffs {
            writeln!(out, "  ✗ {}", difference_line(c))?;
            for line in text::evidence_lines(&c.evidence)
                .iter()
                .take(EVIDENCE_LINES)
            {
                writeln!(out, "      {line}")?;
            }
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "rows: the Spark version that wrote the checkpoint; columns: the version that restarted it; \
         ✗ differs from the suite; · not in this report (another shard, or not finished)"
    )?;
    write_grid_only(report, out)
}

/// Writes the grids alone (one per shape and provider, a blank line between them).
pub fn write_grid_only(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let mut first = true;
    for shape in &report.shapes {
        for provider in &report.providers {
            if !first {
                writeln!(out)?;
            }
            first = false;
            write_one_grid(report, shape, provider, out)?;
        }
    }
    Ok(())
}

/// `dedup/rocksdb/4.0.1->3.5.3: expected resumed, got state-store-error (rule …, 41.0s)`.
fn difference_line(c: &Cell) -> String {
    let rule = c
        .rule
        .as_deref()
        .map(|r| format!(" (rule {}", text::sanitize(r).replace('\n', " ")))
        .unwrap_or_default();
    let secs = c.seconds.map(text::seconds).unwrap_or_default();
    let tail = match (rule.is_empty(), secs.is_empty()) {
        (true, true) => String::new(),
        (true, false) => format!(" ({secs})"),
        (false, true) => format!("{rule})"),
        (false, false) => format!("{rule}, {secs})"),
    };
    format!(
        "{}: expected {}, got {}{tail}",
        c.id(),
        c.expected,
        c.label()
    )
}

fn write_one_grid(
    report: &MatrixReport,
    shape: &str,
    provider: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    let label = |s: &str, t: &str| match report.cell(shape, provider, s, t) {
        Some(c) if !c.passed() => format!("✗ {}", c.label()),
        Some(c) => c.label_marked(),
        None => "·".to_string(),
    };
    let mut rows = vec![std::iter::once(format!("{shape} · {provider}"))
        .chain(report.targets.iter().map(|t| format!("→ {t}")))
        .collect::<Vec<_>>()];
    for s in &report.sources {
        rows.push(
            std::iter::once(format!("  from {s}"))
                .chain(report.targets.iter().map(|t| label(s, t)))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}", w = *w))
            .collect();
        writeln!(out, "{}", line.join("   ").trim_end())?;
    }
    // Which artifact each column ran (per-line jars: `[job.per_target]`).
    for (what, targets) in report.artifacts(shape, provider) {
        let to: Vec<String> = targets.iter().map(|t| format!("→ {t}")).collect();
        writeln!(
            out,
            "  job {}: {}",
            to.join(", "),
            text::sanitize(&what).replace('\n', " ")
        )?;
    }
    Ok(())
}

/// One line per finished cell, for the progress stream while the grid fills:
/// `[3/8] dedup/hdfs/3.5.3->4.0.1  resumed  (41.0s)` (`✗ … expected resumed` when it differs).
pub fn write_progress_line(
    done: usize,
    total: usize,
    cell: &Cell,
    out: &mut impl Write,
) -> io::Result<()> {
    let secs = cell
        .seconds
        .map(|s| format!("  ({})", text::seconds(s)))
        .unwrap_or_default();
    if cell.passed() {
        writeln!(
            out,
            "[{done}/{total}] {}  {}{secs}",
            cell.id(),
            cell.label_marked()
        )
    } else {
        writeln!(
            out,
            "[{done}/{total}] {}  ✗ {}, expected {}{secs}",
            cell.id(),
            cell.label(),
            cell.expected
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::report;
    use super::*;

    #[test]
    fn differences_come_first_then_the_grid() {
        let mut out = Vec::new();
        write_grid(&report(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        insta::assert_snapshot!(text);
        let diff = text.find("DIFFERENCES").unwrap();
        let grid = text.find("dedup · rocksdb").unwrap();
        assert!(diff < grid);
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn cells_of_other_shards_show_as_dots() {
        let mut r = report();
        r.cells.truncate(1);
        r.shards = vec!["1/2".into()];
        let mut out = Vec::new();
        write_grid(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains('·'), "{text}");
        assert!(text.contains("shards 1/2"), "{text}");
    }

    #[test]
    fn progress_lines_say_what_differs() {
        let r = report();
        let mut out = Vec::new();
        write_progress_line(3, 4, &r.cells[2], &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[3/4] dedup/rocksdb/4.0.1->3.5.3  ✗ state-store-error, expected resumed  (12.5s)\n"
        );
    }

    /// Issue 17: the matrix reports said which verdict each cell got, not which artifact it
    /// ran — with `[job.per_target]` a 4.x column runs another jar. The grid, HTML and Markdown
    /// say per column which artifact ran, each cell's evidence names it, and the JSON keeps
    /// it through `matrix merge`'s read.
    #[test]
    fn every_report_names_the_artifact_each_column_ran() {
        let mut r = report();
        let jar = |table: &str, name: &str| crate::report::JobArtifact {
            table: table.into(),
            kind: "jar".into(),
            path: format!("/jobs/{name}").into(),
            main_class: Some("CountByKey".into()),
            blake3: Some("ab12".into()),
        };
        for c in &mut r.cells {
            c.job = Some(if c.target.starts_with('4') {
                jar("[job.per_target.\"4.*\"]", "app_2.13-4.0.1.jar")
            } else {
                jar("[job]", "app_2.12-3.5.3.jar")
            });
        }
        let targets: Vec<&str> = r.targets.iter().map(String::as_str).collect();
        assert_eq!(targets, ["3.5.3", "4.0.1"], "the helper's axes");
        let new = "jar app_2.13-4.0.1.jar (CountByKey) from [job.per_target.\"4.*\"]";
        let old = "jar app_2.12-3.5.3.jar (CountByKey) from [job]";
        let mut out = Vec::new();
        write_grid(&r, &mut out).unwrap();
        let grid = String::from_utf8(out).unwrap();
        assert!(
            grid.contains(&format!("  job → 3.5.3: {old}\n  job → 4.0.1: {new}\n")),
            "{grid}"
        );
        let mut out = Vec::new();
        super::super::html::write_html(&r, &mut out).unwrap();
        let html = String::from_utf8(out).unwrap();
        assert!(
            html.contains("<li>job → 4.0.1: <code>jar app_2.13-4.0.1.jar (CountByKey) from [job.per_target.&quot;4.*&quot;]</code></li>")
                && html.contains("<code>/jobs/app_2.13-4.0.1.jar</code>, blake3 <code>ab12</code>"),
            "{html}"
        );
        let mut out = Vec::new();
        super::super::markdown::write_markdown(&r, &mut out).unwrap();
        let md = String::from_utf8(out).unwrap();
        assert!(md.contains(&format!("- job → 4.0.1: `{new}`")), "{md}");
        let json = serde_json::to_string(&r.cells[0]).unwrap();
        let back: Cell = serde_json::from_str(&json).unwrap();
        assert_eq!(back.job, r.cells[0].job);
        // A cell without one (a report written before) says nothing of it.
        r.cells.iter_mut().for_each(|c| c.job = None);
        let json = serde_json::to_string(&r.cells[0]).unwrap();
        assert!(!json.contains("\"job\""), "{json}");
        let mut out = Vec::new();
        write_grid(&r, &mut out).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("  job →"));
    }

    #[test]
    fn a_rule_from_a_merged_file_cannot_send_escapes_or_line_breaks_to_the_terminal() {
        let mut r = report();
        r.cells[2].rule = Some("r\x1b[2J\nx".into());
        let mut out = Vec::new();
        write_grid(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains('\x1b'), "{text}");
        assert!(text.contains("(rule r x, 12.5s)"), "{text}");
    }
}
