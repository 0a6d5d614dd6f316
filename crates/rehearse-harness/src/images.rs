//! Local container images: `rehearse/spark:<version>` and `rehearse/kafka:<version>`, built from
//! package registries (the recipes under `docker/`) or from the official Docker Hub images.
//!
//! The recipe scripts are compiled into the binary and written to a temporary directory when a
//! build runs, so `rehearse images build` works outside the repository. They need root, a Docker
//! engine, `debootstrap`, `mvn` and `python3 -m pip` on the host; see `docker/README.md`.
//!
//! Caching: every image carries the label `org.rehearse.recipe` with a hash of the recipe files
//! and parameters that built it ([`recipe_hash`]). An image whose label equals the current hash is
//! not rebuilt; one that is missing, or was built from another recipe (another rehearse version,
//! another `--from`, or the scripts run by hand), is built again. Spark images depend on their
//! base image's hash, so a change of the base rebuilds them too.
//!
//! This module never prints: progress goes to a caller-supplied callback, one line per step.
//! It does not start containers (that is `runtime`), and it does not pull: with `--from packages`
//! no container registry is contacted at all.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rehearse_base::versions::{Debian, KafkaVersion, SparkVersion, MIN_KAFKA_MAJOR};

pub use rehearse_base::versions::DEFAULT_KAFKA_VERSION;

/// Image label holding the recipe hash an image was built from.
pub const RECIPE_LABEL: &str = "org.rehearse.recipe";

mod value;

pub use value::{KafkaImage, SparkImage};

/// `rehearse/spark:<version>`, the tag `images build` and `docker images` show.
pub fn spark_image(version: &str) -> String {
    SparkImage::rehearse(version).to_string()
}

/// `rehearse/kafka:<version>`, the tag `images build` and `docker images` show.
pub fn kafka_image(version: &str) -> String {
    KafkaImage::rehearse(version).to_string()
}

/// Where `images build` takes an image's parts from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ImageSourceKind {
    /// Debian (debootstrap), PyPI (pyspark) and Maven Central (connector, broker): no container
    /// registry needed.
    #[default]
    Packages,
    /// `FROM` the official `apache/spark` and `apache/kafka` images (needs Docker Hub).
    Official,
}

impl ImageSourceKind {
    /// The word the recipe scripts take: `packages` or `official`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageSourceKind::Packages => "packages",
            ImageSourceKind::Official => "official",
        }
    }
}

/// The most digits a version part may have in an image tag or a recipe argument: no Spark or
/// Kafka release has more, and a longer part is refused before a download.
const MAX_PART_DIGITS: usize = 6;

fn invalid_version(version: &str) -> ImageError {
    ImageError::InvalidVersion {
        version: version.to_owned(),
    }
}

/// A version the recipe scripts take (`docker/local-install.sh` as well as the image recipes):
/// the rule of [`SparkVersion`] (`3.5.3`, `4.0.0-preview2`, the same for Kafka) with parts of
/// at most six digits. Returns the text as given.
pub fn recipe_version(text: &str) -> Result<&str, ImageError> {
    match SparkVersion::parse(text) {
        Ok(v) if v.longest_part() <= MAX_PART_DIGITS => Ok(text),
        _ => Err(invalid_version(text)),
    }
}

/// A Spark version the image recipes build: a [`recipe_version`] whose line is in the
/// compatibility table (Spark 3.0 and later).
pub fn spark_version(text: &str) -> Result<SparkVersion, ImageError> {
    recipe_version(text)?;
    match SparkVersion::parse(text) {
        Ok(v) if v.spark_line().is_some() => Ok(v),
        _ => Err(invalid_version(text)),
    }
}

/// A Kafka version the image recipes build: a [`recipe_version`] of major
/// [`MIN_KAFKA_MAJOR`] or later.
pub fn kafka_version(text: &str) -> Result<KafkaVersion, ImageError> {
    recipe_version(text)?;
    match KafkaVersion::parse(text) {
        Ok(v) if v.major().is_some_and(|m| m >= MIN_KAFKA_MAJOR) => Ok(v),
        _ => Err(invalid_version(text)),
    }
}

/// The Scala binary version of a Spark release's default build, the suffix of its connector
/// artifacts (the `scala` column of `crates/rehearse-base/src/versions/spark-lines.toml`: `2.12` for Spark 3.x,
/// `2.13` for 4.x and later; `2.12` before the table, which images refuse).
pub fn scala_suffix(spark: &SparkVersion) -> &'static str {
    spark.spark_line().map_or("2.12", |line| line.scala)
}

/// A base image: a Debian root filesystem with a JRE and Python, built by debootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseImage {
    /// Debian 12, OpenJDK 17, Python 3.11: Spark 3.4 and later, and the Kafka broker.
    BookwormJre17,
    /// Debian 11, OpenJDK 11, Python 3.9: Spark 3.0–3.3 (Spark ≤ 3.2 fails on Java 17;
    /// PySpark ≤ 3.3 cannot pickle lambdas on Python 3.11).
    BullseyeJre11,
}

impl BaseImage {
    /// The local tag, e.g. `rehearse/base:bookworm-jre17`.
    pub fn tag(self) -> &'static str {
        match self {
            BaseImage::BookwormJre17 => "rehearse/base:bookworm-jre17",
            BaseImage::BullseyeJre11 => "rehearse/base:bullseye-jre11",
        }
    }

    /// The Debian suite, the argument of `docker/base.sh`.
    pub fn suite(self) -> &'static str {
        match self {
            BaseImage::BookwormJre17 => "bookworm",
            BaseImage::BullseyeJre11 => "bullseye",
        }
    }
}

/// The base image a Spark version runs on (with `--from packages`): the `base` column of
/// `crates/rehearse-base/src/versions/spark-lines.toml` (bullseye for Spark 3.0 – 3.3, bookworm for 3.4 and on).
/// Before the table (Spark 2.x, which images refuse) bookworm.
pub fn base_for_spark(spark: &SparkVersion) -> BaseImage {
    match spark.spark_line().map(|line| line.base) {
        Some(Debian::Bullseye) => BaseImage::BullseyeJre11,
        Some(Debian::Bookworm) | None => BaseImage::BookwormJre17,
    }
}

/// What an image is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// `rehearse/spark:<version>`.
    Spark,
    /// `rehearse/kafka:<version>`.
    Kafka,
}

impl ImageKind {
    /// `spark` or `kafka`: the first recipe-hash parameter.
    fn as_str(self) -> &'static str {
        match self {
            ImageKind::Spark => "spark",
            ImageKind::Kafka => "kafka",
        }
    }
}

/// The recipe files, embedded: (file name in `docker/`, contents).
const COMMON: (&str, &str) = ("common.sh", include_str!("../../../docker/common.sh"));
const BASE: (&str, &str) = ("base.sh", include_str!("../../../docker/base.sh"));
const SPARK_DIST: (&str, &str) = (
    "spark-dist.sh",
    include_str!("../../../docker/spark-dist.sh"),
);
const KAFKA_DIST: (&str, &str) = (
    "kafka-dist.sh",
    include_str!("../../../docker/kafka-dist.sh"),
);
const KAFKA_START: (&str, &str) = (
    "kafka-start.sh",
    include_str!("../../../docker/kafka-start.sh"),
);
const KAFKA_LOGGING: [(&str, &str); 4] = [
    (
        "kafka-log4j.properties",
        include_str!("../../../docker/kafka-log4j.properties"),
    ),
    (
        "kafka-tools-log4j.properties",
        include_str!("../../../docker/kafka-tools-log4j.properties"),
    ),
    (
        "kafka-log4j2.properties",
        include_str!("../../../docker/kafka-log4j2.properties"),
    ),
    (
        "kafka-tools-log4j2.properties",
        include_str!("../../../docker/kafka-tools-log4j2.properties"),
    ),
];
const SPARK_FILES: &[(&str, &str)] = &[
    COMMON,
    BASE,
    SPARK_DIST,
    ("spark.sh", include_str!("../../../docker/spark.sh")),
    (
        "spark-entrypoint.sh",
        include_str!("../../../docker/spark-entrypoint.sh"),
    ),
];
const KAFKA_FILES: &[(&str, &str)] = &[
    COMMON,
    BASE,
    KAFKA_DIST,
    ("kafka.sh", include_str!("../../../docker/kafka.sh")),
    KAFKA_START,
    (
        "kafka-run-class.sh",
        include_str!("../../../docker/kafka-run-class.sh"),
    ),
    KAFKA_LOGGING[0],
    KAFKA_LOGGING[1],
    KAFKA_LOGGING[2],
    KAFKA_LOGGING[3],
];
/// What `docker/local-install.sh` needs: the same download and resolve functions as the images.
const LOCAL_FILES: &[(&str, &str)] = &[
    COMMON,
    SPARK_DIST,
    KAFKA_DIST,
    (
        "local-install.sh",
        include_str!("../../../docker/local-install.sh"),
    ),
    KAFKA_START,
    KAFKA_LOGGING[0],
    KAFKA_LOGGING[1],
    KAFKA_LOGGING[2],
    KAFKA_LOGGING[3],
];

/// Installs Spark (`part` = `spark`) or the Kafka broker (`kafka`) of `version` on this host
/// (a version checked by [`recipe_version`])
/// into `dest` (which must not exist) with `docker/local-install.sh`, for the local runtime:
/// the images' own download and resolve functions, no root, no Docker. Progress lines go to
/// `progress`; failures map to the same variants as image builds (not published, registry
/// unreachable, tool missing…), each with a hint.
pub fn run_local_install(
    part: &str,
    version: &str,
    dest: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), ImageError> {
    let dir = tempfile::Builder::new()
        .prefix("rehearse-recipes-")
        .tempdir()
        .map_err(|e| io_error("create a temporary directory for the recipes", e))?;
    write_recipes(dir.path(), LOCAL_FILES)?;
    let what = format!("local {part} {version}");
    let log = build_log_path(&what.replace(' ', "-"));
    run_recipe(
        &dir.path().join("local-install.sh"),
        &[part, version, &dest.to_string_lossy()],
        &[],
        &what,
        version,
        &log,
        progress,
    )
}

fn hash_of(files: &[(&str, &str)], params: &[&str]) -> String {
    let mut h = blake3::Hasher::new();
    for (name, text) in files {
        h.update(name.as_bytes());
        h.update(b"\n");
        h.update(text.as_bytes());
    }
    for p in params {
        h.update(b"\0");
        h.update(p.as_bytes());
    }
    let hex = h.finalize().to_hex();
    format!("b3-{}", &hex.as_str()[..32])
}

/// The recipe hash of a base image: a function of `docker/base.sh` and the suite only.
pub fn base_hash(base: BaseImage) -> String {
    hash_of(&[BASE], &["base", base.suite()])
}

/// The recipe hash an image built now would carry in its `org.rehearse.recipe` label: a
/// function of the embedded recipe files, the kind, the version, the source and (for packages)
/// the base image's hash. Stable across runs and machines; changes when any recipe file does.
pub fn recipe_hash(kind: ImageKind, version: &str, source: ImageSourceKind) -> String {
    let base = base_hash(base_of(kind, version));
    let files = match kind {
        ImageKind::Spark => SPARK_FILES,
        ImageKind::Kafka => KAFKA_FILES,
    };
    hash_of(files, &[kind.as_str(), version, source.as_str(), &base])
}

/// The base image of `kind` at `version`: the Spark line's, or bookworm for the broker.
fn base_of(kind: ImageKind, version: &str) -> BaseImage {
    match (kind, SparkVersion::parse(version)) {
        (ImageKind::Spark, Ok(v)) => base_for_spark(&v),
        _ => BaseImage::BookwormJre17,
    }
}

/// Why an image could not be checked or built. Each message names what failed and ends with a
/// "(hint: …)" line on what to do.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The version string is not `MAJOR.MINOR.PATCH[-suffix]`, or is older than supported.
    #[error("invalid version '{version}'\n(hint: give a release such as 3.5.3 or 4.0.1; Spark 3.0 and later, Kafka 3.0 and later)")]
    InvalidVersion {
        /// What was given.
        version: String,
    },
    /// `docker` is missing or no Docker engine answers.
    #[error("no Docker engine answers: {detail}\n(hint: run scripts/setup-docker.sh as root, or start dockerd: nohup /usr/sbin/dockerd >/tmp/dockerd.log 2>&1 &)")]
    NoDocker {
        /// What `docker` said.
        detail: String,
    },
    /// The recipes need root (debootstrap, chroot).
    #[error("building images needs root: {detail}\n(hint: run `rehearse images build` as root, or build once as root and run trials as any user)")]
    NotRoot {
        /// What the recipe said.
        detail: String,
    },
    /// A host tool the recipes need is missing (debootstrap, mvn, python3/pip).
    #[error("a build tool is missing: {detail}\n(hint: apt-get install debootstrap maven python3-pip, or run scripts/setup-docker.sh)")]
    ToolMissing {
        /// Which tool.
        detail: String,
    },
    /// `pip download pyspark==<version>` found no such release.
    #[error("Spark {version} is not published on PyPI: {detail}\n(hint: check the version; `pip download --no-deps pyspark==VERSION` shows the error, `pip index versions pyspark` the releases)")]
    NotPublished {
        /// The Spark version asked for.
        version: String,
        /// What the recipe said.
        detail: String,
    },
    /// A Maven artifact (connector, kafka-clients, broker jar) is not on the Maven registry the
    /// recipe reads (`MAVEN_REPO`, default Maven Central); the detail names the registry.
    #[error("a Maven artifact is missing: {detail}\n(hint: check that this version exists on Maven Central (search.maven.org), or set MAVEN_REPO to a registry that has it; a mvn log, if one is named above, has the full resolution)")]
    MavenArtifactMissing {
        /// What the recipe said (artifact and log path).
        detail: String,
    },
    /// A package registry or the Debian mirror (or Docker Hub, with `--from official`) did not
    /// answer.
    #[error("a registry is unreachable: {detail}\n(hint: check the network and proxy settings (PyPI, Maven Central or $MAVEN_REPO); for images without Docker Hub use --from packages)")]
    RegistryUnreachable {
        /// What the recipe said.
        detail: String,
    },
    /// The build failed for another reason; the tail of its output and the log path.
    #[error("building {tag} failed: {detail}\n{tail}\n(hint: the full log is {log}; rerun with the same command once the cause is fixed, finished steps are cached)")]
    BuildFailed {
        /// The tag being built.
        tag: String,
        /// The recipe's own message, if it gave one.
        detail: String,
        /// The last lines of the build output.
        tail: String,
        /// Where the whole output is.
        log: PathBuf,
    },
    /// Running `docker` or the recipe, or writing the recipe files, failed at the OS level.
    #[error("could not {action}")]
    Io {
        /// What was being done.
        action: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// An image error is the environment's (`rehearse images build` calls an invalid version a
/// usage error itself).
impl rehearse_base::HasErrorKind for ImageError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        rehearse_base::ErrorKind::Environment
    }
}

fn docker() -> Command {
    Command::new("docker")
}

fn check_engine() -> Result<(), ImageError> {
    let out = docker()
        .args(["version", "--format", "{{.Server.Version}}"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| ImageError::NoDocker {
            detail: format!("cannot run docker: {e}"),
        })?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(ImageError::NoDocker {
            detail: err
                .lines()
                .last()
                .unwrap_or("docker version failed")
                .to_owned(),
        })
    }
}

/// The `org.rehearse.recipe` label of a local image: `Ok(None)` if the image is missing,
/// `Ok(Some(""))` if it exists without the label.
pub fn image_recipe_label(tag: &str) -> Result<Option<String>, ImageError> {
    let format = format!("{{{{ index .Config.Labels \"{RECIPE_LABEL}\" }}}}");
    let out = docker()
        .args(["image", "inspect", "--format", &format, tag])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| ImageError::NoDocker {
            detail: format!("cannot run docker: {e}"),
        })?;
    if out.status.success() {
        let label = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        // a missing label renders as "<no value>" with older clients
        Ok(Some(if label == "<no value>" {
            String::new()
        } else {
            label
        }))
    } else {
        // tell "no such image" from "no engine"
        check_engine()?;
        Ok(None)
    }
}

/// Whether `tag` is in the local image store. Errors only when no Docker engine answers.
pub fn image_exists(tag: &str) -> Result<bool, ImageError> {
    Ok(image_recipe_label(tag)?.is_some())
}

/// Builds `rehearse/spark:<version>` unless an image built from the current recipe is already
/// there, in which case it returns at once. Progress lines go to `progress`.
pub fn ensure_spark(
    version: &str,
    source: ImageSourceKind,
    progress: &mut dyn FnMut(&str),
) -> Result<(), ImageError> {
    let v = spark_version(version)?;
    ensure(ImageKind::Spark, v.as_str(), source, progress)
}

/// Builds `rehearse/kafka:<version>` unless an image built from the current recipe is already
/// there, in which case it returns at once. Progress lines go to `progress`.
pub fn ensure_kafka(
    version: &str,
    source: ImageSourceKind,
    progress: &mut dyn FnMut(&str),
) -> Result<(), ImageError> {
    let v = kafka_version(version)?;
    ensure(ImageKind::Kafka, v.as_str(), source, progress)
}

fn ensure(
    kind: ImageKind,
    version: &str,
    source: ImageSourceKind,
    progress: &mut dyn FnMut(&str),
) -> Result<(), ImageError> {
    let (tag, files, script) = match kind {
        ImageKind::Spark => (spark_image(version), SPARK_FILES, "spark.sh"),
        ImageKind::Kafka => (kafka_image(version), KAFKA_FILES, "kafka.sh"),
    };
    let hash = recipe_hash(kind, version, source);
    match image_recipe_label(&tag)? {
        Some(label) if label == hash => return Ok(()),
        Some(_) => progress(&format!(
            "{tag} exists but was built from another recipe: rebuilding"
        )),
        None => progress(&format!("{tag} is missing: building ({})", source.as_str())),
    }
    let base = base_of(kind, version);
    let dir = tempfile::Builder::new()
        .prefix("rehearse-recipes-")
        .tempdir()
        .map_err(|e| io_error("create a temporary directory for the recipes", e))?;
    write_recipes(dir.path(), files)?;
    let log = build_log_path(&tag);
    run_recipe(
        &dir.path().join(script),
        &[version, source.as_str()],
        &[
            ("REHEARSE_RECIPE_HASH", hash.as_str()),
            ("REHEARSE_BASE_HASH", base_hash(base).as_str()),
        ],
        &tag,
        version,
        &log,
        progress,
    )?;
    match image_recipe_label(&tag)? {
        Some(label) if label == hash => Ok(()),
        _ => Err(ImageError::BuildFailed {
            tag,
            detail: "the recipe finished but the image is missing or carries another label".into(),
            tail: String::new(),
            log,
        }),
    }
}

fn io_error(action: &str, source: std::io::Error) -> ImageError {
    ImageError::Io {
        action: action.to_owned(),
        source,
    }
}

fn write_recipes(dir: &Path, files: &[(&str, &str)]) -> Result<(), ImageError> {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| io_error(&format!("write {}", path.display()), e))?;
    }
    Ok(())
}

/// Where the whole output of one build goes: [`rehearse_base::cache::build_logs`]
/// (`$REHEARSE_CACHE/logs`, default `~/.cache/rehearse/logs`, beside the recipes' downloads).
fn build_log_path(tag: &str) -> PathBuf {
    let logs = rehearse_base::cache::build_logs();
    let _ = std::fs::create_dir_all(&logs);
    logs.join(format!("images-{}.log", tag.replace(['/', ':'], "_")))
}

/// A line the recipes print to say why they stopped: `REHEARSE-ERROR <kind>: <message>`.
fn parse_recipe_error(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("REHEARSE-ERROR ")?;
    let (kind, message) = rest.split_once(": ")?;
    Some((kind, message))
}

fn classify_failure(
    kind: &str,
    message: &str,
    tag: &str,
    version: &str,
    tail: String,
    log: &Path,
) -> ImageError {
    let detail = message.to_owned();
    match kind {
        "no-docker" => ImageError::NoDocker { detail },
        "not-root" => ImageError::NotRoot { detail },
        "tools-missing" => ImageError::ToolMissing { detail },
        "not-published" => ImageError::NotPublished {
            version: version.to_owned(),
            detail,
        },
        "maven-missing" => ImageError::MavenArtifactMissing { detail },
        "registry-unreachable" => ImageError::RegistryUnreachable { detail },
        "bad-version" => ImageError::InvalidVersion {
            version: version.to_owned(),
        },
        _ => ImageError::BuildFailed {
            tag: tag.to_owned(),
            detail,
            tail,
            log: log.to_owned(),
        },
    }
}

const TAIL_LINES: usize = 30;
const PROGRESS_PREFIX: &str = "rehearse-images: ";

fn run_recipe(
    script: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    tag: &str,
    version: &str,
    log: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), ImageError> {
    use std::io::Write as _;
    let mut log_file = std::fs::File::create(log)
        .map_err(|e| io_error(&format!("create {}", log.display()), e))?;
    let mut child = Command::new("bash")
        .arg(script)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| io_error("run bash (the image recipes are bash scripts)", e))?;
    let mut tail: VecDeque<String> = VecDeque::with_capacity(TAIL_LINES);
    let mut failure: Option<(String, String)> = None;
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = writeln!(log_file, "{line}");
            if let Some(p) = line.strip_prefix(PROGRESS_PREFIX) {
                progress(p);
            } else if let Some((k, m)) = parse_recipe_error(&line) {
                failure = Some((k.to_owned(), m.to_owned()));
            } else {
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| io_error("wait for the image recipe", e))?;
    if status.success() {
        return Ok(());
    }
    let tail = tail.into_iter().collect::<Vec<_>>().join("\n");
    let (kind, message) = failure.unwrap_or_else(|| {
        (
            "build-failed".into(),
            format!("the recipe exited with {status}"),
        )
    });
    Err(classify_failure(&kind, &message, tag, version, tail, log))
}

/// One local rehearse image, as `rehearse images list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    /// `repository:tag`, e.g. `rehearse/spark:3.5.3`.
    pub tag: String,
    /// Size as Docker reports it (`678MB`).
    pub size: String,
    /// When it was built, as Docker says it (`2 hours ago`).
    pub created: String,
    /// `packages` or `official` (empty for base images and images built by other means).
    pub source: String,
    /// Artifacts replaced by another version because the registry lacked them (empty if none).
    pub substituted: String,
}

/// The local `rehearse/*` images, sorted by tag.
pub fn list_images() -> Result<Vec<ImageInfo>, ImageError> {
    check_engine()?;
    let out = docker()
        .args([
            "images",
            "--filter",
            "reference=rehearse/*",
            "--format",
            "{{.Repository}}:{{.Tag}}\t{{.Size}}\t{{.CreatedSince}}",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| io_error("run docker images", e))?;
    if !out.status.success() {
        return Err(ImageError::NoDocker {
            detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    let mut images = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut cols = line.split('\t');
        let (Some(tag), Some(size), Some(created)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        if tag.ends_with(":<none>") {
            continue;
        }
        let labels = docker()
            .args([
                "image",
                "inspect",
                "--format",
                "{{ index .Config.Labels \"org.rehearse.source\" }}\t{{ index .Config.Labels \"org.rehearse.substituted\" }}",
                tag,
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| io_error("run docker image inspect", e))?;
        let labels = String::from_utf8_lossy(&labels.stdout).trim().to_owned();
        let mut l = labels.split('\t');
        let clean = |s: Option<&str>| {
            let s = s.unwrap_or("").trim();
            if s == "<no value>" { "" } else { s }.to_owned()
        };
        images.push(ImageInfo {
            tag: tag.to_owned(),
            size: size.to_owned(),
            created: created.to_owned(),
            source: clean(l.next()),
            substituted: clean(l.next()),
        });
    }
    images.sort_by(|a, b| a.tag.cmp(&b.tag));
    Ok(images)
}

#[cfg(test)]
mod tests;
