//! `rehearse matrix SUITE` and `rehearse matrix merge`: arguments in, the library's suite runner
//! (`matrix/run.rs`) called, the matrix reporters out. Progress (one line per finished cell, each
//! grid once complete, under a bar of cells on a terminal: `progress_render.rs`) goes to stderr;
//! the grid or the JSON document to stdout; other formats to files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rehearse::exit::Outcome;
use rehearse::matrix::{self, MatrixEvent, MatrixOptions, Suite};
use rehearse::rehearsal;
use rehearse::report::matrix::{self as reports, MatrixReport};
use rehearse::report::ProgressMode;
use rehearse::trial::TrialSettings;

use crate::cli::{MatrixArgs, MatrixCommand, MatrixOutput, MergeArgs};
use crate::progress_render::Progress;

/// The largest `--spark-memory` (1 TiB, in MiB): Docker takes the cap in bytes as an i64.
const MAX_SPARK_MEMORY_MB: u64 = 1 << 20;

/// `rehearse matrix …`.
pub fn run(args: MatrixArgs, mode: ProgressMode) -> anyhow::Result<Outcome> {
    if let Some(MatrixCommand::Merge(merge)) = args.command {
        return run_merge(merge);
    }
    let Some(path) = args.suite.as_deref() else {
        anyhow::bail!("give a suite file: rehearse matrix SUITE (see scenarios/suites/README.md)");
    };
    args.cluster.check(args.runtime)?;
    if args.spark_memory > MAX_SPARK_MEMORY_MB {
        // Docker takes the cap in bytes (an i64): a larger value would overflow on the way.
        say!(
            "error: --spark-memory {} MiB is more than any machine has; give the cap of each Spark container in MiB, from 512 to {MAX_SPARK_MEMORY_MB} (default 2048)",
            args.spark_memory
        );
        return Ok(Outcome::Usage);
    }
    crate::run_command::check_outputs(args.report_dir.as_deref(), &output_files(&args.output))?;
    let mut suite = Suite::load(path)?;
    suite.deny_warnings |= args.deny_warnings;
    for shape in &mut suite.shapes {
        crate::run_command::add_conf(&mut shape.scenario, &args.conf)?;
    }
    let options = options(&args, suite.cluster)?;
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
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
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
            runtime: match &args.master {
                Some(master) => crate::run_command::external_cluster(
                    master,
                    args.report_dir.as_deref(),
                    args.advertised_host.as_deref(),
                )?,
                None => args.cluster.runtime(args.runtime, cluster)?,
            },
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

fn run_merge(args: MergeArgs) -> anyhow::Result<Outcome> {
    let outputs = output_files(&args.output);
    crate::run_command::check_outputs(None, &outputs)?;
    for (flag, out) in outputs {
        let Some(out) = out else { continue };
        if let Some(input) = args.reports.iter().find(|r| same_file(r, out)) {
            anyhow::bail!(
                "{flag} {} is the input report {}: writing it would overwrite a shard's report\n  hint: write the merged report to another file",
                out.display(),
                input.display()
            );
        }
    }
    let mut inputs = Vec::new();
    for path in &args.reports {
        inputs.push((path.display().to_string(), read_report(path)?));
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

fn write_outputs(report: &MatrixReport, output: &MatrixOutput) -> anyhow::Result<()> {
    use rehearse::userfile::{write_with, Existing};
    if let Some(p) = &output.junit {
        write_with(p, "JUnit report", Existing::Replace, |mut f| {
            reports::write_junit(report, &mut f)
        })?;
    }
    if let Some(p) = &output.markdown {
        write_with(p, "Markdown report", Existing::Replace, |mut f| {
            reports::write_markdown(report, &mut f)
        })?;
    }
    if let Some(p) = &output.html {
        write_with(p, "HTML report", Existing::Replace, |mut f| {
            reports::write_html(report, &mut f)
        })?;
    }
    let mut out = std::io::stdout().lock();
    let written = if output.json {
        reports::write_json(report, &mut out)
    } else {
        reports::write_grid(report, &mut out)
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other.map_err(crate::StdoutError).context(if output.json {
            "cannot write the JSON report to stdout"
        } else {
            "cannot write the grid to stdout"
        })?),
    }
}
