//! The job a Spark version runs: `[job]` (the base, what wrote the checkpoint) with the
//! `[job.per_target."V"]` entry that matches the version, its `{spark}` and `{scala}` filled
//! ([`Scenario::job_for`] → [`ResolvedJob`]), and the load-time check that every artifact a
//! version would run exists and is of the right kind, before any image is built.
//!
//! # Which entry applies
//!
//! A `per_target` key is a Spark release (`"4.0.1"`) or a pattern: a version prefix ending in
//! `.*` (`"4.*"` every 4.x, `"4.0.*"` every 4.0.x). For a target, an exact key beats any
//! pattern, and a longer pattern beats a shorter one (`"4.0.*"` beats `"4.*"`); at most one
//! entry of each length can match, so the choice is never ambiguous. An entry overrides the
//! keys it gives (`jar`, `file`, `main_class`, `args`, `restart_args`) and keeps the base's
//! others; `conf` stays the base's.
//!
//! The generation runs the base `[job]` (on `checkpoint.generate.spark`), and so does the
//! control trial — a target equal to that version — since they must run what wrote the
//! checkpoint. In a suite (`rehearse matrix`) each source version writes its own checkpoint,
//! so there the generation runs the job of its version, entries included
//! ([`Scenario::per_target_generates`]).

use std::path::{Path, PathBuf};

use super::job_dir::{master_overrides, JobDir};
use super::model::{Job, Scenario};
use super::placeholders::{check_versions, fill_versions};
use rehearse_base::userfile;
use rehearse_base::versions::{SparkLine, SparkVersion};

/// A `[job.per_target."KEY"]` entry, validated (its paths resolved against the scenario file,
/// their placeholders unfilled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobOverride {
    /// The key as written (`4.0.1`, `4.*`).
    pub key: String,
    /// Which targets it applies to.
    pub pattern: TargetPattern,
    /// A jar replacing the base job's artifact.
    pub jar: Option<PathBuf>,
    /// A PySpark file replacing the base job's artifact.
    pub file: Option<PathBuf>,
    /// The main class of the jar.
    pub main_class: Option<String>,
    /// Arguments replacing the base's `args`.
    pub args: Option<Vec<String>>,
    /// Restart-only arguments replacing the base's `restart_args`.
    pub restart_args: Option<Vec<String>>,
}

/// A `per_target` key: one release, or every release under a version prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetPattern {
    /// `"4.0.1"`: this release only.
    Exact(String),
    /// `"4.*"` (`[4]`), `"4.0.*"` (`[4, 0]`): every release whose leading parts are these.
    Prefix(Vec<u32>),
}

impl TargetPattern {
    /// Parses a key: a known Spark release, or `MAJOR.*` / `MAJOR.MINOR.*`.
    pub fn parse(key: &str) -> Result<TargetPattern, String> {
        let bad = || {
            format!(
                "[job.per_target.{key:?}]: the key is a Spark release (\"4.0.1\") or a pattern ending in .* (\"4.*\" for every 4.x, \"4.0.*\" for every 4.0.x)"
            )
        };
        if let Some(prefix) = key.strip_suffix(".*") {
            let parts: Vec<u32> = prefix
                .split('.')
                .map(|p| {
                    // No leading zero (`04.*`, `4.00.*`), as releases are refused with one.
                    (!p.is_empty()
                        && p.len() < 5
                        && p.bytes().all(|b| b.is_ascii_digit())
                        && (p == "0" || !p.starts_with('0')))
                    .then(|| p.parse().ok())
                    .flatten()
                })
                .collect::<Option<_>>()
                .ok_or_else(bad)?;
            if parts.is_empty() || parts.len() > 2 {
                return Err(bad());
            }
            return Ok(TargetPattern::Prefix(parts));
        }
        if key.contains('*') {
            return Err(bad());
        }
        super::check_release(key).map_err(|m| format!("{}; {m}", bad()))?;
        Ok(TargetPattern::Exact(key.to_owned()))
    }

    /// Whether `version` is one this key names.
    pub fn matches(&self, version: &str) -> bool {
        match self {
            TargetPattern::Exact(v) => v == version,
            TargetPattern::Prefix(parts) => {
                let have: Vec<&str> = version.split('.').collect();
                parts.len() < have.len()
                    && parts
                        .iter()
                        .zip(&have)
                        .all(|(want, have)| have.parse::<u32>().ok() == Some(*want))
            }
        }
    }

    /// Precedence: an exact key beats every pattern, a longer prefix a shorter one.
    fn rank(&self) -> usize {
        match self {
            TargetPattern::Exact(_) => usize::MAX,
            TargetPattern::Prefix(parts) => parts.len(),
        }
    }
}

/// The job one Spark version runs: kind and artifact (paths filled for the version), and the
/// arguments (placeholders of the trial still unfilled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedJob {
    /// The PySpark file or the jar with its main class, `{spark}`/`{scala}` filled.
    pub job: Job,
    /// Arguments.
    pub args: Vec<String>,
    /// Restart-only arguments.
    pub restart_args: Vec<String>,
    /// The `per_target` key whose entry applied, or `None` for the base `[job]`.
    pub per_target: Option<String>,
}

impl ResolvedJob {
    /// The artifact: the PySpark file or the jar.
    pub fn artifact(&self) -> &Path {
        match &self.job {
            Job::Python { file } => file,
            Job::Jar { jar, .. } => jar,
        }
    }

    /// Where it comes from, as the scenario writes it: `[job]` or `[job.per_target."4.*"]`.
    pub fn table(&self) -> String {
        match &self.per_target {
            None => "[job]".to_owned(),
            Some(key) => format!("[job.per_target.{key:?}]"),
        }
    }
}

impl Scenario {
    /// The job a trial on `target` runs: the best matching `[job.per_target]` entry over the
    /// base `[job]` (see the module doc for the precedence), paths filled for `target`. A
    /// target equal to the generation's version (the control trial) runs the base job, as the
    /// generation did, unless [`per_target_generates`](Scenario::per_target_generates).
    pub fn job_for(&self, target: &str) -> ResolvedJob {
        let control = matches!(&self.checkpoint, super::CheckpointSource::Generate { spark, .. } if spark.as_str() == target);
        self.job_at(target, !control || self.per_target_generates)
    }

    /// The job the generation runs on `spark` (`checkpoint.generate.spark`): the base `[job]`,
    /// or in a suite the job of that version ([`per_target_generates`](Scenario::per_target_generates)).
    pub fn generation_job(&self, spark: &str) -> ResolvedJob {
        self.job_at(spark, self.per_target_generates)
    }

    /// The base job, or with `overrides` the best `per_target` entry for `version` over it,
    /// filled for `version`.
    fn job_at(&self, version: &str, overrides: bool) -> ResolvedJob {
        let entry = overrides
            .then(|| {
                self.per_target
                    .iter()
                    .filter(|o| o.pattern.matches(version))
                    .max_by_key(|o| o.pattern.rank())
            })
            .flatten();
        let fill = |p: &Path| PathBuf::from(fill_versions(&p.to_string_lossy(), version));
        let (jar, file, main_class) = match &self.job {
            Job::Python { file } => (None, Some(file), None),
            Job::Jar { jar, main_class } => (Some(jar), None, Some(main_class)),
        };
        let job = match entry {
            Some(o) if o.file.is_some() => Job::Python {
                file: fill(o.file.as_deref().unwrap_or(Path::new(""))),
            },
            Some(o) if o.jar.is_some() || o.main_class.is_some() => Job::Jar {
                jar: fill(o.jar.as_ref().or(jar).map_or(Path::new(""), |p| p)),
                main_class: o
                    .main_class
                    .as_ref()
                    .or(main_class)
                    .cloned()
                    .unwrap_or_default(),
            },
            _ => match (jar, file, main_class) {
                (Some(j), _, Some(m)) => Job::Jar {
                    jar: fill(j),
                    main_class: m.clone(),
                },
                _ => Job::Python {
                    file: fill(file.map_or(Path::new(""), |p| p)),
                },
            },
        };
        ResolvedJob {
            job,
            args: entry
                .and_then(|o| o.args.clone())
                .unwrap_or_else(|| self.args.clone()),
            restart_args: entry
                .and_then(|o| o.restart_args.clone())
                .unwrap_or_else(|| self.restart_args.clone()),
            per_target: entry.map(|o| o.key.clone()),
        }
    }

    /// Applies `f` to every argument list of the job: `args`, `restart_args` and those of each
    /// `per_target` entry (a suite renaming `{topic.NAME}`, a trial its output topics).
    pub fn map_job_args(&mut self, f: impl Fn(&mut String)) {
        let lists = self
            .per_target
            .iter_mut()
            .flat_map(|o| o.args.iter_mut().chain(o.restart_args.iter_mut()))
            .chain([&mut self.args, &mut self.restart_args]);
        for list in lists {
            list.iter_mut().for_each(&f);
        }
    }

    /// Checks the artifact of every job the scenario would run: the generation's on `generate`
    /// (if any) and each of `targets`'. `Err` names the table, key, file and the fix.
    pub fn check_artifacts(
        &self,
        generate: Option<&SparkVersion>,
        targets: &[SparkVersion],
    ) -> Result<(), String> {
        // A base path with {spark}/{scala} names one artifact per line: a missing one is built
        // (or given per target); a plain base path that is missing is a wrong path.
        let raw = match &self.job {
            Job::Python { file } => file,
            Job::Jar { jar, .. } => jar,
        };
        let per_line = raw.to_string_lossy().contains('{');
        if let Some(spark) = generate.map(SparkVersion::as_str) {
            check_artifact(&self.generation_job(spark), spark, true, per_line)?;
        }
        for t in targets.iter().map(SparkVersion::as_str) {
            check_artifact(&self.job_for(t), t, false, per_line)?;
        }
        Ok(())
    }
}

impl Scenario {
    /// Reads the directory of every PySpark job a run would submit (the generation's on
    /// `generate`, each target's) as a trial stages it ([`JobDir::read`]): a directory over the
    /// bounds is refused here, before any container. Returns the load warnings: each
    /// `.master(…)`/`setMaster(…)` in the job's code, which overrides the `--master` rehearse
    /// passes (issue 26 §5).
    pub fn check_job_dirs(
        &self,
        generate: Option<&SparkVersion>,
        targets: &[SparkVersion],
    ) -> Result<Vec<String>, String> {
        let mut files: Vec<PathBuf> = Vec::new();
        let jobs = generate
            .map(|spark| self.generation_job(spark.as_str()))
            .into_iter()
            .chain(targets.iter().map(|t| self.job_for(t.as_str())));
        for job in jobs {
            if let Job::Python { file } = &job.job {
                if !files.contains(file) {
                    files.push(file.clone());
                }
            }
        }
        let mut warnings = Vec::new();
        for file in files {
            let dir = JobDir::read(&file)?;
            for m in master_overrides(&dir) {
                warnings.push(format!(
                    "the job sets its master in code, {}:{}: `{}`; a master set in the job's code overrides the --master rehearse passes to spark-submit, so the job would not run in the sandbox (remove it and let spark-submit choose the master, e.g. SparkSession.builder.appName(…).getOrCreate())",
                    dir.dir.join(&m.file).display(),
                    m.line,
                    m.text
                ));
            }
        }
        Ok(warnings)
    }
}

/// The first bytes of a jar (a zip archive): `PK`, the start of every zip signature (local file
/// header `PK\x03\x04`, an empty archive's `PK\x05\x06`; APPNOTE.TXT 4.3.7).
const ZIP_MAGIC: &[u8] = b"PK";

/// One resolved job's artifact: a regular file with the extension spark-submit decides by, a
/// jar a zip archive, a PySpark file not one.
fn check_artifact(
    job: &ResolvedJob,
    version: &str,
    generation: bool,
    base_per_line: bool,
) -> Result<(), String> {
    let (key, ext) = match &job.job {
        Job::Python { .. } => ("file", "py"),
        Job::Jar { .. } => ("jar", "jar"),
    };
    let path = job.artifact();
    let what = format!("{} {key}", job.table());
    let run = if generation {
        format!("the generation on Spark {version}")
    } else {
        format!("target {version}")
    };
    let scala = SparkLine::of_text(version).map_or("?", |l| l.scala);
    if let Job::Jar { jar, .. } = &job.job {
        if jar.as_os_str().is_empty() {
            return Err(format!(
                "{} gives `main_class` for {run}, but the job is a PySpark file: give `jar` too, or remove `main_class`",
                job.table()
            ));
        }
    }
    if path.extension().and_then(|e| e.to_str()) != Some(ext) {
        return Err(format!(
            "{what} = {} (for {run}): spark-submit runs a .{ext} file here and decides by the extension; rename the file to end in .{ext}",
            path.display()
        ));
    }
    let head = read_head(path, &what).map_err(|e| {
        let build = if let Job::Jar { .. } = &job.job {
            let script = build_script_near(path)
                .map(|b| format!(": {} builds it", b.display()))
                .unwrap_or_default();
            format!(" (build the job for Spark {version}, Scala {scala}, there{script})")
        } else {
            String::new()
        };
        if job.per_target.is_none() && !base_per_line {
            // A wrong path in [job]: per_target would not help (new-user pass: the hint offered
            // it for a plain typo, naming a target --target had replaced). `e` says to check
            // the path, relative to the scenario file; a jar may only be unbuilt yet.
            match &job.job {
                Job::Jar { .. } => format!("{e}\n(it is the jar of {run}{build}: build it, or fix the path in [job])"),
                Job::Python { .. } => e,
            }
        } else {
            format!("{e}\n(it is the artifact of {run}{build}; fix the path, or give the target its own artifact with [job.per_target.\"{version}\"])")
        }
    })?;
    let zip = head.starts_with(ZIP_MAGIC);
    match &job.job {
        Job::Jar { .. } if !zip => Err(format!(
            "{what} = {} (for {run}) is not a jar: it does not start as a zip archive does (PK); give the built jar (e.g. target/*.jar of the build), not a source or class file",
            path.display()
        )),
        Job::Python { .. } if zip => Err(format!(
            "{what} = {} (for {run}) is a zip archive, not a PySpark file; a jar goes in `jar` with `main_class`",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// The build files a missing jar's nearest ancestors (up to four levels) hold, the first found:
/// the project's own `build.sh` first, then Maven's, sbt's and Gradle's. A missing jar is most
/// often one not built yet, and the error should say with what (session-6 new-user pass: the
/// example's jar was missing and nothing named `scenarios/jobs/jvm/build.sh`).
fn build_script_near(jar: &Path) -> Option<std::path::PathBuf> {
    const BUILD_FILES: &[&str] = &[
        "build.sh",
        "pom.xml",
        "build.sbt",
        "build.gradle",
        "build.gradle.kts",
    ];
    jar.ancestors().skip(1).take(4).find_map(|dir| {
        BUILD_FILES
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.is_file())
    })
}

/// The first 4 bytes of the regular file at `path` (fewer if it is shorter), checked a regular
/// file first so a FIFO never blocks the load.
fn read_head(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    userfile::check_regular(path, what, u64::MAX).map_err(|e| e.to_string())?;
    let mut head = Vec::with_capacity(4);
    std::fs::File::open(path)
        .and_then(|f| f.take(4).read_to_end(&mut head))
        .map_err(|e| format!("{what} {}: cannot be read: {e}", path.display()))?;
    Ok(head)
}

/// Checks an entry's keys as written: a known key, `jar` and `file` not both, paths holding
/// only `{spark}`/`{scala}`.
pub(super) fn check_entry(o: &JobOverride) -> Result<(), String> {
    let table = format!("[job.per_target.{:?}]", o.key);
    if o.jar.is_some() && o.file.is_some() {
        return Err(format!(
            "{table} gives both `jar` and `file`: a job is a PySpark file or a jar; keep one"
        ));
    }
    if o.file.is_some() && o.main_class.is_some() {
        return Err(format!(
            "{table} gives `main_class` with a PySpark `file`: remove `main_class`, or give a `jar`"
        ));
    }
    if o.jar.is_none()
        && o.file.is_none()
        && o.main_class.is_none()
        && o.args.is_none()
        && o.restart_args.is_none()
    {
        return Err(format!(
            "{table} is empty: give the keys it overrides for that target (jar, file, main_class, args, restart_args), or remove it"
        ));
    }
    for (key, p) in [("jar", &o.jar), ("file", &o.file)] {
        if let Some(p) = p {
            check_versions(&p.to_string_lossy(), &format!("{table} {key}"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_by_prefix_and_exact_keys_rank_first() {
        let four = TargetPattern::parse("4.*").unwrap();
        let four_o = TargetPattern::parse("4.0.*").unwrap();
        let exact = TargetPattern::parse("4.0.1").unwrap();
        assert!(four.matches("4.0.1") && four.matches("4.2.0") && !four.matches("3.5.3"));
        assert!(!four.matches("40.0.1"));
        assert!(four_o.matches("4.0.1") && !four_o.matches("4.1.0"));
        assert!(exact.matches("4.0.1") && !exact.matches("4.0.10"));
        assert!(exact.rank() > four_o.rank() && four_o.rank() > four.rank());
        for bad in [
            "4", "4.x", "*", "4.*.*", "4.0.1.*", "4.0", "3.5", "4.0.*1", ".*", "9.9.9", "04.*",
            "4.00.*", "4.01.*",
        ] {
            assert!(TargetPattern::parse(bad).is_err(), "{bad}");
        }
    }

    /// A scenario directory with jars per line (zip magic), a PySpark file and a text file.
    fn dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for jar in [
            "app_2.12-3.5.3.jar",
            "app_2.13-4.0.1.jar",
            "new.jar",
            "four-o.jar",
        ] {
            std::fs::write(dir.path().join(jar), b"PK\x03\x04rest").unwrap();
        }
        std::fs::write(dir.path().join("fake.jar"), "class A {}").unwrap();
        std::fs::write(dir.path().join("job.py"), "print(1)").unwrap();
        dir
    }

    fn load(dir: &tempfile::TempDir, job: &str) -> Result<Scenario, String> {
        let text = format!(
            "targets = [\"3.5.3\", \"4.0.1\", \"4.1.0\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n{job}"
        );
        Scenario::parse(&text, &dir.path().join("s.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn per_target_entries_pick_artifacts_exact_first_and_the_base_runs_the_generation() {
        let dir = dir();
        let s = load(
            &dir,
            "[job]\njar = \"app_{scala}-3.5.3.jar\"\nmain_class = \"A\"\nargs = [\"--a\"]\n[job.per_target.\"4.*\"]\njar = \"new.jar\"\nargs = [\"--b\"]\n[job.per_target.\"4.0.1\"]\njar = \"app_{scala}-{spark}.jar\"\nmain_class = \"B\"\n",
        )
        .unwrap();
        let name = |j: &ResolvedJob| {
            j.artifact()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        let exact = s.job_for("4.0.1");
        assert_eq!(name(&exact), "app_2.13-4.0.1.jar");
        assert!(matches!(&exact.job, Job::Jar { main_class, .. } if main_class == "B"));
        assert_eq!(
            exact.args,
            ["--a"],
            "an entry keeps the base's keys it does not give"
        );
        assert_eq!(exact.table(), "[job.per_target.\"4.0.1\"]");
        let pattern = s.job_for("4.1.0");
        assert_eq!(
            (name(&pattern), pattern.args.clone()),
            ("new.jar".into(), vec!["--b".to_string()])
        );
        assert!(matches!(&pattern.job, Job::Jar { main_class, .. } if main_class == "A"));
        // The control target and the generation run what wrote the checkpoint.
        assert_eq!(name(&s.job_for("3.5.3")), "app_2.12-3.5.3.jar");
        assert_eq!(s.job_for("3.5.3").table(), "[job]");
        assert_eq!(name(&s.generation_job("3.5.3")), "app_2.12-3.5.3.jar");
        // A suite's source runs the job of its version.
        let mut suite = s.clone();
        suite.per_target_generates = true;
        assert_eq!(name(&suite.generation_job("4.0.1")), "app_2.13-4.0.1.jar");
    }

    #[test]
    fn every_artifact_a_target_would_run_is_checked_at_load() {
        let dir = dir();
        for (job, needles) in [
            (
                "[job]\njar = \"app_{scala}-{spark}.jar\"\nmain_class = \"A\"\n",
                &["[job] jar", "app_2.13-4.1.0.jar", "does not exist", "target 4.1.0", "Scala 2.13", "[job.per_target.\"4.1.0\"]"][..],
            ),
            (
                "[job]\njar = \"app_2.12-3.5.3.jar\"\nmain_class = \"A\"\n[job.per_target.\"4.*\"]\njar = \"fake.jar\"\n",
                &["[job.per_target.\"4.*\"] jar", "fake.jar", "is not a jar", "target 4.0.1"],
            ),
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\nfile = \"new.jar\"\n",
                &["[job.per_target.\"4.*\"] file", "end in .py"],
            ),
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\nmain_class = \"A\"\n",
                &["gives `main_class`", "give `jar` too"],
            ),
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.x\"]\nfile = \"job.py\"\n",
                &["[job.per_target.\"4.x\"]", "pattern ending in .*"],
            ),
            ("[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\n", &["is empty"]),
            // The breaker pass: a jar over a PySpark base without main_class ended as an
            // environment-error after Kafka and Spark had started.
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\njar = \"new.jar\"\n",
                &["[job.per_target.\"4.*\"] jar needs main_class", "PySpark"],
            ),
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\njar = \"new.jar\"\nfile = \"job.py\"\n",
                &["both `jar` and `file`"],
            ),
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\nargs = [\"{outptu}\"]\n",
                &["[job.per_target.\"4.*\"] args", "did you mean {output}"],
            ),
            (
                "[job]\njar = \"app_{scla}.jar\"\nmain_class = \"A\"\n",
                &["[job] jar", "did you mean {scala}"],
            ),
            (
                "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\njar = \"new.jar\"\nmain_class = \"A\"\nbogus = 1\n",
                &["bogus"],
            ),
        ] {
            let e = load(&dir, job).unwrap_err();
            for n in needles {
                assert!(e.contains(n), "{job}\n missing {n:?} in: {e}");
            }
        }
        // A PySpark base and a jar for 4.x: the kind switches per target.
        let s = load(
            &dir,
            "[job]\nfile = \"job.py\"\n[job.per_target.\"4.*\"]\njar = \"new.jar\"\nmain_class = \"A\"\n",
        )
        .unwrap();
        assert!(matches!(s.job_for("4.0.1").job, Job::Jar { .. }));
        assert!(matches!(s.job_for("3.5.3").job, Job::Python { .. }));
    }

    /// A jar not built yet: the error names the build script beside it (session-6 new-user
    /// pass: the example's missing jar named no `scenarios/jobs/jvm/build.sh`).
    #[test]
    fn a_missing_jar_names_the_build_script_near_it() {
        let dir = dir();
        std::fs::create_dir_all(dir.path().join("jobs/jvm")).unwrap();
        std::fs::write(dir.path().join("jobs/jvm/build.sh"), "#!/bin/sh\n").unwrap();
        let e = load(
            &dir,
            "[job]\njar = \"jobs/jvm/target/app.jar\"\nmain_class = \"A\"\n",
        )
        .unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        assert!(e.contains("jobs/jvm/build.sh builds it"), "{e}");
        // Without a build file near it, no script is named.
        let e = load(
            &dir,
            "[job]\njar = \"elsewhere/app.jar\"\nmain_class = \"A\"\n",
        )
        .unwrap_err();
        assert!(!e.contains("builds it"), "{e}");
    }
}
