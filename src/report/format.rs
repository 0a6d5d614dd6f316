//! Choosing a writer: the one [`Format`] enum of every report (`rehearse run`, `matrix`,
//! `inspect`, `classify`), in the manner of ripgrep's `Printer`, and the dispatch of a run
//! report ([`write`]). Each report kind has its own `write(format, report, out)` beside its
//! writers: [`write`] here for a [`RunReport`], `report::matrix::write`, `report::inspect::write`
//! and `report::classify::write`. The binary maps its flags (`--json`, `--junit FILE`,
//! `--markdown FILE`, `--html FILE`) onto a format.
//!
//! Not every kind has a writer for every format; a `write` asked for one it lacks returns an
//! [`io::ErrorKind::Unsupported`] error ([`Format::unsupported`]) rather than panicking, and the
//! commands only ask for the formats their flags offer, so that error is never seen by a user.
//! Adding a format is one enum arm here and, per report kind that supports it, one writer file
//! and one arm of its `write`.
//!
//! | format       | run | matrix | inspect | classify |
//! |--------------|-----|--------|---------|----------|
//! | `Terminal`   | ✓   | ✓ (grid, no colour) | ✓ (text, no colour) | ✓ (text, no colour) |
//! | `Json`       | ✓   | ✓      | ✓       | ✓        |
//! | `Junit`      | ✓   | ✓      | –       | –        |
//! | `Markdown`   | ✓   | ✓      | –       | –        |
//! | `Html`       | –   | ✓      | –       | –        |

use std::io::{self, Write};

use super::json::write_json;
use super::junit::write_junit;
use super::markdown::write_markdown;
use super::model::RunReport;
use super::terminal::{write_summary, TerminalStyle};

/// One rendering of a report: what the user asked for, whatever the report's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The human text on a terminal, coloured or not as the caller decided (only the run
    /// summary has colour).
    Terminal(TerminalStyle),
    /// The kind's versioned JSON document (`rehearse.run/v1`, `rehearse.matrix/v1`,
    /// `rehearse.inspect/v1`) or, for a classification, its JSON form.
    Json,
    /// JUnit XML, Jenkins dialect.
    Junit,
    /// GitHub-flavoured Markdown for a CI job summary.
    Markdown,
    /// One self-contained HTML page (a matrix only).
    Html,
}

impl Format {
    /// The format's name in messages: `terminal`, `JSON`, `JUnit`, `Markdown`, `HTML`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Terminal(_) => "terminal",
            Format::Json => "JSON",
            Format::Junit => "JUnit",
            Format::Markdown => "Markdown",
            Format::Html => "HTML",
        }
    }

    /// The error of a `write` asked for a format its report kind (`run`, `inspect`, …) has no
    /// writer for.
    pub fn unsupported(self, kind: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::Unsupported,
            format!("a {kind} report has no {} writer", self.name()),
        )
    }
}

/// Writes a run report to `out` in `format`: the terminal summary ([`write_summary`]), the
/// `rehearse.run/v1` JSON document ([`write_json`]), JUnit XML ([`write_junit`]) or Markdown
/// ([`write_markdown`]). A run report has no HTML writer ([`Format::unsupported`]).
pub fn write(format: Format, report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    match format {
        Format::Terminal(style) => write_summary(report, out, style),
        Format::Json => write_json(report, out),
        Format::Junit => write_junit(report, out),
        Format::Markdown => write_markdown(report, out),
        Format::Html => Err(format.unsupported("run")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_helpers;

    #[test]
    fn dispatch_matches_each_writer() {
        let report = test_helpers::mixed_with_expected();
        let style = TerminalStyle { color: true };
        let render = |format| {
            let mut out = Vec::new();
            write(format, &report, &mut out).expect("writing to a Vec cannot fail");
            out
        };
        let (mut json, mut junit, mut markdown, mut terminal) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        write_json(&report, &mut json).expect("writing to a Vec cannot fail");
        write_junit(&report, &mut junit).expect("writing to a Vec cannot fail");
        write_markdown(&report, &mut markdown).expect("writing to a Vec cannot fail");
        write_summary(&report, &mut terminal, style).expect("writing to a Vec cannot fail");
        assert_eq!(render(Format::Json), json);
        assert_eq!(render(Format::Junit), junit);
        assert_eq!(render(Format::Markdown), markdown);
        assert_eq!(render(Format::Terminal(style)), terminal);
    }

    #[test]
    fn a_format_a_kind_has_no_writer_for_is_an_unsupported_error() {
        let report = test_helpers::resumed();
        let mut out = Vec::new();
        let err = write(Format::Html, &report, &mut out).expect_err("a run has no HTML writer");
        assert_eq!(err.kind(), io::ErrorKind::Unsupported);
        assert_eq!(err.to_string(), "a run report has no HTML writer");
        assert!(out.is_empty(), "nothing written");
    }
}
