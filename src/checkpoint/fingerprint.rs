//! Which Spark release wrote a checkpoint: the version-marker table (data, embedded from
//! `version-markers.toml`) and the pure inference from what was observed to a version range.
//!
//! Evidence ranks, strongest first:
//! 1. a conf key *present* in the latest offset file: Spark writes every key it knows into every
//!    offset file, and no release writes a key before it exists;
//! 2. file formats (state files, operator metadata, log versions): they may come from an earlier
//!    run on another release; one that disagrees with (1) is kept as evidence and reported, not
//!    used;
//! 3. a conf key *absent* from the latest offset file: weakest, because preview, RC and
//!    development builds of a release lack keys the release adds late (Spark's own 4.0.0
//!    test checkpoints have operator metadata but no `pruneFiltersCanPruneStreamingSubplan`).
//!    An absence that contradicts (1) or (2) is kept as evidence (`consistent: false`) and
//!    dropped, so the range never has its minimum above its maximum.
//!
//! Versions are the crate's one [`SparkVersion`] (`src/versions.rs`). Pre-release builds are
//! part of the version model: `4.0.0-preview` ([`SparkVersion::any_pre_release`]) stands for
//! any preview, RC or development build of 4.0.0, ordered after every 3.x release and before
//! 4.0.0; the marker table's pre-releases all become that form (`marker_version`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::findings::{Finding, Severity};
use crate::versions::{self, SparkLine, SparkVersion};

/// A version of the marker table (`since`, `always_from`, `min`): a release `X.Y.Z`, or a
/// pre-release (`-preview<N>`, `-rc<N>`, `-SNAPSHOT`), which stands for any preview, RC or
/// development build of X.Y.Z and becomes [`SparkVersion::any_pre_release`] (`X.Y.Z-preview`),
/// since no checkpoint marker tells the builds apart. Written from its numbers (`3.2.1`), as
/// the reports always said it.
fn marker_version(text: &str) -> Option<SparkVersion> {
    let v = SparkVersion::parse(text).ok()?;
    let (major, minor, patch) = v.parts()?;
    let release = SparkVersion::from_parts(major, minor, patch);
    match v.suffix() {
        None => Some(release),
        Some(suffix)
            if ["preview", "rc", "snapshot"]
                .iter()
                .any(|p| suffix.to_ascii_lowercase().starts_with(p)) =>
        {
            Some(release.any_pre_release())
        }
        Some(_) => None,
    }
}

/// Release lines before `spark-lines.toml`'s first (3.0), which the table does not describe
/// (no image or runtime runs them) but old checkpoints come from.
const LINES_BEFORE_THE_TABLE: &[(u32, u32)] = &[(1, 6), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)];

/// Release lines in order, to name "the line before X" (`3.5.x` before 4.0.0): the lines
/// before the table, the table's (3.0 – 4.3), and the line after its newest (4.4), so a marker
/// of the next line still reads "the newest line before it".
fn minor_lines() -> &'static [(u32, u32)] {
    static LINES: OnceLock<Vec<(u32, u32)>> = OnceLock::new();
    LINES.get_or_init(|| {
        let mut lines = LINES_BEFORE_THE_TABLE.to_vec();
        lines.extend(SparkLine::all().iter().map(|l| l.line));
        if let Some(&(major, minor)) = lines.last() {
            lines.push((major, minor + 1));
        }
        lines
    })
}

/// The highest version strictly below `before`, as people say it: `3.5.x` below 4.0.0,
/// `3.2.0` below 3.2.1.
pub(crate) fn last_before(before: &SparkVersion) -> String {
    let Some((major, minor, patch)) = before.parts() else {
        return format!("below {before}");
    };
    if patch > 0 {
        return SparkVersion::from_parts(major, minor, patch - 1).to_string();
    }
    let lines = minor_lines();
    let index = lines.iter().position(|&l| l == (major, minor));
    match index {
        Some(i) if i > 0 => format!("{}.{}.x", lines[i - 1].0, lines[i - 1].1),
        _ => format!("below {before}"),
    }
}

/// The first release after line `line` (`2.4.0` after `2.3`).
fn after_line(line: &str) -> Option<SparkVersion> {
    let line = versions::parse_line(line).ok()?;
    let lines = minor_lines();
    let i = lines.iter().position(|&l| l == line)?;
    lines
        .get(i + 1)
        .map(|&(a, b)| SparkVersion::from_parts(a, b, 0))
}

/// One row of the conf-key table.
#[derive(Debug, Clone, Deserialize)]
pub struct ConfKeyMarker {
    /// The conf key as it appears in the offset log.
    pub key: String,
    /// Lowest release that writes it.
    pub since: String,
    /// Every release from here on writes it; defaults to `since`.
    pub always_from: Option<String>,
    /// Value Spark assumes when an older log lacks the key ("" = none).
    pub default: String,
    /// What the pinned value controls.
    pub meaning: String,
    /// Where this was checked.
    pub source: String,
}

/// One row of the artifact table.
#[derive(Debug, Clone, Deserialize)]
pub struct ArtifactMarker {
    /// Stable id, used by the inspection code.
    pub id: String,
    /// What the artifact is.
    pub description: String,
    /// Lowest release that produces it.
    pub min: String,
    /// Last release line that produces it (`2.3` = any 2.3.x).
    pub until: Option<String>,
    /// Where this was checked.
    pub source: String,
}

/// The whole marker table.
#[derive(Debug, Clone, Deserialize)]
pub struct Markers {
    /// Conf keys of the offset log.
    pub conf_key: Vec<ConfKeyMarker>,
    /// Files, log versions and file-name patterns.
    pub artifact: Vec<ArtifactMarker>,
}

const MARKERS_TOML: &str = include_str!("version-markers.toml");

/// The embedded marker table (parsed once; a parse failure is a bug caught by the unit tests).
pub fn markers() -> &'static Markers {
    static MARKERS: OnceLock<Markers> = OnceLock::new();
    MARKERS.get_or_init(|| {
        toml::from_str(MARKERS_TOML).expect("version-markers.toml is valid (unit-tested)")
    })
}

impl Markers {
    /// The row for a conf key, if the table knows it.
    pub fn conf_key(&self, key: &str) -> Option<&ConfKeyMarker> {
        self.conf_key.iter().find(|m| m.key == key)
    }

    fn artifact(&self, id: &str) -> Option<&ArtifactMarker> {
        self.artifact.iter().find(|m| m.id == id)
    }
}

/// One piece of evidence about the writer's version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The marker: a conf key or an artifact id of the table.
    pub marker: String,
    /// The file it was seen in (relative to the checkpoint).
    pub file: String,
    /// What was seen.
    pub observed: String,
    /// What it implies about the writer (`>= 3.2.1`, `<= 3.5.x`, `2.2.0 - 2.3.x`).
    pub implies: String,
    /// Where the marker was checked (Spark file and version).
    pub source: String,
    /// False when it contradicts the latest offset file (an earlier run on another release).
    pub consistent: bool,
}

/// The guessed version range of the Spark release that wrote the latest batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct WriterVersion {
    /// Lowest release that fits every consistent piece of evidence; `None` when nothing bounds it.
    pub min: Option<SparkVersion>,
    /// Highest release that fits (`3.5.x`); `None` when open-ended.
    pub max: Option<String>,
    /// Every inference, with its file and source.
    pub evidence: Vec<Evidence>,
}

impl WriterVersion {
    /// `3.3.0 – 3.5.x`, `>= 4.0.0`, or `unknown`.
    pub fn describe(&self) -> String {
        match (&self.min, &self.max) {
            (Some(min), Some(max)) if !min.is_release() && *max == min.to_string() => {
                format!(
                    "{min} (a preview, RC or development build of {})",
                    min.to_release()
                )
            }
            (Some(min), Some(max)) => format!("{min} – {max}"),
            (Some(min), None) => format!(">= {min}"),
            (None, Some(max)) => format!("<= {max}"),
            (None, None) => "unknown".to_string(),
        }
    }
}

/// An artifact seen in the checkpoint, by its marker id.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    pub id: &'static str,
    pub file: String,
    /// True for facts of the latest offset or commit file: as authoritative as the conf keys.
    pub latest: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Range {
    pub min: Option<SparkVersion>,
    pub before: Option<SparkVersion>,
}

impl Range {
    const ANY: Range = Range {
        min: None,
        before: None,
    };

    fn narrow(&mut self, other: &Range) {
        if let Some(m) = &other.min {
            self.min = Some(self.min.take().map_or(m.clone(), |x| x.max(m.clone())));
        }
        if let Some(b) = &other.before {
            self.before = Some(self.before.take().map_or(b.clone(), |x| x.min(b.clone())));
        }
    }

    fn overlaps(&self, other: &Range) -> bool {
        let lo = match (&self.min, &other.min) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.as_ref().or(b.as_ref()),
        };
        let hi = match (&self.before, &other.before) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.as_ref().or(b.as_ref()),
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) => lo < hi,
            _ => true,
        }
    }

    /// The highest version in the range, as people say it (`3.5.x`), or `None` when open.
    pub(crate) fn max(&self) -> Option<String> {
        let before = self.before.as_ref()?;
        // Only pre-releases of `before` fit: say so rather than naming the line below.
        Some(match &self.min {
            Some(min) if !min.is_release() && min.to_release() == *before => min.to_string(),
            _ => last_before(before),
        })
    }

    pub(crate) fn describe(&self) -> String {
        match (&self.min, &self.before) {
            (Some(min), Some(_)) if self.max().as_deref() == Some(&min.to_string()) => {
                format!(
                    "{min} (a preview, RC or development build of {})",
                    min.to_release()
                )
            }
            (Some(min), Some(before)) => format!("{min} - {}", last_before(before)),
            (Some(min), None) => format!(">= {min}"),
            (None, Some(before)) => format!("<= {}", last_before(before)),
            (None, None) => "any".into(),
        }
    }
}

/// What a conf map implies: the present key with the highest `since` (a lower bound, rank 1) and
/// the absent key with the lowest `always_from` (an upper bound, rank 3), each with its evidence.
pub(crate) struct ConfBounds {
    /// The lower bound from the present keys.
    pub present: Range,
    /// The upper bound from the absent keys.
    pub absent: Range,
    pub present_evidence: Option<Evidence>,
    pub absent_evidence: Option<Evidence>,
    /// Keys the table does not know.
    pub unknown: Vec<Evidence>,
}

pub(crate) fn conf_bounds(conf: &BTreeMap<String, String>, file: &str) -> ConfBounds {
    let table = markers();
    let mut best_present: Option<(&ConfKeyMarker, SparkVersion)> = None;
    let mut best_absent: Option<(&ConfKeyMarker, SparkVersion)> = None;
    for marker in &table.conf_key {
        if conf.contains_key(&marker.key) {
            let since =
                marker_version(&marker.since).unwrap_or_else(|| SparkVersion::from_parts(0, 0, 0));
            if best_present.as_ref().is_none_or(|(_, v)| since > *v) {
                best_present = Some((marker, since));
            }
        } else {
            let from = marker.always_from.as_deref().unwrap_or(&marker.since);
            let from = marker_version(from)
                .unwrap_or_else(|| SparkVersion::from_parts(u16::MAX.into(), 0, 0));
            if best_absent.as_ref().is_none_or(|(_, v)| from < *v) {
                best_absent = Some((marker, from));
            }
        }
    }
    let evidence = |marker: &ConfKeyMarker, observed: String, implies: String| Evidence {
        marker: marker.key.clone(),
        file: file.to_string(),
        observed,
        implies,
        source: marker.source.clone(),
        consistent: true,
    };
    ConfBounds {
        present: Range {
            min: best_present.as_ref().map(|(_, v)| v.clone()),
            before: None,
        },
        absent: Range {
            min: None,
            before: best_absent.as_ref().map(|(_, v)| v.clone()),
        },
        present_evidence: best_present
            .map(|(m, since)| evidence(m, format!("conf has {}", m.key), format!(">= {since}"))),
        absent_evidence: best_absent.map(|(m, from)| {
            evidence(
                m,
                format!("conf lacks {}", m.key),
                format!("<= {} (or a pre-release of {from})", last_before(&from)),
            )
        }),
        unknown: conf
            .keys()
            .filter(|k| table.conf_key(k).is_none())
            .map(|key| Evidence {
                marker: key.clone(),
                file: file.to_string(),
                observed: format!("conf has {key}, which the marker table does not know"),
                implies: "possibly a release newer than the table (4.3)".into(),
                source: "version-markers.toml".into(),
                consistent: true,
            })
            .collect(),
    }
}

/// The range a conf map alone implies, with the evidence that decided it. An absent key that
/// contradicts the present ones (a hand-edited or mixed conf) is dropped, never giving a range
/// whose minimum is above its maximum.
pub(crate) fn conf_range(conf: &BTreeMap<String, String>, file: &str) -> (Range, Vec<Evidence>) {
    let bounds = conf_bounds(conf, file);
    let mut range = bounds.present;
    let mut evidence: Vec<Evidence> = bounds.present_evidence.into_iter().collect();
    if let Some(mut absent) = bounds.absent_evidence {
        absent.consistent = range.overlaps(&bounds.absent);
        if absent.consistent {
            range.narrow(&bounds.absent);
        }
        evidence.push(absent);
    }
    evidence.extend(bounds.unknown);
    (range, evidence)
}

fn artifact_range(marker: &ArtifactMarker) -> Range {
    Range {
        min: marker_version(&marker.min),
        before: marker.until.as_deref().and_then(after_line),
    }
}

/// Infers the writer's range from the latest offset file's conf (if any) and the artifacts seen,
/// by the ranks of the module doc. Returns the range and a warning finding per artifact that
/// contradicts the present conf keys.
pub(crate) fn infer(
    latest_conf: Option<(&BTreeMap<String, String>, &str)>,
    seen: &[Observation],
) -> (WriterVersion, Vec<Finding>) {
    let table = markers();
    let mut range = Range::ANY;
    let mut evidence = Vec::new();
    let bounds = latest_conf.map(|(conf, file)| conf_bounds(conf, file));
    if let Some(b) = &bounds {
        range.narrow(&b.present);
        evidence.extend(b.present_evidence.clone());
    }
    // Facts of the latest files first: they describe the same writer as the conf keys.
    let mut ordered: Vec<&Observation> = seen.iter().filter(|o| o.latest).collect();
    ordered.extend(seen.iter().filter(|o| !o.latest));
    let mut findings = Vec::new();
    let mut artifacts = Vec::new();
    for obs in ordered {
        let Some(marker) = table.artifact(obs.id) else {
            continue;
        };
        let r = artifact_range(marker);
        let implies = r.describe();
        let consistent = range.overlaps(&r);
        if consistent {
            range.narrow(&r);
        } else {
            findings.push((marker, obs, r));
        }
        artifacts.push(Evidence {
            marker: marker.id.clone(),
            file: obs.file.clone(),
            observed: marker.description.clone(),
            implies,
            source: marker.source.clone(),
            consistent,
        });
    }
    // The absence of a conf key ranks last: it narrows only what the rest allows.
    if let Some(b) = bounds {
        if let Some(mut absent) = b.absent_evidence {
            absent.consistent = range.overlaps(&b.absent);
            if absent.consistent {
                range.narrow(&b.absent);
            }
            evidence.push(absent);
        }
        evidence.extend(b.unknown);
    }
    evidence.extend(artifacts);
    let findings = findings
        .into_iter()
        .map(|(marker, obs, r)| {
            Finding::new(
                Severity::Warning,
                "writer-version-conflict",
                Some(&obs.file),
                format!(
                    "{} points to Spark {}, but the latest batch was written by Spark {}: the query ran on another release before (a downgrade or a mixed copy)",
                    marker.description,
                    r.describe(),
                    range.describe()
                ),
            )
        })
        .collect();
    let version = WriterVersion {
        max: range.max(),
        min: range.min,
        evidence,
    };
    (version, findings)
}

#[cfg(test)]
mod tests {
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
        assert_eq!(r.describe(), "3.2.1 - 3.5.x");
        assert_eq!(ev.len(), 2);
        assert_eq!(
            ev[1].marker,
            "spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan"
        );
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
        let (v, findings) = infer(Some((&c, "offsets/3")), &seen);
        assert_eq!(v.min.as_ref().unwrap().to_string(), "4.0.0-preview");
        assert_eq!(v.max.as_deref(), Some("4.0.0-preview"));
        assert_eq!(
            v.describe(),
            "4.0.0-preview (a preview, RC or development build of 4.0.0)"
        );
        assert!(findings.is_empty(), "{findings:?}");
        assert!(v.evidence.iter().all(|e| e.consistent));
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
        let (v, findings) = infer(Some((&c, "offsets/3")), &seen);
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
        let (v, _) = infer(Some((&c, "offsets/0")), &[]);
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
        let (v, _) = infer(None, &seen);
        assert_eq!(v.describe(), "2.2.0 – 2.3.x");
    }
}
