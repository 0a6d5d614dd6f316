//! Real logs as tooling rewrites them: carriage returns, ANSI colour, UTF-16, log4j2's JSON
//! layouts, a log readable only in part.

use super::*;

/// Issue 14: a driver log whose lines end in a lone `\r` (classic Mac line endings, or a tool
/// that rewrote them) was one line to the reader, cut at 1 MiB: `no-outcome` for a log that
/// resumed. The class: `\r` ends a line wherever it stands — CR-only logs, and Spark's console
/// progress bar (ConsoleProgressBar redraws `[Stage N:> (a + b) / c]` with `\r`) running into
/// the log lines of a CRLF log — in UTF-8 and UTF-16. Each case of the corpus, written each
/// way, gets its plain verdict and rule.
#[test]
fn every_restart_case_with_carriage_returns_gets_its_plain_verdict() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for case in manifest(&corpus.join("restarts/MANIFEST.tsv")).keys() {
        let plain = corpus.join("restarts").join(case).join("driver.log");
        let text = String::from_utf8_lossy(&std::fs::read(&plain).unwrap()).into_owned();
        let cr_only: String = text.lines().map(|l| format!("{l}\r")).collect();
        let progress: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i % 4 == 0 {
                    format!("\r[Stage {i}:>          (0 + 2) / 2]\r                    \r{l}\r\n")
                } else {
                    format!("{l}\r\n")
                }
            })
            .collect();
        // The same CR-only text in UTF-16LE with a BOM (a PowerShell redirect), whose reader
        // is a separate one.
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(cr_only.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let expected = verdict_and_rule(&plain);
        for (kind, body) in [
            ("cr-only", cr_only.into_bytes()),
            ("progress-bar", progress.into_bytes()),
            ("utf-16-cr-only", utf16),
        ] {
            let log = tmp.path().join(format!("{case}.{kind}.log"));
            std::fs::write(&log, body).unwrap();
            assert_eq!(verdict_and_rule(&log), expected, "{case}, {kind} vs plain");
        }
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} cases compared");
}

/// CR-only lines filling more than the reader's 1 MiB chunk: the line cut at the chunk's end
/// is carried over, neither skipped nor dropped. The filler puts Spark's "Resuming at batch"
/// line across the first chunk boundary (1 MiB into the file), and the resume after it must
/// still be read.
#[test]
fn a_long_cr_only_log_is_read_to_its_end() {
    let Some(corpus) = corpus() else { return };
    let plain = corpus.join("restarts/x1-agg-3.5.3-to-3.5.3-control/driver.log");
    let text = String::from_utf8_lossy(&std::fs::read(&plain).unwrap()).into_owned();
    let resume = text
        .find("Resuming at batch")
        .expect("the control case resumes");
    let (head, tail) = text.split_at(text[..resume].rfind('\n').map_or(0, |i| i + 1));
    let mut body: String = head.lines().map(|l| format!("{l}\r")).collect();
    // Filler up to 40 bytes before the 1 MiB boundary, in lines of at most 100 bytes.
    let boundary = 1 << 20;
    let filler =
        "26/11/30 13:18:40.000 INFO BlockManagerInfo: Removed broadcast_0_piece0 in memory";
    while body.len() + 100 < boundary - 40 {
        body.push_str(filler);
        body.push('\r');
    }
    let pad = boundary - 40 - body.len();
    body.push_str(&format!("{}\r", "x".repeat(pad - 1)));
    assert_eq!(body.len(), boundary - 40);
    body.extend(tail.lines().map(|l| format!("{l}\r")));
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("long.log");
    std::fs::write(&log, body).unwrap();
    assert_eq!(verdict_and_rule(&log), verdict_and_rule(&plain));
}

/// log4j2's `%highlight{%m%n%throwable}` colours every line of a failure, stack frames
/// included: each case of the corpus, coloured line by line, gets its plain verdict and rule
/// (before, the frame rules never matched a coloured frame: `c-3.5.3-truncate-commit-partial`
/// was unclassified-failure instead of offset-log-error).
#[test]
fn every_restart_case_coloured_line_by_line_gets_its_plain_verdict() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for case in manifest(&corpus.join("restarts/MANIFEST.tsv")).keys() {
        let plain = corpus.join("restarts").join(case).join("driver.log");
        let text = String::from_utf8_lossy(&std::fs::read(&plain).unwrap()).into_owned();
        let coloured: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let colour = ["\x1b[1;31m", "\x1b[38;5;196m", "\x1b[32m"][i % 3];
                format!("{colour}{l}\x1b[0m\n")
            })
            .collect();
        let log = tmp.path().join(format!("{case}.log"));
        std::fs::write(&log, coloured).unwrap();
        let verdict_of = |path: &Path| -> (String, String) {
            let out = rehearse()
                .arg("classify")
                .arg(path)
                .arg("--json")
                .output()
                .unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{case}: no JSON on stdout ({e})"));
            (v["verdict"].to_string(), v["rule"].to_string())
        };
        assert_eq!(
            verdict_of(&log),
            verdict_of(&plain),
            "{case}, coloured vs plain"
        );
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} cases compared");
}

/// Every real restart log read as a user's tooling may have written it — level names in ANSI
/// colour, UTF-16 from a PowerShell redirect (with or without a BOM, either byte order) —
/// gets the verdict of the plain log.
#[test]
fn coloured_and_utf16_logs_get_the_verdict_of_the_plain_log() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cases = manifest(&corpus.join("restarts/MANIFEST.tsv"));
    let level = regex::Regex::new(r"\b(INFO|WARN|ERROR)\b").unwrap();
    for case in cases.keys() {
        let plain = corpus.join("restarts").join(case).join("driver.log");
        let text = String::from_utf8_lossy(&std::fs::read(&plain).unwrap()).into_owned();
        let want = rehearse().arg("classify").arg(&plain).output().unwrap();
        let coloured = level.replace_all(&text, "\x1b[1;31m$1\x1b[0m").into_owned();
        let utf16le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let variants: Vec<(&str, Vec<u8>)> = vec![
            ("ansi", coloured.into_bytes()),
            ("utf16le-bom", [&[0xFF, 0xFE][..], &utf16le].concat()),
            ("utf16le", utf16le.clone()),
            ("utf16be-bom", [&[0xFE, 0xFF][..], &utf16be].concat()),
        ];
        for (name, bytes) in variants {
            let file = tmp.path().join(format!("{case}-{name}.log"));
            std::fs::write(&file, bytes).unwrap();
            let got = rehearse().arg("classify").arg(&file).output().unwrap();
            assert_eq!(got.status.code(), want.status.code(), "{case} {name}");
            let first = |o: &[u8]| {
                String::from_utf8_lossy(o)
                    .lines()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            assert_eq!(first(&got.stdout), first(&want.stdout), "{case} {name}");
        }
    }
}

/// A real resumed log and real failures re-laid as log4j2's JSON layouts (JsonLayout with
/// `compact`/`eventEol`, and JsonTemplateLayout's ECS template) keep their verdict.
#[test]
fn log4j2_json_layouts_get_the_verdict_of_the_pattern_layout() {
    let Some(corpus) = corpus() else { return };
    let header = regex::Regex::new(
        r"^(\d\d/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (INFO|WARN|ERROR|DEBUG) (\S+?): (.*)$",
    )
    .unwrap();
    for case in [
        "x1-agg-3.5.3-to-4.0.1",
        "x4-rocks-3.5.3-to-4.0.1",
        "c-3.5.3-delete-delta",
        "q-4.0.1-key-added",
        "c-4.0.1-truncate-commit",
    ] {
        let dir = corpus.join("restarts").join(case);
        let plain = lines(&dir.join("driver.log"));
        for ecs in [false, true] {
            // One JSON record per log record: the header's message plus its continuation lines.
            let mut out: Vec<String> = Vec::new();
            let mut cur: Option<(String, String, Vec<String>)> = None;
            let flush = |cur: &mut Option<(String, String, Vec<String>)>, out: &mut Vec<String>| {
                if let Some((level, logger, msg)) = cur.take() {
                    let logger = format!("org.apache.spark.sql.execution.streaming.{logger}");
                    let msg = msg.join("\n");
                    out.push(if ecs {
                        json!({"@timestamp": "2026-11-30T13:10:15.454Z", "log.level": level, "message": msg, "process.thread.name": "main", "log.logger": logger}).to_string()
                    } else {
                        json!({"instant": {"epochSecond": 1_700_000_000u64, "nanoOfSecond": 0}, "thread": "main", "level": level, "loggerName": logger, "message": msg, "endOfBatch": false}).to_string()
                    });
                }
            };
            for l in &plain {
                if let Some(c) = header.captures(l) {
                    flush(&mut cur, &mut out);
                    cur = Some((c[2].to_owned(), c[3].to_owned(), vec![c[4].to_owned()]));
                } else if let Some((_, _, msg)) = cur.as_mut() {
                    msg.push(l.clone());
                } else {
                    out.push(l.clone());
                }
            }
            flush(&mut cur, &mut out);
            let ctx = restart_context(&corpus, case);
            let want = classify(refs(&plain), std::iter::empty(), &ctx);
            let got = classify(refs(&out), std::iter::empty(), &ctx);
            assert_eq!(
                (got.verdict, &got.rule),
                (want.verdict, &want.rule),
                "{case} (ecs: {ecs})"
            );
        }
    }
}

/// Half a log is never a verdict: a resumed run followed by a failing one in another encoding
/// (PowerShell's `>>` appends UTF-16 to a UTF-8 file; a UTF-8 tail after a UTF-16 start), and a
/// failure printed as a multi-line log4j2 JsonLayout record after a resumed run, were classified
/// `resumed` from the part that could be read. Both are bad input (exit 3) naming the line.
#[test]
fn a_log_that_can_be_read_only_in_part_is_bad_input_never_resumed() {
    let Some(corpus) = corpus() else { return };
    let ok = std::fs::read(corpus.join("restarts/x1-agg-3.5.3-to-4.0.1/driver.log")).unwrap();
    let fail = std::fs::read(corpus.join("restarts/c-3.5.3-delete-delta/driver.log")).unwrap();
    let utf16le = |b: &[u8]| -> Vec<u8> {
        String::from_utf8_lossy(b)
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect()
    };
    let pretty = b"{\n  \"thread\" : \"stream execution thread\",\n  \"level\" : \"ERROR\",\n  \"loggerName\" : \"org.apache.spark.sql.execution.streaming.MicroBatchExecution\",\n  \"message\" : \"Query q_agg terminated with error\"\n}\n";
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, says) in [
        (
            "utf8-then-utf16",
            [&ok[..], &utf16le(&fail)].concat(),
            "mixes text encodings",
        ),
        (
            "utf16-then-utf8",
            [&[0xFF, 0xFE][..], &utf16le(&ok), &fail].concat(),
            "mixes text encodings",
        ),
        (
            "pretty-jsonlayout",
            [&ok[..], &pretty[..]].concat(),
            "JsonLayout records printed over several lines",
        ),
    ] {
        let file = dir.path().join(format!("{name}.log"));
        std::fs::write(&file, bytes).unwrap();
        let out = rehearse().arg("classify").arg(&file).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: no verdict is printed");
    }
}
