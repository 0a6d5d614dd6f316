//! Kafka topic administration and seeding for a trial (rdkafka).
//!
//! Seeding makes every offset the checkpoint points at exist in the sandbox broker: each topic is
//! created with the partition count the checkpoint names, each partition is filled with template
//! records up to the highest offset any retained `offsets/N` file names (a re-run pending batch
//! reads them), then fresh records follow so the restarted query has new work.
//! Records come from the scenario's template, sample file or records file (`records.rs`: keys,
//! headers, timestamps, `{timestamp_ms}` past the checkpoint's watermark), keyed records placed
//! by Kafka's own partitioner (`partitioner.rs`, murmur2).
//! Output topics (`output.rs`) are created empty and read back after the restart as evidence.
//! [`plan`] is pure; [`seed`] and the admin calls talk to the broker.
//! What seeding did is a [`SeedingSummary`] (the run report re-exports it); `rebase.rs` shifts
//! the offsets of the sandbox copy when producing up to the production offsets would take too long.
//!
//! Above `scenario` in the pipeline: imports `checkpoint` (offsets), `scenario` (topics and record
//! sources) and `rehearse-base` (error kinds), never reports or trials. No two files of it import each
//! other: the error type (`error.rs`) and the mirrored record (`mirrored.rs`) have files of their
//! own.

mod error;
// The FFI to librdkafka's group-less consumer: the one module of the harness allowed unsafe code.
#[allow(unsafe_code)]
mod legacy;
mod mirror;
mod mirrored;
mod output;
mod partitioner;
mod rebase;
mod records;
mod rows;
mod seed;

pub use error::KafkaError;
pub use mirror::{
    range as mirror_range, read as read_mirror, read_async as read_mirror_async, Mirror,
    MirrorError, PartitionMirror,
};
pub use mirrored::Mirrored;
pub use output::{
    ensure_output_topics, output_offsets, read_output, shown, OutputCount, OUTPUT_SAMPLE,
};
pub use partitioner::{murmur2, partition_for_key, to_positive};
pub use rebase::{bases, needed as rebase_needed, rebase, Rebase, RebaseError};
pub use records::{
    check_records_fit, now_ms, records_file_loss, time_base_ms, Record, TopicRecords,
};
pub use rows::{input_digest, records_after, InputDigest, TopicRows, MAX_ROWS_PER_TOPIC};

pub use seed::{
    create_topics, end_offsets, plan, produce, seed, seed_from, wait_ready, BelowBase, MirrorSeed,
    MirrorSummary, PartitionPlan, Producing, SeedPlan, SeedingSummary, TopicPlan,
};
