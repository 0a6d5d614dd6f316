//! Bad input: one clear error (exit 3) or a finding naming the file; never a panic.

use super::*;

// ---------------------------------------------------------------------------------------------
// Bad input: one clear error (exit 3) or a finding naming the file; never a panic.

#[test]
fn a_missing_path_is_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = inspect(&tmp.path().join("nope"), false).code(3);
    assert!(
        out.stderr.contains("does not exist") && out.stderr.contains("nope"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("hint: pass the query's checkpointLocation"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.matches("error:").count(), 1, "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_file_is_not_a_checkpoint() {
    let out = inspect(&fixtures().join("3.5.3/file-agg/offsets/0"), true).code(3);
    assert!(
        out.stderr.contains("is a file, not a directory"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
}

#[test]
fn an_empty_dir_and_an_unrelated_dir_are_not_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let out = inspect(tmp.path(), false).code(3);
    assert!(
        out.stderr.contains("the directory is empty"),
        "{}",
        out.stderr
    );
    fs::write(tmp.path().join("notes.txt"), "hello").unwrap();
    fs::create_dir(tmp.path().join("data")).unwrap();
    let out = inspect(tmp.path(), false).code(3);
    assert!(
        out.stderr.contains("not a checkpoint") && out.stderr.contains("data, notes.txt"),
        "{}",
        out.stderr
    );
}

/// Session-6 new-user pass: `inspect ck/state/0` said only "not a checkpoint"; it names the
/// checkpoint the directory is inside.
#[test]
fn a_checkpoints_own_subdirectory_names_the_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("ck/offsets")).unwrap();
    fs::create_dir_all(tmp.path().join("ck/state/0/0")).unwrap();
    fs::write(tmp.path().join("ck/state/0/0/1.delta"), "x").unwrap();
    let out = inspect(&tmp.path().join("ck/state/0"), false).code(3);
    let ck = tmp.path().join("ck");
    assert!(
        out.stderr
            .contains(&format!("it is inside the checkpoint {}", ck.display())),
        "{}",
        out.stderr
    );
    // An unrelated directory names none.
    fs::create_dir(tmp.path().join("data")).unwrap();
    fs::write(tmp.path().join("data/x"), "x").unwrap();
    let out = inspect(&tmp.path().join("data"), false).code(3);
    assert!(
        !out.stderr.contains("inside the checkpoint"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_symlink_loop_as_the_path_is_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let out = inspect(&a, false).code(3);
    assert!(out.stderr.contains("symbolic link loop"), "{}", out.stderr);
}

#[test]
fn links_inside_a_checkpoint_are_reported_not_followed() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    std::os::unix::fs::symlink(ckpt.join("state/loop"), ckpt.join("state/loop")).unwrap();
    std::os::unix::fs::symlink("/", ckpt.join("sources/escape")).unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    let links: Vec<&str> = doc
        .findings
        .iter()
        .filter(|f| f.code == "symlink-not-followed")
        .filter_map(|f| f.file.as_deref())
        .collect();
    assert_eq!(links, ["sources/escape", "state/loop"]);
}

#[test]
fn non_utf8_and_binary_bytes_in_logs_are_findings() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::write(ckpt.join("offsets/5"), b"v1\n\xff\xfe\x00garbage").unwrap();
    fs::write(ckpt.join("commits/2"), b"\x00\x01\x02\x03binary").unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    let utf8 = doc.finding("not-utf8");
    assert_eq!(
        (utf8.severity.as_str(), utf8.file.as_deref()),
        ("error", Some("offsets/5"))
    );
    assert!(utf8.message.contains("offset 3"), "{}", utf8.message);
    // An old commit file is not read on restart: a warning, not an error.
    let old = doc
        .findings
        .iter()
        .find(|f| f.file.as_deref() == Some("commits/2"))
        .unwrap();
    assert_eq!(old.severity, "warning");
}

#[test]
fn a_huge_file_where_a_log_belongs_is_not_read() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    let file = fs::OpenOptions::new()
        .write(true)
        .open(ckpt.join("offsets/5"))
        .unwrap();
    file.set_len(checkpoint::READ_CAP + 1).unwrap(); // sparse: costs no disk
    let started = std::time::Instant::now();
    let doc = inspect(&ckpt, true).code(5).doc();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let f = doc.finding("file-too-large");
    assert_eq!(f.file.as_deref(), Some("offsets/5"));
    assert!(f.message.contains("268435457 bytes"), "{}", f.message);
    assert!(f.message.contains("Spark has no such cap"), "{}", f.message);
}

#[test]
fn absurd_batch_and_partition_ids_neither_hang_nor_overflow() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::write(ckpt.join("offsets/99999999999999999999"), "v1\n{}").unwrap();
    fs::write(ckpt.join("offsets/9223372036854775807"), "v1\n{}\n-").unwrap();
    fs::create_dir_all(ckpt.join("state/0/4294967295")).unwrap();
    fs::write(ckpt.join("state/0/4294967295/1.delta"), "").unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    assert_eq!(doc.latest_batch, Some(i64::MAX as u64));
    assert_eq!(
        doc.batches.gaps.len(),
        1000,
        "gaps are listed up to a bound"
    );
    let codes = doc.codes();
    for code in [
        "info:unexpected-entry",
        // offsets/9223372036854775806, which the restart reads, is missing.
        "error:offset-gap-read",
        "error:state-partition-missing",
    ] {
        assert!(codes.contains(&code.to_string()), "{code} not in {codes:?}");
    }
}

#[test]
fn a_fifo_where_a_log_belongs_is_reported_not_read() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::remove_file(ckpt.join("commits/1")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(ckpt.join("commits/1"))
        .status()
        .unwrap();
    assert!(status.success());
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(
        doc.finding("not-a-regular-file").file.as_deref(),
        Some("commits/1")
    );
}

pub(super) fn mkfifo(path: &Path) {
    let _ = fs::remove_file(path);
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Whether a finding of `code` names `file`.
pub(super) fn has(doc: &Doc, code: &str, file: &str) -> bool {
    doc.findings
        .iter()
        .any(|f| f.code == code && f.file.as_deref() == Some(file))
}

pub(super) fn assert_no_missing_state(doc: &Doc) {
    for code in [
        "state-version-missing",
        "state-partition-missing",
        "crc-without-file",
    ] {
        assert!(
            !doc.findings.iter().any(|f| f.code == code),
            "false {code}: {:?}",
            doc.codes()
        );
    }
}

#[test]
fn a_symlink_to_a_state_file_is_a_file_spark_reads_not_missing_state() {
    let (tmp, ckpt) = copy_of("3.5.3/file-agg");
    let moved = tmp.path().join("3.delta");
    fs::rename(ckpt.join("state/0/1/3.delta"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, ckpt.join("state/0/1/3.delta")).unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_no_missing_state(&doc);
    let link = doc.finding("symlink-to-file");
    assert_eq!(
        (link.severity.as_str(), link.file.as_deref()),
        ("warning", Some("state/0/1/3.delta"))
    );
    assert!(
        link.message.contains("replace the link"),
        "{}",
        link.message
    );
    assert_eq!(doc.operators[0].stores, ["default"]);
}

#[test]
fn a_fifo_in_a_state_partition_is_its_own_finding_and_never_opened() {
    // In the chain Spark reads to load state version 6 (deltas 1..6, no snapshot): an error.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    mkfifo(&ckpt.join("state/0/1/3.delta"));
    let doc = inspect(&ckpt, true).code(5).doc();
    assert_no_missing_state(&doc);
    let fifo = doc.finding("not-a-regular-file");
    assert_eq!(
        (fifo.severity.as_str(), fifo.file.as_deref()),
        ("error", Some("state/0/1/3.delta"))
    );
    assert!(
        fifo.message.contains("state version 6") && fifo.message.contains("backup"),
        "{}",
        fifo.message
    );
    assert_eq!(
        doc.findings
            .iter()
            .filter(|f| f.code == "not-a-regular-file")
            .count(),
        1,
        "one finding per special file: {:?}",
        doc.codes()
    );

    // A version the restart does not read (beyond the one it loads): a warning.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    mkfifo(&ckpt.join("state/0/1/9.delta"));
    let doc = inspect(&ckpt, true).code(0).doc();
    let fifo = doc.finding("not-a-regular-file");
    assert_eq!(
        (fifo.severity.as_str(), fifo.file.as_deref()),
        ("warning", Some("state/0/1/9.delta"))
    );

    // A link to a FIFO is a FIFO.
    let (tmp, ckpt) = copy_of("3.5.3/file-agg");
    mkfifo(&tmp.path().join("pipe"));
    fs::remove_file(ckpt.join("state/0/0/6.delta")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("pipe"), ckpt.join("state/0/0/6.delta")).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    assert_no_missing_state(&doc);
    assert!(has(&doc, "not-a-regular-file", "state/0/0/6.delta"));
}

#[test]
fn a_state_partition_linked_elsewhere_is_not_walked_and_not_missing() {
    let (tmp, ckpt) = copy_of("3.5.3/file-agg");
    let moved = tmp.path().join("partition-1");
    fs::rename(ckpt.join("state/0/1"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, ckpt.join("state/0/1")).unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_no_missing_state(&doc);
    let link = doc.finding("symlink-not-followed");
    assert_eq!(link.file.as_deref(), Some("state/0/1"));
    assert!(link.message.contains("directory"), "{}", link.message);
    assert_eq!(doc.operators[0].partitions, 2);
}

#[test]
fn special_files_and_links_in_the_logs_and_metadata() {
    // The latest offset file and the query id file as FIFOs: Spark reads both on restart.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    mkfifo(&ckpt.join("offsets/5"));
    mkfifo(&ckpt.join("metadata"));
    mkfifo(&ckpt.join("sources/0/2"));
    let doc = inspect(&ckpt, true).code(5).doc();
    assert_eq!(
        doc.latest_batch,
        Some(5),
        "Spark lists offsets/5 as batch 5"
    );
    for file in ["offsets/5", "metadata"] {
        let f = doc
            .findings
            .iter()
            .find(|f| f.code == "not-a-regular-file" && f.file.as_deref() == Some(file))
            .unwrap_or_else(|| panic!("no finding for {file}: {:?}", doc.codes()));
        assert_eq!(f.severity, "error", "{}", f.message);
        assert!(f.message.contains("backup"), "{}", f.message);
    }
    assert!(has(&doc, "not-a-regular-file", "sources/0/2"));
    assert_eq!(
        doc.findings
            .iter()
            .filter(|f| f.code == "not-a-regular-file")
            .count(),
        3,
        "one finding per special file: {:?}",
        doc.codes()
    );

    // The state schema file as a FIFO: an error, never opened.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    mkfifo(&ckpt.join("state/0/0/_metadata/schema"));
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("not-a-regular-file");
    assert_eq!(
        (f.severity.as_str(), f.file.as_deref()),
        ("error", Some("state/0/0/_metadata/schema"))
    );
    assert!(!has(&doc, "metadata-missing", "metadata"));
    assert!(!has(&doc, "file-source-log-missing", "sources/0/2"));

    // Links to regular files are read through: the same description as the pristine copy.
    let (tmp, ckpt) = copy_of("3.5.3/file-agg");
    for rel in ["offsets/5", "commits/5", "metadata"] {
        let moved = tmp.path().join(rel.replace('/', "-"));
        fs::rename(ckpt.join(rel), &moved).unwrap();
        std::os::unix::fs::symlink(&moved, ckpt.join(rel)).unwrap();
    }
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(
        (doc.latest_batch, doc.last_committed_batch),
        (Some(5), Some(5))
    );
    assert!(doc.query_id.is_some());
    assert_eq!(doc.offset_log.as_ref().map(|o| o.batch), Some(5));
    for rel in ["offsets/5", "commits/5", "metadata"] {
        assert!(
            has(&doc, "symlink-to-file", rel),
            "{rel}: {:?}",
            doc.codes()
        );
    }
}

#[test]
fn text_report_never_echoes_terminal_escapes_from_the_checkpoint() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::write(ckpt.join("offsets/\x1b]0;owned\x07x"), "v1\n{}").unwrap();
    set_offset_line(&ckpt, 5, 3, "\x1b[2J{\"logOffset\":2");
    let out = inspect(&ckpt, false).code(5);
    assert!(out.stdout.contains("offsets/5 line 3"), "{}", out.stdout);
    for bad in ['\x1b', '\x07'] {
        assert!(!out.stdout.contains(bad), "{bad:?} in {:?}", out.stdout);
    }
}

#[test]
fn unreadable_files_and_directories_are_findings() {
    if is_root() {
        eprintln!("SKIPPED: running as root, who can read a mode-000 file; the FIFO test covers an unreadable log");
        return;
    }
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    let set_mode = |p: &Path, mode: u32| {
        let mut perms = fs::metadata(p).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, mode);
        fs::set_permissions(p, perms).unwrap();
    };
    set_mode(&ckpt.join("offsets/5"), 0o000);
    set_mode(&ckpt.join("state/0/1"), 0o000);
    let doc = inspect(&ckpt, true).code(5).doc();
    assert_eq!(
        doc.finding("file-unreadable").file.as_deref(),
        Some("offsets/5")
    );
    assert_eq!(
        doc.finding("dir-unreadable").file.as_deref(),
        Some("state/0/1")
    );
    set_mode(&ckpt.join("state/0/1"), 0o755);
    set_mode(&ckpt.join("offsets/5"), 0o644);
}

#[test]
fn an_unreadable_checkpoint_root_is_one_clear_error() {
    if is_root() {
        eprintln!("SKIPPED: running as root, who can list a mode-000 directory");
        return;
    }
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    let mut perms = fs::metadata(&ckpt).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    fs::set_permissions(&ckpt, perms.clone()).unwrap();
    let out = inspect(&ckpt, false);
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&ckpt, perms).unwrap();
    let out = out.code(3);
    assert!(out.stderr.contains("cannot be read"), "{}", out.stderr);
}
