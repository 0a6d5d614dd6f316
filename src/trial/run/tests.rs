use super::*;

#[test]
fn on_a_shared_broker_each_trial_writes_output_topics_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("job.py"), "").unwrap();
    let text = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\nfile = \"job.py\"\nargs = [\"--in\", \"{topic.in}\", \"--out\", \"{topic.out}\"]\nrestart_args = [\"--also={topic.out}\"]\n[[topics]]\nname = \"in\"\n[[output_topics]]\nname = \"out\"\n";
    let s = Scenario::parse(text, &dir.path().join("s.toml")).unwrap();
    let t = output_topics_of_trial(&s, "4.0.1");
    assert_eq!(t.output_topics[0].name, "out.4_0_1");
    assert_eq!(t.args, ["--in", "{topic.in}", "--out", "{topic.out.4_0_1}"]);
    assert_eq!(t.restart_args, ["--also={topic.out.4_0_1}"]);
    assert_eq!(t.topics[0].name, "in", "input topics keep their names");
    let other = output_topics_of_trial(&s, "3.5.3");
    assert_ne!(other.output_topics[0].name, t.output_topics[0].name);
}

/// Breaker pass, session 7: with nothing fresh seeded a re-run of the pending batch gave
/// `resumed` although no path of the query ran.
#[test]
fn a_resume_with_nothing_fresh_seeded_is_unproven() {
    use crate::verdict::Verdict;
    let resumed = Classification {
        verdict: Verdict::Resumed,
        rule: "progress-after-restart".into(),
        evidence: vec!["batch 4 re-ran the pending batch".into()],
        last_committed_batch: None,
        first_batch_after_restart: None,
        start_offsets_match: Some(true),
        remedy: String::new(),
        resuming_at: None,
        error_class: None,
        excerpt: false,
        warnings: Vec::new(),
        exercised: None,
        several_runs: None,
    };
    let c = unproven_without_fresh_records(resumed.clone(), true);
    assert_eq!(c.verdict, Verdict::ResumeUnproven);
    assert_eq!(c.rule, "resume-unproven");
    assert!(
        c.evidence.iter().any(|l| l.contains("no fresh records")),
        "{c:?}"
    );
    assert_eq!(
        c.start_offsets_match,
        Some(true),
        "the offsets proof is kept"
    );
    // Fresh records seeded, or another verdict: unchanged.
    assert_eq!(
        unproven_without_fresh_records(resumed.clone(), false).verdict,
        Verdict::Resumed
    );
    let failed = Classification {
        verdict: Verdict::StateStoreError,
        ..resumed
    };
    assert_eq!(
        unproven_without_fresh_records(failed, true).verdict,
        Verdict::StateStoreError
    );
}
