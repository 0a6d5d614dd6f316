//! Plain-text rendering of one [`Classification`] (what `rehearse classify` prints without
//! `--json`). Terminal text may change freely; the JSON form is the stable one.

use std::io::Write;

use super::Classification;

/// Writes the verdict, its rule, the batch facts, the evidence lines and the remedy.
pub fn write_text(c: &Classification, out: &mut impl Write) -> std::io::Result<()> {
    let opt = |b: Option<super::BatchId>| b.map_or_else(|| "-".to_owned(), |b| b.to_string());
    writeln!(out, "verdict: {}", c.verdict)?;
    writeln!(out, "rule:    {}", c.rule)?;
    if let Some(class) = &c.error_class {
        writeln!(out, "error class: {class}")?;
    }
    let offsets = match c.start_offsets_match {
        Some(true) => "equal to the committed offsets",
        Some(false) => "DIFFERENT from the committed offsets",
        None => "not compared",
    };
    writeln!(
        out,
        "batches: last committed {}, Spark resumed at {}, first batch after restart {}; start offsets {offsets}",
        opt(c.last_committed_batch),
        opt(c.resuming_at),
        opt(c.first_batch_after_restart),
    )?;
    writeln!(out, "evidence:")?;
    for e in &c.evidence {
        writeln!(out, "  {e}")?;
    }
    writeln!(out, "remedy:  {}", c.remedy)
}
