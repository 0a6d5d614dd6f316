//! Issue 15: inputs that passed load and failed minutes later — after image builds, a PyPI
//! download or containers — or were silently changed. Each is refused by `Scenario::parse`
//! with the key and the fix.
use super::*;

/// A scenario directory: `job.py`, `job.jar`, `job.txt`, a checkpoint `ck/` (with
/// `offsets/`), an empty directory `empty/`, a plain file `plain`.
fn dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["job.py", "job.txt", "plain"] {
        std::fs::write(dir.path().join(f), "x").unwrap();
    }
    std::fs::write(dir.path().join("job.jar"), "PK\x03\x04").unwrap();
    std::fs::create_dir_all(dir.path().join("ck/offsets")).unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    dir
}

/// A scenario with `extra` at top level, the checkpoint `ck`, `job.py` and topic `events`.
fn scenario(extra: &str) -> String {
    format!(
        "targets = [\"4.0.1\"]\n{extra}\n[checkpoint]\npath = \"ck\"\n[job]\nfile = \"job.py\"\nargs = [\"{{topic.events}}\"]\n[[topics]]\nname = \"events\"\n"
    )
}

fn refused(text: &str, needles: &[&str]) {
    let dir = dir();
    let path = dir.path().join("s.toml");
    let err = match Scenario::parse(text, &path) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    };
    for n in needles {
        assert!(err.contains(n), "{n:?} not in {err:?} for\n{text}");
    }
    assert!(err.contains("s.toml"), "the file is not named: {err}");
}

#[test]
fn placeholder_typos_in_any_job_argument_are_refused() {
    let s = scenario("").replace("{topic.events}", "{outptu}");
    refused(&s, &["[job] args", "{outptu}", "did you mean {output}"]);
    let s = scenario("").replace("args = [", "restart_args = [\"{checkpint}\"]\nargs = [");
    refused(&s, &["{checkpint}", "did you mean {checkpoint}"]);
    let s = scenario("").replace("{topic.events}", "{bootstrap_server}");
    refused(&s, &["did you mean {bootstrap_servers}"]);
}

/// Breaker pass: placeholders written almost right passed load and reached the job as
/// literal text (`{{checkpoint}}` as `{/sandbox/checkpoint}`). Each names file, key, fix.
#[test]
fn placeholders_with_spaces_doubled_braces_or_no_close_are_refused() {
    for (bad, key, fix) in [
        (
            "{ checkpoint }",
            "[job] args",
            "write {checkpoint}, without spaces",
        ),
        ("{{checkpoint}}", "[job] args", "doubled braces"),
        (
            "{checkpoint",
            "[job] args",
            "never closes it: write {checkpoint}",
        ),
    ] {
        refused(&scenario("").replace("{topic.events}", bad), &[key, fix]);
        let s = scenario("").replace("args = [", &format!("restart_args = [\"{bad}\"]\nargs = ["));
        refused(&s, &["[job] restart_args", fix]);
    }
}

#[test]
fn timeouts_of_zero_or_beyond_a_day_are_refused() {
    refused(
        &scenario("timeout_seconds = 0"),
        &["timeout_seconds = 0", "e.g. 300"],
    );
    refused(
        &scenario("timeout_seconds = 18446744073709551615"),
        &["timeout_seconds = 18446744073709551615", "limit of 86400"],
    );
    refused(&scenario("timeout_seconds = 86401"), &["limit"]);
    let dir = dir();
    Scenario::parse(
        &scenario("timeout_seconds = 86400"),
        &dir.path().join("s.toml"),
    )
    .unwrap();
}

#[test]
fn a_checkpoint_path_that_holds_no_checkpoint_is_refused() {
    refused(
        &scenario("").replace("path = \"ck\"", "path = \"/\""),
        &[
            "checkpoint.path /",
            "holds no checkpoint",
            "checkpointLocation",
        ],
    );
    refused(
        &scenario("").replace("path = \"ck\"", "path = \"empty\""),
        &["empty directory"],
    );
    refused(
        &scenario("").replace("path = \"ck\"", "path = \"plain\""),
        &["not a directory"],
    );
}

#[test]
fn versions_rehearse_cannot_run_are_refused() {
    for (v, needle) in [
        ("03.5.3", "write it 3.5.3"),
        ("4.9.9", "not a release rehearse knows"),
        ("9.9.9", "not a release rehearse knows"),
        ("2.4.8", "not supported"),
    ] {
        refused(
            &scenario("").replace("\"4.0.1\"", &format!("{v:?}")),
            &["targets", needle],
        );
    }
    refused(
        &scenario("").replace("\"4.0.1\"]", "\"4.0.1\", \"4.0.1\"]"),
        &["targets names \"4.0.1\" twice"],
    );
    let generate = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"9.9.9\"\nbatches = 1\n[job]\nfile = \"job.py\"\n";
    refused(generate, &["checkpoint.generate.spark", "9.9.9"]);
}

#[test]
fn kafka_version_2_8_names_the_key_the_file_and_the_oldest_broker() {
    refused(
        &scenario("kafka_version = \"2.8.0\""),
        &["kafka_version", "Kafka 2.8.0", "3.x"],
    );
}

#[test]
fn an_expectation_for_a_version_that_is_not_a_target_is_refused() {
    refused(
        &format!("{}[expect]\n\"3.5.3\" = \"resumed\"\n", scenario("")),
        &["expect.\"3.5.3\"", "not one of `targets`"],
    );
}

#[test]
fn duplicate_topics_and_zero_counts_are_refused_not_rounded_up() {
    refused(
        &format!("{}[[topics]]\nname = \"events\"\n", scenario("")),
        &["\"events\" twice"],
    );
    refused(
        &scenario("").replace("name = \"events\"", "name = \"events\"\npartitions = 0"),
        &["partitions = 0"],
    );
    let generate = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\nrecords_per_batch = 0\n[job]\nfile = \"job.py\"\n";
    refused(generate, &["records_per_batch = 0"]);
}

#[test]
fn a_restart_that_never_names_the_checkpoint_is_found() {
    let job = |text: &str| -> JobSpec {
        let file: ScenarioFile = toml::from_str(&format!(
            "targets = [\"4.0.1\"]\n[checkpoint]\npath = \"c\"\n{text}"
        ))
        .unwrap();
        file.job
    };
    let named = job("[job]\nfile = \"j.py\"\nargs = [\"--cp={checkpoint}\"]\n");
    assert!(checkpoint_unnamed(&named).is_empty());
    let in_restart = job("[job]\nfile = \"j.py\"\nrestart_args = [\"{checkpoint}\"]\n");
    assert!(checkpoint_unnamed(&in_restart).is_empty());
    let never = job("[job]\nfile = \"j.py\"\nargs = [\"--out\", \"{output}\"]\n");
    assert_eq!(
        checkpoint_unnamed(&never),
        ["[job] args (with restart_args)"]
    );
    // An entry replacing args without it; one that only changes the jar inherits the base.
    let entry = job("[job]\nfile = \"j.py\"\nargs = [\"{checkpoint}\"]\n\
         [job.per_target.\"4.*\"]\nargs = [\"--x\"]\n\
         [job.per_target.\"4.0.1\"]\nfile = \"k.py\"\n");
    assert_eq!(
        checkpoint_unnamed(&entry),
        ["[job.per_target.\"4.*\"] args (with restart_args)"]
    );
}

#[test]
fn a_job_that_is_neither_py_nor_jar_is_refused() {
    refused(
        &scenario("").replace("job.py", "job.txt"),
        &["[job] file", "end in .py"],
    );
    refused(
        &scenario("").replace("file = \"job.py\"", "jar = \"job.py\"\nmain_class = \"A\""),
        &["[job] jar", "end in .jar"],
    );
    let dir = dir();
    let jar = scenario("").replace("file = \"job.py\"", "jar = \"job.jar\"\nmain_class = \"A\"");
    Scenario::parse(&jar, &dir.path().join("s.toml")).unwrap();
}

#[test]
fn a_fifo_as_scenario_sample_file_or_job_is_refused_without_blocking() {
    let dir = dir();
    let fifo = dir.path().join("fifo.toml");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let e = Scenario::load(&fifo).unwrap_err().to_string();
    assert!(e.contains("FIFO") && e.contains("fifo.toml"), "{e}");
    let s = scenario("").replace(
        "name = \"events\"",
        "name = \"events\"\nsample_file = \"fifo.toml\"",
    );
    let e = Scenario::parse(&s, &dir.path().join("s.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("sample_file") && e.contains("FIFO"), "{e}");
    let e = Scenario::load(Path::new("/dev/zero"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("character device"), "{e}");
}

#[test]
fn a_topic_the_checkpoint_does_not_read_is_refused() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/checkpoints/3.5.3/kafka-agg");
    let inspection = rehearse_checkpoint::inspect(&fixture).unwrap();
    let dir = dir();
    let path = dir.path().join("s.toml");
    let s = Scenario::parse(&scenario(""), &path).unwrap();
    s.check_topics_named(&inspection).unwrap();
    let typo = scenario("").replace("events", "evnets");
    let e = Scenario::parse(&typo, &path)
        .unwrap()
        .check_topics_named(&inspection)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"evnets\"") && e.contains("names events") && e.contains("s.toml"),
        "{e}"
    );
    // A checkpoint that names no Kafka topic (a rate source) checks nothing.
    let rate = rehearse_checkpoint::inspect(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/checkpoints/3.5.3/rate-agg"),
    )
    .unwrap();
    Scenario::parse(&typo, &path)
        .unwrap()
        .check_topics_named(&rate)
        .unwrap();
}

#[test]
fn a_checkpoint_holding_a_fifo_is_refused_for_a_rehearsal() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/checkpoints/3.5.3/kafka-agg");
    let copy = tempfile::tempdir().unwrap();
    for e in walkdir::WalkDir::new(&fixture) {
        let e = e.unwrap();
        let to = copy.path().join(e.path().strip_prefix(&fixture).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    let dir = dir();
    let s = Scenario::parse(&scenario(""), &dir.path().join("s.toml")).unwrap();
    s.check_regular_files(&rehearse_checkpoint::inspect(copy.path()).unwrap())
        .unwrap();
    let fifo = copy.path().join("offsets/stray");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let e = s
        .check_regular_files(&rehearse_checkpoint::inspect(copy.path()).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("offsets/stray") && e.contains("FIFO"), "{e}");
}

#[test]
fn a_utf16_scenario_gets_the_save_as_utf8_hint() {
    let dir = dir();
    let path = dir.path().join("s.toml");
    let bytes: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(scenario("").encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(&path, bytes).unwrap();
    let e = Scenario::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("UTF-16") && e.contains("save it as UTF-8"),
        "{e}"
    );
}

/// Issue 25 §6: `spark.submit.deployMode = "cluster"` passed load; the driver then ran where
/// rehearse could not watch it.
#[test]
fn a_cluster_mode_driver_is_refused_at_load() {
    let s = scenario("").replace(
        "[[topics]]",
        "[job.conf]\n\"spark.submit.deployMode\" = \"cluster\"\n[[topics]]",
    );
    refused(
        &s,
        &[
            "[job.conf]",
            "spark.submit.deployMode",
            "client mode",
            "hint",
        ],
    );
    let ok = scenario("").replace(
        "[[topics]]",
        "[job.conf]\n\"spark.submit.deployMode\" = \"client\"\n[[topics]]",
    );
    let dir = dir();
    Scenario::parse(&ok, &dir.path().join("s.toml")).unwrap();
}

/// Issue 25 §7: `spark.master` in `[job.conf]` (or `--conf`) was dropped without a word:
/// spark-submit's `--master`, which rehearse always gives, wins over it.
#[test]
fn a_master_in_the_conf_is_refused_at_load() {
    let s = scenario("").replace(
        "[[topics]]",
        "[job.conf]\n\"spark.master\" = \"yarn\"\n[[topics]]",
    );
    refused(
        &s,
        &[
            "[job.conf]",
            "spark.master = \"yarn\"",
            "sets the master",
            "--master URL",
        ],
    );
    assert!(check_conf("spark.master", "local[4]").is_err());
    assert!(check_conf("spark.master.rest.enabled", "false").is_ok());
}

/// Issue 25 §6: an empty scenario name passed load.
#[test]
fn an_empty_or_unprintable_name_is_refused_at_load() {
    for name in ["", "   ", "a\\u0007b"] {
        let s = scenario(&format!("name = \"{name}\""));
        refused(&s, &["`name`", "hint", "orders-upgrade"]);
    }
}
