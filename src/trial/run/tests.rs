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

/// A suite cell and its group's control on the same version write one output topic under two
/// names on the shared broker (`….orders-enriched.3_5_3` and `….orders-enriched.control.3_5_3`);
/// the same rows on both sides are `same`, matched by the scenario's own topic name, each
/// side's topic kept in what was compared. (The breaker pass: `differs`, 4 rows only in the
/// target and 4 only in the control, for identical output.)
#[test]
fn a_cell_and_its_control_compare_an_output_topic_by_its_declared_name() {
    use crate::report::ParityStatus;
    use crate::trial::parity::compare;
    let dir = tempfile::tempdir().unwrap();
    let shape =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/kafka-out/orders.toml");
    let text = format!(
        "name = \"bk\"\nsources = [\"3.5.3\"]\ntargets = [\"3.5.3\"]\ncontrol = true\n[[shapes]]\nname = \"ko\"\nscenario = \"{}\"\n",
        shape.display()
    );
    let suite = crate::scenario::suite::Suite::parse(&text, &dir.path().join("s.toml")).unwrap();
    let group = suite.group_scenario(&suite.groups(None)[0]);
    let cell = output_topics_of_trial(&group, "3.5.3");
    let control =
        output_topics_of_trial(&crate::scenario::suite::control_scenario(&group), "3.5.3");
    let (t_topic, c_topic) = (
        cell.output_topics[0].name.clone(),
        control.output_topics[0].name.clone(),
    );
    assert_eq!(t_topic, "bk.ko.hdfs.3.5.3.orders-enriched.3_5_3");
    assert_eq!(c_topic, "bk.ko.hdfs.3.5.3.orders-enriched.control.3_5_3");
    let rows: Vec<String> = (0..4)
        .map(|i| format!(r#"key=o{i} value={{"order":"o{i}","total":{i}}}"#))
        .collect();
    let read = |topic: &str, rows: Vec<String>| {
        Ok(vec![crate::kafka::TopicRows {
            topic: topic.to_string(),
            rows,
            missing: 0,
        }])
    };
    let t =
        crate::trial::control::output_topic_rows(&cell.output_topics, read(&t_topic, rows.clone()));
    let c = crate::trial::control::output_topic_rows(&control.output_topics, read(&c_topic, rows));
    assert_eq!(t[0].name, "output topic orders-enriched");
    assert_eq!(c[0].name, t[0].name);
    let p = compare(&t, &c, &[], "3.5.3", false);
    assert_eq!(p.status, ParityStatus::Same, "{p:?}");
    assert_eq!((p.rows_only_in_target, p.rows_only_in_control), (0, 0));
    let line = &p.compared[0];
    assert!(
        line.starts_with("output topic orders-enriched: 4 rows (target), 4 (control)")
            && line.contains(&format!("target: records of topic {t_topic} "))
            && line.contains(&format!("control: records of topic {c_topic} ")),
        "{line}"
    );
    // A real difference in that topic still shows, under the declared name.
    let other = crate::trial::control::output_topic_rows(
        &control.output_topics,
        read(&c_topic, vec!["key=o9 value=x".into()]),
    );
    let p = compare(&t, &other, &[], "3.5.3", false);
    assert_eq!(p.status, ParityStatus::Differs);
    assert_eq!(
        p.examples_only_in_control,
        ["output topic orders-enriched: key=o9 value=x"]
    );
    // A broker that could not be read: each declared topic unreadable, naming the real one.
    let e = crate::trial::control::output_topic_rows(&cell.output_topics, Err("timed out".into()));
    assert_eq!(e[0].name, "output topic orders-enriched");
    assert!(
        e[0].unreadable.as_deref().unwrap().contains(&t_topic),
        "{e:?}"
    );
}

/// Breaker pass, session 13: with `--keep` the kept directory is the sandbox the job wrote into
/// as root; a `trial.json` link it planted was written through (a host file truncated and
/// overwritten by rehearse). The link is replaced; its target stays as it was.
#[test]
fn trial_json_replaces_a_planted_link_never_writes_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let host = tempfile::tempdir().unwrap();
    let target = host.path().join(".bashrc");
    std::fs::write(&target, "export PATH=/usr/bin\n").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("trial.json")).unwrap();
    let report = crate::report::test_helpers::resumed().trials.remove(0);
    keep_trial_json(dir.path(), &report);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "export PATH=/usr/bin\n"
    );
    let written = dir.path().join("trial.json");
    assert!(!std::fs::symlink_metadata(&written).unwrap().is_symlink());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(json["verdict"], "resumed");
}
