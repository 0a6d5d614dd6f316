//! A self-contained HTML page of a matrix: inline CSS, no scripts, no external resources. One
//! grid per shape and provider, each cell coloured by verdict and linking to its evidence
//! further down the same page (`#cell-…`); differences from the suite are listed first.

use std::io::{self, Write};

use super::model::{Cell, CellStatus, MatrixReport};
use crate::report::text;
use crate::verdict::Verdict;

/// Background colour per verdict (and for cells without one). Chosen so `resumed` is the only
/// green; every failure is a warm colour, harness problems are grey-blue.
fn colour(c: &Cell) -> &'static str {
    match (c.status, c.verdict) {
        (CellStatus::NotApplicable, _) => "#eeeeee",
        (CellStatus::GenerationFailed | CellStatus::HarnessError, _) => "#c9d6e3",
        (_, Some(Verdict::Resumed)) => "#b7e1b0",
        (_, Some(Verdict::ResumeUnproven)) => "#e6f0b0",
        (_, Some(Verdict::StateStoreError)) => "#f4a3a3",
        (_, Some(Verdict::OffsetLogError)) => "#f7b98b",
        (_, Some(Verdict::PlanChange)) => "#e3b7f0",
        (_, Some(Verdict::StartedFresh)) => "#f9e08b",
        (_, Some(Verdict::KafkaDataLoss)) => "#f2c6a0",
        (_, Some(Verdict::Timeout)) => "#fff3b0",
        (_, Some(Verdict::NoOutcome)) => "#fff8d6",
        (_, Some(Verdict::EnvironmentError)) => "#c9d6e3",
        (_, Some(Verdict::UnclassifiedFailure)) => "#e8a0b4",
        (_, None) => "#ffffff",
    }
}

fn esc(s: &str) -> String {
    text::sanitize(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An id usable in a URL fragment: the cell id with everything but `[A-Za-z0-9._-]` as `_`.
fn anchor(c: &Cell) -> String {
    let id: String = c
        .id()
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || "._-".contains(ch) {
                ch
            } else {
                '_'
            }
        })
        .collect();
    format!("cell-{id}")
}

/// Writes `report` as one HTML page: head and summary, the differences, one grid per shape and
/// provider, then the evidence of every cell.
pub fn write_html(report: &MatrixReport, out: &mut impl Write) -> io::Result<()> {
    let diffs = report.differences();
    write_head(report, diffs.len(), out)?;
    write_differences(&diffs, out)?;
    for shape in &report.shapes {
        for provider in &report.providers {
            write_grid(report, shape, provider, out)?;
        }
    }
    writeln!(out, "<h2>Evidence per cell</h2>")?;
    for c in &report.cells {
        write_evidence(c, out)?;
    }
    if !report.controls.is_empty() {
        writeln!(
            out,
            "<h2>Control runs</h2><p>Each source checkpoint restarted on its own version with the unchanged job; each cell's parity compares with its own.</p>"
        )?;
        for c in &report.controls {
            writeln!(
                out,
                "<section><h3><code>{}</code> on {}: {}</h3><pre>",
                esc(&c.id()),
                esc(&c.version),
                esc(&c.outcome())
            )?;
            for line in text::evidence_lines(&c.evidence) {
                writeln!(out, "{}", esc(&line))?;
            }
            writeln!(out, "</pre></section>")?;
        }
    }
    writeln!(out, "</body></html>")
}

/// The document head with its inline style, the title, and the one-paragraph summary.
fn write_head(report: &MatrixReport, differences: usize, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>rehearse matrix {}</title>",
        esc(&report.suite)
    )?;
    writeln!(
        out,
        "<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:80em}}\
         table{{border-collapse:collapse;margin:0.5em 0 1.5em}}\
         th,td{{border:1px solid #999;padding:0.35em 0.7em;text-align:left}}\
         td a{{color:#000;text-decoration:none;display:block}}\
         td.diff{{outline:3px solid #c00;outline-offset:-3px;font-weight:bold}}\
         pre{{background:#f6f6f6;padding:0.7em;overflow-x:auto;white-space:pre-wrap}}\
         section{{border-top:1px solid #ccc;margin-top:1em}}</style></head><body>"
    )?;
    writeln!(out, "<h1>rehearse matrix: {}</h1>", esc(&report.suite))?;
    writeln!(
        out,
        "<p>{}: <b>{} as expected, {} different</b>. \
         Wall time {} with {} cells at once. Rows: the Spark version that wrote the checkpoint; \
         columns: the version that restarted it. Click a cell for its evidence.</p>",
        esc(&report.scope()),
        report.cells.len() - differences,
        differences,
        text::seconds(report.seconds),
        report.jobs
    )
}

/// The list of cells that differ from the suite, each linking to its evidence (nothing when
/// every cell agrees).
fn write_differences(diffs: &[&Cell], out: &mut impl Write) -> io::Result<()> {
    if diffs.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h2>Differences from the suite's expectations</h2><ul>"
    )?;
    for c in diffs {
        writeln!(
            out,
            "<li><a href=\"#{}\"><code>{}</code></a>: expected {}, got <b>{}</b></li>",
            anchor(c),
            esc(&c.id()),
            c.expected,
            c.label()
        )?;
    }
    writeln!(out, "</ul>")
}

/// The grid of one shape and provider: sources down, targets across, each cell coloured by
/// verdict and linking to its evidence (`·` for a cell the report does not hold).
fn write_grid(
    report: &MatrixReport,
    shape: &str,
    provider: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(out, "<h2>{} · {}</h2>", esc(shape), esc(provider))?;
    write!(out, "<table><tr><th>source \\ target</th>")?;
    for t in &report.targets {
        write!(out, "<th>{}</th>", esc(t))?;
    }
    writeln!(out, "</tr>")?;
    for s in &report.sources {
        write!(out, "<tr><th>{}</th>", esc(s))?;
        for t in &report.targets {
            match report.cell(shape, provider, s, t) {
                Some(c) => write!(
                    out,
                    "<td style=\"background:{}\"{}><a href=\"#{}\">{}{}</a></td>",
                    colour(c),
                    if c.passed() { "" } else { " class=\"diff\"" },
                    anchor(c),
                    c.label(),
                    if c.passed() {
                        c.parity_mark().to_string()
                    } else {
                        format!(" (expected {})", c.expected)
                    }
                )?,
                None => write!(out, "<td>·</td>")?,
            }
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</table>")?;
    // Which artifact each column ran (per-line jars: `[job.per_target]`).
    let artifacts = report.artifacts(shape, provider);
    if !artifacts.is_empty() {
        writeln!(out, "<ul class=\"jobs\">")?;
        for (what, targets) in artifacts {
            let to: Vec<String> = targets.iter().map(|t| format!("→ {}", esc(t))).collect();
            writeln!(
                out,
                "<li>job {}: <code>{}</code></li>",
                to.join(", "),
                esc(&what)
            )?;
        }
        writeln!(out, "</ul>")?;
    }
    Ok(())
}

/// The evidence section of one cell (the target of its `#cell-…` links): expectation, rule,
/// batches, offsets, time, remedy, evidence lines, notes and output-topic counts.
fn write_evidence(c: &Cell, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "<section id=\"{}\"><h3><code>{}</code>: {}</h3>",
        anchor(c),
        esc(&c.id()),
        c.label()
    )?;
    write!(out, "<p>expected {}", c.expected)?;
    if let Some(reason) = &c.expected_reason {
        write!(out, " ({})", esc(reason))?;
    }
    if let Some(rule) = &c.rule {
        write!(out, "; rule <code>{}</code>", esc(rule))?;
    }
    write!(
        out,
        "; batches {}; start offsets {}",
        esc(&text::batches(
            c.last_committed_batch,
            c.first_batch_after_restart
        )),
        text::offsets_check(c.start_offsets_match)
    )?;
    if let Some(s) = c.seconds {
        write!(out, "; {} to verdict", text::seconds(s))?;
    }
    writeln!(out, "</p>")?;
    if let Some(job) = &c.job {
        writeln!(
            out,
            "<p>Job: <code>{}</code>, <code>{}</code>{}</p>",
            esc(&job.describe()),
            esc(&job.path.display().to_string()),
            job.blake3
                .as_deref()
                .map(|b| format!(", blake3 <code>{}</code>", esc(b)))
                .unwrap_or_default()
        )?;
    }
    if let Some(remedy) = &c.remedy {
        writeln!(out, "<p>Remedy: {}</p>", esc(remedy))?;
    }
    writeln!(out, "<pre>")?;
    for line in text::evidence_lines(&c.evidence) {
        writeln!(out, "{}", esc(&line))?;
    }
    writeln!(out, "</pre>")?;
    for note in &c.notes {
        writeln!(out, "<p>Note: {}</p>", esc(note))?;
    }
    for o in &c.output {
        writeln!(
            out,
            "<p>Output topic <code>{}</code>: {} records written after the restart</p>",
            esc(&o.topic),
            o.records_after_restart
        )?;
    }
    if let Some(p) = &c.parity {
        writeln!(out, "<p>Parity: {}</p>", esc(&p.summary()))?;
        let rows: Vec<_> = p
            .examples_only_in_target
            .iter()
            .map(|r| ("cell", r))
            .chain(p.examples_only_in_control.iter().map(|r| ("control", r)))
            .collect();
        if !rows.is_empty() {
            writeln!(out, "<pre>")?;
            for (side, r) in rows {
                writeln!(out, "only in the {side}: {}", esc(r))?;
            }
            writeln!(out, "</pre>")?;
        }
    }
    for w in &c.warnings {
        writeln!(
            out,
            "<p>Warning <code>{}</code>: {}</p>",
            esc(&w.code),
            esc(&w.message)
        )?;
    }
    writeln!(out, "</section>")
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::report;
    use super::*;

    #[test]
    fn every_cell_links_to_its_evidence_and_text_is_escaped() {
        let r = report();
        let mut out = Vec::new();
        write_html(&r, &mut out).unwrap();
        let html = String::from_utf8(out).unwrap();
        for c in &r.cells {
            let a = anchor(c);
            assert!(html.contains(&format!("href=\"#{a}\"")), "{a}");
            assert!(html.contains(&format!("id=\"{a}\"")), "{a}");
        }
        assert!(html.contains("evidence &lt;4.0.1&gt; &amp;"));
        assert!(!html.contains('\x1b'));
        assert!(!html.contains("<script"));
        assert!(
            !html.contains("http"),
            "self-contained: no external resources"
        );
        assert!(html.contains("class=\"diff\""));
    }

    /// The planted-secret grep (issue 25 §3) over every matrix writer: evidence and notes that
    /// quote each kind of secret (tests/fixtures/secrets/planted.tsv) leave none of them.
    #[test]
    fn no_matrix_writer_shows_a_planted_secret() {
        let planted: Vec<(&str, &str)> =
            include_str!("../../../tests/fixtures/secrets/planted.tsv")
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .filter_map(|l| l.split_once('\t'))
                .collect();
        assert!(planted.len() >= 10);
        let mut r = report();
        for c in &mut r.cells {
            c.evidence = planted.iter().map(|(_, line)| (*line).to_owned()).collect();
            c.notes = planted
                .iter()
                .map(|(_, line)| format!("note: {line}"))
                .collect();
        }
        type Writer = fn(&super::MatrixReport, &mut Vec<u8>) -> io::Result<()>;
        let writers: [(&str, Writer); 5] = [
            ("html", |r, o| write_html(r, o)),
            ("json", |r, o| super::super::write_json(r, o)),
            ("junit", |r, o| super::super::write_junit(r, o)),
            ("markdown", |r, o| super::super::write_markdown(r, o)),
            ("grid", |r, o| super::super::write_grid(r, o)),
        ];
        for (name, write) in writers {
            let mut out = Vec::new();
            write(&r, &mut out).unwrap();
            let out = String::from_utf8(out).unwrap();
            for (secret, _) in &planted {
                assert!(!out.contains(secret), "{name}: {secret} in {out}");
            }
            if name != "grid" {
                assert!(out.contains("***"), "{name} quotes no evidence: {out}");
            }
        }
    }

    #[test]
    fn a_cells_output_counts_are_in_its_evidence() {
        let mut r = report();
        r.cells[0].output = vec![crate::report::OutputCount {
            topic: "orders<out>".into(),
            records_after_restart: 17,
            sample: vec![],
        }];
        let mut out = Vec::new();
        write_html(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "Output topic <code>orders&lt;out&gt;</code>: 17 records written after the restart"
            ),
            "{text}"
        );
    }

    #[test]
    fn html_page_of_a_two_by_two_grid() {
        let mut out = Vec::new();
        write_html(&report(), &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }
}
