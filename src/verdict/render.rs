//! Plain-text rendering of one [`Classification`] (what `rehearse classify` prints without
//! `--json`), and [`sanitize`], which every human-readable writer uses on text taken from logs.
//! Terminal text may change freely; the JSON form is the stable one (it keeps log lines
//! verbatim: JSON escapes them).

use std::borrow::Cow;
use std::io::Write;
use std::sync::LazyLock;

use regex::Regex;

use super::Classification;

/// Removes ANSI escape sequences and control characters other than tab and newline (C0, DEL
/// and the 8-bit C1 controls, which some terminals obey too).
///
/// Evidence is copied verbatim from driver logs; a coloured log (or a stray `\r`) must not
/// repaint the user's terminal or leak escape codes into a Markdown job summary.
pub fn sanitize(line: &str) -> Cow<'_, str> {
    static ANSI: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f\u{80}-\u{9f}]")
            .expect("the pattern is a valid regex")
    });
    ANSI.replace_all(line, "")
}

/// Writes the verdict, its rule, the batch facts, the evidence lines and the remedy. Everything
/// is [`sanitize`]d: evidence lines, the error class and the remedy come from the log.
pub fn write_text(c: &Classification, out: &mut impl Write) -> std::io::Result<()> {
    let opt = |b: Option<super::BatchId>| b.map_or_else(|| "-".to_owned(), |b| b.to_string());
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
    line("evidence:".to_owned())?;
    for e in &c.evidence {
        // An entry with a newline in it stays indented, one line at a time.
        for l in e.lines() {
            line(format!("  {l}"))?;
        }
    }
    line(format!("remedy:  {}", c.remedy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_ansi_and_control_characters_but_keeps_tabs() {
        let line = "\x1b[31mERROR\x1b[0m\tat Foo.bar\r";
        assert_eq!(sanitize(line), "ERROR\tat Foo.bar");
        // OSC (window title), bell, backspace, an 8-bit CSI.
        assert_eq!(sanitize("\x1b]0;owned\x07a\x08b\u{9b}2Jc"), "0;ownedab2Jc");
        assert_eq!(sanitize("plain → text"), "plain → text");
    }
}
