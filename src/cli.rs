//! Command-line types (clap derive) only: no I/O here. `main.rs` turns them into library calls.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Rehearse the restart of a Spark Structured Streaming query (Kafka source) from its
/// production checkpoint on another Spark version, in containers, before production does.
// `--help` ends with the exit codes, generated from the one table in `rehearse::exit`.
#[derive(Debug, Parser)]
#[command(name = "rehearse", version, about, long_about)]
#[command(after_long_help = rehearse::exit::help_text())]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Trace what the harness does (debug lines on stderr); `RUST_LOG` chooses finer filters.
    #[arg(long, global = true)]
    pub verbose: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Describe a checkpoint, read-only: batches, Kafka offsets, state, writer version, findings.
    Inspect(InspectArgs),
    /// Write a starting scenario from a checkpoint: its topics and partitions, the writer's
    /// version and targets after it, the confs it pins, placeholders for the job's arguments.
    Init(InitArgs),
    /// Rehearse a scenario: restart its checkpoint on each target Spark version and give verdicts.
    Run(RunArgs),
    /// Run a suite: query shapes × providers × source versions × target versions, as a grid of
    /// verdicts (`rehearse matrix merge` joins the JSON reports of shards).
    Matrix(MatrixArgs),
    /// Classify a driver log of a restart run by hand, with the rules a trial uses.
    Classify(ClassifyArgs),
    /// Copy the records around a checkpoint's offsets from a production Kafka cluster,
    /// read-only, into records files (JSON Lines, one per topic) for offline and CI replay.
    Capture(CaptureArgs),
    /// Build or list the local Spark and Kafka images trials run in.
    #[command(subcommand)]
    Images(ImagesCommand),
    /// Remove containers, networks and local-runtime processes (and their broker data) left
    /// behind by interrupted trials (those of rehearse processes still running are kept), and
    /// name the sandboxes a killed rehearsal left in the temp dir.
    Gc(GcArgs),
}

/// `rehearse gc`.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// Also delete the sandboxes (checkpoint copies, logs) that rehearsals killed with SIGKILL
    /// left in the temp dir; without it they are only listed. Kept sandboxes (`--keep`) and
    /// those of running rehearsals are never touched.
    #[arg(long)]
    pub sandboxes: bool,
}

/// `rehearse capture`.
#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// The checkpoint whose Kafka offsets say which records to copy: a directory or a store's
    /// URL (`s3://…`, `gs://…`, `abfss://…`, `hdfs://…`, as `inspect` takes it; only read).
    pub checkpoint: PathBuf,
    /// The production cluster's bootstrap servers (host:port[,host:port…]).
    #[arg(long, value_name = "SERVERS")]
    pub bootstrap_servers: String,
    /// A Kafka client properties file: security.protocol, sasl.mechanism (PLAIN, SCRAM-SHA-256,
    /// SCRAM-SHA-512), sasl.username/sasl.password or sasl.jaas.config, ssl.* files.
    #[arg(long, value_name = "FILE")]
    pub properties: Option<PathBuf>,
    /// Records per partition copied below the checkpoint's offset.
    #[arg(long, default_value_t = rehearse::scenario::DEFAULT_MIRROR_HISTORY)]
    pub history: u64,
    /// Records per partition copied from the checkpoint's offset on.
    #[arg(long, default_value_t = rehearse::scenario::DEFAULT_MIRROR_FRESH)]
    pub fresh: u64,
    /// Where `<topic>.jsonl` files are written (created if missing). An existing file is
    /// refused unless --force.
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Replace existing `<topic>.jsonl` files in --out-dir.
    #[arg(long)]
    pub force: bool,
}

/// `rehearse inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The checkpoint (the query's checkpointLocation): a directory, or a URL (s3://, gs://,
    /// az://, wasbs://, abfss://, hdfs://, webhdfs://, file://) read with the platform's standard
    /// credentials. Only listed and read, never written to.
    pub checkpoint: PathBuf,
    /// Print the versioned JSON document (schema "rehearse.inspect/v1") instead of text.
    #[arg(long)]
    pub json: bool,
}

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

/// `rehearse run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (TOML; see scenarios/README.md).
    pub scenario: PathBuf,
    /// Target Spark versions to rehearse on, replacing the scenario's `targets`.
    #[arg(long = "target", value_name = "VERSION")]
    pub targets: Vec<String>,
    /// Keep the sandbox (checkpoint copy, logs, event log) and print its path.
    #[arg(long, env = "REHEARSE_KEEP")]
    pub keep: bool,
    /// Where sandboxes are created (default: the system temp dir). Without --keep each trial's
    /// driver log, event log and trial.json stay there (without --report-dir: under
    /// ~/.cache/rehearse/reports/); the checkpoint copy goes.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Copy every file of the checkpoint into each sandbox, not only what a restart from the
    /// last committed batch reads (the default).
    #[arg(long)]
    pub full_copy: bool,
    /// Targets rehearsed at once, each with a Kafka and sandbox of its own (default: what free
    /// memory holds, at most the CPU count, on the docker runtime; 1 on the others). The
    /// control runs first; a target's fresh run follows its trial.
    #[arg(long, value_name = "N", env = "REHEARSE_JOBS", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: Option<u16>,
    /// Cap the memory of each Spark container (MiB; Docker --memory, no swap on top), as
    /// production's driver limit would; no cap by default. A driver the kernel kills over it
    /// gets environment-error, rule spark-oom-killed. Not applied on the local runtime.
    #[arg(long, value_name = "MIB", env = "REHEARSE_SPARK_MEMORY", value_parser = clap::value_parser!(u64).range(64..=(1 << 20)))]
    pub spark_memory: Option<u64>,
    /// Print the versioned JSON report (schema "rehearse.run/v1") on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write a Markdown report (fit for a CI job summary) to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Where Kafka and Spark run, for the source checkpoint's generation and every trial
    /// (default: docker, or standalone when the scenario has a `[cluster]` table).
    #[arg(long, value_enum, env = "REHEARSE_RUNTIME")]
    pub runtime: Option<RuntimeChoice>,
    /// The standalone cluster's shape (`--runtime standalone`).
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Submit each restart to an existing cluster instead (client mode): `spark://host:7077`,
    /// `k8s://https://…`, `yarn`. Needs --report-dir on a directory every node of the cluster
    /// mounts at the same path (see docs/CLUSTER.md).
    #[arg(long, value_name = "URL", conflicts_with_all = ["runtime", "workers", "worker_cores", "worker_memory"])]
    pub master: Option<String>,
    /// The address the cluster reaches this machine at, for the driver (`spark.driver.host`)
    /// and the sandbox Kafka's advertised listener (with --master; default: this machine's
    /// address on its default route).
    #[arg(long, value_name = "HOST", requires = "master")]
    pub advertised_host: Option<String>,
    /// Extra Spark conf for every restart (and generation), after the scenario's `[job.conf]`:
    /// `--conf spark.executor.instances=2`. Repeatable.
    #[arg(long = "conf", value_name = "KEY=VALUE")]
    pub conf: Vec<String>,
    /// Fail (exit 19) when a target resumed with a semantic warning — a removed watermark,
    /// state read under other field names — as the scenario's `deny_warnings = true` does.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Also run a control: the same checkpoint restarted on the source version with the
    /// unchanged job (no restart_args), over the same records, and compare what each target
    /// wrote after the restart with it (output parity; a difference exits 21) — as the
    /// scenario's `control = true` does.
    #[arg(long)]
    pub control: bool,
    /// Also rehearse the remedy on every target: its job (with restart_args) on a new empty
    /// checkpoint with `{starting_offsets}` (the last committed batch's Kafka offsets), its
    /// first batch proved to start there, its output compared with the control's (turns
    /// --control on; a failed or unproven fresh start exits 22) — as the scenario's
    /// `fresh = true` does.
    #[arg(long)]
    pub fresh: bool,
}

/// Where a rehearsal runs Kafka and Spark (`--runtime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuntimeChoice {
    /// Containers from the local images rehearse/spark:V and rehearse/kafka:V (built when
    /// missing; needs a Docker engine).
    Docker,
    /// Host processes: the same Spark distribution and Kafka broker installed under the cache
    /// and run with the host's java and python3 (no Docker engine needed).
    Local,
    /// A Spark standalone cluster in containers of the same image: one master and --workers
    /// workers, the driver in client mode (see docs/CLUSTER.md).
    Standalone,
}

/// The shape of a standalone cluster; each flag overrides the scenario's or suite's
/// `[cluster]` key of the same meaning.
#[derive(Debug, Args, Default)]
pub struct ClusterArgs {
    /// Workers of the standalone cluster (default 1; with --runtime standalone).
    // `requires`: without --runtime a cluster flag was taken to mean standalone, and with
    // `--runtime docker|local` it was refused only after the scenario loaded (issue 25 §6):
    // refused at parse, as usage, with or without a `[cluster]` table.
    #[arg(long, value_name = "N", requires = "runtime")]
    pub workers: Option<u16>,
    /// Cores each worker offers (default 2; with --runtime standalone).
    #[arg(long, value_name = "N", requires = "runtime")]
    pub worker_cores: Option<u16>,
    /// Memory each worker offers to its executor, MiB (default 1024; with --runtime standalone).
    #[arg(long, value_name = "MIB", requires = "runtime")]
    pub worker_memory: Option<u32>,
}

impl ClusterArgs {
    fn given(&self) -> bool {
        self.workers.is_some() || self.worker_cores.is_some() || self.worker_memory.is_some()
    }

    /// Refuses cluster flags with `--runtime docker|local` before anything is read (the
    /// scenario or suite loaded first, so its errors came before this one): with clap's
    /// `requires`, a cluster flag is then checked whole as the command line is read.
    pub fn check(&self, choice: Option<RuntimeChoice>) -> anyhow::Result<()> {
        if self.given() && matches!(choice, Some(RuntimeChoice::Docker | RuntimeChoice::Local)) {
            anyhow::bail!(
                "--workers, --worker-cores and --worker-memory shape a standalone cluster: \
                 give them with --runtime standalone (or drop them)"
            );
        }
        Ok(())
    }

    /// The runtime `--runtime` and these flags ask for, with `file` the scenario's or suite's
    /// `[cluster]`: `--runtime` wins; without it a `[cluster]` table means standalone. Cluster
    /// flags need `--runtime standalone` (clap refuses them without `--runtime`; with
    /// `--runtime docker|local`, or without it when called as a library, they are refused here).
    pub fn runtime(
        &self,
        choice: Option<RuntimeChoice>,
        file: Option<rehearse::scenario::ClusterShape>,
    ) -> anyhow::Result<rehearse::runtime::RuntimeKind> {
        use rehearse::runtime::{Cluster, RuntimeKind};
        self.check(choice)?;
        let standalone = match choice {
            None if self.given() => {
                anyhow::bail!(
                    "--workers, --worker-cores and --worker-memory shape a standalone cluster: \
                     give them with --runtime standalone (or drop them)"
                )
            }
            Some(RuntimeChoice::Docker) => return Ok(RuntimeKind::Docker),
            Some(RuntimeChoice::Local) => return Ok(RuntimeKind::Local),
            Some(RuntimeChoice::Standalone) => true,
            None => file.is_some(),
        };
        if !standalone {
            return Ok(RuntimeKind::Docker);
        }
        let base = file.unwrap_or_default();
        let spec = rehearse::scenario::ClusterSpec {
            workers: Some(self.workers.unwrap_or(base.workers)),
            cores: Some(self.worker_cores.unwrap_or(base.cores)),
            memory_mb: Some(self.worker_memory.unwrap_or(base.memory_mb)),
        };
        let shape = rehearse::scenario::cluster_shape(&spec).map_err(|m| {
            anyhow::anyhow!("the standalone cluster (--workers/--worker-cores/--worker-memory or [cluster]): {m}")
        })?;
        Ok(RuntimeKind::Standalone(Cluster {
            workers: shape.workers,
            cores: shape.cores,
            memory_mb: shape.memory_mb,
        }))
    }
}

/// `rehearse matrix`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
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
    /// Where Kafka and Spark run: containers, host processes (no Docker; see README), or a
    /// standalone cluster the cells share (default: docker, or standalone when the suite has a
    /// `[cluster]` table).
    #[arg(long, value_enum, env = "REHEARSE_RUNTIME")]
    pub runtime: Option<RuntimeChoice>,
    /// The standalone cluster's shape (`--runtime standalone`).
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Submit each cell's restart to an existing cluster instead (client mode), as on `run`:
    /// `spark://host:7077`, `k8s://https://…`, `yarn`. Needs --report-dir on a directory every
    /// node of the cluster mounts at the same path (see docs/CLUSTER.md).
    #[arg(long, value_name = "URL", conflicts_with_all = ["runtime", "workers", "worker_cores", "worker_memory"])]
    pub master: Option<String>,
    /// The address the cluster reaches this machine at (with --master), as on `run`.
    #[arg(long, value_name = "HOST", requires = "master")]
    pub advertised_host: Option<String>,
    /// Extra Spark conf for every cell's restart and generation, after each shape's
    /// `[job.conf]`, as on `run`. Repeatable.
    #[arg(long = "conf", value_name = "KEY=VALUE")]
    pub conf: Vec<String>,
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

/// `rehearse classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// The driver log (stderr and stdout of spark-submit) of the restart.
    pub driver_log: PathBuf,
    /// The Spark event log file (or a directory holding one) of the restart.
    #[arg(long, value_name = "PATH")]
    pub event_log: Option<PathBuf>,
    /// The checkpoint as it was before the restart, to prove resumed offsets and plan changes.
    #[arg(long, value_name = "PATH")]
    pub checkpoint: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `rehearse images …`.
#[derive(Debug, Subcommand)]
pub enum ImagesCommand {
    /// Build `rehearse/spark:<V>` and/or `rehearse/kafka:<V>` (cached: an image built from the
    /// same recipe is not rebuilt).
    Build(ImagesBuildArgs),
    /// List the local rehearse images.
    List,
}

/// `rehearse images build`.
#[derive(Debug, Args)]
pub struct ImagesBuildArgs {
    /// Spark versions to build (e.g. 3.5.3, 4.0.1).
    #[arg(long = "spark", value_name = "VERSION")]
    pub spark: Vec<String>,
    /// Kafka broker versions to build (e.g. 3.9.1).
    #[arg(long = "kafka", value_name = "VERSION")]
    pub kafka: Vec<String>,
    /// Where the images come from.
    #[arg(long, value_enum, default_value_t = ImageSource::Packages, env = "REHEARSE_IMAGE_SOURCE")]
    pub from: ImageSource,
}

/// Where `images build` takes its parts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImageSource {
    /// Debian (debootstrap), PyPI (pyspark) and Maven Central (connector, broker): no container
    /// registry needed.
    Packages,
    /// FROM the official `apache/spark` and `apache/kafka` images on Docker Hub.
    Official,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// `--runtime` wins over a `[cluster]` table; a table or a cluster flag alone means
    /// standalone; flags override the table's keys; a cluster flag with docker/local and a
    /// shape out of range are refused.
    #[test]
    fn the_runtime_comes_from_the_flag_then_the_cluster_table() {
        use rehearse::runtime::{Cluster, RuntimeKind};
        use rehearse::scenario::ClusterShape;
        let none = ClusterArgs::default();
        let table = Some(ClusterShape {
            workers: 3,
            cores: 1,
            memory_mb: 2048,
        });
        assert_eq!(none.runtime(None, None).unwrap(), RuntimeKind::Docker);
        assert_eq!(
            none.runtime(Some(RuntimeChoice::Local), table).unwrap(),
            RuntimeKind::Local
        );
        assert_eq!(
            none.runtime(None, table).unwrap(),
            RuntimeKind::Standalone(Cluster {
                workers: 3,
                cores: 1,
                memory_mb: 2048
            })
        );
        let two = ClusterArgs {
            workers: Some(2),
            ..ClusterArgs::default()
        };
        assert_eq!(
            two.runtime(Some(RuntimeChoice::Standalone), None).unwrap(),
            RuntimeKind::Standalone(Cluster {
                workers: 2,
                ..Cluster::default()
            })
        );
        assert!(two.runtime(None, table).is_err());
        assert_eq!(
            two.runtime(Some(RuntimeChoice::Standalone), table).unwrap(),
            RuntimeKind::Standalone(Cluster {
                workers: 2,
                cores: 1,
                memory_mb: 2048
            })
        );
        let e = two.runtime(Some(RuntimeChoice::Docker), None).unwrap_err();
        assert!(e.to_string().contains("--runtime standalone"), "{e}");
        let zero = ClusterArgs {
            workers: Some(0),
            ..ClusterArgs::default()
        };
        let e = zero
            .runtime(Some(RuntimeChoice::Standalone), None)
            .unwrap_err();
        assert!(e.to_string().contains("workers = 0"), "{e}");
        let small = ClusterArgs {
            worker_memory: Some(100),
            ..ClusterArgs::default()
        };
        assert!(small
            .runtime(Some(RuntimeChoice::Standalone), None)
            .is_err());
    }

    /// Issue 25 §6: a cluster flag without `--runtime` (`run s.toml --workers 2`) is refused
    /// at parse with the usage code, on run and matrix; with `--runtime standalone` (or
    /// `REHEARSE_RUNTIME`, which clap reads as the flag) it parses.
    #[test]
    fn cluster_flags_need_runtime_standalone_at_parse() {
        for sub in [&["run", "s.toml"][..], &["matrix", "suite.toml"]] {
            for flag in ["--workers", "--worker-cores", "--worker-memory"] {
                let line = |extra: &[&'static str]| {
                    let mut l = vec!["rehearse"];
                    l.extend_from_slice(sub);
                    l.extend_from_slice(&[flag, "2"]);
                    l.extend_from_slice(extra);
                    l
                };
                let e = Cli::try_parse_from(line(&[])).unwrap_err();
                assert_eq!(e.exit_code(), rehearse::exit::Outcome::Usage.code());
                assert!(e.to_string().contains("--runtime"), "{e}");
                assert!(Cli::try_parse_from(line(&["--runtime", "standalone"])).is_ok());
            }
        }
    }

    /// `--master` excludes `--runtime` and the cluster flags; `--advertised-host` needs it.
    #[test]
    fn master_conflicts_with_a_runtime_and_advertised_host_needs_it() {
        let parse = |extra: &[&str]| {
            let mut line = vec!["rehearse", "run", "s.toml"];
            line.extend_from_slice(extra);
            Cli::try_parse_from(line)
        };
        assert!(parse(&["--master", "spark://h:7077"]).is_ok());
        assert!(parse(&["--master", "spark://h:7077", "--runtime", "docker"]).is_err());
        assert!(parse(&["--master", "spark://h:7077", "--workers", "2"]).is_err());
        assert!(parse(&["--advertised-host", "10.0.0.1"]).is_err());
        assert!(parse(&["--conf", "a=b", "--conf", "c=d"]).is_ok());
    }

    /// `rehearse --help` lists every exit code with its meaning, from `rehearse::exit`.
    #[test]
    fn help_lists_every_exit_code() {
        let help = Cli::command().render_long_help().to_string();
        let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for (code, meaning) in rehearse::exit::rows() {
            assert!(
                words.contains(&format!("{code} {meaning}")),
                "exit code {code} missing from --help:\n{help}"
            );
        }
    }

    /// clap's own exit code for a command line it cannot parse is the table's usage code.
    #[test]
    fn a_bad_command_line_exits_with_the_usage_code() {
        let err = Cli::try_parse_from(["rehearse", "--no-such-flag"]).unwrap_err();
        assert_eq!(err.exit_code(), rehearse::exit::Outcome::Usage.code());
    }

    /// Every subcommand's `--help` exits 0 (clap prints it) and an unknown flag exits with
    /// the usage code, 2 (issue 15).
    #[test]
    fn every_subcommand_help_exits_0_and_an_unknown_flag_exits_2() {
        for sub in [
            &["inspect"][..],
            &["run"],
            &["matrix"],
            &["matrix", "merge"],
            &["classify"],
            &["images"],
            &["images", "build"],
            &["images", "list"],
            &["gc"],
        ] {
            let line = |extra: &'static str| {
                std::iter::once("rehearse")
                    .chain(sub.iter().copied())
                    .chain(std::iter::once(extra))
                    .collect::<Vec<_>>()
            };
            let help = Cli::try_parse_from(line("--help")).unwrap_err();
            assert_eq!(help.exit_code(), 0, "{sub:?} --help");
            let bad = Cli::try_parse_from(line("--no-such-flag")).unwrap_err();
            assert_eq!(
                bad.exit_code(),
                rehearse::exit::Outcome::Usage.code(),
                "{sub:?} --no-such-flag"
            );
        }
    }

    /// `--verbose` is global: before or after the subcommand, including `matrix merge`.
    #[test]
    fn verbose_parses_anywhere() {
        for line in [
            &["rehearse", "--verbose", "gc"][..],
            &["rehearse", "gc", "--verbose"],
            &["rehearse", "inspect", "CKPT", "--verbose"],
            &["rehearse", "matrix", "merge", "a.json", "--verbose"],
            &["rehearse", "matrix", "suite.toml", "--verbose"],
        ] {
            let cli = Cli::try_parse_from(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
            assert!(cli.verbose, "{line:?}");
        }
        assert!(!Cli::try_parse_from(["rehearse", "gc"]).unwrap().verbose);
    }
}
