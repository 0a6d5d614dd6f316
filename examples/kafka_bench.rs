//! The seeding and mirroring drivers `bench/kafka.sh` times (issue 12 §5). Prints one line
//! `records=N bytes=N seconds=S` for the script.
//!
//! ```text
//! kafka_bench seed BOOTSTRAP TOPIC PARTITIONS RECORDS VALUE_BYTES
//! kafka_bench mirror BOOTSTRAP FROM_TOPIC TO_TOPIC PARTITIONS RECORDS
//! ```
//! - `seed`: creates TOPIC and fills each partition with RECORDS / PARTITIONS template records of
//!   VALUE_BYTES each, as a trial's seeding does (`kafka::seed`).
//! - `mirror`: reads every record of FROM_TOPIC (from offset 0 of each partition) as
//!   `[kafka.mirror]` does (`kafka::read_mirror`: assign and seek, no group) and writes them to
//!   TO_TOPIC at the same offsets (`kafka::seed_from`), keys, headers and timestamps kept.
//!
//! Not a user command: a thin binary over the library so the benchmark measures the engine.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use rehearse::checkpoint::KafkaOffsets;
use rehearse::kafka::{self, MirrorSeed};
use rehearse::scenario::{MirrorConfig, RecordSource, Topic};

fn usage() -> ExitCode {
    eprintln!("usage: kafka_bench seed BOOTSTRAP TOPIC PARTITIONS RECORDS VALUE_BYTES\n       kafka_bench mirror BOOTSTRAP FROM_TOPIC TO_TOPIC PARTITIONS RECORDS");
    ExitCode::from(2)
}

fn offsets(topic: &str, partitions: u32, per: i64) -> KafkaOffsets {
    let mut o = KafkaOffsets::new();
    for p in 0..partitions {
        o.entry(topic.to_string()).or_default().insert(p, per);
    }
    o
}

fn topic(name: &str, partitions: u32, value_bytes: usize) -> Topic {
    Topic {
        name: name.into(),
        partitions,
        records: RecordSource::Template(format!(
            "{{n}}{}",
            "x".repeat(value_bytes.saturating_sub(8))
        )),
        fresh_records: 0,
        fill_to_checkpoint: true,
        time_step_ms: 1000,
        kafka_timestamp: false,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = |s: &str| s.parse::<u64>().ok();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["seed", bootstrap, name, partitions, records, value_bytes] => {
            let (Some(partitions), Some(records), Some(value_bytes)) =
                (n(partitions), n(records), n(value_bytes))
            else {
                return usage();
            };
            let partitions = partitions as u32;
            let per = (records / u64::from(partitions)) as i64;
            let plan = kafka::plan(
                &offsets(name, partitions, per),
                &BTreeMap::from([(name.to_string(), partitions)]),
                &[topic(name, partitions, value_bytes as usize)],
            );
            let start = Instant::now();
            match kafka::seed(bootstrap, &plan).await {
                Ok(s) => {
                    let secs = start.elapsed().as_secs_f64();
                    println!(
                        "records={} bytes={} seconds={secs:.3}",
                        s.filler_records,
                        s.filler_records * value_bytes
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("kafka_bench: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        ["mirror", bootstrap, from, to, partitions, records] => {
            let (Some(partitions), Some(records)) = (n(partitions), n(records)) else {
                return usage();
            };
            let partitions = partitions as u32;
            // From offset 0 of each partition, everything up to RECORDS: a producer's sticky
            // partitioner leaves the partitions uneven.
            let config = MirrorConfig {
                bootstrap: bootstrap.to_string(),
                properties_file: None,
                client: Vec::new(),
                history: 0,
                fresh: records,
                hidden: Vec::new(),
            };
            let start = Instant::now();
            let mut mirror =
                match kafka::read_mirror_async(&config, &offsets(from, partitions, 0)).await {
                    Ok(m) => m,
                    Err(e) => {
                        eprintln!("kafka_bench: {e}");
                        return ExitCode::FAILURE;
                    }
                };
            let read_s = start.elapsed().as_secs_f64();
            for p in &mut mirror.partitions {
                p.topic = to.to_string();
            }
            let plan = kafka::plan(
                &offsets(to, partitions, 0),
                &BTreeMap::from([(to.to_string(), partitions)]),
                &[topic(to, partitions, 0)],
            );
            let bases = KafkaOffsets::new();
            match kafka::seed_from(
                bootstrap,
                &plan,
                Some(MirrorSeed {
                    mirror: &mirror,
                    bases: &bases,
                }),
            )
            .await
            {
                Ok(s) => {
                    let m = s.mirrored.unwrap_or_default();
                    let secs = start.elapsed().as_secs_f64();
                    println!(
                        "records={} bytes={} seconds={secs:.3} read_seconds={read_s:.3}",
                        m.records, m.bytes
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("kafka_bench: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}
