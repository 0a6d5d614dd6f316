//! A suite's control run and output parity settings (issue 13 §3): `control = true`,
//! `volatile_columns`, `parity = "must-match" | "may-differ"` — the scenario's keys, checked by
//! the same functions (`scenario/parity.rs`). `control_version` is refused: a suite generates
//! each source checkpoint itself, so the control of a source runs on that source's version
//! (`control_version` of the group's scenario: its `[checkpoint.generate] spark`).
//!
//! How a shape scenario's own settings combine with the suite's ([`SuiteParity::of_shape`]):
//! the suite decides whether a control runs (as it decides the targets); volatile columns are
//! the job's, so a shape's own are kept and the suite's added; `parity` is the suite's when it
//! names one, else the shape's.

use crate::{ParitySettings, Scenario};

use super::SuiteFile;

/// The control and parity settings of a suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuiteParity {
    /// `control = true`: per source checkpoint (shape × provider × source) one control trial,
    /// every cell of it compared with it.
    pub control: bool,
    /// Added to each shape scenario's `volatile_columns`.
    pub volatile_columns: Vec<String>,
    /// `parity = …` when the suite names it (`Some(true)`: may-differ).
    pub may_differ: Option<bool>,
}

/// The parity settings of a suite file, checked like a scenario's.
///
/// # Errors
/// The message names the key and the fix.
pub(super) fn suite_parity(file: &SuiteFile) -> Result<SuiteParity, String> {
    if let Some(v) = &file.control_version {
        return Err(format!(
            "control_version = {v:?} is not a suite key: a suite writes each source checkpoint itself, and the control of a source runs on that source's version\n(hint: remove control_version; list the version in `sources` to get a control on it)"
        ));
    }
    Ok(SuiteParity {
        control: file.control,
        volatile_columns: crate::parity::volatile_columns(&file.volatile_columns)?,
        may_differ: file
            .parity
            .as_deref()
            .map(|p| crate::parity::may_differ(Some(p)))
            .transpose()?,
    })
}

impl SuiteParity {
    /// The settings a group's scenario runs with, from its shape scenario's `shape`: the
    /// suite's `control`; the shape's volatile columns and the suite's; the suite's `parity`,
    /// else the shape's; never a `control_version` (the group's source version is the
    /// control's).
    pub fn of_shape(&self, shape: &ParitySettings) -> ParitySettings {
        let mut volatile_columns = shape.volatile_columns.clone();
        for c in &self.volatile_columns {
            if !volatile_columns.contains(c) {
                volatile_columns.push(c.clone());
            }
        }
        ParitySettings {
            control: self.control,
            control_version: None,
            volatile_columns,
            may_differ: self.may_differ.unwrap_or(shape.may_differ),
            // A suite does not rehearse the fresh start (`rehearse run --fresh` does).
            fresh: Vec::new(),
        }
    }
}

/// The name the control of a suite group gives an output topic before the trial appends its
/// version: `<topic>.control`, so the control's records (`<topic>.control.<source>`) never mix
/// with those of the cell whose target is the source version (`<topic>.<source>`) on the
/// shared broker.
pub fn control_output_topic(name: &str) -> String {
    format!("{name}.control")
}

/// `scenario` (a group's) as its control runs it: each output topic renamed by
/// [`control_output_topic`], in the topic list and in the job's `{topic.NAME}` arguments.
pub fn control_scenario(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    let mut outputs = std::mem::take(&mut s.output_topics);
    for o in &mut outputs {
        let to = control_output_topic(&o.name);
        let (from, to_placeholder) = (format!("{{topic.{}}}", o.name), format!("{{topic.{to}}}"));
        s.map_job_args(|a| *a = a.replace(&from, &to_placeholder));
        o.name = to;
    }
    s.output_topics = outputs;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::Suite;
    use rehearse_base::versions::SparkVersion;

    fn load(extra: &str) -> Result<Suite, String> {
        let dir = tempfile::tempdir().unwrap();
        let shape = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/shapes/windowed-count.toml");
        let text = format!(
            "name = \"t\"\nsources = [\"3.5.3\"]\ntargets = [\"4.0.1\"]\n{extra}\n[[shapes]]\nscenario = \"{}\"\n",
            shape.display()
        );
        Suite::parse(&text, &dir.path().join("s.toml")).map_err(|e| format!("{e:#}"))
    }

    #[test]
    fn control_settings_are_read_off_by_default_and_reach_each_group() {
        let s = load("").unwrap();
        assert_eq!(s.parity, SuiteParity::default());
        let g = s.group_scenario(&s.groups(None)[0]);
        assert!(!g.parity.control);
        let s =
            load("control = true\nvolatile_columns = [\"at\"]\nparity = \"may-differ\"").unwrap();
        assert!(s.parity.control);
        let g = s.group_scenario(&s.groups(None)[0]);
        assert!(g.parity.control && g.parity.may_differ);
        assert_eq!(g.parity.volatile_columns, ["at"]);
        // The control of the group runs on its source version.
        assert_eq!(crate::control_version(&g, None).unwrap().as_str(), "3.5.3");
    }

    #[test]
    fn bad_control_settings_are_refused_at_load_naming_the_key() {
        let e = load("control = true\ncontrol_version = \"3.5.3\"").unwrap_err();
        assert!(
            e.contains("control_version")
                && e.contains("that source's version")
                && e.contains("s.toml"),
            "{e}"
        );
        let e = load("parity = \"loose\"").unwrap_err();
        assert!(e.contains("may-differ") && e.contains("s.toml"), "{e}");
        let e = load("volatile_columns = [\"a\", \"a\"]").unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = load("volatile_columns = [\" \"]").unwrap_err();
        assert!(e.contains("processed_at"), "{e}");
    }

    #[test]
    fn a_shapes_own_columns_are_kept_and_the_suites_parity_wins() {
        let shape = ParitySettings {
            control: true,
            control_version: Some(SparkVersion::parse("3.5.1").unwrap()),
            volatile_columns: vec!["run_id".into()],
            may_differ: true,
            fresh: Vec::new(),
        };
        let suite = SuiteParity {
            control: false,
            volatile_columns: vec!["at".into(), "run_id".into()],
            may_differ: Some(false),
        };
        let p = suite.of_shape(&shape);
        assert!(!p.control, "the suite decides whether a control runs");
        assert_eq!(p.control_version, None);
        assert_eq!(p.volatile_columns, ["run_id", "at"]);
        assert!(!p.may_differ);
        let unset = SuiteParity {
            may_differ: None,
            ..suite
        };
        assert!(unset.of_shape(&shape).may_differ);
    }

    #[test]
    fn the_controls_output_topics_are_its_own() {
        let s = load("control = true").unwrap();
        let mut g = s.group_scenario(&s.groups(None)[0]);
        g.output_topics.push(crate::OutputTopic {
            name: "t.out".into(),
            declared: "out".into(),
            partitions: 1,
            config: Default::default(),
        });
        g.map_job_args(|a| {
            if a == "{topic.t.windowed-count.hdfs.3.5.3.events}" {
                *a = "{topic.t.out}".into();
            }
        });
        let c = control_scenario(&g);
        assert_eq!(c.output_topics[0].name, "t.out.control");
        assert_eq!(
            c.output_topics[0].declared, "out",
            "the declared name stays"
        );
        assert!(
            c.generation_job("3.5.3")
                .args
                .iter()
                .any(|a| a == "{topic.t.out.control}"),
            "{:?}",
            c.generation_job("3.5.3").args
        );
    }
}
