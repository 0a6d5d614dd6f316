//! Which Spark release wrote a checkpoint: the version-marker table (data, embedded from
//! `version-markers.toml`) and the pure inference from what was observed to a version range.
//!
//! The conf keys of the latest offset file are authoritative for the release that wrote the
//! latest batch: Spark writes every key it knows into every offset file. File artifacts (state
//! files, operator metadata) may have been written by an earlier run of the query on another
//! release; when one disagrees with the conf keys it is kept as evidence and reported, not used.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize, Serializer};

use super::findings::{Finding, Severity};

/// A Spark release number, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SparkVersion {
    /// Major.
    pub major: u16,
    /// Minor.
    pub minor: u16,
    /// Patch.
    pub patch: u16,
}

impl SparkVersion {
    const fn new(major: u16, minor: u16, patch: u16) -> Self {
        SparkVersion {
            major,
            minor,
            patch,
        }
    }
}

impl fmt::Display for SparkVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for SparkVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split('.').map(|p| p.parse::<u16>());
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Ok(major)), Some(Ok(minor)), patch, None) => {
                let patch = match patch {
                    None => 0,
                    Some(Ok(p)) => p,
                    Some(Err(_)) => return Err(format!("bad Spark version {s:?}")),
                };
                Ok(SparkVersion::new(major, minor, patch))
            }
            _ => Err(format!("bad Spark version {s:?}")),
        }
    }
}

impl Serialize for SparkVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Release lines in order, to name "the line before X" (`3.5.x` before 4.0.0).
const MINOR_LINES: &[(u16, u16)] = &[
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

/// The highest version strictly below `before`, as people say it: `3.5.x` below 4.0.0,
/// `3.2.0` below 3.2.1.
pub(crate) fn last_before(before: SparkVersion) -> String {
    if before.patch > 0 {
        return SparkVersion::new(before.major, before.minor, before.patch - 1).to_string();
    }
    let index = MINOR_LINES
        .iter()
        .position(|&(a, b)| (a, b) == (before.major, before.minor));
    match index {
        Some(i) if i > 0 => format!("{}.{}.x", MINOR_LINES[i - 1].0, MINOR_LINES[i - 1].1),
        _ => format!("below {before}"),
    }
}

fn after_line(line: &str) -> Option<SparkVersion> {
    let v: SparkVersion = line.parse().ok()?;
    let i = MINOR_LINES
        .iter()
        .position(|&(a, b)| (a, b) == (v.major, v.minor))?;
    MINOR_LINES
        .get(i + 1)
        .map(|&(a, b)| SparkVersion::new(a, b, 0))
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Range {
    pub min: Option<SparkVersion>,
    pub before: Option<SparkVersion>,
}

impl Range {
    const ANY: Range = Range {
        min: None,
        before: None,
    };

    fn narrow(&mut self, other: Range) {
        if let Some(m) = other.min {
            self.min = Some(self.min.map_or(m, |x| x.max(m)));
        }
        if let Some(b) = other.before {
            self.before = Some(self.before.map_or(b, |x| x.min(b)));
        }
    }

    fn overlaps(&self, other: Range) -> bool {
        let lo = match (self.min, other.min) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let hi = match (self.before, other.before) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) => lo < hi,
            _ => true,
        }
    }

    pub(crate) fn describe(&self) -> String {
        match (self.min, self.before) {
            (Some(min), Some(before)) => format!("{min} - {}", last_before(before)),
            (Some(min), None) => format!(">= {min}"),
            (None, Some(before)) => format!("<= {}", last_before(before)),
            (None, None) => "any".into(),
        }
    }
}

/// The range a conf map alone implies, with the evidence that decided it: the present key with
/// the highest `since`, and the absent key with the lowest `always_from`.
pub(crate) fn conf_range(conf: &BTreeMap<String, String>, file: &str) -> (Range, Vec<Evidence>) {
    let table = markers();
    let mut best_present: Option<(&ConfKeyMarker, SparkVersion)> = None;
    let mut best_absent: Option<(&ConfKeyMarker, SparkVersion)> = None;
    let mut evidence = Vec::new();
    for marker in &table.conf_key {
        if conf.contains_key(&marker.key) {
            let since: SparkVersion = marker.since.parse().unwrap_or(SparkVersion::new(0, 0, 0));
            if best_present.is_none_or(|(_, v)| since > v) {
                best_present = Some((marker, since));
            }
        } else {
            let from = marker.always_from.as_deref().unwrap_or(&marker.since);
            let from: SparkVersion = from.parse().unwrap_or(SparkVersion::new(u16::MAX, 0, 0));
            if best_absent.is_none_or(|(_, v)| from < v) {
                best_absent = Some((marker, from));
            }
        }
    }
    let mut range = Range::ANY;
    if let Some((marker, since)) = best_present {
        range.min = Some(since);
        evidence.push(Evidence {
            marker: marker.key.clone(),
            file: file.to_string(),
            observed: format!("conf has {}", marker.key),
            implies: format!(">= {since}"),
            source: marker.source.clone(),
            consistent: true,
        });
    }
    if let Some((marker, from)) = best_absent {
        range.before = Some(from);
        evidence.push(Evidence {
            marker: marker.key.clone(),
            file: file.to_string(),
            observed: format!("conf lacks {}", marker.key),
            implies: format!("<= {}", last_before(from)),
            source: marker.source.clone(),
            consistent: true,
        });
    }
    for key in conf.keys().filter(|k| table.conf_key(k).is_none()) {
        evidence.push(Evidence {
            marker: key.clone(),
            file: file.to_string(),
            observed: format!("conf has {key}, which the marker table does not know"),
            implies: "possibly a release newer than the table (4.3)".into(),
            source: "version-markers.toml".into(),
            consistent: true,
        });
    }
    (range, evidence)
}

fn artifact_range(marker: &ArtifactMarker) -> Range {
    Range {
        min: marker.min.parse().ok(),
        before: marker.until.as_deref().and_then(after_line),
    }
}

/// Infers the writer's range from the latest offset file's conf (if any) and the artifacts seen.
/// Returns the range and a warning finding per artifact that contradicts the conf keys.
pub(crate) fn infer(
    latest_conf: Option<(&BTreeMap<String, String>, &str)>,
    seen: &[Observation],
) -> (WriterVersion, Vec<Finding>) {
    let table = markers();
    let mut range = Range::ANY;
    let mut evidence = Vec::new();
    if let Some((conf, file)) = latest_conf {
        let (r, ev) = conf_range(conf, file);
        range.narrow(r);
        evidence.extend(ev);
    }
    // Facts of the latest files first: they describe the same writer as the conf keys.
    let mut ordered: Vec<&Observation> = seen.iter().filter(|o| o.latest).collect();
    ordered.extend(seen.iter().filter(|o| !o.latest));
    let mut findings = Vec::new();
    for obs in ordered {
        let Some(marker) = table.artifact(obs.id) else {
            continue;
        };
        let r = artifact_range(marker);
        let consistent = range.overlaps(r);
        if consistent {
            range.narrow(r);
        } else {
            findings.push(Finding::new(
                Severity::Warning,
                "writer-version-conflict",
                Some(&obs.file),
                format!(
                    "{} points to Spark {}, but the latest batch was written by Spark {}: the query ran on another release before (a downgrade or a mixed copy)",
                    marker.description,
                    r.describe(),
                    range.describe()
                ),
            ));
        }
        evidence.push(Evidence {
            marker: marker.id.clone(),
            file: obs.file.clone(),
            observed: marker.description.clone(),
            implies: r.describe(),
            source: marker.source.clone(),
            consistent,
        });
    }
    let version = WriterVersion {
        min: range.min,
        max: range.before.map(last_before),
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
            row.since.parse::<SparkVersion>().unwrap();
        }
        for row in &m.artifact {
            assert!(!row.source.is_empty(), "{}", row.id);
            row.min.parse::<SparkVersion>().unwrap();
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
        assert_eq!(last_before(SparkVersion::new(4, 0, 0)), "3.5.x");
        assert_eq!(last_before(SparkVersion::new(3, 2, 1)), "3.2.0");
        assert_eq!(after_line("2.3"), Some(SparkVersion::new(2, 4, 0)));
        assert_eq!(
            "3.5".parse::<SparkVersion>().unwrap(),
            SparkVersion::new(3, 5, 0)
        );
        assert!("3".parse::<SparkVersion>().is_err());
    }

    #[test]
    fn an_artifact_newer_than_the_conf_is_a_conflict_not_a_bound() {
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
        assert_eq!(v.describe(), "3.2.1 – 3.5.x");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, "writer-version-conflict");
        assert!(v.evidence.iter().any(|e| !e.consistent));
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
