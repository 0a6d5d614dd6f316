//! `rehearse matrix`: the CI slice of the compatibility matrix run for real (real Kafka, real
//! Spark 3.5.3 and 4.0.1 writing and restarting checkpoints), and the suite/merge surfaces
//! that need no containers. The end-to-end test needs a Docker engine and the images of
//! `rehearse images build`; without an engine it skips on a developer's machine and FAILS when
//! `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// The parts of the `rehearse.matrix/v1` document these tests check (test-local types).
#[derive(Debug, Deserialize)]
struct Report {
    schema: String,
    suite: String,
    shards: Vec<String>,
    cells: Vec<Cell>,
}

#[derive(Debug, Deserialize)]
struct Cell {
    shape: String,
    provider: String,
    source: String,
    target: String,
    status: String,
    verdict: Option<String>,
    expected: String,
    rule: Option<String>,
    evidence: Vec<String>,
    last_committed_batch: Option<u64>,
    first_batch_after_restart: Option<u64>,
    start_offsets_match: Option<bool>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rehearse(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .args(args)
        .env("REHEARSE_CACHE_DIR", repo().join("target/rehearse-cache"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn e2e_ci_slice_every_cell_resumes_with_matching_offsets_and_reports_render() {
    if !super::run::docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let suite = repo().join("scenarios/suites/ci-slice.toml");
    let file = |name: &str| tmp.path().join(name).display().to_string();
    let (code, stdout, stderr) = rehearse(&[
        "matrix",
        &suite.display().to_string(),
        "--json",
        "--html",
        &file("m.html"),
        "--junit",
        &file("m.xml"),
        "--markdown",
        &file("m.md"),
    ]);
    let report: Report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    assert_eq!(report.schema, "rehearse.matrix/v1");
    assert_eq!(report.suite, "ci-slice");
    assert_eq!(report.cells.len(), 8, "{stderr}");
    for c in &report.cells {
        let id = format!("{}/{}/{}->{}", c.shape, c.provider, c.source, c.target);
        assert_eq!(c.status, "ran", "{id}: {:#?}\n{stderr}", c.evidence);
        assert_eq!(
            c.verdict.as_deref(),
            Some(c.expected.as_str()),
            "{id}: rule {:?} evidence {:#?}\n{stderr}",
            c.rule,
            c.evidence
        );
        if c.expected == "resumed" {
            assert_eq!(c.start_offsets_match, Some(true), "{id}");
            assert!(
                c.first_batch_after_restart > c.last_committed_batch,
                "{id}: batches {:?} -> {:?}",
                c.last_committed_batch,
                c.first_batch_after_restart
            );
        }
    }
    assert_eq!(code, 0, "{stderr}");
    // The grid filled as cells finished: one progress line per cell, then each grid.
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.starts_with('[') && l.contains("/8] "))
            .count(),
        8,
        "{stderr}"
    );
    assert!(stderr.contains("windowed-count · hdfs"), "{stderr}");
    let html = std::fs::read_to_string(tmp.path().join("m.html")).unwrap();
    assert_eq!(html.matches("<section id=\"cell-").count(), 8);
    let xml = std::fs::read_to_string(tmp.path().join("m.xml")).unwrap();
    assert_eq!(xml.matches("<testcase").count(), 8);
    assert!(!xml.contains("<failure"));
    let md = std::fs::read_to_string(tmp.path().join("m.md")).unwrap();
    assert!(md.contains("### dedup · hdfs"), "{md}");
}

/// Issue 13 §3 in a suite: `control = true` restarts the source checkpoint once more on its own
/// version with the unchanged job (the control), on the suite's shared broker, and compares each
/// cell's output with it. One shape (the windowed count: a JSON file sink), one provider, one
/// source, one target: two Spark restarts. The suite is named `ci-slice` so its group scenario,
/// and with it the generation key (topic names hold the suite name), is the CI slice's: the
/// checkpoint `e2e_ci_slice_…` generated is reused from the cache.
#[test]
fn e2e_control_in_a_suite_gives_each_cell_its_parity_in_json_and_markdown() {
    if !super::run::docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let shape = repo().join("scenarios/shapes/windowed-count.toml");
    let suite = tmp.path().join("control.toml");
    std::fs::write(
        &suite,
        format!(
            "name = \"ci-slice\"\nsources = [\"3.5.3\"]\ntargets = [\"4.0.1\"]\nproviders = [\"hdfs\"]\ntimeout_seconds = 300\ncontrol = true\n[[shapes]]\nscenario = \"{}\"\n",
            shape.display()
        ),
    )
    .unwrap();
    let md = tmp.path().join("m.md");
    let (code, stdout, stderr) = rehearse(&[
        "matrix",
        &suite.display().to_string(),
        "--json",
        "--markdown",
        &md.display().to_string(),
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let cells = report["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{report:#}");
    let control = &report["controls"][0];
    assert_eq!(control["source"], "3.5.3", "{report:#}");
    assert_eq!(control["version"], "3.5.3", "{control:#}");
    assert_eq!(control["verdict"], "resumed", "{control:#}\n{stderr}");
    assert!(
        stderr.contains("windowed-count/hdfs/3.5.3: the control on 3.5.3 (the unchanged job on the source version): resumed"),
        "{stderr}"
    );
    let c = &cells[0];
    assert_eq!(c["verdict"], "resumed", "{c:#}\n{stderr}");
    let p = &c["parity"];
    assert_eq!(p["status"], "same", "{p:#}\n{stderr}");
    assert_eq!(p["control_version"], "3.5.3", "{p:#}");
    let compared: Vec<&str> = p["compared"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    // Rows were written on both sides (same is never claimed on nothing), and the control read
    // the very records the cell read on the shared broker.
    let sink = compared
        .iter()
        .find(|l| l.starts_with("file sink output/data: "))
        .unwrap_or_else(|| panic!("the JSON sink was compared: {p:#}"));
    assert!(!sink.starts_with("file sink output/data: 0 rows"), "{sink}");
    assert!(
        compared
            .iter()
            .any(|l| l.starts_with("input: the same records")),
        "{p:#}"
    );
    assert!(
        !compared.iter().any(|l| l.contains("timestamps differ")),
        "one broker, one seeding: the same timestamps: {p:#}"
    );
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("### Output parity against the control"), "{md}");
    assert!(
        md.contains("| `windowed-count/hdfs/3.5.3->4.0.1` | same (control on 3.5.3) | 0 | 0 |"),
        "{md}"
    );
    // matrix merge keeps the parity.
    let json = tmp.path().join("m.json");
    std::fs::write(&json, &stdout).unwrap();
    let (code, merged, stderr) =
        rehearse(&["matrix", "merge", &json.display().to_string(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let merged: serde_json::Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(merged["cells"][0]["parity"], *p);
    assert_eq!(merged["controls"], report["controls"]);
}

/// A suite over one shape scenario of the repo, written to `dir`.
fn suite(dir: &Path, extra: &str) -> PathBuf {
    let shape = repo().join("scenarios/shapes/dedup.toml");
    let path = dir.join("suite.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"t\"\nsources = [\"3.5.3\", \"4.0.1\"]\n[[shapes]]\nscenario = \"{}\"\n{extra}",
            shape.display()
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_bad_suite_is_bad_input_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let s = suite(
        tmp.path(),
        "[[expect]]\ntarget = \"9.9.9\"\nverdict = \"resumed\"\n",
    );
    let (code, _, stderr) = rehearse(&["matrix", &s.display().to_string()]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("9.9.9") && stderr.contains("not in the suite"),
        "{stderr}"
    );
    let (code, _, stderr) = rehearse(&["matrix", "/nonexistent/suite.toml"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("/nonexistent/suite.toml"), "{stderr}");
    let (code, _, stderr) = rehearse(&["matrix", &s.display().to_string(), "--shard", "3/2"]);
    assert_eq!(code, 2, "a malformed --shard is a usage error: {stderr}");
    assert!(stderr.contains("--shard"), "{stderr}");
}

/// Writes a shard report with the given cells (shape dedup, provider hdfs, 2×2 grid).
fn shard_report(
    dir: &Path,
    name: &str,
    shard: &str,
    cells: &[(&str, &str, &str, &str)],
) -> PathBuf {
    let cells: Vec<String> = cells
        .iter()
        .map(|(s, t, verdict, expected)| {
            format!(
                r#"{{"shape":"dedup","provider":"hdfs","source":"{s}","target":"{t}","status":"ran","verdict":"{verdict}","expected":"{expected}","expected_reason":null,"rule":"r","evidence":["line <{s}>"],"remedy":"x","last_committed_batch":2,"first_batch_after_restart":3,"start_offsets_match":true,"seconds":10.0,"notes":[],"sandbox":null}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"schema":"rehearse.matrix/v1","suite":"t","shapes":["dedup"],"providers":["hdfs"],"sources":["3.5.3","4.0.1"],"targets":["3.5.3","4.0.1"],"shards":["{shard}"],"cells":[{}],"seconds":60.0,"jobs":2}}"#,
        cells.join(",")
    );
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn merge_joins_shards_lists_differences_first_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let a = shard_report(
        tmp.path(),
        "a.json",
        "1/2",
        &[
            ("3.5.3", "3.5.3", "resumed", "resumed"),
            ("3.5.3", "4.0.1", "resumed", "resumed"),
        ],
    );
    let b = shard_report(
        tmp.path(),
        "b.json",
        "2/2",
        &[
            ("4.0.1", "3.5.3", "state-store-error", "resumed"),
            ("4.0.1", "4.0.1", "resumed", "resumed"),
        ],
    );
    let html = tmp.path().join("m.html");
    let (code, stdout, stderr) = rehearse(&[
        "matrix",
        "merge",
        &b.display().to_string(),
        &a.display().to_string(),
        "--html",
        &html.display().to_string(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let diff = stdout.find("DIFFERENCES").expect(&stdout);
    let grid = stdout.find("dedup · hdfs").expect(&stdout);
    assert!(diff < grid, "{stdout}");
    assert!(
        stdout.contains("dedup/hdfs/4.0.1->3.5.3: expected resumed, got state-store-error"),
        "{stdout}"
    );
    assert!(stdout.contains("shards 2/2,1/2"), "{stdout}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("line &lt;4.0.1&gt;"));

    // One shard merged alone lacks the other shard of its split: exit 1, as README says.
    let (code, stdout, _) = rehearse(&["matrix", "merge", &a.display().to_string(), "--json"]);
    assert_eq!(code, 1);
    let merged: Report = serde_json::from_str(&stdout).unwrap();
    assert_eq!(merged.shards, ["1/2"]);
    let (code, stdout, _) = rehearse(&["matrix", "merge", &a.display().to_string()]);
    assert_eq!(code, 1);
    assert!(stdout.contains("shards 2/2 are missing"), "{stdout}");

    let (code, _, stderr) = rehearse(&[
        "matrix",
        "merge",
        &a.display().to_string(),
        &a.display().to_string(),
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("more than one report"), "{stderr}");
    let junk = tmp.path().join("junk.json");
    std::fs::write(&junk, "{}").unwrap();
    let (code, _, stderr) = rehearse(&["matrix", "merge", &junk.display().to_string()]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("junk.json") && stderr.contains("not a rehearse matrix report"),
        "{stderr}"
    );
}

/// `a.json` and `b.json` in `dir`: shards 1/2 and 2/2 of one suite, each cell resumed.
fn two_shards(dir: &Path) -> (PathBuf, PathBuf) {
    (
        shard_report(
            dir,
            "a.json",
            "1/2",
            &[("3.5.3", "3.5.3", "resumed", "resumed")],
        ),
        shard_report(
            dir,
            "b.json",
            "2/2",
            &[("4.0.1", "4.0.1", "resumed", "resumed")],
        ),
    )
}

#[test]
fn merge_refuses_an_output_that_is_an_input_mixed_splits_and_a_fifo() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_shards(tmp.path());
    let before = std::fs::read(&a).unwrap();
    for flag in ["--junit", "--html", "--markdown"] {
        let (code, _, stderr) = rehearse(&[
            "matrix",
            "merge",
            &a.display().to_string(),
            &b.display().to_string(),
            flag,
            &a.display().to_string(),
        ]);
        assert_eq!(code, 3, "{stderr}");
        assert!(
            stderr.contains("overwrite") && stderr.contains("a.json"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read(&a).unwrap(),
            before,
            "{flag} overwrote an input"
        );
    }
    // Through another name of the same file too.
    let link = tmp.path().join("link.json");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let (code, _, stderr) = rehearse(&[
        "matrix",
        "merge",
        &a.display().to_string(),
        &b.display().to_string(),
        "--junit",
        &link.display().to_string(),
    ]);
    assert_eq!(code, 3, "{stderr}");
    // 1/2 + 1/3 with disjoint cells merged to "all as expected", exit 0.
    let c = shard_report(
        tmp.path(),
        "c.json",
        "1/3",
        &[("4.0.1", "4.0.1", "resumed", "resumed")],
    );
    let (code, _, stderr) = rehearse(&[
        "matrix",
        "merge",
        &a.display().to_string(),
        &c.display().to_string(),
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("split into 3") && stderr.contains("c.json"),
        "{stderr}"
    );
    let d = shard_report(
        tmp.path(),
        "d.json",
        "1/2",
        &[("4.0.1", "4.0.1", "resumed", "resumed")],
    );
    let (code, _, stderr) = rehearse(&[
        "matrix",
        "merge",
        &a.display().to_string(),
        &d.display().to_string(),
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("shard 1/2 is also in"), "{stderr}");
    // A report into a directory that does not exist: refused before reading anything.
    let (code, _, stderr) = rehearse(&[
        "matrix",
        "merge",
        &a.display().to_string(),
        "--junit",
        "/nonexistent/dir/m.xml",
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    // A FIFO as input: refused at once, not read forever.
    let fifo = tmp.path().join("fifo.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (code, _, stderr) = rehearse(&["matrix", "merge", &fifo.display().to_string()]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("FIFO"), "{stderr}");
}

/// Issue 25 §2: `matrix merge --markdown <fifo>` blocked forever, and a report path that is a
/// symbolic link was written through into the file it points at. Now a FIFO or a directory is
/// refused at once naming the path and the kind (before any input is read), and a link is
/// replaced by the report, its target untouched. `run` checks its report paths by the same
/// rule before it loads the scenario.
#[test]
fn merge_outputs_never_follow_a_link_or_block_on_a_fifo() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_shards(tmp.path());
    let within = |args: &[&str]| {
        let mut cmd = assert_cmd::Command::cargo_bin("rehearse").unwrap();
        cmd.timeout(std::time::Duration::from_secs(30))
            .args(args)
            .env("REHEARSE_CACHE_DIR", repo().join("target/rehearse-cache"));
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let fifo = tmp.path().join("merged.md");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let fifo_s = fifo.display().to_string();
    for (command, flag) in [
        (
            &["matrix", "merge", a.as_str(), b.as_str()][..],
            "--markdown",
        ),
        (&["matrix", "merge", a.as_str(), b.as_str()][..], "--html"),
        (&["run", "no-such-scenario.toml"][..], "--junit"),
    ] {
        let args: Vec<&str> = command
            .iter()
            .copied()
            .chain([flag, fifo_s.as_str()])
            .collect();
        let (code, stderr) = within(&args);
        assert_eq!(code, 3, "{args:?} (-1: killed by the timeout): {stderr}");
        assert!(
            stderr.contains("merged.md") && stderr.contains("FIFO") && stderr.contains(flag),
            "{args:?}: {stderr}"
        );
    }
    let (code, stderr) = within(&[
        "matrix",
        "merge",
        &a,
        &b,
        "--junit",
        &tmp.path().display().to_string(),
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("is a directory"), "{stderr}");

    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.html");
    std::fs::write(&victim, "precious").unwrap();
    let link = tmp.path().join("merged.html");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let (code, stderr) = within(&[
        "matrix",
        "merge",
        &a,
        &b,
        "--html",
        &link.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(!std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&link).unwrap().contains("<html"));

    // Breaker pass: two reports to one file (also through `./`) left only the second.
    let same = tmp.path().join("m.md").display().to_string();
    let same_too = format!("{}/./m.md", tmp.path().display());
    let (code, stderr) = within(&[
        "matrix",
        "merge",
        &a,
        &b,
        "--markdown",
        &same,
        "--html",
        &same_too,
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("also --markdown's file"), "{stderr}");
    assert!(!tmp.path().join("m.md").exists());
}

#[test]
fn merge_refuses_a_run_report_and_cells_outside_the_axes_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run.json");
    std::fs::write(&run, r#"{"schema":"rehearse.run/v1","scenario":"demo"}"#).unwrap();
    let (code, _, stderr) = rehearse(&["matrix", "merge", &run.display().to_string()]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("run.json") && stderr.contains("rehearse.run/v1"),
        "{stderr}"
    );
    let outside = shard_report(
        tmp.path(),
        "outside.json",
        "1/2",
        &[("9.9.9", "3.5.3", "resumed", "resumed")],
    );
    let (code, _, stderr) = rehearse(&["matrix", "merge", &outside.display().to_string()]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("outside.json") && stderr.contains("9.9.9"),
        "{stderr}"
    );
}

#[test]
fn a_bad_spark_memory_is_usage_and_an_all_not_applicable_suite_needs_no_engine() {
    let tmp = tempfile::tempdir().unwrap();
    // Every cell is not applicable: no image, no broker, no container; exit 0 (they agree).
    let s = suite(tmp.path(), "min_spark = \"9.0.0\"\n");
    let (code, stdout, stderr) = rehearse(&["matrix", &s.display().to_string(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: Report = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report.cells.len(), 4);
    assert!(report.cells.iter().all(|c| c.status == "not-applicable"));
    let (code, _, stderr) = rehearse(&[
        "matrix",
        &s.display().to_string(),
        "--spark-memory",
        "18446744073709551615",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--spark-memory"), "{stderr}");
}

/// `matrix --master`/`--conf` are checked as on `run`, before any image or container: a master
/// without `--report-dir` (where the cluster reads the sandboxes), a `--conf` without `=`, and
/// `--master` with `--runtime` are bad input naming the flag.
#[test]
fn a_bad_master_or_conf_on_matrix_is_bad_input_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let s = suite(tmp.path(), "");
    let s = s.display().to_string();
    let (code, _, stderr) = rehearse(&["matrix", &s, "--master", "spark://h:7077"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("--report-dir"), "{stderr}");
    let (code, _, stderr) =
        rehearse(&["matrix", &s, "--master", "local[4]", "--report-dir", "/tmp"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("--runtime standalone"), "{stderr}");
    let (code, _, stderr) = rehearse(&["matrix", &s, "--conf", "spark.x"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("--conf spark.x: give KEY=VALUE"),
        "{stderr}"
    );
    // Issue 25 §6: an advertised host that is no host name reached spark.driver.host.
    let (code, _, stderr) = rehearse(&[
        "matrix",
        &s,
        "--master",
        "spark://h:7077",
        "--report-dir",
        "/tmp",
        "--advertised-host",
        "bad host!",
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("--advertised-host \"bad host!\""),
        "{stderr}"
    );
    // Issue 25 §6: a cluster-mode driver was submitted and judged on spark-submit's log.
    let (code, _, stderr) = rehearse(&["matrix", &s, "--conf", "spark.submit.deployMode=cluster"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("--conf spark.submit.deployMode") && stderr.contains("client mode"),
        "{stderr}"
    );
    let (code, _, stderr) = rehearse(&[
        "matrix",
        &s,
        "--master",
        "spark://h:7077",
        "--runtime",
        "docker",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--master"), "{stderr}");
}
