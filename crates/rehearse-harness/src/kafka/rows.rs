//! Whole records read back from the sandbox broker for a control run's comparison (issue 13
//! §3): every record an output topic got after the restart, as `key=… value=…` rows
//! ([`records_after`]), and a digest of every record of the input topics ([`input_digest`]),
//! which proves two trials' brokers were seeded with the same records. Only the sandbox
//! broker is read here (assigned partitions, nothing committed); nothing is written.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use super::error::KafkaError;
use super::seed::end_offsets;
use rehearse_checkpoint::KafkaOffsets;

/// Most records read back per topic for a comparison: beyond it the comparison is cut and
/// says so (a sandbox trial writes a few hundred).
pub const MAX_ROWS_PER_TOPIC: usize = 200_000;

/// What one topic held in a range of offsets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicRows {
    /// The topic.
    pub topic: String,
    /// `key=<key> value=<value>` per record, partition by partition in offset order; keys and
    /// values as UTF-8 text, or `base64:…` for other bytes (headers and timestamps left out).
    pub rows: Vec<String>,
    /// Records in the range that could not be read within the wait, or past
    /// [`MAX_ROWS_PER_TOPIC`] (0 when every record was read).
    pub missing: u64,
}

/// Every record each of `topics` got since `before` (its end offsets before the restart), up to
/// its end offsets now.
///
/// # Errors
/// A client error of the sandbox broker.
pub async fn records_after(
    bootstrap: &str,
    topics: &[String],
    before: &KafkaOffsets,
) -> Result<Vec<TopicRows>, KafkaError> {
    if topics.is_empty() {
        return Ok(Vec::new());
    }
    let after = end_offsets(bootstrap, topics).await?;
    let (bootstrap, topics, before) = (bootstrap.to_string(), topics.to_vec(), before.clone());
    blocking(move || {
        topics
            .iter()
            .map(|t| {
                let empty = BTreeMap::new();
                let from = before.get(t).unwrap_or(&empty);
                let to = after.get(t).unwrap_or(&empty);
                let mut rows = Vec::new();
                let missing = read_range(&bootstrap, t, from, to, &mut |m| {
                    rows.push(format!("key={} value={}", text(m.key()), text(m.payload())));
                })?;
                Ok(TopicRows {
                    topic: t.clone(),
                    rows,
                    missing,
                })
            })
            .collect()
    })
    .await
}

/// Two blake3 digests (hex) of the input topics' records, which two trials compare to prove
/// their brokers got the same records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDigest {
    /// Every record's topic, partition, offset, key, value and headers.
    pub records: String,
    /// Every record's timestamp, in the same order: apart, because records without a
    /// timestamp of their own get the producer's clock, which no two seedings share.
    pub timestamps: String,
}

/// The [`InputDigest`] of every record of `topics`, from offset 0 to the end. Two brokers
/// seeded with the same records give the same digest; a record of a mirror read at another
/// moment does not.
///
/// # Errors
/// A client error of the sandbox broker, or a record that could not be read within the wait.
pub async fn input_digest(bootstrap: &str, topics: &[String]) -> Result<InputDigest, KafkaError> {
    let ends = end_offsets(bootstrap, topics).await?;
    let bootstrap = bootstrap.to_string();
    blocking(move || {
        let mut h = blake3::Hasher::new();
        let mut times = blake3::Hasher::new();
        for (topic, to) in &ends {
            let from = BTreeMap::new();
            let missing = read_range(&bootstrap, topic, &from, to, &mut |m| {
                h.update(topic.as_bytes());
                h.update(&m.partition().to_le_bytes());
                h.update(&m.offset().to_le_bytes());
                for part in [m.key(), m.payload()] {
                    h.update(&(part.map_or(-1, |b| b.len() as i64)).to_le_bytes());
                    h.update(part.unwrap_or_default());
                }
                times.update(&m.timestamp().to_millis().unwrap_or(-1).to_le_bytes());
                if let Some(hs) = m.headers() {
                    for hd in hs.iter() {
                        h.update(hd.key.as_bytes());
                        h.update(hd.value.unwrap_or_default());
                    }
                }
            })?;
            if missing > 0 {
                return Err(KafkaError::Client {
                    bootstrap: bootstrap.clone(),
                    message: format!(
                        "{missing} records of {topic} could not be read back for the seeding digest"
                    ),
                });
            }
        }
        Ok(InputDigest {
            records: h.finalize().to_hex().to_string(),
            timestamps: times.finalize().to_hex().to_string(),
        })
    })
    .await
}

/// Runs `f` on a blocking thread (the consumer polls).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, KafkaError> + Send + 'static,
) -> Result<T, KafkaError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| KafkaError::Client {
            bootstrap: String::new(),
            message: e.to_string(),
        })?
}

/// Calls `each` on every record of `topic` from `from` (0 where absent) to `to` (exclusive),
/// per partition; returns how many could not be read (within 30 s, or past
/// [`MAX_ROWS_PER_TOPIC`]).
fn read_range(
    bootstrap: &str,
    topic: &str,
    from: &BTreeMap<u32, i64>,
    to: &BTreeMap<u32, i64>,
    each: &mut dyn FnMut(&rdkafka::message::BorrowedMessage<'_>),
) -> Result<u64, KafkaError> {
    let err = |e: rdkafka::error::KafkaError| KafkaError::Client {
        bootstrap: bootstrap.into(),
        message: e.to_string(),
    };
    let start = |p: &u32| from.get(p).copied().unwrap_or(0).max(0);
    let wanted: u64 = to
        .iter()
        .map(|(p, end)| (end - start(p)).max(0) as u64)
        .sum();
    if wanted == 0 {
        return Ok(0);
    }
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("socket.timeout.ms", "10000")
        .set("group.id", "rehearse-parity-evidence")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .create()
        .map_err(err)?;
    let mut tpl = TopicPartitionList::new();
    for (p, end) in to {
        if *end > start(p) {
            tpl.add_partition_offset(topic, *p as i32, Offset::Offset(start(p)))
                .map_err(err)?;
        }
    }
    consumer.assign(&tpl).map_err(err)?;
    let limit = wanted.min(MAX_ROWS_PER_TOPIC as u64);
    let mut read = 0u64;
    let deadline = Instant::now() + Duration::from_secs(30);
    while read < limit && Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => {
                let end = to.get(&(m.partition() as u32)).copied().unwrap_or(0);
                if m.offset() < end {
                    each(&m);
                    read += 1;
                }
            }
            Some(Err(e)) => return Err(err(e)),
            None => {}
        }
    }
    Ok(wanted - read)
}

/// Bytes as a row shows them: UTF-8 text whole, else `base64:…`; `<null>` for none (a
/// tombstone's value, a record without key) — not `null`, which is also a value's text: a
/// tombstone and the string "null" compared equal (breaker pass, session 7).
fn text(bytes: Option<&[u8]>) -> String {
    use base64::Engine as _;
    match bytes {
        None => "<null>".into(),
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => format!(
                "base64:{}",
                base64::engine::general_purpose::STANDARD.encode(b)
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_show_text_whole_and_other_bytes_as_base64() {
        assert_eq!(super::text(None), "<null>");
        assert_ne!(super::text(None), super::text(Some(b"null")));
        let long = "x".repeat(500);
        assert_eq!(
            super::text(Some(long.as_bytes())),
            long,
            "never cut: rows are compared"
        );
        assert_eq!(super::text(Some(&[0xff, 0])), "base64:/wA=");
    }
}
