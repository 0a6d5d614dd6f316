//! The report of `rehearse classify`: one [`Classification`] as plain text ([`write_text`]) or
//! as JSON, through [`write`]. Text taken from logs goes through [`sanitize`]
//! (`crates/rehearse-base/src/text.rs`). Terminal text may change freely; the JSON form is the
//! stable one (the serde form of [`Classification`], written by [`crate::text::write_json`]: it
//! keeps log lines verbatim, JSON escapes them, secrets masked).

use std::io::{self, Write};

use super::format::Format;
use crate::text::sanitize;
use crate::verdict::{BatchId, Classification};

/// Writes `c` to `out` in `format`: [`Format::Terminal`] is [`write_text`] (no colour: the
/// style is not read), [`Format::Json`] the classification's JSON. A classification has no
/// JUnit, Markdown or HTML writer: those formats are an [`io::ErrorKind::Unsupported`] error
/// ([`Format::unsupported`]), which `rehearse classify` never asks for.
pub fn write(format: Format, c: &Classification, out: &mut impl Write) -> io::Result<()> {
    match format {
        Format::Terminal(_) => write_text(c, out),
        Format::Json => crate::text::write_json(out, c),
        Format::Junit | Format::Markdown | Format::Html => Err(format.unsupported("classify")),
    }
}

/// Writes the verdict, its rule, the batch facts, the evidence lines and the remedy. Everything
/// is [`sanitize`]d: evidence lines, the error class and the remedy come from the log.
pub fn write_text(c: &Classification, out: &mut impl Write) -> io::Result<()> {
    let opt = |b: Option<BatchId>| b.map_or_else(|| "-".to_owned(), |b| b.to_string());
    let mut line = |text: String| writeln!(out, "{}", sanitize(&text));
    line(format!("verdict: {}", c.verdict))?;
    line(format!("rule:    {}", c.rule))?;
    if let Some(class) = &c.error_class {
        line(format!("error class: {class}"))?;
    }
    let offsets = match c.start_offsets_match {
        Some(true) => "equal to the committed offsets",
        Some(false) => "DIFFERENT from the committed offsets",
        None => "not compared",
    };
    line(format!(
        "batches: last committed {}, Spark resumed at {}, first batch after restart {}; start offsets {offsets}",
        opt(c.last_committed_batch),
        opt(c.resuming_at),
        opt(c.first_batch_after_restart),
    ))?;
    if c.excerpt {
        line(
            "input:   an excerpt, not a whole driver log: its batch facts are unknown".to_owned(),
        )?;
    }
    if let Some(several) = &c.several_runs {
        line(format!("log:     {}", several.note))?;
    }
    line("evidence:".to_owned())?;
    for e in &c.evidence {
        // An entry with a newline in it stays indented, one line at a time.
        for l in e.lines() {
            line(format!("  {l}"))?;
        }
    }
    line(format!("remedy:  {}", c.remedy))
}
