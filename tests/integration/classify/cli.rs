//! `rehearse classify` as a user runs it: verdicts and exit codes, bad input (files that are not
//! driver logs), text and JSON output, a closed stderr.

use super::*;

#[test]
fn cli_prints_verdict_and_exits_with_its_code() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("restarts/q-4.0.1-key-added");
    let out = rehearse()
        .arg("classify")
        .arg(dir.join("driver.log"))
        .arg("--event-log")
        .arg(dir.join("eventlog-excerpt.jsonl"))
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(exit::Outcome::Verdict(Verdict::StateStoreError).code())
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["verdict"], "state-store-error");
    assert_eq!(v["rule"], "state-schema-incompatible-4x");
    assert!(v["evidence"].as_array().is_some_and(|e| !e.is_empty()));

    let text = rehearse()
        .arg("classify")
        .arg(dir.join("driver.log"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains("state-store-error"), "{stdout}");
    assert!(
        stdout.contains("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE"),
        "{stdout}"
    );
}

#[test]
fn cli_resumed_with_checkpoint_exits_zero() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("restarts/x1-agg-3.5.3-to-4.0.1");
    rehearse()
        .arg("classify")
        .arg(dir.join("driver.log"))
        .arg("--event-log")
        .arg(dir.join("eventlog-excerpt.jsonl"))
        .arg("--checkpoint")
        .arg(corpus.join("checkpoints/3.5.3-aggregation"))
        .assert()
        .code(0)
        .stdout(predicates::str::contains("resumed"));
}

#[test]
fn cli_bad_input_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    rehearse()
        .arg("classify")
        .arg(tmp.path().join("missing.log"))
        .assert()
        .code(exit::Outcome::BadInput.code())
        .stderr(predicates::str::contains("missing.log"))
        .stderr(predicates::str::contains("hint: check the path"));
    rehearse()
        .arg("classify")
        .arg(tmp.path())
        .assert()
        .code(exit::Outcome::BadInput.code())
        .stderr(predicates::str::contains("directory"));
    // Not UTF-8: read lossily, still classified.
    let log = tmp.path().join("latin1.log");
    std::fs::write(
        &log,
        b"26/11/30 13:16:10.800 ERROR MicroBatchExecution: Query q [id = a, runId = b] terminated with error\njava.lang.IllegalStateException: Failed to read log file /c/offsets/3. \xe9 Incomplete log file\n",
    )
    .unwrap();
    rehearse()
        .arg("classify")
        .arg(&log)
        .assert()
        .code(exit::Outcome::Verdict(Verdict::OffsetLogError).code());
}

#[test]
fn cli_text_output_strips_terminal_escapes_and_json_keeps_the_line_without_colour() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("coloured.log");
    // A failure line with colour, a window-title (OSC) sequence, a bell and an 8-bit CSI: the
    // evidence is these very lines. (A carriage return ends a line wherever it stands, see
    // `every_restart_case_with_carriage_returns_gets_its_plain_verdict`: the output never holds
    // one.)
    std::fs::write(
        &log,
        "26/11/30 13:16:10.800 ERROR MicroBatchExecution: Query q [id = a, runId = b] terminated with error\n\
         java.lang.IllegalStateException: \x1b[31mFailed to read log file /c/offsets/3.\x1b[0m\x1b]0;owned\x07\u{9b}2J Incomplete log file\r\n",
    )
    .unwrap();
    let out = rehearse().arg("classify").arg(&log).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(exit::Outcome::Verdict(Verdict::OffsetLogError).code())
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Failed to read log file"), "{text}");
    for bad in ['\x1b', '\x07', '\r', '\u{9b}'] {
        assert!(!text.contains(bad), "{bad:?} in text output: {text:?}");
    }
    let out = rehearse()
        .arg("classify")
        .arg(&log)
        .arg("--json")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert!(
        v["evidence"].as_array().unwrap().iter().any(|e| e
            .as_str()
            .is_some_and(|e| e.contains("IllegalStateException: Failed"))),
        "JSON evidence is the line read without its colour escapes: {v}"
    );
}

#[test]
fn cli_a_file_that_is_not_a_driver_log_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let text = tmp.path().join("notes.txt");
    std::fs::write(
        &text,
        "Lorem ipsum dolor sit amet,\nconsectetur adipiscing elit.\n",
    )
    .unwrap();
    for (file, what) in [(&empty, "it is empty"), (&text, "none of its 2 line(s)")] {
        let out = rehearse().arg("classify").arg(file).output().unwrap();
        assert_eq!(out.status.code(), Some(exit::Outcome::BadInput.code()));
        let stderr = String::from_utf8_lossy(&out.stderr);
        for part in [
            file.to_str().unwrap(),
            "is not a Spark driver log",
            what,
            "spark-submit",
            "stderr",
            "hint:",
        ] {
            assert!(stderr.contains(part), "{part} not in {stderr}");
        }
        assert!(out.stdout.is_empty());
    }
}

/// A job's own source file mentions Spark and Python on every other line, but shows no start,
/// batch or failure: bad input (exit 3), not `no-outcome` (exit 18) — the new-user pass ran
/// `rehearse classify windowed_count.py`.
#[test]
fn cli_a_job_source_file_is_not_a_driver_log() {
    let job = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/jobs/windowed_count.py"
    );
    let out = rehearse().arg("classify").arg(job).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(exit::Outcome::BadInput.code()),
        "{stderr}"
    );
    assert!(stderr.contains("is not a Spark driver log"), "{stderr}");
}

/// A file of random bytes is not a driver log, even where the noise spells a marker word by
/// chance (`jvm` turns up about once in 2 MB of random bytes): before, such a file got
/// `no-outcome` (exit 18) instead of exit 3.
#[test]
fn cli_random_bytes_are_not_a_driver_log_even_when_they_spell_a_marker() {
    let tmp = tempfile::tempdir().unwrap();
    let noise = tmp.path().join("noise.bin");
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes: Vec<u8> = (0..1 << 20)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect();
    for at in [1000, 300_000, 700_000] {
        bytes[at..at + 5].copy_from_slice(b" JvM ");
    }
    std::fs::write(&noise, &bytes).unwrap();
    let out = rehearse().arg("classify").arg(&noise).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(exit::Outcome::BadInput.code()),
        "{stderr}"
    );
    assert!(stderr.contains("is not a Spark driver log"), "{stderr}");
}

#[test]
fn cli_short_real_logs_of_a_job_that_never_started_keep_environment_error() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, log) in [
        (
            "main-class",
            "Error: Could not find or load main class org.apache.spark.deploy.SparkSubmit\n",
        ),
        (
            "no-java",
            "/opt/spark/bin/spark-class: line 71: java: command not found\n",
        ),
        ("no-java-env", "/usr/bin/env: java: No such file or directory\n"),
        (
            "python",
            "Traceback (most recent call last):\n  File \"/job.py\", line 1, in <module>\n    import foo\nModuleNotFoundError: No module named 'foo'\n",
        ),
        (
            "jvm",
            "Error occurred during initialization of VM\nInvalid maximum heap size: -Xmx0g\n",
        ),
    ] {
        let file = tmp.path().join(format!("{name}.log"));
        std::fs::write(&file, log).unwrap();
        let out = rehearse().arg("classify").arg(&file).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(exit::Outcome::Verdict(Verdict::EnvironmentError).code()),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The file source's own log gets a remedy naming `sources/<n>/`, not `offsets/N`.
#[test]
fn a_gap_in_the_file_source_log_names_the_sources_directory() {
    let log = "java.lang.IllegalStateException: batch 4 doesn't exist\n\tat org.apache.spark.sql.execution.streaming.FileStreamSourceLog.get(FileStreamSourceLog.scala:120)\n\tat org.apache.spark.sql.execution.streaming.FileStreamSource.getBatch(FileStreamSource.scala:254)";
    let c = classify(log.lines(), std::iter::empty(), &TrialContext::default());
    assert_eq!(c.rule, "file-source-log-gap", "{c:#?}");
    assert!(c.remedy.contains("sources/<n>/"), "{}", c.remedy);
    // The query's own offset log gap keeps its remedy (public case 01's text).
    let log = "java.lang.IllegalStateException: batch 3 doesn't exist\n\tat org.apache.spark.sql.execution.streaming.MicroBatchExecution.populateStartOffsets(MicroBatchExecution.scala:256)";
    let c = classify(log.lines(), std::iter::empty(), &TrialContext::default());
    assert_eq!(c.rule, "offset-log-gap", "{c:#?}");
    assert!(c.remedy.contains("offsets/N"), "{}", c.remedy);
}

/// A closed stderr (`rehearse … 2>&1 | head`) is not a bug: the trace, the error message and
/// the progress lines are dropped and the command exits with its own code. It exited 70.
#[test]
fn a_closed_stderr_keeps_the_exit_code() {
    use std::os::fd::FromRawFd;
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/logs/3.5.3/resumed.log");
    type Case<'a> = (&'a [&'a str], Option<(&'a str, &'a str)>);
    let cases: [Case; 3] = [
        (&["--verbose", "classify"], None),
        (&["classify"], Some(("RUST_LOG", "[[["))),
        (&["inspect", "/nonexistent/checkpoint"], None),
    ];
    for (args, env) in cases {
        let bin = assert_cmd::cargo::cargo_bin("rehearse");
        let mut plain = std::process::Command::new(&bin);
        plain.args(args);
        if args[args.len() - 1] == "classify" {
            plain.arg(&log);
        }
        let mut closed = std::process::Command::new(&bin);
        closed.args(args);
        if args[args.len() - 1] == "classify" {
            closed.arg(&log);
        }
        if let Some((k, v)) = env {
            plain.env(k, v);
            closed.env(k, v);
        }
        let want = plain
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .code();
        let mut fds = [0; 2];
        // SAFETY: a fresh pipe; its read end is closed at once, its write end handed over once.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        unsafe { libc::close(fds[0]) };
        let stderr = unsafe { std::process::Stdio::from_raw_fd(fds[1]) };
        let got = closed
            .stdout(std::process::Stdio::null())
            .stderr(stderr)
            .status()
            .unwrap()
            .code();
        assert_ne!(want, Some(70), "{args:?}");
        assert_eq!(got, want, "{args:?} with a closed stderr");
    }
}
