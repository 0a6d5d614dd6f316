use super::*;

#[test]
fn java_versions_parse_old_and_new_styles() {
    assert_eq!(
        parse_java_version("openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime"),
        Some(17)
    );
    assert_eq!(parse_java_version("java version \"1.8.0_392\""), Some(8));
    assert_eq!(
        parse_java_version("openjdk version \"21\" 2023-09-19"),
        Some(21)
    );
    assert_eq!(
        parse_java_version("openjdk version \"11.0.2-ea\""),
        Some(11)
    );
    assert_eq!(parse_java_version("no java here"), None);
}

#[test]
fn local_support_follows_the_table() {
    let java17 = (17, 0);
    let py311 = (3, 11);
    assert!(local_support((3, 5), java17, py311).is_ok());
    assert!(local_support((4, 0), java17, py311).is_ok());
    assert!(local_support((3, 4), (11, 0), (3, 9)).is_ok());
    assert!(local_support((3, 2), (11, 0), (3, 9)).is_ok());
    let (reason, fix) = local_support((3, 2), java17, (3, 9)).unwrap_err();
    assert!(
        reason.contains("Java 17") && fix.contains("JAVA_HOME"),
        "{reason} {fix}"
    );
    let (reason, fix) = local_support((3, 3), java17, py311).unwrap_err();
    assert!(
        reason.contains("3.11") && fix.contains("PYSPARK_PYTHON"),
        "{reason} {fix}"
    );
    assert!(local_support((3, 3), java17, (3, 10)).is_ok());
    assert!(local_support((4, 0), (11, 0), py311).is_err());
    assert!(local_support((4, 0), java17, (3, 8)).is_err());
}

#[test]
fn pid_files_round_trip_and_reject_garbage() {
    let p = parse_pid_file("owner=42\ntrial=abc\nrole=kafka\ndir=/tmp/rehearse-kafka-x\n").unwrap();
    assert_eq!(p.owner, 42);
    assert_eq!(p.trial, "abc");
    assert_eq!(p.role, "kafka");
    assert_eq!(p.dir, Some(PathBuf::from("/tmp/rehearse-kafka-x")));
    assert_eq!(parse_pid_file("owner=x\ntrial=abc\n"), None);
    assert_eq!(parse_pid_file("trial=abc\n"), None);
}

#[test]
fn gc_deletes_only_kafka_dirs_rehearse_made_for_the_trial() {
    let planted = tempfile::tempdir().unwrap();
    let outside = planted.path().join("rehearse-kafka-precious");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join(KAFKA_DIR_MARKER), "t1").unwrap();
    assert!(
        our_kafka_dir(&outside, "t1").is_err(),
        "outside the temp dir"
    );
    let ours = tempfile::Builder::new()
        .prefix("rehearse-kafka-")
        .tempdir()
        .unwrap();
    assert_eq!(
        our_kafka_dir(ours.path(), "t1"),
        Err("it holds no marker of the trial")
    );
    std::fs::write(ours.path().join(KAFKA_DIR_MARKER), "t2").unwrap();
    assert!(our_kafka_dir(ours.path(), "t1").is_err(), "another trial's");
    std::fs::write(ours.path().join(KAFKA_DIR_MARKER), "t1").unwrap();
    assert_eq!(our_kafka_dir(ours.path(), "t1"), Ok(()));
    let other = tempfile::Builder::new().prefix("other-").tempdir().unwrap();
    std::fs::write(other.path().join(KAFKA_DIR_MARKER), "t1").unwrap();
    assert!(
        our_kafka_dir(other.path(), "t1").is_err(),
        "not rehearse-kafka-*"
    );
}

#[test]
fn a_recycled_owner_pid_is_not_the_owner() {
    use super::super::common::{process_start, still_runs};
    let me = std::process::id();
    let start = process_start(me).expect("our own start time");
    assert!(still_runs(me, Some(start)));
    assert!(
        !still_runs(me, Some(start + 1)),
        "same pid, other start: recycled"
    );
    let p = parse_pid_file(&format!(
        "owner={me}\nowner_start={}\nstart=7\ntrial=t\nrole=kafka\n",
        start + 1
    ))
    .unwrap();
    assert_eq!(p.start, Some(7));
    assert!(!still_runs(p.owner, p.owner_start));
}

#[test]
fn a_reused_pid_without_the_trial_marker_is_not_ours() {
    assert!(!runs_trial(std::process::id() as i32, "no-such-trial"));
}
