//! Choosing a writer: the [`ReportFormat`] enum and its dispatch, in the manner of ripgrep's
//! `Printer`. The binary maps its flags (`--json`, `--junit FILE`, `--markdown FILE`) onto it.

use std::io::{self, Write};

use super::json::write_json;
use super::junit::write_junit;
use super::markdown::write_markdown;
use super::model::RunReport;
use super::terminal::{write_summary, TerminalStyle};

/// One of the four renderings of a [`RunReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The human summary ([`write_summary`]), coloured or not as the caller decided.
    Terminal(TerminalStyle),
    /// The `rehearse.run/v1` JSON document ([`write_json`]).
    Json,
    /// JUnit XML, Jenkins dialect ([`write_junit`]).
    Junit,
    /// GitHub-flavoured Markdown for a CI job summary ([`write_markdown`]).
    Markdown,
}

/// Writes `report` to `out` in `format`.
pub fn write(format: ReportFormat, report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    match format {
        ReportFormat::Terminal(style) => write_summary(report, out, style),
        ReportFormat::Json => write_json(report, out),
        ReportFormat::Junit => write_junit(report, out),
        ReportFormat::Markdown => write_markdown(report, out),
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
        assert_eq!(render(ReportFormat::Json), json);
        assert_eq!(render(ReportFormat::Junit), junit);
        assert_eq!(render(ReportFormat::Markdown), markdown);
        assert_eq!(render(ReportFormat::Terminal(style)), terminal);
    }
}
