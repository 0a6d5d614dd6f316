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
