//! `[job] requirements`: a pip requirements file installed on the host as wheels for the Python
//! the job runs with — `python3 -m pip install --target --only-binary=:all: --python-version
//! --implementation cp --abi --platform` (wheels only: nothing is built on the host for another
//! Python), `--require-hashes` when the file pins hashes. The image's Python and glibc come from
//! the `base` column of `crates/rehearse-base/src/versions/spark-lines.toml` ([`Debian::python`], [`Debian::glibc`]);
//! `--runtime local` asks the host's `python3`. The installed tree is kept under
//! `<cache>/deps/python/<key>/site`, `key` the blake3 of the file's bytes, the Python and the
//! platform: a file installed once never reaches the index again. Its lines were checked at load
//! (`scenario::dependencies::check_requirements`): no local path, URL, VCS or editable
//! requirement, no `-r`/`-c` include (it would not be part of the key).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{io, last_error, write_log, DepsError, PythonFor};
use rehearse_base::versions::{Debian, SparkLine};

/// An installed requirements environment.
#[derive(Debug, Clone)]
pub struct PythonEnv {
    /// The installed packages (a `--target` tree), in the cache.
    pub site: PathBuf,
    /// The requirements file.
    pub requirements: PathBuf,
    /// blake3 of the file's bytes.
    pub blake3: String,
    /// The Python the wheels were chosen for.
    pub python: String,
    /// `name-version` of each distribution pip installed.
    pub installed: Vec<String>,
}

/// The Python (`3.11`) and glibc of the job's interpreter.
fn interpreter(spark: &str, python: PythonFor) -> Result<(String, (u32, u32)), DepsError> {
    if python == PythonFor::Image {
        let base = SparkLine::of_text(spark).map_or(Debian::Bookworm, |l| l.base);
        return Ok((base.python().to_string(), base.glibc()));
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, platform; print('%d.%d' % sys.version_info[:2]); print(platform.libc_ver()[1])",
        ])
        .output()
        .map_err(|e| DepsError::ToolMissing {
            tool: "python3",
            detail: format!("`python3` could not be started: {e}"),
            fix: "install Python 3 with pip (apt-get install python3-pip)",
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let version = lines.next().unwrap_or("3.11").trim().to_string();
    let glibc = lines
        .next()
        .and_then(|g| g.trim().split_once('.'))
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .unwrap_or((2, 17));
    Ok((version, glibc))
}

/// `--platform` tags a wheel may carry for `glibc` on this machine's architecture (PEP 600
/// `manylinux_2_X` from 2.17 up, and the legacy aliases of PEP 599).
fn platforms(glibc: (u32, u32)) -> Vec<String> {
    let arch = std::env::consts::ARCH;
    let mut tags: Vec<String> = (17..=glibc.1.max(17))
        .rev()
        .map(|minor| format!("manylinux_2_{minor}_{arch}"))
        .collect();
    tags.push(format!("manylinux2014_{arch}"));
    if arch == "x86_64" {
        tags.push("manylinux2010_x86_64".into());
        tags.push("manylinux1_x86_64".into());
    }
    tags
}

/// Installs `file` for Spark `spark`'s Python (from the cache when done before).
pub(super) fn install(
    file: &Path,
    spark: &str,
    role: &str,
    python: PythonFor,
    progress: &mut dyn FnMut(String),
) -> Result<PythonEnv, DepsError> {
    let bytes = rehearse_base::userfile::read_bytes(
        file,
        "[job] requirements",
        rehearse_base::userfile::MAX_CONFIG_BYTES,
    )
    .map_err(|e| DepsError::Io {
        action: "read",
        path: file.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let (version, glibc) = interpreter(spark, python)?;
    let platforms = platforms(glibc);
    let blake3 = blake3::hash(&bytes).to_hex().to_string();
    let key = blake3::hash(format!("{blake3}\n{version}\n{}", platforms.join(",")).as_bytes())
        .to_hex()
        .to_string();
    let dest = rehearse_base::cache::dependencies()
        .join("python")
        .join(&key[..24]);
    let env = |installed: Vec<String>| PythonEnv {
        site: dest.join("site"),
        requirements: file.to_path_buf(),
        blake3: blake3.clone(),
        python: version.clone(),
        installed,
    };
    if let Some(installed) = cached(&dest) {
        return Ok(env(installed));
    }
    progress(format!(
        "installing {} for Python {version} (wheels)",
        file.display()
    ));
    let parent = dest.parent().unwrap_or(&dest);
    std::fs::create_dir_all(parent).map_err(io("create", parent))?;
    let work = tempfile::Builder::new()
        .prefix(".installing-")
        .tempdir_in(parent)
        .map_err(io("create a directory in", parent))?;
    let site = work.path().join("site");
    let hashes = rehearse_scenario::requirements_pin_hashes(&String::from_utf8_lossy(&bytes));
    let mut cmd = pip_command(&site, &version, &platforms, file, hashes);
    let output = cmd.output().map_err(|e| DepsError::ToolMissing {
        tool: "python3",
        detail: format!("`python3 -m pip` could not be started: {e}"),
        fix: "install Python 3 with pip (apt-get install python3-pip)",
    })?;
    let log = rehearse_base::cache::build_logs().join(format!("pip-deps-{}.log", &key[..24]));
    let mut text = output.stdout.clone();
    text.extend_from_slice(&output.stderr);
    write_log(&log, &text);
    let text = String::from_utf8_lossy(&text);
    if !output.status.success() {
        return Err(classify(&text, file, &version, role, log));
    }
    let installed: Vec<String> = text
        .lines()
        .find_map(|l| l.strip_prefix("Successfully installed "))
        .map(|l| l.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    std::fs::write(
        work.path().join("installed.txt"),
        installed.join("\n") + "\n",
    )
    .map_err(io("write", work.path()))?;
    std::fs::create_dir_all(&site).map_err(io("create", &site))?;
    let done = work.keep();
    if std::fs::rename(&done, &dest).is_err() {
        let _ = std::fs::remove_dir_all(&done);
        if cached(&dest).is_none() {
            return Err(DepsError::Io {
                action: "store",
                path: dest,
                source: std::io::Error::other(
                    "the installed packages could not be moved into the cache",
                ),
            });
        }
    }
    Ok(env(installed))
}

/// `python3 -m pip install` of `file` into `site` for Python `version`, wheels only: every
/// requirement must be a wheel (`--only-binary=:all:`; a source distribution is refused, not
/// built — `a_source_distribution_is_refused_not_built` checks it with a real pip), and
/// `--no-build-isolation` so that no build environment is ever fetched either.
fn pip_command(
    site: &Path,
    version: &str,
    platforms: &[String],
    file: &Path,
    hashes: bool,
) -> Command {
    let abi = format!("cp{}", version.replace('.', ""));
    let mut cmd = Command::new("python3");
    cmd.args([
        "-m",
        "pip",
        "install",
        "--no-input",
        "--disable-pip-version-check",
    ])
    .args([
        "--progress-bar",
        "off",
        "--no-compile",
        "--no-warn-script-location",
    ])
    .arg("--target")
    .arg(site)
    .args(["--only-binary=:all:", "--no-build-isolation"])
    .args(["--implementation", "cp"])
    .args(["--python-version", version])
    .args(["--abi", &abi, "--abi", "abi3", "--abi", "none"]);
    for p in platforms {
        cmd.args(["--platform", p]);
    }
    if hashes {
        cmd.arg("--require-hashes");
    }
    // pip runs in the file's directory (so what the file names resolves beside it), so it gets
    // the file by its name there: a path relative to the caller's directory (`deps/req.txt`
    // from the repository root) was looked up as `deps/deps/req.txt` (new-user pass).
    match (file.parent(), file.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => {
            cmd.current_dir(dir).arg("-r").arg(name);
        }
        _ => {
            cmd.arg("-r").arg(file);
        }
    }
    cmd
}

/// What a finished install left in `dest`.
fn cached(dest: &Path) -> Option<Vec<String>> {
    let list = std::fs::read_to_string(dest.join("installed.txt")).ok()?;
    dest.join("site").is_dir().then(|| {
        list.lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    })
}

/// A failed pip run as an error: the index out of reach (checked first: offline pip also says
/// it found no version), requirements that do not resolve, or anything else.
fn classify(text: &str, file: &Path, python: &str, role: &str, log: PathBuf) -> DepsError {
    const UNREACHABLE: [&str; 6] = [
        "NewConnectionError",
        "Failed to establish a new connection",
        "Temporary failure in name resolution",
        "Name or service not known",
        "Network is unreachable",
        "ConnectTimeoutError",
    ];
    const UNRESOLVED: [&str; 9] = [
        "No matching distribution found",
        "Could not find a version that satisfies",
        "DO NOT MATCH THE HASHES",
        "Hashes are required",
        "Invalid requirement",
        "ResolutionImpossible",
        "Could not open requirements file",
        "conflicting dependencies",
        "In --require-hashes mode",
    ];
    let detail = last_error(text);
    if UNREACHABLE.iter().any(|m| text.contains(m)) {
        DepsError::Unreachable {
            registry: "the Python package index".into(),
            what: file.display().to_string(),
            role: role.into(),
            detail,
            log,
        }
    } else if UNRESOLVED.iter().any(|m| text.contains(m)) {
        DepsError::RequirementsUnresolved {
            file: file.to_path_buf(),
            python: python.into(),
            role: role.into(),
            detail,
            log,
        }
    } else if text.contains("No module named pip") {
        DepsError::ToolMissing {
            tool: "pip",
            detail: detail.clone(),
            fix: "install pip for the host's python3 (apt-get install python3-pip)",
        }
    } else {
        DepsError::ResolverFailed {
            tool: "pip",
            what: file.display().to_string(),
            role: role.into(),
            detail,
            log,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rehearse_base::{ErrorKind, HasErrorKind};

    /// New-user pass: `rehearse run deps/s.toml` from another directory made pip look for
    /// `deps/deps/req.txt`. pip runs in the file's directory and gets the file by its name.
    #[test]
    fn pip_reads_a_relative_requirements_file_from_its_own_directory() {
        let cmd = pip_command(
            Path::new("/s"),
            "3.11",
            &[],
            Path::new("deps/req.txt"),
            false,
        );
        assert_eq!(cmd.get_current_dir(), Some(Path::new("deps")));
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let r = args.iter().position(|a| a == "-r").expect("-r");
        assert_eq!(args[r + 1], "req.txt");
        let bare = pip_command(Path::new("/s"), "3.11", &[], Path::new("req.txt"), false);
        assert_eq!(bare.get_current_dir(), None);
    }

    #[test]
    fn the_images_python_comes_from_the_spark_line_table() {
        assert_eq!(interpreter("3.3.4", PythonFor::Image).unwrap().0, "3.9");
        assert_eq!(interpreter("3.5.3", PythonFor::Image).unwrap().0, "3.11");
        let tags = platforms((2, 36));
        assert!(
            tags.iter().any(|t| t.starts_with("manylinux_2_36_")),
            "{tags:?}"
        );
        assert!(
            tags.iter().any(|t| t.starts_with("manylinux_2_17_")),
            "{tags:?}"
        );
        assert!(!platforms((2, 31))
            .iter()
            .any(|t| t.starts_with("manylinux_2_36_")));
    }

    /// The breaker pass: requirements made pip build and run setup.py on the host. The pip
    /// rehearse runs refuses a source distribution rather than build it: a local sdist whose
    /// setup.py would leave a marker file, offered through `--find-links`, is not installed and
    /// the marker never appears. Needs the host's `python3 -m pip` (as `requirements` does).
    #[test]
    fn a_source_distribution_is_refused_not_built() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let marker = d.join("setup-ran");
        let pkg = d.join("evilpkg-1.0");
        std::fs::create_dir(&pkg).unwrap();
        std::fs::write(
            pkg.join("setup.py"),
            format!(
                "open({:?}, 'w').write('ran')\nfrom setuptools import setup\nsetup(name='evilpkg', version='1.0')\n",
                marker.display().to_string()
            ),
        )
        .unwrap();
        std::fs::write(
            pkg.join("PKG-INFO"),
            "Metadata-Version: 2.1\nName: evilpkg\nVersion: 1.0\n",
        )
        .unwrap();
        let links = d.join("links");
        std::fs::create_dir(&links).unwrap();
        let tar = Command::new("tar")
            .arg("czf")
            .arg(links.join("evilpkg-1.0.tar.gz"))
            .arg("-C")
            .arg(d)
            .arg("evilpkg-1.0")
            .status()
            .unwrap();
        assert!(tar.success());
        let req = d.join("req.txt");
        std::fs::write(
            &req,
            format!(
                "--no-index\n--find-links {}\nevilpkg==1.0\n",
                links.display()
            ),
        )
        .unwrap();
        let out = pip_command(&d.join("site"), "3.11", &platforms((2, 36)), &req, false)
            .output()
            .expect("python3 -m pip on the host");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text}");
        assert!(!marker.exists(), "setup.py ran: {text}");
        assert!(text.contains("No matching distribution"), "{text}");
    }

    #[test]
    fn pip_failures_are_told_apart() {
        let f = Path::new("/s/requirements.txt");
        let nope = "ERROR: Could not find a version that satisfies the requirement nope==1 (from versions: none)\nERROR: No matching distribution found for nope==1\n";
        let e = classify(nope, f, "3.11", "target 4.0.1", "l".into());
        assert_eq!(e.error_kind(), ErrorKind::BadInput);
        assert!(
            e.to_string().contains("/s/requirements.txt") && e.to_string().contains("nope==1"),
            "{e}"
        );
        let offline = "WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError(...: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')'\nERROR: Could not find a version that satisfies the requirement six\n";
        let e = classify(offline, f, "3.11", "target 4.0.1", "l".into());
        assert_eq!(e.error_kind(), ErrorKind::Environment);
        assert!(e.to_string().contains("unreachable"), "{e}");
    }
}
