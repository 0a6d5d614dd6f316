//! Signs: WARN and ERROR record messages that explain a restart which failed without a known
//! failure, or never ended (issue 26 §5: a job defaulting to SASL_SSL against the plain
//! sandbox broker ended as `timeout`, "raise the timeout", while its log said "terminated during
//! authentication"). The rows are data (`sign-rules.toml`, each citing its source); the watcher
//! asks [`sign_of`] of every WARN/ERROR message and keeps the first sign seen, and a generic
//! verdict ([`REPLACEABLE`]) becomes the sign's when the trial is decided.
//!
//! A sign never gives `resumed` or `timeout`, and never replaces a verdict a rule or a proof
//! decided.

use std::sync::OnceLock;

use regex::RegexSet;
use serde::Deserialize;

use super::{BuiltinRule, Verdict};

/// The sign table compiled into the binary (`crates/rehearse-verdict/src/sign-rules.toml`).
pub const SIGN_RULES_TOML: &str = include_str!("sign-rules.toml");

/// The built-in rows a sign replaces: the verdicts that say only "nothing known happened".
pub const REPLACEABLE: [BuiltinRule; 4] = [
    BuiltinRule::NoOutcomeBeforeTimeout,
    BuiltinRule::FailedBeforeQueryStart,
    BuiltinRule::NoRuleMatched,
    BuiltinRule::NoBatchAfterRestart,
];

/// One row of `sign-rules.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sign {
    /// Stable name, shown with the verdict.
    pub id: String,
    /// The verdict it gives (a failure verdict).
    pub verdict: Verdict,
    message: Vec<String>,
    #[allow(dead_code)] // documentation of the row
    spark: String,
    /// Where the text is logged.
    pub source: String,
    /// One sentence a data engineer can act on.
    pub remedy: String,
}

#[derive(Debug, Deserialize)]
struct Table {
    sign: Vec<Sign>,
}

struct Compiled {
    signs: Vec<Sign>,
    /// Every row's patterns; `owner[i]` is the row of pattern `i`.
    set: RegexSet,
    owner: Vec<usize>,
}

fn table() -> &'static Compiled {
    static TABLE: OnceLock<Compiled> = OnceLock::new();
    TABLE.get_or_init(|| {
        let signs = toml::from_str::<Table>(SIGN_RULES_TOML)
            .expect("sign-rules.toml is valid (a unit test parses it)")
            .sign;
        let mut patterns = Vec::new();
        let mut owner = Vec::new();
        for (i, s) in signs.iter().enumerate() {
            for m in &s.message {
                patterns.push(m.clone());
                owner.push(i);
            }
        }
        let set = RegexSet::new(&patterns).expect("sign patterns compile (a unit test checks)");
        Compiled { signs, set, owner }
    })
}

/// The sign a WARN/ERROR record's message (`msg`, without its header) is, if any.
pub(crate) fn sign_of(msg: &str) -> Option<&'static Sign> {
    let t = table();
    let first = t.set.matches(msg).into_iter().next()?;
    Some(&t.signs[t.owner[first]])
}

/// Whether a decision by `rule` (a rule id) may be replaced by a sign seen.
pub(crate) fn replaceable(rule: &str) -> bool {
    REPLACEABLE.iter().any(|r| r.id() == rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sign_is_documented_and_never_gives_resumed_or_timeout() {
        let t = table();
        assert!(!t.signs.is_empty());
        for s in &t.signs {
            assert!(!s.source.is_empty() && !s.remedy.is_empty(), "{}", s.id);
            assert!(
                !matches!(
                    s.verdict,
                    Verdict::Resumed | Verdict::Timeout | Verdict::ResumeUnproven
                ),
                "{} gives {}",
                s.id,
                s.verdict
            );
        }
    }

    /// The WARN lines as kafka-clients 2.8-3.x and 3.9+ log them (two texts of the reasons).
    #[test]
    fn kafka_auth_termination_is_a_sign_in_both_client_texts() {
        for msg in [
            "[Consumer clientId=consumer-spark-kafka-source-1, groupId=spark-kafka-source-1] Connection to node -1 (kafka/172.18.0.3:9092) terminated during authentication. This may happen due to any of the following reasons: (1) Authentication failed due to invalid credentials with brokers older than 1.0.0, (2) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (3) Transient network issue.",
            "[AdminClient clientId=adminclient-1] Connection to node 1 (localhost/127.0.0.1:9092) terminated during authentication. This may happen due to any of the following reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue.",
        ] {
            assert_eq!(
                sign_of(msg).map(|s| s.id.as_str()),
                Some("kafka-security-protocol-mismatch")
            );
        }
        assert!(sign_of("[Consumer clientId=c] Connection to node -1 (kafka/172.18.0.3:9092) could not be established. Broker may not be available.").is_none());
    }

    #[test]
    fn an_unreachable_master_is_a_sign() {
        let s = sign_of("Failed to connect to master spark-master:7077").unwrap();
        assert_eq!(s.id, "job-master-unreachable");
        assert!(s.remedy.contains("master"));
        assert!(sign_of(
            "Application has been killed. Reason: All masters are unresponsive! Giving up."
        )
        .is_some());
    }
}

#[cfg(test)]
mod watcher_tests {
    use super::super::{Ended, TrialContext, Verdict, Watcher};

    fn classify(log: &str, ended: Ended) -> super::super::Classification {
        let ctx = TrialContext {
            query_id: Some("af8be91f-18e3-4503-9214-0b85395ad967".into()),
            ..TrialContext::default()
        };
        let mut w = Watcher::new(ctx);
        for l in log.lines() {
            w.push_line(l);
        }
        w.finish(ended)
    }

    const HEAD: &str = "26/11/30 15:44:50 INFO SparkContext: Running Spark version 4.0.1
26/11/30 15:44:51 INFO SparkContext: Submitted application: orders-sasl
26/11/30 15:45:34 INFO MicroBatchExecution: Starting [id = af8be91f-18e3-4503-9214-0b85395ad967, runId = 308fb5de-6e28-469a-a224-49093a48e3bc]. Use file:/sandbox/checkpoint to store the query checkpoint.";

    /// Issue 26 §5: a job defaulting to SASL_SSL against the sandbox's PLAINTEXT broker. The
    /// consumer retries for ever, so the trial times out; the log's client WARN names why.
    #[test]
    fn a_sasl_default_against_the_plain_broker_is_named_not_a_timeout() {
        let auth = "26/11/30 15:45:36 WARN NetworkClient: [Consumer clientId=consumer-spark-kafka-source-3f1c-driver-0-1, groupId=spark-kafka-source-3f1c-driver-0] Connection to node -1 (kafka/172.18.0.3:9092) terminated during authentication. This may happen due to any of the following reasons: (1) Authentication failed due to invalid credentials with brokers older than 1.0.0, (2) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (3) Transient network issue.";
        let bootstrap = "26/11/30 15:45:36 WARN NetworkClient: [Consumer clientId=consumer-spark-kafka-source-3f1c-driver-0-1, groupId=spark-kafka-source-3f1c-driver-0] Bootstrap broker kafka:9092 (id: -1 rack: null) disconnected";
        let log = format!("{HEAD}\n{auth}\n{bootstrap}\n{auth}\n{bootstrap}\n");
        let c = classify(&log, Ended::TimedOut(300));
        assert_eq!(c.verdict, Verdict::EnvironmentError, "{c:?}");
        assert_eq!(c.rule, "kafka-security-protocol-mismatch");
        assert!(
            c.remedy.contains("PLAINTEXT") && !c.remedy.contains("raise"),
            "{}",
            c.remedy
        );
        assert!(c
            .evidence
            .iter()
            .any(|e| e.contains("terminated during authentication")));
        // The same log without the client's line stays the timeout it was.
        let c = classify(&format!("{HEAD}\n{bootstrap}\n"), Ended::TimedOut(300));
        assert_eq!(c.verdict, Verdict::Timeout);
        assert_eq!(c.rule, "no-outcome-before-timeout");
    }

    /// Issue 26 §4/§5: a job whose code sets `.master("spark://spark-master:7077")` under a
    /// submit to `local[2]`: the driver gives up on the master and PySpark fails on a stopped
    /// SparkContext, whose text names no cause.
    #[test]
    fn a_master_set_in_the_job_that_is_not_there_is_named() {
        let log = "26/11/30 15:44:50 INFO SparkContext: Running Spark version 3.5.3
26/11/30 15:44:51 INFO StandaloneAppClient$ClientEndpoint: Connecting to master spark://spark-master:7077...
26/11/30 15:44:51 WARN StandaloneAppClient$ClientEndpoint: Failed to connect to master spark-master:7077
org.apache.spark.SparkException: Exception thrown in awaitResult:
\tat org.apache.spark.util.SparkThreadUtils$.awaitResult(SparkThreadUtils.scala:56)
Caused by: java.io.IOException: Failed to connect to spark-master:7077
Caused by: java.net.UnknownHostException: spark-master
26/11/30 15:45:51 ERROR StandaloneSchedulerBackend: Application has been killed. Reason: All masters are unresponsive! Giving up.
26/11/30 15:45:51 ERROR SparkContext: Error initializing SparkContext.
java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.
This stopped SparkContext was created at:
\tat org.apache.spark.SparkContext.<init>(SparkContext.scala:1)
Traceback (most recent call last):
  File \"/sandbox/job/app.py\", line 9, in <module>
    spark = SparkSession.builder.master(\"spark://spark-master:7077\").getOrCreate()
py4j.protocol.Py4JJavaError: An error occurred while calling None.org.apache.spark.api.java.JavaSparkContext.
: java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.
";
        let c = classify(log, Ended::Exited(Some(1)));
        assert_eq!(c.verdict, Verdict::EnvironmentError, "{c:?}");
        assert_eq!(c.rule, "job-master-unreachable", "{c:?}");
        assert!(c.remedy.contains("setMaster"), "{}", c.remedy);
        assert!(c
            .evidence
            .iter()
            .any(|e| e.contains("Failed to connect to master spark-master:7077")));
    }

    /// A sign never touches a restart that resumed: the real 4.0.1 driver log of a resume with
    /// a client's authentication WARN put in after the query started.
    /// The real driver logs of both cases, captured on this machine: a 4.0.1 job whose code
    /// sets `kafka.security.protocol=SASL_SSL` against the sandbox broker (it ended as `timeout`
    /// with "raise the timeout"), and a 3.5.3 job whose code sets
    /// `.master("spark://spark-master:7077")` (a generation, exit 4 with the log's tail).
    #[test]
    fn the_captured_sasl_and_master_logs_are_named() {
        let read = |name: &str| {
            std::fs::read_to_string(format!(
                "{}/../../tests/fixtures/logs/{name}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        // The live trial's view: its watcher at the timeout, the checkpoint's own query id.
        let mut w = Watcher::new(TrialContext {
            query_id: Some("84f8fbe3-8e76-413f-9fda-a4d1b8ebf424".into()),
            ..TrialContext::default()
        });
        for l in read("4.0.1/sasl-job-against-plain-broker.log").lines() {
            w.push_line(l);
        }
        let sasl = w.finish(Ended::TimedOut(150));
        assert_eq!(
            (sasl.verdict, sasl.rule.as_str()),
            (
                Verdict::EnvironmentError,
                "kafka-security-protocol-mismatch"
            ),
            "{sasl:?}"
        );
        assert!(sasl.remedy.contains("PLAINTEXT"), "{}", sasl.remedy);
        assert!(
            !sasl.evidence.iter().any(|l| l.contains("s3cr3t-planted")),
            "the job's JAAS password never reaches the evidence"
        );
        let master = super::super::classify(
            read("3.5.3/generation-job-sets-master.log").lines(),
            std::iter::empty(),
            &TrialContext::default(),
        );
        assert_eq!(master.rule, "job-master-unreachable", "{master:?}");
        assert_ne!(master.verdict, Verdict::Resumed);
    }

    #[test]
    fn a_resumed_restart_keeps_its_verdict_whatever_it_logged() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/logs/4.0.1/resumed.log"
        );
        let log = std::fs::read_to_string(path).unwrap();
        let auth = "26/11/30 15:45:36 WARN NetworkClient: [Consumer clientId=c-1, groupId=g] Connection to node -1 (kafka/172.18.0.3:9092) terminated during authentication. This may happen due to any of the following reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue.";
        let mut lines: Vec<&str> = log.lines().collect();
        lines.insert(12, auth);
        let c = classify(&lines.join("\n"), Ended::EndOfInput);
        assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    }
}
