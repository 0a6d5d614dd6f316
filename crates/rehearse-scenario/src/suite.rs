//! Suite files (TOML): query shapes × state store providers × source versions × target
//! versions, with the verdict expected per cell. Documented for users in `scenarios/suites/README.md`.
//!
//! Like scenarios, parsed in two passes: [`SuiteFile`] mirrors the TOML (`deny_unknown_fields`),
//! then [`Suite::load`] validates it, loads every shape's scenario, and fails before any
//! container starts.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{check_timeout, CheckpointSource, Scenario, ScenarioError};
use rehearse_base::versions::SparkVersion;
use rehearse_verdict::Verdict;

/// `spark.sql.streaming.stateStore.providerClass` (SQLConf.scala, Spark 3.0–4.x).
pub const PROVIDER_CONF: &str = "spark.sql.streaming.stateStore.providerClass";

/// The state store providers a suite can name, as data: `(name in suite files, provider class,
/// first Spark version that ships it, source)`. `hdfs` sets no conf: it is Spark's default, as
/// in most production jobs.
pub const PROVIDERS: &[(&str, Option<&str>, &str, &str)] = &[
    (
        "hdfs",
        None,
        "2.2.0",
        "HDFSBackedStateStoreProvider.scala; the default of spark.sql.streaming.stateStore.providerClass (SQLConf.scala)",
    ),
    (
        "rocksdb",
        Some("org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"),
        "3.2.0",
        "RocksDBStateStoreProvider.scala, added in Spark 3.2.0 (SPARK-34198)",
    ),
];

/// The TOML document, field for field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// Suite name for reports (default: the file stem).
    pub name: Option<String>,
    /// Spark versions that write the source checkpoints.
    pub sources: Vec<String>,
    /// Spark versions the checkpoints are restarted on (default: `sources`).
    pub targets: Option<Vec<String>>,
    /// State store providers (`hdfs`, `rocksdb`; default `["hdfs"]`).
    pub providers: Option<Vec<String>>,
    /// Seconds per trial from submit to verdict (default: each shape scenario's).
    pub timeout_seconds: Option<u64>,
    /// The query shapes.
    pub shapes: Vec<ShapeSpec>,
    /// Expected verdicts; a cell without a matching row expects `resumed`.
    #[serde(default)]
    pub expect: Vec<ExpectSpec>,
    /// `[cluster]`: run the cells on one Spark standalone cluster of this shape (as
    /// `--runtime standalone`), unless `--runtime` says otherwise.
    pub cluster: Option<super::ClusterSpec>,
    /// Semantic warnings fail the suite (as `rehearse matrix --deny-warnings`); default false.
    #[serde(default)]
    pub deny_warnings: bool,
    /// `control = true`: a control trial per source checkpoint, every cell compared with it
    /// (`suite/parity.rs`).
    #[serde(default)]
    pub control: bool,
    /// Refused at load: each source's control runs on that source's version.
    pub control_version: Option<String>,
    /// Top-level JSON keys left out of the parity comparison, for every shape (added to each
    /// shape scenario's own).
    #[serde(default)]
    pub volatile_columns: Vec<String>,
    /// `"must-match"` or `"may-differ"` (default: each shape scenario's, else must-match).
    pub parity: Option<String>,
}

/// `[[shapes]]`: one query shape, given as a scenario file whose `[checkpoint.generate]`
/// describes how to write its source checkpoint.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    /// Shape name (default: the scenario's name).
    pub name: Option<String>,
    /// The scenario file (relative to the suite file).
    pub scenario: PathBuf,
    /// Oldest Spark version that can run the shape (e.g. `3.4.0` for applyInPandasWithState);
    /// cells with an older source or target are not applicable.
    pub min_spark: Option<String>,
}

/// `[[expect]]`: the verdict expected for every cell the row matches; an omitted key matches
/// any value. The first matching row wins.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// Shape name.
    pub shape: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// Source version.
    pub source: Option<String>,
    /// Target version.
    pub target: Option<String>,
    /// The verdict (`resumed`, `state-store-error`, …).
    pub verdict: String,
    /// Why (cited in reports): a Spark JIRA, a release note.
    pub reason: Option<String>,
}

/// A validated shape.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Name used in reports and topic names.
    pub name: String,
    /// The loaded scenario (its targets and `[expect]` are ignored: the suite decides).
    pub scenario: Scenario,
    /// Oldest Spark version that can run the shape (a release, parsed at load).
    pub min_spark: Option<SparkVersion>,
}

/// A validated expectation row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    /// Shape, provider, source, target: `None` matches any.
    pub shape: Option<String>,
    /// Provider.
    pub provider: Option<String>,
    /// Source version.
    pub source: Option<String>,
    /// Target version.
    pub target: Option<String>,
    /// Expected verdict.
    pub verdict: Verdict,
    /// Why.
    pub reason: Option<String>,
}

/// A validated suite.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Name for reports.
    pub name: String,
    /// The suite file.
    pub file: PathBuf,
    /// Shapes in file order.
    pub shapes: Vec<Shape>,
    /// Provider names in file order.
    pub providers: Vec<String>,
    /// Source versions in file order (known releases, parsed once at load; shown as written).
    pub sources: Vec<SparkVersion>,
    /// Target versions in file order (as `sources`).
    pub targets: Vec<SparkVersion>,
    /// Per-trial timeout override.
    pub timeout_seconds: Option<u64>,
    /// Expectation rows in file order.
    pub expect: Vec<Expectation>,
    /// `[cluster]`: the standalone cluster the suite asks to run on.
    pub cluster: Option<super::ClusterShape>,
    /// `deny_warnings = true` (or `rehearse matrix --deny-warnings`): a cell that agrees but
    /// carries a semantic warning fails the suite (exit 19).
    pub deny_warnings: bool,
    /// The suite's control and parity settings (`control`, `volatile_columns`, `parity`;
    /// `suite/parity.rs`); `control_version` is always `None`.
    pub parity: SuiteParity,
}

/// One cell of the grid: a shape's checkpoint written by `source` with `provider`, restarted
/// on `target`. Ordered by shape, provider, then the versions in version order (`3.9.1` before
/// `3.10.0`); cells run and are reported in grid order, never sorted by this.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellKey {
    /// Shape name.
    pub shape: String,
    /// Provider name.
    pub provider: String,
    /// Source version.
    pub source: SparkVersion,
    /// Target version.
    pub target: SparkVersion,
}

impl CellKey {
    /// `(shape, provider, source, target)` as text, as reports name a cell.
    pub fn names(&self) -> (&str, &str, &str, &str) {
        (
            &self.shape,
            &self.provider,
            self.source.as_str(),
            self.target.as_str(),
        )
    }

    /// `shape/provider/source->target`: unique in a suite, stable across runs and shards.
    pub fn id(&self) -> String {
        format!(
            "{}/{}/{}->{}",
            self.shape, self.provider, self.source, self.target
        )
    }
}

/// The cells that share one source checkpoint: (shape, provider, source) and its targets.
#[derive(Debug, Clone)]
pub struct Group {
    /// Index of the shape in [`Suite::shapes`].
    pub shape: usize,
    /// Provider name.
    pub provider: String,
    /// Source version.
    pub source: SparkVersion,
    /// Target versions, in suite order.
    pub targets: Vec<SparkVersion>,
}

/// Why a suite file was rejected. Messages name the file and the key.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The file could not be read: missing, not a regular file, too big, not UTF-8 (the
    /// message names the file and the fix).
    #[error(transparent)]
    Read(#[from] rehearse_base::userfile::UserFileError),
    /// Malformed TOML or unknown keys.
    #[error("suite {path} is not valid: {message}\n(hint: see scenarios/suites/README.md for the format)")]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message (names key and line).
        message: String,
    },
    /// A value is wrong.
    #[error("suite {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A shape's scenario is wrong (the scenario's error is the source, printed by the chain).
    #[error("suite {path}: shape {shape}")]
    Shape {
        /// The suite file.
        path: PathBuf,
        /// The shape.
        shape: String,
        /// The scenario's error.
        source: ScenarioError,
    },
}

/// A suite (or a shape's scenario) that cannot be read or is wrong is the user's to fix (exit 3).
impl rehearse_base::HasErrorKind for SuiteError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        rehearse_base::ErrorKind::BadInput
    }
}

/// `--shard I/N`: the I-th (1-based) of N deterministic slices of a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// 1-based index.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard like 1/4 (index from 1 to count)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Kafka's longest topic name (`Topic.MAX_NAME_LENGTH`, clients/.../internals/Topic.java).
pub const MAX_TOPIC_NAME: usize = 249;

/// `sources` or `targets`: at least one Spark release rehearse knows
/// ([`SparkVersion::known_release`]), none named twice (a repeat is a typo for another version
/// more often than not), parsed, file order kept.
fn versions(key: &str, list: &[String]) -> Result<Vec<SparkVersion>, String> {
    if list.is_empty() {
        return Err(format!(
            "`{key}` is empty: name at least one Spark version, e.g. {key} = [\"3.5.3\"]"
        ));
    }
    let mut out: Vec<SparkVersion> = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let version = SparkVersion::known_release(v).map_err(|m| format!("{key}: {m}"))?;
        if list[..i].contains(v) {
            return Err(format!("`{key}` names {v:?} twice: name each version once"));
        }
        out.push(version);
    }
    Ok(out)
}

/// The first Spark version that ships provider `name` ([`PROVIDERS`]), if it is one.
fn provider_since(name: &str) -> Option<(&'static str, SparkVersion)> {
    PROVIDERS
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(n, _, min, _)| {
            (
                *n,
                SparkVersion::parse(min).expect("PROVIDERS name Spark versions"),
            )
        })
}

/// `providers` (default `["hdfs"]`): not empty, each one of [`PROVIDERS`].
fn providers(list: Option<&[String]>) -> Result<Vec<String>, String> {
    let providers = list.map_or_else(|| vec!["hdfs".to_string()], <[String]>::to_vec);
    if providers.is_empty() {
        return Err("`providers` is empty: use [\"hdfs\"], [\"rocksdb\"] or both".into());
    }
    for p in &providers {
        if !PROVIDERS.iter().any(|(name, ..)| name == p) {
            let names: Vec<_> = PROVIDERS.iter().map(|(n, ..)| *n).collect();
            return Err(format!(
                "provider {p:?} is not known; one of {}",
                names.join(", ")
            ));
        }
    }
    Ok(providers)
}

/// Whether `name` can be part of a Kafka topic name: letters, digits, `.`, `_`, `-`.
fn topic_safe(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
}

/// `[[shapes]]`: at least one; each loads its scenario (relative to the suite file), which must
/// generate its checkpoint; names are topic-safe and unique; `min_spark` a Spark release.
fn shapes(
    specs: &[ShapeSpec],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<Shape>, SuiteError> {
    let invalid = |message: String| SuiteError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if specs.is_empty() {
        return Err(invalid(
            "no [[shapes]]: name at least one scenario file, e.g. [[shapes]] scenario = \"../shapes/dedup.toml\"".into(),
        ));
    }
    let base = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut shapes: Vec<Shape> = Vec::new();
    for spec in specs {
        let mut shape = shape(spec, &base, path, warnings)?;
        if shapes.iter().any(|s| s.name == shape.name) {
            return Err(invalid(format!("shape {:?} is named twice", shape.name)));
        }
        shape.min_spark = spec
            .min_spark
            .as_deref()
            .map(|m| {
                SparkVersion::release(m)
                    .map_err(|e| invalid(format!("shape {}: min_spark: {e}", shape.name)))
            })
            .transpose()?;
        shapes.push(shape);
    }
    Ok(shapes)
}

/// One `[[shapes]]` entry: its scenario loaded from `base`, with a generated checkpoint, and a
/// topic-safe name (the `name` key, else the scenario's); `min_spark` is left for [`shapes`]
/// to check.
fn shape(
    spec: &ShapeSpec,
    base: &Path,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Shape, SuiteError> {
    let invalid = |message: String| SuiteError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let scenario_path = if spec.scenario.is_absolute() {
        spec.scenario.clone()
    } else {
        base.join(&spec.scenario)
    };
    let label = spec
        .name
        .clone()
        .unwrap_or_else(|| spec.scenario.display().to_string());
    let scenario =
        Scenario::load_with(&scenario_path, warnings).map_err(|source| SuiteError::Shape {
            path: path.to_path_buf(),
            shape: label.clone(),
            source,
        })?;
    if !matches!(scenario.checkpoint, CheckpointSource::Generate { .. }) {
        return Err(invalid(format!(
            "shape {label}: scenario {} has no [checkpoint.generate]; a suite writes each source checkpoint itself",
            scenario_path.display()
        )));
    }
    let name = spec.name.clone().unwrap_or_else(|| scenario.name.clone());
    if !topic_safe(&name) {
        return Err(invalid(format!(
            "shape name {name:?}: use letters, digits, '.', '_' and '-' (it becomes part of Kafka topic names)"
        )));
    }
    Ok(Shape {
        name,
        scenario,
        min_spark: None,
    })
}

/// One broker serves a suite: every shape names the same Kafka version.
fn check_one_kafka(shapes: &[Shape]) -> Result<(), String> {
    match shapes
        .iter()
        .find(|s| s.scenario.kafka_version != shapes[0].scenario.kafka_version)
    {
        Some(other) => Err(format!(
            "shapes {} and {} name different Kafka versions ({} and {}); one broker serves a suite, so give them the same kafka_version",
            shapes[0].name, other.name, shapes[0].scenario.kafka_version, other.scenario.kafka_version
        )),
        None => Ok(()),
    }
}

/// The values an `[[expect]]` row may name.
struct Axes<'a> {
    shapes: Vec<String>,
    providers: &'a [String],
    sources: &'a [String],
    targets: &'a [String],
}

/// `[[expect]]`: each row's verdict is a verdict name, and each key it sets names a value of
/// the suite.
fn expectations(rows: &[ExpectSpec], axes: &Axes) -> Result<Vec<Expectation>, String> {
    let mut expect = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let verdict = Verdict::from_name(&row.verdict).ok_or_else(|| {
            let names: Vec<_> = Verdict::ALL.iter().map(|v| v.name()).collect();
            format!(
                "[[expect]] row {}: {:?} is not a verdict; one of {}",
                i + 1,
                row.verdict,
                names.join(", ")
            )
        })?;
        let known = |what: &str, value: &Option<String>, list: &[String]| match value {
            Some(v) if !list.contains(v) => Err(format!(
                "[[expect]] row {}: {what} {v:?} is not in the suite ({})",
                i + 1,
                list.join(", ")
            )),
            _ => Ok(()),
        };
        known("shape", &row.shape, &axes.shapes)?;
        known("provider", &row.provider, axes.providers)?;
        known("source", &row.source, axes.sources)?;
        known("target", &row.target, axes.targets)?;
        expect.push(Expectation {
            shape: row.shape.clone(),
            provider: row.provider.clone(),
            source: row.source.clone(),
            target: row.target.clone(),
            verdict,
            reason: row.reason.clone(),
        });
    }
    Ok(expect)
}

/// The suite's name: `name`, else the file stem; topic-safe.
fn suite_name(name: Option<&str>, path: &Path) -> Result<String, String> {
    let name = name.map(str::to_string).unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "suite".into())
    });
    if !topic_safe(&name) {
        return Err(format!(
            "suite name {name:?}: use letters, digits, '.', '_' and '-' (it becomes part of Kafka topic names); set `name`"
        ));
    }
    Ok(name)
}

impl Suite {
    /// Reads and validates a suite file and every shape scenario it names; the shapes' load
    /// warnings are dropped ([`Suite::load_with`] keeps them).
    pub fn load(path: &Path) -> Result<Suite, SuiteError> {
        Suite::load_with(path, &mut Vec::new())
    }

    /// Reads and validates a suite file, adding each shape scenario's load warnings to
    /// `warnings` (the lines to print), the ones found before an error too.
    pub fn load_with(path: &Path, warnings: &mut Vec<String>) -> Result<Suite, SuiteError> {
        let text = rehearse_base::userfile::read_text(
            path,
            "suite",
            rehearse_base::userfile::MAX_CONFIG_BYTES,
        )?;
        Suite::parse_with(&text, path, warnings)
    }

    /// Validates suite text read from `path` (paths resolve against its directory): the
    /// version axes, providers, timeout, shapes (each scenario loaded), expectations and name,
    /// in that order; the first mistake found is the error.
    pub fn parse(text: &str, path: &Path) -> Result<Suite, SuiteError> {
        Suite::parse_with(text, path, &mut Vec::new())
    }

    /// Validates suite text, as [`Suite::parse`], adding the shapes' load warnings to `warnings`.
    pub fn parse_with(
        text: &str,
        path: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<Suite, SuiteError> {
        let file: SuiteFile = toml::from_str(text).map_err(|e| SuiteError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let invalid = |message: String| SuiteError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let sources = versions("sources", &file.sources).map_err(invalid)?;
        let targets =
            versions("targets", file.targets.as_ref().unwrap_or(&file.sources)).map_err(invalid)?;
        let providers = providers(file.providers.as_deref()).map_err(invalid)?;
        check_timeout(file.timeout_seconds, "each shape scenario's").map_err(invalid)?;
        let shapes = shapes(&file.shapes, path, warnings)?;
        check_one_kafka(&shapes).map_err(invalid)?;
        // `[[expect]]` names versions as text: matched against them as written.
        let text = |versions: &[SparkVersion]| -> Vec<String> {
            versions.iter().map(SparkVersion::to_string).collect()
        };
        let (source_texts, target_texts) = (text(&sources), text(&targets));
        let axes = Axes {
            shapes: shapes.iter().map(|s| s.name.clone()).collect(),
            providers: &providers,
            sources: &source_texts,
            targets: &target_texts,
        };
        let expect = expectations(&file.expect, &axes).map_err(invalid)?;
        let suite = Suite {
            name: suite_name(file.name.as_deref(), path).map_err(invalid)?,
            file: path.to_path_buf(),
            shapes,
            providers,
            sources,
            targets,
            timeout_seconds: file.timeout_seconds,
            deny_warnings: file.deny_warnings,
            parity: parity::suite_parity(&file).map_err(invalid)?,
            expect,
            cluster: file
                .cluster
                .as_ref()
                .map(|c| super::cluster_shape(c).map_err(|m| invalid(format!("[cluster] {m}"))))
                .transpose()?,
        };
        suite.check_topics().map_err(invalid)?;
        suite.check_artifacts().map_err(invalid)?;
        Ok(suite)
    }

    /// Every job artifact the suite would run: per group, the generation's on its source and
    /// each target's (`[job.per_target]` entries of the shape's scenario included), checked
    /// before any image is built.
    fn check_artifacts(&self) -> Result<(), String> {
        for group in self.groups(None) {
            let scenario = self.group_scenario(&group);
            scenario
                .check_artifacts(Some(&group.source), &group.targets)
                .map_err(|m| {
                    format!(
                        "shape {} ({}): {m}",
                        self.shapes[group.shape].name,
                        self.shapes[group.shape].scenario.file.display()
                    )
                })?;
        }
        Ok(())
    }

    /// The topics the suite creates on its one broker (`<suite>.<shape>.<provider>.<source>.
    /// <topic>`, and `….<topic>.<target>` for each trial's output topics) must be valid for Kafka before any container starts: at most
    /// [`MAX_TOPIC_NAME`] characters, and no two equal once `.` is read as `_` (Kafka refuses
    /// a topic that "collides" with an existing one, `Topic.hasCollision`).
    fn check_topics(&self) -> Result<(), String> {
        let mut seen: std::collections::HashMap<String, String> = Default::default();
        for group in self.groups(None) {
            let scenario = self.group_scenario(&group);
            // Output topics as the trials name them on the shared broker (one per target, and
            // the control's on the source version).
            let control = self.parity.control.then_some(&group.source);
            let per_trial = scenario.output_topics.iter().flat_map(|o| {
                group
                    .targets
                    .iter()
                    .map(|t| super::model::trial_output_topic(&o.name, t.as_str()))
                    .chain(control.map(|source| {
                        let name = parity::control_output_topic(&o.name);
                        super::model::trial_output_topic(&name, source.as_str())
                    }))
                    .collect::<Vec<_>>()
            });
            let names: Vec<String> = scenario
                .topic_names()
                .into_iter()
                .map(str::to_string)
                .chain(per_trial)
                .collect();
            for name in names {
                if name.len() > MAX_TOPIC_NAME {
                    return Err(format!(
                        "topic {name:?} is {} characters, over Kafka's limit of {MAX_TOPIC_NAME} (the suite names each topic <suite>.<shape>.<provider>.<source>.<topic>, and each trial's output topics <…>.<topic>.<target>); shorten the suite's `name`, the shape's `name` or the scenario's topic name",
                        name.len()
                    ));
                }
                let key = name.replace('.', "_");
                if let Some(other) = seen.get(&key) {
                    return Err(format!(
                        "two source checkpoints would share Kafka topic {name:?} (as {other:?}; Kafka reads '.' and '_' as the same); rename a shape (`name`) or a topic so the names <suite>.<shape>.<provider>.<source>.<topic> differ in more than '.' and '_'"
                    ));
                }
                seen.insert(key, name);
            }
        }
        Ok(())
    }

    /// Every cell in grid order: shape, provider, source, target (file order each).
    pub fn cells(&self) -> Vec<CellKey> {
        self.cells_of(&self.groups(None))
    }

    /// The cells of `groups` (e.g. one shard's), in their order.
    pub fn cells_of(&self, groups: &[Group]) -> Vec<CellKey> {
        groups
            .iter()
            .flat_map(|g| {
                let shape = &self.shapes[g.shape].name;
                g.targets.iter().map(move |target| CellKey {
                    shape: shape.clone(),
                    provider: g.provider.clone(),
                    source: g.source.clone(),
                    target: target.clone(),
                })
            })
            .collect()
    }

    /// The source-checkpoint groups in grid order, or only shard `I/N`'s: groups whose index
    /// modulo N is I−1. Sharding by group, not by cell, writes each source checkpoint in
    /// exactly one shard.
    pub fn groups(&self, shard: Option<Shard>) -> Vec<Group> {
        let mut out = Vec::new();
        for (si, _) in self.shapes.iter().enumerate() {
            for provider in &self.providers {
                for source in &self.sources {
                    out.push(Group {
                        shape: si,
                        provider: provider.clone(),
                        source: source.clone(),
                        targets: self.targets.clone(),
                    });
                }
            }
        }
        match shard {
            None => out,
            Some(s) => out
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % s.count == s.index - 1)
                .map(|(_, g)| g)
                .collect(),
        }
    }

    /// Why `cell` cannot run, if it cannot: the shape or the provider needs a newer Spark.
    pub fn not_applicable(&self, cell: &CellKey) -> Option<String> {
        let shape = self.shapes.iter().find(|s| s.name == cell.shape)?;
        for v in [&cell.source, &cell.target] {
            if let Some(min) = &shape.min_spark {
                if v < min {
                    return Some(format!("shape {} needs Spark {min} or newer", shape.name));
                }
            }
            if let Some((name, min)) = provider_since(&cell.provider) {
                if *v < min {
                    return Some(format!("the {name} provider needs Spark {min} or newer"));
                }
            }
        }
        None
    }

    /// The expectation for `cell`: the first matching row, else `resumed` with no reason.
    pub fn expected(&self, cell: &CellKey) -> (Verdict, Option<String>) {
        let matches = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        self.expect
            .iter()
            .find(|e| {
                matches(&e.shape, &cell.shape)
                    && matches(&e.provider, &cell.provider)
                    && matches(&e.source, cell.source.as_str())
                    && matches(&e.target, cell.target.as_str())
            })
            .map(|e| (e.verdict, e.reason.clone()))
            .unwrap_or((Verdict::Resumed, None))
    }

    /// The scenario that generates `group`'s source checkpoint and restarts it: the shape's
    /// scenario with the group's source version (whose generation runs the job of that version,
    /// [`Scenario::per_target_generates`]) and provider, its topics (input and output)
    /// renamed apart from every other group's (`<suite>.<shape>.<provider>.<source>.<topic>`,
    /// so one Kafka broker serves the whole suite), `{topic.NAME}` placeholders renamed to match, and the suite's
    /// timeout and expectations.
    pub fn group_scenario(&self, group: &Group) -> Scenario {
        let shape = &self.shapes[group.shape];
        let mut s = shape.scenario.clone();
        let prefix = format!(
            "{}.{}.{}.{}",
            self.name, shape.name, group.provider, group.source
        );
        let renames: Vec<(String, String)> = s
            .topic_names()
            .into_iter()
            .map(|name| (name.to_string(), format!("{prefix}.{name}")))
            .collect();
        let rename_args = |args: &mut Vec<String>| {
            for a in args.iter_mut() {
                for (from, to) in &renames {
                    *a = a.replace(&format!("{{topic.{from}}}"), &format!("{{topic.{to}}}"));
                }
            }
        };
        s.map_job_args(|a| {
            for (from, to) in &renames {
                *a = a.replace(&format!("{{topic.{from}}}"), &format!("{{topic.{to}}}"));
            }
        });
        // Each source writes its own checkpoint with the job of its version (per-line
        // artifacts: `[job.per_target]`, `{spark}`/`{scala}` in the job's path).
        s.per_target_generates = true;
        if let CheckpointSource::Generate {
            spark, extra_args, ..
        } = &mut s.checkpoint
        {
            // The group's source is one of the suite's `sources`, parsed at load by `versions`.
            *spark = group.source.clone();
            rename_args(extra_args);
        }
        let rename = |name: &mut String| {
            if let Some((_, to)) = renames.iter().find(|(from, _)| from == name) {
                *name = to.clone();
            }
        };
        s.topics.iter_mut().for_each(|t| rename(&mut t.name));
        s.output_topics.iter_mut().for_each(|t| rename(&mut t.name));
        if let Some((_, Some(class), ..)) = PROVIDERS.iter().find(|(n, ..)| *n == group.provider) {
            s.conf.insert(PROVIDER_CONF.to_string(), class.to_string());
        }
        s.parity = self.parity.of_shape(&shape.scenario.parity);
        s.name = format!("{}-{}-{}", self.name, shape.name, group.provider);
        s.targets = group.targets.clone();
        if let Some(t) = self.timeout_seconds {
            s.timeout_seconds = t;
        }
        s.expect = group
            .targets
            .iter()
            .map(|t| {
                let key = CellKey {
                    shape: shape.name.clone(),
                    provider: group.provider.clone(),
                    source: group.source.clone(),
                    target: t.clone(),
                };
                (t.to_string(), self.expected(&key).0)
            })
            .collect();
        s
    }
}

mod parity;
pub use parity::{control_scenario, SuiteParity};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod shipped {
    use super::*;

    /// Every scenario and suite shipped in `scenarios/` passes today's load-time checks (a
    /// new refusal must not break an example users copy).
    #[test]
    fn every_shipped_scenario_and_suite_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut loaded = 0;
        for entry in walkdir::WalkDir::new(&root) {
            let path = entry.unwrap().into_path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            if path.parent().is_some_and(|p| p.ends_with("suites")) {
                Suite::load(&path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            } else if path.ends_with("scenarios/jvm.toml") {
                // Its jars are built by scenarios/jobs/jvm/build.sh (not shipped): it loads once
                // they are (tests/integration/jvm.rs builds them), and until then is refused
                // for the missing build only, naming it.
                if let Err(e) = Scenario::load(&path) {
                    let e = e.to_string();
                    assert!(
                        e.contains("count-by-key_2.12-3.5.3.jar")
                            && e.contains("build the job for Spark 3.5.3"),
                        "{}: {e}",
                        path.display()
                    );
                }
            } else {
                Scenario::load(&path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            }
            loaded += 1;
        }
        assert!(loaded >= 9, "{loaded}");
    }
}
