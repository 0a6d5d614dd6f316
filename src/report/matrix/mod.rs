//! Reports of `rehearse matrix`: the [`MatrixReport`] model (which is the `rehearse.matrix/v1`
//! JSON document) and its writers — terminal grid, Markdown, JUnit, self-contained HTML — plus
//! shard merging and the outcome (exit code). Writers take `impl Write` and never print by themselves.

mod control;
mod grid;
mod html;
mod junit;
mod markdown;
mod model;

use crate::exit::Outcome;

pub use control::ControlRun;
pub use grid::{write_grid, write_grid_only, write_progress_line};
pub use html::write_html;
pub use junit::write_junit;
pub use markdown::write_markdown;
pub use model::{merge, Cell, CellStatus, MatrixReport, MergeError, MATRIX_SCHEMA};

/// Outcome of `rehearse matrix` and `rehearse matrix merge`: success when every cell agrees
/// with the suite's expectation (not-applicable cells agree) and the report is complete, else
/// [`Outcome::MatrixDiffers`]: a merge missing shards of its split must not pass CI.
/// The differences themselves are listed first in every report.
/// A report that would succeed but has a cell whose output differs from its control's (the
/// suite's `control = true`, `parity = "must-match"`) is [`Outcome::ParityDiffers`] (21), as
/// `rehearse run --control` is: a failing verdict is the news first, parity after.
/// With `deny_warnings`, a report that would succeed but has a cell carrying a semantic warning
/// is [`Outcome::WarningsDenied`] (19), as `rehearse run --deny-warnings` is.
///
/// The order is [`super::decide`]'s, shared with `rehearse run` (a matrix has no fresh run).
pub fn outcome(report: &MatrixReport) -> Outcome {
    super::decide(&super::Judgement {
        verdicts: (!report.differences().is_empty() || report.incomplete)
            .then_some(Outcome::MatrixDiffers),
        parity_failed: !report.parity_failures().is_empty(),
        fresh_failed: false,
        warned: !report.warned().is_empty(),
        deny_warnings: report.deny_warnings,
    })
}

/// Writes the JSON document (pretty, newline-terminated, secrets masked:
/// [`crate::text::write_json`]).
pub fn write_json(report: &MatrixReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    crate::text::write_json(out, report)
}

/// Writes a matrix report to `out` in `format`: the terminal grid ([`write_grid`]; it has no
/// colour, the style is not read), the `rehearse.matrix/v1` document ([`write_json`]), JUnit
/// ([`write_junit`]), Markdown ([`write_markdown`]) or HTML ([`write_html`]); every
/// [`Format`](super::Format) has a matrix writer.
pub fn write(
    format: super::Format,
    report: &MatrixReport,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    match format {
        super::Format::Terminal(_) => write_grid(report, out),
        super::Format::Json => write_json(report, out),
        super::Format::Junit => write_junit(report, out),
        super::Format::Markdown => write_markdown(report, out),
        super::Format::Html => write_html(report, out),
    }
}

#[cfg(test)]
pub(crate) mod test_helpers {
    use super::*;
    use crate::verdict::{BatchId, Verdict};

    /// A 2×2 grid of one shape and provider: one resumed upgrade, one downgrade that failed
    /// against its expectation, one not applicable, one that agreed with an expected failure.
    pub fn report() -> MatrixReport {
        let v = |s: &str, t: &str, verdict: Option<Verdict>, expected: Verdict, status| Cell {
            shape: "dedup".into(),
            provider: "rocksdb".into(),
            source: s.into(),
            target: t.into(),
            status,
            verdict,
            expected,
            expected_reason: None,
            rule: verdict.map(|v| format!("rule-{v}")),
            evidence: vec![format!("evidence <{s}> & \x1b[31m{t}\x1b[0m")],
            remedy: Some("do the thing".into()),
            last_committed_batch: Some(BatchId(3)),
            first_batch_after_restart: Some(BatchId(4)),
            start_offsets_match: Some(true),
            seconds: Some(12.5),
            notes: vec![],
            output: vec![],
            sandbox: None,
            source_checkpoint: None,
            warnings: vec![],
            job: None,
            exercised: None,
            executors: None,
            parity: None,
        };
        MatrixReport {
            schema: MATRIX_SCHEMA.into(),
            suite: "nightly".into(),
            suite_file: Some("scenarios/suites/nightly.toml".into()),
            shapes: vec!["dedup".into()],
            providers: vec!["rocksdb".into()],
            sources: vec!["3.5.3".into(), "4.0.1".into()],
            targets: vec!["3.5.3".into(), "4.0.1".into()],
            shards: vec![],
            cells: vec![
                v(
                    "3.5.3",
                    "3.5.3",
                    None,
                    Verdict::Resumed,
                    CellStatus::NotApplicable,
                ),
                v(
                    "3.5.3",
                    "4.0.1",
                    Some(Verdict::Resumed),
                    Verdict::Resumed,
                    CellStatus::Ran,
                ),
                v(
                    "4.0.1",
                    "3.5.3",
                    Some(Verdict::StateStoreError),
                    Verdict::Resumed,
                    CellStatus::Ran,
                ),
                v(
                    "4.0.1",
                    "4.0.1",
                    Some(Verdict::OffsetLogError),
                    Verdict::OffsetLogError,
                    CellStatus::Ran,
                ),
            ],
            seconds: 100.0,
            jobs: 2,
            incomplete: false,
            deny_warnings: false,
            controls: vec![],
            merged: false,
        }
    }

    #[test]
    fn dispatch_matches_each_writer() {
        use crate::report::{Format, TerminalStyle};
        let r = report();
        let render = |w: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
            let mut out = Vec::new();
            w(&mut out).expect("writing to a Vec cannot fail");
            out
        };
        let styles = [
            TerminalStyle { color: false },
            TerminalStyle { color: true },
        ];
        for style in styles {
            assert_eq!(
                render(&|o| write(Format::Terminal(style), &r, o)),
                render(&|o| write_grid(&r, o)),
                "the grid has no colour"
            );
        }
        let via = |format| render(&|o| write(format, &r, o));
        assert_eq!(via(Format::Json), render(&|o| write_json(&r, o)));
        assert_eq!(via(Format::Junit), render(&|o| write_junit(&r, o)));
        assert_eq!(via(Format::Markdown), render(&|o| write_markdown(&r, o)));
        assert_eq!(via(Format::Html), render(&|o| write_html(&r, o)));
    }

    #[test]
    fn a_cell_with_a_warning_is_marked_in_the_grid_and_keeps_it_through_json() {
        let mut r = report();
        r.cells[0].warnings = vec![crate::verdict::Warning {
            code: "watermark-removed".into(),
            message: "no watermark after the restart".into(),
            evidence: vec!["batch 4 reports no eventTime.watermark".into()],
        }];
        assert!(r.cells[0].passed(), "a warning does not change agreement");
        assert_eq!(
            r.cells[0].label_marked(),
            format!("{} ⚠", r.cells[0].label())
        );
        let mut out = Vec::new();
        write_json(&r, &mut out).unwrap();
        let back: MatrixReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, r);
        let mut html = Vec::new();
        html::write_html(&r, &mut html).unwrap();
        let html = String::from_utf8(html).unwrap();
        assert!(html.contains("watermark-removed"), "{html}");
    }

    #[test]
    fn json_round_trips_and_the_exit_code_follows_differences() {
        let r = report();
        let mut out = Vec::new();
        write_json(&r, &mut out).unwrap();
        let back: MatrixReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, r);
        assert_eq!(outcome(&r).code(), 1);
        assert_eq!(r.differences().len(), 1);
        let mut ok = r.clone();
        ok.cells.remove(2);
        assert_eq!(outcome(&ok).code(), 0);
    }

    #[test]
    fn a_warned_cell_fails_the_suite_only_when_warnings_are_denied() {
        let mut ok = report();
        ok.cells.remove(2);
        ok.cells[0].warnings.push(crate::verdict::Warning {
            code: "watermark-removed".into(),
            message: "m".into(),
            evidence: vec![],
        });
        assert_eq!(outcome(&ok).code(), 0);
        ok.deny_warnings = true;
        assert_eq!(outcome(&ok).code(), 19);
        // A merge denies them when a shard did; differences still come first.
        let merged = merge(vec![("a.json".into(), ok.clone())]).unwrap();
        assert!(merged.deny_warnings);
        assert_eq!(outcome(&merged).code(), 19);
        let mut differs = report();
        differs.deny_warnings = true;
        differs.cells[0].warnings = ok.cells[0].warnings.clone();
        assert_eq!(outcome(&differs).code(), 1);
    }

    /// A parity of `status` against a control on 3.5.3, one row only on each side when it
    /// differs.
    fn parity(status: crate::report::ParityStatus) -> crate::report::Parity {
        let differs = status == crate::report::ParityStatus::Differs;
        crate::report::Parity {
            status,
            control_version: "3.5.3".into(),
            rows_only_in_target: u64::from(differs),
            rows_only_in_control: u64::from(differs),
            examples_only_in_target: if differs {
                vec![r#"file sink output/data: {"n":1}"#.into()]
            } else {
                vec![]
            },
            examples_only_in_control: if differs {
                vec![r#"file sink output/data: {"n":<2>}"#.into()]
            } else {
                vec![]
            },
            compared: vec!["file sink output/data: 12 rows (target), 12 (control)".into()],
            volatile_columns: vec![],
            reason: None,
            may_differ: false,
        }
    }

    #[test]
    fn a_cell_whose_output_differs_from_its_control_fails_the_suite_with_21_unless_allowed() {
        use crate::report::ParityStatus;
        let mut ok = report();
        ok.cells.remove(2);
        ok.cells[1].parity = Some(parity(ParityStatus::Same));
        assert_eq!(outcome(&ok).code(), 0);
        let mut differs = ok.clone();
        differs.cells[1].parity = Some(parity(ParityStatus::Differs));
        assert!(differs.cells[1].passed(), "parity never changes a verdict");
        assert_eq!(differs.parity_failures().len(), 1);
        assert_eq!(outcome(&differs).code(), 21);
        assert_eq!(differs.cells[1].label_marked(), "resumed, parity differs");
        // A warning denied does not hide it; a verdict difference comes first.
        differs.deny_warnings = true;
        assert_eq!(outcome(&differs).code(), 21);
        let mut verdict_too = report();
        verdict_too.cells[1].parity = Some(parity(ParityStatus::Differs));
        assert_eq!(outcome(&verdict_too).code(), 1);
        // parity = "may-differ": reported, not failing.
        let mut allowed = ok.clone();
        allowed.cells[1].parity = Some(crate::report::Parity {
            may_differ: true,
            ..parity(ParityStatus::Differs)
        });
        assert_eq!(outcome(&allowed).code(), 0);
        assert_eq!(
            allowed.cells[1].label_marked(),
            "resumed, parity differs (allowed)"
        );
        // Not checked is no failure either.
        let mut unchecked = ok.clone();
        unchecked.cells[1].parity = Some(crate::report::Parity::not_checked("3.5.3", "why"));
        assert_eq!(outcome(&unchecked).code(), 0);
    }

    #[test]
    fn a_cells_parity_survives_json_and_merge_and_is_left_out_when_none() {
        use crate::report::ParityStatus;
        let mut out = Vec::new();
        write_json(&report(), &mut out).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("\"parity\""));
        let mut r = report();
        r.cells[1].parity = Some(parity(ParityStatus::Differs));
        let mut out = Vec::new();
        write_json(&r, &mut out).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let p = &json["cells"][1]["parity"];
        assert_eq!(p["status"], "differs", "{p:#}");
        assert_eq!(p["rows_only_in_target"], 1);
        let back: MatrixReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, r);
        let mut a = r.clone();
        a.cells = vec![r.cells[1].clone()];
        a.shards = vec!["1/2".into()];
        let mut b = r.clone();
        b.cells = vec![r.cells[0].clone(), r.cells[2].clone(), r.cells[3].clone()];
        b.shards = vec!["2/2".into()];
        let merged = merge(vec![("a".into(), a), ("b".into(), b)]).unwrap();
        assert_eq!(merged.cells[1].parity, r.cells[1].parity);
    }

    #[test]
    fn parity_is_shown_in_the_grid_markdown_html_and_junit() {
        use crate::report::ParityStatus;
        let mut r = report();
        r.cells.remove(2);
        r.cells[1].parity = Some(parity(ParityStatus::Differs));
        r.cells[2].parity = Some(crate::report::Parity::not_checked(
            "3.5.3",
            "the control on 3.5.3 did not resume",
        ));
        let render = |f: &dyn Fn(&MatrixReport, &mut Vec<u8>) -> std::io::Result<()>| {
            let mut out = Vec::new();
            f(&r, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let grid = render(&|r, o| write_grid(r, o));
        assert!(grid.contains("PARITY DIFFERS"), "{grid}");
        assert!(grid.contains("resumed, parity differs"), "{grid}");
        assert!(
            grid.contains(r#"only in the control: file sink output/data: {"n":<2>}"#),
            "{grid}"
        );
        let md = render(&|r, o| write_markdown(r, o));
        assert!(
            md.contains("**1 cell whose output differs from the control's**"),
            "{md}"
        );
        assert!(md.contains("**resumed, parity differs**"), "{md}");
        assert!(md.contains("### Output parity against the control"), "{md}");
        assert!(
            md.contains(
                "| `dedup/rocksdb/3.5.3->4.0.1` | **differs** (control on 3.5.3) | 1 | 1 |"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "not-checked (control on 3.5.3) | 0 | 0 | the control on 3.5.3 did not resume |"
            ),
            "{md}"
        );
        assert!(
            md.contains(r#"only in the cell: file sink output/data: {"n":1}"#),
            "{md}"
        );
        let html = render(&|r, o| write_html(r, o));
        assert!(html.contains("resumed, parity differs</a>"), "{html}");
        assert!(
            html.contains("<p>Parity: differs from the control on 3.5.3"),
            "{html}"
        );
        assert!(
            html.contains("{&quot;n&quot;:&lt;2&gt;}") || html.contains("{\"n\":&lt;2&gt;}"),
            "{html}"
        );
        let xml = render(&|r, o| write_junit(r, o));
        assert!(xml.contains("type=\"parity-differs\""), "{xml}");
        assert!(
            xml.contains("parity: differs from the control on 3.5.3"),
            "{xml}"
        );
    }

    fn control(source: &str, verdict: Option<crate::verdict::Verdict>) -> ControlRun {
        ControlRun {
            shape: "dedup".into(),
            provider: "rocksdb".into(),
            source: source.into(),
            version: source.into(),
            verdict,
            rule: verdict.map(|v| format!("rule-{v}")),
            evidence: vec![format!("control evidence <{source}>")],
            seconds: Some(58.0),
        }
    }

    #[test]
    fn control_runs_are_kept_through_json_and_merge_and_shown_with_their_evidence() {
        use crate::verdict::Verdict;
        let mut out = Vec::new();
        write_json(&report(), &mut out).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("\"controls\""));
        let mut r = report();
        r.controls = vec![
            control("3.5.3", Some(Verdict::Resumed)),
            control("4.0.1", None),
        ];
        let mut out = Vec::new();
        write_json(&r, &mut out).unwrap();
        let back: MatrixReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, r);
        // Shards split by source checkpoint: each control comes with its cells.
        let mut a = r.clone();
        a.cells.retain(|c| c.source == "3.5.3");
        a.controls.truncate(1);
        a.shards = vec!["1/2".into()];
        let mut b = r.clone();
        b.cells.retain(|c| c.source == "4.0.1");
        b.controls.remove(0);
        b.shards = vec!["2/2".into()];
        let merged = merge(vec![("b".into(), b.clone()), ("a".into(), a.clone())]).unwrap();
        assert_eq!(merged.controls, r.controls, "in grid order");
        let e = merge(vec![("a".into(), a.clone()), ("b".into(), a.clone())]).unwrap_err();
        assert!(e.to_string().contains("more than one report"), "{e}");
        let mut twice = a.clone();
        twice.controls.push(twice.controls[0].clone());
        assert!(merge(vec![("t".into(), twice)])
            .unwrap_err()
            .to_string()
            .contains("twice"));
        let mut outside = a;
        outside.controls[0].source = "9.9.9".into();
        assert!(merge(vec![("o".into(), outside)])
            .unwrap_err()
            .to_string()
            .contains("outside"));
        let mut md = Vec::new();
        write_markdown(&r, &mut md).unwrap();
        let md = String::from_utf8(md).unwrap();
        assert!(
            md.contains(
                "- control of `dedup/rocksdb/3.5.3` on 3.5.3: resumed (rule rule-resumed, 58.0s)"
            ),
            "{md}"
        );
        assert!(
            md.contains("- control of `dedup/rocksdb/4.0.1` on 4.0.1: could not run"),
            "{md}"
        );
        assert!(
            md.contains("Evidence of the control of `dedup/rocksdb/4.0.1`"),
            "{md}"
        );
        assert!(
            !md.contains("Evidence of the control of `dedup/rocksdb/3.5.3`"),
            "{md}"
        );
        let mut html = Vec::new();
        write_html(&r, &mut html).unwrap();
        let html = String::from_utf8(html).unwrap();
        assert!(html.contains("<h2>Control runs</h2>"), "{html}");
        assert!(html.contains("control evidence &lt;4.0.1&gt;"), "{html}");
    }

    #[test]
    fn merge_joins_shards_in_grid_order_and_refuses_overlap() {
        let whole = report();
        let mut a = whole.clone();
        let mut b = whole.clone();
        a.cells = vec![whole.cells[3].clone(), whole.cells[1].clone()];
        a.shards = vec!["1/2".into()];
        b.cells = vec![whole.cells[0].clone(), whole.cells[2].clone()];
        b.shards = vec!["2/2".into()];
        let merged = merge(vec![("a".into(), a.clone()), ("b".into(), b)]).unwrap();
        assert_eq!(merged.cells, whole.cells);
        assert_eq!(merged.shards, ["1/2", "2/2"]);
        assert_eq!(merged.seconds, 200.0);
        let dup = merge(vec![("a".into(), a.clone()), ("a2".into(), a.clone())]).unwrap_err();
        assert!(dup.to_string().contains("more than one report"), "{dup}");
        let mut other = a.clone();
        other.suite = "weekly".into();
        let e = merge(vec![("a".into(), a), ("o.json".into(), other)]).unwrap_err();
        assert!(e.to_string().contains("o.json"), "{e}");
        assert!(matches!(merge(vec![]), Err(MergeError::Empty)));
    }

    #[test]
    fn a_merge_of_mixed_or_repeated_splits_is_refused() {
        let whole = report();
        let shard = |cells: &[usize], label: &str| {
            let mut r = whole.clone();
            r.cells = cells.iter().map(|&i| whole.cells[i].clone()).collect();
            r.shards = vec![label.into()];
            r
        };
        // 1/2 + 1/3 with disjoint cells merged green before (issue 15).
        let e = merge(vec![
            ("a.json".into(), shard(&[0, 1], "1/2")),
            ("b.json".into(), shard(&[2, 3], "1/3")),
        ])
        .unwrap_err();
        assert!(matches!(e, MergeError::MixedSplits { .. }), "{e}");
        assert!(
            e.to_string().contains("split into 3") && e.to_string().contains("b.json"),
            "{e}"
        );
        // Two files both labelled 1/2.
        let e = merge(vec![
            ("a.json".into(), shard(&[0, 1], "1/2")),
            ("b.json".into(), shard(&[2, 3], "1/2")),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("also in a.json"), "{e}");
        // A whole-suite report beside a shard.
        let e = merge(vec![
            ("all.json".into(), shard(&[], "1/2")).clone(),
            ("whole.json".into(), {
                let mut w = whole.clone();
                w.cells.clear();
                w
            }),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("whole suite"), "{e}");
    }

    #[test]
    fn one_shard_merged_alone_is_incomplete_as_the_readme_says() {
        let whole = report();
        let mut a = whole.clone();
        a.cells = vec![whole.cells[1].clone()];
        a.shards = vec!["1/2".into()];
        assert_eq!(outcome(&a).code(), 0, "the shard's own report");
        let merged = merge(vec![("a.json".into(), a)]).unwrap();
        assert!(merged.incomplete);
        assert!(
            merged.incompleteness().unwrap().contains("2/2"),
            "{:?}",
            merged.incompleteness()
        );
        assert_eq!(outcome(&merged).code(), 1);
        // A whole-suite report merged alone is complete.
        let mut ok = whole.clone();
        ok.cells.remove(2);
        assert_eq!(
            outcome(&merge(vec![("w.json".into(), ok)]).unwrap()).code(),
            0
        );
    }

    #[test]
    fn merging_50_000_cells_is_linear() {
        // 50 shapes × 1 provider × 20 sources × 50 targets, in 4 shards.
        let mut base = report();
        base.shapes = (0..50).map(|i| format!("s{i}")).collect();
        base.sources = (0..20).map(|i| format!("3.{i}.0")).collect();
        base.targets = (0..50).map(|i| format!("4.{i}.0")).collect();
        let template = base.cells[1].clone();
        let mut shards: Vec<MatrixReport> = (1..=4)
            .map(|i| {
                let mut r = base.clone();
                r.cells.clear();
                r.shards = vec![format!("{i}/4")];
                r
            })
            .collect();
        let mut n = 0;
        for shape in &base.shapes {
            for source in &base.sources {
                for target in &base.targets {
                    let mut c = template.clone();
                    c.shape = shape.clone();
                    c.source = source.clone();
                    c.target = target.clone();
                    shards[n % 4].cells.push(c);
                    n += 1;
                }
            }
        }
        assert_eq!(n, 50_000);
        let started = std::time::Instant::now();
        let inputs = shards
            .into_iter()
            .enumerate()
            .map(|(i, r)| (format!("{i}.json"), r))
            .collect();
        let merged = merge(inputs).unwrap();
        let took = started.elapsed();
        assert_eq!(merged.cells.len(), 50_000);
        // Quadratic, this took minutes in a debug build; linear, well under a second in release
        // and a few seconds in debug.
        assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    }

    #[test]
    fn a_merge_missing_shards_of_its_split_is_incomplete_and_fails() {
        let whole = report();
        let mut a = whole.clone();
        a.cells = vec![whole.cells[1].clone()];
        a.shards = vec!["1/3".into()];
        let mut b = a.clone();
        b.cells = vec![whole.cells[3].clone()];
        b.shards = vec!["2/3".into()];
        assert!(
            a.incompleteness().is_none(),
            "a shard alone is not incomplete"
        );
        assert_eq!(outcome(&a).code(), 0);
        let merged = merge(vec![("a".into(), a), ("b".into(), b)]).unwrap();
        assert!(merged.incomplete);
        assert_eq!(merged.missing_shards(), ["3/3"]);
        assert!(merged.incompleteness().unwrap().contains("3/3"));
        assert_eq!(
            outcome(&merged).code(),
            1,
            "all cells agree, but a third is missing"
        );
    }
}
