//! Host tools and installs for the `local` runtime: which Java and Python the host has, whether
//! a Spark line runs on them (`crates/rehearse-base/src/versions/spark-lines.toml`), and the Spark and Kafka
//! installs under `<cache>/local/` made once per version by docker/local-install.sh.

use super::*;

pub use rehearse_base::versions::ToolVersion;

/// Whether Spark `spark` (`(major, minor)`) runs on Java `java` and Python `python` on the local
/// runtime; `Err` holds the reason and the fix, one sentence each. The limits are the
/// `java_min`, `java_max`, `python_min` and `python_max` columns of the Spark line's row in
/// `crates/rehearse-base/src/versions/spark-lines.toml` (3.0 – 3.2: Java ≤ 11; 3.0 – 3.3: Python ≤ 3.10; 4.x: Java
/// ≥ 17, Python ≥ 3.9); a line older than the table (Spark 2.x) has none.
pub fn local_support(
    spark: (u32, u32),
    java: ToolVersion,
    python: ToolVersion,
) -> Result<(), (String, String)> {
    SparkLine::of_line(spark).map_or(Ok(()), |line| line.host_support(java, python))
}

/// The major version in the output of `java -version` (`version "17.0.15"` → 17,
/// `version "1.8.0_392"` → 8).
pub fn parse_java_version(output: &str) -> Option<u32> {
    let start = output.find("version \"")? + "version \"".len();
    let rest = &output[start..];
    let text = &rest[..rest.find('"')?];
    let mut parts = text.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

/// The Java the local runtime runs: `$JAVA_HOME/bin/java`, else `java` on PATH.
pub(super) fn java_program() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join("bin/java"))
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// The Python PySpark runs: `$PYSPARK_PYTHON`, else `python3`.
pub(super) fn python_program() -> PathBuf {
    std::env::var_os("PYSPARK_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The host's Java major version.
pub fn java_version() -> Result<u32, RuntimeError> {
    let java = java_program();
    let out = std::process::Command::new(&java)
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| RuntimeError::JavaMissing {
            detail: format!("cannot run {}: {e}", java.display()),
        })?;
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    parse_java_version(&text).ok_or_else(|| RuntimeError::JavaMissing {
        detail: format!(
            "{} -version printed no version: {}",
            java.display(),
            text.lines().next().unwrap_or("")
        ),
    })
}

/// The host's PySpark Python version `(major, minor)`.
pub fn python_version() -> Result<ToolVersion, RuntimeError> {
    let python = python_program();
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import sys; print(sys.version_info[0], sys.version_info[1])",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| RuntimeError::PythonMissing {
            detail: format!("cannot run {}: {e}", python.display()),
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace().map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) if out.status.success() => Ok((a, b)),
        _ => Err(RuntimeError::PythonMissing {
            detail: format!("{} did not report its version", python.display()),
        }),
    }
}

/// Checks that this host can run Spark `version` on the local runtime (Java and Python present
/// and suitable). Cheap: two short process runs.
pub fn check_host(version: &str) -> Result<(), RuntimeError> {
    let spark = SparkVersion::parse(version).map_err(|_| RuntimeError::LocalUnsupported {
        version: version.to_string(),
        reason: "not a Spark version".into(),
        fix: "give a release such as 3.5.3".into(),
    })?;
    let java = java_version()?;
    let python = python_version()?;
    let support = match SparkLine::of(&spark) {
        Some(line) => line.host_support((java, 0), python),
        None => Ok(()),
    };
    support.map_err(|(reason, fix)| RuntimeError::LocalUnsupported {
        version: version.to_string(),
        reason,
        fix,
    })
}

// ---------------------------------------------------------------------------------------------
// Installation

/// Where local installations live: `<cache>/local` ([`rehearse_base::cache::local`]).
pub fn install_root() -> PathBuf {
    rehearse_base::cache::local()
}

/// What is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Spark,
    Kafka,
}

impl Part {
    fn as_str(self) -> &'static str {
        match self {
            Part::Spark => "spark",
            Part::Kafka => "kafka",
        }
    }
}

/// Installs Spark `version` for the local runtime unless it is there, and returns its
/// SPARK_HOME (`<cache>/local/spark-<version>/spark`). Blocking (the first time: the pyspark
/// download, up to 450 MB, unless an image build cached it, and a Maven resolution).
pub fn ensure_spark(
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, RuntimeError> {
    Ok(ensure(Part::Spark, version, progress)?.join("spark"))
}

/// Installs the Kafka broker `version` for the local runtime unless it is there, and returns
/// its home (`<cache>/local/kafka-<version>`, holding `libs/`, `config/` and `start.sh`).
pub fn ensure_kafka(
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, RuntimeError> {
    ensure(Part::Kafka, version, progress)
}

fn ensure(
    part: Part,
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, RuntimeError> {
    let v = crate::images::recipe_version(version).map_err(|source| RuntimeError::Install {
        what: format!("{} {version}", part.as_str()),
        source,
    })?;
    let root = install_root();
    let dir = root.join(format!("{}-{v}", part.as_str()));
    if dir.join("complete").exists() {
        return Ok(dir);
    }
    let io = |action: String| move |source| RuntimeError::LocalIo { action, source };
    std::fs::create_dir_all(&root).map_err(io(format!("create {}", root.display())))?;
    let lock_path = root.join(format!("{}-{v}.lock", part.as_str()));
    let lock =
        std::fs::File::create(&lock_path).map_err(io(format!("create {}", lock_path.display())))?;
    flock(&lock).map_err(io(format!("lock {}", lock_path.display())))?;
    if dir.join("complete").exists() {
        return Ok(dir);
    }
    progress(&format!(
        "installing {} {v} for the local runtime into {}",
        part.as_str(),
        dir.display()
    ));
    let partial = root.join(format!("{}-{v}.partial", part.as_str()));
    let _ = std::fs::remove_dir_all(&partial);
    let _ = std::fs::remove_dir_all(&dir);
    crate::images::run_local_install(part.as_str(), v, &partial, progress).map_err(|source| {
        RuntimeError::Install {
            what: format!("{} {v}", part.as_str()),
            source,
        }
    })?;
    std::fs::write(partial.join("complete"), format!("{} {v}\n", part.as_str()))
        .map_err(io(format!("write {}", partial.join("complete").display())))?;
    std::fs::rename(&partial, &dir).map_err(io(format!(
        "rename {} to {}",
        partial.display(),
        dir.display()
    )))?;
    Ok(dir)
}

/// An exclusive lock held until `file` is closed (two rehearse processes installing the same
/// version wait for each other).
fn flock(file: &std::fs::File) -> std::io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive).map_err(Into::into)
}
