//! What the command line changes in a loaded scenario (`rehearse run --target … --fresh
//! --control --deny-warnings --conf …`; `rehearse matrix --conf …` on each shape): one value,
//! [`Overrides`], applied by [`Scenario::apply`] with the checks each flag needs. Pure: no I/O.

use super::model::{Scenario, ScenarioError};
use super::parse::check_conf;
use rehearse_base::versions::SparkVersion;

/// The flags that override a scenario's keys. The default overrides nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--target`: the Spark versions to rehearse on, replacing `targets` (none: the
    /// scenario's). Each a known release, none twice: the text as typed, parsed once by
    /// [`Scenario::apply`], whose message names the flag (as a scenario file's `targets` are
    /// text until the load).
    pub targets: Vec<String>,
    /// `--fresh`: a fresh run on every target (else `fresh` is narrowed to the targets).
    pub fresh: bool,
    /// `--control`: a control run, as `control = true`.
    pub control: bool,
    /// `--deny-warnings`: as `deny_warnings = true`.
    pub deny_warnings: bool,
    /// `--conf KEY=VALUE`: Spark conf after `[job.conf]` (these win).
    pub conf: Vec<String>,
}

/// A flag that cannot apply: its message names the flag, as the user typed it.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    /// `--target` or `--conf` is malformed.
    #[error("{0}")]
    Flag(String),
    /// The scenario with the overrides fails its own check (`--fresh` on a target it cannot
    /// run).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
}

/// A flag that cannot apply is the user's to fix (exit 3).
impl rehearse_base::HasErrorKind for OverrideError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        rehearse_base::ErrorKind::BadInput
    }
}

impl Scenario {
    /// Applies `overrides`, in this order: `--deny-warnings`, `--control`, `--target` (each a
    /// known release, none twice), `--fresh` (or the scenario's `fresh` narrowed to the targets
    /// rehearsed), the fresh check again, `--conf` (each `KEY=VALUE` with a key, checked as
    /// `[job.conf]` is). The first flag that cannot apply is the error.
    pub fn apply(&mut self, overrides: &Overrides) -> Result<(), OverrideError> {
        self.deny_warnings |= overrides.deny_warnings;
        self.parity.control |= overrides.control;
        if !overrides.targets.is_empty() {
            let mut targets = Vec::with_capacity(overrides.targets.len());
            for (i, t) in overrides.targets.iter().enumerate() {
                targets.push(
                    SparkVersion::known_release(t)
                        .map_err(|m| OverrideError::Flag(format!("--target: {m}")))?,
                );
                if overrides.targets[..i].contains(t) {
                    return Err(OverrideError::Flag(format!(
                        "--target {t} is given twice: each target is rehearsed once"
                    )));
                }
            }
            self.targets = targets;
        }
        if overrides.fresh {
            self.parity.fresh = self.targets.clone();
        } else {
            // `--target` may narrow the targets: a fresh target not rehearsed is not run.
            let targets = self.targets.clone();
            self.parity.fresh.retain(|t| targets.contains(t));
        }
        self.check_fresh()
            .map_err(|message| ScenarioError::Invalid {
                path: self.file.clone(),
                message: format!(
                    "{}: {message}",
                    if overrides.fresh { "--fresh" } else { "fresh" }
                ),
            })?;
        for kv in &overrides.conf {
            let Some((k, v)) = kv.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
                return Err(OverrideError::Flag(format!(
                    "--conf {kv}: give KEY=VALUE, e.g. --conf spark.executor.instances=2"
                )));
            };
            check_conf(k, v)
                .map_err(|m| OverrideError::Flag(format!("--conf {}: {m}", k.trim())))?;
            self.conf.insert(k.trim().to_string(), v.to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> (tempfile::TempDir, Scenario) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("job.py"), "print(1)\n").unwrap();
        let text = format!(
            "targets = [\"4.0.1\", \"3.5.3\"]\n{extra}[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 2\n[job]\nfile = \"job.py\"\nargs = [\"{{checkpoint}}\"]\nrestart_args = [\"--starting-offsets\", \"{{starting_offsets}}\"]\n[[topics]]\nname = \"events\"\n"
        );
        let s = Scenario::parse(&text, &dir.path().join("s.toml")).unwrap();
        (dir, s)
    }

    #[test]
    fn no_overrides_change_nothing() {
        let (_dir, mut s) = scenario("");
        let before = format!("{s:?}");
        s.apply(&Overrides::default()).unwrap();
        assert_eq!(format!("{s:?}"), before);
    }

    #[test]
    fn targets_replace_the_scenarios_and_are_checked() {
        let (_dir, mut s) = scenario("");
        s.apply(&Overrides {
            targets: vec!["4.0.1".into()],
            ..Overrides::default()
        })
        .unwrap();
        assert_eq!(crate::version_list(&s.targets), "4.0.1");
        let (_dir, mut s) = scenario("");
        let twice = s
            .apply(&Overrides {
                targets: vec!["4.0.1".into(), "4.0.1".into()],
                ..Overrides::default()
            })
            .unwrap_err();
        assert_eq!(
            twice.to_string(),
            "--target 4.0.1 is given twice: each target is rehearsed once"
        );
        let unknown = s
            .apply(&Overrides {
                targets: vec!["9.9.9".into()],
                ..Overrides::default()
            })
            .unwrap_err();
        assert!(unknown.to_string().starts_with("--target: "), "{unknown}");
    }

    #[test]
    fn flags_turn_on_what_the_keys_turn_on() {
        let (_dir, mut s) = scenario("");
        s.apply(&Overrides {
            control: true,
            deny_warnings: true,
            ..Overrides::default()
        })
        .unwrap();
        assert!(s.parity.control && s.deny_warnings);
    }

    #[test]
    fn conf_wins_and_a_flag_without_a_key_is_refused() {
        let (_dir, mut s) = scenario("");
        s.apply(&Overrides {
            conf: vec!["spark.executor.instances=2".into()],
            ..Overrides::default()
        })
        .unwrap();
        assert_eq!(s.conf["spark.executor.instances"], "2");
        for bad in ["novalue", "=2"] {
            let e = s
                .apply(&Overrides {
                    conf: vec![bad.into()],
                    ..Overrides::default()
                })
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("--conf {bad}: give KEY=VALUE, e.g. --conf spark.executor.instances=2")
            );
        }
    }

    #[test]
    fn fresh_covers_every_target_or_is_narrowed_to_them() {
        let (_dir, mut s) = scenario("");
        s.apply(&Overrides {
            fresh: true,
            targets: vec!["4.0.1".into()],
            ..Overrides::default()
        })
        .unwrap();
        assert_eq!(crate::version_list(&s.parity.fresh), "4.0.1");
        let (_dir, mut s) = scenario("");
        s.parity.fresh = s.targets.clone();
        s.apply(&Overrides {
            targets: vec!["3.5.3".into()],
            ..Overrides::default()
        })
        .unwrap();
        assert_eq!(crate::version_list(&s.parity.fresh), "3.5.3");
    }
}
