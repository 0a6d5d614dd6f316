//! `rehearse init`: the scenario it writes from every checkpoint fixture (and the shared corpus's)
//! loads back with the scenario parser and says what the checkpoint says; the command line's
//! refusals (an existing output, a non-checkpoint, a bad job, an output inside the checkpoint)
//! exit 3 and write nothing; one output is snapshotted.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rehearse::checkpoint;
use rehearse::scenario::init::{default_targets, scenario_text, InitJob, InitSpec};
use rehearse::scenario::{CheckpointSource, Job, Scenario};
use rehearse::versions::SparkLine;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/checkpoints")
}

/// The shared case corpus's checkpoints: skipped with a message when `../shared` is absent (a
/// fresh clone), required when `CI=true`.
fn shared_checkpoints() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/cases/checkpoints");
    if path.is_dir() {
        return Some(path);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true but {} is missing: CI must check the shared case corpus",
            path.display()
        );
    }
    eprintln!(
        "SKIPPED: {} is absent (a fresh clone); the shared-corpus part needs it",
        path.display()
    );
    None
}

/// Every directory up to three levels below `root` that holds `offsets/` or `metadata`.
fn checkpoint_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .max_depth(3)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.into_path())
        .filter(|p| p.join("offsets").is_dir() || p.join("metadata").is_file())
        .collect();
    out.sort();
    out
}

/// Issue 11 §4: the scenario `init` writes loads with the scenario parser for every checkpoint
/// that inspects, and holds the checkpoint's topics, partition counts, pinned confs and
/// targets from the Spark-line table.
#[test]
fn the_scenario_of_every_checkpoint_fixture_loads_back() {
    let job_dir = tempfile::tempdir().unwrap();
    let job = job_dir.path().join("job.py");
    fs::write(&job, "print(1)\n").unwrap();
    let mut roots = vec![fixtures()];
    roots.extend(shared_checkpoints());
    let mut checked = Vec::new();
    let mut with_kafka = 0;
    for dir in roots.iter().flat_map(|r| checkpoint_dirs(r)) {
        let Ok(inspection) = checkpoint::inspect(&dir) else {
            continue;
        };
        let spec = InitSpec {
            checkpoint: dir.display().to_string(),
            job: InitJob::Python {
                file: job.display().to_string(),
            },
            targets: Vec::new(),
            name: "round-trip".into(),
            job_args: Default::default(),
            job_records: Default::default(),
        };
        let text = scenario_text(&inspection, &spec);
        let at = job_dir.path().join("scenario.toml");
        let scenario = Scenario::parse(&text, &at)
            .unwrap_or_else(|e| panic!("{}: {e}\n--- written:\n{text}", dir.display()));
        assert_eq!(scenario.checkpoint, CheckpointSource::Path(dir.clone()));
        assert_eq!(scenario.job, Job::Python { file: job.clone() });
        let topics: BTreeMap<String, u32> = scenario
            .topics
            .iter()
            .map(|t| (t.name.clone(), t.partitions))
            .collect();
        assert_eq!(
            topics,
            inspection.kafka_partition_counts(),
            "{}",
            dir.display()
        );
        with_kafka += usize::from(!topics.is_empty());
        for t in &scenario.topics {
            let placeholder = format!("{{topic.{}}}", t.name);
            // One argument may carry several topics ("{topic.a},{topic.b}": one --topic
            // flag for all, never the flag repeated, which argparse reads as the last only).
            assert!(
                scenario
                    .args
                    .iter()
                    .any(|a| a.split(',').any(|p| p == placeholder)),
                "{}: {placeholder} not in {:?}",
                dir.display(),
                scenario.args
            );
        }
        for key in [
            "spark.sql.shuffle.partitions",
            "spark.sql.streaming.stateStore.providerClass",
        ] {
            let pinned = inspection
                .offset_log
                .iter()
                .flat_map(|l| &l.pinned)
                .find(|p| p.key == key)
                .map(|p| &p.value);
            assert_eq!(scenario.conf.get(key), pinned, "{}: {key}", dir.display());
        }
        let expected: Vec<String> = default_targets(&inspection.writer_version)
            .targets
            .iter()
            .map(ToString::to_string)
            .collect();
        let targets: Vec<String> = scenario.targets.iter().map(ToString::to_string).collect();
        assert_eq!(targets, expected, "{}", dir.display());
        for t in &scenario.targets {
            assert!(
                SparkLine::all()
                    .iter()
                    .any(|l| l.last.as_str() == t.as_str()),
                "{t} is not the newest patch of a line"
            );
        }
        checked.push(dir);
    }
    // Every fixture family is there: a test over nothing would pass.
    assert!(
        checked.len() >= 30,
        "only {} checkpoints: {checked:?}",
        checked.len()
    );
    assert!(with_kafka >= 3, "the kafka-agg fixtures were not checked");
}

/// The v2 checkpoint format is not in the offset log: `init` passes it, from the commit log.
/// (These fixtures read a file source, which the command refuses: the scenario text is the
/// library's.)
#[test]
fn a_checkpoint_format_v2_checkpoint_gets_its_conf() {
    let text = |case: &str| {
        let dir = fixtures().join(case);
        let inspection = checkpoint::inspect(&dir).unwrap();
        let spec = InitSpec {
            checkpoint: dir.display().to_string(),
            job: InitJob::Python {
                file: "/jobs/job.py".into(),
            },
            targets: Vec::new(),
            name: "v2".into(),
            job_args: Default::default(),
            job_records: Default::default(),
        };
        scenario_text(&inspection, &spec)
    };
    let v2 = text("4.0.1/rocksdb-ckptv2-agg");
    assert!(
        v2.contains("\n\"spark.sql.streaming.stateStore.checkpointFormatVersion\" = \"2\"\n"),
        "{v2}"
    );
    assert!(!text("4.0.1/rocksdb-agg").contains("checkpointFormatVersion\" ="));
    assert!(text("3.5.3/rocksdb-changelog-agg").contains(
        "\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\" = \"true\""
    ));
}

/// Issue 25 §6: a checkpoint whose only sources are file sources got a scenario that loaded
/// and whose restart had no input. Refused (exit 3) in one paragraph saying what rehearse can
/// (inspect, classify) and cannot (rehearse its restart) do with it, nothing written; a rate
/// source (no input needed) and a Kafka source still get their scenario.
#[test]
fn a_file_source_checkpoint_is_refused_saying_what_rehearse_can_do() {
    for case in ["3.5.3/file-agg", "4.0.1/file-join", "4.0.1/rocksdb-agg"] {
        let dir = workdir();
        let ckpt = fixtures().join(case);
        let out = run_in(
            dir.path(),
            &[ckpt.to_str().unwrap(), "--job", "job.py", "-o", "s.toml"],
        )
        .code(3);
        for wanted in [
            "query on a file source",
            "sources/0/",
            "rehearse inspect",
            "rehearse classify",
            "cannot rehearse its restart",
            "no scenario was written",
        ] {
            assert!(
                out.stderr.contains(wanted),
                "{case}: {wanted}: {}",
                out.stderr
            );
        }
        assert_eq!(out.stderr.matches("error:").count(), 1, "{}", out.stderr);
        assert!(!dir.path().join("s.toml").exists(), "{case}");
    }
    let rate = init_cmd(&fixtures().join("3.5.3/rate-agg"), &["--output", "-"]).code(0);
    assert!(rate.stdout.contains("[checkpoint]"), "{}", rate.stdout);
    init_cmd(&fixtures().join("3.5.3/kafka-agg"), &["--output", "-"]).code(0);
}

// ---------------------------------------------------------------------------------------------
// The command line.

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    #[track_caller]
    fn code(self, expected: i32) -> Self {
        assert_eq!(
            self.code, expected,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        self
    }
}

/// A temp dir with `job.py`, the current directory of the commands below.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("rehearse-init-")
        .tempdir()
        .unwrap();
    fs::write(dir.path().join("job.py"), "print(1)\n").unwrap();
    dir
}

fn run_in(cwd: &Path, args: &[&str]) -> Out {
    let mut cmd = Command::cargo_bin("rehearse").expect("the rehearse binary is built");
    cmd.timeout(std::time::Duration::from_secs(60));
    cmd.current_dir(cwd).arg("init").args(args);
    let out = cmd.output().expect("rehearse runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `rehearse init CHECKPOINT --job <abs job.py> ARGS…` in a fresh work dir.
fn init_cmd(checkpoint: &Path, args: &[&str]) -> Out {
    let dir = workdir();
    let mut all = vec![checkpoint.to_str().unwrap(), "--job", "job.py"];
    all.extend_from_slice(args);
    run_in(dir.path(), &all)
}

/// Names and hashes of every file under `dir`: to prove a refused command wrote nothing there.
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let hash = blake3::hash(&fs::read(e.path()).unwrap())
                .to_hex()
                .to_string();
            (e.into_path(), hash)
        })
        .collect();
    out.sort();
    out
}

/// Issue 25 §6: `--name ''` wrote a scenario whose reports were headed by nothing.
#[test]
fn an_empty_or_control_character_name_is_refused_before_anything_is_written() {
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    for name in ["", "  ", "a\u{1b}[2Jb"] {
        let dir = workdir();
        let out = run_in(
            dir.path(),
            &[ckpt.to_str().unwrap(), "--job", "job.py", "--name", name],
        )
        .code(3);
        assert!(out.stderr.contains("--name"), "{name:?}: {}", out.stderr);
        assert!(!dir.path().join("scenario.toml").exists(), "{name:?}");
    }
}

#[test]
fn init_writes_a_scenario_that_rehearse_loads() {
    let dir = workdir();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let before = tree(&ckpt);
    let out = run_in(
        dir.path(),
        &[
            ckpt.to_str().unwrap(),
            "--job",
            "job.py",
            "--name",
            "orders",
        ],
    )
    .code(0);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("wrote scenario.toml"), "{}", out.stderr);
    assert!(
        out.stderr.contains("rehearse run scenario.toml"),
        "{}",
        out.stderr
    );
    let written = dir.path().join("scenario.toml");
    let scenario = Scenario::load(&written).unwrap();
    assert_eq!(scenario.name, "orders");
    assert_eq!(scenario.topics.len(), 1);
    assert_eq!(
        (
            scenario.topics[0].name.as_str(),
            scenario.topics[0].partitions
        ),
        ("events", 2)
    );
    // The job lies beside the scenario: written relative to it.
    let text = fs::read_to_string(&written).unwrap();
    assert!(text.contains("file = \"job.py\""), "{text}");
    assert!(text.contains("CHECK"), "{text}");
    assert_eq!(tree(&ckpt), before, "the checkpoint was written to");

    // A second run keeps the file; --force replaces it.
    fs::write(&written, "# mine\n").unwrap();
    let out = run_in(dir.path(), &[ckpt.to_str().unwrap(), "--job", "job.py"]).code(3);
    assert!(
        out.stderr.contains("exists") && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read_to_string(&written).unwrap(), "# mine\n");
    run_in(
        dir.path(),
        &[
            ckpt.to_str().unwrap(),
            "--job",
            "job.py",
            "--force",
            "--target",
            "4.0.1",
        ],
    )
    .code(0);
    let targets = Scenario::load(&written).unwrap().targets;
    assert_eq!(
        targets.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        ["4.0.1"]
    );
}

/// The breaker pass: `--force` onto a hard link of a checkpoint file (or of the job) wrote the
/// scenario through the link into that file. The replacement is renamed over the output now.
#[test]
fn force_never_writes_through_a_hard_link() {
    let dir = workdir();
    let ckpt = dir.path().join("ck");
    let src = fixtures().join("3.5.3/kafka-agg");
    for e in walkdir::WalkDir::new(&src).into_iter().flatten() {
        let dest = ckpt.join(e.path().strip_prefix(&src).unwrap());
        if e.file_type().is_dir() {
            fs::create_dir_all(&dest).unwrap();
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
    let before = tree(&ckpt);
    fs::hard_link(ckpt.join("commits/0"), dir.path().join("hl.toml")).unwrap();
    fs::hard_link(dir.path().join("job.py"), dir.path().join("hj.toml")).unwrap();
    for out in ["hl.toml", "hj.toml"] {
        run_in(
            dir.path(),
            &[
                ckpt.to_str().unwrap(),
                "--job",
                "job.py",
                "-o",
                out,
                "--force",
            ],
        )
        .code(0);
        assert!(Scenario::load(&dir.path().join(out)).is_ok());
    }
    assert_eq!(
        tree(&ckpt),
        before,
        "the checkpoint was written through a link"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("job.py")).unwrap(),
        "print(1)\n"
    );
}

/// Issue 25 §2: `--force` onto a symbolic link to a file outside replaces the link and leaves
/// the file as it was; without `--force` a dangling link is an existing output, not a way to
/// create the file it names.
#[test]
fn force_replaces_a_symlink_and_never_writes_through_it() {
    let dir = workdir();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("ln.toml")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("created"), dir.path().join("dl.toml")).unwrap();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let ckpt = ckpt.to_str().unwrap();
    run_in(
        dir.path(),
        &[ckpt, "--job", "job.py", "-o", "ln.toml", "--force"],
    )
    .code(0);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    let written = dir.path().join("ln.toml");
    assert!(!fs::symlink_metadata(&written)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(Scenario::load(&written).is_ok());
    let out = run_in(dir.path(), &[ckpt, "--job", "job.py", "-o", "dl.toml"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(!outside.path().join("created").exists(), "{}", out.stderr);
}

#[test]
fn a_jar_job_needs_its_main_class() {
    let dir = workdir();
    fs::write(dir.path().join("app.jar"), "PK").unwrap();
    let ckpt = fixtures().join("4.0.1/kafka-agg");
    let ckpt = ckpt.to_str().unwrap();
    let out = run_in(dir.path(), &[ckpt, "--job", "app.jar", "-o", "-"]).code(3);
    assert!(out.stderr.contains("--main-class"), "{}", out.stderr);
    let out = run_in(
        dir.path(),
        &[
            ckpt,
            "--job",
            "app.jar",
            "--main-class",
            "com.example.Orders",
            "-o",
            "-",
        ],
    )
    .code(0);
    let scenario = Scenario::parse(&out.stdout, &dir.path().join("s.toml")).unwrap();
    assert!(
        matches!(&scenario.job, Job::Jar { main_class, .. } if main_class == "com.example.Orders"),
        "{:?}",
        scenario.job
    );
}

/// A jar that wrote a 3.x checkpoint, rehearsed on a 4.x target, gets the `[job.per_target]`
/// hint before the first run meets `NoSuchMethodError` (new-user pass, session 5); on its own
/// line it does not. Docker is pointed nowhere, so nothing is said of images.
#[test]
fn a_jar_crossing_major_lines_is_pointed_at_per_target() {
    let dir = workdir();
    fs::write(dir.path().join("app.jar"), "PK").unwrap();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let ckpt = ckpt.to_str().unwrap();
    let init = |target: &str| {
        let mut cmd = Command::cargo_bin("rehearse").expect("the rehearse binary is built");
        cmd.timeout(std::time::Duration::from_secs(60));
        cmd.current_dir(dir.path())
            .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
            .args([
                "init",
                ckpt,
                "--job",
                "app.jar",
                "--main-class",
                "com.example.Orders",
            ])
            .args(["--target", target, "-o", "-"]);
        let out = cmd.output().expect("rehearse runs");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = init("4.0.1");
    assert!(
        said.contains("[job.per_target.\"4.*\"]") && said.contains("4.0.1"),
        "{said}"
    );
    assert!(!said.contains("no local image"), "{said}");
    let said = init("3.5.3");
    assert!(!said.contains("per_target"), "{said}");
}

/// Inputs that pass init's own checks but not the scenario's load checks (an empty file named
/// `.jar`, a target outside the known Spark lines) are bad input, exit 3 — not "a bug", exit 70.
#[test]
fn inputs_the_scenario_load_refuses_are_bad_input_not_a_bug() {
    let dir = workdir();
    fs::write(dir.path().join("app.jar"), "").unwrap();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let ckpt = ckpt.to_str().unwrap();
    let out = run_in(
        dir.path(),
        &[
            ckpt,
            "--job",
            "app.jar",
            "--main-class",
            "com.x.Main",
            "-o",
            "-",
        ],
    )
    .code(3);
    assert!(out.stderr.contains("is not a jar"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("error: this is a bug"),
        "{}",
        out.stderr
    );
    let out = run_in(
        dir.path(),
        &[ckpt, "--job", "job.py", "--target", "9.9.9", "-o", "-"],
    )
    .code(3);
    assert!(out.stderr.contains("9.9.9"), "{}", out.stderr);
}

/// Each bad input: exit 3, one error naming the file with a hint, nothing written.
#[test]
fn bad_input_is_refused_before_anything_is_written() {
    let dir = workdir();
    fs::write(dir.path().join("job.txt"), "x").unwrap();
    let not_a_checkpoint = dir.path().join("empty");
    fs::create_dir(&not_a_checkpoint).unwrap();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let before = tree(&ckpt);
    let ckpt_s = ckpt.to_str().unwrap();
    let inside = ckpt.join("scenario.toml");
    let cases: &[(&[&str], &str)] = &[
        (&["empty", "--job", "job.py"], "is not a checkpoint"),
        (&["missing", "--job", "job.py"], "does not exist"),
        (
            &[ckpt_s, "--job", "nope.py"],
            "job file nope.py does not exist",
        ),
        (&[ckpt_s, "--job", "job.txt"], "neither a PySpark file"),
        (&[ckpt_s, "--job", "."], "not a regular file"),
        (
            &[ckpt_s, "--job", "job.py", "--target", "4.0"],
            "\"4.0\" is a Spark line, not a release: name one of its releases, 4.0.0 to",
        ),
        // New-user pass, session 7: an unknown patch was "the scenario does not load … a bug
        // in rehearse init"; it names the flag and the line's releases.
        (
            &[ckpt_s, "--job", "job.py", "--target", "4.0.9"],
            "--target: Spark 4.0.9 is not a release rehearse knows: the 4.0 line runs 4.0.0 to",
        ),
        (
            &[ckpt_s, "--job", "job.py", "-o", "no/such/dir/s.toml"],
            "cannot be used",
        ),
        (&[ckpt_s, "--job", "job.py", "-o", "."], "is a directory"),
        (
            &[ckpt_s, "--job", "job.py", "-o", inside.to_str().unwrap()],
            "inside the checkpoint",
        ),
        (
            &[ckpt_s, "--job", "job.py", "-o", "job.py", "--force"],
            "is the job file",
        ),
    ];
    for (args, needle) in cases {
        let out = run_in(dir.path(), args).code(3);
        assert!(
            out.stderr.contains(needle),
            "{args:?}: {needle:?} not in {}",
            out.stderr
        );
        assert!(out.stderr.contains("hint:"), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
    assert!(!dir.path().join("scenario.toml").exists());
    assert_eq!(
        fs::read_to_string(dir.path().join("job.py")).unwrap(),
        "print(1)\n"
    );
    assert_eq!(tree(&ckpt), before, "the checkpoint was written to");
}

/// What `init` writes for the Kafka fixture of 3.5.3 (paths redacted).
#[test]
fn the_scenario_of_a_kafka_checkpoint() {
    let dir = workdir();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let out = run_in(
        dir.path(),
        &[ckpt.to_str().unwrap(), "--job", "job.py", "--output", "-"],
    )
    .code(0);
    let job = fs::canonicalize(dir.path().join("job.py")).unwrap();
    let text = out
        .stdout
        .replace(&ckpt.display().to_string(), "[CHECKPOINT]")
        .replace(&job.display().to_string(), "[JOB]");
    let uuid =
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    insta::assert_snapshot!(uuid.replace_all(&text, "[UUID]"));
}

/// `file://` is a local path: the scenario names the directory.
#[test]
fn a_file_url_is_a_local_checkpoint() {
    let dir = workdir();
    let ckpt = fixtures().join("3.5.3/kafka-agg");
    let url = format!("file://{}", ckpt.display());
    let out = run_in(dir.path(), &[&url, "--job", "job.py"]).code(0);
    let scenario = Scenario::load(&dir.path().join("scenario.toml")).unwrap();
    assert_eq!(
        scenario.checkpoint,
        CheckpointSource::Path(fs::canonicalize(&ckpt).unwrap()),
        "{}",
        out.stderr
    );
    assert_eq!(scenario.name, "kafka-agg");
}

/// Issue 11 §4 by URL, against the real test servers (MinIO, Azurite, fake-gcs-server, HDFS;
/// see `remote/mod.rs`): the scenario's `[checkpoint] path` is the URL, its topics those of the
/// local inspection, the objects unchanged; an unreachable endpoint is exit 4, nothing written.
#[tokio::test]
async fn init_by_url_names_the_url_and_reads_only() {
    use super::remote::{all_servers, fixture, rehearse, snapshot};
    let Some(s) = super::store::servers("init_by_url") else {
        return;
    };
    for server in all_servers(&s) {
        let cwd = workdir();
        let url = server
            .upload_dir(
                &format!("{}/kafka-agg", super::store::unique("init")),
                &fixture("kafka-agg"),
            )
            .await;
        let before = snapshot(&url, &server.store_env()).await;
        let (code, _, err) = rehearse(&["init", &url, "--job", "job.py"], &server.env, cwd.path());
        assert_eq!(code, 0, "{}: {url}: {err}", server.name);
        let scenario = Scenario::load(&cwd.path().join("scenario.toml")).unwrap();
        match &scenario.checkpoint {
            CheckpointSource::Remote(location) => assert_eq!(location.to_string(), url),
            other => panic!("{}: {other:?}", server.name),
        }
        assert_eq!(scenario.name, "kafka-agg");
        let local = checkpoint::inspect(&fixture("kafka-agg")).unwrap();
        let topics: BTreeMap<String, u32> = scenario
            .topics
            .iter()
            .map(|t| (t.name.clone(), t.partitions))
            .collect();
        assert_eq!(topics, local.kafka_partition_counts(), "{}", server.name);
        assert_eq!(
            snapshot(&url, &server.store_env()).await,
            before,
            "{}: the objects are unchanged",
            server.name
        );
    }
    // An endpoint nobody listens on: environment (exit 4), the URL named, nothing written.
    let cwd = workdir();
    let env = vec![
        (
            "AWS_ENDPOINT_URL".to_string(),
            "http://127.0.0.1:9".to_string(),
        ),
        ("AWS_ALLOW_HTTP".to_string(), "true".to_string()),
        ("AWS_ACCESS_KEY_ID".to_string(), "k".to_string()),
        ("AWS_SECRET_ACCESS_KEY".to_string(), "s".to_string()),
        ("AWS_REGION".to_string(), "us-east-1".to_string()),
    ];
    let url = "s3://nobody-home/orders";
    let (code, out, err) = rehearse(&["init", url, "--job", "job.py"], &env, cwd.path());
    assert_eq!(code, 4, "{err}");
    assert!(out.is_empty() && err.contains(url), "{err}");
    assert!(!cwd.path().join("scenario.toml").exists());
}
