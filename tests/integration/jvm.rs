//! End-to-end rehearsals of JVM jobs built by the test: the Java and the Scala example jobs
//! (`scenarios/jobs/jvm/`) compiled by `scenarios/jobs/jvm/build.sh` for Spark 3.5.3 (Scala
//! 2.12) and 4.0.1 (Scala 2.13) against the jars of the images rehearse runs them on (javac;
//! scalac from Maven Central, `scripts/setup-scalac.sh`), each jar's 3.5.3 build writing a
//! checkpoint on 3.5.3, restarted on 4.0.1:
//! - with the old jar only → `environment-error`, rule `job-built-for-another-line`, the
//!   remedy naming the lines, the jar and the class;
//! - with `[job.per_target."4.*"]` naming the 4.x build → `resumed` from the checkpoint; the
//!   Java job also on 4.2.0 (its own 4.2.0 build, one restart more).
//!
//! Per job: one generation (cached) and two or three trials, the failing one first (it fails
//! within seconds of the driver starting). Like `run.rs`, these need Docker and skip without it on a
//! developer's machine, and FAIL under `CI=true`; a missing JDK or scalac fails them.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use super::run::{cache_dir, docker_available};

#[derive(Debug, Deserialize)]
struct Report {
    exit_code: i32,
    trials: Vec<Trial>,
}

#[derive(Debug, Deserialize)]
struct Trial {
    target_version: String,
    verdict: String,
    rule: String,
    remedy: String,
    evidence: Vec<String>,
    start_offsets_match: Option<bool>,
    source_untouched: bool,
    job: Job,
}

#[derive(Debug, Deserialize)]
struct Job {
    table: String,
    kind: String,
    path: PathBuf,
    main_class: Option<String>,
    blake3: Option<String>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `job` (`java` or `scala`) built for 3.5.3 and each of `targets` (build.sh caches the
/// images' jars and the compilers; compiling takes seconds).
fn built_jobs(job: &str, targets: &[&str]) -> PathBuf {
    let out = cache_dir().join("jvm-jobs");
    let status = Command::new("bash")
        .arg(repo().join("scenarios/jobs/jvm/build.sh"))
        .arg("3.5.3")
        .args(targets)
        .env("OUT", &out)
        .env("JOBS", job)
        .env("REHEARSE_JVM_CACHE", cache_dir().join("jvm-jars"))
        .status()
        .expect("bash runs scenarios/jobs/jvm/build.sh");
    assert!(
        status.success(),
        "scenarios/jobs/jvm/build.sh failed: the JVM tests need a JDK 17 (javac, jar), the images rehearse/spark:3.5.3 and {targets:?}, and scalac (scripts/setup-scalac.sh)"
    );
    out
}

/// A scenario over `name` (`count-by-key` or `count-by-key-scala`): generated on 3.5.3 by
/// the 3.5.3 build, on `targets`, with `per_target` appended.
fn scenario(
    dir: &Path,
    jobs: &Path,
    name: &str,
    class: &str,
    targets: &[&str],
    per_target: &str,
) -> PathBuf {
    let text = format!(
        r#"name = "jvm-{name}"
targets = {targets:?}
timeout_seconds = 240

[checkpoint.generate]
spark = "3.5.3"
batches = 2
records_per_batch = 5

[job]
jar = "{jobs}/{name}_2.12-3.5.3.jar"
main_class = "{class}"
args = ["--checkpoint", "{{checkpoint}}", "--bootstrap-servers", "{{bootstrap_servers}}", "--output", "{{output}}", "--topic", "{{topic.events}}"]

[job.conf]
"spark.sql.shuffle.partitions" = "2"

[[topics]]
name = "events"
partitions = 2
template = '{{"user":"user-{{partition}}-{{n}}","n":{{n}}}}'
fresh_records = 5
{per_target}
"#,
        jobs = jobs.display()
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn rehearse(scenario: &Path, extra: &[&str]) -> (Vec<Trial>, i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .arg("run")
        .arg(scenario)
        .arg("--json")
        .args(extra)
        .env("REHEARSE_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    assert_eq!(report.exit_code, out.status.code().unwrap_or(-1));
    for t in &report.trials {
        assert!(t.source_untouched, "{stderr}");
    }
    (report.trials, report.exit_code, stderr)
}

/// The old jar fails on 4.0.1 with the rebuild explained; the build of each of `targets`
/// (4.x) resumes.
fn old_jar_fails_explained_and_the_target_artifact_resumes(
    job: &str,
    name: &str,
    class: &str,
    targets: &[&str],
) {
    let jobs = built_jobs(job, targets);
    let tmp = tempfile::tempdir().unwrap();
    let old = scenario(tmp.path(), &jobs, name, class, &["4.0.1"], "");
    let (trials, code, stderr) = rehearse(&old, &[]);
    let t = &trials[0];
    assert_eq!(
        (t.verdict.as_str(), t.rule.as_str()),
        ("environment-error", "job-built-for-another-line"),
        "evidence {:#?}\n{stderr}",
        t.evidence
    );
    assert_eq!(code, 11, "environment-error exits 11");
    let old_jar = format!("{name}_2.12-3.5.3.jar");
    for needle in [
        "built for Spark 3.5 / Scala 2.12",
        "rebuild it for 4.0 / Scala 2.13",
        "[job.per_target]",
        old_jar.as_str(),
        class,
    ] {
        assert!(t.remedy.contains(needle), "{needle:?} not in: {}", t.remedy);
    }
    assert_eq!(
        (t.job.table.as_str(), t.job.kind.as_str()),
        ("[job]", "jar")
    );
    assert!(t.job.path.ends_with(&old_jar), "{:?}", t.job.path);

    let new = scenario(
        tmp.path(),
        &jobs,
        name,
        class,
        targets,
        &format!(
            "[job.per_target.\"4.*\"]\njar = \"{}/{name}_{{scala}}-{{spark}}.jar\"\n",
            jobs.display()
        ),
    );
    // Several targets run at once (issue 31 §1): each line names its target, and the report
    // keeps the targets' order.
    let (trials, code, stderr) = rehearse(&new, &["--jobs", "2"]);
    assert_eq!(trials.len(), targets.len(), "{stderr}");
    if targets.len() > 1 {
        assert!(
            stderr.contains(&format!(
                "rehearsing on {} targets, 2 at a time",
                targets.len()
            )),
            "{stderr}"
        );
        for target in targets {
            assert!(
                stderr.contains(&format!("  [{target}] spark {target}: resumed")),
                "{stderr}"
            );
        }
    }
    for (t, target) in trials.iter().zip(targets) {
        assert_eq!(&t.target_version, target);
        assert_eq!(
            t.verdict, "resumed",
            "{target}: rule {} evidence {:#?}\n{stderr}",
            t.rule, t.evidence
        );
        assert_eq!(t.start_offsets_match, Some(true), "{target}");
        assert_eq!(t.job.table, "[job.per_target.\"4.*\"]");
        assert!(
            t.job.path.ends_with(format!("{name}_2.13-{target}.jar")),
            "{target} ran its own build: {:?}",
            t.job.path
        );
        assert_eq!(t.job.main_class.as_deref(), Some(class));
        assert_eq!(t.job.blake3.as_ref().map(String::len), Some(64));
    }
    assert_eq!(code, 0);
}

#[test]
fn e2e_alone_java_job_built_for_3_5_needs_its_4_x_builds_and_resumes_with_them_on_4_0_4_1_and_4_2()
{
    if !docker_available() {
        return;
    }
    old_jar_fails_explained_and_the_target_artifact_resumes(
        "java",
        "count-by-key",
        "com.example.rehearse.CountByKey",
        // 4.1.3: the first 4.1 release whose Kafka source survives a restart (4.1.1–4.1.2 fail
        // every one: rule spark-kafka-source-metrics-npe).
        &["4.0.1", "4.1.3", "4.2.0"],
    );
}

#[test]
fn e2e_scala_job_built_for_2_12_needs_its_2_13_build_and_resumes_with_it() {
    if !docker_available() {
        return;
    }
    old_jar_fails_explained_and_the_target_artifact_resumes(
        "scala",
        "count-by-key-scala",
        "com.example.rehearse.CountByKeyScala",
        &["4.0.1"],
    );
}

/// A target whose artifact does not exist is refused at load (exit 3), before any image or
/// container, naming the table, the file and the target.
#[test]
fn a_missing_artifact_for_a_target_is_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = tmp.path().join("jobs");
    std::fs::create_dir(&jobs).unwrap();
    std::fs::write(jobs.join("count-by-key_2.12-3.5.3.jar"), b"PK\x03\x04").unwrap();
    let s = scenario(
        tmp.path(),
        &jobs,
        "count-by-key",
        "com.example.rehearse.CountByKey",
        &["4.0.1"],
        &format!(
            "[job.per_target.\"4.*\"]\njar = \"{}/app_{{scala}}-{{spark}}.jar\"\n",
            jobs.display()
        ),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .arg("run")
        .arg(&s)
        .env("REHEARSE_CACHE_DIR", tmp.path().join("cache"))
        .env("DOCKER_HOST", "unix:///nonexistent.sock")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    for needle in [
        "[job.per_target.\"4.*\"] jar",
        "app_2.13-4.0.1.jar",
        "does not exist",
        "target 4.0.1",
    ] {
        assert!(stderr.contains(needle), "{needle:?} not in: {stderr}");
    }
}
