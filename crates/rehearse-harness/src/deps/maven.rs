//! `[job] packages`: one coordinate resolved with Maven on the host, as the image recipes do
//! (`maven_copy` in `docker/common.sh`): a generated POM with the coordinate as its only
//! dependency, `mvn -B -C` (every download checked against the registry's checksum), a settings
//! file mirroring every repository to Maven Central (`$MAVEN_REPO` overrides it), the local
//! repository `<cache>/m2` the recipes share, and `dependency:copy-dependencies
//! -DincludeScope=runtime` — the jars `spark-submit --packages` would add: the artifact and its
//! runtime dependencies, minus the Spark modules every Spark distribution ships
//! ([`SPARK_DISTRIBUTION_MODULES`], a superset of `IVY_DEFAULT_EXCLUDES` in SparkSubmit.scala,
//! which `spark-submit --packages` leaves out) and the Scala library. The jars are kept per coordinate under
//! `<cache>/deps/maven/<group>/<artifact>/<version>/` with `jars.txt` naming them: a coordinate
//! resolved once never reaches the network again.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{io, last_error, write_log, DepsError};
use rehearse_scenario::{Coordinate, SPARK_DISTRIBUTION_MODULES};

/// The maven-dependency-plugin the image recipes use (docker/common.sh).
const DEPENDENCY_PLUGIN: &str = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

/// The registry URL (`$MAVEN_REPO`, else Maven Central's).
fn registry() -> String {
    std::env::var("MAVEN_REPO")
        .ok()
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| CENTRAL.into())
}

const CENTRAL: &str = "https://repo.maven.apache.org/maven2";

/// The registry as messages name it: `Maven Central (url)`, or for `$MAVEN_REPO` (a mirror or a
/// private registry) `the Maven registry (MAVEN_REPO=url)`, a password in it masked.
fn registry_name(repo: &str) -> String {
    if repo == CENTRAL {
        format!("Maven Central ({repo})")
    } else {
        format!(
            "the Maven registry (MAVEN_REPO={})",
            rehearse_base::text::mask(repo)
        )
    }
}

/// The jars of `c` (the artifact's own first), from the cache or resolved now.
pub(super) fn resolve(
    c: &Coordinate,
    scala: &str,
    role: &str,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<PathBuf>, DepsError> {
    let dest = rehearse_base::cache::dependencies()
        .join("maven")
        .join(&c.group)
        .join(&c.artifact)
        .join(&c.version);
    if let Some(jars) = cached(&dest) {
        return Ok(jars);
    }
    progress(format!("resolving {c} from {}", registry_name(&registry())));
    let parent = dest.parent().unwrap_or(&dest);
    std::fs::create_dir_all(parent).map_err(io("create", parent))?;
    let work = tempfile::Builder::new()
        .prefix(".resolving-")
        .tempdir_in(parent)
        .map_err(io("create a directory in", parent))?;
    let out = work.path().join("jars");
    let pom = work.path().join("pom.xml");
    let settings = work.path().join("settings.xml");
    let repo = registry();
    std::fs::write(
        &pom,
        format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>rehearse</groupId><artifactId>job-deps</artifactId><version>1</version><packaging>pom</packaging>\
             <dependencies><dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version></dependency></dependencies></project>\n",
            c.group, c.artifact, c.version
        ),
    )
    .map_err(io("write", &pom))?;
    std::fs::write(
        &settings,
        format!("<settings><mirrors><mirror><id>central-only</id><mirrorOf>*</mirrorOf><url>{repo}</url></mirror></mirrors></settings>\n"),
    )
    .map_err(io("write", &settings))?;
    let excluded: Vec<String> = SPARK_DISTRIBUTION_MODULES
        .iter()
        .flat_map(|m| ["2.12", "2.13"].map(|s| format!("spark-{m}_{s}")))
        .filter(|a| *a != c.artifact)
        .collect();
    let log = rehearse_base::cache::build_logs().join(format!(
        "mvn-deps-{}_{}_{}.log",
        c.group, c.artifact, c.version
    ));
    let output = Command::new("mvn")
        .arg("-B")
        .arg("-C")
        // A failure cached by an earlier run (offline then) is tried again.
        .arg("-U")
        .arg("-s")
        .arg(&settings)
        .arg("-f")
        .arg(&pom)
        .arg(format!(
            "-Dmaven.repo.local={}",
            rehearse_base::cache::maven_repository().display()
        ))
        .arg(format!("{DEPENDENCY_PLUGIN}:copy-dependencies"))
        .arg(format!("-DoutputDirectory={}", out.display()))
        .arg("-DincludeScope=runtime")
        .arg(format!("-DexcludeArtifactIds={}", excluded.join(",")))
        .arg("-DexcludeGroupIds=org.scala-lang")
        .output()
        .map_err(|e| DepsError::ToolMissing {
            tool: "mvn",
            detail: format!("`mvn` could not be started: {e}"),
            fix:
                "install Maven 3 and a JDK (apt-get install maven), or run scripts/setup-docker.sh",
        })?;
    let mut text = output.stdout.clone();
    text.extend_from_slice(&output.stderr);
    write_log(&log, &text);
    let text = String::from_utf8_lossy(&text);
    if !output.status.success() {
        return Err(classify(&text, c, scala, role, &repo, log));
    }
    let mut jars: Vec<String> = std::fs::read_dir(&out)
        .map_err(io("read", &out))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jar"))
        .collect();
    let own = format!("{}-{}", c.artifact, c.version);
    jars.sort_by_key(|n| (!n.starts_with(&own), n.clone()));
    std::fs::write(out.join("jars.txt"), jars.join("\n") + "\n").map_err(io("write", &out))?;
    // Another run may have finished first: its copy is as good as this one.
    if std::fs::rename(&out, &dest).is_err() && cached(&dest).is_none() {
        return Err(DepsError::Io {
            action: "store",
            path: dest,
            source: std::io::Error::other("the resolved jars could not be moved into the cache"),
        });
    }
    Ok(jars.iter().map(|n| dest.join(n)).collect())
}

/// The jars a finished resolution left in `dest` (`jars.txt` and every file it names).
fn cached(dest: &Path) -> Option<Vec<PathBuf>> {
    let list = std::fs::read_to_string(dest.join("jars.txt")).ok()?;
    let jars: Vec<PathBuf> = list
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| dest.join(l))
        .collect();
    jars.iter().all(|j| j.is_file()).then_some(jars)
}

/// A failed `mvn` run as an error: the registry out of reach (checked first: an offline Maven
/// also says it could not resolve), the artifact not there, or anything else.
fn classify(
    log_text: &str,
    c: &Coordinate,
    scala: &str,
    role: &str,
    repo: &str,
    log: PathBuf,
) -> DepsError {
    const UNREACHABLE: [&str; 7] = [
        "Unknown host",
        "UnknownHostException",
        "Connection refused",
        "Network is unreachable",
        "Connect timed out",
        "Read timed out",
        "No route to host",
    ];
    const MISSING: [&str; 4] = [
        "Could not find artifact",
        "Failure to find",
        "was not found in",
        "Could not resolve dependencies",
    ];
    let detail = last_error(log_text);
    if UNREACHABLE.iter().any(|m| log_text.contains(m)) {
        DepsError::Unreachable {
            registry: registry_name(repo),
            what: c.to_string(),
            role: role.into(),
            detail,
            log,
        }
    } else if MISSING.iter().any(|m| log_text.contains(m)) {
        DepsError::ArtifactMissing {
            coordinate: c.to_string(),
            role: format!("{role} (Scala {scala})"),
            detail,
            repo: registry_name(repo),
            log,
        }
    } else {
        DepsError::ResolverFailed {
            tool: "mvn",
            what: c.to_string(),
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

    /// The breaker pass: `MAVEN_REPO=https://alice:SuperSecret123@host/maven2` stood twice in
    /// the error (the registry and Maven's words) and whole in the mvn log; the private
    /// registry was called Maven Central.
    #[test]
    fn a_registry_password_is_never_shown_nor_logged() {
        let c = Coordinate::parse("org.example:lib:1").unwrap();
        let repo = "https://alice:SuperSecret123@host/maven2";
        for text in [
            "[ERROR] Failed to execute goal on project job-deps: Could not find artifact org.example:lib:jar:1 in central-only (https://alice:SuperSecret123@host/maven2) -> [Help 1]\n",
            "[ERROR] Could not transfer artifact a:b:pom:1 from/to central-only (https://alice:SuperSecret123@host/maven2): host: Unknown host host\n",
            "[ERROR] something else at https://alice:SuperSecret123@host/maven2\n",
        ] {
            let m = classify(text, &c, "2.13", "target 4.0.1", repo, "l".into()).to_string();
            assert!(!m.contains("SuperSecret123"), "{m}");
            assert!(!m.contains("Maven Central"), "{m}");
        }
        let m = classify(
            "[ERROR] Could not find artifact org.example:lib:jar:1 in central-only\n",
            &c,
            "2.13",
            "target 4.0.1",
            repo,
            "l".into(),
        )
        .to_string();
        assert!(
            m.contains("the Maven registry (MAVEN_REPO=https://alice:***@host/maven2)"),
            "{m}"
        );
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("mvn.log");
        super::super::write_log(&log, format!("Downloading from {repo}/x.pom\n").as_bytes());
        let logged = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            logged,
            "Downloading from https://alice:***@host/maven2/x.pom\n"
        );
    }

    #[test]
    fn maven_failures_are_told_apart() {
        let c = Coordinate::parse("org.apache.spark:spark-avro_2.13:4.2.1").unwrap();
        let missing = "[ERROR] Failed to execute goal on project job-deps: Could not resolve dependencies for project rehearse:job-deps:pom:1: Could not find artifact org.apache.spark:spark-avro_2.13:jar:4.2.1 in central-only (https://repo.maven.apache.org/maven2) -> [Help 1]\n";
        let e = classify(missing, &c, "2.13", "target 4.2.1", "R", "l.log".into());
        assert_eq!(e.error_kind(), ErrorKind::BadInput);
        let m = e.to_string();
        assert!(
            m.contains("org.apache.spark:spark-avro_2.13:4.2.1")
                && m.contains("target 4.2.1")
                && m.contains("Scala 2.13"),
            "{m}"
        );
        let offline = "[ERROR] Failed to execute goal on project job-deps: Could not resolve dependencies: Could not transfer artifact a:b:pom:1 from/to central-only: repo.maven.apache.org: Unknown host repo.maven.apache.org\n";
        let e = classify(offline, &c, "2.13", "target 4.2.1", "R", "l.log".into());
        assert_eq!(e.error_kind(), ErrorKind::Environment);
        assert!(e.to_string().contains("unreachable"), "{e}");
        let other = classify(
            "[ERROR] Checksum validation failed\n",
            &c,
            "2.13",
            "t",
            "R",
            "l".into(),
        );
        assert_eq!(other.error_kind(), ErrorKind::Environment);
    }
}
