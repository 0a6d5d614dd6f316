//! Version facts: one type for a Spark release version ([`SparkVersion`]), one for a Kafka
//! broker version ([`KafkaVersion`]), and one compatibility table per Spark line
//! ([`SparkLine`]: Java, Python, Scala, log4j, base image, first and last known release), read
//! from the embedded `crates/rehearse-base/src/versions/spark-lines.toml`, where each row cites its source.
//!
//! Used by images (base image, Scala suffix, which versions get an image), the local runtime
//! (host Java and Python), scenario and suite checks, and `spark` (log4j, structured logging).
//! A leaf: imports nothing from the crate.
//!
//! # The version rule
//!
//! A version is `MAJOR.MINOR.PATCH` of ASCII digits, optionally followed by `-SUFFIX` of
//! letters, digits and dots (`4.0.0-preview2`, `3.5.0-rc1`): the rule `docker/common.sh`
//! applies before a version reaches a shell, a registry or a tag. Anything else (`3.5`,
//! `3.5;rm`, ` 3.5.3`, `v3.5.3`) is refused. Parts may be of any length and compare
//! numerically (`3.10.0` > `3.9.1`, `3.05.0` = `3.5.0`, a part too long for an integer still
//! compares right); the text is kept as given, so [`Display`](fmt::Display) and serde give
//! back exactly what was parsed. A release sorts after its pre-releases (`4.0.0-preview2` <
//! `4.0.0`), suffixes compare with their digit runs as numbers (`preview2` < `preview10`).
//!
//! Scenario and suite files (targets, sources, `min_spark`, `checkpoint.generate.spark`,
//! `kafka_version`) and `--target` take releases only ([`SparkVersion::release`]), as they
//! always did: a pre-release type-checks, but no scenario names one yet.

use std::cmp::Ordering;
use std::fmt;
use std::sync::OnceLock;

/// Kafka broker version of the sandbox when a scenario names none: Kafka 3.9 serves every
/// kafka-clients from Spark 3.0's 2.4 on (Kafka's protocol compatibility: a broker answers
/// every older client).
pub const DEFAULT_KAFKA_VERSION: &str = "3.9.1";

/// The oldest Kafka major version the images and the local runtime install.
pub const MIN_KAFKA_MAJOR: u32 = 3;

/// Why a version text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a version like 3.5.3 or 4.0.0-preview2")]
pub struct VersionError {
    /// What was given.
    pub text: String,
}

/// One part of a version: its digits without leading zeros, ordered by length then digits,
/// which is numeric order for any length.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Number(String);

impl Number {
    fn new(digits: &str) -> Number {
        Number(digits.trim_start_matches('0').to_owned())
    }

    fn as_u32(&self) -> Option<u32> {
        if self.0.is_empty() {
            Some(0)
        } else {
            self.0.parse().ok()
        }
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        (self.0.len(), &self.0).cmp(&(other.0.len(), &other.0))
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A piece of a pre-release suffix: a digit run compares as a number, text as text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Piece {
    Num(Number),
    Text(String),
}

fn pieces(suffix: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = suffix;
    while let Some(c) = rest.chars().next() {
        let digit = c.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digit)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        out.push(if digit {
            Piece::Num(Number::new(run))
        } else {
            Piece::Text(run.to_owned())
        });
        rest = tail;
    }
    out
}

/// A parsed version, the grammar both version types share (see the module doc).
#[derive(Debug, Clone)]
struct Release {
    text: String,
    parts: [Number; 3],
    pre: Option<Vec<Piece>>,
}

impl Release {
    fn parse(text: &str) -> Result<Release, VersionError> {
        let invalid = || VersionError {
            text: text.to_owned(),
        };
        let (core, suffix) = match text.split_once('-') {
            Some((core, suffix)) => (core, Some(suffix)),
            None => (text, None),
        };
        if let Some(s) = suffix {
            if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
                return Err(invalid());
            }
        }
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() != 3
            || !parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        {
            return Err(invalid());
        }
        Ok(Release {
            text: text.to_owned(),
            parts: [
                Number::new(parts[0]),
                Number::new(parts[1]),
                Number::new(parts[2]),
            ],
            pre: suffix.map(pieces),
        })
    }

    /// `(parts, is a release, pre-release pieces)`: a release sorts after its pre-releases.
    fn key(&self) -> (&[Number; 3], bool, Option<&Vec<Piece>>) {
        (&self.parts, self.pre.is_none(), self.pre.as_ref())
    }

    fn suffix(&self) -> Option<&str> {
        self.text.split_once('-').map(|(_, s)| s)
    }

    fn longest_part(&self) -> usize {
        self.text
            .split_once('-')
            .map_or(self.text.as_str(), |(core, _)| core)
            .split('.')
            .map(str::len)
            .max()
            .unwrap_or(0)
    }
}

/// Implements parse, `FromStr`, `Display` (the text as given), order and serde (a plain
/// string) for a version newtype over [`Release`].
macro_rules! version_type {
    ($name:ident) => {
        impl $name {
            /// Parses a version by the rule in the module doc.
            pub fn parse(text: &str) -> Result<$name, VersionError> {
                Release::parse(text).map($name)
            }

            /// The version text exactly as parsed.
            pub fn as_str(&self) -> &str {
                &self.0.text
            }

            /// The major version, if it fits a `u32`.
            pub fn major(&self) -> Option<u32> {
                self.0.parts[0].as_u32()
            }

            /// `(major, minor)`, if both fit a `u32`: the line a version belongs to.
            pub fn line(&self) -> Option<(u32, u32)> {
                Some((self.0.parts[0].as_u32()?, self.0.parts[1].as_u32()?))
            }

            /// The pre-release suffix without its dash (`preview2`), if any.
            pub fn suffix(&self) -> Option<&str> {
                self.0.suffix()
            }

            /// Whether this is a release (no pre-release suffix).
            pub fn is_release(&self) -> bool {
                self.0.pre.is_none()
            }

            /// The number of digits of the longest of the three parts.
            pub fn longest_part(&self) -> usize {
                self.0.longest_part()
            }
        }

        impl std::str::FromStr for $name {
            type Err = VersionError;
            fn from_str(s: &str) -> Result<$name, VersionError> {
                $name::parse(s)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0.text)
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.0.key() == other.0.key()
            }
        }

        impl Eq for $name {}

        impl std::hash::Hash for $name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.0.key().hash(state)
            }
        }

        impl Ord for $name {
            fn cmp(&self, other: &$name) -> Ordering {
                self.0.key().cmp(&other.0.key())
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let text = String::deserialize(d)?;
                $name::parse(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

/// A Spark version (`3.5.3`, `4.0.0-preview2`). Equal and ordered numerically; shown and
/// serialized as the text it was parsed from.
#[derive(Debug, Clone)]
pub struct SparkVersion(Release);

version_type!(SparkVersion);

impl SparkVersion {
    /// A Spark release as scenario and suite files and `--target` take it: a version without a
    /// pre-release suffix. `Err` is the message those checks print (`"3.5" is not a Spark
    /// version like 3.5.3`).
    pub fn release(text: &str) -> Result<SparkVersion, String> {
        match SparkVersion::parse(text) {
            Ok(v) if v.is_release() => Ok(v),
            _ => Err(match line_named(text) {
                // `targets = ["4.0"]`: the user named a line; say which releases it has.
                Some(row) => format!(
                    "{text:?} is a Spark line, not a release: name one of its releases, {} to {} (e.g. {})",
                    row.first, row.last, row.last
                ),
                None => format!("{text:?} is not a Spark version like 3.5.3"),
            }),
        }
    }

    /// A Spark release rehearse can rehearse on or generate with, as targets, sources,
    /// `checkpoint.generate.spark` and `--target` take it: a [`release`](Self::release) written
    /// plainly (`3.5.3`, not `03.5.3`: the text becomes an image tag and a PyPI version) of a
    /// line in `spark-lines.toml`, between that line's `first` and `last` releases. So `2.4.8`
    /// (before the table), `4.9.9` and `9.9.9` (lines the table does not know) and `3.1.0`
    /// (never published) are refused here, before an image build or a download would fail on
    /// them. `Err` is the message, with the fix.
    pub fn known_release(text: &str) -> Result<SparkVersion, String> {
        let v = SparkVersion::release(text)?;
        if let Some(plain) = without_leading_zeros(text) {
            return Err(format!(
                "{text:?} is not written as Spark writes its versions (no leading zeros): write it {plain}"
            ));
        }
        let lines = SparkLine::all();
        let (first, last) = (&lines[0], &lines[lines.len() - 1]);
        let known = format!(
            "rehearse knows Spark {} to {} (crates/rehearse-base/src/versions/spark-lines.toml)",
            first.first, last.last
        );
        let Some(row) = v.line().and_then(|l| lines.iter().find(|r| r.line == l)) else {
            if v < first.first {
                return Err(format!(
                    "Spark {text} is not supported: {known}, and Structured Streaming checkpoints of Spark 2.x differ (offset log v1, no state schema); rehearse a 3.x or 4.x target"
                ));
            }
            return Err(format!(
                "Spark {text} is not a release rehearse knows: {known}; check the version (`pip index versions pyspark` lists them), or if it was released after this rehearse, add its line to crates/rehearse-base/src/versions/spark-lines.toml"
            ));
        };
        if v < row.first || v > row.last {
            return Err(format!(
                "Spark {text} is not a release rehearse knows: the {}.{} line runs {} to {} ({known}); check the version, or if it was released after this rehearse, raise `last` of that line in crates/rehearse-base/src/versions/spark-lines.toml",
                row.line.0, row.line.1, row.first, row.last
            ));
        }
        Ok(v)
    }

    /// The compatibility row of this version's line; see [`SparkLine::of`].
    pub fn spark_line(&self) -> Option<&'static SparkLine> {
        SparkLine::of(self)
    }

    /// The release `major.minor.patch`, written so (`4.0.0`).
    pub fn from_parts(major: u32, minor: u32, patch: u32) -> SparkVersion {
        SparkVersion::parse(&format!("{major}.{minor}.{patch}"))
            .expect("three numbers are a version")
    }

    /// `(major, minor, patch)`, if each fits a `u32`.
    pub fn parts(&self) -> Option<(u32, u32, u32)> {
        let [a, b, c] = &self.0.parts;
        Some((a.as_u32()?, b.as_u32()?, c.as_u32()?))
    }

    /// The release this is, or is a pre-release of: `4.0.0` for `4.0.0-rc1` (the parts as
    /// written, the suffix dropped).
    pub fn to_release(&self) -> SparkVersion {
        match self.0.text.split_once('-') {
            Some((core, _)) => SparkVersion::parse(core).expect("the core of a version parses"),
            None => self.clone(),
        }
    }

    /// `X.Y.Z-preview`, the name the checkpoint model gives "some preview, RC or development
    /// build of X.Y.Z" (no file in a checkpoint tells those builds apart).
    ///
    /// By the version rule it sorts after every release below X.Y.Z and before X.Y.Z, and it
    /// is *not* equal to a numbered pre-release: a bare word sorts before the same word with a
    /// number, and words compare as ASCII text, so `4.0.0-preview` < `4.0.0-preview1` <
    /// `4.0.0-preview2` < `4.0.0-rc1` < `4.0.0`, while `4.0.0-RC1` and `4.0.0-SNAPSHOT`
    /// (uppercase) sort before it. It names the set, not its lowest member: code that means
    /// "any pre-release" (checkpoint's version markers) maps every pre-release to this form
    /// before comparing, so it only ever compares it with releases and with itself.
    pub fn any_pre_release(&self) -> SparkVersion {
        let core = self.to_release();
        SparkVersion::parse(&format!("{core}-preview")).expect("a release with a suffix parses")
    }
}

/// A Spark line written `MAJOR.MINOR` (`3.5`, as `spark-lines.toml` and checkpoint's version
/// markers write "any 3.5.x"): two parts of ASCII digits, each fitting a `u32`. A version is
/// not a line (`3.5.0` is refused), so the two never mix.
pub fn parse_line(text: &str) -> Result<(u32, u32), VersionError> {
    let invalid = || VersionError {
        text: text.to_owned(),
    };
    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    let (a, b) = text.split_once('.').ok_or_else(invalid)?;
    if !digits(a) || !digits(b) {
        return Err(invalid());
    }
    Ok((
        a.parse().map_err(|_| invalid())?,
        b.parse().map_err(|_| invalid())?,
    ))
}

/// A release's text with leading zeros dropped from its parts (`3.5.3` for `03.5.3`), when it
/// has any: such text parses, but is no image tag, PyPI or Maven version.
fn without_leading_zeros(text: &str) -> Option<String> {
    if !text.split('.').any(|p| p.len() > 1 && p.starts_with('0')) {
        return None;
    }
    let plain: Vec<&str> = text
        .split('.')
        .map(|p| match p.trim_start_matches('0') {
            "" => "0",
            p => p,
        })
        .collect();
    Some(plain.join("."))
}

/// A Kafka broker version (`3.9.1`), by the same rule as [`SparkVersion`].
#[derive(Debug, Clone)]
pub struct KafkaVersion(Release);

version_type!(KafkaVersion);

impl KafkaVersion {
    /// A Kafka release as `kafka_version` in a scenario takes it: a release written plainly,
    /// of major [`MIN_KAFKA_MAJOR`] or later (the images and the local runtime install no older
    /// broker). `Err` is the message the scenario check prints.
    pub fn release(text: &str) -> Result<KafkaVersion, String> {
        let v = match KafkaVersion::parse(text) {
            Ok(v) if v.is_release() => v,
            _ => {
                return Err(format!(
                    "{text:?} is not a Kafka version like {DEFAULT_KAFKA_VERSION}"
                ))
            }
        };
        if let Some(plain) = without_leading_zeros(text) {
            return Err(format!(
                "{text:?} is not written as Kafka writes its versions (no leading zeros): write it {plain}"
            ));
        }
        if v.major().is_none_or(|m| m < MIN_KAFKA_MAJOR) {
            return Err(format!(
                "Kafka {text} is older than the brokers rehearse runs (Kafka {MIN_KAFKA_MAJOR}.x and later; a {DEFAULT_KAFKA_VERSION} broker serves every Kafka client Spark 3.0+ ships): use {DEFAULT_KAFKA_VERSION}, or leave kafka_version out"
            ));
        }
        Ok(v)
    }
}

/// Which logging framework a Spark line uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFramework {
    /// log4j 1.x: Spark 2.x – 3.2 (`conf/log4j.properties`).
    Log4j1,
    /// log4j 2.x: Spark 3.3+ (`conf/log4j2.properties`, SPARK-37814).
    Log4j2,
}

/// The Debian base of a `--from packages` Spark image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Debian {
    /// Debian 11: OpenJDK 11, Python 3.9.
    Bullseye,
    /// Debian 12: OpenJDK 17, Python 3.11.
    Bookworm,
}

impl Debian {
    /// The `python3` of the release's base image (`major.minor`): Debian 11 ships 3.9, Debian 12
    /// 3.11 (docker/README.md, `base.sh`). Wheels for a job's `requirements` are chosen for it.
    pub fn python(self) -> &'static str {
        match self {
            Debian::Bullseye => "3.9",
            Debian::Bookworm => "3.11",
        }
    }

    /// The release's glibc (`major.minor`): 2.31 in Debian 11, 2.36 in Debian 12 — the newest
    /// `manylinux_2_X` wheel tag its Python can load (PEP 600).
    pub fn glibc(self) -> (u32, u32) {
        match self {
            Debian::Bullseye => (2, 31),
            Debian::Bookworm => (2, 36),
        }
    }
}

/// A Java or Python version as `(major, minor)`; Java's minor is 0 (`17`), old `1.8` is `8`.
pub type ToolVersion = (u32, u32);

/// One row of `spark-lines.toml`: what rehearse knows and decides per Spark line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparkLine {
    /// `(major, minor)`.
    pub line: (u32, u32),
    /// First release of the line.
    pub first: SparkVersion,
    /// Newest release of the line known here.
    pub last: SparkVersion,
    /// Java versions the line's docs support (informational).
    pub java: Vec<u32>,
    /// The local runtime refuses an older host Java.
    pub java_min: Option<u32>,
    /// The local runtime refuses a newer host Java.
    pub java_max: Option<u32>,
    /// The local runtime refuses an older host Python.
    pub python_min: Option<ToolVersion>,
    /// The local runtime refuses a newer host Python.
    pub python_max: Option<ToolVersion>,
    /// Scala binary version of the default build (`2.12`, `2.13`).
    pub scala: &'static str,
    /// log4j 1 or 2.
    pub log4j: LogFramework,
    /// Whether the line has `spark.log.structuredLogging.enabled`.
    pub structured_logging: bool,
    /// Base image of a `--from packages` image.
    pub base: Debian,
    /// Where the row's facts come from.
    pub source: &'static str,
}

/// The table as written in the TOML file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LinesFile {
    line: Vec<LineRow>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LineRow {
    line: String,
    first: SparkVersion,
    last: SparkVersion,
    java: Vec<u32>,
    java_min: Option<u32>,
    java_max: Option<u32>,
    python_min: Option<String>,
    python_max: Option<String>,
    scala: String,
    log4j: u8,
    structured_logging: bool,
    base: String,
    source: String,
}

const SPARK_LINES_TOML: &str = include_str!("versions/spark-lines.toml");

fn two_numbers(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Reads the embedded table. Every mistake in it is a bug, caught by the unit tests.
fn parse_lines(text: &str) -> Result<Vec<SparkLine>, String> {
    let file: LinesFile = toml::from_str(text).map_err(|e| e.to_string())?;
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut out: Vec<SparkLine> = Vec::new();
    for row in file.line {
        let at = |what: &str| format!("spark-lines.toml, line {:?}: {what}", row.line);
        let line = two_numbers(&row.line).ok_or_else(|| at("not MAJOR.MINOR"))?;
        let python = |v: &Option<String>| -> Result<Option<ToolVersion>, String> {
            v.as_deref()
                .map(|t| two_numbers(t).ok_or_else(|| at("python is not MAJOR.MINOR")))
                .transpose()
        };
        let log4j = match row.log4j {
            1 => LogFramework::Log4j1,
            2 => LogFramework::Log4j2,
            _ => return Err(at("log4j is 1 or 2")),
        };
        let base = match row.base.as_str() {
            "bullseye" => Debian::Bullseye,
            "bookworm" => Debian::Bookworm,
            _ => return Err(at("base is bullseye or bookworm")),
        };
        if row.first.line() != Some(line) || row.last.line() != Some(line) || row.last < row.first {
            return Err(at(
                "first and last must be releases of the line, first <= last",
            ));
        }
        if out.last().is_some_and(|prev| prev.line >= line) {
            return Err(at("rows must be oldest first"));
        }
        out.push(SparkLine {
            line,
            python_min: python(&row.python_min)?,
            python_max: python(&row.python_max)?,
            first: row.first,
            last: row.last,
            java: row.java,
            java_min: row.java_min,
            java_max: row.java_max,
            scala: leak(row.scala),
            log4j,
            structured_logging: row.structured_logging,
            base,
            source: leak(row.source),
        });
    }
    if out.is_empty() {
        return Err("spark-lines.toml has no [[line]]".into());
    }
    Ok(out)
}

impl SparkLine {
    /// Every row, oldest line first.
    pub fn all() -> &'static [SparkLine] {
        static LINES: OnceLock<Vec<SparkLine>> = OnceLock::new();
        LINES.get_or_init(|| {
            parse_lines(SPARK_LINES_TOML)
                .expect("crates/rehearse-base/src/versions/spark-lines.toml is valid")
        })
    }

    /// The row of `version`'s line. A version newer than the newest row gets the newest row (a
    /// new line is taken to run like the newest known one); one older than the oldest row
    /// (Spark 2.x) gets `None`. Parts of any length compare numerically, as everywhere.
    pub fn of(version: &SparkVersion) -> Option<&'static SparkLine> {
        let line = (&version.0.parts[0], &version.0.parts[1]);
        SparkLine::all().iter().rev().find(|row| {
            let (major, minor) = row.line;
            (
                &Number::new(&major.to_string()),
                &Number::new(&minor.to_string()),
            ) <= line
        })
    }

    /// The row of line `(major, minor)`, by the same rule as [`SparkLine::of`].
    pub fn of_line(line: (u32, u32)) -> Option<&'static SparkLine> {
        SparkLine::all().iter().rev().find(|row| row.line <= line)
    }

    /// The row of the line a version text belongs to, if it parses (see [`SparkLine::of`]).
    pub fn of_text(version: &str) -> Option<&'static SparkLine> {
        SparkVersion::parse(version)
            .ok()
            .as_ref()
            .and_then(SparkLine::of)
    }

    /// Whether this line's Spark runs on host Java `java` and Python `python` (the local
    /// runtime); `Err` holds the reason and the fix, one sentence each.
    pub fn host_support(
        &self,
        java: ToolVersion,
        python: ToolVersion,
    ) -> Result<(), (String, String)> {
        let (major, minor) = self.line;
        if let Some(max) = self.java_max.filter(|max| java.0 > *max) {
            let supported: Vec<String> = self.java.iter().map(u32::to_string).collect();
            return Err((
                format!(
                    "Spark {major}.{minor} and older need Java {} and fail on Java {}",
                    supported.join(" or "),
                    java.0
                ),
                format!("point JAVA_HOME at a Java {max} installation"),
            ));
        }
        if let Some(min) = self.java_min.filter(|min| java.0 < *min) {
            return Err((
                format!(
                    "Spark {major} needs Java {min} or later, this host runs Java {}",
                    java.0
                ),
                format!("point JAVA_HOME at a Java {min} installation"),
            ));
        }
        if let Some(max) = self.python_max.filter(|max| python > *max) {
            return Err((
                format!(
                    "PySpark {major}.{minor} and older fail every Python lambda on Python {}.{} (cloudpickle)",
                    python.0, python.1
                ),
                format!("point PYSPARK_PYTHON at a Python {}.{} or older", max.0, max.1),
            ));
        }
        if let Some(min) = self.python_min.filter(|min| python < *min) {
            return Err((
                format!(
                    "PySpark {major} needs Python {}.{} or later, this host has {}.{}",
                    min.0, min.1, python.0, python.1
                ),
                format!(
                    "point PYSPARK_PYTHON at a Python {}.{} or later",
                    min.0, min.1
                ),
            ));
        }
        Ok(())
    }
}

/// The row of the Spark line `text` names when it is written `MAJOR.MINOR` (`4.0`), for the
/// hint that a release is needed.
fn line_named(text: &str) -> Option<&'static SparkLine> {
    let (major, minor) = text.trim().split_once('.')?;
    let line = (major.parse().ok()?, minor.parse().ok()?);
    SparkLine::all().iter().find(|r| r.line == line)
}

#[cfg(test)]
mod tests;
