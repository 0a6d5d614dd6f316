//! The control run and output parity (issue 13 §3), as a trial sees them: which role a trial
//! plays ([`TrialRole`]), what it collects for the comparison ([`Collected`]: the rows it wrote
//! after the restart, a digest of its broker's input records, whether it read every seeded
//! record), which version the control runs on ([`control_version`]), and the parity of one
//! target against the control ([`parity_of`]) — refusing to compare what is not comparable.
//!
//! The control is the same source checkpoint, copied into a sandbox of its own, restarted on the
//! source version with the job that wrote it (`Scenario::generation_job`: the base `[job]`, no
//! `[job.per_target]`, no `restart_args`), against a broker of its own seeded by the same plan.

use super::parity::RowSet;
use crate::kafka::InputDigest;
use crate::kafka::TopicRows;
use crate::report::{Parity, TrialReport};
use crate::scenario::{OutputTopic, Scenario};
use crate::verdict::Verdict;

/// What a trial is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialRole {
    /// A restart on a target version with the target's job (`restart_args`, `[job.per_target]`).
    Target,
    /// The control: the unchanged job on the source version.
    Control,
    /// The remedy (issue 13 §4, `trial/fresh.rs`): the target's job (with `restart_args`) on a
    /// new empty checkpoint with `{starting_offsets}`, the copy set aside. Never `resumed`.
    Fresh,
}

/// What a trial collected for the parity comparison (only when a control runs).
#[derive(Debug, Clone, Default)]
pub struct Collected {
    /// What it wrote after the restart: file sinks under `{output}`, then output topics.
    pub rows: Vec<RowSet>,
    /// The digest of its broker's input records after seeding, or why it could not be taken.
    pub digest: Option<Result<InputDigest, String>>,
    /// `Ok(evidence)`: the query read every seeded record and settled before it was stopped;
    /// `Err(why not)`.
    pub read_all: Option<Result<String, String>>,
    /// A fresh run's start proof, from its new checkpoint after the driver stopped.
    pub start: Option<crate::report::StartProof>,
}

/// Which version the control runs on is the scenario's to say (`scenario/parity.rs`).
pub use crate::scenario::control_version;

/// The parity of `target` (what it collected: `t`) against the control (`c`), or why it is
/// not checked: a control or target that did not resume, brokers seeded with other records,
/// a run stopped before it read every seeded record. Never changes a verdict.
pub fn parity_of(
    scenario: &Scenario,
    target: &TrialReport,
    t: &Collected,
    control: &TrialReport,
    c: &Collected,
) -> Parity {
    let not_resumed = (target.verdict != Verdict::Resumed).then(|| {
        format!(
            "this target did not resume (verdict {}): there is no output after a resume to compare",
            target.verdict
        )
    });
    compare_with_control(scenario, not_resumed, t, control, c)
}

/// [`parity_of`] once the compared run's own precondition is known (`not_ok`: why it is not
/// comparable, if it is not) — also the parity of a fresh run, whose precondition is its own
/// (it ran its first batch, its start is proven), then the same checks and comparison.
pub(crate) fn compare_with_control(
    scenario: &Scenario,
    not_ok: Option<String>,
    t: &Collected,
    control: &TrialReport,
    c: &Collected,
) -> Parity {
    let version = control.target_version.as_str();
    let not_checked = |why: String| Parity {
        volatile_columns: scenario.parity.volatile_columns.clone(),
        may_differ: scenario.parity.may_differ,
        ..Parity::not_checked(version, why)
    };
    if control.verdict != Verdict::Resumed {
        return not_checked(format!(
            "the control on {version} did not resume (verdict {}, rule {}): its output is no reference",
            control.verdict, control.rule
        ));
    }
    if let Some(why) = not_ok {
        return not_checked(why);
    }
    let (td, cd) = match (&t.digest, &c.digest) {
        (Some(Ok(td)), Some(Ok(cd))) => (td, cd),
        (Some(Err(e)), _) | (_, Some(Err(e))) => {
            return not_checked(format!(
                "the seeded records could not be read back to prove both brokers got the same: {e}"
            ))
        }
        _ => return not_checked("the seeded records were not digested".into()),
    };
    if td.records != cd.records {
        return not_checked(format!(
            "the target's broker and the control's got different input records (blake3 {} vs {}): \
             the comparison would not be fair (a [kafka.mirror] read at two moments differs)",
            short(&td.records),
            short(&cd.records)
        ));
    }
    for (who, read) in [("this target", &t.read_all), ("the control", &c.read_all)] {
        match read {
            Some(Ok(_)) => {}
            Some(Err(why)) => {
                return not_checked(format!(
                    "{who} was stopped before it read every seeded record and settled: {why}"
                ))
            }
            None => {
                return not_checked(format!(
                    "{who} was not watched until it read every seeded record"
                ))
            }
        }
    }
    let mut p = super::parity::compare(
        &t.rows,
        &c.rows,
        &scenario.parity.volatile_columns,
        version,
        scenario.parity.may_differ,
    );
    p.compared.push(format!(
        "input: the same records on both brokers (blake3 {})",
        short(&td.records)
    ));
    for (who, read) in [("target", &t.read_all), ("control", &c.read_all)] {
        if let Some(Ok(evidence)) = read {
            p.compared
                .push(format!("{who} read every seeded record: {evidence}"));
        }
    }
    if td.timestamps != cd.timestamps {
        let why = "the records' Kafka timestamps differ between the two brokers (records without kafka_timestamp get the producer's clock): a job that reads the timestamp column may write other rows for that reason alone";
        p.compared.push(why.to_string());
        if p.status == crate::report::ParityStatus::Differs {
            p.reason = Some(match p.reason.take() {
                Some(r) => format!("{r}; {why}"),
                None => why.to_string(),
            });
        }
    }
    p
}

/// The row sets of a trial's output topics (`topics`, as this trial named them) from what was
/// read back after the restart (`read`). Each set is named by the topic's declared name
/// (`output topic orders-enriched`), never by the name the trial gave it on a suite's shared
/// broker (`….orders-enriched.3_5_3` for a cell, `….orders-enriched.control.3_5_3` for its
/// control): sets are matched by name, and the two sides of one topic must meet. The topic
/// actually read is kept in the set's `how`.
pub(super) fn output_topic_rows(
    topics: &[OutputTopic],
    read: Result<Vec<TopicRows>, String>,
) -> Vec<RowSet> {
    let declared = |topic: &str| {
        topics
            .iter()
            .find(|o| o.name == topic)
            .map_or(topic, |o| o.declared.as_str())
            .to_string()
    };
    match read {
        Ok(read) => read
            .into_iter()
            .map(|t| RowSet {
                name: format!("output topic {}", declared(&t.topic)),
                unreadable: (t.missing > 0)
                    .then(|| format!("{} of its records could not be read back", t.missing)),
                how: format!(
                    "records of topic {} after the end offsets taken before the restart",
                    t.topic
                ),
                rows: t.rows,
            })
            .collect(),
        Err(e) => topics
            .iter()
            .map(|o| RowSet {
                name: format!("output topic {}", o.declared),
                unreadable: Some(format!("topic {} could not be read back: {e}", o.name)),
                ..Default::default()
            })
            .collect(),
    }
}

/// The first 12 hex digits of a digest.
fn short(hex: &str) -> &str {
    &hex[..hex.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ParityStatus;
    use crate::versions::SparkVersion;

    fn digest(records: &str, timestamps: &str) -> Option<Result<InputDigest, String>> {
        Some(Ok(InputDigest {
            records: records.into(),
            timestamps: timestamps.into(),
        }))
    }

    fn collected(rows: &[&str]) -> Collected {
        Collected {
            rows: vec![RowSet {
                name: "file sink output/data".into(),
                rows: rows.iter().map(|r| r.to_string()).collect(),
                how: String::new(),
                unreadable: None,
            }],
            digest: digest("aaaa", "tttt"),
            read_all: Some(Ok("batch 7 started at the seeded end offsets".into())),
            start: None,
        }
    }

    fn scenario() -> Scenario {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("job.py"), "").unwrap();
        let text = "targets = [\"4.0.1\"]\ncontrol = true\nvolatile_columns = [\"at\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\nfile = \"job.py\"\nargs = [\"{checkpoint}\"]\n[[topics]]\nname = \"in\"\n";
        Scenario::parse(text, &dir.path().join("s.toml")).unwrap()
    }

    fn trials() -> (TrialReport, TrialReport) {
        let target = crate::report::test_helpers::resumed().trials.remove(0);
        let control = TrialReport {
            target_version: "3.5.3".into(),
            ..target.clone()
        };
        (target, control)
    }

    #[test]
    fn fair_runs_are_compared_with_volatile_columns_left_out() {
        let s = scenario();
        let (t, c) = trials();
        let p = parity_of(
            &s,
            &t,
            &collected(&[r#"{"n":1,"at":1}"#]),
            &c,
            &collected(&[r#"{"n":1,"at":2}"#]),
        );
        assert_eq!(p.status, ParityStatus::Same, "{p:?}");
        assert!(
            p.compared
                .iter()
                .any(|l| l.starts_with("input: the same records")),
            "{p:?}"
        );
        assert!(
            p.compared
                .iter()
                .any(|l| l.starts_with("control read every seeded record")),
            "{p:?}"
        );
        let p = parity_of(
            &s,
            &t,
            &collected(&[r#"{"n":1}"#]),
            &c,
            &collected(&[r#"{"n":2}"#]),
        );
        assert_eq!(p.status, ParityStatus::Differs);
        assert!(p.fails());
    }

    #[test]
    fn what_is_not_comparable_is_not_checked_and_says_why() {
        let s = scenario();
        let (t, c) = trials();
        let ok = collected(&[r#"{"n":1}"#]);
        let failed = TrialReport {
            verdict: Verdict::StateStoreError,
            ..c.clone()
        };
        let p = parity_of(&s, &t, &ok, &failed, &ok);
        assert_eq!(p.status, ParityStatus::NotChecked);
        assert!(
            p.reason
                .as_deref()
                .unwrap()
                .contains("the control on 3.5.3 did not resume"),
            "{p:?}"
        );
        let target_failed = TrialReport {
            verdict: Verdict::Timeout,
            ..t.clone()
        };
        let p = parity_of(&s, &target_failed, &ok, &c, &ok);
        assert!(
            p.reason
                .as_deref()
                .unwrap()
                .contains("this target did not resume"),
            "{p:?}"
        );
        let other_records = Collected {
            digest: digest("bbbb", "tttt"),
            ..ok.clone()
        };
        let p = parity_of(&s, &t, &other_records, &c, &ok);
        assert_eq!(p.status, ParityStatus::NotChecked);
        assert!(
            p.reason
                .as_deref()
                .unwrap()
                .contains("different input records"),
            "{p:?}"
        );
        let stopped_early = Collected {
            read_all: Some(Err("the trial's timeout passed first".into())),
            ..ok.clone()
        };
        let p = parity_of(&s, &t, &ok, &c, &stopped_early);
        assert!(
            p.reason
                .as_deref()
                .unwrap()
                .contains("the control was stopped before it read every seeded record"),
            "{p:?}"
        );
        // Even rows that match are not called same when the runs were not comparable.
        assert_eq!(p.status, ParityStatus::NotChecked);
        // A target whose broker stopped after its verdict (`parts::BrokerStopped`).
        let broker_stopped = Collected {
            read_all: Some(Err("the sandbox broker stopped under the trial after the verdict: the trial's Kafka broker (container k) ended: exit code 137 (signal 9)".into())),
            ..ok.clone()
        };
        let p = parity_of(&s, &t, &broker_stopped, &c, &ok);
        assert_eq!(p.status, ParityStatus::NotChecked);
        assert!(
            p.reason.as_deref().unwrap().starts_with(
                "this target was stopped before it read every seeded record and settled: the sandbox broker stopped under the trial after the verdict"
            ),
            "{p:?}"
        );
    }

    #[test]
    fn other_timestamps_are_named_when_rows_differ() {
        let s = scenario();
        let (t, c) = trials();
        let mut other_times = collected(&[r#"{"n":1}"#]);
        other_times.digest = digest("aaaa", "zzzz");
        let p = parity_of(&s, &t, &other_times, &c, &collected(&[r#"{"n":2}"#]));
        assert_eq!(p.status, ParityStatus::Differs);
        assert!(
            p.reason
                .as_deref()
                .unwrap()
                .contains("Kafka timestamps differ"),
            "{p:?}"
        );
    }

    #[test]
    fn the_control_version_is_the_scenarios_the_generators_or_a_pinned_writer() {
        let s = scenario();
        assert_eq!(control_version(&s, None).unwrap().as_str(), "3.5.3");
        let mut named = s.clone();
        named.parity.control_version = Some(SparkVersion::parse("3.5.4").unwrap());
        assert_eq!(control_version(&named, None).unwrap().as_str(), "3.5.4");
        // Older than the Spark that generates the checkpoint: a downgrade, refused naming the key.
        named.parity.control_version = Some(SparkVersion::parse("3.5.1").unwrap());
        let e = control_version(&named, None).unwrap_err();
        assert!(
            e.contains("control_version = \"3.5.1\" is older") && e.contains("3.5.3"),
            "{e}"
        );
        let mut given = s.clone();
        given.checkpoint = crate::scenario::CheckpointSource::Path("/x".into());
        let e = control_version(&given, None).unwrap_err();
        assert!(e.contains("control_version = "), "{e}");
        // A given checkpoint written by 4.0.0 or later (inspect: 4.0.0 – 4.1.x): a 3.5.3 control
        // is refused, a 4.0.1 one is not.
        let inspection = crate::checkpoint::inspect(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/checkpoints/4.0.1/kafka-agg"
        )))
        .unwrap();
        given.parity.control_version = Some(SparkVersion::parse("3.5.3").unwrap());
        let e = control_version(&given, Some(&inspection)).unwrap_err();
        assert!(
            e.contains("control_version = \"3.5.3\" is older") && e.contains("4.0.0 or later"),
            "{e}"
        );
        given.parity.control_version = Some(SparkVersion::parse("4.0.1").unwrap());
        assert_eq!(
            control_version(&given, Some(&inspection)).unwrap().as_str(),
            "4.0.1"
        );
    }
}
