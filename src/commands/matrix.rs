//! `rehearse matrix SUITE` and `rehearse matrix merge`: arguments in, the library's suite runner
//! (`matrix/run.rs`) called, the matrix reporters out. Progress (one line per finished cell, each
//! grid once complete, under a bar of cells on a terminal: `progress_render.rs`) goes to stderr;
//! the grid or the JSON document to stdout; other formats to files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, Subcommand};
use rehearse::exit::{ErrorKind, Outcome};
use rehearse::matrix::{self, MatrixEvent, MatrixOptions, Suite};
use rehearse::rehearsal;
use rehearse::report::matrix::{self as reports, MatrixReport};
use rehearse::report::{Format, ProgressMode, TerminalStyle};
use rehearse::scenario::Overrides;
use rehearse::trial::TrialSettings;

use super::{common, Failure, KeptContext as _, Kind as _};
use crate::cli::PlacementArgs;
use crate::progress_render::Progress;

/// `rehearse matrix`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
// The placement flags are `run`'s (`PlacementArgs`), said of cells and suites here.
#[command(mut_arg("runtime", |a| a.help(
    "Where Kafka and Spark run: containers, host processes (no Docker; see README), or a \
     standalone cluster the cells share (default: docker, or standalone when the suite has a \
     `[cluster]` table)"
)))]
#[command(mut_arg("master", |a| a.help(
    "Submit each cell's restart to an existing cluster instead (client mode), as on `run`: \
     `spark://host:7077`, `k8s://https://…`, `yarn`. Needs --report-dir on a directory every \
     node of the cluster mounts at the same path (see docs/CLUSTER.md)"
)))]
#[command(mut_arg("advertised_host", |a| a.help(
    "The address the cluster reaches this machine at (with --master), as on `run`"
)))]
#[command(mut_arg("conf", |a| a.help(
    "Extra Spark conf for every cell's restart and generation, after each shape's \
     `[job.conf]`, as on `run`. Repeatable"
)))]
pub struct MatrixArgs {
    /// `merge`: join shard reports instead of running a suite.
    #[command(subcommand)]
    pub command: Option<MatrixCommand>,
    /// The suite file (TOML; see scenarios/suites/README.md).
    #[arg(required = true)]
    pub suite: Option<PathBuf>,
    /// Cells run at once (default: what free memory holds at --spark-memory each, at most the
    /// CPU count, at least 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: Option<u16>,
    /// Run only the I-th of N deterministic slices (by source checkpoint), e.g. 2/4.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<rehearse::matrix::Shard>,
    /// Memory cap of each Spark container, MiB.
    #[arg(long, value_name = "MIB", default_value_t = 2048, value_parser = clap::value_parser!(u64).range(512..))]
    pub spark_memory: u64,
    /// Where the cells run (`--runtime`, the cluster's shape, `--master`) and `--conf`.
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Keep every trial's sandbox and print its path in the reports.
    #[arg(long, env = "REHEARSE_KEEP")]
    pub keep: bool,
    /// Fail (exit 19) when every cell agrees but one carries a semantic warning (a removed
    /// watermark, state read under other field names), as the suite's `deny_warnings = true`.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Where sandboxes are created (default: the system temp dir).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Copy every file of each checkpoint into the sandboxes, not only what a restart from the
    /// last committed batch reads (the default).
    #[arg(long)]
    pub full_copy: bool,
    /// Report outputs.
    #[command(flatten)]
    pub output: MatrixOutput,
}

/// `rehearse matrix merge`.
#[derive(Debug, Subcommand)]
pub enum MatrixCommand {
    /// Join the JSON reports of a suite's shards into one report.
    Merge(MergeArgs),
}

/// `rehearse matrix merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON reports (schema "rehearse.matrix/v1") of shards of one suite.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Fail (exit 19) when every cell agrees but one carries a semantic warning (also when a
    /// shard was run with --deny-warnings or its suite says `deny_warnings = true`).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Report outputs.
    #[command(flatten)]
    pub output: MatrixOutput,
}

/// Where a matrix report goes: the grid (or JSON) on stdout, and files.
#[derive(Debug, Args)]
pub struct MatrixOutput {
    /// Print the versioned JSON report (schema "rehearse.matrix/v1") on stdout instead of the grid.
    #[arg(long)]
    pub json: bool,
    /// Also write JUnit XML (one test case per cell) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write a Markdown summary (fit for a CI job summary) to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write a self-contained HTML page (grid coloured by verdict, evidence per cell) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// The largest `--spark-memory` (1 TiB, in MiB): Docker takes the cap in bytes as an i64.
const MAX_SPARK_MEMORY_MB: u64 = 1 << 20;

/// `rehearse matrix …`.
pub fn exec(args: MatrixArgs, mode: ProgressMode) -> Result<Outcome, Failure> {
    if let Some(MatrixCommand::Merge(merge)) = args.command {
        return run_merge(merge);
    }
    let Some(path) = args.suite.as_deref() else {
        return Err(Failure::bad_input(anyhow::anyhow!(
            "give a suite file: rehearse matrix SUITE (see scenarios/suites/README.md)"
        )));
    };
    args.placement
        .cluster
        .check(args.placement.runtime)
        .kind(ErrorKind::BadInput)?;
    if args.spark_memory > MAX_SPARK_MEMORY_MB {
        // Docker takes the cap in bytes (an i64): a larger value would overflow on the way.
        say!(
            "error: --spark-memory {} MiB is more than any machine has; give the cap of each Spark container in MiB, from 512 to {MAX_SPARK_MEMORY_MB} (default 2048)",
            args.spark_memory
        );
        return Ok(Outcome::Usage);
    }
    common::check_outputs(args.report_dir.as_deref(), &output_files(&args.output))
        .kind(ErrorKind::BadInput)?;
    let mut warnings = Vec::new();
    let loaded = Suite::load_with(path, &mut warnings);
    common::say_warnings(&warnings);
    let mut suite = loaded?;
    suite.deny_warnings |= args.deny_warnings;
    // Only `--conf` reaches a shape's scenario: a suite has its own targets and parity.
    let overrides = Overrides {
        conf: args.placement.conf.clone(),
        ..Overrides::default()
    };
    for shape in &mut suite.shapes {
        shape.scenario.apply(&overrides)?;
    }
    let options = options(&args, suite.cluster).kind(ErrorKind::BadInput)?;
    matrix::refuse_nested_paths(&suite, &options)?;
    let mut progress = Progress::new(mode, std::io::stderr());
    matrix::prepare_runtime(
        &suite,
        options.shard,
        options.settings.runtime,
        &mut |line| progress.runtime_step(line),
    )?;
    progress.clear();
    let per_grid = matrix::cells_per_grid(&suite, options.shard);
    let total: usize = per_grid.values().sum();
    progress.line(&format!(
        "rehearse matrix {}: {total} cells{}, {} at once, Spark containers capped at {} MiB",
        suite.name,
        options
            .shard
            .map(|s| format!(" (shard {s})"))
            .unwrap_or_default(),
        options.jobs,
        args.spark_memory
    ));
    if let Some(line) = cluster_line(options.settings.runtime) {
        progress.line(&line);
    }
    // No kind of its own: bad input, as it always was.
    let runtime = tokio::runtime::Runtime::new().map_err(|e| {
        Failure::bad_input(anyhow::Error::new(e).context("cannot start the async runtime"))
    })?;
    let mut grids = Grids::new(matrix::empty_report(&suite, &options), per_grid);
    let started = std::time::Instant::now();
    progress.cells_started(total);
    let outcome = runtime.block_on(rehearsal::or_interrupted(matrix::run_matrix(
        &suite,
        &options,
        &mut |event| match event {
            MatrixEvent::SourceStarted { group } => progress.source_started(&group),
            MatrixEvent::CellStarted { cell } => progress.cell_started(&cell),
            MatrixEvent::ControlFinished { control } => {
                progress.line(&format!(
                    "{}: the control on {} (the unchanged job on the source version): {}",
                    control.id(),
                    control.version,
                    control.outcome()
                ));
                // Kept for a report after Ctrl-C too.
                grids.partial.controls.push(*control);
            }
            MatrixEvent::CellFinished { done, total, cell } => {
                let text = grids.cell_finished(done, total, &cell);
                progress.cell_finished(done, &cell.id(), &text);
            }
        },
    )));
    drop(progress);
    let Some(result) = outcome else {
        // Interrupted: remove this run's containers, then keep what finished — a long suite's
        // finished cells are worth a report (cells not run show as `·`; cached checkpoints stay).
        say!(
            "interrupted: removing rehearse containers; reporting the {} of {total} cells that finished",
            grids.partial.cells.len()
        );
        runtime.block_on(rehearsal::sweep_after_interrupt());
        let mut partial = grids.partial;
        partial.incomplete = true;
        partial.seconds = started.elapsed().as_secs_f64();
        partial.sort();
        write_outputs(&partial, &args.output)?;
        return Ok(Outcome::Interrupted);
    };
    let report = result?;
    write_outputs(&report, &args.output)?;
    Ok(reports::outcome(&report))
}

/// How to run the suite, from the arguments: `--jobs` (default: what memory and CPUs allow at
/// `--spark-memory` each), `--shard`, sandboxes, `--keep`, `--runtime` (and the suite's
/// `[cluster]`, `cluster`).
fn options(
    args: &MatrixArgs,
    cluster: Option<rehearse::scenario::ClusterShape>,
) -> anyhow::Result<MatrixOptions> {
    Ok(MatrixOptions {
        jobs: args
            .jobs
            .map(usize::from)
            .unwrap_or_else(|| matrix::default_jobs(args.spark_memory)),
        shard: args.shard,
        settings: TrialSettings {
            report_dir: args.report_dir.clone(),
            keep: args.keep,
            spark_memory_mb: Some(args.spark_memory),
            runtime: common::runtime_kind(&args.placement, args.report_dir.as_deref(), cluster)?,
            full_copy: args.full_copy,
            // The matrix gates its cells itself (--jobs there).
            jobs: 1,
        },
    })
}

/// The line saying where the cells restart when it is not `local[2]`: the suite's standalone
/// clusters (one per target version, shared by its cells, how many at once) or `--master`.
fn cluster_line(runtime: rehearse::runtime::RuntimeKind) -> Option<String> {
    use rehearse::runtime::{RuntimeKind, SharedCluster};
    match runtime {
        RuntimeKind::Standalone(shape) => {
            let shared = SharedCluster {
                master: String::new(),
                shape,
                sandboxes: PathBuf::new(),
            };
            Some(format!(
                "cells restart on a standalone cluster per target version (1 master, {} worker(s) of {} core(s) and {} MiB), shared: each cell 1 executor of 1 core and {} MiB, at most {} cells of a version at once",
                shape.workers,
                shape.cores,
                shape.memory_mb,
                shared.executor_memory_mb(),
                shared.slots()
            ))
        }
        RuntimeKind::Master(c) => Some(format!(
            "cells restart on {} (client mode; the driver at {})",
            c.master, c.advertised_host
        )),
        _ => None,
    }
}

/// Progress of a suite: one line per finished cell, and each shape·provider grid as soon as all
/// its cells are in (the grid as it fills). Keeps the finished cells, for the report of an
/// interrupted run.
struct Grids {
    /// The report so far: the cells finished.
    partial: MatrixReport,
    /// Cells per (shape, provider) grid.
    per_grid: BTreeMap<(String, String), usize>,
    /// Cells finished per grid.
    done_per_grid: BTreeMap<(String, String), usize>,
}

impl Grids {
    fn new(partial: MatrixReport, per_grid: BTreeMap<(String, String), usize>) -> Grids {
        Grids {
            partial,
            per_grid,
            done_per_grid: BTreeMap::new(),
        }
    }

    /// Records a finished cell; returns the text to show for it (its line, and its grid when
    /// that is complete).
    fn cell_finished(&mut self, done: usize, total: usize, cell: &reports::Cell) -> String {
        let mut err = Vec::new();
        let _ = reports::write_progress_line(done, total, cell, &mut err);
        self.partial.cells.push(cell.clone());
        let key = (cell.shape.clone(), cell.provider.clone());
        let n = self.done_per_grid.entry(key.clone()).or_insert(0);
        *n += 1;
        if self.per_grid.get(&key) == Some(n) {
            let mut one = self.partial.clone();
            one.shapes = vec![key.0.clone()];
            one.providers = vec![key.1.clone()];
            one.cells
                .retain(|c| c.shape == key.0 && c.provider == key.1);
            one.sort();
            let _ = writeln!(err);
            let _ = reports::write_grid_only(&one, &mut err);
            let _ = writeln!(err);
        }
        String::from_utf8_lossy(&err).into_owned()
    }
}

/// The report files a matrix command writes, with their flags.
fn output_files(output: &MatrixOutput) -> [(&'static str, &Option<PathBuf>); 3] {
    [
        ("--junit", &output.junit),
        ("--markdown", &output.markdown),
        ("--html", &output.html),
    ]
}

/// Whether `a` and `b` name the same file (the same device and inode, through links).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

fn run_merge(args: MergeArgs) -> Result<Outcome, Failure> {
    let outputs = output_files(&args.output);
    common::check_outputs(None, &outputs).kind(ErrorKind::BadInput)?;
    for (flag, out) in outputs {
        let Some(out) = out else { continue };
        if let Some(input) = args.reports.iter().find(|r| same_file(r, out)) {
            return Err(Failure::bad_input(anyhow::anyhow!(
                "{flag} {} is the input report {}: writing it would overwrite a shard's report\n  hint: write the merged report to another file",
                out.display(),
                input.display()
            )));
        }
    }
    let mut inputs = Vec::new();
    for path in &args.reports {
        inputs.push((
            path.display().to_string(),
            read_report(path).kind(ErrorKind::BadInput)?,
        ));
    }
    let mut report = reports::merge(inputs)?;
    report.deny_warnings |= args.deny_warnings;
    write_outputs(&report, &args.output)?;
    Ok(reports::outcome(&report))
}

fn read_report(path: &Path) -> anyhow::Result<MatrixReport> {
    let text =
        rehearse::userfile::read_text(path, "matrix report", rehearse::userfile::MAX_REPORT_BYTES)?;
    // Another rehearse document (a `rehearse run --json` report, a newer matrix schema): say so
    // before serde complains about a missing field.
    if let Ok(serde_json::Value::Object(doc)) = serde_json::from_str::<serde_json::Value>(&text) {
        if let Some(schema) = doc.get("schema").and_then(|s| s.as_str()) {
            if schema != reports::MATRIX_SCHEMA {
                anyhow::bail!(
                    "{} has schema {schema:?}, not {:?}: merge reads the JSON of `rehearse matrix SUITE --json` (a `rehearse run` report is not one)",
                    path.display(),
                    reports::MATRIX_SCHEMA
                );
            }
        }
    }
    let report: MatrixReport = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a rehearse matrix report (JSON, schema {:?}); write one with `rehearse matrix SUITE --json > FILE`",
            path.display(),
            reports::MATRIX_SCHEMA
        )
    })?;
    if report.schema != reports::MATRIX_SCHEMA {
        anyhow::bail!(
            "{} has schema {:?}, not {:?}: merge reads the JSON of `rehearse matrix SUITE --json`",
            path.display(),
            report.schema,
            reports::MATRIX_SCHEMA
        );
    }
    Ok(report)
}

fn write_outputs(report: &MatrixReport, output: &MatrixOutput) -> Result<(), Failure> {
    use rehearse::userfile::{write_with, Existing};
    for (path, what, format) in [
        (&output.junit, "JUnit report", Format::Junit),
        (&output.markdown, "Markdown report", Format::Markdown),
        (&output.html, "HTML report", Format::Html),
    ] {
        if let Some(p) = path {
            write_with(p, what, Existing::Replace, |mut f| {
                reports::write(format, report, &mut f)
            })?;
        }
    }
    let mut out = std::io::stdout().lock();
    let format = if output.json {
        Format::Json
    } else {
        // The grid has no colour: the style is not read.
        Format::Terminal(TerminalStyle::default())
    };
    let written = reports::write(format, report, &mut out);
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other
            .map_err(common::StdoutError)
            .context_kept(if output.json {
                "cannot write the JSON report to stdout"
            } else {
                "cannot write the grid to stdout"
            }),
    }
}
