//! Expected sets written from restart-working-set.md by hand (L, P, C, V per fixture in each
//! test's comment; SST names read with `unzip -p <zip> metadata`), not from this code.
use super::*;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(root) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    out.sort();
    out
}

fn plan_of(root: &Path, extra: &[&str], target: Option<&str>) -> WorkingSet {
    let inspection = crate::inspect(root).unwrap();
    let mut files = listing(root);
    files.extend(extra.iter().map(|s| s.to_string()));
    let targets: Vec<SparkVersion> = target
        .map(|t| SparkVersion::parse(t).unwrap())
        .into_iter()
        .collect();
    let mut read = |rel: &str| std::fs::read(root.join(rel)).map_err(|e| e.to_string());
    working_set(&inspection, &files, &targets, &mut read)
}

/// The chosen main files (not `.crc` side files), and checks the side files are exactly
/// the Hadoop `.F.crc` of chosen files that exist.
fn mains(root: &Path, set: &WorkingSet) -> Vec<String> {
    let WorkingSet::Files(files) = set else {
        panic!("expected a working set, got {set:?}")
    };
    let all = listing(root);
    let mains: Vec<String> = files
        .iter()
        .filter(|f| !f.rsplit('/').next().unwrap().starts_with('.'))
        .cloned()
        .collect();
    for f in files
        .iter()
        .filter(|f| f.rsplit('/').next().unwrap().starts_with('.'))
    {
        let (dir, name) = f.rsplit_once('/').unwrap_or(("", f));
        let main = name
            .strip_prefix('.')
            .unwrap()
            .strip_suffix(".crc")
            .unwrap();
        let main = if dir.is_empty() {
            main.to_string()
        } else {
            format!("{dir}/{main}")
        };
        assert!(files.contains(&main), "{f} copied without {main}");
    }
    for m in &mains {
        let (dir, name) = m.rsplit_once('/').unwrap_or(("", m));
        let side = if dir.is_empty() {
            format!(".{name}.crc")
        } else {
            format!("{dir}/.{name}.crc")
        };
        if all.contains(&side) {
            assert!(files.contains(&side), "{side} of {m} left out");
        }
    }
    mains
}

fn strings(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn hdfs_aggregation_of_the_shared_case() {
    // offsets 0..3, commits 0..3: L=3, P=2, C=3 → offsets 2, 3; commits/3; V=B=4, no
    // snapshot → deltas 1..4 of both partitions; partition 0's schema; sources/ whole.
    let root = fixture("../shared/cases/checkpoints/3.5.3-aggregation");
    let set = plan_of(&root, &[], None);
    assert_eq!(
        mains(&root, &set),
        strings(&[
            "commits/3",
            "metadata",
            "offsets/2",
            "offsets/3",
            "sources/0/0",
            "sources/0/1",
            "sources/0/2",
            "state/0/0/1.delta",
            "state/0/0/2.delta",
            "state/0/0/3.delta",
            "state/0/0/4.delta",
            "state/0/0/_metadata/schema",
            "state/0/1/1.delta",
            "state/0/1/2.delta",
            "state/0/1/3.delta",
            "state/0/1/4.delta",
        ])
    );
    let WorkingSet::Files(files) = set else {
        unreachable!()
    };
    assert!(files.contains(".metadata.crc") && files.contains("state/0/0/.4.delta.crc"));
    assert!(!files.contains("offsets/.1.crc"));
}

#[test]
fn a_pending_batch_reruns_so_versions_above_it_are_left_out() {
    // offsets 0..5, commits 0..4: L=5, P=4, C=4 → offsets 4, 5; commits/4; V=B=5 →
    // deltas 1..5; 6.delta (the uncommitted batch's output) is left out.
    let root = fixture("tests/fixtures/checkpoints/3.5.3/damaged-pending-batch");
    let got = mains(&root, &plan_of(&root, &[], Some("3.5.3")));
    let mut want = vec![
        "commits/4",
        "metadata",
        "offsets/4",
        "offsets/5",
        "sources/0/0",
        "sources/0/1",
        "sources/0/2",
        "state/0/0/_metadata/schema",
    ];
    let deltas: Vec<String> = (0..2)
        .flat_map(|p| (1..=5).map(move |v| format!("state/0/{p}/{v}.delta")))
        .collect();
    want.extend(deltas.iter().map(String::as_str));
    assert_eq!(got, strings(&want));
}

#[test]
fn newest_snapshot_at_or_below_v_then_deltas_and_42_keeps_the_older_snapshot() {
    // file-agg: L=C=5 → V=6. With 2.snapshot and 4.snapshot listed in partition 0 (names
    // only), 3.5 reads 4.snapshot + 5, 6 deltas; 4.2 (auto snapshot repair) also 2.snapshot
    // + 3, 4 deltas; partition 1 has no snapshot → deltas 1..6.
    let root = fixture("tests/fixtures/checkpoints/3.5.3/file-agg");
    let extra = [
        "state/0/0/2.snapshot",
        "state/0/0/4.snapshot",
        "state/0/0/8.snapshot",
    ];
    let p0 = |set: &WorkingSet| -> Vec<String> {
        let WorkingSet::Files(f) = set else {
            panic!("{set:?}")
        };
        f.iter()
            .filter(|f| {
                f.starts_with("state/0/0/") && !f.contains("/.") && !f.contains("_metadata")
            })
            .cloned()
            .collect()
    };
    let on35 = plan_of(&root, &extra, Some("3.5.3"));
    assert_eq!(
        p0(&on35),
        strings(&[
            "state/0/0/4.snapshot",
            "state/0/0/5.delta",
            "state/0/0/6.delta"
        ])
    );
    let on42 = plan_of(&root, &extra, Some("4.2.0"));
    assert_eq!(
        p0(&on42),
        strings(&[
            "state/0/0/2.snapshot",
            "state/0/0/3.delta",
            "state/0/0/4.delta",
            "state/0/0/4.snapshot",
            "state/0/0/5.delta",
            "state/0/0/6.delta"
        ])
    );
    let WorkingSet::Files(f) = on35 else {
        unreachable!()
    };
    assert!((1..=6).all(|v| f.contains(&format!("state/0/1/{v}.delta"))));
}

#[test]
fn rocksdb_changelogs_without_a_zip_are_all_replayed() {
    // 3.5.3 rocksdb-changelog-agg: L=C=5 → V=6, no zip → changelogs 1..6.
    let root = fixture("tests/fixtures/checkpoints/3.5.3/rocksdb-changelog-agg");
    let WorkingSet::Files(f) = plan_of(&root, &[], None) else {
        panic!()
    };
    for p in 0..2 {
        for v in 1..=6 {
            assert!(f.contains(&format!("state/0/{p}/{v}.changelog")), "{p} {v}");
        }
    }
}

#[test]
fn checkpoint_v2_takes_the_zip_of_the_committed_id_and_its_ssts() {
    // 4.0.1 rocksdb-ckptv2-agg: L=C=5 → offsets 4, 5; V=6; commits/5 names 2184ffac… (p0)
    // and f20340d8… (p1); their zips name SST 000038 each.
    let root = fixture("tests/fixtures/checkpoints/4.0.1/rocksdb-ckptv2-agg");
    let got = mains(&root, &plan_of(&root, &[], Some("4.0.1")));
    assert_eq!(
        got,
        strings(&[
            "commits/5",
            "metadata",
            "offsets/4",
            "offsets/5",
            "sources/0/0",
            "sources/0/1",
            "sources/0/2",
            "state/0/0/6_2184ffac-36b6-445b-8b17-1d81ea71cc30.zip",
            "state/0/0/SSTs/000038-de494fcc-f56b-452c-a5b7-fd6a4e937144.sst",
            "state/0/0/_metadata/schema",
            "state/0/1/6_f20340d8-85b3-4358-aa9a-6f6a1761363a.zip",
            "state/0/1/SSTs/000038-008f582e-9a40-486b-b969-6cc7ef0eda0b.sst",
            "state/0/_metadata/metadata",
        ])
    );
}

#[test]
fn join_stores_each_load_their_zip_and_its_ssts() {
    // atlas inner join 4.0.1: offsets 0..4, commits 0..3: L=4, P=3, C=3 → offsets 3, 4;
    // commits/3; V=B=4 → per store 4.zip, which names SSTs 000011 and 000012.
    let root = fixture("tests/fixtures/checkpoints/atlas/inner-join-rocksdb-4.0.1");
    let WorkingSet::Files(f) = plan_of(&root, &[], None) else {
        panic!()
    };
    let state: Vec<&String> = f
        .iter()
        .filter(|f| f.starts_with("state/") && !f.contains("/."))
        .collect();
    assert_eq!(state.len(), 1 + 4 + 2 * 4 * 3, "{state:#?}");
    for store in JOIN_STORES {
        assert!(f.contains(&format!("state/0/1/{store}/4.zip")));
        assert!(!f.contains(&format!("state/0/1/{store}/3.zip")));
        assert!(f.contains(&format!("state/0/0/{store}/_metadata/schema")));
    }
    assert!(f.contains(
        "state/0/0/left-keyToNumValues/SSTs/000011-a9c84f88-80a1-4bb0-acee-5af56c297c23.sst"
    ));
    assert!(f.contains(
        "state/0/1/right-keyWithIndexToValue/SSTs/000012-9737ec1d-af0b-42bd-9d52-2e1b2b06ddb8.sst"
    ));
    assert!(!f.contains(
        "state/0/0/left-keyToNumValues/SSTs/000010-9467617e-26ef-4c21-9c34-a2436ce7c8b0.sst"
    ));
    assert!(f.contains("offsets/3") && f.contains("offsets/4") && !f.contains("offsets/2"));
    assert!(f.contains("commits/3") && !f.contains("commits/2"));
}

#[test]
fn anything_uncertain_copies_everything_with_the_reason() {
    let root = fixture("tests/fixtures/checkpoints/3.5.3/damaged-missing-delta");
    let WorkingSet::Everything(why) = plan_of(&root, &[], None) else {
        panic!()
    };
    assert!(
        why.contains("state/0/1/3.delta") && why.contains("production restart fails too"),
        "{why}"
    );

    let root = fixture("tests/fixtures/checkpoints/3.5.3/file-agg");
    let WorkingSet::Everything(why) = plan_of(&root, &[], Some("4.3.0")) else {
        panic!()
    };
    assert!(why.contains("4.3.0"), "{why}");
    let WorkingSet::Everything(why) = plan_of(&root, &["state/0/0/6.weird"], None) else {
        panic!()
    };
    assert!(why.contains("state/0/0/6.weird"), "{why}");
    let WorkingSet::Everything(why) = plan_of(&root, &["state/0/0/3.zip"], None) else {
        panic!()
    };
    assert!(why.contains("mixes"), "{why}");
    let WorkingSet::Everything(why) = plan_of(&root, &["state/0/2/1.delta"], None) else {
        panic!()
    };
    assert!(why.contains("3 partition directories"), "{why}");

    // A zip that is not one: its SSTs cannot be known.
    let tmp = tempfile::tempdir().unwrap();
    let src = fixture("tests/fixtures/checkpoints/4.0.1/rocksdb-ckptv2-agg");
    for f in listing(&src) {
        let to = tmp.path().join(&f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(&f), &to).unwrap();
    }
    std::fs::write(
        tmp.path()
            .join("state/0/1/6_f20340d8-85b3-4358-aa9a-6f6a1761363a.zip"),
        "not a zip",
    )
    .unwrap();
    let WorkingSet::Everything(why) = plan_of(tmp.path(), &[], None) else {
        panic!()
    };
    assert!(why.contains("6_f20340d8") && why.contains("zip"), "{why}");
}

#[test]
fn leftovers_are_never_chosen() {
    let root = fixture("tests/fixtures/checkpoints/3.5.3/file-agg");
    let extra = [
        ".metadata.1b2c.tmp",
        "state/0/0/.6.delta.5e1f.TID7.tmp",
        "offsets/.6.ab12.tmp",
    ];
    let WorkingSet::Files(f) = plan_of(&root, &extra, None) else {
        panic!()
    };
    for e in extra {
        assert!(!f.contains(e), "{e}");
    }
}

/// Issue 25 §1: a name in a RocksDB zip's `metadata` is untrusted like a listing's: `..`, a
/// path, a NUL or a backslash is refused with the field named, a plain name passes.
#[test]
fn rocksdb_metadata_names_are_plain_file_names() {
    let meta = |name: &str| {
        format!(
            "v1\n{}",
            serde_json::json!({"sstFiles": [{"dfsSstFileName": name}]})
        )
    };
    assert_eq!(
        rocksdb_refs(meta("000008-2d8c.sst").as_bytes()).unwrap(),
        vec!["SSTs/000008-2d8c.sst".to_string()]
    );
    for (name, why) in [
        ("..", "`..` segment"),
        (".", "`.` segment"),
        ("../../x", "is a path"),
        ("a\0b", "NUL"),
        ("a\\b", "backslash"),
        ("", "empty"),
    ] {
        let err = rocksdb_refs(meta(name).as_bytes()).unwrap_err();
        assert!(
            err.contains("dfsSstFileName") && err.contains(why),
            "{name:?}: {err}"
        );
    }
}

/// A zip of one member `name` holding `data` deflated, declaring `declared` as its size
/// (APPNOTE 4.3.7, 4.3.12, 4.3.16).
fn deflated_zip(name: &str, data: &[u8], declared: u32) -> Vec<u8> {
    let packed = miniz_oxide::deflate::compress_to_vec(data, 1);
    let le16 = |v: usize| (v as u16).to_le_bytes();
    let le32 = |v: usize| (v as u32).to_le_bytes();
    let mut zip = Vec::new();
    zip.extend(0x0403_4b50u32.to_le_bytes());
    zip.extend(le16(20));
    zip.extend(le16(0));
    zip.extend(le16(8));
    zip.extend([0; 8]); // time, date, crc
    zip.extend(le32(packed.len()));
    zip.extend(declared.to_le_bytes());
    zip.extend(le16(name.len()));
    zip.extend(le16(0));
    zip.extend(name.as_bytes());
    zip.extend(&packed);
    let central = zip.len();
    zip.extend(0x0201_4b50u32.to_le_bytes());
    zip.extend(le16(20));
    zip.extend(le16(20));
    zip.extend(le16(0));
    zip.extend(le16(8));
    zip.extend([0; 8]);
    zip.extend(le32(packed.len()));
    zip.extend(declared.to_le_bytes());
    zip.extend(le16(name.len()));
    zip.extend([0; 12]); // extra, comment, disk, internal and external attributes
    zip.extend(le32(0));
    zip.extend(name.as_bytes());
    let central_len = zip.len() - central;
    zip.extend(0x0605_4b50u32.to_le_bytes());
    zip.extend([0; 4]);
    zip.extend(le16(1));
    zip.extend(le16(1));
    zip.extend(le32(central_len));
    zip.extend(le32(central));
    zip.extend(le16(0));
    zip
}

/// Breaker pass 3 lead: a zip member declaring 4 GiB was inflated up to 16 × that. It stops at
/// the cap, naming it; a member within it reads whole.
#[test]
fn a_zip_member_inflating_past_the_cap_is_refused() {
    let zeros = vec![0u8; 3 << 20];
    let bomb = deflated_zip("metadata", &zeros, u32::MAX);
    let err = zip_member_capped(&bomb, "metadata", 1 << 20).unwrap_err();
    assert!(err.contains("more than 1048576 bytes"), "{err}");
    assert_eq!(
        zip_member_capped(&bomb, "metadata", 4 << 20).unwrap().len(),
        3 << 20
    );
    let small = deflated_zip("metadata", b"v1\n{\"sstFiles\":[]}", 19);
    assert_eq!(
        zip_member(&small, "metadata").unwrap(),
        b"v1\n{\"sstFiles\":[]}"
    );
}
