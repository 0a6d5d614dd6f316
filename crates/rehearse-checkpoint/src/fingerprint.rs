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
//! Versions are the crate's one [`SparkVersion`] (`crates/rehearse-base/src/versions.rs`). Pre-release builds are
//! part of the version model: `4.0.0-preview` ([`SparkVersion::any_pre_release`]) stands for
//! any preview, RC or development build of 4.0.0, ordered after every 3.x release and before
//! 4.0.0; the marker table's pre-releases all become that form (`marker_version`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::findings::{Finding, Severity};
use rehearse_base::versions::{self, SparkLine, SparkVersion};

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

/// The release right after `until` (`3.5.5` after `3.5.4`): the exclusive bound a conf key's
/// `until` gives.
fn release_after(until: &str) -> Option<SparkVersion> {
    let (major, minor, patch) = marker_version(until)?.parts()?;
    Some(SparkVersion::from_parts(major, minor, patch + 1))
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
    /// The last release that writes the key under this name (`3.5.4` for the misnamed
    /// `spark.databricks.…` key, renamed in 3.5.5): present => writer <= until. Absent = still
    /// written.
    pub until: Option<String>,
    /// A release whose pre-releases (preview, RC, development builds) lack the key although the
    /// release writes it: the key's absence then also fits such a build (`4.0.0`: Spark's own
    /// 4.0.0 test checkpoints, written by development builds, lack the 3.5.5/4.0.0 key).
    pub pre_releases_lack: Option<String>,
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
    /// A pre-release that fits too, outside `min`..`max` (`4.0.0-preview` for a stateless
    /// checkpoint whose conf keys are 3.5's: 4.0.0's development builds wrote the same keys and
    /// no file format tells them apart). `None` when nothing but the range fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub or_pre_release: Option<SparkVersion>,
    /// Every inference, with its file and source.
    pub evidence: Vec<Evidence>,
}

impl WriterVersion {
    /// `3.3.0 – 3.5.x`, `>= 4.0.0`, `3.5.4`, or `unknown`; `…, or a 4.0.0 pre-release` when one
    /// fits too.
    pub fn describe(&self) -> String {
        let range = self.describe_range();
        match &self.or_pre_release {
            Some(pre) => format!("{range}, or a {} pre-release", pre.to_release()),
            None => range,
        }
    }

    fn describe_range(&self) -> String {
        match (&self.min, &self.max) {
            (Some(min), Some(max)) if min.is_release() && *max == min.to_string() => {
                min.to_string()
            }
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

    fn contains(&self, v: &SparkVersion) -> bool {
        self.min.as_ref().is_none_or(|m| m <= v) && self.before.as_ref().is_none_or(|b| v < b)
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
            (Some(min), Some(_))
                if min.is_release() && self.max().as_deref() == Some(&min.to_string()) =>
            {
                min.to_string()
            }
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

/// What a conf map implies: the present key with the highest `since` (a lower bound, rank 1),
/// the present key with the lowest `until` (an upper bound, rank 1), and the absent keys by
/// their `always_from`, lowest first (upper bounds, rank 3), each with its evidence.
pub(crate) struct ConfBounds {
    /// The bounds from the present keys.
    pub present: Range,
    pub present_evidence: Option<Evidence>,
    /// The present key with an `until` (the last release writing it under that name), if any.
    pub until_evidence: Option<Evidence>,
    /// The absent keys' upper bounds, tightest first.
    pub absent: Vec<Absence>,
    /// Keys the table does not know.
    pub unknown: Vec<Evidence>,
}

/// The upper bound one absent conf key gives.
pub(crate) struct Absence {
    range: Range,
    evidence: Evidence,
    /// The release whose pre-releases lack the key (`pre_releases_lack`), as `X.Y.Z-preview`.
    pre_release: Option<SparkVersion>,
}

/// Narrows `range` by the tightest absence that fits it; absences that contradict it (a
/// pre-release, a hand-edited or mixed conf) are kept as evidence (`consistent: false`) and
/// skipped, so the minimum never exceeds the maximum. Returns the evidence and the pre-release
/// that also fits the chosen absence, if its row names one.
fn narrow_by_absence(
    range: &mut Range,
    absent: Vec<Absence>,
) -> (Vec<Evidence>, Option<SparkVersion>) {
    let mut evidence = Vec::new();
    for mut a in absent {
        a.evidence.consistent = range.overlaps(&a.range);
        let chosen = a.evidence.consistent;
        evidence.push(a.evidence);
        if chosen {
            range.narrow(&a.range);
            return (evidence, a.pre_release);
        }
    }
    (evidence, None)
}

pub(crate) fn conf_bounds(conf: &BTreeMap<String, String>, file: &str) -> ConfBounds {
    let table = markers();
    let mut best_present: Option<(&ConfKeyMarker, SparkVersion)> = None;
    let mut best_until: Option<(&ConfKeyMarker, SparkVersion)> = None;
    let mut absent: Vec<(&ConfKeyMarker, SparkVersion)> = Vec::new();
    for marker in &table.conf_key {
        if conf.contains_key(&marker.key) {
            let since =
                marker_version(&marker.since).unwrap_or_else(|| SparkVersion::from_parts(0, 0, 0));
            if best_present.as_ref().is_none_or(|(_, v)| since > *v) {
                best_present = Some((marker, since));
            }
            if let Some(before) = marker.until.as_deref().and_then(release_after) {
                if best_until.as_ref().is_none_or(|(_, v)| before < *v) {
                    best_until = Some((marker, before));
                }
            }
        } else if marker.until.is_none() {
            // A key with an `until` stops being written: its absence bounds nothing.
            let from = marker.always_from.as_deref().unwrap_or(&marker.since);
            let from = marker_version(from)
                .unwrap_or_else(|| SparkVersion::from_parts(u16::MAX.into(), 0, 0));
            absent.push((marker, from));
        }
    }
    absent.sort_by(|a, b| a.1.cmp(&b.1));
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
            before: best_until.as_ref().map(|(_, v)| v.clone()),
        },
        until_evidence: best_until.map(|(m, before)| {
            evidence(
                m,
                format!("conf has {}", m.key),
                format!("<= {}", last_before(&before)),
            )
        }),
        absent: absent
            .into_iter()
            .map(|(m, from)| Absence {
                evidence: evidence(
                    m,
                    format!("conf lacks {}", m.key),
                    match &m.pre_releases_lack {
                        Some(late) => format!(
                            "<= {} (or a pre-release of {from} or of {late})",
                            last_before(&from)
                        ),
                        None => format!("<= {} (or a pre-release of {from})", last_before(&from)),
                    },
                ),
                pre_release: m
                    .pre_releases_lack
                    .as_deref()
                    .and_then(marker_version)
                    .map(|v| v.to_release().any_pre_release()),
                range: Range {
                    min: None,
                    before: Some(from),
                },
            })
            .collect(),
        present_evidence: best_present
            .map(|(m, since)| evidence(m, format!("conf has {}", m.key), format!(">= {since}"))),
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
    evidence.extend(bounds.until_evidence);
    let (absent, _) = narrow_by_absence(&mut range, bounds.absent);
    evidence.extend(absent);
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
///
/// `stateless`: the checkpoint has no stateful operator. Only then may a pre-release the absent
/// key's row names (`pre_releases_lack`) fit beside the range: every stateful operator of such a
/// build writes operator metadata (a file format that would have placed it already).
pub(crate) fn infer(
    latest_conf: Option<(&BTreeMap<String, String>, &str)>,
    seen: &[Observation],
    stateless: bool,
) -> (WriterVersion, Vec<Finding>) {
    let table = markers();
    let mut range = Range::ANY;
    let mut evidence = Vec::new();
    let bounds = latest_conf.map(|(conf, file)| conf_bounds(conf, file));
    if let Some(b) = &bounds {
        range.narrow(&b.present);
        evidence.extend(b.present_evidence.clone());
        evidence.extend(b.until_evidence.clone());
    }
    // What the present keys and the file formats allow, before the absent key narrows it.
    let mut without_absence = range.clone();
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
            without_absence.narrow(&r);
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
    let mut or_pre_release = None;
    if let Some(b) = bounds {
        let (absent, pre_release) = narrow_by_absence(&mut range, b.absent);
        evidence.extend(absent);
        // A pre-release of a later release lacking the key fits too, when the present keys and
        // the file formats allow it and the range does not already hold it.
        or_pre_release = pre_release
            .filter(|pre| stateless && without_absence.contains(pre) && !range.contains(pre));
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
        or_pre_release,
        evidence,
    };
    (version, findings)
}

#[cfg(test)]
mod tests;
