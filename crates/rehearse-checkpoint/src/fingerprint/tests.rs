use super::*;

fn conf(keys: &[&str]) -> BTreeMap<String, String> {
    keys.iter()
        .map(|k| (k.to_string(), "x".to_string()))
        .collect()
}

const KEYS_3_5: &[&str] = &[
    "spark.sql.streaming.stateStore.providerClass",
    "spark.sql.streaming.join.stateFormatVersion",
    "spark.sql.streaming.stateStore.compression.codec",
    "spark.sql.streaming.stateStore.rocksdb.formatVersion",
    "spark.sql.streaming.statefulOperator.useStrictDistribution",
    "spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion",
    "spark.sql.streaming.multipleWatermarkPolicy",
    "spark.sql.streaming.aggregation.stateFormatVersion",
    "spark.sql.shuffle.partitions",
];

#[test]
fn the_table_parses_and_every_row_cites_a_source() {
    let m = markers();
    assert!(m.conf_key.len() >= 17);
    for row in &m.conf_key {
        assert!(!row.source.is_empty(), "{}", row.key);
        assert!(marker_version(&row.since).is_some(), "{}", row.key);
        if let Some(from) = &row.always_from {
            assert!(marker_version(from).is_some(), "{}", row.key);
        }
    }
    for row in &m.artifact {
        assert!(!row.source.is_empty(), "{}", row.id);
        assert!(marker_version(&row.min).is_some(), "{}", row.id);
        if let Some(until) = &row.until {
            assert!(after_line(until).is_some(), "{}", row.id);
        }
    }
}

#[test]
fn spark_3_5_conf_keys_give_3_2_1_to_3_5_x() {
    let (r, ev) = conf_range(&conf(KEYS_3_5), "offsets/3");
    // 3.5.5 writes the pruneFilters key (jar:3.5.5): its absence ends the range at 3.5.4.
    assert_eq!(r.describe(), "3.2.1 - 3.5.4");
    assert_eq!(ev.len(), 2);
    assert_eq!(
        ev[1].marker,
        "spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan"
    );
}

/// Spark 3.5.5 renamed 3.5.4's misnamed `spark.databricks.…` key to the key 4.0.0 writes
/// (SPARK-51187; jar:3.5.4 and jar:3.5.5 SQLConf$, OffsetSeqMetadata$): a 3.5.5+ checkpoint
/// read ">= 4.0.0" (excluding its writer) and 3.5.4's key was "possibly newer than 4.3".
#[test]
fn spark_3_5_4_and_3_5_5_keys_place_their_writers() {
    let mut keys = KEYS_3_5.to_vec();
    keys.push("spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan");
    let (r, _) = conf_range(&conf(&keys), "offsets/1");
    assert_eq!(r.describe(), "3.5.5 - 3.5.x");
    let mut keys = KEYS_3_5.to_vec();
    keys.push("spark.databricks.sql.optimizer.pruneFiltersCanPruneStreamingSubplan");
    let (r, ev) = conf_range(&conf(&keys), "offsets/1");
    assert_eq!(r.describe(), "3.5.4");
    assert!(ev.iter().all(|e| !e.implies.contains("newer")), "{ev:?}");
}

/// Issue 14: a stateless checkpoint with 3.5's keys may come from a 4.0.0 development build
/// (Spark's own 4.0.0 test checkpoints lack the 3.5.5/4.0.0 key); a stateful one may not,
/// since such a build writes operator metadata for every stateful operator.
#[test]
fn a_stateless_3_5_conf_may_be_a_4_0_0_pre_release_and_a_stateful_one_not() {
    let c = conf(KEYS_3_5);
    let (v, _) = infer(Some((&c, "offsets/1")), &[], true);
    assert_eq!(v.describe(), "3.2.1 – 3.5.4, or a 4.0.0 pre-release");
    let (v, _) = infer(Some((&c, "offsets/1")), &[], false);
    assert_eq!(v.describe(), "3.2.1 – 3.5.4");
    // Operator metadata places a stateful one inside the pre-release, without an "or".
    let seen = [Observation {
        id: "operator-metadata-v1",
        file: "state/0/_metadata/metadata".into(),
        latest: true,
    }];
    let (v, findings) = infer(Some((&c, "offsets/1")), &seen, false);
    assert_eq!(
        v.describe(),
        "4.0.0-preview (a preview, RC or development build of 4.0.0)"
    );
    assert!(findings.is_empty());
    // A 2.3 conf on a stateless checkpoint keeps its range: 2.4.0's key is not late.
    let (v, _) = infer(
        Some((
            &conf(&[
                "spark.sql.shuffle.partitions",
                "spark.sql.streaming.stateStore.providerClass",
            ]),
            "offsets/1",
        )),
        &[],
        true,
    );
    assert_eq!(v.describe(), "2.3.0 – 2.3.x");
}

#[test]
fn version_lines() {
    let v = SparkVersion::from_parts;
    assert_eq!(last_before(&v(4, 0, 0)), "3.5.x");
    assert_eq!(last_before(&v(3, 2, 1)), "3.2.0");
    assert_eq!(last_before(&v(3, 0, 0)), "2.4.x");
    assert_eq!(last_before(&v(4, 4, 0)), "4.3.x");
    assert_eq!(last_before(&v(1, 6, 0)), "below 1.6.0");
    assert_eq!(after_line("2.3"), Some(v(2, 4, 0)));
    assert_eq!(after_line("2.4"), Some(v(3, 0, 0)));
    assert_eq!(after_line("4.3"), Some(v(4, 4, 0)));
    assert_eq!(after_line("4.4"), None);
    assert_eq!(after_line("3.5.0"), None);
    assert!(after_line("3").is_none());
}

/// The lines are the ones the checkpoint's own list named before the one version type
/// (issue 10): 1.6 – 2.4 kept here, 3.0 – 4.3 from `spark-lines.toml`, then 4.4.
#[test]
fn the_lines_are_the_old_list() {
    let old: &[(u32, u32)] = &[
        (1, 6),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 0),
        (3, 1),
        (3, 2),
        (3, 3),
        (3, 4),
        (3, 5),
        (4, 0),
        (4, 1),
        (4, 2),
        (4, 3),
        (4, 4),
    ];
    assert_eq!(minor_lines(), old);
}

/// Issue 14: Spark's own 4.0.0 test checkpoints (a development build) have operator
/// metadata but not the `pruneFiltersCanPruneStreamingSubplan` key the release added late;
/// they were called "3.2.1 – 3.5.x" with a false downgrade warning. The file format outranks
/// the missing key: a 4.0.0 pre-release build.
#[test]
fn a_file_format_outranks_a_missing_conf_key_and_names_a_pre_release() {
    let c = conf(KEYS_3_5);
    let seen = [
        Observation {
            id: "operator-metadata-v1",
            file: "state/0/_metadata/metadata".into(),
            latest: false,
        },
        Observation {
            id: "commit-next-batch-watermark",
            file: "commits/3".into(),
            latest: true,
        },
    ];
    let (v, findings) = infer(Some((&c, "offsets/3")), &seen, false);
    assert_eq!(v.min.as_ref().unwrap().to_string(), "4.0.0-preview");
    assert_eq!(v.max.as_deref(), Some("4.0.0-preview"));
    assert_eq!(
        v.describe(),
        "4.0.0-preview (a preview, RC or development build of 4.0.0)"
    );
    assert!(findings.is_empty(), "{findings:?}");
    // The missing 3.5.5/4.0.0 key is shown as skipped; the next absent key (4.0.0's
    // encodingFormat) gives the bound.
    let skipped: Vec<&str> = v
        .evidence
        .iter()
        .filter(|e| !e.consistent)
        .map(|e| e.marker.as_str())
        .collect();
    assert_eq!(
        skipped,
        ["spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan"]
    );
}

/// An artifact older than the present conf keys allow is still a conflict, not a bound.
#[test]
fn an_artifact_older_than_the_present_keys_is_a_conflict_not_a_bound() {
    let mut c = conf(KEYS_3_5);
    for key in [
        "spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan",
        "spark.sql.streaming.stateStore.encodingFormat",
    ] {
        c.insert(key.into(), "x".into());
    }
    let seen = [Observation {
        id: "commit-body-empty",
        file: "commits/0".into(),
        latest: false,
    }];
    let (v, findings) = infer(Some((&c, "offsets/3")), &seen, false);
    assert_eq!(v.describe(), "4.0.0 – 4.1.x");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].code, "writer-version-conflict");
}

/// Issue 14: a hand-made conf with a 4.2 key but without a 3.3 key gave a range whose
/// minimum was above its maximum. Presence outranks absence; the range stays possible.
#[test]
fn contradicting_conf_keys_never_give_an_impossible_range() {
    let c = conf(&[
        "spark.sql.shuffle.partitions",
        "spark.sql.streaming.stateStore.rowChecksum.enabled",
    ]);
    let (v, _) = infer(Some((&c, "offsets/0")), &[], false);
    assert_eq!(v.min.as_ref().unwrap().to_string(), "4.2.0");
    assert!(
        v.max.is_none() || v.max.as_deref() >= Some("4.2"),
        "{}",
        v.describe()
    );
    let absent = v
        .evidence
        .iter()
        .find(|e| e.observed.starts_with("conf lacks"));
    assert!(absent.is_some_and(|e| !e.consistent), "{:?}", v.evidence);
    let (r, _) = conf_range(&c, "offsets/0");
    assert!(r.min.is_some() && r.before.is_none_or(|b| Some(b) > r.min));
}

#[test]
fn pre_releases_sort_between_the_line_before_and_the_release() {
    let p = marker_version("4.0.0-preview2").unwrap();
    assert!(!p.is_release());
    assert!(p < SparkVersion::from_parts(4, 0, 0) && p > SparkVersion::from_parts(3, 5, 9));
    assert_eq!(marker_version("4.0.0-rc1"), Some(p.clone()));
    assert_eq!(marker_version("4.0.0-SNAPSHOT"), Some(p.clone()));
    assert_eq!(p.to_string(), "4.0.0-preview");
    assert_eq!(marker_version("4.0.0-x"), None);
    assert_eq!(marker_version("3.5"), None);
    assert_eq!(marker_version("3.05.0").unwrap().to_string(), "3.5.0");
}

#[test]
fn commit_body_alone_bounds_an_old_checkpoint() {
    let seen = [Observation {
        id: "commit-body-empty",
        file: "commits/0".into(),
        latest: true,
    }];
    let (v, _) = infer(None, &seen, false);
    assert_eq!(v.describe(), "2.2.0 – 2.3.x");
}
