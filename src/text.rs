//! Text made safe to show: [`sanitize`] strips what a log line must not carry to a terminal or a
//! Markdown summary. A leaf module: every human-readable writer (the checkpoint report, the
//! classification text, the run and matrix reports) uses it, and it imports nothing of rehearse.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

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
