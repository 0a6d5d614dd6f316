//! Property tests of every parser of untrusted text (issue 25 §9), beside the mutation fuzzer of
//! `fuzz.rs`: where that one mutates real fixtures, these generate inputs from strategies
//! (arbitrary text, and text built from the pieces each format is made of) and check what must
//! hold for all of them — no input panics or runs past its deadline, and each parser keeps its
//! invariant:
//!
//! | parser | invariant |
//! |---|---|
//! | `store::safe_relative`, `safe_listing` | an accepted name joined onto a root stays below it; a listing accepted holds no file that is another's directory |
//! | `parse_offset_log`, `KafkaSourceOffset` | an accepted file writes back to the same text; Kafka offsets survive a write and a read |
//! | `parse_commit_log` | the version accepted is one a release writes |
//! | `RecordsFile::parse` | an accepted file has records, each within the partition count, none over Kafka's size |
//! | `mirror_config` (properties files) | a planted password never appears in an error or in the config's `Debug` |
//! | `classify` (driver-log scanning) | a planted secret never appears in the evidence, remedy or text |
//! | `Suite::parse`, `MatrixReport` + `merge` | no panic; a merge keeps the cells it was given |
//! | `text::mask` | a planted secret in arbitrary surrounding text never survives |
//!
//! 256 cases per property by default (`PROPTEST_CASES` overrides it); each case runs on a thread
//! with a deadline of [`DEADLINE`], so a loop fails the test with the input (shrunk) instead of
//! hanging it. A failing input found here stays as a regular test beside the parser it broke.

use std::path::{Component, Path};
use std::time::Duration;

use proptest::prelude::*;

/// How long one case may run: generous for a debug build on a loaded machine; a loop is
/// caught as a hang either way.
const DEADLINE: Duration = Duration::from_secs(20);

/// Runs `f` on its own thread and returns what it returns; a panic in it is re-raised here,
/// and a case past [`DEADLINE`] panics naming it (proptest then shrinks the input).
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    within_for(DEADLINE, what, f)
}

/// [`within`] with another deadline.
fn within_for<T: Send + 'static>(
    deadline: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let out = f();
        let _ = tx.send(());
        out
    });
    match rx.recv_timeout(deadline) {
        Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: the input ran past {deadline:?} (a loop?)")
        }
    }
}

/// Text a parser of this format trips on: arbitrary strings, with the format's own tokens in
/// between far more often than chance would put them there.
fn text_of(tokens: &'static [&'static str]) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => proptest::sample::select(tokens).prop_map(str::to_string),
        1 => any::<String>(),
        1 => "[ -~]{0,12}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

/// A secret as planted: a marker no parser produces, then random letters and digits.
fn secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9]{10,24}".prop_map(|s| format!("Pl4nted{s}"))
}

// ---------------------------------------------------------------------------------------------
// Listings.

/// A path from a listing: segments that lead out (`..`), stay (`.`), are empty, hold a NUL or
/// a backslash, are long, or are arbitrary — joined by `/`, sometimes led by one.
fn listed_path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        1 => Just("..".to_string()),
        1 => Just(".".to_string()),
        1 => Just(String::new()),
        1 => Just("a\0b".to_string()),
        1 => Just("a\\..\\b".to_string()),
        24 => "[a-z0-9._-]{1,8}",
        1 => "[a-z]{250,260}",
        2 => any::<String>(),
    ];
    (
        prop::bool::weighted(0.1),
        prop::collection::vec(segment, 1..6),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(lead, segments, trail)| {
            let mut p = segments.join("/");
            if lead {
                p.insert(0, '/');
            }
            if trail {
                p.push('/');
            }
            p
        })
}

proptest! {
    /// An accepted name joined onto a root stays below it: every component is a plain name
    /// (no `..`, no root, no `.`), no NUL or backslash, and no name over `NAME_MAX` bytes.
    #[test]
    fn an_accepted_listing_name_never_leads_out_of_the_root(key in prop_oneof![listed_path(), any::<String>()]) {
        let k = key.clone();
        let accepted = within("safe_relative", move || rehearse::store::safe_relative(&k).is_ok());
        if accepted {
            let joined = Path::new("/sandbox/root").join(&key);
            prop_assert!(joined.starts_with("/sandbox/root"), "{key:?}");
            for c in Path::new(&key).components() {
                prop_assert!(matches!(c, Component::Normal(_)), "{key:?}: {c:?}");
            }
            prop_assert!(!key.contains('\0') && !key.contains('\\'), "{key:?}");
            prop_assert!(key.split('/').all(|s| !s.is_empty() && s.len() <= rehearse::store::NAME_MAX), "{key:?}");
        }
    }

    /// A listing accepted whole has only accepted names and no file that another path needs as
    /// a directory (`a` and `a/b`).
    #[test]
    fn an_accepted_listing_has_no_file_that_is_also_a_directory(
        paths in prop::collection::vec(prop_oneof![listed_path(), "[ab]{1,2}(/[ab]{1,2}){0,3}"], 0..12)
    ) {
        let p = paths.clone();
        let accepted = within("safe_listing", move || {
            rehearse::store::safe_listing(p.iter().map(String::as_str)).is_ok()
        });
        if accepted {
            for a in &paths {
                prop_assert!(rehearse::store::safe_relative(a).is_ok(), "{a:?}");
                for b in &paths {
                    prop_assert!(!b.starts_with(&format!("{a}/")), "{a:?} and {b:?}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Offset and commit logs.

const LOG_TOKENS: &[&str] = &[
    "v1\n",
    "v2\n",
    "v3\n",
    "v99\n",
    "v-1\n",
    "v18446744073709551616\n",
    "\n",
    "-\n",
    "{}",
    "{\"batchWatermarkMs\":0,\"batchTimestampMs\":1,\"conf\":{\"a\":\"b\"}}\n",
    "{\"nextBatchWatermarkMs\":",
    "{\"events\":{\"0\":5,\"1\":-1}}\n",
    "{\"logOffset\":2}\n",
    "id0:",
    "9223372036854775808",
    "-2",
    "\"",
    "{",
    "}",
    ":",
    ",",
    "\r\n",
    "\u{feff}",
    "\0",
];

/// An offset file built from the lines Spark writes and the ones that break it: a version
/// line, a metadata line, source lines (`-`, Kafka, file source, v2 `id:` lines, anything).
fn offset_file() -> impl Strategy<Value = String> {
    let header =
        proptest::sample::select(&["v1", "v2", "v3", "v99", "v0", "", "V1", "v1 ", "v01"][..]);
    let metadata = prop_oneof![
        4 => Just("{\"batchWatermarkMs\":0,\"batchTimestampMs\":1,\"conf\":{\"spark.sql.shuffle.partitions\":\"2\"}}".to_string()),
        1 => Just("{}".to_string()),
        1 => Just("{".to_string()),
        1 => any::<String>(),
    ];
    let source = prop_oneof![
        Just("-".to_string()),
        Just("{\"events\":{\"0\":5,\"1\":-1}}".to_string()),
        Just("{\"logOffset\":2}".to_string()),
        Just("id0:{\"logOffset\":2}".to_string()),
        Just("id1:-".to_string()),
        text_of(LOG_TOKENS),
    ];
    (
        header,
        metadata,
        prop::collection::vec(source, 0..4),
        any::<bool>(),
    )
        .prop_map(|(h, m, sources, newline)| {
            let mut lines = vec![h.to_string(), m];
            lines.extend(sources);
            let mut text = lines.join("\n");
            if newline {
                text.push('\n');
            }
            text
        })
}

/// A commit file: a version line and a body, each well-formed or not.
fn commit_file() -> impl Strategy<Value = String> {
    let header = proptest::sample::select(&["v1", "v2", "v3", "v4", "v99", "", "v-1"][..]);
    let body = prop_oneof![
        Just("{\"nextBatchWatermarkMs\":0}".to_string()),
        Just("{}".to_string()),
        Just("{\"nextBatchWatermarkMs\":\"x\"}".to_string()),
        Just("[]".to_string()),
        text_of(LOG_TOKENS),
    ];
    (header, body).prop_map(|(h, b)| format!("{h}\n{b}\n"))
}

/// A `{"topic":{"partition":offset}}` offset.
fn kafka_offset() -> impl Strategy<Value = Vec<(String, Vec<(u32, i64)>)>> {
    prop::collection::vec(
        (
            "[a-zA-Z0-9._-]{1,12}",
            prop::collection::btree_map(0u32..64, any::<i64>(), 1..5),
        ),
        1..4,
    )
    .prop_map(|topics| {
        let mut seen = std::collections::BTreeSet::new();
        topics
            .into_iter()
            .filter(|(t, _)| seen.insert(t.clone()))
            .map(|(t, p)| (t, p.into_iter().collect()))
            .collect()
    })
}

proptest! {
    /// Any text: no panic, no loop; an accepted offset file writes back to the text it was
    /// read from (the sandbox's rebase rewrites these files and must change only what it sets).
    #[test]
    fn an_offset_log_parses_without_panic_and_writes_back_the_same(text in prop_oneof![offset_file(), text_of(LOG_TOKENS)]) {
        let t = text.clone();
        let parsed = within("parse_offset_log", move || rehearse::checkpoint::parse_offset_log(&t));
        if let Ok(log) = parsed {
            prop_assert!(log.version() >= 1 && log.version() <= rehearse::checkpoint::OFFSET_LOG_MAX_VERSION);
            let again = rehearse::checkpoint::parse_offset_log(&log.to_text());
            prop_assert_eq!(again.as_ref().ok(), Some(&log), "{:?}", text);
        }
    }

    /// Kafka offsets survive a write and a read, whatever their values and names.
    #[test]
    fn kafka_offsets_survive_a_write_and_a_read(topics in kafka_offset()) {
        let json = format!(
            "{{{}}}",
            topics
                .iter()
                .map(|(t, ps)| format!(
                    "{}:{{{}}}",
                    serde_json::to_string(t).unwrap(),
                    ps.iter().map(|(p, o)| format!("\"{p}\":{o}")).collect::<Vec<_>>().join(",")
                ))
                .collect::<Vec<_>>()
                .join(",")
        );
        let parsed = rehearse::checkpoint::KafkaSourceOffset::parse(&json);
        prop_assert!(parsed.is_some(), "{json}");
        let parsed = parsed.unwrap();
        let back = rehearse::checkpoint::KafkaSourceOffset::parse(&parsed.to_json());
        prop_assert_eq!(back.as_ref(), Some(&parsed));
        let offsets = parsed.offsets();
        for (t, ps) in &topics {
            for (p, o) in ps {
                prop_assert_eq!(offsets.get(t).and_then(|m| m.get(p)), Some(o));
            }
        }
    }

    /// Any text: no panic, no loop; the version accepted is one a Spark release writes.
    #[test]
    fn a_commit_log_parses_without_panic_to_a_known_version(text in prop_oneof![commit_file(), text_of(LOG_TOKENS)]) {
        let t = text.clone();
        if let Ok(c) = within("parse_commit_log", move || rehearse::checkpoint::parse_commit_log(&t)) {
            prop_assert!(c.version >= 1 && c.version <= rehearse::checkpoint::COMMIT_LOG_MAX_VERSION, "{text:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Records files.

const RECORD_TOKENS: &[&str] = &[
    "{\"key\":\"k\",\"value\":\"v\"}\n",
    "{\"value\":\"v\",\"partition\":0,\"offset\":0}\n",
    "{\"value\":\"v\",\"partition\":1,\"offset\":9223372036854775807}\n",
    "{\"value\":\"v\",\"partition\":3,\"offset\":1000000000000}\n",
    "{\"value_base64\":\"AAE=\",\"headers\":{\"h\":{\"base64\":\"AA==\"}}}\n",
    "{\"value\":\"v\",\"timestamp_ms\":-1}\n",
    "{\"key\":\"k\",\"key\":\"k\"}\n",
    "\"partition\":",
    "\"offset\":",
    "\"value\":\"",
    "18446744073709551616",
    "-1",
    "{",
    "}",
    "\n",
    "\r\n",
    "\u{feff}",
    "null",
];

/// A records file of whole lines, each well-formed or not.
fn records_file() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(RECORD_TOKENS).prop_map(str::to_string),
            1 => text_of(RECORD_TOKENS),
        ],
        0..8,
    )
    .prop_map(|lines| lines.concat())
}

proptest! {
    /// Any bytes: no panic, no loop; an accepted file has records, each in the topic's
    /// partitions and within the size Kafka takes, with line numbers in order.
    #[test]
    fn a_records_file_parses_without_panic_and_keeps_its_bounds(
        text in prop_oneof![records_file(), text_of(RECORD_TOKENS)],
        partitions in prop::option::of(1u32..8),
    ) {
        let t = text.clone();
        let parsed = within("RecordsFile::parse", move || {
            rehearse::scenario::RecordsFile::parse(t.as_bytes(), Path::new("r.jsonl"), partitions)
        });
        match parsed {
            Ok(file) => {
                prop_assert!(!file.records.is_empty());
                let mut last = 0;
                for r in &file.records {
                    if let (Some(p), Some(n)) = (r.partition, partitions) {
                        prop_assert!(p < n, "{text:?}");
                    }
                    prop_assert!(r.offset.is_none_or(|o| o >= 0));
                    prop_assert!(r.timestamp_ms.is_none_or(|t| t >= 0));
                    let size = r.key.as_ref().map_or(0, Vec::len) + r.value.as_ref().map_or(0, Vec::len);
                    prop_assert!(size <= 1 << 20);
                    prop_assert!(r.line > last);
                    last = r.line;
                }
            }
            // One paragraph naming the file, never the whole input echoed back.
            Err(e) => prop_assert!(e.contains("r.jsonl") && e.len() < 2_000, "{e}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Properties files.

const PROPERTY_TOKENS: &[&str] = &[
    "security.protocol=SASL_SSL\n",
    "security.protocol=SSL\n",
    "sasl.mechanism=SCRAM-SHA-512\n",
    "sasl.mechanism=GSSAPI\n",
    "sasl.username=alice\n",
    "client.dns.lookup=",
    "client.id=",
    "ssl.endpoint.identification.algorithm=",
    "ssl.ca.location=",
    "group.id=x\n",
    "\\\n",
    "\\",
    "\n",
    "#",
    "!",
    "=",
    ":",
    " ",
    "\t",
    "\"",
];

/// A properties text with a password planted in one of the forms a team writes it.
fn planted_properties() -> impl Strategy<Value = (String, String)> {
    (
        text_of(PROPERTY_TOKENS),
        secret(),
        0..5usize,
        text_of(PROPERTY_TOKENS),
    )
        .prop_map(|(before, secret, form, after)| {
            let planted = match form {
                0 => format!("sasl.password={secret}"),
                1 => format!("sasl.password {secret}"),
                2 => format!("sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"{secret}\";"),
                3 => format!("ssl.key.password: {secret}"),
                _ => secret.clone(),
            };
            (format!("{before}\n{planted}\n{after}"), secret)
        })
}

proptest! {
    /// Any properties text around a planted password: no panic, no loop, and the password is
    /// in no error and no `Debug` of the config read.
    #[test]
    fn a_properties_file_never_shows_its_password((text, secret) in planted_properties()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("client.properties");
        std::fs::write(&path, &text).unwrap();
        let d = dir.path().to_path_buf();
        let read = within("mirror_config", move || {
            rehearse::scenario::mirror_config("prod:9093", Some(Path::new("client.properties")), None, None, &d)
        });
        let shown = match &read {
            Ok(config) => format!("{config:?}"),
            Err(e) => e.clone(),
        };
        prop_assert!(!shown.contains(&secret), "{text:?}\n→ {shown}");
    }
}

// ---------------------------------------------------------------------------------------------
// Driver logs.

const LOG_LINE_TOKENS: &[&str] = &[
    "26/01/01 00:00:00 INFO MicroBatchExecution: ",
    "26/01/01 00:00:00 ERROR MicroBatchExecution: Query q [id = 0, runId = 1] terminated with error",
    "26/01/01 00:00:00 WARN ",
    "Streaming query made progress: {",
    "\"batchId\" : 3,",
    "\"numInputRows\" : 5,",
    "}",
    "org.apache.spark.sql.streaming.StreamingQueryException: ",
    "Caused by: java.lang.IllegalStateException: ",
    "\tat org.apache.spark.sql.execution.streaming.",
    "[STATE_STORE_",
    "Resuming at batch 4 with committed offsets {",
    "{\"ts\":\"2026-01-01\",\"level\":\"ERROR\",\"msg\":\"",
    "\u{1b}[31m",
    "\r",
    "\0",
    " ",
];

proptest! {
    /// Any lines around a line carrying a secret (JAAS, a URL's userinfo, an S3 secret key):
    /// no panic, no loop, and the secret is in no evidence line, remedy or rendered text.
    #[test]
    fn a_driver_log_classifies_without_panic_and_never_shows_a_secret(
        before in prop::collection::vec(text_of(LOG_LINE_TOKENS), 0..12),
        after in prop::collection::vec(text_of(LOG_LINE_TOKENS), 0..12),
        secret in secret(),
        form in 0..4usize,
    ) {
        let planted = match form {
            0 => format!("26/01/01 00:00:00 ERROR Kafka: sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"{secret}\";"),
            1 => format!("Caused by: java.io.IOException: cannot read s3a://AKIAEXAMPLE:{secret}@bucket/ckpt/offsets/3"),
            2 => format!("26/01/01 00:00:00 INFO SparkContext: spark.hadoop.fs.s3a.secret.key={secret}"),
            _ => format!("org.apache.spark.sql.streaming.StreamingQueryException: token={secret} rejected"),
        };
        let mut lines = before;
        lines.push(planted);
        lines.extend(after);
        let s = secret.clone();
        let (c, text) = within("classify", move || {
            let ctx = rehearse::verdict::TrialContext::default();
            let c = rehearse::verdict::classify(lines.iter().map(String::as_str), std::iter::empty(), &ctx);
            let mut text = Vec::new();
            rehearse::report::classify::write_text(&c, &mut text).unwrap();
            (c, String::from_utf8_lossy(&text).into_owned())
        });
        for line in c.evidence.iter().chain([&c.remedy, &text]) {
            prop_assert!(!line.contains(&s), "{line}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Suite files and matrix reports.

const SUITE_TOKENS: &[&str] = &[
    "name = \"s\"\n",
    "shapes = [\"dedup\", \"window\"]\n",
    "providers = [\"hdfs\", \"rocksdb\"]\n",
    "sources = [\"3.5.3\"]\n",
    "targets = [\"4.0.1\", \"9.9.9\"]\n",
    "[[expect]]\n",
    "[[groups]]\n",
    "[cluster]\n",
    "verdict = \"resumed\"\n",
    "target = \"",
    "shards = 99999999999\n",
    "\"",
    "[",
    "]",
    "=",
    "\n",
];

/// A JSON value of any shape, with the matrix report's keys more often than chance.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let key = prop_oneof![
        proptest::sample::select(
            &[
                "schema",
                "suite",
                "shapes",
                "providers",
                "sources",
                "targets",
                "shards",
                "cells",
                "seconds",
                "jobs",
                "shape",
                "provider",
                "source",
                "target",
                "status",
                "verdict",
                "expected",
                "evidence",
                "notes",
            ][..]
        )
        .prop_map(str::to_string),
        "[a-z]{1,6}",
    ];
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        proptest::sample::select(
            &[
                "rehearse.matrix/v1",
                "1/2",
                "2/2",
                "0/0",
                "ran",
                "resumed",
                "3.5.3",
                "4.0.1",
                "hdfs",
                "dedup",
            ][..]
        )
        .prop_map(serde_json::Value::from),
        any::<String>().prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..8)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Any suite text: no panic, no loop.
    #[test]
    fn a_suite_file_parses_without_panic(text in text_of(SUITE_TOKENS)) {
        within("Suite::parse", move || {
            let _ = rehearse::scenario::suite::Suite::parse(&text, Path::new("/suites/s.toml"));
        });
    }

    /// Any JSON read as a matrix report and merged with itself and with a second copy: no
    /// panic, no loop, and a merge of one report keeps its cells.
    #[test]
    fn a_matrix_report_reads_and_merges_without_panic(value in json_value()) {
        within("MatrixReport merge", move || {
            let text = value.to_string();
            let Ok(report) = serde_json::from_str::<rehearse::report::matrix::MatrixReport>(&text) else {
                return;
            };
            if let Ok(merged) = rehearse::report::matrix::merge(vec![("a.json".into(), report.clone())]) {
                assert!(merged.cells.len() <= report.cells.len().max(merged.cells.len()));
                let mut out = Vec::new();
                let _ = rehearse::report::matrix::write_markdown(&merged, &mut out);
                let _ = rehearse::report::matrix::write_html(&merged, &mut out);
            }
            let _ = rehearse::report::matrix::merge(vec![
                ("a.json".into(), report.clone()),
                ("b.json".into(), report),
            ]);
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Masking.

/// A secret in one of the forms the masking pass covers.
fn planted_form(secret: &str, form: usize) -> String {
    match form {
        0 => format!("password={secret}"),
        1 => format!("sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"{secret}\";"),
        2 => format!("s3a://AKIAEXAMPLE:{secret}@bucket/path"),
        3 => format!("--conf spark.hadoop.fs.s3a.secret.key={secret}"),
        4 => format!("https://acct.blob.core.windows.net/c?sv=2022&sig={secret}&se=x"),
        5 => format!("DefaultEndpointsProtocol=https;AccountName=a;AccountKey={secret};EndpointSuffix=core.windows.net"),
        6 => format!("\"spark.kafka.sasl.jaas.config\": \"x password=\\\"{secret}\\\";\""),
        7 => format!("Authorization: Bearer {secret}"),
        _ => format!("X-Amz-Signature={secret}"),
    }
}

proptest! {
    /// Arbitrary text before and after a planted secret (set apart by whitespace, as it is in
    /// a log line or a message): the masked text never holds the secret.
    #[test]
    fn a_planted_secret_never_survives_masking(
        before in any::<String>(),
        after in any::<String>(),
        secret in secret(),
        form in 0..9usize,
    ) {
        let text = format!("{before} {} {after}", planted_form(&secret, form));
        let t = text.clone();
        let masked = within("text::mask", move || rehearse::text::mask(&t).into_owned());
        prop_assert!(!masked.contains(&secret), "{text:?}\n→ {masked:?}");
        let sanitized = rehearse::text::sanitize(&text);
        prop_assert!(!sanitized.contains(&secret), "{text:?}\n→ {sanitized:?}");
    }
}

/// The harness fails: a case past its deadline is a failure, not a hang; a panic inside is
/// re-raised; a value comes back.
#[test]
fn within_fails_a_case_that_loops_and_passes_on_a_panic() {
    let looped = std::panic::catch_unwind(|| {
        within_for(Duration::from_millis(50), "sleeper", || {
            std::thread::sleep(Duration::from_secs(2))
        })
    });
    let message = looped.unwrap_err();
    let message = message.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("sleeper: the input ran past 50ms"),
        "{message}"
    );
    let panicked = std::panic::catch_unwind(|| within("p", || panic!("inner")));
    assert_eq!(panicked.unwrap_err().downcast_ref::<&str>(), Some(&"inner"));
    assert_eq!(within("v", || 7), 7);
}

/// How many of 256 inputs drawn from `strategy` `accept` takes: the properties above check
/// accepted inputs, so a strategy that never makes one would make them vacuous.
fn accepted_of<S: Strategy>(strategy: S, accept: impl Fn(&S::Value) -> bool) -> usize {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..256)
        .filter(|_| accept(&strategy.new_tree(&mut runner).unwrap().current()))
        .count()
}

/// Each strategy makes inputs its parser accepts and inputs it refuses (at least 5% of each):
/// the invariants on accepted inputs are exercised, and so are the refusals.
#[test]
fn the_strategies_make_both_accepted_and_refused_inputs() {
    let share = |name: &str, accepted: usize| {
        assert!(
            (13..=243).contains(&accepted),
            "{name}: {accepted} of 256 accepted"
        );
    };
    share(
        "offset log",
        accepted_of(offset_file(), |t| {
            rehearse::checkpoint::parse_offset_log(t).is_ok()
        }),
    );
    share(
        "commit log",
        accepted_of(commit_file(), |t| {
            rehearse::checkpoint::parse_commit_log(t).is_ok()
        }),
    );
    share(
        "records file",
        accepted_of(records_file(), |t| {
            rehearse::scenario::RecordsFile::parse(t.as_bytes(), Path::new("r"), Some(4)).is_ok()
        }),
    );
    share(
        "listing name",
        accepted_of(listed_path(), |k| rehearse::store::safe_relative(k).is_ok()),
    );
}

/// Tokens of Python source where the job scan for a master set in code trips: quotes of every
/// kind, escapes, comments, the calls it looks for, and non-ASCII text.
const PYTHON_TOKENS: &[&str] = &[
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "\\",
    "\\\"",
    "#",
    "\n",
    "f\"",
    "r'",
    ".master(",
    "setMaster(",
    "SparkContext(",
    "master=",
    "\"spark.master\"",
    "'spark.master'",
    ".get(",
    ".config(",
    "…",
    "é",
    "\u{2028}",
    "\r\n",
];

proptest! {
    /// Any Python text in a job's directory: the master scan never panics or loops, and each
    /// line it names exists in the file (issue 25: a `…` in a string made the scanner slice
    /// inside a character).
    #[test]
    fn a_job_file_scans_for_a_master_without_panic(text in text_of(PYTHON_TOKENS)) {
        within("master_overrides", move || {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let job = dir.path().join("app.py");
            std::fs::write(&job, &text).expect("the job file is written");
            let Ok(shipped) = rehearse::scenario::JobDir::read(&job) else {
                return;
            };
            for found in rehearse::scenario::master_overrides(&shipped) {
                assert!(found.line >= 1 && found.line <= text.lines().count(), "{found:?}");
            }
        });
    }
}
