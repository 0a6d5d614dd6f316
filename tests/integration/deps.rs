//! `[job]` dependencies with real parts: packages resolved from Maven Central with `mvn`,
//! requirements installed from PyPI with `pip`, a real Spark generation and restart. The
//! end-to-end test needs a Docker engine (skips on a developer's machine without one, FAILS under
//! `CI=true`); the refusals need none — they run with `DOCKER_HOST` pointing nowhere, so an
//! error that came from Docker (exit 4, "no engine") instead of the dependency check would fail
//! them: each proves its check runs before any image or container.
//!
//! Maven Central and PyPI are reached once; the jars and the installed requirements are cached
//! under `$REHEARSE_CACHE/deps` (here the user's cache, shared with the images' `m2/`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use crate::run::{cache_dir, docker_available};

#[derive(Debug, Deserialize)]
struct Report {
    trials: Vec<Trial>,
}

#[derive(Debug, Deserialize)]
struct Trial {
    verdict: String,
    rule: String,
    evidence: Vec<String>,
    #[serde(default)]
    output: Vec<Output>,
    dependencies: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Output {
    topic: String,
    records_after_restart: u64,
    sample: Vec<String>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `rehearse run SCENARIO --json` with `env`; (stdout, stderr, exit code).
fn run(scenario: &Path, env: &[(&str, &str)]) -> (String, String, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rehearse"));
    cmd.arg("run")
        .arg(scenario)
        .arg("--json")
        .env("REHEARSE_CACHE_DIR", cache_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Runs `scenario` with no Docker engine reachable and returns (stderr, code).
fn refused(scenario: &Path, env: &[(&str, &str)]) -> (String, i32) {
    let mut env = env.to_vec();
    env.push(("DOCKER_HOST", "unix:///nonexistent/rehearse-no-docker.sock"));
    let (_, stderr, code) = run(scenario, &env);
    (stderr, code)
}

/// A generating scenario over the avro job in `dir`, with `job_extra` lines in `[job]`.
fn scenario(dir: &Path, job_extra: &str) -> PathBuf {
    let jobs = repo().join("scenarios/deps");
    let text = format!(
        r#"name = "deps-refusal"
targets = ["4.0.1"]
[checkpoint.generate]
spark = "3.5.3"
batches = 1
[job]
file = "{job}"
args = ["--checkpoint", "{{checkpoint}}", "--bootstrap-servers", "{{bootstrap_servers}}", "--topic", "{{topic.orders-avro}}", "--output-topic", "x"]
{job_extra}
[[topics]]
name = "orders-avro"
template = "x"
"#,
        job = jobs.join("avro_orders.py").display()
    );
    let path = dir.join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// spark-avro resolved per line (`_2.12:3.5.3` for the generation, `_2.13:4.0.1` for the
/// target) decodes Confluent-framed Avro with `from_avro`; `toolz` from a hash-pinned
/// requirements file is imported by the driver and by the executors' Python workers (the UDF's
/// tag in the output); `order_schema.py` comes through `py_files`. The restart resumes, and the
/// report names the jars and the requirements it ran with.
#[test]
fn e2e_avro_from_packages_and_a_requirements_package_resume() {
    if !docker_available() {
        return;
    }
    let (stdout, stderr, code) = run(&repo().join("scenarios/deps/avro-orders.toml"), &[]);
    let report: Report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let t = &report.trials[0];
    assert_eq!(
        t.verdict, "resumed",
        "rule {} evidence {:?}\n{stderr}",
        t.rule, t.evidence
    );
    assert_eq!(code, 0, "{stderr}");
    let [out] = &t.output[..] else {
        panic!("one output topic expected: {:?}\n{stderr}", t.output);
    };
    assert_eq!(out.topic, "orders-decoded");
    assert!(out.records_after_restart > 0, "{out:?}\n{stderr}");
    for line in &out.sample {
        // value={"order":"order-003","amount":22,"tag":"toolz-0.12.1:order-003","schema_id":1}
        let n: u64 = line
            .split("\"order\":\"order-")
            .nth(1)
            .and_then(|r| r.get(..3))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not decoded: {line}"));
        assert!(
            line.contains(&format!("\"amount\":{}", n * 7 + 1)),
            "Avro decoded wrong: {line}"
        );
        assert!(
            line.contains(&format!("\"tag\":\"toolz-0.12.1:order-{n:03}\"")),
            "executors did not import toolz: {line}"
        );
    }
    let deps = t.dependencies.as_ref().expect("dependencies in the report");
    assert_eq!(
        deps["packages"][0]["coordinate"], "org.apache.spark:spark-avro_2.13:4.0.1",
        "{deps}"
    );
    assert_eq!(
        deps["packages"][0]["jars"][0], "spark-avro_2.13-4.0.1.jar",
        "{deps}"
    );
    let jars = deps["packages"][0]["jars"].to_string();
    assert!(
        !jars.contains("spark-tags") && !jars.contains("scala-library"),
        "Spark's own jars are left out: {jars}"
    );
    assert_eq!(deps["py_files"][0], "order_schema.py", "{deps}");
    assert_eq!(deps["requirements"]["python"], "3.11", "{deps}");
    assert_eq!(
        deps["requirements"]["installed"][0], "toolz-0.12.1",
        "{deps}"
    );
}

/// A coordinate that is not `group:artifact:version` is refused at load (exit 3), naming it.
#[test]
fn a_bad_coordinate_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenario(dir.path(), r#"packages = ["spark-avro_{scala}"]"#);
    let (stderr, code) = refused(&s, &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("\"spark-avro_{scala}\", filled for Spark 4.0.1: \"spark-avro_2.13\" is not a Maven coordinate")
            && stderr.contains("group:artifact:version"),
        "{stderr}"
    );
}

/// A package published for Scala 2.12 only (`spark-avro_2.12`, gone in Spark 4) is refused for
/// the 4.0.1 target before any container, naming the coordinate and the target; it exists for
/// the generating 3.5.3.
#[test]
fn a_package_missing_for_a_targets_line_is_refused_before_any_container() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenario(
        dir.path(),
        r#"packages = ["org.apache.spark:spark-avro_2.12:{spark}"]"#,
    );
    let (stderr, code) = refused(&s, &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("org.apache.spark:spark-avro_2.12:4.0.1 does not exist in Maven Central")
            && stderr.contains("target 4.0.1")
            && stderr.contains("Scala 2.13")
            && stderr.contains("{scala}"),
        "{stderr}"
    );
}

/// Requirements that do not resolve (no such project on PyPI) are refused before any
/// container, naming the file and pip's words (exit 3).
#[test]
fn requirements_that_do_not_resolve_are_refused_before_any_container() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("requirements.txt");
    std::fs::write(&req, "rehearse-h17b-no-such-project==1.0\n").unwrap();
    let s = scenario(dir.path(), r#"requirements = "requirements.txt""#);
    let (stderr, code) = refused(&s, &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(&req.display().to_string())
            && stderr.contains("rehearse-h17b-no-such-project")
            && stderr.contains("Python 3.11"),
        "{stderr}"
    );
}

/// Maven Central out of reach (a registry URL that refuses connections) is the environment's
/// fault: exit 4, said before any container.
#[test]
fn an_unreachable_maven_registry_is_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenario(
        dir.path(),
        r#"packages = ["org.example.rehearse:never-published:0.0.1"]"#,
    );
    let (stderr, code) = refused(&s, &[("MAVEN_REPO", "http://127.0.0.1:9/maven2")]);
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("unreachable")
            && stderr.contains("org.example.rehearse:never-published:0.0.1"),
        "{stderr}"
    );
}

/// The breaker pass: a module Spark ships (`spark-sql_{scala}:3.3.4` on a 4.0.1 target)
/// downloaded 125 jars (365 MB) bound for `--jars`; it is refused at load, before any download.
#[test]
fn a_module_spark_ships_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenario(
        dir.path(),
        r#"packages = ["org.apache.spark:spark-sql_{scala}:3.3.4"]"#,
    );
    let (stderr, code) = refused(&s, &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("is a module Spark ships") && stderr.contains("spark-avro"),
        "{stderr}"
    );
}

/// The breaker pass: `per_target` keys matching no target were silent; a warning names the key
/// and the targets (not a refusal: `--target` narrows a shared file's targets).
#[test]
fn a_per_target_key_matching_no_target_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenario(dir.path(), "[job.per_target.\"5.*\"]\nargs = [\"--x\"]");
    let (stderr, _) = refused(&s, &[]);
    assert!(
        stderr.contains("[job.per_target.\"5.*\"] matches none of the targets (4.0.1)"),
        "{stderr}"
    );
}

/// Pre-flight order, cheapest first (issue 17): a bad checkpoint costs no download. With
/// packages and a requirements file that would need Maven and PyPI — both unreachable here, and
/// Docker too — a checkpoint refused at load (an empty directory) and one refused once inspected
/// (a real checkpoint whose offset log reads another topic than `[[topics]]` names) are bad
/// input naming the checkpoint (exit 3), never "unreachable" (exit 4): the checkpoint is checked
/// before any dependency is resolved.
#[test]
fn a_bad_checkpoint_is_refused_before_any_dependency_is_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("ckpt");
    std::fs::create_dir_all(&ckpt).unwrap();
    std::fs::write(dir.path().join("requirements.txt"), "toolz==0.12.1\n").unwrap();
    let job = repo().join("scenarios/deps/avro_orders.py");
    let s = dir.path().join("scenario.toml");
    std::fs::write(
        &s,
        format!(
            r#"name = "deps-bad-checkpoint"
targets = ["4.0.1"]
[checkpoint]
path = "ckpt"
[job]
file = "{}"
args = ["--checkpoint", "{{checkpoint}}"]
packages = ["org.example.rehearse:never-published:0.0.1"]
requirements = "requirements.txt"
[[topics]]
name = "orders-avro"
"#,
            job.display()
        ),
    )
    .unwrap();
    let unreachable = [
        ("MAVEN_REPO", "http://127.0.0.1:9/maven2"),
        ("PIP_INDEX_URL", "http://127.0.0.1:9/simple"),
    ];
    let (stderr, code) = refused(&s, &unreachable);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("ckpt is an empty directory") && !stderr.contains("unreachable"),
        "{stderr}"
    );
    let fixture = repo().join("tests/fixtures/checkpoints/3.5.3/kafka-agg");
    for entry in walkdir::WalkDir::new(&fixture) {
        let entry = entry.unwrap();
        let to = ckpt.join(entry.path().strip_prefix(&fixture).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let (stderr, code) = refused(&s, &unreachable);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("ckpt does not read: its offset log names events")
            && !stderr.contains("resolving")
            && !stderr.contains("unreachable"),
        "{stderr}"
    );
}
