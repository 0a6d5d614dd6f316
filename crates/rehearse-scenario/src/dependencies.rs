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
    /// A pip requirements file (PySpark jobs), installed as wheels for the image's Python
    /// (absolute, placeholders unfilled: [`Dependencies::requirements_for`]).
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

    /// `requirements` for Spark `version`, `{spark}` and `{scala}` filled.
    pub fn requirements_for(&self, version: &str) -> Option<PathBuf> {
        let r = self.requirements.as_ref()?;
        fill_paths(std::slice::from_ref(r), version).pop()
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

/// The modules a Spark binary distribution ships in `jars/` (`org.apache.spark:spark-<name>_<scala>`):
/// a coordinate naming one would put a second copy — of another version — on `--jars`
/// (`spark-sql_{scala}:3.3.4` on a 4.0.1 target pulled 125 jars, 365 MB, Spark 3.3.4's own
/// modules among them). Source: the `jars/` directories of spark-3.3.4-bin-hadoop3,
/// spark-3.5.3-bin-hadoop3 and spark-4.0.1-bin-hadoop3 (`mesos` up to 3.5, `sql-api` and
/// `common-utils` from 3.5, `variant` from 4.0). Connectors Spark publishes separately stay
/// allowed: `spark-avro`, `spark-sql-kafka-0-10`, `spark-protobuf`, `spark-connect`,
/// `spark-hadoop-cloud`, `spark-token-provider-kafka-0-10`.
pub const SPARK_DISTRIBUTION_MODULES: &[&str] = &[
    "catalyst",
    "common-utils",
    "core",
    "graphx",
    "hive",
    "hive-thriftserver",
    "kubernetes",
    "kvstore",
    "launcher",
    "mesos",
    "mllib",
    "mllib-local",
    "network-common",
    "network-shuffle",
    "repl",
    "sketch",
    "sql",
    "sql-api",
    "streaming",
    "tags",
    "unsafe",
    "variant",
    "yarn",
];

/// Whether `c` is a module every Spark distribution ships ([`SPARK_DISTRIBUTION_MODULES`]).
fn spark_ships(c: &Coordinate) -> bool {
    if c.group != "org.apache.spark" {
        return false;
    }
    let module = match c.artifact.rsplit_once('_') {
        Some((m, scala)) if scala.starts_with("2.") => m,
        _ => c.artifact.as_str(),
    };
    module
        .strip_prefix("spark-")
        .is_some_and(|m| SPARK_DISTRIBUTION_MODULES.contains(&m))
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
            let c = Coordinate::parse(&filled).map_err(|m| {
                if filled == *p {
                    format!("[job] packages: {m}")
                } else {
                    format!("[job] packages: {p:?}, filled for Spark {v}: {m}")
                }
            })?;
            if spark_ships(&c) {
                return Err(format!(
                    "[job] packages: {p:?} ({c} for Spark {v}) is a module Spark ships: a second copy of another version would go on --jars; remove it, or use {{spark}} for a connector Spark publishes separately such as spark-avro / spark-sql-kafka-0-10 (org.apache.spark:spark-avro_{{scala}}:{{spark}})"
                ));
            }
        }
    }
    Ok(())
}

/// The options a requirements file may hold: where wheels come from (`--index-url`,
/// `--extra-index-url`, `--find-links`, `--no-index`, `--trusted-host`) and which versions count
/// (`--pre`, `--prefer-binary`, `--only-binary`). Everything else is refused: `-e`/`--editable`
/// (pip builds the project on the host), `--no-binary` (a source build), `-r`/`-c` (another
/// file, read by pip but not part of the cache key: write its lines into this file), and any
/// option pip may add later. A URL's password in them is masked in every log
/// (`text::mask`). The option names are pip's (`pip/_internal/req/req_file.py`, pip
/// 23–24).
const REQUIREMENT_OPTIONS: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--no-index",
    "--trusted-host",
    "--pre",
    "--prefer-binary",
    "--only-binary",
];

/// The logical lines of a requirements file as pip reads them (`req_file.py`: a line ending in
/// `\` joins the next; a comment starts at a `#` at the line's start or after whitespace), with
/// the number of the physical line each starts on; empty lines left out.
pub fn requirement_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let (start, mut line) = pending.take().unwrap_or((i + 1, String::new()));
        if let Some(body) = raw.strip_suffix('\\') {
            line.push_str(body);
            pending = Some((start, line));
            continue;
        }
        line.push_str(raw);
        let code = match line
            .char_indices()
            .find(|&(at, c)| c == '#' && (at == 0 || line[..at].ends_with(char::is_whitespace)))
        {
            Some((at, _)) => line[..at].trim().to_string(),
            None => line.trim().to_string(),
        };
        if !code.is_empty() {
            out.push((start, code));
        }
    }
    if let Some((start, line)) = pending {
        let code = line.trim().to_string();
        if !code.is_empty() {
            out.push((start, code));
        }
    }
    out
}

/// Whether a requirement line (not a comment, not an option line) pins a `--hash`: pip then
/// wants every requirement hashed (`--require-hashes`).
pub fn requirements_pin_hashes(text: &str) -> bool {
    requirement_lines(text)
        .iter()
        .any(|(_, l)| !l.starts_with('-') && l.split_whitespace().any(|w| w.starts_with("--hash")))
}

/// Checks a requirements file's lines: each is a name from an index with optional extras,
/// version specifiers, markers and `--hash` options, or an option of [`REQUIREMENT_OPTIONS`].
/// Refused, naming `file:line`: a local path (`./pkg`, `pkg.whl`), `-e`/`--editable`, a direct
/// reference (`name @ url`), a URL or VCS reference (`git+https://…`) — pip would fetch or build
/// such a project and run its `setup.py` on the host — and `-r`/`-c` includes.
pub(super) fn check_requirements(file: &Path, text: &str) -> Result<(), String> {
    const FIX: &str = "build a wheel and pin it, or publish it to an index (rehearse installs only wheels from an index, never builds on the host)";
    let at = |n: usize, line: &str, why: String| {
        format!(
            "[job] requirements {}:{n}: {:?} {why}",
            file.display(),
            rehearse_base::text::mask(line)
        )
    };
    for (n, line) in requirement_lines(text) {
        if line.starts_with('-') {
            let name = line
                .split(|c: char| c == '=' || c.is_whitespace())
                .next()
                .unwrap_or("");
            let name = if name.starts_with("--") || name.len() <= 2 {
                name
            } else {
                &name[..2]
            };
            if REQUIREMENT_OPTIONS.contains(&name) {
                continue;
            }
            let why = match name {
                "-e" | "--editable" => format!("is an editable install: pip would build the project and run its setup.py on the host; {FIX}"),
                "-r" | "--requirement" | "-c" | "--constraint" => "includes another file, which is not part of the cache key: write its lines into this file".to_string(),
                "--no-binary" => format!("asks for a source build: pip would run setup.py on the host; {FIX}"),
                _ => format!("uses the option {name}, which rehearse does not pass to pip (allowed: {})", REQUIREMENT_OPTIONS.join(", ")),
            };
            return Err(at(n, &line, why));
        }
        let req = line.split(" --").next().unwrap_or(&line).trim();
        let before_marker = req.split(';').next().unwrap_or(req);
        let what = if ["git+", "hg+", "svn+", "bzr+"]
            .iter()
            .any(|v| req.starts_with(v))
        {
            Some("is a VCS reference")
        } else if before_marker.contains('@') || rehearse_store::looks_like_url(before_marker) {
            Some("is a direct URL reference")
        } else if before_marker.starts_with(['.', '/', '~'])
            || before_marker.contains(['/', '\\'])
            || [".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2"]
                .iter()
                .any(|e| before_marker.trim_end().ends_with(e))
        {
            Some("is a local path")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(at(
                n,
                &line,
                format!("{what}: pip would fetch or build it and run its code on the host; {FIX}"),
            ));
        }
        let name_ok = before_marker
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if !name_ok {
            return Err(at(
                n,
                &line,
                "is not a requirement: write a package name from an index, e.g. toolz==0.12.1"
                    .into(),
            ));
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
        // The breaker pass: spark-sql_{scala}:3.3.4 on a 4.0.1 target downloaded 365 MB of
        // Spark 3.3.4 bound for --jars.
        for shipped in [
            "org.apache.spark:spark-sql_{scala}:3.3.4",
            "org.apache.spark:spark-core_2.13:{spark}",
            "org.apache.spark:spark-sql-api_{scala}:{spark}",
            "org.apache.spark:spark-launcher_2.12:3.5.3",
        ] {
            let e = check_packages(&[shipped.into()], &["4.0.1"]).unwrap_err();
            assert!(
                e.contains("a module Spark ships") && e.contains(shipped),
                "{e}"
            );
        }
        for connector in [
            "org.apache.spark:spark-avro_{scala}:{spark}",
            "org.apache.spark:spark-sql-kafka-0-10_{scala}:{spark}",
            "org.apache.spark:spark-protobuf_{scala}:{spark}",
            "org.apache.spark:spark-connect_{scala}:{spark}",
            "org.example:spark-sql_2.13:1",
        ] {
            assert_eq!(
                check_packages(&[connector.into()], &["4.0.1"]),
                Ok(()),
                "{connector}"
            );
        }
        let e = check_packages(&[p.into(), p.into()], &["4.0.1"]).unwrap_err();
        assert!(e.contains("twice"), "{e}");
    }

    /// The breaker pass: `./localpkg`, `-e ./localpkg` and `git+https://…` made pip build and
    /// run setup.py on the host; a comment naming `--hash` switched on `--require-hashes`.
    #[test]
    fn requirements_that_would_build_on_the_host_are_refused_by_line() {
        let f = Path::new("/s/req.txt");
        let ok = "# pinned\ntoolz==0.12.1  # we do not use --hash here\nsix>=1.16 ; python_version >= \"3.8\"\nfoo[bar]==1 \\\n    --hash=sha256:abc\n--index-url https://alice:pw@host/simple\n--only-binary=:all:\n";
        assert_eq!(check_requirements(f, ok), Ok(()));
        assert!(requirements_pin_hashes(ok));
        assert!(!requirements_pin_hashes(
            "toolz==1  # we do not use --hash here\n"
        ));
        assert!(!requirements_pin_hashes("# --hash=sha256:x\ntoolz==1\n"));
        for (text, line, says) in [
            ("six\n./localpkg\n", 2, "local path"),
            ("/abs/pkg\n", 1, "local path"),
            ("pkg-1.0.tar.gz\n", 1, "local path"),
            ("-e ./localpkg\n", 1, "editable"),
            ("--editable=./localpkg\n", 1, "editable"),
            ("git+https://github.com/x/y\n", 1, "VCS"),
            (
                "six @ https://bob:TopSecret99@host/six.whl\n",
                1,
                "direct URL",
            ),
            ("six@file:///tmp/six.whl\n", 1, "direct URL"),
            ("https://host/six.whl\n", 1, "direct URL"),
            ("-r other.txt\n", 1, "not part of the cache key"),
            ("-c constraints.txt\n", 1, "not part of the cache key"),
            ("--no-binary :all:\n", 1, "source build"),
            ("--global-option x\n", 1, "does not pass"),
        ] {
            let e = check_requirements(f, text).unwrap_err();
            assert!(
                e.contains(&format!("/s/req.txt:{line}")) && e.contains(says),
                "{text}: {e}"
            );
            assert!(!e.contains("TopSecret99"), "{e}");
            if says != "not part of the cache key" && says != "does not pass" {
                assert!(
                    e.contains("build a wheel and pin it, or publish it to an index"),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn local_dependencies_are_checked_at_load_for_every_version() {
        use crate::{Scenario, ScenarioError};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "job.py",
            "util.py",
            "lib_2.12.jar",
            "lib_2.13.jar",
            "req.txt",
            "app.jar",
            "req_3.5.3.txt",
            "req_4.0.1.txt",
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
        // The breaker pass: `req_{spark}.txt` said only "does not exist"; it is filled per
        // version as `jars` are, and a missing one names the placeholder.
        let filled = scenario("file = \"job.py\"\nrequirements = \"req_{spark}.txt\"").unwrap();
        assert_eq!(
            filled.dependencies.requirements_for("4.0.1"),
            Some(d.join("req_4.0.1.txt"))
        );
        std::fs::write(d.join("bad.txt"), "x\n-e ./localpkg\n").unwrap();
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
                "file = \"job.py\"\nrequirements = \"req_{scala}.txt\"",
                "filled for Spark",
            ),
            ("file = \"job.py\"\nrequirements = \"bad.txt\"", "bad.txt:2"),
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
