//! The `local` runtime for real: Kafka and Spark 3.5.3 as host processes, no Docker. These tests
//! never skip: they need the host's Java 17 and Python 3.11, PyPI and Maven Central (the first
//! run installs Spark and Kafka under target/rehearse-cache/local, about half a minute when the
//! pyspark download is already cached by an image build), and fail when any of that is missing.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

/// The parts of the `rehearse.run/v1` document checked here (test-local types).
#[derive(Debug, Deserialize)]
struct Report {
    trials: Vec<Trial>,
}

#[derive(Debug, Deserialize)]
struct Trial {
    verdict: String,
    rule: String,
    evidence: Vec<String>,
    last_committed_batch: Option<u64>,
    first_batch_after_restart: Option<u64>,
    start_offsets_match: Option<bool>,
    source_untouched: bool,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cache_dir() -> PathBuf {
    repo().join("target/rehearse-cache")
}

/// A scenario restarting `checkpoint` (or generating one: `checkpoint_toml`) with the
/// windowed-count job, the job the fixture was written by.
fn scenario(dir: &Path, checkpoint_toml: &str, target: &str) -> PathBuf {
    let job = repo().join("scenarios/jobs/windowed_count.py");
    let text = format!(
        r#"name = "local"
targets = ["{target}"]
timeout_seconds = 240
{checkpoint_toml}
[job]
file = "{job}"
args = ["--checkpoint", "{{checkpoint}}", "--bootstrap-servers", "{{bootstrap_servers}}", "--output", "{{output}}", "--topic", "{{topic.events}}"]
[job.conf]
"spark.sql.shuffle.partitions" = "2"

[[topics]]
name = "events"
partitions = 2
template = '{{"user":"user-{{partition}}","n":{{n}}}}'
fresh_records = 5
# a minute of event time per record past the checkpoint's watermark: windows close (issue 13)
time_step_ms = 60000
kafka_timestamp = true
"#,
        job = job.display()
    );
    let path = dir.join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn fixture() -> PathBuf {
    repo().join("tests/fixtures/checkpoints/3.5.3/kafka-agg")
}

fn hash_tree(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn rehearse() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rehearse"));
    cmd.env("REHEARSE_CACHE_DIR", cache_dir());
    cmd
}

/// Pid files of local process groups owned by `owner`: (pgid, contents).
fn pid_files_of(owner: u32) -> Vec<(i32, String)> {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let dir = std::env::temp_dir().join(format!("rehearse-procs-{uid}"));
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let pgid = e
                        .file_name()
                        .to_string_lossy()
                        .strip_suffix(".pid")?
                        .parse()
                        .ok()?;
                    let text = std::fs::read_to_string(e.path()).ok()?;
                    text.lines()
                        .any(|l| l == format!("owner={owner}"))
                        .then_some((pgid, text))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks that the group exists.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

fn wait_group_gone(pgid: i32) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(15) {
        if !group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// Starts `rehearse run --runtime local` and returns it once its Kafka broker is up (the
/// stderr line "kafka ready"), with the stderr read so far; the rest of stderr is drained by a
/// thread (as a terminal would read it) whose handle returns it.
fn run_until_kafka_ready(
    tmp: &Path,
) -> (std::process::Child, String, std::thread::JoinHandle<String>) {
    let s = scenario(
        tmp,
        &format!("[checkpoint]\npath = \"{}\"\n", fixture().display()),
        "3.5.3",
    );
    let mut child = rehearse()
        .args(["run", "--runtime", "local", "--report-dir"])
        .arg(tmp)
        .arg(&s)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = String::new();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("kafka ready at") {
            let rest = std::thread::spawn(move || {
                lines.map_while(Result::ok).collect::<Vec<_>>().join("\n")
            });
            return (child, seen, rest);
        }
    }
    let _ = child.wait();
    panic!("rehearse ended before its Kafka was ready:\n{seen}");
}

#[test]
fn e2e_local_runtime_resumes_a_3_5_checkpoint_with_matching_offsets() {
    let tmp = tempfile::tempdir().unwrap();
    let source = fixture();
    let before = hash_tree(&source);
    let s = scenario(
        tmp.path(),
        &format!("[checkpoint]\npath = \"{}\"\n", source.display()),
        "3.5.3",
    );
    let started = Instant::now();
    let child = rehearse()
        .args(["run", "--runtime", "local", "--json", "--report-dir"])
        .arg(tmp.path())
        .arg(&s)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let owner = child.id();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "local trial: {:.1} s in all\n{stderr}",
        started.elapsed().as_secs_f64()
    );
    let report: Report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let t = &report.trials[0];
    assert_eq!(
        t.verdict, "resumed",
        "rule {} evidence {:#?}\n{stderr}",
        t.rule, t.evidence
    );
    assert_eq!(t.start_offsets_match, Some(true), "{stderr}");
    assert_eq!(t.last_committed_batch, Some(3));
    assert!(t.first_batch_after_restart > t.last_committed_batch);
    assert!(t.source_untouched);
    assert_eq!(
        hash_tree(&source),
        before,
        "the fixture must be byte-identical"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("spark-submit started in local Spark 3.5.3"),
        "{stderr}"
    );
    // Nothing left behind: no process group of that run, no Kafka data directory.
    assert!(pid_files_of(owner).is_empty());
}

#[test]
fn local_runtime_refuses_a_spark_the_host_python_cannot_run() {
    // A fake Java 17 and Python 3.11, so the refusal does not depend on this host's tools.
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("jdk/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let java = bin.join("java");
    std::fs::write(
        &java,
        "#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n",
    )
    .unwrap();
    let python = tmp.path().join("python");
    std::fs::write(&python, "#!/bin/sh\necho 3 11\n").unwrap();
    for f in [&java, &python] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let s = scenario(
        tmp.path(),
        &format!("[checkpoint]\npath = \"{}\"\n", fixture().display()),
        "3.3.4",
    );
    let out = rehearse()
        .args(["run", "--runtime", "local"])
        .arg(&s)
        .env("JAVA_HOME", tmp.path().join("jdk"))
        .env("PYSPARK_PYTHON", &python)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "environment error: {stderr}");
    assert!(
        stderr.contains("Spark 3.3.4 cannot run on the local runtime")
            && stderr.contains("Python 3.11")
            && stderr.contains("--runtime docker")
            && stderr.contains("PYSPARK_PYTHON"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("installing"),
        "refused before installing: {stderr}"
    );
}

#[test]
fn e2e_alone_local_runtime_ctrl_c_or_sigterm_stops_the_broker_and_gc_sweeps_orphans() {
    // Ctrl-C (SIGINT): the run kills its own process groups and exits 130.
    let tmp = tempfile::tempdir().unwrap();
    let (child, seen, rest) = run_until_kafka_ready(tmp.path());
    let owner = child.id();
    let groups = pid_files_of(owner);
    assert_eq!(
        groups.len(),
        1,
        "one Kafka process group: {groups:?}\n{seen}"
    );
    let pgid = groups[0].0;
    assert!(group_alive(pgid));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let rest = rest.join().unwrap();
    assert_eq!(out.status.code(), Some(130), "{seen}{rest}");
    assert!(rest.contains("interrupted"), "{rest}");
    assert!(wait_group_gone(pgid), "Kafka group {pgid} survived Ctrl-C");
    assert!(pid_files_of(owner).is_empty());

    // SIGTERM (a cancelled CI job, `timeout`): the same clean stop. Before, only Ctrl-C was
    // heard and `timeout 20 rehearse run …` left its Kafka running (breaker pass).
    let tmp = tempfile::tempdir().unwrap();
    let (child, seen, rest) = run_until_kafka_ready(tmp.path());
    let owner = child.id();
    let groups = pid_files_of(owner);
    assert_eq!(groups.len(), 1, "{groups:?}\n{seen}");
    let pgid = groups[0].0;
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let rest = rest.join().unwrap();
    assert_eq!(out.status.code(), Some(130), "{seen}{rest}");
    assert!(wait_group_gone(pgid), "Kafka group {pgid} survived SIGTERM");
    assert!(pid_files_of(owner).is_empty());

    // SIGKILL: nothing runs the cleanup, the broker is an orphan until `rehearse gc`.
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, seen, rest) = run_until_kafka_ready(tmp.path());
    let owner = child.id();
    let groups = pid_files_of(owner);
    assert_eq!(groups.len(), 1, "{groups:?}\n{seen}");
    let (pgid, text) = groups[0].clone();
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("dir="))
        .map(PathBuf::from)
        .expect("the Kafka pid file names its data directory");
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = rest.join();
    assert!(
        group_alive(pgid),
        "the broker outlives a SIGKILLed rehearse"
    );
    let out = rehearse().arg("gc").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!("removed local kafka process group {pgid}")),
        "{stdout}"
    );
    assert!(wait_group_gone(pgid), "gc left Kafka group {pgid} running");
    assert!(!data.exists(), "gc left {}", data.display());
    assert!(pid_files_of(owner).is_empty());
}

/// `rehearse gc` trusts no pid file blindly (issue 15): a planted pid file naming a live
/// process without the trial's marker (a recycled pid) and a `rehearse-kafka-*` directory
/// outside the temp dir gets nothing killed or deleted, and says what it skipped; a sandbox a
/// SIGKILLed rehearsal left is named, and deleted with `--sandboxes`.
#[test]
fn e2e_alone_gc_skips_recycled_pids_and_planted_dirs_and_offers_killed_sandboxes() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let run_dir = tmp.path().join(format!("rehearse-procs-{uid}"));
    std::fs::create_dir(&run_dir).unwrap();
    std::fs::set_permissions(&run_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    // A process group leader that even carries the trial's marker, but started at another
    // time than the pid file records: the pid was recycled.
    let mut bystander = {
        use std::os::unix::process::CommandExt;
        std::process::Command::new("sleep")
            .arg("60")
            .env("REHEARSE_TRIAL", "t1")
            .process_group(0)
            .spawn()
            .unwrap()
    };
    let precious = elsewhere.path().join("rehearse-kafka-precious");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join(".rehearse-trial"), "t1").unwrap();
    std::fs::write(
        run_dir.join(format!("{}.pid", bystander.id())),
        format!(
            "owner=999999999\nstart=1\ntrial=t1\nrole=kafka\ndir={}\n",
            precious.display()
        ),
    )
    .unwrap();
    let sandbox = tmp.path().join("rehearse-demo-4.0.1-Ab12");
    std::fs::create_dir(&sandbox).unwrap();
    std::fs::write(
        sandbox.join(".rehearse-owner"),
        "owner=999999999\nowner_start=1\nkeep=false\n",
    )
    .unwrap();
    let gc = |extra: &[&str]| {
        let out = rehearse()
            .arg("gc")
            .args(extra)
            .env("TMPDIR", tmp.path())
            .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stdout = gc(&[]);
    assert!(
        bystander.try_wait().unwrap().is_none(),
        "gc killed a process that was not rehearse's: {stdout}"
    );
    assert!(
        precious.exists(),
        "gc deleted a directory outside its own: {stdout}"
    );
    assert!(stdout.contains("skipped killing"), "{stdout}");
    assert!(stdout.contains("skipped deleting"), "{stdout}");
    assert!(
        stdout.contains("left behind by a rehearsal that was killed")
            && stdout.contains("rehearse-demo-4.0.1-Ab12")
            && stdout.contains("--sandboxes"),
        "{stdout}"
    );
    assert!(sandbox.exists());
    let stdout = gc(&["--sandboxes"]);
    assert!(!sandbox.exists(), "{stdout}");
    assert!(stdout.contains("removed sandbox"), "{stdout}");
    let _ = bystander.kill();
    let _ = bystander.wait();
}

/// Breaker pass (issue 25 §6): `--report-dir` with a space on the local runtime was refused only
/// when Spark started — after the copy, Kafka and seeding — and as exit 4. Now bad input (3)
/// before anything starts: no sandbox, no process group.
#[test]
fn a_report_dir_with_whitespace_is_refused_before_anything_starts_on_the_local_runtime() {
    let tmp = tempfile::tempdir().unwrap();
    let s = scenario(
        tmp.path(),
        &format!("[checkpoint]\npath = \"{}\"\n", fixture().display()),
        "3.5.3",
    );
    let reports = tmp.path().join("with space");
    let before = pid_files_of(std::process::id()).len();
    let out = rehearse()
        .args([
            "run",
            s.to_str().unwrap(),
            "--runtime",
            "local",
            "--report-dir",
        ])
        .arg(&reports)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("whitespace") && stderr.contains("with space"),
        "{stderr}"
    );
    assert!(
        !reports.exists() || std::fs::read_dir(&reports).unwrap().next().is_none(),
        "a sandbox was made in {}",
        reports.display()
    );
    assert_eq!(pid_files_of(std::process::id()).len(), before);
}
