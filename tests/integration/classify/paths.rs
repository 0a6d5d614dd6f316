//! The exercised paths as a verdict says them: its evidence lines, its `exercised` and its
//! remedy must agree. Input: the driver log of a real 4.0.1 trial of the demo's windowed count
//! (tests/fixtures/logs/windowed/README.md), whose batch 4 loads and evicts state, batch 5
//! updates it and batch 6 moves the watermark.

use super::*;

fn windowed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs/windowed")
}

fn log() -> String {
    std::fs::read_to_string(windowed().join("windowed-count-3.5.3-on-4.0.1.log")).unwrap()
}

/// The log cut before its `n`th progress report (1-based), so it holds `n - 1` batches.
fn before_report(log: &str, n: usize) -> String {
    let at = log
        .match_indices("Streaming query made progress")
        .nth(n - 1)
        .map(|(at, _)| log[..at].rfind('\n').map_or(0, |nl| nl + 1))
        .expect("the fixture has three progress reports");
    log[..at].to_owned()
}

/// `rehearse classify LOG --checkpoint <the demo's checkpoint>` as JSON and as text.
fn classify_windowed(log: &str) -> (serde_json::Value, String) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("driver.log");
    std::fs::write(&file, log).unwrap();
    let run = |json: bool| {
        let mut cmd = rehearse();
        cmd.arg("classify")
            .arg(&file)
            .arg("--checkpoint")
            .arg(windowed().join("checkpoint-demo-3.5.3"));
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let doc = serde_json::from_slice(&run(true).stdout).expect("JSON on stdout");
    let text = String::from_utf8_lossy(&run(false).stdout).into_owned();
    (doc, text)
}

const PATHS: [(&str, &str); 5] = [
    ("state-loaded", "state_loaded"),
    ("state-updated", "state_updated"),
    ("watermark-advanced", "watermark_advanced"),
    ("state-evicted", "state_evicted"),
    ("sink-wrote", "sink_wrote"),
];

/// The paths that did not run per the JSON `exercised`, after checking that every evidence
/// line about a path says what `exercised` says, in the text output too.
fn agreeing_not_run(doc: &serde_json::Value, text: &str) -> Vec<&'static str> {
    let evidence: Vec<&str> = doc["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let e = &doc["exercised"];
    let mut summary = Vec::new();
    let mut not_run = Vec::new();
    for (name, key) in PATHS {
        let said: Vec<&&str> = evidence
            .iter()
            .filter(|l| l.starts_with(&format!("{name}: ")))
            .collect();
        if e[key].is_null() {
            // No such path: only a "not measured" note may name it.
            let notes = e["not_measured"].as_array().cloned().unwrap_or_default();
            assert!(
                said.iter().all(|l| notes.iter().any(|n| n == **l)),
                "{name} is no path here: {said:?}"
            );
            continue;
        }
        let ran = e[key]["ran"].as_bool().unwrap();
        let line = format!("{name}: {}", e[key]["evidence"].as_str().unwrap());
        assert_eq!(said, [&line.as_str()], "{name}: evidence vs exercised");
        assert!(text.contains(&line), "{name}: the text says {line}\n{text}");
        summary.push(format!("{name} {}", if ran { "ran" } else { "NOT run" }));
        if !ran {
            not_run.push(name);
        }
    }
    let summary = format!("exercised paths: {}", summary.join(", "));
    let listed: Vec<&&str> = evidence
        .iter()
        .filter(|l| l.starts_with("exercised paths: "))
        .collect();
    assert_eq!(listed, [&summary.as_str()], "{evidence:#?}");
    not_run
}

/// New-user pass, session 8: classify judged at batch 4 and merged batches 5 and 6 into
/// `exercised` (state updated, watermark advanced), but its evidence still said "state-updated
/// NOT run, watermark-advanced NOT run" from batch 4. The same log cut after batch 4 and after
/// batch 5 names what did not run in the evidence, `exercised` and the remedy alike.
#[test]
fn evidence_exercised_and_remedy_agree_after_later_batches_are_merged() {
    let whole = log();
    let cases = [
        (whole.clone(), &[][..]),
        (before_report(&whole, 3), &["watermark-advanced"][..]),
        (
            before_report(&whole, 2),
            &["state-updated", "watermark-advanced"][..],
        ),
    ];
    for (log, expected) in cases {
        let (doc, text) = classify_windowed(&log);
        assert_eq!(doc["verdict"], "resumed", "{doc:#}");
        assert_eq!(doc["first_batch_after_restart"], 4);
        let not_run = agreeing_not_run(&doc, &text);
        assert_eq!(not_run, expected, "{doc:#}");
        let remedy = doc["remedy"].as_str().unwrap();
        if expected.is_empty() {
            assert!(remedy.starts_with("Safe to restart"), "{remedy}");
            assert!(!text.contains("NOT run"), "{text}");
        } else {
            let said = format!("Not proven: {} did not run", expected.join(", "));
            assert!(remedy.starts_with(&said), "{remedy}");
        }
    }
    // Which batch proved each path, on the whole log.
    let (doc, _) = classify_windowed(&whole);
    for (key, batch) in [
        ("state_loaded", "batch 4"),
        ("state_updated", "batch 5"),
        ("watermark_advanced", "batch 6"),
        ("state_evicted", "batch 4"),
    ] {
        let evidence = doc["exercised"][key]["evidence"].as_str().unwrap();
        assert!(evidence.starts_with(batch), "{key}: {evidence}");
    }
}

/// New-user pass, session 8: a live trial with nothing fresh seeded (fresh_records = 0) gets
/// `resume-unproven`, rightly, but its evidence said "no batch could read rows, so no path of
/// the query ran" right after listing state-loaded and state-evicted as ran (the re-run of the
/// batch the checkpoint had planned loads and evicts state), and blamed "the fresh records"
/// for the paths that did not run when none were seeded. The first batch of the windowed
/// count's trial is that restart's batch 4.
#[test]
fn nothing_fresh_seeded_never_contradicts_the_paths_it_lists() {
    let checkpoint = windowed().join("checkpoint-demo-3.5.3");
    let inspection = rehearse::checkpoint::inspect(&checkpoint).unwrap();
    let ctx = TrialContext {
        nothing_fresh: true,
        ..TrialContext::from_inspection(&inspection)
    };
    let log = before_report(&log(), 2);
    let mut w = Watcher::new(ctx);
    for l in log.lines() {
        w.push_line(l);
    }
    let c = w.finish(Ended::Exited(Some(0)));
    assert_eq!(
        (c.verdict, c.rule.as_str()),
        (Verdict::ResumeUnproven, "resume-unproven"),
        "{c:#?}"
    );
    let e = c.exercised.as_ref().expect("batch 4 was seen");
    assert_eq!(e.ran(), ["state-loaded", "state-evicted"], "{e:#?}");
    let why = c
        .evidence
        .iter()
        .find(|l| l.starts_with("no fresh records were seeded"))
        .expect("the reason is said");
    assert!(
        why.contains("state-loaded, state-evicted ran without one")
            && why.contains("state-updated, watermark-advanced could not run")
            && !why.contains("no path"),
        "{why}"
    );
    for (name, p) in e.not_run() {
        assert!(
            !p.evidence.contains("the fresh records") && p.evidence.contains("no fresh records"),
            "{name}: {}",
            p.evidence
        );
        assert!(
            c.evidence.contains(&format!("{name}: {}", p.evidence)),
            "{name}: {:#?}",
            c.evidence
        );
    }
    // The same batch with fresh records seeded and read: they are blamed, as before.
    let ctx = TrialContext::from_inspection(&inspection);
    let c = classify(log.lines(), std::iter::empty(), &ctx);
    let updated = c.exercised.unwrap().state_updated.unwrap();
    assert!(
        updated
            .evidence
            .contains("the fresh records reached no stateful operator"),
        "{updated:?}"
    );
}
