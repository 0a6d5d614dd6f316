//! Whether long steps a user waits on (pyspark download, image build, generation batches, suite
//! cells) show as redrawn progress bars or as plain lines. A pure decision from facts the caller
//! looks up once, as nextest's `resolve(is_terminal, is_ci)` is; it draws nothing. The binary
//! decides once (in `main`) and renders with indicatif or plain lines (`src/progress_render.rs`).

/// How progress reaches stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Redrawn bars (indicatif): only where a person watches a terminal that may be redrawn.
    Bars,
    /// One plain line per step: logs, pipes, CI, and whoever asked for no colour.
    Lines,
}

/// Bars or lines, from the facts the caller looked up once.
///
/// `is_terminal` is whether the stream progress goes to (stderr) is a terminal; `no_color`
/// whether `NO_COLOR` is set (non-empty); `ci` whether `CI` is set (to anything but empty, `0`
/// or `false`); `verbose` whether a debug trace goes to stderr too (`--verbose` or `RUST_LOG`),
/// whose lines a redrawn bar would tear (uv hides its bars in verbose mode for the same reason).
///
/// | `is_terminal` | `no_color` | `ci`  | `verbose` | mode                    |
/// |---------------|------------|-------|-----------|-------------------------|
/// | true          | false      | false | false     | [`ProgressMode::Bars`]  |
/// | true          | true       | any   | any       | [`ProgressMode::Lines`] |
/// | true          | any        | true  | any       | [`ProgressMode::Lines`] |
/// | true          | any        | any   | true      | [`ProgressMode::Lines`] |
/// | false         | any        | any   | any       | [`ProgressMode::Lines`] |
///
/// ```
/// use rehearse::report::{progress_style, ProgressMode};
/// assert_eq!(progress_style(true, false, false, false), ProgressMode::Bars);
/// assert_eq!(progress_style(true, false, false, true), ProgressMode::Lines);
/// assert_eq!(progress_style(false, false, false, false), ProgressMode::Lines);
/// ```
pub fn progress_style(is_terminal: bool, no_color: bool, ci: bool, verbose: bool) -> ProgressMode {
    if is_terminal && !no_color && !ci && !verbose {
        ProgressMode::Bars
    } else {
        ProgressMode::Lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the decision table.
    #[test]
    fn bars_only_on_a_plain_terminal() {
        for is_terminal in [false, true] {
            for no_color in [false, true] {
                for ci in [false, true] {
                    for verbose in [false, true] {
                        let expected = if is_terminal && !no_color && !ci && !verbose {
                            ProgressMode::Bars
                        } else {
                            ProgressMode::Lines
                        };
                        assert_eq!(
                            progress_style(is_terminal, no_color, ci, verbose),
                            expected,
                            "is_terminal={is_terminal} no_color={no_color} ci={ci} verbose={verbose}"
                        );
                    }
                }
            }
        }
        assert_eq!(
            progress_style(true, false, false, false),
            ProgressMode::Bars
        );
        assert_eq!(
            progress_style(true, true, false, false),
            ProgressMode::Lines
        );
        assert_eq!(
            progress_style(true, false, true, false),
            ProgressMode::Lines
        );
        assert_eq!(
            progress_style(true, false, false, true),
            ProgressMode::Lines
        );
        assert_eq!(
            progress_style(false, false, false, false),
            ProgressMode::Lines
        );
    }
}
