//! The shared corpus of real restarts and public failure reports, each case against its
//! MANIFEST.tsv: whole logs, the driver log or the event log alone, the incremental watcher,
//! semantic warnings, logs of two runs.

use super::*;

#[test]
fn every_restart_case_gets_its_manifest_verdict() {
    let Some(corpus) = corpus() else { return };
    let cases = manifest(&corpus.join("restarts/MANIFEST.tsv"));
    assert!(cases.len() >= 40, "manifest has {} cases", cases.len());
    let mut outcomes = Vec::new();
    for (case, expected) in cases {
        let dir = corpus.join("restarts").join(&case);
        let driver = lines(&dir.join("driver.log"));
        let events = lines(&dir.join("eventlog-excerpt.jsonl"));
        let ctx = restart_context(&corpus, &case);
        let got = classify(refs(&driver), refs(&events), &ctx);
        if got.verdict == Verdict::Resumed {
            assert_eq!(
                got.start_offsets_match,
                Some(true),
                "{case}: resumed needs matching offsets"
            );
            assert!(got.first_batch_after_restart.is_some(), "{case}");
        }
        outcomes.push(Outcome {
            case,
            expected,
            got,
        });
    }
    assert_eq!(
        report("restarts", &outcomes),
        0,
        "restart cases misclassified (see stderr)"
    );
}

#[test]
fn every_public_case_gets_its_manifest_verdict() {
    let Some(corpus) = corpus() else { return };
    let cases = manifest(&corpus.join("public/MANIFEST.tsv"));
    assert!(cases.len() >= 20, "manifest has {} cases", cases.len());
    let mut outcomes = Vec::new();
    for (file, expected) in cases {
        let log = lines(&corpus.join("public").join(&file));
        let got = classify(refs(&log), std::iter::empty(), &TrialContext::default());
        assert_ne!(
            got.verdict,
            Verdict::Resumed,
            "{file}: a failure report is never resumed"
        );
        outcomes.push(Outcome {
            case: file,
            expected,
            got,
        });
    }
    assert_eq!(
        report("public", &outcomes),
        0,
        "public cases misclassified (see stderr)"
    );
}

/// The same verdicts from the driver log alone (no event log): failures by their text,
/// and — because these logs cut the progress JSON before the offsets — never `resumed`
/// while the checkpoint's committed offsets are known but not visible.
#[test]
fn driver_log_alone_never_claims_unproven_resume() {
    let Some(corpus) = corpus() else { return };
    let mut outcomes = Vec::new();
    for (case, expected) in manifest(&corpus.join("restarts/MANIFEST.tsv")) {
        let driver = lines(&corpus.join("restarts").join(&case).join("driver.log"));
        let ctx = restart_context(&corpus, &case);
        let got = classify(refs(&driver), std::iter::empty(), &ctx);
        if expected[0] == Verdict::Resumed {
            assert_ne!(
                got.verdict,
                Verdict::Resumed,
                "{case}: offsets are not visible in this log"
            );
            assert_eq!(got.rule, "no-resume-proof", "{case}");
        } else {
            outcomes.push(Outcome {
                case,
                expected,
                got,
            });
        }
    }
    assert_eq!(report("restarts (driver log only)", &outcomes), 0);
}

/// `rehearse classify LOG` with nothing else: failures as the manifest says; resumes only
/// from batch-id continuity with Spark's own "Resuming at batch N", offsets marked unchecked.
#[test]
fn driver_log_without_checkpoint_marks_offsets_unchecked() {
    let Some(corpus) = corpus() else { return };
    let mut outcomes = Vec::new();
    for (case, expected) in manifest(&corpus.join("restarts/MANIFEST.tsv")) {
        let driver = lines(&corpus.join("restarts").join(&case).join("driver.log"));
        let got = classify(refs(&driver), std::iter::empty(), &TrialContext::default());
        if got.verdict == Verdict::Resumed {
            assert_eq!(got.rule, "batch-ids-continue", "{case}");
            assert_eq!(got.start_offsets_match, None, "{case}");
            assert!(
                got.evidence.iter().any(|e| e.contains("NOT checked")),
                "{case}"
            );
        }
        if expected[0] != Verdict::Resumed {
            outcomes.push(Outcome {
                case,
                expected,
                got,
            });
        }
    }
    assert_eq!(report("restarts (no checkpoint)", &outcomes), 0);
}

/// The event log alone carries full progress and full exception text.
#[test]
fn event_log_alone_classifies_every_restart() {
    let Some(corpus) = corpus() else { return };
    let mut outcomes = Vec::new();
    for (case, expected) in manifest(&corpus.join("restarts/MANIFEST.tsv")) {
        let events = lines(
            &corpus
                .join("restarts")
                .join(&case)
                .join("eventlog-excerpt.jsonl"),
        );
        let ctx = restart_context(&corpus, &case);
        let got = classify(std::iter::empty(), refs(&events), &ctx);
        if case == "c-3.5.3-truncate-commit-partial" {
            // The excerpt cuts this exception after two Jackson frames: nothing in the event
            // names the commit log (the driver log's `CommitLog.deserialize` frame does).
            assert_eq!(got.verdict, Verdict::UnclassifiedFailure, "{case}");
            continue;
        }
        outcomes.push(Outcome {
            case,
            expected,
            got,
        });
    }
    assert_eq!(report("restarts (event log only)", &outcomes), 0);
}

/// A trial feeds lines as they come: the verdict returned by `push_line` is the one
/// `classify` gives, and failures are certain before the log ends.
#[test]
fn watcher_decides_as_soon_as_certain_and_agrees_with_classify() {
    let Some(corpus) = corpus() else { return };
    for (case, expected) in manifest(&corpus.join("restarts/MANIFEST.tsv")) {
        let dir = corpus.join("restarts").join(&case);
        let driver = lines(&dir.join("driver.log"));
        let events = lines(&dir.join("eventlog-excerpt.jsonl"));
        let ctx = restart_context(&corpus, &case);
        let whole = classify(refs(&driver), refs(&events), &ctx);
        let mut w = Watcher::new(ctx.clone());
        let mut early = None;
        for (i, l) in driver.iter().enumerate() {
            if let Some(c) = w.push_line(l) {
                early = Some((i, c));
                break;
            }
        }
        if early.is_none() {
            for e in &events {
                if let Some(c) = w.push_event(e) {
                    early = Some((driver.len(), c));
                    break;
                }
            }
        }
        let fin = w.finish(Ended::Exited(Some(if expected[0] == Verdict::Resumed {
            0
        } else {
            1
        })));
        assert_eq!(fin.verdict, whole.verdict, "{case}");
        assert_eq!(fin.rule, whole.rule, "{case}");
        if let Some((_, c)) = &early {
            assert_eq!(c.verdict, fin.verdict, "{case}");
        }
        if expected[0] != Verdict::Resumed
            && driver.iter().any(|l| l.contains("terminated with error"))
        {
            let (at, _) = early
                .unwrap_or_else(|| panic!("{case}: a terminated query is certain before the end"));
            assert!(at < driver.len(), "{case}");
        }
    }
}

/// Issue 13's silent change, from the real restart: the watermark removed from the query
/// (`q-3.5.3-no-watermark`) resumes — and is flagged `watermark-removed`; every other restart
/// of the corpus that resumed (the same query with its watermark, upgrades, providers) gets
/// no warning. The checkpoint's watermark comes from its offset and commit logs.
#[test]
fn a_removed_watermark_is_flagged_and_no_other_restart_is() {
    let Some(corpus) = corpus() else { return };
    let mut flagged = Vec::new();
    for (case, _) in manifest(&corpus.join("restarts/MANIFEST.tsv")) {
        let dir = corpus.join("restarts").join(&case);
        let events = lines(&dir.join("eventlog-excerpt.jsonl"));
        let driver = lines(&dir.join("driver.log"));
        let ctx = restart_context(&corpus, &case);
        let got = classify(refs(&driver), refs(&events), &ctx);
        let codes: Vec<&str> = got.warnings.iter().map(|w| w.code.as_str()).collect();
        if !codes.is_empty() {
            assert_eq!(
                got.verdict,
                Verdict::Resumed,
                "{case}: warnings only ride on resumed"
            );
            flagged.push((case, codes.join(",")));
        }
    }
    assert_eq!(
        flagged,
        vec![(
            "q-3.5.3-no-watermark".to_owned(),
            "watermark-removed".to_owned()
        )]
    );
}

/// Issue 15, unclear errors: "two interleaved runs or queries in one log (say so)". Real
/// driver logs of the fixtures (3.5.3 failing on a changed key, 4.0.1 and 3.5.3 resuming, each
/// one spark-submit) concatenated both ways and interleaved: the verdict judges one run and
/// says which, the text and the JSON say the log holds two runs, how (one after the other, or
/// written at once), and both runIds. A log of one run says nothing of the kind.
#[test]
fn a_log_of_two_runs_says_so_and_which_run_it_judged() {
    let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs");
    let read = |rel: &str| std::fs::read_to_string(logs.join(rel)).unwrap();
    let (failed, resumed_40, resumed_35) = (
        read("3.5.3/key-added.log"),
        read("4.0.1/resumed.log"),
        read("3.5.3/resumed.log"),
    );
    let (failed_run, run_40, run_35) = (
        "0c3b160e-162f-4072-8f1b-3dcdd21e6382",
        "308fb5de-6e28-469a-a224-49093a48e3bc",
        "fd0480a4-2b19-4bbd-b629-4fe9940d2715",
    );
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let runs = |doc: &serde_json::Value| -> Vec<String> {
        doc["several_runs"]["queries"][0]["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_owned())
            .collect()
    };

    // A failed run, then a retry that resumed: the failure is judged (an earlier failure is
    // never hidden by a later success), and the log says it holds the retry too.
    let (doc, text) = classify_cli(&write(
        "fail-then-resume.log",
        format!("{failed}{resumed_40}"),
    ));
    assert_eq!(doc["verdict"], "state-store-error", "{doc:#}");
    assert_eq!(doc["several_runs"]["spark_starts"], 2);
    assert_eq!(doc["several_runs"]["interleaved"], false);
    assert_eq!(doc["several_runs"]["judged_run"], failed_run);
    assert_eq!(runs(&doc), [failed_run, run_40]);
    assert!(
        text.contains("log:     this log holds 2 runs, one after the other")
            && text.contains(&format!("the verdict judges run {failed_run}")),
        "{text}"
    );

    // A run that resumed, then one that failed: the later failure is judged.
    let (doc, _) = classify_cli(&write(
        "resume-then-fail.log",
        format!("{resumed_40}{failed}"),
    ));
    assert_eq!(doc["verdict"], "state-store-error", "{doc:#}");
    assert_eq!(doc["several_runs"]["judged_run"], failed_run);

    // Two drivers writing one file at once (3.5.3's first 20 lines, 4.0.1's first 30 — its
    // start — then the rest of each): said as interleaved; the run started last is judged,
    // and its own start line is the evidence.
    let head_tail = |t: &str, n: usize| {
        let lines: Vec<&str> = t.lines().collect();
        (lines[..n].join("\n") + "\n", lines[n..].join("\n") + "\n")
    };
    let ((a1, a2), (b1, b2)) = (head_tail(&resumed_35, 20), head_tail(&resumed_40, 30));
    let (doc, text) = classify_cli(&write("interleaved.log", format!("{a1}{b1}{a2}{b2}")));
    assert_eq!(doc["several_runs"]["interleaved"], true, "{doc:#}");
    assert_eq!(doc["several_runs"]["judged_run"], run_40);
    assert_eq!(runs(&doc), [run_35, run_40]);
    assert!(
        doc["evidence"][0].as_str().unwrap().contains(run_40),
        "{doc:#}"
    );
    assert!(
        text.contains("interleaved: a line of an earlier run"),
        "{text}"
    );

    // One run: no such field, no such line.
    let (doc, text) = classify_cli(&logs.join("4.0.1/resumed.log"));
    assert_eq!(doc["verdict"], "resumed");
    assert!(doc.get("several_runs").is_none(), "{doc:#}");
    assert!(!text.contains("log:"), "{text}");
    // Its paths beyond the offsets did not run before it ended: the remedy says so first and
    // does not open with "Safe to restart" (breaker pass, session 6).
    let remedy = doc["remedy"].as_str().unwrap();
    assert!(
        remedy.starts_with("Not proven: ") && remedy.contains("state-evicted"),
        "{remedy}"
    );
}
