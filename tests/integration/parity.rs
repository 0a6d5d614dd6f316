//! End-to-end control runs and output parity (issue 13 §3, §5): real Kafka, the shared source
//! checkpoint Spark 3.5.3 generated (run.rs), restarted on a target and, beside it, on 3.5.3
//! with the unchanged job (the control); the outputs compared. Need a Docker engine (skip with
//! a message on a developer's machine, FAIL under CI=true).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::run::{cache_dir, docker_available, hash_tree, scenario, source_checkpoint};

/// Runs `rehearse run SCENARIO --json ARGS…`: the report as JSON, the exit code, stderr.
fn rehearse(scenario: &Path, args: &[&str]) -> (Value, i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .arg("run")
        .arg(scenario)
        .arg("--json")
        .args(args)
        .env("REHEARSE_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    (report, out.status.code().unwrap_or(-1), stderr)
}

/// Issue 13 §5: an unchanged windowed count (JSON file sink) restarted on 4.0.1 with
/// `--control` writes the same rows after the restart as the same copy restarted on 3.5.3:
/// parity `same`, the run passes, the source untouched. Two restarts (control, target).
#[test]
fn e2e_unchanged_upgrade_with_a_control_writes_the_same_rows() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = source_checkpoint();
    let before = hash_tree(&source);
    let s = scenario(
        tmp.path(),
        &format!(
            "control_version = \"3.5.3\"\n[checkpoint]\npath = \"{}\"\n",
            source.display()
        ),
        "4.0.1",
        "",
        "",
    );
    let (report, code, stderr) = rehearse(&s, &["--control"]);
    let control = &report["control"];
    assert_eq!(control["target_version"], "3.5.3", "{report:#}");
    assert_eq!(control["verdict"], "resumed", "{control:#}\n{stderr}");
    let t = &report["trials"][0];
    assert_eq!(t["verdict"], "resumed", "{t:#}\n{stderr}");
    let p = &t["parity"];
    assert_eq!(p["status"], "same", "{p:#}\n{stderr}");
    assert_eq!(p["control_version"], "3.5.3");
    let compared = p["compared"].as_array().unwrap();
    let sink = compared
        .iter()
        .filter_map(Value::as_str)
        .find(|c| c.starts_with("file sink output/data: "))
        .unwrap_or_else(|| panic!("the JSON sink was compared: {p:#}"));
    // Rows were written on both sides (same is never claimed on nothing).
    assert!(!sink.starts_with("file sink output/data: 0 rows"), "{sink}");
    assert!(sink.contains("named by _spark_metadata"), "{sink}");
    assert!(
        compared
            .iter()
            .filter_map(Value::as_str)
            .any(|c| c.starts_with("input: the same records")),
        "{p:#}"
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(t["source_untouched"], true);
    assert_eq!(control["source_untouched"], true);
    assert_eq!(
        hash_tree(&source),
        before,
        "source checkpoint must be byte-identical"
    );
}

/// Issue 13 §5: a real behaviour change between versions, unchanged job: `size()` of a NULL
/// array is -1 on 3.5.3 and NULL on 4.0.1 (ANSI mode on by default there), so the same query
/// resumes on both and writes other rows — parity `differs`, the run fails with exit 21 while
/// the verdict stays `resumed`. The shipped example scenario (generation, control, target).
///
/// With `--fresh` (issue 13 §4) the remedy runs too: 4.0.1's job on a new empty checkpoint with
/// `{starting_offsets}` — never `resumed`, its start proven from the new checkpoint's
/// `sources/0/0` at exactly the offsets `rehearse inspect` gives for the generated checkpoint,
/// and its output differs from the control's like the target's (the checkpoint has no state,
/// so that difference fails too: exit 21). One Spark run more.
#[test]
fn e2e_a_behaviour_change_between_versions_is_a_parity_difference() {
    if !docker_available() {
        return;
    }
    let s =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/parity/upgrade-with-control.toml");
    let (report, code, stderr) = rehearse(&s, &["--fresh"]);
    assert_eq!(
        report["control"]["verdict"], "resumed",
        "{report:#}\n{stderr}"
    );
    let t = &report["trials"][0];
    assert_eq!(
        t["verdict"], "resumed",
        "parity never changes a verdict: {t:#}\n{stderr}"
    );
    let p = &t["parity"];
    assert_eq!(p["status"], "differs", "{p:#}\n{stderr}");
    assert!(p["rows_only_in_control"].as_u64().unwrap() > 0, "{p:#}");
    assert_eq!(p["rows_only_in_target"], p["rows_only_in_control"], "{p:#}");
    let control_rows = p["examples"]["only_in_control"].as_array().unwrap();
    assert!(
        control_rows
            .iter()
            .all(|r| r.as_str().unwrap().contains(r#""tags":-1"#)),
        "3.5.3 writes size(NULL) as -1: {p:#}"
    );
    let target_rows = p["examples"]["only_in_target"].as_array().unwrap();
    assert!(
        target_rows
            .iter()
            .all(|r| !r.as_str().unwrap().contains("tags")),
        "4.0.1 writes size(NULL) as NULL, left out of the JSON row: {p:#}"
    );
    assert_eq!(t["passed"], false);
    assert_eq!(report["exit_code"], 21);
    assert_eq!(code, 21, "{stderr}");

    // The remedy: started fresh (never resumed), at the checkpoint's last committed offsets.
    let f = &t["fresh"];
    assert_eq!(f["ran"], true, "{f:#}\n{stderr}");
    assert_eq!(f["verdict"], "started-fresh", "{f:#}");
    let inspected = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .args(["inspect", "--json"])
        .arg(report["source_checkpoint"].as_str().unwrap())
        .output()
        .unwrap();
    let inspected: Value = serde_json::from_slice(&inspected.stdout).unwrap();
    let expected = inspected["starting_offsets"].as_str().unwrap();
    let start = &f["start"];
    assert_eq!(start["status"], "proven", "{f:#}");
    assert_eq!(start["expected"], expected, "{f:#}");
    assert_eq!(start["found"], expected, "{f:#}");
    assert!(
        start["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().starts_with("sources/0/0 line 2: ")),
        "{f:#}"
    );
    let fp = &f["parity"];
    assert_eq!(fp["status"], "differs", "{fp:#}");
    assert_eq!(
        fp["may_differ"], false,
        "no state: the difference is not expected"
    );
    assert_eq!(
        fp["rows_only_in_target"], p["rows_only_in_target"],
        "the fresh run read the same fresh records as the target: {fp:#}"
    );
    assert_eq!(f["passed"], false);
    assert_eq!(f["source_untouched"], true);
}

/// Issue 13 §4: `--fresh` is refused as bad input (exit 3) before any image or container — a
/// job that never passes `{starting_offsets}`, and a checkpoint with no committed batch (no
/// offsets to start from: a copy of the real 4.0.1 fresh checkpoint without `commits/0`). No
/// Docker needed.
#[test]
fn fresh_is_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let cp = tmp.path().join("cp");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fresh/size-of-null-4.0.1");
    for rel in ["metadata", "offsets/0", "sources/0/0"] {
        std::fs::create_dir_all(cp.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(fixture.join(rel), cp.join(rel)).unwrap();
    }
    std::fs::write(tmp.path().join("job.py"), "").unwrap();
    let write = |restart_args: &str| {
        let s = tmp.path().join("s.toml");
        std::fs::write(
            &s,
            format!(
                "targets = [\"4.0.1\"]\n[checkpoint]\npath = \"{}\"\n[job]\nfile = \"job.py\"\nargs = [\"{{checkpoint}}\"]\nrestart_args = [{restart_args}]\n[[topics]]\nname = \"events\"\npartitions = 2\n",
                cp.display()
            ),
        )
        .unwrap();
        s
    };
    let run = |s: &Path| {
        let started = std::time::Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
            .arg("run")
            .arg(s)
            .arg("--fresh")
            .env("REHEARSE_CACHE_DIR", cache_dir())
            .output()
            .unwrap();
        assert!(
            started.elapsed().as_secs() < 10,
            "refused before anything started"
        );
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&write(""));
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("--fresh: target 4.0.1") && stderr.contains("{starting_offsets}"),
        "{stderr}"
    );
    let (code, stderr) = run(&write("\"--starting-offsets\", \"{starting_offsets}\""));
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("no committed batch"), "{stderr}");
}
