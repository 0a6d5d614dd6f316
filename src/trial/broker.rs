//! The Kafka broker of a trial or a generation ([`Broker`]): one of its own, started for it and
//! removed after it, or a suite's broker shared by every trial and generation of the suite;
//! starting one until it answers, and seeding it for a checkpoint.

use std::time::{Duration, Instant};

use super::{kafka_short, TrialError, TrialEvent};
use crate::checkpoint::Inspection;
use crate::kafka::SeedingSummary;
use crate::runtime::{self, KafkaBroker, RuntimeKind, TrialIds};
use crate::scenario::Scenario;

/// Where the Kafka broker of a trial or a generation comes from.
pub enum Broker<'a> {
    /// One of its own: started on a network of its own before the restart (or the generating
    /// job) and removed after it. A trial seeds it itself, rebasing the sandbox copy's offsets
    /// first when they are too large to produce.
    Own,
    /// A suite's running broker, never removed here; the trial's or generation's Spark driver
    /// joins its Docker network. A trial never rebases on it.
    Shared {
        /// The broker.
        kafka: &'a KafkaBroker,
        /// Its Docker network.
        network: &'a str,
        /// How the suite already seeded this checkpoint's topics on it (a trial then only
        /// checks the broker is not short of the checkpoint); `None`: nothing seeded for it (a
        /// trial seeds the topics itself; a generation always creates its own).
        seeded: Option<SeedingSummary>,
    },
}

impl<'a> Broker<'a> {
    /// The ids of a trial or generation of `scenario` on this broker, on `runtime`: a network
    /// of its own, or the shared broker's.
    pub(super) fn ids(&self, scenario: &str, runtime: RuntimeKind) -> TrialIds {
        match self {
            Broker::Own => TrialIds::new(scenario),
            Broker::Shared { network, .. } => TrialIds::joining(scenario, network),
        }
        .with_runtime(runtime)
    }

    /// The broker to use, started (and ready) if it is one of its own, and how the checkpoint's
    /// topics were seeded on it already, if they were.
    pub(super) async fn start(
        self,
        ids: &TrialIds,
        scenario: &Scenario,
        on_event: &mut (dyn FnMut(TrialEvent) + Send),
    ) -> Result<(InUse<'a>, Option<SeedingSummary>), TrialError> {
        Ok(match self {
            Broker::Own => (
                InUse::Own(start_ready_kafka(ids, scenario, on_event).await?),
                None,
            ),
            Broker::Shared { kafka, seeded, .. } => (InUse::Shared(kafka), seeded),
        })
    }
}

/// A broker in use by one trial or generation: its own (removed by [`InUse::release`]) or a
/// suite's (left running).
pub(super) enum InUse<'a> {
    /// Started for it.
    Own(KafkaBroker),
    /// A suite's.
    Shared(&'a KafkaBroker),
}

impl InUse<'_> {
    /// The running broker.
    pub(super) fn kafka(&self) -> &KafkaBroker {
        match self {
            InUse::Own(k) => k,
            InUse::Shared(k) => k,
        }
    }

    /// Removes the broker if it was started for this trial or generation.
    pub(super) async fn release(self) -> Result<(), TrialError> {
        if let InUse::Own(k) = self {
            k.remove().await?;
        }
        Ok(())
    }
}

/// Starts the scenario's Kafka image on `ids.network` and waits until it answers a metadata
/// request (at most 120 s); removes it again if it never does.
pub async fn start_ready_kafka(
    ids: &TrialIds,
    scenario: &Scenario,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<KafkaBroker, TrialError> {
    let started = Instant::now();
    let kafka = runtime::start_kafka(ids, &scenario.kafka_version).await?;
    tracing::debug!(kafka = %scenario.kafka_version, bootstrap = %kafka.host_bootstrap, "kafka broker started, waiting for it to answer");
    if let Err(e) = crate::kafka::wait_ready(&kafka.host_bootstrap, Duration::from_secs(120)).await
    {
        let _ = kafka.remove().await;
        return Err(e.into());
    }
    tracing::debug!(bootstrap = %kafka.host_bootstrap, seconds = started.elapsed().as_secs_f64(), "kafka broker ready");
    on_event(TrialEvent::KafkaReady {
        bootstrap: kafka.host_bootstrap.clone(),
        seconds: started.elapsed().as_secs_f64(),
    });
    Ok(kafka)
}

/// Seeds `kafka` for `inspection` (the checkpoint a restart will read): the scenario's topics,
/// filled up to the checkpoint's offsets, plus the fresh records a resume must read, their
/// `{timestamp_ms}` counted from the checkpoint's watermark. With `[kafka.mirror]`, the
/// checkpoint's partitions get the production cluster's records around `production`'s offsets
/// (the checkpoint as written, before any rebase of the copy) instead; the second value is the
/// mirror's evidence that production no longer holds what the restart reads, if it does not.
pub async fn seed(
    kafka: &KafkaBroker,
    inspection: &Inspection,
    production: &Inspection,
    scenario: &Scenario,
) -> Result<(SeedingSummary, Option<String>), TrialError> {
    let mut plan = crate::kafka::plan(
        &inspection.required_kafka_offsets(),
        &inspection.kafka_partition_counts(),
        &scenario.topics,
    );
    plan.time_base_ms = crate::kafka::time_base_ms(inspection, crate::kafka::now_ms());
    let checkpointed = production.required_kafka_offsets();
    plan.bases = rebase_bases(&checkpointed, &inspection.required_kafka_offsets());
    let Some(m) = &scenario.mirror else {
        return Ok((
            crate::kafka::seed(&kafka.host_bootstrap, &plan).await?,
            crate::kafka::records_file_loss(&scenario.topics, &checkpointed),
        ));
    };
    let mirror = crate::kafka::read_mirror_async(m, &checkpointed).await?;
    tracing::debug!(from = %m.bootstrap, records = mirror.records(), bytes = mirror.bytes(), "records read from the production cluster");
    let seeding = crate::kafka::seed_from(
        &kafka.host_bootstrap,
        &plan,
        Some(crate::kafka::MirrorSeed {
            mirror: &mirror,
            bases: &plan.bases,
        }),
    )
    .await?;
    Ok((seeding, mirror.data_loss_evidence()))
}

/// Per topic-partition the base a rebase subtracted: the production offset less the copy's.
fn rebase_bases(
    production: &crate::checkpoint::KafkaOffsets,
    copy: &crate::checkpoint::KafkaOffsets,
) -> crate::checkpoint::KafkaOffsets {
    let mut out = crate::checkpoint::KafkaOffsets::new();
    for (topic, parts) in production {
        for (p, o) in parts {
            let c = copy
                .get(topic)
                .and_then(|m| m.get(p))
                .copied()
                .unwrap_or(*o);
            out.entry(topic.clone())
                .or_default()
                .insert(*p, (o - c).max(0));
        }
    }
    out
}

/// [`seed`], then the harness's evidence that the broker still ends below the checkpoint's
/// offsets (topics the scenario leaves short), or that production lost them, if either.
pub(super) async fn seed_and_check(
    kafka: &KafkaBroker,
    inspection: &Inspection,
    production: &Inspection,
    scenario: &Scenario,
) -> Result<(SeedingSummary, Option<String>), TrialError> {
    let (seeding, lost) = seed(kafka, inspection, production, scenario).await?;
    let short = kafka_short::evidence(kafka, inspection).await?;
    Ok((seeding, lost.or(short)))
}
