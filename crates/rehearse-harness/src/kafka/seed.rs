//! Seeding plan (pure) and its execution against a broker (blocking rdkafka calls, run on a
//! blocking thread by the async wrappers).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::types::RDKafkaErrorCode;

use super::error::KafkaError;
use super::mirror::Mirror;
use super::records::{Record, TopicRecords};
use rehearse_checkpoint::KafkaOffsets;
use rehearse_scenario::{RecordSource, Topic};

/// How the sandbox Kafka was seeded for a trial: what [`seed`] did, as the run report shows it.
/// The `Serialize` derive is not the report's JSON form (`report/json.rs` writes the topics as
/// objects, not `[name, partitions]` pairs).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SeedingSummary {
    /// Records produced to fill offsets up to the checkpoint's (template records).
    pub filler_records: u64,
    /// Fresh records produced after the checkpointed offsets (new work for the restart).
    pub fresh_records: u64,
    /// Topics created, with their partition counts.
    pub topics: Vec<(String, u32)>,
    /// Whether offsets were rebased in the sandbox copy (too large to produce).
    pub rebased: bool,
    /// What came from a production cluster (`[kafka.mirror]`), if anything did.
    pub mirrored: Option<MirrorSummary>,
    /// Partitions of a `records_file` with offsets whose records lie below the rebase base
    /// (so before every offset the checkpoint's retained batches name): not seeded, as the
    /// restart never reads them. A file from another time than the checkpoint shows here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub below_base: Vec<BelowBase>,
}

/// Records of one partition of a `records_file` that lie below the rebase base: not seeded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BelowBase {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: u32,
    /// Records of the file below `base`.
    pub records: u64,
    /// Of the file's records of this partition, those seeded (at or past `base`).
    pub seeded: u64,
    /// The base: the lowest production offset the sandbox holds (it is sandbox offset 0).
    pub base: i64,
}

impl BelowBase {
    /// The records of `offsets` (one partition's production offsets) below `base`, if any.
    pub fn of(topic: &str, partition: u32, offsets: &[i64], base: i64) -> Option<BelowBase> {
        let records = offsets.iter().filter(|o| **o < base).count() as u64;
        (records > 0).then(|| BelowBase {
            topic: topic.to_string(),
            partition,
            records,
            seeded: offsets.len() as u64 - records,
            base,
        })
    }
}

/// What to produce into one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionPlan {
    /// Partition id.
    pub partition: u32,
    /// Filler records so the end offset reaches the checkpoint's (offsets 0..filler).
    pub filler: u64,
    /// Fresh records after the filler.
    pub fresh: u64,
    /// The checkpoint's offset in this partition (the highest any retained `offsets/N` names;
    /// 0 when it names none): `{timestamp_ms}` counts steps from here.
    pub checkpointed: u64,
}

/// What to create and produce for one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPlan {
    /// Topic name.
    pub name: String,
    /// Partition count to create.
    pub partitions: u32,
    /// Per-partition records.
    pub per_partition: Vec<PartitionPlan>,
    /// Record values.
    pub records: RecordSource,
    /// `{timestamp_ms}` step between records, ms.
    pub time_step_ms: u64,
    /// Whether template records carry `{timestamp_ms}` as their Kafka timestamp.
    pub kafka_timestamp: bool,
}

impl TopicPlan {
    /// The records of this topic with `{timestamp_ms}` counted from `base_ms` at each
    /// partition's checkpointed offset.
    pub fn records_from(&self, base_ms: i64) -> Result<TopicRecords, KafkaError> {
        Ok(TopicRecords::new(
            &self.name,
            &self.records,
            self.partitions,
            base_ms,
            self.time_step_ms,
            self.kafka_timestamp,
        )?
        .counting_from(
            self.per_partition
                .iter()
                .map(|p| (p.partition, p.checkpointed))
                .collect(),
        ))
    }
}

/// The whole seeding of a trial's Kafka.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SeedPlan {
    /// Topics in name order.
    pub topics: Vec<TopicPlan>,
    /// `{timestamp_ms}` of record 0 ([`time_base_ms`](super::time_base_ms) of the checkpoint).
    pub time_base_ms: i64,
    /// Per topic-partition, the base a rebase of the sandbox copy subtracted (production
    /// offset − base = sandbox offset; empty: none): where a records file's production offsets
    /// land.
    pub bases: KafkaOffsets,
}

/// Plans seeding from what the checkpoint needs and what the scenario says.
///
/// `required`: per topic-partition the highest offset any retained `offsets/N` names;
/// `partition_counts`: partitions per topic seen in the checkpoint. A topic in the checkpoint
/// but not in the scenario gets default records; a scenario topic absent from the checkpoint
/// (a new source, or generation) gets the scenario's partition count and fresh records only.
pub fn plan(
    required: &KafkaOffsets,
    partition_counts: &BTreeMap<String, u32>,
    topics: &[Topic],
) -> SeedPlan {
    let mut names: Vec<String> = partition_counts.keys().cloned().collect();
    for t in topics {
        if !names.contains(&t.name) {
            names.push(t.name.clone());
        }
    }
    names.sort();
    let default_records = RecordSource::Template("{\"n\":{n},\"partition\":{partition}}".into());
    let plans = names
        .into_iter()
        .map(|name| {
            let spec = topics.iter().find(|t| t.name == name);
            let partitions = partition_counts
                .get(&name)
                .copied()
                .unwrap_or_else(|| spec.map(|s| s.partitions).unwrap_or(1));
            let fill = spec.map(|s| s.fill_to_checkpoint).unwrap_or(true);
            let fresh = spec
                .map(|s| s.fresh_records)
                .unwrap_or(rehearse_scenario::DEFAULT_FRESH_RECORDS);
            let per_partition = (0..partitions)
                .map(|p| {
                    let need = required
                        .get(&name)
                        .and_then(|m| m.get(&p))
                        .copied()
                        .unwrap_or(0)
                        .max(0) as u64;
                    PartitionPlan {
                        partition: p,
                        filler: if fill { need } else { 0 },
                        fresh,
                        checkpointed: need,
                    }
                })
                .collect();
            TopicPlan {
                records: spec
                    .map(|s| s.records.clone())
                    .unwrap_or_else(|| default_records.clone()),
                name,
                partitions,
                per_partition,
                time_step_ms: spec
                    .map_or(rehearse_scenario::DEFAULT_TIME_STEP_MS, |s| s.time_step_ms),
                kafka_timestamp: spec.is_some_and(|s| s.kafka_timestamp),
            }
        })
        .collect();
    SeedPlan {
        topics: plans,
        time_base_ms: 0,
        bases: KafkaOffsets::new(),
    }
}

fn config(bootstrap: &str) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", bootstrap)
        .set("socket.timeout.ms", "10000")
        .set("message.timeout.ms", "30000");
    c
}

/// Waits until the broker answers a real metadata request (not just an open port).
pub async fn wait_ready(bootstrap: &str, timeout: Duration) -> Result<(), KafkaError> {
    let bootstrap = bootstrap.to_string();
    tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        let consumer: BaseConsumer =
            config(&bootstrap)
                .create()
                .map_err(|e| KafkaError::Client {
                    bootstrap: bootstrap.clone(),
                    message: e.to_string(),
                })?;
        loop {
            match consumer.fetch_metadata(None, Duration::from_secs(2)) {
                Ok(md) if !md.brokers().is_empty() => return Ok(()),
                Ok(_) => {}
                Err(e) if start.elapsed() >= timeout => {
                    return Err(KafkaError::NotReady {
                        bootstrap,
                        seconds: timeout.as_secs(),
                        last_error: e.to_string(),
                    })
                }
                Err(_) => {}
            }
            if start.elapsed() >= timeout {
                return Err(KafkaError::NotReady {
                    bootstrap,
                    seconds: timeout.as_secs(),
                    last_error: "no brokers in metadata".into(),
                });
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    })
    .await
    .map_err(|e| KafkaError::Client {
        bootstrap: String::new(),
        message: e.to_string(),
    })?
}

/// Creates topics with the given partition counts (replication 1). An existing topic is an error.
pub async fn create_topics(bootstrap: &str, topics: &[(String, u32)]) -> Result<(), KafkaError> {
    let admin: AdminClient<DefaultClientContext> =
        config(bootstrap).create().map_err(|e| KafkaError::Client {
            bootstrap: bootstrap.into(),
            message: e.to_string(),
        })?;
    let new: Vec<NewTopic> = topics
        .iter()
        .map(|(name, partitions)| {
            NewTopic::new(name, *partitions as i32, TopicReplication::Fixed(1))
        })
        .collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    let results = admin
        .create_topics(new.iter(), &opts)
        .await
        .map_err(|e| KafkaError::Client {
            bootstrap: bootstrap.into(),
            message: e.to_string(),
        })?;
    for r in results {
        if let Err((topic, code)) = r {
            return Err(KafkaError::CreateTopic {
                topic,
                bootstrap: bootstrap.into(),
                message: code.to_string(),
            });
        }
    }
    Ok(())
}

/// One producer for a whole seeding (a producer per partition cost a connection and a
/// metadata round trip each): records are queued with [`Producing::send`] and delivered by
/// [`Producing::flush`].
pub struct Producing {
    producer: BaseProducer,
    bootstrap: String,
}

impl Producing {
    /// A producer for the sandbox broker at `bootstrap`.
    pub fn new(bootstrap: &str) -> Result<Producing, KafkaError> {
        let producer: BaseProducer = config(bootstrap)
            .set("linger.ms", "20")
            .set("batch.num.messages", "10000")
            .set("batch.size", "1000000")
            .set("queue.buffering.max.messages", "1000000")
            .set("queue.buffering.max.kbytes", "1048576")
            .set("enable.idempotence", "false")
            .set("acks", "1")
            .create()
            .map_err(|e| KafkaError::Client {
                bootstrap: bootstrap.into(),
                message: e.to_string(),
            })?;
        Ok(Producing {
            producer,
            bootstrap: bootstrap.into(),
        })
    }

    /// Queues one record for `topic`/`partition` (keys, headers and timestamp kept), waiting
    /// while the client's queue is full.
    pub fn send(&self, topic: &str, partition: u32, r: &Record<'_>) -> Result<(), KafkaError> {
        let mut record: BaseRecord<'_, [u8], [u8]> =
            BaseRecord::to(topic).partition(partition as i32);
        if let Some(k) = r.key.as_deref() {
            record = record.key(k);
        }
        if let Some(v) = r.value.as_deref() {
            record = record.payload(v);
        }
        if let Some(ts) = r.timestamp_ms {
            record = record.timestamp(ts);
        }
        if !r.headers.is_empty() {
            let headers = r
                .headers
                .iter()
                .fold(OwnedHeaders::new(), |h, (key, value)| {
                    h.insert(Header {
                        key,
                        value: value.as_deref(),
                    })
                });
            record = record.headers(headers);
        }
        loop {
            match self.producer.send(record) {
                Ok(()) => break,
                Err((e, r)) if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull) => {
                    self.producer.poll(Duration::from_millis(20));
                    record = r;
                }
                Err((e, _)) => {
                    return Err(KafkaError::Produce {
                        topic: topic.into(),
                        partition,
                        bootstrap: self.bootstrap.clone(),
                        message: e.to_string(),
                    })
                }
            }
        }
        self.producer.poll(Duration::ZERO);
        Ok(())
    }

    /// Waits until every queued record is delivered (`topic`/`partition` name the error).
    pub fn flush(&self, topic: &str, partition: u32) -> Result<(), KafkaError> {
        self.producer
            .flush(Duration::from_secs(120))
            .map_err(|e| KafkaError::Produce {
                topic: topic.into(),
                partition,
                bootstrap: self.bootstrap.clone(),
                message: e.to_string(),
            })
    }
}

/// Produces `count` records to `topic`/`partition`: `records.record(partition, n)` for `n` in
/// `first..first + count` (keys, headers and timestamps kept). Blocking; flushes before
/// returning.
pub fn produce(
    bootstrap: &str,
    topic: &str,
    partition: u32,
    records: &TopicRecords,
    first: u64,
    count: u64,
) -> Result<(), KafkaError> {
    if count == 0 {
        return Ok(());
    }
    let p = Producing::new(bootstrap)?;
    for n in first..first + count {
        p.send(topic, partition, &records.record(partition, n))?;
    }
    p.flush(topic, partition)
}

/// Records copied from a production cluster (`[kafka.mirror]`) into the sandbox broker.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct MirrorSummary {
    /// The production cluster's bootstrap servers.
    pub from: String,
    /// Records copied.
    pub records: u64,
    /// Key, value and header bytes copied.
    pub bytes: u64,
    /// Of the records copied, those at or past the checkpoint's offsets (the restart's new work).
    pub fresh_records: u64,
    /// Template records put where the production log had no record (compaction, transaction
    /// markers, a history below the rebase base), so offsets stay aligned.
    pub gap_fillers: u64,
}

/// What seeding puts at one sandbox offset of a mirrored partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A template record (below the mirrored range, or where the production log has no record).
    Filler,
    /// The mirrored record of this index.
    Mirrored(usize),
}

/// The records of a mirrored partition from the sandbox's current `end` on, one per sandbox
/// offset: production offset `o` goes to `o − base` (records below the base are dropped, as
/// those already in the sandbox below `end`), template filler wherever no record lands, and
/// filler on up to `fill_to` (the checkpoint's offset in the sandbox) when production ends
/// before it (its data-loss evidence decides the verdict). `offsets` ascend. Pure: the offset
/// alignment a restart depends on, tested without a broker.
///
/// An iterator, one slot at a time: the count of filler slots comes from the offsets (a user's
/// `records_file` among them), so it is never allocated (an offset of i64::MAX once made seeding
/// allocate 8 GiB and abort; issue 25 §4 — the load checks bound it as well).
pub fn mirror_slots(offsets: &[i64], base: i64, end: u64, fill_to: u64) -> MirrorSlots<'_> {
    MirrorSlots {
        offsets,
        base,
        pos: end,
        fill_to,
        next: 0,
    }
}

/// The slots [`mirror_slots`] yields, computed as they are taken.
#[derive(Debug, Clone)]
pub struct MirrorSlots<'a> {
    offsets: &'a [i64],
    base: i64,
    /// The sandbox offset of the next slot.
    pos: u64,
    fill_to: u64,
    /// The index of the next offset not yet placed.
    next: usize,
}

impl Iterator for MirrorSlots<'_> {
    type Item = Slot;

    fn next(&mut self) -> Option<Slot> {
        while let Some(&o) = self.offsets.get(self.next) {
            let at = o.checked_sub(self.base).and_then(|s| u64::try_from(s).ok());
            match at {
                // Below the base or below what the sandbox already holds: dropped.
                Some(at) if at >= self.pos => {
                    self.pos += 1;
                    if self.pos > at {
                        self.next += 1;
                        return Some(Slot::Mirrored(self.next - 1));
                    }
                    return Some(Slot::Filler);
                }
                _ => self.next += 1,
            }
        }
        (self.pos < self.fill_to).then(|| {
            self.pos += 1;
            Slot::Filler
        })
    }
}

/// A mirror to seed from, with the bases a rebase subtracted (production offset − base =
/// sandbox offset).
pub struct MirrorSeed<'a> {
    /// What was read from production.
    pub mirror: &'a Mirror,
    /// Per topic-partition, the base subtracted from the checkpoint's offsets (empty: none).
    pub bases: &'a KafkaOffsets,
}

/// Executes a plan on a broker that may already hold some of its topics (a suite's shared
/// broker, where the generation of the checkpoint produced them): creates the missing topics,
/// reads each partition's end offset, produces filler records from there up to the plan's
/// filler offset, then the fresh records. On an empty broker this is the whole plan.
pub async fn seed(bootstrap: &str, plan: &SeedPlan) -> Result<SeedingSummary, KafkaError> {
    seed_from(bootstrap, plan, None).await
}

/// [`seed`], with the partitions `mirror` read placed at their production offsets (less the
/// rebase base): template filler below and in the log's gaps, the production records, then
/// filler up to the checkpoint's offset where the production log ends before it (its data-loss
/// evidence says so). A partition the mirror did not read is seeded as [`seed`] does.
pub async fn seed_from(
    bootstrap: &str,
    plan: &SeedPlan,
    mirror: Option<MirrorSeed<'_>>,
) -> Result<SeedingSummary, KafkaError> {
    let topics: Vec<(String, u32)> = plan
        .topics
        .iter()
        .map(|t| (t.name.clone(), t.partitions))
        .collect();
    let names: Vec<String> = topics.iter().map(|(n, _)| n.clone()).collect();
    let existing = end_offsets(bootstrap, &names).await?;
    let missing: Vec<(String, u32)> = topics
        .iter()
        .filter(|(n, _)| !existing.contains_key(n))
        .cloned()
        .collect();
    if !missing.is_empty() {
        create_topics(bootstrap, &missing).await?;
    }
    let bootstrap_owned = bootstrap.to_string();
    let plan = plan.clone();
    let mirror = mirror.map(|m| (m.mirror.clone(), m.bases.clone()));
    tokio::task::spawn_blocking(move || {
        let mut summary = SeedingSummary {
            topics: topics.clone(),
            ..SeedingSummary::default()
        };
        let producing = Producing::new(&bootstrap_owned)?;
        let mut mirrored = mirror.as_ref().map(|(m, _)| MirrorSummary {
            from: m.bootstrap.clone(),
            ..MirrorSummary::default()
        });
        for t in &plan.topics {
            let records = t.records_from(plan.time_base_ms)?;
            for p in &t.per_partition {
                let end = existing
                    .get(&t.name)
                    .and_then(|m| m.get(&p.partition))
                    .copied()
                    .unwrap_or(0)
                    .max(0) as u64;
                let from_mirror = mirror.as_ref().and_then(|(m, bases)| {
                    let base = bases
                        .get(&t.name)
                        .and_then(|b| b.get(&p.partition))
                        .copied()
                        .unwrap_or(0);
                    m.partition(&t.name, p.partition).map(|pm| (pm, base))
                });
                if let (Some((pm, base)), Some(ms)) = (from_mirror, mirrored.as_mut()) {
                    let offsets: Vec<i64> = pm.records.iter().map(|r| r.offset).collect();
                    let mut placed = false;
                    for (pos, slot) in (end..).zip(mirror_slots(&offsets, base, end, p.filler)) {
                        match slot {
                            Slot::Filler => {
                                producing.send(
                                    &t.name,
                                    p.partition,
                                    &records.record(p.partition, pos),
                                )?;
                                if placed {
                                    ms.gap_fillers += 1;
                                }
                                summary.filler_records += 1;
                            }
                            Slot::Mirrored(i) => {
                                let r = &pm.records[i];
                                producing.send(&t.name, p.partition, &r.record())?;
                                placed = true;
                                ms.records += 1;
                                ms.bytes += r.bytes();
                                if r.offset >= pm.checkpointed {
                                    ms.fresh_records += 1;
                                    summary.fresh_records += 1;
                                }
                            }
                        }
                    }
                    continue;
                }
                if records.by_offset() {
                    // A capture's records file: each record at its production offset less the
                    // base, by the mirror's one rule.
                    let base = plan
                        .bases
                        .get(&t.name)
                        .and_then(|b| b.get(&p.partition))
                        .copied()
                        .unwrap_or(0);
                    let placed = records.placed(p.partition);
                    let offsets: Vec<i64> = placed.iter().map(|(o, _)| *o).collect();
                    summary
                        .below_base
                        .extend(BelowBase::of(&t.name, p.partition, &offsets, base));
                    for (pos, slot) in (end..).zip(mirror_slots(&offsets, base, end, p.filler)) {
                        match slot {
                            Slot::Filler => {
                                producing.send(
                                    &t.name,
                                    p.partition,
                                    &records.filler(p.partition, pos),
                                )?;
                                summary.filler_records += 1;
                            }
                            Slot::Mirrored(i) => {
                                producing.send(&t.name, p.partition, &placed[i].1)?;
                                if pos >= p.checkpointed {
                                    summary.fresh_records += 1;
                                }
                            }
                        }
                    }
                    continue;
                }
                let filler = p.filler.saturating_sub(end);
                for n in end..end + filler + p.fresh {
                    producing.send(&t.name, p.partition, &records.record(p.partition, n))?;
                }
                summary.filler_records += filler;
                summary.fresh_records += p.fresh;
            }
            producing.flush(&t.name, 0)?;
        }
        summary.mirrored = mirrored;
        Ok(summary)
    })
    .await
    .map_err(|e| KafkaError::Client {
        bootstrap: bootstrap.into(),
        message: e.to_string(),
    })?
}

/// End offsets (high watermarks) of every partition of `topics`.
pub async fn end_offsets(bootstrap: &str, topics: &[String]) -> Result<KafkaOffsets, KafkaError> {
    let bootstrap = bootstrap.to_string();
    let topics = topics.to_vec();
    tokio::task::spawn_blocking(move || {
        let err = |e: rdkafka::error::KafkaError| KafkaError::Client {
            bootstrap: bootstrap.clone(),
            message: e.to_string(),
        };
        let consumer: BaseConsumer = config(&bootstrap).create().map_err(err)?;
        let mut out = KafkaOffsets::new();
        for topic in &topics {
            let md = consumer
                .fetch_metadata(Some(topic), Duration::from_secs(10))
                .map_err(err)?;
            for t in md.topics() {
                for p in t.partitions() {
                    let (_, high) = consumer
                        .fetch_watermarks(topic, p.id(), Duration::from_secs(10))
                        .map_err(err)?;
                    out.entry(topic.clone())
                        .or_default()
                        .insert(p.id() as u32, high);
                }
            }
        }
        Ok(out)
    })
    .await
    .map_err(|e| KafkaError::Client {
        bootstrap: String::new(),
        message: e.to_string(),
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(name: &str, fill: bool) -> Topic {
        Topic {
            name: name.into(),
            partitions: 3,
            records: RecordSource::Template("v{n}".into()),
            fresh_records: 4,
            fill_to_checkpoint: fill,
            time_step_ms: 1000,
            kafka_timestamp: false,
        }
    }

    #[test]
    fn records_below_the_base_are_counted_not_silently_dropped() {
        // Issue 25: a records_file far below the checkpoint (another day's capture) was
        // dropped whole without a word; the restart then read template records only.
        assert_eq!(
            BelowBase::of("events", 2, &[5, 6, 7], 1_000_000_000),
            Some(BelowBase {
                topic: "events".into(),
                partition: 2,
                records: 3,
                seeded: 0,
                base: 1_000_000_000
            })
        );
        assert_eq!(BelowBase::of("events", 0, &[98, 99, 100], 98), None);
        let some = BelowBase::of("events", 0, &[96, 97, 98, 99], 98).unwrap();
        assert_eq!((some.records, some.seeded), (2, 2));
    }

    #[test]
    fn mirrored_records_land_at_their_production_offsets_less_the_base() {
        use Slot::{Filler as F, Mirrored as M};
        let fill = |n: usize| vec![F; n];
        let slots = |o: &[i64], base, end, fill_to| -> Vec<Slot> {
            mirror_slots(o, base, end, fill_to).collect()
        };
        // [20, 25) after 20 fillers; fill_to below the range's end adds nothing.
        let want: Vec<Slot> = fill(20).into_iter().chain((0..5).map(M)).collect();
        assert_eq!(slots(&[20, 21, 22, 23, 24], 0, 0, 22), want);
        // A gap in the log (a transaction marker at 22) gets a filler: 23 stays at 23.
        let want: Vec<Slot> = fill(20).into_iter().chain([M(0), M(1), F, M(2)]).collect();
        assert_eq!(slots(&[20, 21, 23], 0, 0, 0), want);
        // Rebased by 98: 100 goes to 2; records below the base are dropped.
        assert_eq!(slots(&[100, 101], 98, 0, 0), [F, F, M(0), M(1)]);
        assert_eq!(slots(&[96, 97, 98, 99], 98, 0, 0), [M(2), M(3)]);
        // A broker already holding offsets 0..3 (a suite's): only what lies past them.
        assert_eq!(slots(&[0, 1, 2, 3, 4], 0, 3, 0), [M(3), M(4)]);
        // Production ends before the checkpoint's offset 6 (data loss): filler up to it.
        assert_eq!(slots(&[2, 3], 0, 0, 6), [F, F, M(0), M(1), F, F]);
        assert_eq!(slots(&[], 0, 0, 3), [F, F, F]);
        // An offset of i64::MAX (a user's records_file) is yielded lazily: nothing allocated.
        let mut far = mirror_slots(&[i64::MAX], 0, 0, 0);
        assert_eq!(far.by_ref().take(3).collect::<Vec<_>>(), [F, F, F]);
        assert_eq!(far.next(), Some(F));
    }

    #[test]
    fn plan_fills_every_partition_to_the_checkpointed_offset_then_adds_fresh_records() {
        let mut required = KafkaOffsets::new();
        required.entry("events".into()).or_default().insert(0, 12);
        required.entry("events".into()).or_default().insert(1, 0);
        let counts = BTreeMap::from([("events".to_string(), 2u32)]);
        let p = plan(&required, &counts, &[topic("events", true)]);
        assert_eq!(p.topics.len(), 1);
        assert_eq!(
            p.topics[0].partitions, 2,
            "the checkpoint's partition count wins"
        );
        assert_eq!(
            p.topics[0].per_partition,
            vec![
                PartitionPlan {
                    partition: 0,
                    filler: 12,
                    fresh: 4,
                    checkpointed: 12,
                },
                PartitionPlan {
                    partition: 1,
                    filler: 0,
                    fresh: 4,
                    checkpointed: 0,
                }
            ]
        );
    }

    #[test]
    fn plan_leaves_kafka_short_when_told_and_adds_new_topics_from_the_scenario() {
        let mut required = KafkaOffsets::new();
        required.entry("events".into()).or_default().insert(0, 12);
        let counts = BTreeMap::from([("events".to_string(), 1u32)]);
        let p = plan(
            &required,
            &counts,
            &[topic("events", false), topic("clicks", true)],
        );
        assert_eq!(p.topics[0].name, "clicks");
        assert_eq!(p.topics[0].partitions, 3);
        assert_eq!(p.topics[1].per_partition[0].filler, 0);
    }
}
