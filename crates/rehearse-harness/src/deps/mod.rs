//! A job's dependencies made ready on the host, before any container starts, and staged into a
//! sandbox: `[job] packages` resolved from Maven Central (`maven.rs`: `mvn -C`, strict
//! checksums, into the local repository the image recipes use, the jars cached per coordinate),
//! `requirements` installed as wheels for the Python the job runs with (`python.rs`: `pip install
//! --target --only-binary=:all:`, cached per file hash and Python), `jars` and `py_files` as
//! given. The job sees them at `<sandbox>/deps/`: `--jars`, `--py-files`, and the installed
//! packages on `PYTHONPATH` of the driver and (through `spark.executorEnv.PYTHONPATH`) of the
//! executors' Python workers (`PythonWorkerFactory` merges it into the worker's path, core/src/main/scala/org/apache/spark/api/python/PythonWorkerFactory.scala, 3.5).
//!
//! Caches live under [`rehearse_base::cache::dependencies`] (`$REHEARSE_CACHE/deps`, else
//! `~/.cache/rehearse/deps`): once a coordinate or a requirements file was resolved, later runs
//! need no network. Imports: `cache`, `versions`, `exit`, `scenario`, `text`.

mod maven;
mod python;

use std::path::{Path, PathBuf};

use serde::Serialize;

use rehearse_base::versions::SparkLine;
use rehearse_base::{ErrorKind, HasErrorKind};
use rehearse_scenario::{Coordinate, Dependencies};

/// The Python wheels are chosen for: the image's (`base` column of spark-lines.toml) or the
/// host's (`--runtime local` runs the job with the host's `python3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PythonFor {
    /// The `rehearse/spark` image of the version.
    Image,
    /// The host's `python3`.
    Host,
}

/// The dependencies of a job for one Spark version, on the host.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// Each coordinate (filled) with its jars in the cache (the artifact and its runtime
    /// dependencies, minus what Spark ships).
    pub packages: Vec<(Coordinate, Vec<PathBuf>)>,
    /// `[job] jars`.
    pub jars: Vec<PathBuf>,
    /// `[job] py_files`.
    pub py_files: Vec<PathBuf>,
    /// The installed `requirements`.
    pub python: Option<python::PythonEnv>,
}

/// What a job runs with, in its sandbox: paths relative to the sandbox, and the report.
#[derive(Debug, Clone, Default)]
pub struct Staged {
    /// `--jars`, relative to the sandbox.
    pub jars: Vec<String>,
    /// `--py-files`, relative to the sandbox.
    pub py_files: Vec<String>,
    /// The directory of installed packages for `PYTHONPATH`, relative to the sandbox.
    pub python_path: Option<String>,
    /// What the report says (`None`: the job names no dependency).
    pub report: Option<DependencyReport>,
}

/// The dependencies a trial ran with (`dependencies` of a trial in `rehearse.run/v1`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DependencyReport {
    /// Each coordinate with the jar files it brought.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<PackageReport>,
    /// `[job] jars`, as files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jars: Vec<String>,
    /// `[job] py_files`, as files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub py_files: Vec<String>,
    /// The requirements environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requirements: Option<RequirementsReport>,
}

impl DependencyReport {
    /// One line for terminal and Markdown reports: `org.apache.spark:spark-avro_2.13:4.0.1 (2
    /// jars); py_files order_schema.py; requirements.txt for Python 3.11: toolz-0.12.1`
    /// (controls removed: names come from the user's files).
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .packages
            .iter()
            .map(|p| {
                let n = p.jars.len();
                format!(
                    "{} ({n} jar{})",
                    p.coordinate,
                    if n == 1 { "" } else { "s" }
                )
            })
            .collect();
        if !self.jars.is_empty() {
            parts.push(format!("jars {}", self.jars.join(", ")));
        }
        if !self.py_files.is_empty() {
            parts.push(format!("py_files {}", self.py_files.join(", ")));
        }
        if let Some(r) = &self.requirements {
            let name = Path::new(&r.file)
                .file_name()
                .map_or_else(|| r.file.clone(), |n| n.to_string_lossy().into_owned());
            parts.push(format!(
                "{name} for Python {}: {}",
                r.python,
                if r.installed.is_empty() {
                    "nothing installed".to_owned()
                } else {
                    r.installed.join(", ")
                }
            ));
        }
        rehearse_base::text::sanitize(&parts.join("; ")).into_owned()
    }
}

/// One coordinate and its jars.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackageReport {
    /// `group:artifact:version`, placeholders filled.
    pub coordinate: String,
    /// Jar file names (the artifact's first).
    pub jars: Vec<String>,
}

/// The requirements file a trial's Python environment was installed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementsReport {
    /// The file (lossily as UTF-8).
    pub file: String,
    /// blake3 of its bytes (the cache key's part from the file).
    pub blake3: String,
    /// The Python the wheels were chosen for (`3.11`).
    pub python: String,
    /// `name-version` of each installed distribution.
    pub installed: Vec<String>,
}

/// Why the dependencies could not be made ready. Bad input: a coordinate or requirement that
/// does not exist for the version; environment: a registry out of reach, a missing tool, a
/// failing resolver.
#[derive(Debug, thiserror::Error)]
pub enum DepsError {
    /// The artifact (or one of its dependencies) is not in the Maven registry for this Spark
    /// version.
    #[error("[job] packages: {coordinate} does not exist in {repo}, needed by {role}: {detail}\n(hint: a package must be published for the line's Scala and Spark version — write it with {{scala}} and {{spark}} (e.g. org.apache.spark:spark-avro_{{scala}}:{{spark}}) or give a version that exists for this line; the mvn log is {log})")]
    ArtifactMissing {
        /// The coordinate, filled.
        coordinate: String,
        /// `target 4.0.1 (Scala 2.13)` or `the generating Spark 3.5.3 (Scala 2.12)`.
        role: String,
        /// Maven's words.
        detail: String,
        /// The registry as shown: `Maven Central (url)` or `the Maven registry (MAVEN_REPO=url)`,
        /// its password masked.
        repo: String,
        /// The whole mvn output.
        log: PathBuf,
    },
    /// The requirements do not resolve to wheels for the Python.
    #[error("[job] requirements {file}: pip could not install it for Python {python} on manylinux {arch} (needed by {role}): {detail}\n(hint: pin versions that publish wheels for Python {python} (source distributions are not built), fix the names or hashes it names; the pip log is {log})", arch = std::env::consts::ARCH)]
    RequirementsUnresolved {
        /// The requirements file.
        file: PathBuf,
        /// The Python.
        python: String,
        /// `target 4.0.1` or `the generating Spark 3.5.3`.
        role: String,
        /// pip's words.
        detail: String,
        /// The whole pip output.
        log: PathBuf,
    },
    /// The Maven registry or the Python package index did not answer.
    #[error("{registry} is unreachable while resolving {what} for {role}: {detail}\n(hint: check the network or proxy; once resolved, dependencies are cached under {cache} and later runs need no network; the log is {log})", cache = rehearse_base::cache::dependencies().display())]
    Unreachable {
        /// `Maven Central (url)`, `the Maven registry (MAVEN_REPO=url)` (password masked) or
        /// `the Python package index`.
        registry: String,
        /// The coordinate or the requirements file.
        what: String,
        /// `target 4.0.1` or `the generating Spark 3.5.3`.
        role: String,
        /// The resolver's words.
        detail: String,
        /// The log.
        log: PathBuf,
    },
    /// The resolver failed for another reason.
    #[error(
        "{tool} failed resolving {what} for {role}: {detail}\n(hint: the whole output is in {log})"
    )]
    ResolverFailed {
        /// `mvn` or `pip`.
        tool: &'static str,
        /// The coordinate or the requirements file.
        what: String,
        /// `target 4.0.1` or `the generating Spark 3.5.3`.
        role: String,
        /// Its last error line.
        detail: String,
        /// The log.
        log: PathBuf,
    },
    /// A host tool is missing.
    #[error("resolving the job's dependencies needs {tool} on the host: {detail}\n(hint: {fix})")]
    ToolMissing {
        /// The tool.
        tool: &'static str,
        /// What happened.
        detail: String,
        /// How to install it.
        fix: &'static str,
    },
    /// A `[job] jars` file has the name of a jar a package brought: one would replace the
    /// other in the sandbox's `deps/jars/`.
    #[error("[job] jars: {jar} has the file name of a jar that {coordinate} brings ({name}); both would be staged as deps/jars/{name} and one would be lost\n(hint: remove the jar from `jars` if the package's is the one you want, or rename your file)")]
    JarClash {
        /// The user's jar.
        jar: PathBuf,
        /// The coordinate whose resolution brought the same name.
        coordinate: String,
        /// The file name.
        name: String,
    },
    /// A file could not be written or copied.
    #[error("could not {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl HasErrorKind for DepsError {
    fn error_kind(&self) -> ErrorKind {
        match self {
            DepsError::ArtifactMissing { .. }
            | DepsError::RequirementsUnresolved { .. }
            | DepsError::JarClash { .. } => ErrorKind::BadInput,
            DepsError::Unreachable { .. }
            | DepsError::ResolverFailed { .. }
            | DepsError::ToolMissing { .. }
            | DepsError::Io { .. } => ErrorKind::Environment,
        }
    }
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> DepsError {
    let path = path.to_path_buf();
    move |source| DepsError::Io {
        action,
        path,
        source,
    }
}

/// Resolves `deps` for Spark `spark` (`role` names it in errors: `target 4.0.1`), from the
/// cache when an earlier run resolved the same coordinate or requirements: packages with
/// `mvn`, requirements with `pip` for the Python `python` says. `progress` gets a line before
/// each download.
pub fn resolve(
    deps: &Dependencies,
    spark: &str,
    role: &str,
    python: PythonFor,
    progress: &mut dyn FnMut(String),
) -> Result<Resolved, DepsError> {
    let scala = SparkLine::of_text(spark).map_or("2.13", |l| l.scala);
    let mut packages = Vec::new();
    for c in deps.packages_for(spark) {
        let jars = maven::resolve(&c, scala, role, progress)?;
        packages.push((c, jars));
    }
    let jars = deps.jars_for(spark);
    check_jar_names(&packages, &jars)?;
    let python = match deps.requirements_for(spark) {
        None => None,
        Some(file) => Some(python::install(&file, spark, role, python, progress)?),
    };
    Ok(Resolved {
        packages,
        jars,
        py_files: deps.py_files_for(spark),
        python,
    })
}

/// Refuses a `[job] jars` file named as a jar a package brought (`lib/xz-1.10.jar` beside
/// spark-avro's `xz-1.10.jar`): staging keeps one name once, so the other would be dropped
/// while the report named both.
fn check_jar_names(
    packages: &[(Coordinate, Vec<PathBuf>)],
    jars: &[PathBuf],
) -> Result<(), DepsError> {
    for jar in jars {
        let name = name_of(jar);
        if let Some((c, _)) = packages
            .iter()
            .find(|(_, brought)| brought.iter().any(|b| name_of(b) == name))
        {
            return Err(DepsError::JarClash {
                jar: jar.clone(),
                coordinate: c.to_string(),
                name,
            });
        }
    }
    Ok(())
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Copies (hard-links where it can) `resolved` into `<sandbox>/deps/`: `jars/` (every package
/// jar and `[job] jars`, a file name once), `py/`, `python/` (the installed packages).
pub fn stage(resolved: &Resolved, sandbox: &Path) -> Result<Staged, DepsError> {
    let root = sandbox.join("deps");
    let mut staged = Staged::default();
    let mut report = DependencyReport::default();
    let jars_dir = root.join("jars");
    let mut seen = std::collections::BTreeSet::new();
    let mut add_jar = |jar: &Path, staged: &mut Staged| -> Result<String, DepsError> {
        let name = name_of(jar);
        if seen.insert(name.clone()) {
            std::fs::create_dir_all(&jars_dir).map_err(io("create", &jars_dir))?;
            link_or_copy(jar, &jars_dir.join(&name))?;
            staged.jars.push(format!("deps/jars/{name}"));
        }
        Ok(name)
    };
    for (c, jars) in &resolved.packages {
        let mut names = Vec::new();
        for jar in jars {
            names.push(add_jar(jar, &mut staged)?);
        }
        report.packages.push(PackageReport {
            coordinate: c.to_string(),
            jars: names,
        });
    }
    for jar in &resolved.jars {
        report.jars.push(add_jar(jar, &mut staged)?);
    }
    if !resolved.py_files.is_empty() {
        let dir = root.join("py");
        std::fs::create_dir_all(&dir).map_err(io("create", &dir))?;
        for f in &resolved.py_files {
            let name = name_of(f);
            link_or_copy(f, &dir.join(&name))?;
            staged.py_files.push(format!("deps/py/{name}"));
            report.py_files.push(name);
        }
    }
    if let Some(env) = &resolved.python {
        copy_tree(&env.site, &root.join("python"))?;
        staged.python_path = Some("deps/python".into());
        report.requirements = Some(RequirementsReport {
            file: env.requirements.to_string_lossy().into_owned(),
            blake3: env.blake3.clone(),
            python: env.python.clone(),
            installed: env.installed.clone(),
        });
    }
    if report != DependencyReport::default() {
        staged.report = Some(report);
    }
    Ok(staged)
}

fn link_or_copy(from: &Path, to: &Path) -> Result<(), DepsError> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(io("copy", from))
}

/// Copies the tree at `from` to `to` (directories and regular files; links are not followed).
fn copy_tree(from: &Path, to: &Path) -> Result<(), DepsError> {
    std::fs::create_dir_all(to).map_err(io("create", to))?;
    for entry in std::fs::read_dir(from).map_err(io("read", from))? {
        let entry = entry.map_err(io("read", from))?;
        let kind = entry.file_type().map_err(io("read", &entry.path()))?;
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else if kind.is_file() {
            link_or_copy(&entry.path(), &dest)?;
        }
    }
    Ok(())
}

/// The first line of `log` that says what went wrong (`[ERROR]`, `ERROR:`), without Maven's
/// framing (`Failed to execute goal …:`, `-> [Help 1]`), sanitized, a URL's password masked and
/// cut to 400 characters.
fn last_error(log: &str) -> String {
    let line = log
        .lines()
        .map(str::trim)
        .find(|t| t.starts_with("[ERROR] ") && t.len() > 10 || t.starts_with("ERROR:"))
        .or_else(|| log.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("no output");
    let mut line = line.trim_start_matches("[ERROR] ");
    line = line.split(" -> [Help").next().unwrap_or(line);
    for cause in [
        "Could not find artifact",
        "Failure to find",
        "Could not transfer",
    ] {
        if let Some(at) = line.find(cause) {
            line = &line[at..];
            break;
        }
    }
    let clean = rehearse_base::text::sanitize(line.trim());
    let clean = rehearse_base::text::mask(&clean);
    clean.chars().take(400).collect()
}

/// Writes `bytes` to `log` (best effort: a log that cannot be written is not the error).
/// A URL's password (`MAVEN_REPO`, a requirement's index) is masked first
/// ([`rehearse_base::text::mask`]): logs are kept and shared.
fn write_log(log: &Path, bytes: &[u8]) {
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let text = String::from_utf8_lossy(bytes);
    let _ = std::fs::write(log, rehearse_base::text::mask(&text).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The breaker pass: `jars = ["lib/xz-1.10.jar"]` beside spark-avro (which brings
    /// xz-1.10.jar) was silently dropped at staging while the report named it.
    #[test]
    fn a_users_jar_named_as_a_package_jar_is_refused() {
        let c = Coordinate::parse("org.apache.spark:spark-avro_2.13:4.0.1").unwrap();
        let packages = vec![(
            c,
            vec![
                PathBuf::from("/cache/spark-avro_2.13-4.0.1.jar"),
                PathBuf::from("/cache/xz-1.10.jar"),
            ],
        )];
        let e = check_jar_names(&packages, &[PathBuf::from("/s/lib/xz-1.10.jar")]).unwrap_err();
        assert_eq!(
            rehearse_base::HasErrorKind::error_kind(&e),
            ErrorKind::BadInput
        );
        let m = e.to_string();
        assert!(
            m.contains("/s/lib/xz-1.10.jar")
                && m.contains("org.apache.spark:spark-avro_2.13:4.0.1")
                && m.contains("xz-1.10.jar"),
            "{m}"
        );
        assert!(check_jar_names(&packages, &[PathBuf::from("/s/lib/mine.jar")]).is_ok());
    }

    #[test]
    fn the_first_error_line_is_the_detail() {
        let log = "[INFO] x\n[ERROR] Failed to execute goal on project deps: Could not find artifact a:b:jar:1 in central\n[ERROR] \n[ERROR] Re-run Maven using the -X switch\n";
        assert_eq!(
            last_error(log),
            "Could not find artifact a:b:jar:1 in central"
        );
        let log = "[ERROR] Failed to execute goal on project job-deps: Could not resolve dependencies for project rehearse:job-deps:pom:1: Could not find artifact a:b:jar:1 in central-only (https://r) -> [Help 1]\n[ERROR] \n[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n";
        assert_eq!(
            last_error(log),
            "Could not find artifact a:b:jar:1 in central-only (https://r)"
        );
        assert_eq!(
            last_error("ERROR: No matching distribution found for nope==1\n"),
            "ERROR: No matching distribution found for nope==1"
        );
    }

    #[test]
    fn staging_links_jars_once_and_reports_them() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a-1.jar");
        let p = dir.path().join("util.py");
        std::fs::write(&a, "jar").unwrap();
        std::fs::write(&p, "x = 1").unwrap();
        let sandbox = dir.path().join("sandbox");
        let resolved = Resolved {
            packages: vec![(Coordinate::parse("g:a:1").unwrap(), vec![a.clone()])],
            jars: vec![a.clone()],
            py_files: vec![p],
            python: None,
        };
        let s = stage(&resolved, &sandbox).unwrap();
        assert_eq!(s.jars, ["deps/jars/a-1.jar"]);
        assert_eq!(s.py_files, ["deps/py/util.py"]);
        assert!(sandbox.join("deps/jars/a-1.jar").is_file());
        let r = s.report.unwrap();
        assert_eq!(r.packages[0].coordinate, "g:a:1");
        assert_eq!(r.packages[0].jars, ["a-1.jar"]);
        assert_eq!(
            serde_json::to_value(&r).unwrap()["py_files"],
            serde_json::json!(["util.py"])
        );
        assert!(stage(&Resolved::default(), &sandbox)
            .unwrap()
            .report
            .is_none());
        let r = DependencyReport {
            requirements: Some(RequirementsReport {
                file: "/s/requirements.txt".into(),
                blake3: "b".into(),
                python: "3.11".into(),
                installed: vec!["toolz-0.12.1".into()],
            }),
            ..r
        };
        assert_eq!(
            r.describe(),
            "g:a:1 (1 jar); jars a-1.jar; py_files util.py; requirements.txt for Python 3.11: toolz-0.12.1"
        );
    }
}
