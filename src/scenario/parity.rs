//! The scenario's control run and output parity settings (issue 13 §3): `control = true` (or
//! `rehearse run --control`), `control_version`, `volatile_columns`, `parity = "may-differ"`.
//! Checked at load, before anything starts; `report/parity.rs` compares, `trial/control.rs`
//! runs the control.

use super::file::ScenarioFile;

/// How a scenario asks for a control run and judges parity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParitySettings {
    /// Run the control (`control = true`, or `--control`): the same sandbox copy restarted on
    /// the source version with the unchanged job (no `restart_args`, no `[job.per_target]`),
    /// over the same records, and compare each target's output with it.
    pub control: bool,
    /// The Spark version the control runs on (`control_version`); `None`: the generating
    /// version, or the checkpoint's writer when inspection pins it to one release.
    pub control_version: Option<String>,
    /// Top-level keys of JSON rows left out of the comparison (`volatile_columns =
    /// ["processed_at"]`): columns a job fills from the clock, a run id, a random value.
    pub volatile_columns: Vec<String>,
    /// `parity = "may-differ"`: a difference is reported, but does not fail the run (a changed
    /// job whose output is meant to change). Default `"must-match"`.
    pub may_differ: bool,
}

/// The parity settings of `file`, checked: a known `control_version`, a known `parity` value,
/// column names that are not empty and not given twice.
///
/// # Errors
/// The message names the key and the fix.
pub fn parity_settings(file: &ScenarioFile) -> Result<ParitySettings, String> {
    if let Some(v) = &file.control_version {
        super::check_release(v).map_err(|m| format!("control_version: {m}"))?;
    }
    Ok(ParitySettings {
        control: file.control,
        control_version: file.control_version.clone(),
        volatile_columns: volatile_columns(&file.volatile_columns)?,
        may_differ: may_differ(file.parity.as_deref())?,
    })
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

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

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
        assert_eq!(s.parity.control_version.as_deref(), Some("3.5.3"));
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
}
