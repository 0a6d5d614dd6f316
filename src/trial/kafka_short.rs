//! The verdict override when the sandbox Kafka is short of the checkpoint (the suite or the
//! scenario left a topic below the offsets the checkpoint points at): the harness's own evidence
//! of the shortfall, and the `kafka-data-loss` verdict that replaces a `resumed`. Spark can
//! re-run what Kafka still holds before it reads past the end, so a `resumed` is not final; the
//! driver is watched on (at most [`SHORT_KAFKA_GRACE`]) for Spark's own data-loss failure, and
//! the verdict is `kafka-data-loss` either way.

use std::time::Duration;

use super::driver::{DriverStream, Next};
use super::TrialError;
use crate::checkpoint::{Inspection, KafkaOffsets};
use crate::runtime::KafkaBroker;
use crate::verdict::{BuiltinRule, Classification, TrialContext, Verdict};

/// How long a trial watches on after a `resumed` when Kafka is short of the checkpoint.
const SHORT_KAFKA_GRACE: Duration = Duration::from_secs(60);

/// The harness's evidence that Kafka ends below what the checkpoint needs, if it does:
/// one line naming each short topic-partition.
pub(super) fn shortfall(ends: &KafkaOffsets, required: &KafkaOffsets) -> Option<String> {
    let mut short = Vec::new();
    for (topic, parts) in required {
        for (p, need) in parts {
            let end = ends.get(topic).and_then(|m| m.get(p)).copied().unwrap_or(0);
            if end < *need {
                short.push(format!(
                    "{topic}/{p} ends at {end}, the checkpoint needs {need}"
                ));
            }
        }
    }
    (!short.is_empty()).then(|| {
        format!(
            "sandbox Kafka is short of the checkpoint's offsets: {}",
            short.join("; ")
        )
    })
}

/// The harness's evidence that `kafka` ends below the offsets `inspection` needs, if it does.
pub(super) async fn evidence(
    kafka: &KafkaBroker,
    inspection: &Inspection,
) -> Result<Option<String>, TrialError> {
    let required = inspection.required_kafka_offsets();
    let topics: Vec<String> = required.keys().cloned().collect();
    let ends = crate::kafka::end_offsets(&kafka.host_bootstrap, &topics).await?;
    Ok(shortfall(&ends, &required))
}

/// The verdict after the watcher said `resumed` (`first`) on a Kafka short of the checkpoint
/// (`short`, the harness's evidence): what the driver says within the grace (before
/// `deadline`) is judged alone; Spark's own data-loss error gives its rule and evidence,
/// silence gives [`BuiltinRule::KafkaShortOfCheckpoint`]. Either way the verdict is
/// `kafka-data-loss`, with that rule's remedy.
pub(super) async fn judge_after_resume(
    stream: &mut DriverStream,
    deadline: tokio::time::Instant,
    ctx: &TrialContext,
    short: String,
    first: Classification,
) -> Classification {
    // Collect what the driver says after the re-run batch, then judge those lines alone.
    let grace = deadline.min(tokio::time::Instant::now() + SHORT_KAFKA_GRACE);
    let mut after = Vec::new();
    loop {
        match stream.next(grace).await {
            Next::Line(text) => after.push(text),
            Next::Event(_) => {}
            Next::Exited | Next::TimedOut => break,
        }
    }
    let spark_says =
        crate::verdict::classify(after.iter().map(String::as_str), std::iter::empty(), ctx);
    let mut evidence = vec![short];
    let rule = if spark_says.verdict == Verdict::KafkaDataLoss {
        evidence.extend(spark_says.evidence);
        spark_says.rule
    } else {
        evidence.push(format!(
            "Spark re-ran the batches Kafka still holds (first: {}) and gave no data-loss error within {} s; \
             a production restart with this Kafka would miss the records the checkpoint points past",
            first.first_batch_after_restart.map(|b| b.to_string()).unwrap_or_else(|| "-".into()),
            SHORT_KAFKA_GRACE.as_secs()
        ));
        BuiltinRule::KafkaShortOfCheckpoint.id().to_string()
    };
    Classification {
        verdict: BuiltinRule::KafkaShortOfCheckpoint.verdict(),
        rule,
        evidence,
        remedy: BuiltinRule::KafkaShortOfCheckpoint.remedy().to_string(),
        ..first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(rows: &[(&str, u32, i64)]) -> KafkaOffsets {
        let mut out = KafkaOffsets::new();
        for (t, p, o) in rows {
            out.entry(t.to_string()).or_default().insert(*p, *o);
        }
        out
    }

    #[test]
    fn kafka_short_of_the_checkpoint_is_named_per_partition() {
        let required = offsets(&[("events", 0, 15), ("events", 1, 15)]);
        assert_eq!(
            shortfall(&offsets(&[("events", 0, 20), ("events", 1, 15)]), &required),
            None
        );
        let short = shortfall(&offsets(&[("events", 0, 5), ("events", 1, 20)]), &required).unwrap();
        assert!(
            short.contains("events/0 ends at 5, the checkpoint needs 15"),
            "{short}"
        );
        assert!(!short.contains("events/1"), "{short}");
        let missing = shortfall(&KafkaOffsets::new(), &required).unwrap();
        assert!(missing.contains("events/1 ends at 0"), "{missing}");
    }
}
