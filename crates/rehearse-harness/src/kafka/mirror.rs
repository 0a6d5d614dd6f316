//! Reading the records around a checkpoint's offsets from a production Kafka cluster,
//! read-only (`[kafka.mirror]`), so a trial's sandbox broker holds real records at the offsets
//! the checkpoint names.
//!
//! Read-only means what the client can do, not a promise. No consumer group at all: the
//! client has no `group.id`, so librdkafka makes no consumer-group handle and never looks up a
//! group coordinator (no FindCoordinator: a cluster without `__consumer_offsets` does not create
//! it, and a user with only Read and Describe on the topic may read). Each partition is read by
//! librdkafka's legacy per-partition consumer from an explicit offset (`legacy.rs`:
//! `rd_kafka_consume_start_queue`/`consume_batch_queue`/`consume_stop`), which never uses the
//! offset store, so nothing is ever committed; `allow.auto.create.topics=false`. Only Metadata,
//! ListOffsets (watermarks) and Fetch requests are sent. No admin client and no producer is ever
//! made for this cluster. Records are read with `isolation.level=read_uncommitted`, as Spark's
//! Kafka source reads by default (KafkaSourceProvider leaves the consumer's default): a
//! `read_committed` job's aborted records are copied as if committed.
//!
//! Per partition of each checkpointed topic the range copied is [C − history, C + fresh) with
//! C the checkpoint's offset (the highest any retained `offsets/N` names), bounded by the
//! cluster's log start and end offsets. Where C is below the log start the records the restart
//! would read first are gone from the cluster: that is `kafka-data-loss` in production too
//! (Spark's `KafkaMicroBatchStream.reportDataLoss` with failOnDataLoss), said as evidence.
//! Secrets of the client properties never reach a message: every error text passes
//! [`rehearse_base::text::mask_secrets`].

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError as RdKafkaError;
use rdkafka::types::RDKafkaErrorCode;

use super::legacy::{Fetched, TopicReads};
use super::mirrored::Mirrored;
use rehearse_checkpoint::KafkaOffsets;
use rehearse_scenario::MirrorConfig;

/// How long a metadata or watermark request to the production cluster may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Reading stops with an error when no record arrived for this long while some were expected.
const STALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Records taken from the client per call.
const BATCH: usize = 10_000;

/// What was read from one production partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMirror {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: u32,
    /// The checkpoint's offset (C).
    pub checkpointed: i64,
    /// The cluster's log start offset.
    pub log_start: i64,
    /// The cluster's end offset (high watermark).
    pub log_end: i64,
    /// The records read, in offset order (gaps where the log has none: compaction,
    /// transaction markers).
    pub records: Vec<Mirrored>,
}

/// What was read from the production cluster for one checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mirror {
    /// The cluster's bootstrap servers.
    pub bootstrap: String,
    /// Per partition, in topic and partition order.
    pub partitions: Vec<PartitionMirror>,
    /// Why the cluster no longer holds what the restart reads, per partition (the evidence of
    /// `kafka-data-loss`); empty when it holds everything.
    pub data_loss: Vec<String>,
}

impl Mirror {
    /// Records read.
    pub fn records(&self) -> u64 {
        self.partitions.iter().map(|p| p.records.len() as u64).sum()
    }

    /// Key, value and header bytes read.
    pub fn bytes(&self) -> u64 {
        self.partitions
            .iter()
            .flat_map(|p| &p.records)
            .map(Mirrored::bytes)
            .sum()
    }

    /// The records of `topic`/`partition`.
    pub fn partition(&self, topic: &str, partition: u32) -> Option<&PartitionMirror> {
        self.partitions
            .iter()
            .find(|p| p.topic == topic && p.partition == partition)
    }

    /// The data-loss evidence as one line, if any.
    pub fn data_loss_evidence(&self) -> Option<String> {
        (!self.data_loss.is_empty()).then(|| {
            format!(
                "the production cluster {} no longer holds what the checkpoint points at: {} — a restart there is kafka-data-loss (Spark's reportDataLoss with failOnDataLoss)",
                self.bootstrap,
                self.data_loss.join("; ")
            )
        })
    }
}

/// Why reading from the production cluster failed. Messages name the cluster and the fix and
/// never hold a secret.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    /// The cluster refused the credentials (SASL) or the TLS handshake.
    #[error("[kafka.mirror] the production cluster {bootstrap} refused to authenticate rehearse: {message}\n(hint: check sasl.username/sasl.password (or sasl.jaas.config), sasl.mechanism and the CA in {properties})")]
    Auth {
        /// Bootstrap servers.
        bootstrap: String,
        /// The properties file.
        properties: String,
        /// The client's error.
        message: String,
    },
    /// No answer from the cluster.
    #[error("[kafka.mirror] cannot reach the production cluster {bootstrap}: {message}\n(hint: check bootstrap_servers and that this machine can reach the brokers' advertised listeners; a TLS listener needs security.protocol=SSL or SASL_SSL in {properties})")]
    Unreachable {
        /// Bootstrap servers.
        bootstrap: String,
        /// The properties file.
        properties: String,
        /// The client's last error.
        message: String,
    },
    /// A checkpointed topic does not exist there.
    #[error("[kafka.mirror] topic {topic:?} of the checkpoint does not exist on {bootstrap} (it has {known})\n(hint: point bootstrap_servers at the cluster the job reads, or check the user may describe the topic)")]
    TopicMissing {
        /// Bootstrap servers.
        bootstrap: String,
        /// The topic.
        topic: String,
        /// Some topics it has.
        known: String,
    },
    /// A checkpointed partition does not exist there.
    #[error("[kafka.mirror] the checkpoint reads {topic}/{partition}, but {topic} has {count} partition(s) on {bootstrap}\n(hint: the topic was recreated with fewer partitions, or this is another cluster; point bootstrap_servers at the cluster the job reads)")]
    PartitionMissing {
        /// Bootstrap servers.
        bootstrap: String,
        /// The topic.
        topic: String,
        /// The partition.
        partition: u32,
        /// Partitions it has.
        count: usize,
    },
    /// Reading a partition failed.
    #[error("[kafka.mirror] cannot read {topic}/{partition} from {bootstrap}: {message}{}", read_hint(.message))]
    Read {
        /// Bootstrap servers.
        bootstrap: String,
        /// The topic.
        topic: String,
        /// The partition.
        partition: u32,
        /// What went wrong.
        message: String,
    },
}

/// Whether a read failed on the topic's ACL (the user may not Read it): the one ACL the mirror
/// needs besides Describe on the topic — no group, no cluster permission.
fn topic_denied(message: &str) -> bool {
    message.contains("TopicAuthorizationFailed")
        || message.contains("Topic authorization failed")
        || message.contains("TOPIC_AUTHORIZATION_FAILED")
}

/// The fix a failed read's message points at, if it is one rehearse knows.
fn read_hint(message: &str) -> String {
    if topic_denied(message) {
        "\n(hint: the mirror needs Read and Describe on the topic, nothing else (no consumer group): e.g. kafka-acls.sh --add --allow-principal User:<user> --operation Read --operation Describe --topic <topic>)".to_string()
    } else {
        String::new()
    }
}

/// Wrong credentials, a missing topic or partition, or a topic ACL the user lacks are the
/// scenario's (bad input); an unreachable cluster or another failed read the environment's.
impl rehearse_base::HasErrorKind for MirrorError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        match self {
            MirrorError::Read { message, .. } if topic_denied(message) => {
                rehearse_base::ErrorKind::BadInput
            }
            MirrorError::Auth { .. }
            | MirrorError::TopicMissing { .. }
            | MirrorError::PartitionMissing { .. } => rehearse_base::ErrorKind::BadInput,
            MirrorError::Unreachable { .. } | MirrorError::Read { .. } => {
                rehearse_base::ErrorKind::Environment
            }
        }
    }
}

/// Keeps the client's asynchronous errors (authentication failures arrive only there).
#[derive(Default)]
struct Errors {
    seen: Mutex<Vec<(Option<RDKafkaErrorCode>, String)>>,
}

impl ClientContext for Errors {
    fn log(&self, _level: RDKafkaLogLevel, _fac: &str, _log_message: &str) {}

    fn error(&self, error: RdKafkaError, reason: &str) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push((error.rdkafka_error_code(), reason.to_string()));
        }
    }
}

impl ConsumerContext for Errors {}

impl Errors {
    /// An authentication or TLS failure seen, if any.
    fn auth_failure(&self) -> Option<String> {
        let seen = self.seen.lock().ok()?;
        seen.iter()
            .find(|(code, reason)| {
                matches!(
                    code,
                    Some(RDKafkaErrorCode::Authentication | RDKafkaErrorCode::SSL)
                ) || reason.contains("SASL authentication")
                    || reason.contains("SSL handshake")
            })
            .map(|(_, reason)| reason.clone())
    }

    fn last(&self) -> Option<String> {
        self.seen.lock().ok()?.last().map(|(_, r)| r.clone())
    }

    /// Whether the client said no broker of the bootstrap list answers (librdkafka's
    /// `_ALL_BROKERS_DOWN`: every connection refused or failed).
    fn all_brokers_down(&self) -> bool {
        self.seen.lock().is_ok_and(|seen| {
            seen.iter()
                .any(|(code, _)| *code == Some(RDKafkaErrorCode::AllBrokersDown))
        })
    }
}

/// The client configuration: the properties file's settings, then the read-only settings,
/// which the file cannot override (they come last and the file's keys are checked at load,
/// `group.id` refused). No `group.id`: see the module documentation.
fn client_config(m: &MirrorConfig) -> ClientConfig {
    let mut c = ClientConfig::new();
    for (k, v) in &m.client {
        c.set(k, v);
    }
    c.set("bootstrap.servers", &m.bootstrap)
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("allow.auto.create.topics", "false")
        .set("auto.offset.reset", "error")
        .set("enable.partition.eof", "true")
        .set("isolation.level", "read_uncommitted")
        .set("socket.timeout.ms", "10000")
        .set("fetch.max.bytes", "52428800")
        .set("max.partition.fetch.bytes", "10485760")
        .set("client.id", "rehearse-mirror");
    c
}

/// The range of offsets copied from one partition: [C − history, C + fresh) within
/// [log start, log end); when C is below the log start, the first `fresh` records it still has.
pub fn range(
    checkpointed: i64,
    log_start: i64,
    log_end: i64,
    history: u64,
    fresh: u64,
) -> (i64, i64) {
    let h = i64::try_from(history).unwrap_or(i64::MAX);
    let f = i64::try_from(fresh).unwrap_or(i64::MAX);
    let c = checkpointed.clamp(log_start, log_end.max(log_start));
    let lo = c.saturating_sub(h).max(log_start);
    let hi = c.saturating_add(f).min(log_end);
    (lo, hi.max(lo))
}

/// Reads, from the production cluster `m`, the records around `checkpointed` (per topic and
/// partition, the checkpoint's offsets). Blocking.
pub fn read(m: &MirrorConfig, checkpointed: &KafkaOffsets) -> Result<Mirror, MirrorError> {
    let secrets = m.secrets();
    let mask = |s: &str| rehearse_base::text::mask_secrets(s, &secrets).into_owned();
    let properties = m.properties_file.as_ref().map_or_else(
        || "[kafka.mirror] properties (none given)".to_string(),
        |p| p.display().to_string(),
    );
    let bootstrap = m.bootstrap.clone();
    let consumer: BaseConsumer<Errors> = client_config(m)
        .create_with_context(Errors::default())
        .map_err(|e| MirrorError::Unreachable {
            bootstrap: bootstrap.clone(),
            properties: properties.clone(),
            message: mask(&e.to_string()),
        })?;
    // Asked in short steps, serving the client's error events between them: a refused login
    // or "all brokers are down" (nothing listens there) is known within a second, not after
    // the whole request timeout.
    let started = Instant::now();
    let md = loop {
        let answer = consumer.fetch_metadata(None, Duration::from_secs(1));
        while let Some(Err(_)) = consumer.poll(Duration::ZERO) {}
        let ctx = consumer.context();
        match answer {
            Ok(md) if !md.brokers().is_empty() => break md,
            other => {
                if let Some(reason) = ctx.auth_failure() {
                    return Err(MirrorError::Auth {
                        bootstrap,
                        properties,
                        message: mask(&reason),
                    });
                }
                if ctx.all_brokers_down() || started.elapsed() >= REQUEST_TIMEOUT {
                    let message = match other {
                        Err(e) => format!(
                            "{e}{}",
                            ctx.last().map(|l| format!(" ({l})")).unwrap_or_default()
                        ),
                        Ok(_) => "no broker in the metadata answer".into(),
                    };
                    return Err(MirrorError::Unreachable {
                        bootstrap,
                        properties,
                        message: mask(&message),
                    });
                }
            }
        }
    };
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for t in md.topics() {
        if t.error().is_none() {
            counts.insert(t.name(), t.partitions().len());
        }
    }
    let mut mirror = Mirror {
        bootstrap: bootstrap.clone(),
        ..Mirror::default()
    };
    for (topic, parts) in checkpointed {
        // One topic at a time: the end-of-partition event names the partition only.
        let mut from: Vec<(i32, i64)> = Vec::new();
        let Some(&count) = counts.get(topic.as_str()) else {
            let mut known: Vec<&str> = counts
                .keys()
                .copied()
                .filter(|t| !t.starts_with("__"))
                .collect();
            known.truncate(10);
            return Err(MirrorError::TopicMissing {
                bootstrap,
                topic: topic.clone(),
                known: if known.is_empty() {
                    "no topic this user may see".into()
                } else {
                    known.join(", ")
                },
            });
        };
        for (&partition, &c) in parts {
            if partition as usize >= count {
                return Err(MirrorError::PartitionMissing {
                    bootstrap,
                    topic: topic.clone(),
                    partition,
                    count,
                });
            }
            let (low, high) = consumer
                .fetch_watermarks(topic, partition as i32, REQUEST_TIMEOUT)
                .map_err(|e| MirrorError::Read {
                    bootstrap: bootstrap.clone(),
                    topic: topic.clone(),
                    partition,
                    message: mask(&e.to_string()),
                })?;
            if c < low {
                mirror.data_loss.push(format!(
                    "{topic}/{partition}: the checkpoint's offset {c} is below the log start offset {low} (records {c}..{low} deleted by retention)"
                ));
            } else if c > high {
                mirror.data_loss.push(format!(
                    "{topic}/{partition}: the checkpoint's offset {c} is past the end offset {high} (the topic was recreated, or this is another cluster)"
                ));
            }
            let (lo, hi) = range(c, low, high, m.history, m.fresh);
            if hi > lo {
                from.push((partition as i32, lo));
            }
            mirror.partitions.push(PartitionMirror {
                topic: topic.clone(),
                partition,
                checkpointed: c,
                log_start: low,
                log_end: high,
                records: Vec::with_capacity((hi - lo).min(100_000) as usize),
            });
        }
        read_topic(&consumer, &mut mirror, topic, &from, m, &mask)?;
    }
    Ok(mirror)
}

/// Reads `topic`'s partitions from the offsets `from` names until each reached the end of its
/// range (or the end of its log, where compaction or transaction markers leave no record at the
/// range's last offsets), with the legacy per-partition consumer: no group.
fn read_topic(
    consumer: &BaseConsumer<Errors>,
    mirror: &mut Mirror,
    topic: &str,
    from: &[(i32, i64)],
    m: &MirrorConfig,
    mask: &dyn Fn(&str) -> String,
) -> Result<(), MirrorError> {
    if from.is_empty() {
        return Ok(());
    }
    // The end of each partition's range.
    let mut pending: BTreeMap<i32, i64> = BTreeMap::new();
    for &(partition, lo) in from {
        if let Some(p) = mirror.partition(topic, partition as u32) {
            let (_, hi) = range(p.checkpointed, p.log_start, p.log_end, m.history, m.fresh);
            debug_assert!(hi > lo);
            pending.insert(partition, hi);
        }
    }
    let bootstrap = mirror.bootstrap.clone();
    let read_err = |partition: i32, message: String| MirrorError::Read {
        bootstrap: bootstrap.clone(),
        topic: topic.to_string(),
        partition: partition as u32,
        message,
    };
    let mut reads = TopicReads::start(consumer.client(), topic, from)
        .map_err(|e| read_err(from[0].0, mask(&e)))?;
    let mut last_progress = Instant::now();
    while !pending.is_empty() {
        // The client's own events (authentication failures arrive only there).
        while let Some(Err(_)) = consumer.poll(Duration::ZERO) {}
        if let Some(reason) = consumer.context().auth_failure() {
            return Err(MirrorError::Auth {
                bootstrap: bootstrap.clone(),
                properties: m
                    .properties_file
                    .as_ref()
                    .map_or_else(String::new, |p| p.display().to_string()),
                message: mask(&reason),
            });
        }
        if last_progress.elapsed() > STALL_TIMEOUT {
            let (partition, end) = pending
                .iter()
                .next()
                .map(|(p, e)| (*p, *e))
                .unwrap_or_default();
            let why = consumer.context().last();
            return Err(read_err(
                partition,
                mask(&format!(
                    "no record for {} s before offset {end}{}",
                    STALL_TIMEOUT.as_secs(),
                    why.map(|w| format!(" ({w})")).unwrap_or_default()
                )),
            ));
        }
        for fetched in reads.batch(Duration::from_millis(200), BATCH) {
            match fetched {
                Fetched::Record(partition, record) => {
                    last_progress = Instant::now();
                    let Some(&end) = pending.get(&partition) else {
                        continue;
                    };
                    if record.offset >= end {
                        pending.remove(&partition);
                        continue;
                    }
                    let done = record.offset + 1 >= end;
                    if let Some(p) = mirror
                        .partitions
                        .iter_mut()
                        .find(|p| p.topic == topic && p.partition as i32 == partition)
                    {
                        p.records.push(record);
                    }
                    if done {
                        pending.remove(&partition);
                    }
                }
                Fetched::End(partition) => {
                    // The end of the log: nothing more below the range's end.
                    last_progress = Instant::now();
                    pending.remove(&partition);
                }
                Fetched::Failed(partition, _code, message) => {
                    if !pending.contains_key(&partition) {
                        continue;
                    }
                    return Err(read_err(partition, mask(&message)));
                }
            }
        }
    }
    Ok(())
}

/// [`read`] on a blocking thread.
pub async fn read_async(
    m: &MirrorConfig,
    checkpointed: &KafkaOffsets,
) -> Result<Mirror, MirrorError> {
    let (m2, c) = (m.clone(), checkpointed.clone());
    tokio::task::spawn_blocking(move || read(&m2, &c))
        .await
        .map_err(|e| MirrorError::Read {
            bootstrap: m.bootstrap.clone(),
            topic: String::new(),
            partition: 0,
            message: e.to_string(),
        })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_history_below_and_fresh_from_the_checkpoint_within_the_log() {
        assert_eq!(range(100, 0, 1000, 10, 5), (90, 105));
        assert_eq!(
            range(100, 95, 1000, 10, 5),
            (95, 105),
            "bounded by the log start"
        );
        assert_eq!(
            range(100, 0, 102, 10, 5),
            (90, 102),
            "bounded by the log end"
        );
        assert_eq!(
            range(3, 50, 80, 10, 5),
            (50, 55),
            "below the log start: what it still has"
        );
        assert_eq!(
            range(100, 0, 60, 10, 5),
            (50, 60),
            "past the end: the last records"
        );
        assert_eq!(range(0, 0, 0, 10, 5), (0, 0), "an empty partition");
    }

    #[test]
    fn data_loss_evidence_names_the_cluster_and_each_partition() {
        let m = Mirror {
            bootstrap: "prod:9093".into(),
            partitions: vec![],
            data_loss: vec!["t/0: below".into()],
        };
        let e = m.data_loss_evidence().unwrap();
        assert!(
            e.contains("prod:9093") && e.contains("t/0: below") && e.contains("kafka-data-loss"),
            "{e}"
        );
        assert!(Mirror::default().data_loss_evidence().is_none());
    }
}

#[cfg(test)]
mod acl_tests {
    use super::*;

    /// A read refused on the topic ACL is bad input naming the two ACLs to grant (no group);
    /// other read failures stay the environment's, without that hint.
    #[test]
    fn a_topic_acl_denial_names_read_and_describe_and_is_bad_input() {
        use rehearse_base::{ErrorKind, HasErrorKind};
        let read = |message: &str| MirrorError::Read {
            bootstrap: "b:9093".into(),
            topic: "events".into(),
            partition: 0,
            message: message.into(),
        };
        let denied = read("Broker: Topic authorization failed");
        assert!(matches!(denied.error_kind(), ErrorKind::BadInput));
        let text = denied.to_string();
        assert!(
            text.contains("--operation Read --operation Describe --topic")
                && text.contains("no consumer group"),
            "{text}"
        );
        let other = read("Local: Timed out");
        assert!(matches!(other.error_kind(), ErrorKind::Environment));
        assert!(!other.to_string().contains("hint"));
    }

    /// Nothing in the client's configuration names a group or could commit: without a
    /// `group.id` librdkafka makes no consumer-group handle and sends no FindCoordinator.
    #[test]
    fn the_client_has_no_group_and_never_commits() {
        let m = rehearse_scenario::mirror_config(
            "prod:9093",
            None,
            None,
            None,
            std::path::Path::new("."),
        )
        .unwrap();
        let c = client_config(&m);
        assert_eq!(c.get("group.id"), None);
        assert_eq!(c.get("enable.auto.commit"), Some("false"));
        assert_eq!(c.get("allow.auto.create.topics"), Some("false"));
    }
}
