//! The command line (clap derive) and the flag groups several commands share: no I/O here.
//! Each command's own arguments are in its file under `commands/`.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands::capture::CaptureArgs;
use crate::commands::classify::ClassifyArgs;
use crate::commands::gc::GcArgs;
use crate::commands::images::ImagesCommand;
use crate::commands::init::InitArgs;
use crate::commands::inspect::InspectArgs;
use crate::commands::matrix::MatrixArgs;
use crate::commands::run::RunArgs;

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

/// Where the trials run and with which extra conf, for `run` and `matrix` (declared once;
/// `matrix` words some helps its own way, `MatrixArgs`'s `mut_arg`s): `--runtime`, the
/// standalone cluster's shape, `--master` with `--advertised-host`, `--conf`.
#[derive(Debug, Args, Default)]
pub struct PlacementArgs {
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

/// `err` with a tip naming the environment variable its bad value came from: clap's message
/// names only the flag (`invalid value 'abc' for '--jobs <N>'` when `REHEARSE_JOBS=abc` was
/// set and no `--jobs` given; issue 25). Every flag with an `env = …` is covered, found by its
/// long name in the whole command tree; `argv` is the command line parsed (its first word the
/// program) and `env` reads a variable (the process's, or a test's).
pub fn name_the_environment(
    mut err: clap::Error,
    argv: &[std::ffi::OsString],
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if !matches!(
        err.kind(),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation
    ) {
        return err;
    }
    let Some(ContextValue::String(flag)) = err.get(ContextKind::InvalidArg).cloned() else {
        return err;
    };
    let long = flag
        .trim_start_matches("--")
        .split([' ', '='])
        .next()
        .unwrap_or_default()
        .to_owned();
    let given = argv.iter().skip(1).any(|a| {
        a.to_str()
            .is_some_and(|a| a == format!("--{long}") || a.starts_with(&format!("--{long}=")))
    });
    fn find(cmd: &clap::Command, long: &str) -> Option<String> {
        cmd.get_arguments()
            .find(|a| a.get_long() == Some(long))
            .and_then(|a| a.get_env())
            .and_then(|e| e.to_str())
            .map(str::to_owned)
            .or_else(|| cmd.get_subcommands().find_map(|c| find(c, long)))
    }
    let Some(var) = find(&<Cli as clap::CommandFactory>::command(), &long) else {
        return err;
    };
    if given || env(&var).is_none() {
        return err;
    }
    err.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![format!(
            "the value comes from the environment variable {var} (no --{long} was given): fix it or unset it"
        )
        .into()]),
    );
    err
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Issue 25: `REHEARSE_JOBS=abc rehearse run s.toml` said only "invalid value 'abc' for
    /// '--jobs <N>'". Every flag read from the environment names its variable; a value given on
    /// the command line, or another error, is left as clap says it.
    #[test]
    fn a_bad_value_from_the_environment_names_its_variable() {
        use clap::Parser as _;
        let tip = |argv: &[&str], var: &str, value: &str| {
            let argv: Vec<std::ffi::OsString> = argv.iter().map(Into::into).collect();
            let env = |name: &str| (name == var).then(|| value.into());
            let err = Cli::try_parse_from(&argv).expect_err("a bad value");
            name_the_environment(err, &argv, env).to_string()
        };
        for (var, flag, value, argv) in [
            (
                "REHEARSE_JOBS",
                "--jobs",
                "abc",
                &["rehearse", "run", "s.toml", "--jobs", "abc"][..],
            ),
            (
                "REHEARSE_SPARK_MEMORY",
                "--spark-memory",
                "1",
                &["rehearse", "run", "s.toml", "--spark-memory", "1"][..],
            ),
            (
                "REHEARSE_RUNTIME",
                "--runtime",
                "bogus",
                &["rehearse", "run", "s.toml", "--runtime", "bogus"][..],
            ),
        ] {
            // As clap sees it when the value came from the variable: the flag is not in argv.
            let err = Cli::try_parse_from(argv).expect_err("a bad value");
            let from_env: Vec<std::ffi::OsString> = ["rehearse", "run", "s.toml"]
                .iter()
                .map(Into::into)
                .collect();
            let env = |name: &str| (name == var).then(|| value.into());
            let text = name_the_environment(err, &from_env, env).to_string();
            assert!(
                text.contains(&format!("environment variable {var}")),
                "{text}"
            );
            assert!(text.contains(&format!("no {flag} was given")), "{text}");
            // Given on the command line: clap's message alone.
            assert!(!tip(argv, var, value).contains("environment variable"));
        }
        // Not set in the environment: clap's message alone.
        let argv: Vec<std::ffi::OsString> = ["rehearse", "run", "s.toml"]
            .iter()
            .map(Into::into)
            .collect();
        let err = Cli::try_parse_from(["rehearse", "run", "s.toml", "--jobs", "0"])
            .expect_err("out of range");
        assert!(!name_the_environment(err, &argv, |_| None)
            .to_string()
            .contains("environment"));
    }

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
