//! The planted-secret grep (issue 25 §3, §9): driver-log lines holding each kind of secret
//! rehearse masks (tests/fixtures/secrets/planted.tsv: JAAS passwords, URL userinfo with `/`,
//! `?`, `#` and `@` in it, secret-bearing `--conf` keys, JSON settings, Azure SAS `sig=` and
//! `AccountKey=`, S3 signatures and tokens) go through every output that can quote them —
//! `rehearse classify` text and `--json`, and each run-report format — and none may hold the
//! secret. No container is started.

use assert_cmd::Command;
use rehearse::exit;
use rehearse::report::{Format, TerminalStyle};
use rehearse::verdict::Verdict;

/// (secret, line holding it), from the fixture.
fn planted() -> Vec<(String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/secrets/planted.tsv"
    );
    let text = std::fs::read_to_string(path).expect("tests/fixtures/secrets/planted.tsv");
    let rows: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (secret, line) = l.split_once('\t').expect("SECRET<TAB>LINE");
            assert!(line.contains(secret), "{l}");
            (secret.to_owned(), line.to_owned())
        })
        .collect();
    assert!(rows.len() >= 10, "{path}: the fixture lost its rows");
    rows
}

/// A driver log whose failure's exception message quotes `line`: its header line is evidence
/// of the verdict (offset-log-error), in text and JSON.
fn driver_log(line: &str) -> String {
    format!(
        "26/11/30 13:16:10.800 ERROR MicroBatchExecution: Query q [id = a, runId = b] terminated with error\n\
         java.lang.IllegalStateException: Failed to read log file /c/offsets/3. Incomplete log file; reading with {line}\n\
         \tat org.apache.spark.sql.execution.streaming.HDFSMetadataLog.get(HDFSMetadataLog.scala:250)\n"
    )
}

#[test]
fn classify_text_and_json_quote_no_planted_secret() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, (secret, line)) in planted().iter().enumerate() {
        let log = tmp.path().join(format!("planted-{i}.log"));
        std::fs::write(&log, driver_log(line)).unwrap();
        for json in [false, true] {
            let mut cmd = Command::cargo_bin("rehearse").expect("binary built");
            cmd.arg("classify").arg(&log);
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(exit::Outcome::Verdict(Verdict::OffsetLogError).code()),
                "{line}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            // The line is quoted (so the grep below can fail), masked.
            assert!(
                stdout.contains("reading with") && stdout.contains("***"),
                "the planted line is not in the evidence: {stdout}"
            );
            assert!(
                !stdout.contains(secret.as_str()),
                "{secret} in stdout: {stdout}"
            );
            assert!(
                !stderr.contains(secret.as_str()),
                "{secret} in stderr: {stderr}"
            );
            if json {
                let v: serde_json::Value =
                    serde_json::from_slice(&out.stdout).expect("masked JSON is still JSON");
                assert!(
                    v["evidence"].as_array().is_some_and(|e| !e.is_empty()),
                    "{v}"
                );
            }
        }
    }
}

#[test]
fn every_run_report_format_quotes_no_planted_secret() {
    use super::report::{render, report, trial};
    let planted = planted();
    let mut failed = trial("4.0.1", Verdict::StateStoreError, None);
    failed.evidence = planted.iter().map(|(_, line)| line.clone()).collect();
    failed.notes = planted
        .iter()
        .map(|(_, line)| format!("note: {line}"))
        .collect();
    let report = report(vec![failed]);
    for format in [
        Format::Json,
        Format::Junit,
        Format::Markdown,
        Format::Terminal(TerminalStyle { color: false }),
        Format::Terminal(TerminalStyle { color: true }),
    ] {
        let out = render(format, &report);
        assert!(out.contains("***"), "{format:?} quotes no evidence: {out}");
        for (secret, _) in &planted {
            assert!(
                !out.contains(secret.as_str()),
                "{format:?}: {secret} in {out}"
            );
        }
        if format == Format::Json {
            let v: serde_json::Value = serde_json::from_str(&out).expect("masked JSON is JSON");
            assert_eq!(
                v["trials"][0]["evidence"].as_array().map(Vec::len),
                Some(planted.len()),
                "{v}"
            );
        }
    }
}
