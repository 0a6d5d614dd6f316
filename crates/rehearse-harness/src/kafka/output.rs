//! The job's output topics (`[[output_topics]]`) on the sandbox broker: created empty before
//! the generation and before each trial ([`ensure_output_topics`]), their end offsets taken
//! before the restarted job starts, and after it the records it wrote there counted and a few
//! shown ([`read_output`]) — evidence that the restarted query reached its sink, not a verdict.
//! Only the sandbox broker is ever read or written here.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use super::error::KafkaError;
use super::seed::end_offsets;
use rehearse_checkpoint::KafkaOffsets;
use rehearse_scenario::OutputTopic;

/// Records shown per output topic as evidence.
pub const OUTPUT_SAMPLE: usize = 3;
/// Characters of a key, value or header shown per sampled record.
const SHOWN_CHARS: usize = 80;

/// What the restarted job wrote to one output topic, as the run report shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutputCount {
    /// The topic (its name on the sandbox broker).
    pub topic: String,
    /// Records written after the restart: end offsets after the trial minus before the job
    /// started, summed over partitions.
    pub records_after_restart: u64,
    /// A few of them, `p<partition>@<offset> key=… value=… headers=…`, truncated and
    /// sanitized (non-UTF-8 bytes shown as base64).
    pub sample: Vec<String>,
}

fn config(bootstrap: &str) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", bootstrap)
        .set("socket.timeout.ms", "10000");
    c
}

/// Creates every output topic that does not exist yet on the sandbox broker (a broker of the
/// trial's own has none; a suite's keeps a group's topics), with its partitions and configs.
/// A config the broker refuses is named in the error.
pub async fn ensure_output_topics(
    bootstrap: &str,
    topics: &[OutputTopic],
) -> Result<(), KafkaError> {
    if topics.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = topics.iter().map(|t| t.name.clone()).collect();
    let existing = end_offsets(bootstrap, &names).await?;
    let missing: Vec<&OutputTopic> = topics
        .iter()
        .filter(|t| !existing.contains_key(&t.name))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let client = |e: rdkafka::error::KafkaError| KafkaError::Client {
        bootstrap: bootstrap.into(),
        message: e.to_string(),
    };
    let admin: AdminClient<DefaultClientContext> = config(bootstrap).create().map_err(client)?;
    let new: Vec<NewTopic> = missing
        .iter()
        .map(|t| {
            t.config.iter().fold(
                NewTopic::new(&t.name, t.partitions as i32, TopicReplication::Fixed(1)),
                |n, (k, v)| n.set(k, v),
            )
        })
        .collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    for r in admin
        .create_topics(new.iter(), &opts)
        .await
        .map_err(client)?
    {
        if let Err((topic, code)) = r {
            let config: Vec<String> = missing
                .iter()
                .find(|t| t.name == topic)
                .map(|t| t.config.iter().map(|(k, v)| format!("{k}={v}")).collect())
                .unwrap_or_default();
            return Err(KafkaError::CreateTopic {
                topic,
                bootstrap: bootstrap.into(),
                message: if config.is_empty() {
                    code.to_string()
                } else {
                    format!(
                        "{code} (configs from [[output_topics]]: {})",
                        config.join(", ")
                    )
                },
            });
        }
    }
    Ok(())
}

/// End offsets of the output topics now (before the restarted job starts).
pub async fn output_offsets(
    bootstrap: &str,
    topics: &[OutputTopic],
) -> Result<KafkaOffsets, KafkaError> {
    if topics.is_empty() {
        return Ok(KafkaOffsets::new());
    }
    let names: Vec<String> = topics.iter().map(|t| t.name.clone()).collect();
    end_offsets(bootstrap, &names).await
}

/// Per output topic, the records written since `before` and up to [`OUTPUT_SAMPLE`] of them,
/// read from the sandbox broker (assigned partitions, no consumer group, nothing committed).
pub async fn read_output(
    bootstrap: &str,
    topics: &[OutputTopic],
    before: &KafkaOffsets,
) -> Result<Vec<OutputCount>, KafkaError> {
    if topics.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = topics.iter().map(|t| t.name.clone()).collect();
    let after = end_offsets(bootstrap, &names).await?;
    let before = before.clone();
    let bootstrap = bootstrap.to_string();
    tokio::task::spawn_blocking(move || {
        names
            .iter()
            .map(|name| count_and_sample(&bootstrap, name, before.get(name), after.get(name)))
            .collect()
    })
    .await
    .map_err(|e| KafkaError::Client {
        bootstrap: String::new(),
        message: e.to_string(),
    })?
}

fn count_and_sample(
    bootstrap: &str,
    topic: &str,
    before: Option<&BTreeMap<u32, i64>>,
    after: Option<&BTreeMap<u32, i64>>,
) -> Result<OutputCount, KafkaError> {
    let empty = BTreeMap::new();
    let (before, after) = (before.unwrap_or(&empty), after.unwrap_or(&empty));
    let start = |p: &u32| before.get(p).copied().unwrap_or(0).max(0);
    let written: u64 = after
        .iter()
        .map(|(p, end)| (end - start(p)).max(0) as u64)
        .sum();
    let mut out = OutputCount {
        topic: topic.to_string(),
        records_after_restart: written,
        sample: Vec::new(),
    };
    if written == 0 {
        return Ok(out);
    }
    let err = |e: rdkafka::error::KafkaError| KafkaError::Client {
        bootstrap: bootstrap.into(),
        message: e.to_string(),
    };
    let consumer: BaseConsumer = config(bootstrap)
        .set("group.id", "rehearse-output-evidence")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .create()
        .map_err(err)?;
    let mut tpl = TopicPartitionList::new();
    for (p, end) in after {
        if *end > start(p) {
            tpl.add_partition_offset(topic, *p as i32, Offset::Offset(start(p)))
                .map_err(err)?;
        }
    }
    consumer.assign(&tpl).map_err(err)?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while out.sample.len() < OUTPUT_SAMPLE.min(written as usize) && Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => {
                let mut line = format!(
                    "p{}@{} key={} value={}",
                    m.partition(),
                    m.offset(),
                    shown(m.key()),
                    shown(m.payload())
                );
                if let Some(h) = m.headers() {
                    let hs: Vec<String> = h
                        .iter()
                        .map(|h| format!("{}={}", shown(Some(h.key.as_bytes())), shown(h.value)))
                        .collect();
                    line.push_str(&format!(" headers=[{}]", hs.join(", ")));
                }
                out.sample.push(line);
            }
            Some(Err(e)) => return Err(err(e)),
            None => {}
        }
    }
    Ok(out)
}

/// Bytes as a reader may see them: UTF-8 text sanitized (controls removed, newlines and tabs
/// escaped), else `base64:…`; at most [`SHOWN_CHARS`] characters, `…` when cut; `null` for none.
pub fn shown(bytes: Option<&[u8]>) -> String {
    use base64::Engine as _;
    let Some(bytes) = bytes else {
        return "null".into();
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => {
            rehearse_base::text::sanitize(&s.replace('\n', "\\n").replace('\t', "\\t")).into_owned()
        }
        Err(_) => format!(
            "base64:{}",
            base64::engine::general_purpose::STANDARD
                .encode(&bytes[..bytes.len().min(SHOWN_CHARS)])
        ),
    };
    if text.chars().count() > SHOWN_CHARS {
        let cut: String = text.chars().take(SHOWN_CHARS).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_bytes_are_sanitized_truncated_and_binary_safe() {
        assert_eq!(shown(None), "null");
        assert_eq!(shown(Some(b"a\nb\x1b[31mc\t")), "a\\nbc\\t");
        assert_eq!(shown(Some(&[0xff, 0x00])), "base64:/wA=");
        let long = "x".repeat(200);
        let s = shown(Some(long.as_bytes()));
        assert_eq!(s.chars().count(), SHOWN_CHARS + 1);
        assert!(s.ends_with('…'));
    }
}
