//! `rehearse init CHECKPOINT --job FILE`: inspect the checkpoint (read-only; a directory or a
//! store's URL, as `rehearse inspect` takes it), check the job and the output file, write the
//! starting scenario of `rehearse::scenario::init` once it parses back with the scenario parser.
//! Every refusal comes before anything is written and is bad input (exit 3), or environment
//! (exit 4) when a store cannot be reached; the checkpoint is never written to, nor is the
//! output placed inside a local one.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use rehearse::exit::Outcome;
use rehearse::scenario::init::{self, InitJob, InitSpec, JobKind};
use rehearse::scenario::Scenario;
use rehearse::versions::SparkVersion;

use super::{common, Failure};

/// `rehearse init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The checkpoint (the query's checkpointLocation): a directory, or a URL as `inspect` takes
    /// it (s3://, gs://, az://, wasbs://, abfss://, hdfs://, webhdfs://, file://). Only read.
    pub checkpoint: PathBuf,
    /// The streaming job production runs: a PySpark file (.py) or a jar (.jar, with --main-class).
    #[arg(long, value_name = "FILE")]
    pub job: PathBuf,
    /// The class spark-submit runs, for a jar job.
    #[arg(long, value_name = "CLASS")]
    pub main_class: Option<String>,
    /// Target Spark versions (default: the newest patch of the writer's line and of the next line).
    #[arg(long = "target", value_name = "VERSION")]
    pub targets: Vec<String>,
    /// Where to write the scenario; `-` for stdout. An existing file is kept unless --force.
    #[arg(long, short, value_name = "FILE", default_value = "scenario.toml")]
    pub output: PathBuf,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
    /// The scenario's name in reports (default: the checkpoint directory's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// `rehearse init`.
pub fn exec(args: InitArgs) -> Result<Outcome, Failure> {
    let mut targets: Vec<SparkVersion> = Vec::new();
    for t in &args.targets {
        // A release the Spark-line table knows (`4.0.9` is not one): said here, naming the
        // flag, not later as a scenario that does not load (new-user pass, session 7).
        match SparkVersion::release(t)
            .and_then(|v| rehearse::scenario::check_release(t).map(|()| v))
        {
            Ok(v) if !targets.contains(&v) => targets.push(v),
            Ok(_) => {}
            Err(m) => {
                return Ok(refuse(
                    &format!("--target: {m}"),
                    "name a Spark release, e.g. --target 4.0.1",
                ))
            }
        }
    }
    let kind = match init::job_kind(&args.job, args.main_class.as_deref()) {
        Ok(kind) => kind,
        Err(err) => return Ok(common::bad_input(&err, Some(err.hint()))),
    };
    if let Some(Err(m)) = args.name.as_deref().map(rehearse::scenario::check_name) {
        return Ok(refuse(
            &format!("--name: {m}"),
            "pass --name NAME, or leave it out",
        ));
    }
    let dest = match Destination::check(&args.output, args.force) {
        Ok(dest) => dest,
        Err((message, hint)) => return Ok(refuse(&message, hint)),
    };
    let source = match Source::of(&args.checkpoint) {
        Ok(source) => source,
        Err(err) => return Ok(common::location_failed(common::LocationError::Store(err))),
    };
    let inspection = match common::inspect_location(&args.checkpoint) {
        Ok(inspection) => inspection,
        Err(err) => return Ok(common::location_failed(err)),
    };
    if let Some(message) = file_source_only(&args.checkpoint, &inspection) {
        return Ok(refuse(
            &message,
            "run `rehearse inspect` on it; to rehearse the restart, restart a copy of the checkpoint on the target Spark yourself with the job's input directory in place, and give its driver log to `rehearse classify`",
        ));
    }
    let job = match std::fs::canonicalize(&args.job) {
        Ok(job) => job,
        Err(e) => {
            return Ok(refuse(
                &format!("cannot resolve job {}: {e}", args.job.display()),
                "pass a job file this user can read",
            ))
        }
    };
    let checkpoint = match source {
        Source::Url(url) => Checkpoint::Url(url),
        Source::Local(path) => match std::fs::canonicalize(&path) {
            Ok(dir) => Checkpoint::Dir(dir),
            Err(e) => {
                return Ok(refuse(
                    &format!("cannot resolve checkpoint {}: {e}", path.display()),
                    "pass a checkpoint directory this user can read",
                ))
            }
        },
    };
    let local = match &checkpoint {
        Checkpoint::Dir(dir) => Some(dir.as_path()),
        Checkpoint::Url(_) => None,
    };
    if let Err((message, hint)) = dest.keeps_clear_of(local, &job) {
        return Ok(refuse(&message, hint));
    }
    let spec = match spec(&args, &dest, &checkpoint, &job, kind, targets) {
        Ok(spec) => spec,
        Err(err) => return Ok(common::bad_input(&err, Some(err.hint()))),
    };
    let text = init::scenario_text(&inspection, &spec);
    // The file must load as written: parse it back where it will live before writing it.
    let at = dest.scenario_path();
    let mut warnings = Vec::new();
    let parsed = Scenario::parse_with(&text, &at, &mut warnings);
    common::say_warnings(&warnings);
    if let Err(err) = parsed {
        // The load checks judge what the user gave (a job file that is not a jar, a target
        // outside the known lines): bad input, said with the load's own message. init's own
        // text loads back for every fixture checkpoint (tests/integration/init.rs), so a
        // failure here is the input's far more often than init's (breaker pass, session 6:
        // both cases said "this is a bug", exit 70).
        say!("error: the scenario for these inputs does not load: {err}
  hint: fix the input it names and run rehearse init again (if every input is right, this is a bug in rehearse init: please report it)");
        return Ok(Outcome::BadInput);
    }
    tracing::debug!(checkpoint = %spec.checkpoint, output = %at.display(), "scenario written from the checkpoint");
    match &dest {
        Destination::Stdout => common::write_stdout(|out| out.write_all(text.as_bytes()))?,
        Destination::File { given, exists, .. } => {
            if let Err((message, hint)) = write_file(given, *exists, &text) {
                return Ok(refuse(&message, hint));
            }
        }
    }
    summary(&dest, &inspection, &spec);
    Ok(Outcome::Success)
}

/// Why `init` writes no scenario for a checkpoint whose sources are file sources and none is
/// Kafka, in one paragraph: what rehearse can and cannot do with it. `None` for any other
/// checkpoint (a rate source needs no input; a Kafka source beside a file source is seeded).
/// A scenario for it loaded and ran, and the restarted query found no input (issue 25 §6).
fn file_source_only(
    checkpoint: &Path,
    inspection: &rehearse::checkpoint::Inspection,
) -> Option<String> {
    use rehearse::checkpoint::SourceKind;
    let kinds: Vec<SourceKind> = inspection.sources.iter().map(|s| s.kind).collect();
    let files: Vec<String> = inspection
        .sources
        .iter()
        .filter(|s| s.kind == SourceKind::File)
        .map(|s| format!("sources/{}/", s.index))
        .collect();
    if files.is_empty() || kinds.contains(&SourceKind::Kafka) {
        return None;
    }
    Some(format!(
        "{} is the checkpoint of a query on a file source (its offset log holds {{\"logOffset\":N}}, not Kafka offsets; {} lists the files it read) and no Kafka source: rehearse can inspect it (`rehearse inspect`: batches, state, the Spark version that wrote it, findings) and classify the driver log of a restart run elsewhere (`rehearse classify`), but it cannot rehearse its restart, since a rehearsal gives the restarted query its input only through the sandbox Kafka and never copies the input directory a file source reads; no scenario was written",
        rehearse::text::sanitize(&checkpoint.display().to_string()),
        files.join(" and ")
    ))
}

/// The checkpoint as given: a local path, or a URL of a store (`file://` is a local path).
enum Source {
    Local(PathBuf),
    Url(rehearse::store::CheckpointLocation),
}

impl Source {
    /// Parses the argument as `rehearse inspect` does: a URL when it holds `://`.
    fn of(arg: &Path) -> Result<Source, rehearse::store::StoreError> {
        let Some(text) = rehearse::store::CheckpointLocation::url_arg(arg) else {
            return Ok(Source::Local(arg.to_path_buf()));
        };
        Ok(match rehearse::store::CheckpointLocation::parse(text)? {
            rehearse::store::CheckpointLocation::Local { path } => Source::Local(path),
            remote => Source::Url(remote),
        })
    }
}

/// The checkpoint as the scenario names it: a directory (resolved) or a store's URL.
enum Checkpoint {
    Dir(PathBuf),
    Url(rehearse::store::CheckpointLocation),
}

/// Says a refusal once, as the binary's other bad-input errors do, and returns bad input.
fn refuse(message: &str, hint: &str) -> Outcome {
    say!("error: {message}\n  hint: {hint}");
    Outcome::BadInput
}

type Refusal = (String, &'static str);

/// Where the scenario goes.
enum Destination {
    /// `--output -`.
    Stdout,
    /// A file: as given, its directory resolved, and whether it exists (only with `--force`).
    File {
        given: PathBuf,
        dir: PathBuf,
        name: std::ffi::OsString,
        exists: bool,
    },
}

impl Destination {
    /// Checks `--output` before anything is read: an existing file needs `--force` (and must be
    /// a regular file), its directory must exist.
    fn check(output: &Path, force: bool) -> Result<Destination, Refusal> {
        if output.as_os_str() == "-" {
            return Ok(Destination::Stdout);
        }
        let shown = output.display();
        let exists =
            match std::fs::metadata(output) {
                Ok(m) if m.is_dir() => {
                    return Err((
                        format!("--output {shown} is a directory"),
                        "name the scenario file to write, e.g. --output scenario.toml",
                    ))
                }
                Ok(m) if !m.is_file() => {
                    return Err((
                        format!("--output {shown} exists and is not a regular file"),
                        "choose another --output",
                    ))
                }
                Ok(_) if !force => return Err((
                    format!("--output {shown} exists; rehearse init does not replace it"),
                    "pass --force to replace it, choose another --output, or --output - for stdout",
                )),
                Ok(_) => true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
                Err(e) => {
                    return Err((
                        format!("cannot check --output {shown}: {e}"),
                        "choose an --output in a directory this user can write",
                    ))
                }
            };
        let Some(name) = output.file_name().map(ToOwned::to_owned) else {
            return Err((
                format!("--output {shown} does not name a file"),
                "name the scenario file to write, e.g. --output scenario.toml",
            ));
        };
        let parent = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = std::fs::canonicalize(parent).map_err(|e| {
            (
                format!("the directory of --output {shown} cannot be used: {e}"),
                "create the directory first, or choose another --output",
            )
        })?;
        Ok(Destination::File {
            given: output.to_path_buf(),
            dir,
            name,
            exists,
        })
    }

    /// Refuses an output inside a local checkpoint (the source is only read) or on the job file.
    fn keeps_clear_of(&self, checkpoint: Option<&Path>, job: &Path) -> Result<(), Refusal> {
        let Destination::File { given, exists, .. } = self else {
            return Ok(());
        };
        let target = if *exists {
            std::fs::canonicalize(given).unwrap_or_else(|_| self.scenario_path())
        } else {
            self.scenario_path()
        };
        if let Some(checkpoint) = checkpoint.filter(|c| target.starts_with(c)) {
            return Err((
                format!(
                    "--output {} lies inside the checkpoint {}, which rehearse never writes to",
                    given.display(),
                    checkpoint.display()
                ),
                "write the scenario outside the checkpoint, e.g. --output scenario.toml in your project",
            ));
        }
        if target == job {
            return Err((
                format!("--output {} is the job file", given.display()),
                "choose another --output",
            ));
        }
        Ok(())
    }

    /// The scenario's absolute path (for stdout, `scenario.toml` in the current directory): the
    /// base of its relative paths when it is parsed back.
    fn scenario_path(&self) -> PathBuf {
        match self {
            Destination::Stdout => std::env::current_dir()
                .unwrap_or_default()
                .join("scenario.toml"),
            Destination::File { dir, name, .. } => dir.join(name),
        }
    }

    /// The directory relative paths in the file start from (`None` for stdout: the text may be
    /// saved anywhere, so its paths are absolute).
    fn base(&self) -> Option<&Path> {
        match self {
            Destination::Stdout => None,
            Destination::File { dir, .. } => Some(dir),
        }
    }
}

/// `path` as the scenario writes it: relative to the scenario's directory when it lies below
/// it, else absolute.
fn as_written(path: &Path, base: Option<&Path>) -> PathBuf {
    match base.and_then(|b| path.strip_prefix(b).ok()) {
        Some(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => path.to_path_buf(),
    }
}

fn spec(
    args: &InitArgs,
    dest: &Destination,
    checkpoint: &Checkpoint,
    job: &Path,
    kind: JobKind,
    targets: Vec<SparkVersion>,
) -> Result<InitSpec, init::InitError> {
    let base = dest.base();
    // A URL as the store reads it (never with credentials: a location holds none).
    let (checkpoint_text, last) = match checkpoint {
        Checkpoint::Dir(dir) => (
            init::toml_path("checkpoint", &as_written(dir, base))?,
            [dir.parent().and_then(Path::file_name), dir.file_name()]
                .into_iter()
                .flatten()
                .map(|n| n.to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
        ),
        Checkpoint::Url(url) => {
            let text = url.to_string();
            // The last two names of the URL's path (never its scheme or host).
            let path = text
                .split_once("://")
                .map_or(text.as_str(), |(_, rest)| rest);
            let mut names: Vec<String> = path
                .split('/')
                .skip(1)
                .filter(|s| !s.is_empty() && !s.contains(':'))
                .map(str::to_string)
                .collect();
            let keep = names.len().saturating_sub(2);
            names.drain(..keep);
            (text, names)
        }
    };
    let job_path = job;
    let job_text = init::toml_path("job", &as_written(job, base))?;
    let job = match (kind, &args.main_class) {
        (JobKind::Jar, Some(class)) => InitJob::Jar {
            jar: job_text,
            main_class: class.clone(),
        },
        _ => InitJob::Python { file: job_text },
    };
    let job_stem = job_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let name = args.name.clone().unwrap_or_else(|| {
        let segments: Vec<&str> = last.iter().map(String::as_str).collect();
        // The checkpoint's own name, unless it only says "checkpoint"; then the job's or the
        // checkpoint's parent's (issue 26 §7: `name = "checkpoint"`).
        init::default_name(&segments, job_stem.as_deref())
    });
    let sources = match kind {
        JobKind::Python => python_job_sources(job_path),
        JobKind::Jar => Vec::new(),
    };
    let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    let job_args = init::read_job_args(&sources);
    let job_records = init::read_job_records(&sources);
    Ok(InitSpec {
        checkpoint: checkpoint_text,
        job,
        targets,
        name,
        job_args,
        job_records,
    })
}

/// The text of a PySpark job's sources, for what init reads of its command line
/// (`init::read_job_args`) and its records (`init::read_job_records`): the job file and the
/// modules beside it that it imports (`from common import parse_args`: the example jobs add
/// their flags there). A file that cannot be read adds nothing; without any, init writes the
/// example jobs' flags and a generic template.
fn python_job_sources(job: &Path) -> Vec<String> {
    use rehearse::userfile::{read_text, MAX_JOB_BYTES};
    let Ok(main) = read_text(job, "job file", MAX_JOB_BYTES) else {
        return Vec::new();
    };
    let imported = init::imported_modules(&main);
    let mut texts = vec![main];
    if let Ok(dir) = rehearse::scenario::JobDir::read(job) {
        let beside = dir.modules().filter(|f| {
            f.relative.ends_with(".py")
                && imported.iter().any(|m| {
                    f.relative == format!("{m}.py") || f.relative.starts_with(&format!("{m}/"))
                })
        });
        for f in beside.take(64) {
            if let Ok(text) = read_text(&f.path, "job file", MAX_JOB_BYTES) {
                texts.push(text);
            }
        }
    }
    texts
}

/// Writes the file by the output rule (`userfile::write`): created new unless `--force`
/// replaces an existing one, written beside it and renamed over it, so it never writes through
/// a hard link into another file (the breaker pass: `ln ck/commits/0 out.toml; rehearse init ck
/// … -o out.toml --force` overwrote the checkpoint's commit file) nor through a symbolic link.
fn write_file(path: &Path, replace: bool, text: &str) -> Result<(), Refusal> {
    use rehearse::userfile::{self, Existing, WriteError};
    let existing = if replace {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    userfile::write(path, "--output", existing, text.as_bytes()).map_err(|e| {
        let hint = match e {
            WriteError::Exists { .. } => "pass --force to replace it, or choose another --output",
            _ => "choose an --output in a directory this user can write",
        };
        // The message without the rule's generic hint: init's own follows.
        let text = e.to_string();
        (text.lines().next().unwrap_or_default().to_string(), hint)
    })
}

/// What was written and what to do next, on stderr.
fn summary(dest: &Destination, inspection: &rehearse::checkpoint::Inspection, spec: &InitSpec) {
    let targets = if spec.targets.is_empty() {
        init::default_targets(&inspection.writer_version).targets
    } else {
        spec.targets.clone()
    };
    let hints = target_hints(inspection, spec, &targets);
    let targets: Vec<String> = targets.iter().map(ToString::to_string).collect();
    let topics: Vec<String> = inspection
        .kafka_partition_counts()
        .iter()
        .map(|(t, n)| format!("{} ({n} partitions)", rehearse::text::sanitize(t)))
        .collect();
    let topics = if topics.is_empty() {
        "no Kafka topic".to_string()
    } else {
        topics.join(", ")
    };
    let file = match dest {
        Destination::Stdout => {
            say!(
                "scenario for a checkpoint written by Spark {}: targets {}; {topics}",
                inspection.writer_version.describe(),
                targets.join(", ")
            );
            "the scenario file".to_string()
        }
        Destination::File { given, .. } => {
            say!(
                "wrote {} for a checkpoint written by Spark {}: targets {}; {topics}",
                given.display(),
                inspection.writer_version.describe(),
                targets.join(", ")
            );
            given.display().to_string()
        }
    };
    let errors = inspection
        .findings
        .iter()
        .filter(|f| f.severity == rehearse::checkpoint::Severity::Error)
        .count();
    if errors > 0 {
        say!("warning: inspect found {errors} error(s) in the checkpoint (listed at the top of the scenario): a restart will likely fail on them");
    }
    for hint in hints {
        say!("{hint}");
    }
    say!("next: check the lines marked CHECK (your job's flags, a record value it can parse), then: rehearse run {file}");
}

/// What a first `rehearse run` of the written scenario would meet that `init` can see now:
/// targets with no local image (the run builds each first, minutes apiece: the new-user pass
/// saw that as silence), and a jar that wrote the checkpoint on one major line while a target
/// is on another (Spark 4 is Scala 2.13 only and moved the streaming API classes, so the jar
/// fails with `NoSuchMethodError` there). Nothing is said of images when Docker cannot be asked.
fn target_hints(
    inspection: &rehearse::checkpoint::Inspection,
    spec: &InitSpec,
    targets: &[SparkVersion],
) -> Vec<String> {
    let mut hints = Vec::new();
    let missing: Vec<String> = targets
        .iter()
        .map(ToString::to_string)
        .filter(|v| {
            matches!(
                rehearse::images::image_exists(&rehearse::images::spark_image(v)),
                Ok(false)
            )
        })
        .collect();
    if !missing.is_empty() {
        let flags: Vec<String> = missing.iter().map(|v| format!("--spark {v}")).collect();
        // The Spark images already built here (new-user pass, session 13: the quick start had
        // built 3.5.3, 4.0.1, 3.3.4 and init chose 3.5.9 and 4.0.5 without a word of them).
        let built: Vec<String> = rehearse::images::list_images()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|i| i.tag.strip_prefix("rehearse/spark:").map(str::to_owned))
            .collect();
        let built = if built.is_empty() {
            String::new()
        } else {
            format!(
                "; built here already: {} (pass --target for each to rehearse on them)",
                built.join(", ")
            )
        };
        hints.push(format!(
            "note: no local image for Spark {} yet: the first run builds each (minutes apiece), or build them now with: rehearse images build {}{built}",
            missing.join(", "),
            flags.join(" ")
        ));
    }
    let writer_major = inspection
        .writer_version
        .min
        .as_ref()
        .and_then(|v| v.major());
    let other_line: Vec<String> = targets
        .iter()
        .filter(|t| writer_major.is_some() && t.major() != writer_major)
        .map(ToString::to_string)
        .collect();
    if matches!(spec.job, InitJob::Jar { .. }) && !other_line.is_empty() {
        let major = targets
            .iter()
            .find(|t| t.major() != writer_major)
            .and_then(|t| t.major())
            .unwrap_or(4);
        hints.push(format!(
            "note: the jar wrote the checkpoint on Spark {} and {} is another major line: a jar built for one does not link on the other (Scala line, moved API classes); give those targets their own build with [job.per_target.\"{major}.*\"] jar = … (README: a JVM job)",
            inspection.writer_version.describe(),
            other_line.join(", ")
        ));
    }
    hints
}
