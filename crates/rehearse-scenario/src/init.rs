//! `rehearse init`: a starting scenario written from a checkpoint's [`Inspection`] — its Kafka
//! topics and partition counts, the writer's Spark version range and default targets after it,
//! the confs the checkpoint pins or needs, and the job's placeholders — as commented TOML that
//! [`Scenario::parse`](super::Scenario::parse) reads back.
//!
//! Pure: [`scenario_text`] turns an inspection and an [`InitSpec`] into text; the binary
//! (`commands/init.rs`) inspects the checkpoint, checks the job ([`job_kind`]) and the output
//! file, parses the text back and writes it. What the checkpoint pins comes from the offset
//! log's `conf` (OffsetSeqMetadata.relevantSQLConfs, restored over the session on restart by
//! OffsetSeqMetadata.setSessionConf, OffsetSeq.scala in every release 2.2 – 4.3;
//! spark-checkpoints.md §2.1 of the shared design docs).

use std::path::Path;

mod job_args;
mod job_records;

pub use job_args::{imported_modules, read_job_args, role, ArgRole, JobArgs};
pub use job_records::{read_job_records, Epoch, FieldType, JobRecords};

use rehearse_base::versions::{self, SparkLine, SparkVersion};
use rehearse_checkpoint::{Inspection, Provider, Severity, SourceKind, WriterVersion};

/// Keys of the offset log's `conf` written into `[job.conf]`: they decide how the restart lays
/// out and loads the state, so the scenario should state production's values. The checkpoint
/// pins them (Spark restores every key of the log's `conf` over the session's value on restart,
/// OffsetSeq.scala `setSessionConf`), which the written file says next to them. The other keys
/// of the log are listed in a comment only.
pub const PINNED_WORTH_PASSING: &[&str] = &[
    // Number of state partitions (2.2+); 4.1+ stores the internal state partition count under
    // this key (jar:4.1.0 rebindSQLConfsSessionToOffsetLog).
    "spark.sql.shuffle.partitions",
    // The state store provider (2.3+); HDFS <-> RocksDB needs a new checkpoint.
    "spark.sql.streaming.stateStore.providerClass",
];

/// How many Spark lines the default targets cover, from the writer's highest possible line up
/// (the newest patch of each, from `crates/rehearse-base/src/versions/spark-lines.toml`).
pub const DEFAULT_LINES: usize = 2;

/// A Kafka topic name as Kafka and the scenario parser take it ([`super::check_topic_name`]).
fn valid_topic_name(name: &str) -> bool {
    super::check_topic_name(name).is_ok()
}

/// The job of the scenario, with its path as it is to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InitJob {
    /// A PySpark file: `[job] file`.
    Python {
        /// The path as written (relative to the scenario file, or absolute).
        file: String,
    },
    /// A jar: `[job] jar` and `main_class`.
    Jar {
        /// The path as written (relative to the scenario file, or absolute).
        jar: String,
        /// The class spark-submit runs.
        main_class: String,
    },
}

/// What a scenario is written from, besides the inspection.
#[derive(Debug, Clone)]
pub struct InitSpec {
    /// `[checkpoint] path` as written: a path (relative to the scenario file, or absolute), or
    /// a store's URL (`s3://bucket/prefix`).
    pub checkpoint: String,
    /// The job.
    pub job: InitJob,
    /// Targets given on the command line; empty for [`default_targets`].
    pub targets: Vec<SparkVersion>,
    /// The scenario's `name` ([`default_name`] when `--name` is not given).
    pub name: String,
    /// What the job's own source says of its command line ([`read_job_args`]); empty for a
    /// jar or a source that names no flag: then the example jobs' flags are written.
    pub job_args: JobArgs,
    /// What the job's source says of the records it parses ([`read_job_records`]): the
    /// topics' `template` when it names a schema.
    pub job_records: JobRecords,
}

/// Names that say only "a checkpoint" or "a job", never which one: the scenario's name is taken
/// from something else (issue 26 §7: `name = "checkpoint"`, the checkpoint directory's own name).
fn generic_name(name: &str) -> bool {
    const GENERIC: &[&str] = &[
        "chk",
        "ckpt",
        "cp",
        "tmp",
        "temp",
        "data",
        "state",
        "output",
        "out",
        "job",
        "jobs",
        "app",
        "main",
        "run",
        "driver",
        "stream",
        "streaming",
        "spark",
        "src",
        "scripts",
        "query",
        "prod",
        "production",
    ];
    let n = name.trim().to_ascii_lowercase();
    n.is_empty()
        || n.contains("checkpoint")
        || GENERIC.contains(&n.as_str())
        || n.chars().all(|c| c.is_ascii_digit() || "-_.".contains(c))
}

/// The scenario's name when `--name` is not given: the checkpoint directory's own name, unless it
/// only says "checkpoint" (`/data/orders/checkpoint`); then the job file's stem
/// (`orders_agg.py` → `orders_agg`), unless that only says "job" (`main.py`); then the
/// checkpoint's parent directory (`orders`); else `scenario`. `checkpoint` holds the last two
/// names of the checkpoint's path or URL, parent first. Each candidate passes
/// [`check_name`](super::check_name).
pub fn default_name(checkpoint: &[&str], job_stem: Option<&str>) -> String {
    let own = checkpoint.last().copied();
    let parent = checkpoint.len().checked_sub(2).map(|i| checkpoint[i]);
    [own, job_stem, parent]
        .into_iter()
        .flatten()
        .find(|n| !generic_name(n) && super::check_name(n).is_ok())
        .map_or_else(|| "scenario".to_string(), str::to_string)
}

/// The kind of a job file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// `.py`: a PySpark file.
    Python,
    /// `.jar`: a jar, run with a main class.
    Jar,
}

/// Why `rehearse init` refused its arguments (bad input, exit 3). Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The job file does not exist.
    #[error("job file {path} does not exist")]
    JobMissing {
        /// The path given.
        path: String,
    },
    /// The job path is a directory or another non-regular file.
    #[error("job {path} is not a regular file")]
    JobNotAFile {
        /// The path given.
        path: String,
    },
    /// The job is neither `.py` nor `.jar`.
    #[error("job {path} is neither a PySpark file (.py) nor a jar (.jar)")]
    JobKind {
        /// The path given.
        path: String,
    },
    /// A jar without `--main-class`.
    #[error("job {path} is a jar, and rehearse needs the class spark-submit runs")]
    NoMainClass {
        /// The path given.
        path: String,
    },
    /// `--main-class` with a PySpark file.
    #[error("--main-class {class} is for a jar, but job {path} is a PySpark file")]
    MainClassForPython {
        /// The path given.
        path: String,
        /// The class given.
        class: String,
    },
    /// `--main-class` is not a Java class name.
    #[error("--main-class {class:?} is not a Java class name")]
    BadMainClass {
        /// The class given.
        class: String,
    },
    /// A path TOML cannot hold (not UTF-8).
    #[error("{what} {path} is not valid UTF-8, which a TOML scenario cannot hold")]
    NotUtf8 {
        /// What the path is (`checkpoint`, `job`).
        what: &'static str,
        /// The path, lossily.
        path: String,
    },
}

/// What `init` was given is the user's to fix (exit 3).
impl rehearse_base::HasErrorKind for InitError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        rehearse_base::ErrorKind::BadInput
    }
}

impl InitError {
    /// What the user can do about it, as one sentence.
    pub fn hint(&self) -> &'static str {
        match self {
            InitError::JobMissing { .. } | InitError::JobNotAFile { .. } => {
                "pass --job the streaming job production runs: its PySpark file or its jar"
            }
            InitError::JobKind { .. } => {
                "pass the job's .py file, or its .jar with --main-class (the class spark-submit runs)"
            }
            InitError::NoMainClass { .. } => {
                "add --main-class com.example.YourQuery (the class spark-submit's --class names)"
            }
            InitError::MainClassForPython { .. } => "drop --main-class for a PySpark job",
            InitError::BadMainClass { .. } => {
                "give the fully qualified class name, e.g. com.example.Orders"
            }
            InitError::NotUtf8 { .. } => "rename or link it under a UTF-8 path",
        }
    }
}

/// Checks the job file: it exists, is a regular file (read through a link), ends in `.py` or
/// `.jar` (any case), and a jar comes with a Java class name in `main_class` (a PySpark file
/// without one).
pub fn job_kind(path: &Path, main_class: Option<&str>) -> Result<JobKind, InitError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|_| InitError::JobMissing {
        path: shown.clone(),
    })?;
    if !meta.is_file() {
        return Err(InitError::JobNotAFile { path: shown });
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let kind = match ext.as_deref() {
        Some("py") => JobKind::Python,
        Some("jar") => JobKind::Jar,
        _ => return Err(InitError::JobKind { path: shown }),
    };
    match (kind, main_class) {
        (JobKind::Jar, None) => Err(InitError::NoMainClass { path: shown }),
        (JobKind::Python, Some(class)) => Err(InitError::MainClassForPython {
            path: shown,
            class: class.to_string(),
        }),
        (JobKind::Jar, Some(class)) if !java_class_name(class) => Err(InitError::BadMainClass {
            class: class.to_string(),
        }),
        _ => Ok(kind),
    }
}

/// A fully qualified Java class name: dot-separated identifiers of letters, digits, `_` and
/// `$`, none starting with a digit.
fn java_class_name(class: &str) -> bool {
    class.split('.').all(|part| {
        part.chars().next().is_some_and(|c| !c.is_ascii_digit())
            && part
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    })
}

/// `path` as text for the scenario, or [`InitError::NotUtf8`].
pub fn toml_path(what: &'static str, path: &Path) -> Result<String, InitError> {
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| InitError::NotUtf8 {
            what,
            path: path.display().to_string(),
        })
}

/// The default targets and why they were chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultTargets {
    /// The newest patch of each chosen line, oldest first.
    pub targets: Vec<SparkVersion>,
    /// One sentence: which lines, and why.
    pub why: String,
}

/// The line of the highest version the writer's range allows, with that line as text (`3.5.x`,
/// also for a bound inside it such as `3.5.4`; `4.0.0-preview`, `>= 4.0.0`); `None` when nothing
/// bounds the writer.
fn writer_line(w: &WriterVersion) -> Option<((u32, u32), String)> {
    if let Some(max) = &w.max {
        let (line, basis) = match max.strip_suffix(".x") {
            Some(prefix) => (versions::parse_line(prefix).ok(), max.clone()),
            None => match SparkVersion::parse(max).ok() {
                Some(v) if v.is_release() => {
                    let line = v.line();
                    (
                        line,
                        line.map_or(max.clone(), |(a, b)| format!("{a}.{b}.x")),
                    )
                }
                v => (v.and_then(|v| v.line()), max.clone()),
            },
        };
        if let Some(line) = line {
            return Some((line, basis));
        }
    }
    let min = w.min.as_ref()?;
    Some((min.line()?, format!(">= {min}")))
}

/// The targets `rehearse init` writes when none are given, from the Spark-line table
/// (`crates/rehearse-base/src/versions/spark-lines.toml`): the newest patch of the line of the highest version the
/// writer can be — the nearest step up from every release the checkpoint may come from — and
/// the newest patch of the next line — the upgrade
/// ([`DEFAULT_LINES`] lines in all). A writer on the newest line gets that line's newest
/// patch only; an unknown writer the newest patch of the newest lines.
pub fn default_targets(writer: &WriterVersion) -> DefaultTargets {
    let lines = SparkLine::all();
    let newest = |n: usize| -> Vec<SparkVersion> {
        lines[lines.len().saturating_sub(n)..]
            .iter()
            .map(|l| l.last.clone())
            .collect()
    };
    let Some((line, basis)) = writer_line(writer) else {
        let targets = newest(DEFAULT_LINES);
        return DefaultTargets {
            why: format!(
                "the writer's version is unknown, so the newest patch of the {} newest lines rehearse knows: {}",
                targets.len(),
                list(&targets)
            ),
            targets,
        };
    };
    let mut targets: Vec<SparkVersion> = lines
        .iter()
        .filter(|l| l.line >= line)
        .take(DEFAULT_LINES)
        .map(|l| l.last.clone())
        .collect();
    if targets.is_empty() {
        targets = newest(1);
    }
    let why = match targets.as_slice() {
        [control, upgrade, ..] if control.line() == Some(line) => format!(
            "{control}, the newest patch of the highest line the writer can be on ({basis}): the nearest step up from production (if it does not resume, check the scenario before judging the upgrade); {upgrade}, the newest patch of the next line: the upgrade"
        ),
        [only] => format!(
            "{only}, the newest patch of the newest line rehearse knows (the writer: {basis})"
        ),
        _ => format!(
            "the newest patch of the first lines rehearse knows after the writer's ({basis}): {}",
            list(&targets)
        ),
    };
    DefaultTargets { targets, why }
}

fn list(versions: &[SparkVersion]) -> String {
    versions
        .iter()
        .map(SparkVersion::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A TOML basic string: `"…"` with `\` and `"` escaped and every control character written as
/// `\uXXXX`, so any text (a topic or a path from a checkpoint) stays one line of valid TOML.
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text from a checkpoint made safe for a TOML comment: one line, no control characters.
fn comment_safe(s: &str) -> String {
    rehearse_base::text::sanitize(s)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A conf the restart needs that the offset log does not pin: the job must set it.
struct Needed {
    key: &'static str,
    value: &'static str,
    why: String,
}

/// Confs the checkpoint's files show production used, which no offset log carries.
fn needed_confs(inspection: &Inspection) -> Vec<Needed> {
    let mut out = Vec::new();
    let v2_commits = inspection
        .commit_log
        .as_ref()
        .is_some_and(|c| c.version == 2 || c.state_unique_ids.is_some());
    let uuid_files = inspection.operators.iter().any(|o| o.unique_id_files);
    if v2_commits || uuid_files {
        let seen = match (v2_commits, uuid_files) {
            (true, true) => {
                "commit log v2 with stateUniqueIds and state files named <version>_<uuid>"
            }
            (true, false) => "commit log v2 with stateUniqueIds",
            _ => "state files named <version>_<uuid>",
        };
        out.push(Needed {
            key: "spark.sql.streaming.stateStore.checkpointFormatVersion",
            value: "2",
            why: format!(
                "{seen}: checkpoint format v2 (4.0+). It is not in the offset log, so the job must set it; a 4.0 restart without it cannot load the state (spark-checkpoints.md §2.1-2.2)"
            ),
        });
    }
    if let Some(op) = inspection
        .operators
        .iter()
        .find(|o| o.provider == Provider::Rocksdb && o.changelog_checkpointing)
    {
        out.push(Needed {
            key: "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled",
            value: "true",
            why: format!(
                "state/{} holds RocksDB .changelog files: production writes changelogs. Not pinned; Spark loads the state either way (RocksDB state store docs), and with it the restart runs as production does",
                op.id
            ),
        });
    }
    out
}

/// The scenario text for `inspection`, commented for a user to check (lines marked `CHECK`).
/// Deterministic: no time or host in it. [`Scenario::parse`](super::Scenario::parse) reads it
/// back when the paths in `spec` exist.
pub fn scenario_text(inspection: &Inspection, spec: &InitSpec) -> String {
    let mut t = Lines::default();
    header(&mut t, inspection);
    t.line(format!("name = {}", toml_string(&spec.name)));
    t.blank();
    targets(&mut t, &inspection.writer_version, &spec.targets);
    t.blank();
    t.line("[checkpoint]");
    t.line(
        "# The production checkpoint: each trial restarts a private copy; this one is only read.",
    );
    t.line(format!("path = {}", toml_string(&spec.checkpoint)));
    t.blank();
    job(&mut t, inspection, spec);
    t.blank();
    conf(&mut t, inspection);
    t.blank();
    topics(&mut t, inspection, &spec.job_records);
    t.line("# [expect]                 # optional: the verdict you expect per target (regression suites)");
    let first = spec
        .targets
        .first()
        .cloned()
        .or_else(|| {
            default_targets(&inspection.writer_version)
                .targets
                .into_iter()
                .next()
        })
        .map_or_else(|| "4.0.1".to_string(), |v| v.to_string());
    t.line(format!("# \"{first}\" = \"resumed\""));
    t.out
}

/// A growing text of lines.
#[derive(Default)]
struct Lines {
    out: String,
}

impl Lines {
    fn line(&mut self, s: impl AsRef<str>) {
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    fn blank(&mut self) {
        self.out.push('\n');
    }

    /// `text` as `# ` comment lines of at most [`WRAP`] characters (a longer word stays whole);
    /// the text's leading spaces indent every line, the lines after the first by `indent` more.
    fn comment(&mut self, text: &str, indent: usize) {
        let lead = text.len() - text.trim_start().len();
        let mut line = format!("#{}", " ".repeat(lead));
        let mut words = 0;
        for word in text.split_whitespace() {
            if words > 0 && line.chars().count() + 1 + word.chars().count() > WRAP {
                self.line(&line);
                line = format!("#{}", " ".repeat(lead + indent));
                words = 0;
            }
            words += 1;
            line.push(' ');
            line.push_str(word);
        }
        if words > 0 {
            self.line(&line);
        }
    }
}

/// Width of the comments `rehearse init` writes.
const WRAP: usize = 100;

fn header(t: &mut Lines, i: &Inspection) {
    t.line("# Written by `rehearse init` from a production checkpoint: a starting point. Read the lines");
    t.line("# marked CHECK, then: rehearse run THIS_FILE. Format: scenarios/README.md.");
    t.line("#");
    t.line("# What the checkpoint says (`rehearse inspect` on it shows the evidence):");
    if let Some(id) = &i.query_id {
        t.line(format!("#   query id        {}", comment_safe(id)));
    }
    let batches = match (i.last_committed_batch, i.pending_batch) {
        (Some(c), Some(p)) => {
            format!("last committed batch {c}; batch {p} is pending (Spark re-runs it on restart)")
        }
        (Some(c), None) => format!("last committed batch {c}"),
        (None, Some(p)) => format!("no committed batch; batch {p} is pending"),
        (None, None) => "no committed batch".to_string(),
    };
    t.line(format!("#   batches         {batches}"));
    t.line(format!(
        "#   written by      Spark {} (inferred from its files)",
        i.writer_version.describe()
    ));
    for s in &i.sources {
        let what = match (&s.kafka, s.kind) {
            (Some(k), SourceKind::Kafka) => format!(
                "kafka: {}",
                k.keys()
                    .map(|t| comment_safe(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (_, kind) => kind.name().to_string(),
        };
        t.line(format!("#   source #{:<7} {what}", s.index));
    }
    if i.operators.is_empty() {
        t.line("#   state           none (a stateless query)");
    }
    for o in &i.operators {
        let name = o
            .name
            .as_deref()
            .map(|n| format!(" ({})", comment_safe(n)))
            .unwrap_or_default();
        t.line(format!(
            "#   state           operator {}{name}: {}, {} partition(s)",
            o.id,
            o.provider.name(),
            o.partitions
        ));
    }
    let errors: Vec<_> = i
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    if !errors.is_empty() {
        t.comment(
            &format!(
                "  CHECK: inspect found {} error(s); a restart will likely fail on them (which is what a rehearsal shows):",
                errors.len()
            ),
            4,
        );
        for f in errors {
            let file = f.file.as_deref().map(comment_safe).unwrap_or_default();
            t.comment(
                &format!("    - {} {file}: {}", f.code, comment_safe(&f.message)),
                6,
            );
        }
    }
    t.blank();
}

fn targets(t: &mut Lines, writer: &WriterVersion, given: &[SparkVersion]) {
    t.line("# Target Spark versions, one trial each (`rehearse run --target V` replaces them).");
    let chosen: Vec<SparkVersion> = if given.is_empty() {
        let d = default_targets(writer);
        t.comment(
            &format!(
                "The writer is Spark {}. Default, from crates/rehearse-base/src/versions/spark-lines.toml: {}. CHECK: the version production moves to.",
                writer.describe(),
                d.why
            ),
            0,
        );
        d.targets
    } else {
        t.line(format!(
            "# Given with --target. The writer is Spark {}.",
            writer.describe()
        ));
        given.to_vec()
    };
    let quoted: Vec<String> = chosen.iter().map(|v| toml_string(v.as_str())).collect();
    t.line(format!("targets = [{}]", quoted.join(", ")));
    if writer.min.as_ref().map(|v| v.to_string()) != writer.max.clone() {
        // --control needs the writer's one release; the checkpoint only shows a range.
        t.line(format!(
            "# control_version = \"X.Y.Z\"  # for --control: the release that wrote the checkpoint (the files show only {})",
            writer.describe()
        ));
    }
    t.line("# timeout_seconds = 300    # per trial, from spark-submit to a verdict");
    t.line(format!(
        "# kafka_version = \"{}\"   # the sandbox's Kafka broker",
        versions::DEFAULT_KAFKA_VERSION
    ));
}

/// The Kafka topics the scenario can name (valid names only), by name, with partition counts.
fn kafka_topics(i: &Inspection) -> Vec<(String, u32)> {
    i.kafka_partition_counts()
        .into_iter()
        .filter(|(name, _)| valid_topic_name(name))
        .collect()
}

fn job(t: &mut Lines, i: &Inspection, spec: &InitSpec) {
    t.line("[job]");
    match &spec.job {
        InitJob::Python { file } => t.line(format!("file = {}", toml_string(file))),
        InitJob::Jar { jar, main_class } => {
            t.line(format!("jar = {}", toml_string(jar)));
            t.line(format!("main_class = {}", toml_string(main_class)));
        }
    }
    args(t, i, &spec.job_args);
    t.line("# restart_args = []        # appended on the restart only: rehearse a changed query");
    // `--fresh` needs the offsets passed on; the job's flag is the team's to name (new-user
    // pass, session 8: README promised it, init wrote nothing).
    t.line(
        "# For --fresh (the job on a new empty checkpoint), give the job {starting_offsets} (the",
    );
    t.line("# startingOffsets JSON of the last committed batch) for its Kafka source's");
    t.line("# .option(\"startingOffsets\", …), e.g. restart_args = [\"--starting-offsets\", \"{starting_offsets}\"]");
}

/// The placeholders rehearse fills, as the written file explains them.
fn placeholder_lines(t: &mut Lines) {
    t.line("#   {checkpoint}         the sandbox copy: the job's checkpointLocation must be this");
    t.line("#   {bootstrap_servers}  the sandbox Kafka: the job's kafka.bootstrap.servers must be this");
    t.line("#   {output}             a fresh directory for the sink");
    t.line("#   {topic.NAME}         the name of topic NAME of [[topics]]");
}

/// `[job] args`: from the flags or `sys.argv` reads of the job's source when it names any
/// ([`read_job_args`]), else the example jobs' flags. Several topics for one flag are one
/// comma-separated value (Kafka's `subscribe` option takes a list), never the flag repeated
/// (argparse keeps only the last).
fn args(t: &mut Lines, i: &Inspection, a: &JobArgs) {
    let topics: Vec<String> = kafka_topics(i)
        .into_iter()
        .map(|(name, _)| format!("{{topic.{name}}}"))
        .collect();
    let entry =
        |flag: &str, value: &str| format!("  {}, {},", toml_string(flag), toml_string(value));
    if !a.flags.is_empty() {
        t.line("# CHECK: the flags read from the job's source (argparse's add_argument and flag literals);");
        t.line("# each is given the value its name suggests. rehearse fills in:");
        placeholder_lines(t);
        let topic_flags = topic_flags(&a.flags, topics.len());
        t.line("args = [");
        let mut others = Vec::new();
        let mut outputs = Vec::new();
        for f in &a.flags {
            match role(f) {
                ArgRole::Checkpoint => t.line(entry(f, "{checkpoint}")),
                ArgRole::Brokers => t.line(entry(f, "{bootstrap_servers}")),
                ArgRole::Output => t.line(entry(f, "{output}")),
                ArgRole::Topic => {
                    if let Some(k) = topic_flags.iter().position(|t| t == f) {
                        let value = if k + 1 == topic_flags.len() {
                            topics[k.min(topics.len())..].join(",")
                        } else {
                            topics.get(k).cloned().unwrap_or_default()
                        };
                        if !value.is_empty() {
                            t.line(entry(f, &value));
                        }
                    } else {
                        // A topic flag beyond the checkpoint's topics (a helper's default).
                        others.push(f.as_str());
                    }
                }
                ArgRole::OutputTopic => outputs.push(f.as_str()),
                ArgRole::Other => others.push(f.as_str()),
            }
        }
        t.line("]");
        if topic_flags.len() > 1 {
            t.comment(
                &format!(
                    "CHECK: the topics are given to {} in the order of their names; swap them if the job means otherwise.",
                    topic_flags.join(", ")
                ),
                0,
            );
        }
        if !outputs.is_empty() {
            t.comment(
                &format!(
                    "CHECK: if the job writes to Kafka, {} names its output topic: declare it in [[output_topics]] and pass {{topic.NAME}} to it.",
                    outputs.join(", ")
                ),
                0,
            );
        }
        if !others.is_empty() {
            t.comment(
                &format!(
                    "The job also takes {}: add those it requires, with production's values.",
                    others.join(", ")
                ),
                0,
            );
        }
    } else if !a.positional.is_empty() {
        t.line(
            "# CHECK: the job reads sys.argv; each position is given the value its name suggests.",
        );
        t.line("# rehearse fills in:");
        placeholder_lines(t);
        t.line("args = [");
        let last = a.positional.iter().map(|(n, _)| *n).max().unwrap_or(0);
        for n in 1..=last {
            let name = a
                .positional
                .iter()
                .find(|(k, _)| *k == n)
                .map_or("", |(_, name)| name.as_str());
            let value = match role(name) {
                ArgRole::Checkpoint => "{checkpoint}".to_string(),
                ArgRole::Brokers => "{bootstrap_servers}".to_string(),
                ArgRole::Output => "{output}".to_string(),
                ArgRole::Topic => topics.join(","),
                ArgRole::OutputTopic | ArgRole::Other => String::new(),
            };
            if value.is_empty() {
                t.line(format!(
                    "  \"\",  # CHECK: sys.argv[{n}]{}: production's value",
                    if name.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", comment_safe(name))
                    }
                ));
            } else {
                t.line(format!(
                    "  {},  # sys.argv[{n}] ({})",
                    toml_string(&value),
                    comment_safe(name)
                ));
            }
        }
        t.line("]");
    } else {
        t.line("# CHECK: your job's own flags (these are the example jobs'). rehearse fills in:");
        placeholder_lines(t);
        t.line("args = [");
        t.line("  \"--checkpoint\", \"{checkpoint}\",");
        t.line("  \"--bootstrap-servers\", \"{bootstrap_servers}\",");
        t.line("  \"--output\", \"{output}\",");
        if !topics.is_empty() {
            // One flag for every topic, comma-separated: repeated, argparse keeps the last.
            t.line(entry("--topic", &topics.join(",")));
        }
        t.line("]");
    }
    t.line("# The .py files beside the job and its packages (directories with __init__.py) travel with");
    t.line(
        "# it; list modules it imports from elsewhere in py_files = [\"…\"] (.py, .zip or .egg).",
    );
}

/// The flags of `flags` that take input topics, for `topics` topics: when the job names more
/// topic flags than there are topics and the specific ones (`--left-topic`, `--right-topic`)
/// are as many as the topics, those (a bare `--topic`/`--topics` is then a helper's default);
/// else the first ones, at most one per topic (one flag takes them all).
fn topic_flags(flags: &[String], topics: usize) -> Vec<String> {
    let all: Vec<&String> = flags.iter().filter(|f| role(f) == ArgRole::Topic).collect();
    let plain = |f: &&String| matches!(f.as_str(), "--topic" | "--topics");
    let specific: Vec<&String> = all.iter().copied().filter(|f| !plain(f)).collect();
    let chosen: Vec<&String> = if all.len() > topics && specific.len() == topics && topics > 0 {
        specific
    } else {
        all.into_iter().take(topics.max(1)).collect()
    };
    chosen.into_iter().cloned().collect()
}

fn conf(t: &mut Lines, i: &Inspection) {
    t.line("[job.conf]                 # --conf key=value for spark-submit");
    let log = i.offset_log.as_ref();
    let pinned = log.map(|l| l.pinned.as_slice()).unwrap_or_default();
    let file = log.map_or_else(|| "the offset log".to_string(), |l| l.file.clone());
    let worth: Vec<_> = pinned
        .iter()
        .filter(|p| PINNED_WORTH_PASSING.contains(&p.key.as_str()))
        .collect();
    if !worth.is_empty() {
        t.line(format!(
            "# Pinned by the checkpoint: Spark restores these from {file} over the job's own value on"
        ));
        t.line("# every restart (OffsetSeq.scala, setSessionConf), so another value here changes nothing for");
        t.line("# this checkpoint. Written so the scenario states production's values.");
        for p in &worth {
            if let Some(meaning) = &p.meaning {
                t.comment(&format!("{}: {}", p.key, comment_safe(meaning)), 2);
            }
            t.line(format!(
                "{} = {}",
                toml_string(&p.key),
                toml_string(&p.value)
            ));
            if p.key == "spark.sql.streaming.stateStore.providerClass"
                && Provider::from_class(&p.value) == Provider::Unknown
            {
                t.line("# CHECK: a provider outside Apache Spark: its jar must be on the target Spark's classpath.");
            }
        }
    }
    let rest: Vec<_> = pinned
        .iter()
        .filter(|p| !PINNED_WORTH_PASSING.contains(&p.key.as_str()))
        .collect();
    if !rest.is_empty() {
        t.line(format!(
            "# Also pinned by {file} (restored on restart whatever the job sets; no need to pass):"
        ));
        for p in rest {
            t.line(format!(
                "#   {} = {}",
                comment_safe(&p.key),
                comment_safe(&p.value)
            ));
        }
    }
    if pinned.is_empty() {
        t.line("# The offset log pins no conf (no readable offset file, or one written before Spark 2.2).");
    }
    let needed = needed_confs(i);
    if !needed.is_empty() {
        t.line("# Not pinned, but the checkpoint's files show production set it:");
    }
    for n in needed {
        t.comment(&format!("{}: {}", n.key, n.why), 2);
        t.line(format!("{} = {}", toml_string(n.key), toml_string(n.value)));
    }
    t.line("# CHECK: any other --conf production's spark-submit passes that the query depends on.");
}

fn topics(t: &mut Lines, i: &Inspection, records: &JobRecords) {
    let watermark = i.watermark_ms().is_some_and(|ms| ms > 0);
    let mut notes = Lines::default();
    let counts = i.kafka_partition_counts();
    for (name, _) in counts.iter().filter(|(n, _)| !valid_topic_name(n)) {
        notes.comment(
            &format!(
                "CHECK: the offset log names topic {}, which is not a valid Kafka topic name: left out.",
                toml_string(name)
            ),
            2,
        );
    }
    let topics = kafka_topics(i);
    if topics.is_empty() {
        notes.comment("CHECK: the offset log names no Kafka topic. rehearse seeds Kafka only; a query on other sources must reach its input from inside the sandbox.", 2);
    }
    for s in i.sources.iter().filter(|s| s.kind != SourceKind::Kafka) {
        notes.comment(
            &format!(
                "CHECK: source #{} is a {} source, not Kafka: rehearse does not provide its input.",
                s.index,
                s.kind.name()
            ),
            2,
        );
    }
    if !notes.out.is_empty() {
        t.out.push_str(&notes.out);
        t.blank();
    }
    for (name, partitions) in topics {
        t.line("[[topics]]");
        t.line(format!("name = {}", toml_string(&name)));
        t.line(format!(
            "partitions = {partitions}             # from the offset log; the sandbox topic gets the checkpoint's count"
        ));
        if let Some(template) = records.template() {
            // The schema the job parses with: a record it can parse (issue 26 §7).
            t.line("# CHECK: a record of the schema read from the job's source (its StructFields), event time");
            t.line("# in the form it parses; or sample_file = \"values.jsonl\" (one value per line, round-robin).");
            if watermark && !records.has_event_time() {
                t.line("# CHECK: the checkpoint has a watermark: put {timestamp_ms} (or {timestamp:PATTERN}) where");
                t.line("# your job reads event time, or it takes it from the Kafka timestamp (kafka_timestamp below).");
            }
            t.line(format!("template = '{template}'"));
            if watermark {
                t.line("time_step_ms = 60000");
                t.line("kafka_timestamp = true");
            }
        } else if watermark {
            t.line("# CHECK: a record value your job can parse ({n}: record number in its partition, {partition}),");
            t.line("# or sample_file = \"values.jsonl\" (one value per line, used round-robin).");
            // With a watermark, `resumed` needs event time to pass it so windows close and state
            // is evicted (the exercised-paths gate); fresh records step a minute each past it.
            t.line("# CHECK: the checkpoint has a watermark: put {timestamp_ms} where your job reads event time");
            t.line("# (its watermark + a minute per fresh record), or keep kafka_timestamp below if the job");
            t.line("# takes event time from the Kafka timestamp. Otherwise no window closes: resume-unproven.");
            t.line("template = '{\"n\":{n},\"partition\":{partition},\"ts\":{timestamp_ms}}'");
            t.line("time_step_ms = 60000");
            t.line("kafka_timestamp = true");
        } else {
            t.line("# CHECK: a record value your job can parse ({n}: record number in its partition, {partition}),");
            t.line("# or sample_file = \"values.jsonl\" (one value per line, used round-robin).");
            t.line("template = '{\"n\":{n},\"partition\":{partition}}'");
        }
        t.line(format!(
            "fresh_records = {}          # per partition after the checkpoint's offsets: the restart's new work",
            super::DEFAULT_FRESH_RECORDS
        ));
        t.blank();
    }
}

#[cfg(test)]
mod tests;
