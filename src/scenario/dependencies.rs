//! `[job]`'s dependencies as written and checked at load: `packages` (Maven coordinates
//! `group:artifact:version`, with `{spark}` and `{scala}` filled per Spark version), `jars` and
//! `py_files` (local files), `requirements` (a pip requirements file, PySpark jobs only). Nothing
//! here downloads: `deps` (layer 6) resolves them on the host before any container starts.
//!
//! `spark-submit --packages` takes the same `group:artifact:version` form
//! (`SparkSubmitUtils.extractMavenCoordinates`, core/src/main/scala/org/apache/spark/deploy/SparkSubmit.scala, 3.5).

use std::path::{Path, PathBuf};

use super::placeholders::{check_versions, fill_versions};

/// The job's dependencies, validated (paths absolute, files regular, coordinates well formed for
/// every Spark version the scenario runs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dependencies {
    /// Maven coordinates as written (`{spark}`/`{scala}` unfilled): fill them with
    /// [`Dependencies::packages_for`].
    pub packages: Vec<String>,
    /// Local jars passed with `--jars` (absolute; `{spark}`/`{scala}` unfilled: see
    /// [`Dependencies::jars_for`]).
    pub jars: Vec<PathBuf>,
    /// Local `.py`/`.zip`/`.egg` files passed with `--py-files` (absolute, placeholders
    /// unfilled: [`Dependencies::py_files_for`]).
    pub py_files: Vec<PathBuf>,
    /// A pip requirements file (PySpark jobs), installed as wheels for the image's Python.
    pub requirements: Option<PathBuf>,
}

impl Dependencies {
    /// Whether the job names no dependency at all.
    pub fn is_empty(&self) -> bool {
        self.packages.is_empty()
            && self.jars.is_empty()
            && self.py_files.is_empty()
            && self.requirements.is_none()
    }

    /// The coordinates for Spark `version`, `{spark}` and `{scala}` filled.
    pub fn packages_for(&self, version: &str) -> Vec<Coordinate> {
        self.packages
            .iter()
            .filter_map(|p| Coordinate::parse(&fill_versions(p, version)).ok())
            .collect()
    }

    /// `jars` for Spark `version`, `{spark}` and `{scala}` filled.
    pub fn jars_for(&self, version: &str) -> Vec<PathBuf> {
        fill_paths(&self.jars, version)
    }

    /// `py_files` for Spark `version`, `{spark}` and `{scala}` filled.
    pub fn py_files_for(&self, version: &str) -> Vec<PathBuf> {
        fill_paths(&self.py_files, version)
    }
}

/// `paths` with `{spark}`/`{scala}` filled for `version` (paths rehearse built from UTF-8 TOML,
/// so the lossy view is the path itself).
pub(super) fn fill_paths(paths: &[PathBuf], version: &str) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|p| PathBuf::from(fill_versions(&p.to_string_lossy(), version)))
        .collect()
}

/// The file name of `p` as text.
pub(super) fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A Maven coordinate `group:artifact:version`, placeholders filled.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Coordinate {
    /// groupId.
    pub group: String,
    /// artifactId.
    pub artifact: String,
    /// version.
    pub version: String,
}

impl std::fmt::Display for Coordinate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.group, self.artifact, self.version)
    }
}

impl Coordinate {
    /// Parses `group:artifact:version`; each part is letters, digits, `.`, `_`, `-` (what Maven
    /// Central's ids use; nothing a shell or XML would read differently).
    pub fn parse(text: &str) -> Result<Coordinate, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let ok = |p: &str| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
                && !p.starts_with('.')
                && !p.starts_with('-')
        };
        match parts[..] {
            [g, a, v] if ok(g) && ok(a) && ok(v) => Ok(Coordinate {
                group: g.into(),
                artifact: a.into(),
                version: v.into(),
            }),
            _ => Err(format!(
                "{text:?} is not a Maven coordinate: write group:artifact:version as Maven Central names it, e.g. \"org.apache.spark:spark-avro_{{scala}}:{{spark}}\" ({{spark}} and {{scala}} are filled per Spark version; letters, digits, '.', '_' and '-' only)"
            )),
        }
    }
}

/// Checks `packages` for every Spark version the scenario runs (`versions`): each fills to a
/// well-formed coordinate, and no placeholder but `{spark}`/`{scala}` is left.
pub(super) fn check_packages(packages: &[String], versions: &[&str]) -> Result<(), String> {
    for (i, p) in packages.iter().enumerate() {
        if packages[..i].contains(p) {
            return Err(format!(
                "[job] packages names {p:?} twice: list each coordinate once"
            ));
        }
        check_versions(p, "[job] packages")?;
        for v in versions {
            let filled = fill_versions(p, v);
            Coordinate::parse(&filled).map_err(|m| {
                if filled == *p {
                    format!("[job] packages: {m}")
                } else {
                    format!("[job] packages: {p:?}, filled for Spark {v}: {m}")
                }
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_fill_per_line_and_bad_ones_are_refused() {
        let p = "org.apache.spark:spark-avro_{scala}:{spark}";
        let deps = Dependencies {
            packages: vec![p.into()],
            ..Dependencies::default()
        };
        assert_eq!(
            deps.packages_for("3.5.3")[0].to_string(),
            "org.apache.spark:spark-avro_2.12:3.5.3"
        );
        assert_eq!(
            deps.packages_for("4.0.1")[0].to_string(),
            "org.apache.spark:spark-avro_2.13:4.0.1"
        );
        assert!(check_packages(&[p.into()], &["3.5.3", "4.0.1"]).is_ok());
        for (bad, says) in [
            ("spark-avro", "not a Maven coordinate"),
            ("a:b:c:d", "not a Maven coordinate"),
            ("a::1", "not a Maven coordinate"),
            ("a:b:1 --x", "not a Maven coordinate"),
            ("a:b:<v>", "not a Maven coordinate"),
            ("a:b_{scla}:1", "did you mean {scala}"),
        ] {
            let e = check_packages(&[bad.into()], &["4.0.1"]).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let e = check_packages(&[p.into(), p.into()], &["4.0.1"]).unwrap_err();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn local_dependencies_are_checked_at_load_for_every_version() {
        use crate::scenario::{Scenario, ScenarioError};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "job.py",
            "util.py",
            "lib_2.12.jar",
            "lib_2.13.jar",
            "req.txt",
            "app.jar",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/lib_2.12.jar"), "x").unwrap();
        let scenario = |job: &str| {
            let text = format!(
                "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\n{job}\n"
            );
            let path = d.join("s.toml");
            std::fs::write(&path, &text).unwrap();
            Scenario::load(&path)
        };
        let ok = scenario(
            "file = \"job.py\"\njars = [\"lib_{scala}.jar\"]\npy_files = [\"util.py\"]\nrequirements = \"req.txt\"",
        )
        .unwrap();
        assert_eq!(ok.dependencies.jars_for("3.5.3"), [d.join("lib_2.12.jar")]);
        assert_eq!(ok.dependencies.jars_for("4.0.1"), [d.join("lib_2.13.jar")]);
        assert_eq!(ok.dependencies.requirements, Some(d.join("req.txt")));
        let err = |job: &str| match scenario(job) {
            Err(ScenarioError::Invalid { message, .. }) => message,
            other => panic!("{job}: {other:?}"),
        };
        for (job, says) in [
            (
                "file = \"job.py\"\njars = [\"lib_{spark}.jar\"]",
                "for Spark 4.0.1",
            ),
            (
                "file = \"job.py\"\njars = [\"util.py\"]",
                "does not end in .jar",
            ),
            (
                "file = \"job.py\"\npy_files = [\"app.jar\"]",
                "does not end in .py or .zip or .egg",
            ),
            (
                "file = \"job.py\"\nrequirements = \"missing.txt\"",
                "missing.txt",
            ),
            (
                "jar = \"app.jar\"\nmain_class = \"A\"\nrequirements = \"req.txt\"",
                "for a PySpark job",
            ),
            (
                "jar = \"app.jar\"\nmain_class = \"A\"\npy_files = [\"util.py\"]",
                "for a PySpark job",
            ),
            (
                "file = \"job.py\"\njars = [\"lib_{scla}.jar\"]",
                "did you mean {scala}",
            ),
            (
                "file = \"job.py\"\njars = [\"lib_2.12.jar\", \"sub/lib_2.12.jar\"]",
                "two files are named",
            ),
        ] {
            let m = err(job);
            assert!(m.contains(says), "{job}: {m}");
        }
    }
}
