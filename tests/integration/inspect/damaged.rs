//! Damaged copies of the fixtures (made by generate.sh from file-agg) and damage made here.

use super::*;

// ---------------------------------------------------------------------------------------------
// Damaged copies (made by generate.sh from file-agg) and damage made here.

pub(super) struct Damaged {
    pub(super) case: &'static str,
    pub(super) code: i32,
    pub(super) findings: &'static [&'static str],
}

pub(super) const DAMAGED: &[Damaged] = &[
    Damaged {
        case: "3.5.3/damaged-empty-commit",
        code: 5,
        findings: &["error:log-empty"],
    },
    Damaged {
        case: "3.5.3/damaged-missing-delta",
        code: 5,
        findings: &["error:state-version-missing", "warning:crc-without-file"],
    },
    Damaged {
        case: "3.5.3/damaged-no-metadata",
        code: 5,
        findings: &["error:metadata-missing"],
    },
    Damaged {
        case: "3.5.3/damaged-offsets-v99",
        code: 5,
        findings: &["error:log-version", "warning:committed-offsets-fallback"],
    },
    Damaged {
        case: "3.5.3/damaged-pending-batch",
        code: 0,
        findings: &["info:pending-batch"],
    },
    Damaged {
        case: "3.5.3/damaged-truncated-offsets",
        code: 5,
        findings: &["error:log-garbled", "warning:committed-offsets-fallback"],
    },
    Damaged {
        case: "4.0.1/damaged-empty-commit",
        code: 5,
        findings: &["error:log-empty"],
    },
    Damaged {
        case: "4.0.1/damaged-missing-delta",
        code: 5,
        findings: &["error:state-version-missing", "warning:crc-without-file"],
    },
    Damaged {
        case: "4.0.1/damaged-no-metadata",
        code: 5,
        findings: &["error:metadata-missing"],
    },
    Damaged {
        case: "4.0.1/damaged-offsets-v99",
        code: 5,
        findings: &["error:log-version", "warning:committed-offsets-fallback"],
    },
    Damaged {
        case: "4.0.1/damaged-pending-batch",
        code: 0,
        findings: &["info:pending-batch"],
    },
    Damaged {
        case: "4.0.1/damaged-truncated-offsets",
        code: 5,
        findings: &["error:log-garbled", "warning:committed-offsets-fallback"],
    },
];

#[test]
fn damaged_fixtures_give_the_right_findings() {
    for d in DAMAGED {
        let doc = inspect(&fixture(d.case), true).code(d.code).doc();
        let mut codes = doc.codes();
        codes.sort();
        let mut expected: Vec<String> = d.findings.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(codes, expected, "{}", d.case);
        for f in &doc.findings {
            assert!(
                f.file.is_some(),
                "{}: finding {} names no file",
                d.case,
                f.code
            );
        }
    }
}

#[test]
fn a_deleted_delta_is_named_with_the_file_spark_will_miss() {
    let doc = inspect(&fixture("3.5.3/damaged-missing-delta"), true)
        .code(5)
        .doc();
    let f = doc.finding("state-version-missing");
    assert_eq!(f.file.as_deref(), Some("state/0/1/3.delta"));
    assert!(f.message.contains("state version 6"), "{}", f.message);
    assert_eq!(
        doc.finding("crc-without-file").file.as_deref(),
        Some("state/0/1/3.delta")
    );
}

#[test]
fn a_damaged_latest_offset_file_still_gives_version_and_remedy_from_the_one_before() {
    let doc = inspect(&fixture("4.0.1/damaged-offsets-v99"), true)
        .code(5)
        .doc();
    let f = doc.finding("log-version");
    assert_eq!(f.file.as_deref(), Some("offsets/5"));
    assert!(f.message.contains("v99"), "{}", f.message);
    assert_eq!(doc.offset_log.as_ref().unwrap().batch, 4);
    assert_eq!(doc.writer_version.min.as_deref(), Some("4.0.0"));
    assert_eq!(doc.sources.len(), 1);
    assert_eq!(doc.sources[0].offsets, serde_json::json!({"logOffset": 2}));
}

/// Issue 25 §7: a commit file of a version no release writes (`v99`) was named, but with no
/// fix line, where a damaged offset file has one. The latest commit's says how to repair it.
#[test]
fn a_commit_file_of_an_unknown_version_gets_a_fix_line() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::write(
        ckpt.join("commits/5"),
        "v99\n{\"nextBatchWatermarkMs\":0}\n",
    )
    .unwrap();
    let _ = fs::remove_file(ckpt.join("commits/.5.crc"));
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("log-version");
    assert_eq!(f.file.as_deref(), Some("commits/5"));
    assert!(
        f.message.contains("v99")
            && f.message.contains("fix: restore commits/5 from a backup")
            && f.message.contains("batch 5 then becomes the pending batch"),
        "{}",
        f.message
    );
}

#[test]
fn a_missing_checkpoint_format_v2_state_file_is_an_error() {
    let (_tmp, ckpt) = copy_of("4.0.1/rocksdb-ckptv2-agg");
    let part = ckpt.join("state/0/1");
    for entry in fs::read_dir(&part).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().starts_with("6_") {
            fs::remove_file(entry.path()).unwrap();
        }
    }
    let doc = inspect(&ckpt, true).code(5).doc();
    assert!(
        doc.codes()
            .contains(&"error:state-unique-id-missing".to_string()),
        "{:?}",
        doc.codes()
    );
    assert!(
        doc.codes()
            .contains(&"error:state-version-missing".to_string()),
        "{:?}",
        doc.codes()
    );
}

#[test]
fn a_provider_that_disagrees_with_the_pinned_conf_is_an_error() {
    let (_tmp, ckpt) = copy_of("3.5.3/rocksdb-agg");
    for n in 0..=5 {
        let path = ckpt.join(format!("offsets/{n}"));
        let text = fs::read_to_string(&path)
            .unwrap()
            .replace("RocksDBStateStoreProvider", "HDFSBackedStateStoreProvider");
        fs::write(&path, text).unwrap();
    }
    let doc = inspect(&ckpt, true).code(5).doc();
    assert!(doc
        .finding("state-provider-mismatch")
        .message
        .contains("rocksdb"));
}

#[test]
fn offsets_more_than_one_batch_ahead_and_a_missing_partition() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    for n in [4, 5] {
        fs::remove_file(ckpt.join(format!("commits/{n}"))).unwrap();
    }
    fs::remove_dir_all(ckpt.join("state/0/1")).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    assert_eq!(doc.last_committed_batch, Some(3));
    assert_eq!(doc.pending_batch, Some(5));
    for code in [
        "warning:offsets-ahead-of-commits",
        "info:pending-batch",
        "error:state-partition-missing",
    ] {
        assert!(
            doc.codes().contains(&code.to_string()),
            "{code} not in {:?}",
            doc.codes()
        );
    }
}

#[test]
fn gaps_and_leftover_temp_files_are_reported() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::remove_file(ckpt.join("offsets/2")).unwrap();
    fs::write(
        ckpt.join("offsets/.6.3f1c2a9e-1111-2222-3333-444455556666.tmp"),
        "v1\n",
    )
    .unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(doc.batches.gaps, [2]);
    for code in [
        "warning:offset-gaps",
        "warning:tmp-file-left",
        "warning:commit-without-offsets",
        "warning:crc-without-file",
    ] {
        assert!(
            doc.codes().contains(&code.to_string()),
            "{code} not in {:?}",
            doc.codes()
        );
    }
}
