//! `rehearse capture CHECKPOINT --bootstrap-servers … [--properties FILE] --out-dir DIR`: reads
//! the records around the checkpoint's offsets from the production cluster, read-only (as a
//! run's `[kafka.mirror]` does: `kafka::read_mirror`), and writes them per topic as a
//! `records_file` (`DIR/<topic>.jsonl`, the format `scenario::RecordsFile` reads), for offline
//! and CI replay. Keys, values and header values are written as UTF-8 text when they are, else
//! base64; each line keeps its partition, offset and Kafka timestamp, so a replay puts each
//! record back at its production offset (less the sandbox's rebase base).
//! An existing `<topic>.jsonl` is refused unless `--force`, which replaces it (a link is replaced,
//! never written through; a FIFO, device or directory there is refused: `userfile::write`). Where production no longer holds
//! the checkpoint's offsets the files are still written and the command says so and exits with
//! `kafka-data-loss`'s code: that is what a restart in production would meet, and what a run
//! replaying the files gets (`kafka::records_file_loss`).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use base64::Engine as _;
use clap::Args;
use rehearse::exit::{ErrorKind, HasErrorKind, Outcome};
use rehearse::kafka::{Mirror, Mirrored};
use rehearse::userfile::{self, Existing, WriteError};
use rehearse::verdict::Verdict;
use serde_json::{json, Map, Value};

use super::{common, Failure, Kind as _};

/// `rehearse capture`.
#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// The checkpoint whose Kafka offsets say which records to copy: a directory or a store's
    /// URL (`s3://…`, `gs://…`, `abfss://…`, `hdfs://…`, as `inspect` takes it; only read).
    pub checkpoint: PathBuf,
    /// The production cluster's bootstrap servers (host:port[,host:port…]).
    #[arg(long, value_name = "SERVERS")]
    pub bootstrap_servers: String,
    /// A Kafka client properties file: security.protocol, sasl.mechanism (PLAIN, SCRAM-SHA-256,
    /// SCRAM-SHA-512), sasl.username/sasl.password or sasl.jaas.config, ssl.* files.
    #[arg(long, value_name = "FILE")]
    pub properties: Option<PathBuf>,
    /// Records per partition copied below the checkpoint's offset.
    #[arg(long, default_value_t = rehearse::scenario::DEFAULT_MIRROR_HISTORY)]
    pub history: u64,
    /// Records per partition copied from the checkpoint's offset on.
    #[arg(long, default_value_t = rehearse::scenario::DEFAULT_MIRROR_FRESH)]
    pub fresh: u64,
    /// Where `<topic>.jsonl` files are written (created if missing). An existing file is
    /// refused unless --force.
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Replace existing `<topic>.jsonl` files in --out-dir.
    #[arg(long)]
    pub force: bool,
}

/// `rehearse capture`.
pub fn exec(args: CaptureArgs) -> Result<Outcome, Failure> {
    let cwd = std::env::current_dir()
        .context("cannot read the current directory")
        .kind(ErrorKind::BadInput)?;
    let config = match rehearse::scenario::mirror_config(
        &args.bootstrap_servers,
        args.properties.as_deref(),
        Some(args.history),
        Some(args.fresh),
        &cwd,
    ) {
        Ok(c) => c,
        Err(message) => {
            say!("error: {}", as_capture_flags(&message));
            return Ok(Outcome::BadInput);
        }
    };
    // A directory or a store's URL, as `inspect` and `init` take it: capture reads only the
    // offset log. `capture s3://…` said the URL was no such directory (issue 25 §7).
    let inspection = match common::inspect_location(&args.checkpoint) {
        Ok(i) => i,
        Err(err) => return Ok(common::location_failed(err)),
    };
    let checkpointed = inspection.required_kafka_offsets();
    if checkpointed.is_empty() {
        say!(
            "error: checkpoint {} names no Kafka offsets: nothing to capture\n  hint: capture needs a checkpoint with at least one batch of a Kafka source",
            args.checkpoint.display()
        );
        return Ok(Outcome::BadInput);
    }
    // A remote checkpoint cannot hold a local --out-dir; a local one (or file://) must not.
    let local = match rehearse::store::CheckpointLocation::url_arg(&args.checkpoint) {
        None => Some(args.checkpoint.clone()),
        Some(url) => match rehearse::store::CheckpointLocation::parse(url) {
            Ok(rehearse::store::CheckpointLocation::Local { path }) => Some(path),
            _ => None,
        },
    };
    if let Some(dir) = local {
        if let Err(err) = rehearse::sandbox::refuse_output_inside(&dir, &args.out_dir, "--out-dir")
        {
            say!("error: {err}");
            return Ok(Outcome::BadInput);
        }
    }
    let existing = if args.force {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    // Every output checked before the cluster is asked (the rule `write_topic` applies again):
    // a topic name that is no Kafka name (the file name comes from the checkpoint), a FIFO,
    // device or directory at the path, an existing file (or link, dangling or not) without
    // --force.
    let mut taken = Vec::new();
    for topic in checkpointed.keys() {
        if let Err(message) = rehearse::scenario::check_topic_name(topic) {
            say!(
                "error: checkpoint {}: {message}, so it cannot name a records file\n  hint: capture writes DIR/<topic>.jsonl for each Kafka topic of the checkpoint; check the checkpoint's offset log",
                args.checkpoint.display()
            );
            return Ok(Outcome::BadInput);
        }
        let path = args.out_dir.join(format!("{topic}.jsonl"));
        match userfile::check_writable(&path, RECORDS_FILE, existing) {
            Ok(()) => {}
            Err(WriteError::Exists { .. }) => taken.push(path.display().to_string()),
            Err(err) => {
                say!("error: {err}");
                return Ok(Outcome::BadInput);
            }
        }
    }
    if !taken.is_empty() {
        say!(
            "error: rehearse capture would replace {}\n  hint: pass --force to replace it, or choose another --out-dir",
            taken.join(", ")
        );
        return Ok(Outcome::BadInput);
    }
    let mirror = match rehearse::kafka::read_mirror(&config, &checkpointed) {
        Ok(m) => m,
        Err(err) => {
            // The same errors as a run's `[kafka.mirror]`, said as this command's options.
            say!("error: {}", as_capture(&err.to_string()));
            return Ok(Outcome::from(err.error_kind()));
        }
    };
    // Created only once the cluster answered: a refused login leaves no empty directory.
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("cannot create --out-dir {}", args.out_dir.display()))
        .kind(ErrorKind::BadInput)?;
    for topic in checkpointed.keys() {
        let path = args.out_dir.join(format!("{topic}.jsonl"));
        write_topic(&mirror, topic, &path, existing)?;
        let n: usize = mirror
            .partitions
            .iter()
            .filter(|p| &p.topic == topic)
            .map(|p| p.records.len())
            .sum();
        say!(
            "{}: {n} records of {topic} (use it as records_file)",
            path.display()
        );
        let repeated = mirror
            .partitions
            .iter()
            .filter(|p| &p.topic == topic)
            .flat_map(|p| &p.records)
            .filter(|r| repeats_a_header(r))
            .count();
        if repeated > 0 {
            say!(
                "warning: {repeated} record(s) of {topic} repeat a header name; a records_file line holds headers as a JSON object, so {} keeps the last value of each name (and headers in name order)\n  hint: a job that reads every value of a repeated header sees fewer after a replay; [kafka.mirror] keeps them all",
                path.display()
            );
        }
    }
    say!(
        "{} records, {} bytes of keys, values and headers read from {} (read-only: no consumer group, no commits, nothing produced there)",
        mirror.records(),
        mirror.bytes(),
        mirror.bootstrap
    );
    if let Some(evidence) = mirror.data_loss_evidence() {
        say!("kafka-data-loss: {evidence}\n  hint: the checkpoint cannot resume in production without losing records; raise the topic's retention, or accept the loss with failOnDataLoss=false; a run replaying these files gets kafka-data-loss too");
        return Ok(Outcome::Verdict(Verdict::KafkaDataLoss));
    }
    Ok(Outcome::Success)
}

/// `[kafka.mirror]` keys and the capture flags that set them: the one map both rewrites below use.
const MIRROR_KEY_FLAGS: [(&str, &str); 4] = [
    ("bootstrap_servers", "--bootstrap-servers"),
    ("properties", "--properties"),
    ("history", "--history"),
    ("fresh", "--fresh"),
];

/// A `[kafka.mirror]` settings error's text with capture's flags (breaker pass, session 7: its
/// hint said `fresh = 1000`, the scenario key, to a user of `--fresh`). Each `[kafka.mirror] KEY
/// = V` becomes `--FLAG V` and a hint's bare `KEY = V` too, once: rewriting the prefix and the key
/// one after the other had printed `----fresh 2000001` and `--bootstrap_servers` (issue 25 §7).
fn as_capture_flags(message: &str) -> String {
    let mut out = message.replace("[kafka.mirror] history and fresh", "--history and --fresh");
    for (key, flag) in MIRROR_KEY_FLAGS {
        out = out
            .replace(&format!("[kafka.mirror] {key} = "), &format!("{flag} "))
            .replace(&format!("[kafka.mirror] {key}"), flag)
            .replace(&format!("({key} = "), &format!("({flag} "))
            .replace(&format!(" {key} = "), &format!(" {flag} "));
    }
    out.replace("[kafka.mirror] ", "rehearse capture: ")
}

/// A `[kafka.mirror]` error's text with capture's option names.
fn as_capture(message: &str) -> String {
    let (key, flag) = MIRROR_KEY_FLAGS[0];
    message
        .replace(
            "[kafka.mirror] properties (none given)",
            "--properties (none given)",
        )
        .replace("[kafka.mirror] ", "rehearse capture: ")
        .replace(key, flag)
}

/// What a capture's output is called in messages.
const RECORDS_FILE: &str = "records file";

/// Writes `topic`'s records to `path` as a `records_file`, by the output rule
/// ([`userfile::write_with`]: never through a link, never into a FIFO, renamed into place).
fn write_topic(
    mirror: &Mirror,
    topic: &str,
    path: &Path,
    existing: Existing,
) -> Result<(), WriteError> {
    userfile::write_with(path, RECORDS_FILE, existing, |out| {
        for p in mirror.partitions.iter().filter(|p| p.topic == topic) {
            for r in &p.records {
                serde_json::to_writer(&mut *out, &line(r, p.partition))?;
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    })
}

/// Whether `r` has two headers of one name (Kafka allows it; a JSON object does not).
fn repeats_a_header(r: &Mirrored) -> bool {
    let mut names: Vec<&str> = r.headers.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    names.windows(2).any(|w| w[0] == w[1])
}

/// Bytes as text when they are UTF-8 without control characters (a JSON line stays readable),
/// else base64.
fn text(bytes: &[u8]) -> Result<&str, String> {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(|c| c.is_control() && c != '\t') => Ok(s),
        _ => Err(base64::engine::general_purpose::STANDARD.encode(bytes)),
    }
}

/// One `records_file` line.
fn line(r: &Mirrored, partition: u32) -> Value {
    let mut o = Map::new();
    for (name, bytes) in [("key", &r.key), ("value", &r.value)] {
        if let Some(b) = bytes {
            match text(b) {
                Ok(s) => o.insert(name.into(), json!(s)),
                Err(b64) => o.insert(format!("{name}_base64"), json!(b64)),
            };
        }
    }
    if !r.headers.is_empty() {
        let mut h = Map::new();
        for (k, v) in &r.headers {
            let v = match v.as_deref().map(text) {
                None => Value::Null,
                Some(Ok(s)) => json!(s),
                Some(Err(b64)) => json!({ "base64": b64 }),
            };
            h.insert(k.clone(), v);
        }
        o.insert("headers".into(), Value::Object(h));
    }
    if let Some(ts) = r.timestamp_ms.filter(|t| *t >= 0) {
        o.insert("timestamp_ms".into(), json!(ts));
    }
    o.insert("partition".into(), json!(partition));
    o.insert("offset".into(), json!(r.offset));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_header_name_is_noticed() {
        let mut r = Mirrored {
            offset: 0,
            key: None,
            value: None,
            headers: vec![("a".into(), None), ("b".into(), None)],
            timestamp_ms: None,
        };
        assert!(!repeats_a_header(&r));
        r.headers.push(("a".into(), Some(b"2".to_vec())));
        assert!(repeats_a_header(&r));
    }

    #[test]
    fn a_mirror_error_names_captures_options() {
        let t = as_capture("[kafka.mirror] cannot reach the production cluster p:9 (hint: check bootstrap_servers and …)");
        assert_eq!(
            t,
            "rehearse capture: cannot reach the production cluster p:9 (hint: check --bootstrap-servers and …)"
        );
    }

    /// The settings errors of `[kafka.mirror]` as capture prints them: each key once as its
    /// flag (it printed `----fresh 2000001` and `--bootstrap_servers = "x"`).
    #[test]
    fn a_settings_error_names_each_flag_once() {
        let cases = [
            (
                "[kafka.mirror] fresh = 2000001 is more than 2000000 records per partition\n(hint: a rehearsal needs the records around the checkpoint, not the whole topic)",
                "--fresh 2000001 is more than 2000000 records per partition\n(hint: a rehearsal needs the records around the checkpoint, not the whole topic)",
            ),
            (
                "[kafka.mirror] bootstrap_servers = \"x\" is not host:port[,host:port…]\n(hint: the production cluster's bootstrap servers, as its clients' bootstrap.servers)",
                "--bootstrap-servers \"x\" is not host:port[,host:port…]\n(hint: the production cluster's bootstrap servers, as its clients' bootstrap.servers)",
            ),
            (
                "[kafka.mirror] history and fresh are both 0: nothing would be copied\n(hint: fresh = 1000 copies the next records the restart reads)",
                "--history and --fresh are both 0: nothing would be copied\n(hint: --fresh 1000 copies the next records the restart reads)",
            ),
            (
                "[kafka.mirror] properties: no such file",
                "--properties: no such file",
            ),
        ];
        for (message, shown) in cases {
            assert_eq!(as_capture_flags(message), shown);
            assert!(!as_capture_flags(message).contains("----"));
        }
    }

    /// Issue 25 §2: `capture --force` wrote through a symlinked `<topic>.jsonl` into a file
    /// outside `--out-dir` and blocked on a FIFO there. The writer replaces the link (the file
    /// outside keeps its bytes), refuses a FIFO at once, and without `--force` keeps a file.
    #[test]
    fn the_records_file_writer_replaces_links_and_refuses_fifos() {
        let mirror = Mirror {
            bootstrap: "p:9092".into(),
            partitions: vec![rehearse::kafka::PartitionMirror {
                topic: "orders".into(),
                partition: 0,
                checkpointed: 1,
                log_start: 0,
                log_end: 1,
                records: vec![Mirrored {
                    offset: 0,
                    key: None,
                    value: Some(b"v".to_vec()),
                    headers: Vec::new(),
                    timestamp_ms: None,
                }],
            }],
            data_loss: Vec::new(),
        };
        let out = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let path = out.path().join("orders.jsonl");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let e = write_topic(&mirror, "orders", &path, Existing::Refuse).unwrap_err();
        assert!(matches!(e, WriteError::Exists { .. }), "{e}");
        write_topic(&mirror, "orders", &path, Existing::Replace).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"offset\":0,\"partition\":0,\"value\":\"v\"}\n"
        );
        let fifo = out.path().join("fifo.jsonl");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let started = std::time::Instant::now();
        let e = write_topic(&mirror, "orders", &fifo, Existing::Replace).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            matches!(e, WriteError::NotRegular { .. }) && e.to_string().contains("fifo.jsonl"),
            "{e}"
        );
    }

    #[test]
    fn a_line_keeps_text_as_text_and_bytes_as_base64() {
        let r = Mirrored {
            offset: 7,
            key: Some(b"order-1".to_vec()),
            value: Some(vec![0, 0, 0, 0, 1, b'{', b'}']),
            headers: vec![
                ("trace".into(), Some(b"t-1".to_vec())),
                ("bin".into(), Some(vec![0xff])),
                ("none".into(), None),
            ],
            timestamp_ms: Some(1_764_547_200_000),
        };
        let l = line(&r, 1).to_string();
        assert_eq!(
            l,
            r#"{"headers":{"bin":{"base64":"/w=="},"none":null,"trace":"t-1"},"key":"order-1","offset":7,"partition":1,"timestamp_ms":1764547200000,"value_base64":"AAAAAAF7fQ=="}"#
        );
    }
}
