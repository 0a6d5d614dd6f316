//! The scenario's control run and output parity settings (issue 13 §3): `control = true` (or
//! `rehearse run --control`), `control_version`, `volatile_columns`, `parity = "may-differ"`.
//! Checked at load, before anything starts; [`control_version`] says which Spark the control
//! runs on; `trial/parity.rs` compares, `trial/control.rs` runs the control.

use rehearse_base::versions::SparkVersion;
use rehearse_checkpoint::Inspection;

use super::file::{FreshSpec, ScenarioFile};
use super::{CheckpointSource, Scenario};

/// How a scenario asks for a control run and judges parity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParitySettings {
    /// Run the control (`control = true`, or `--control`): the same sandbox copy restarted on
    /// the source version with the unchanged job (no `restart_args`, no `[job.per_target]`),
    /// over the same records, and compare each target's output with it.
    pub control: bool,
    /// The Spark version the control runs on (`control_version`); `None`: the generating
    /// version, or the checkpoint's writer when inspection pins it to one release. A known
    /// release, parsed once at load (shown as written).
    pub control_version: Option<SparkVersion>,
    /// Top-level keys of JSON rows left out of the comparison (`volatile_columns =
    /// ["processed_at"]`): columns a job fills from the clock, a run id, a random value.
    pub volatile_columns: Vec<String>,
    /// `parity = "may-differ"`: a difference is reported, but does not fail the run (a changed
    /// job whose output is meant to change). Default `"must-match"`.
    pub may_differ: bool,
    /// The targets whose remedy is rehearsed too (`fresh = true` / `fresh = ["4.0.1"]`, or
    /// `rehearse run --fresh`): the target's job (with `restart_args`) started on a new empty
    /// checkpoint with `{starting_offsets}`, its start proved from the new checkpoint and its
    /// output compared with the control's. Non-empty turns `control` on. Each one of the
    /// scenario's targets (the parsed version).
    pub fresh: Vec<SparkVersion>,
}

/// The parity settings of `file`, checked: a known `control_version`, a known `parity` value,
/// column names that are not empty and not given twice, `fresh` some of `targets` (the file's
/// targets, parsed).
///
/// # Errors
/// The message names the key and the fix.
pub fn parity_settings(
    file: &ScenarioFile,
    targets: &[SparkVersion],
) -> Result<ParitySettings, String> {
    let control_version = file
        .control_version
        .as_deref()
        .map(|v| SparkVersion::known_release(v).map_err(|m| format!("control_version: {m}")))
        .transpose()?;
    let fresh = fresh_targets(file, targets)?;
    Ok(ParitySettings {
        control: file.control || !fresh.is_empty(),
        fresh,
        control_version,
        volatile_columns: volatile_columns(&file.volatile_columns)?,
        may_differ: may_differ(file.parity.as_deref())?,
    })
}

/// `fresh`: `true` every target, `false` or absent none, a list those targets (each one of
/// `targets`, none twice), as the parsed `targets` (the file's, in its order).
///
/// # Errors
/// A target not in `targets`, or named twice.
fn fresh_targets(
    file: &ScenarioFile,
    targets: &[SparkVersion],
) -> Result<Vec<SparkVersion>, String> {
    match &file.fresh {
        None | Some(FreshSpec::All(false)) => Ok(Vec::new()),
        Some(FreshSpec::All(true)) => Ok(targets.to_vec()),
        Some(FreshSpec::Targets(list)) => {
            for (i, t) in list.iter().enumerate() {
                if !file.targets.contains(t) {
                    return Err(format!(
                        "fresh names {t:?}, which is not one of targets ({})\n(hint: fresh = true rehearses every target on a new empty checkpoint; fresh = [{}] names some of them)",
                        file.targets.join(", "),
                        file.targets.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", ")
                    ));
                }
                if list[..i].contains(t) {
                    return Err(format!("fresh names {t:?} twice"));
                }
            }
            // Each is one of the file's targets (checked above), which parsed as `targets`.
            Ok(list
                .iter()
                .filter_map(|t| targets.iter().find(|v| v.as_str() == t).cloned())
                .collect())
        }
    }
}

/// `parity`: `None` or `"must-match"` (a difference fails), `"may-differ"` (reported only).
/// The scenario's and the suite's key (`scenario/suite/parity.rs`).
///
/// # Errors
/// Any other value, naming both.
pub(crate) fn may_differ(parity: Option<&str>) -> Result<bool, String> {
    match parity {
        None | Some("must-match") => Ok(false),
        Some("may-differ") => Ok(true),
        Some(other) => Err(format!(
            "parity = {other:?} is not a parity setting\n(hint: parity = \"must-match\" (the default: a target whose output differs from the control's fails the run) or parity = \"may-differ\" (reported, not failing))"
        )),
    }
}

/// `volatile_columns`, checked: no empty name, none given twice. The scenario's and the
/// suite's key.
///
/// # Errors
/// The first bad name, with the fix.
pub(crate) fn volatile_columns(columns: &[String]) -> Result<Vec<String>, String> {
    let mut seen = std::collections::BTreeSet::new();
    for c in columns {
        if c.trim().is_empty() {
            return Err("volatile_columns has an empty name\n(hint: name the top-level JSON keys the job fills from the clock or at random, e.g. volatile_columns = [\"processed_at\"])".into());
        }
        if !seen.insert(c) {
            return Err(format!("volatile_columns names {c:?} twice"));
        }
    }
    Ok(columns.to_vec())
}

impl Scenario {
    /// Checks the `fresh` targets (scenario `fresh`, or `--fresh` after `--target`): each is a
    /// target, and its job (`job_for(target)`: args and restart_args) passes
    /// `{starting_offsets}` or `{starting_offsets.TOPIC}` — else the job would start on the
    /// empty checkpoint from its own `startingOffsets` (often `earliest` or `latest`), which
    /// is not the remedy. Turns the control on when some target is fresh.
    ///
    /// # Errors
    /// The message names the target and the line to add; the caller names the key (`fresh`)
    /// or the flag (`--fresh`).
    pub fn check_fresh(&mut self) -> Result<(), String> {
        if self.parity.fresh.is_empty() {
            return Ok(());
        }
        self.parity.control = true;
        for t in &self.parity.fresh {
            if !self.targets.contains(t) {
                return Err(format!(
                    "{:?} is not one of the targets ({})",
                    t.as_str(),
                    super::version_list(&self.targets)
                ));
            }
            let job = self.job_for(t.as_str());
            if !job
                .args
                .iter()
                .chain(&job.restart_args)
                .any(|a| super::placeholders::holds_starting_offsets(a))
            {
                return Err(format!(
                    "target {t} is rehearsed on a new empty checkpoint, but its job ({}) never passes {{starting_offsets}}: it would start from its own startingOffsets, not where the checkpoint stopped\n(hint: add to {} e.g. restart_args = [\"--starting-offsets\", \"{{starting_offsets}}\"] and have the job give it to .option(\"startingOffsets\", …); a job with several Kafka sources passes {{starting_offsets.TOPIC}} to each)",
                    job.table(),
                    job.table(),
                ));
            }
        }
        Ok(())
    }
}

/// The Spark version the control runs on: the scenario's `control_version`, else the version
/// that generated the checkpoint, else the checkpoint's writer when inspection pins it to one
/// release.
///
/// # Errors
/// The message says why no version is known and the fix (`control_version`).
pub fn control_version(
    scenario: &Scenario,
    inspection: Option<&Inspection>,
) -> Result<SparkVersion, String> {
    if let Some(v) = &scenario.parity.control_version {
        // A control on a Spark older than the checkpoint's writer is a downgrade of the
        // checkpoint, not a control: refused before anything starts (session 8).
        let writer = match &scenario.checkpoint {
            CheckpointSource::Generate { spark, .. } => Some(spark.clone()),
            _ => inspection.and_then(|i| i.writer_version.min.clone()),
        };
        if let Some(writer) = writer {
            if *v < writer {
                return Err(format!(
                    "control_version = \"{v}\" is older than the Spark that wrote the checkpoint ({writer} or later): a control on an older Spark is a downgrade of the checkpoint, not a control, and its output is no reference\n(hint: set control_version to the writer's version, e.g. control_version = \"{writer}\", or leave it out)"
                ));
            }
        }
        return Ok(v.clone());
    }
    if let CheckpointSource::Generate { spark, .. } = &scenario.checkpoint {
        return Ok(spark.clone());
    }
    let range = inspection.map(|i| &i.writer_version);
    match range.map(|w| (&w.min, &w.max)) {
        Some((Some(min), Some(max))) if min.to_string() == *max => Ok(min.clone()),
        Some((min, max)) => Err(format!(
            "the control runs on the Spark version that wrote the checkpoint, but the checkpoint only shows it was written by {} – {}\n(hint: name it in the scenario, e.g. control_version = \"3.5.3\")",
            min.as_ref().map_or_else(|| "?".into(), |v| v.to_string()),
            max.as_deref().unwrap_or("?"),
        )),
        None => Err("the control's Spark version is not known before the checkpoint is inspected\n(hint: name it in the scenario, e.g. control_version = \"3.5.3\")".into()),
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn load(extra: &str) -> Result<Scenario, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("job.py"), "").unwrap();
        let text = format!("targets = [\"4.0.1\"]\n{extra}\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\nfile = \"job.py\"\nargs = [\"{{checkpoint}}\"]\n[[topics]]\nname = \"in\"\n");
        Scenario::parse(&text, &dir.path().join("s.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn control_settings_are_read_and_off_by_default() {
        let s = load("").unwrap();
        assert_eq!(s.parity, super::ParitySettings::default());
        let s = load("control = true\ncontrol_version = \"3.5.3\"\nvolatile_columns = [\"processed_at\", \"run_id\"]\nparity = \"may-differ\"").unwrap();
        assert!(s.parity.control && s.parity.may_differ);
        assert_eq!(
            s.parity.control_version.as_ref().map(|v| v.as_str()),
            Some("3.5.3")
        );
        assert_eq!(s.parity.volatile_columns, ["processed_at", "run_id"]);
    }

    #[test]
    fn bad_control_settings_are_refused_at_load_with_the_fix() {
        let e = load("parity = \"loose\"").unwrap_err();
        assert!(e.contains("may-differ") && e.contains("s.toml"), "{e}");
        let e = load("volatile_columns = [\"\"]").unwrap_err();
        assert!(e.contains("processed_at"), "{e}");
        let e = load("volatile_columns = [\"a\", \"a\"]").unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = load("control_version = \"3.5.99\"").unwrap_err();
        assert!(e.contains("control_version"), "{e}");
    }

    fn load_with(extra: &str, restart_args: &str) -> Result<Scenario, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("job.py"), "").unwrap();
        let text = format!("targets = [\"3.5.3\", \"4.0.1\"]\n{extra}\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\nfile = \"job.py\"\nargs = [\"{{checkpoint}}\"]\nrestart_args = [{restart_args}]\n[[topics]]\nname = \"in\"\n");
        Scenario::parse(&text, &dir.path().join("s.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn fresh_names_targets_and_turns_the_control_on() {
        let s = load_with("fresh = true", "\"{starting_offsets}\"").unwrap();
        assert_eq!(crate::version_list(&s.parity.fresh), "3.5.3, 4.0.1");
        assert!(s.parity.control, "fresh compares with the control");
        let s = load_with("fresh = [\"4.0.1\"]", "\"--so={starting_offsets.in}\"").unwrap();
        assert_eq!(crate::version_list(&s.parity.fresh), "4.0.1");
        let s = load_with("fresh = false", "").unwrap();
        assert!(s.parity.fresh.is_empty() && !s.parity.control);
    }

    #[test]
    fn fresh_is_refused_at_load_without_the_placeholder_or_for_another_target() {
        let e = load_with("fresh = [\"3.4.4\"]", "\"{starting_offsets}\"").unwrap_err();
        assert!(
            e.contains("fresh names \"3.4.4\"") && e.contains("s.toml"),
            "{e}"
        );
        let e = load_with("fresh = true", "").unwrap_err();
        assert!(e.contains("fresh: target 3.5.3"), "{e}");
        assert!(
            e.contains("restart_args = [\"--starting-offsets\", \"{starting_offsets}\"]"),
            "{e}"
        );
        let e = load_with("fresh = true", "\"{starting_offsets.other}\"").unwrap_err();
        assert!(e.contains("not in [[topics]]"), "{e}");
        // An output topic takes {topic.NAME}, but the checkpoint has no offsets of it.
        let e = load_with(
            "fresh = true\n[[output_topics]]\nname = \"out\"",
            "\"{starting_offsets.out}\"",
        );
        let e = e.unwrap_err();
        assert!(e.contains("\"out\" is not an input topic"), "{e}");
    }
}
