//! The job of a trial or a generation inside its sandbox: the job's files, its dependencies
//! (`deps`: resolved on the host, from the cache once a run resolved them) and the harness's
//! logging config staged into it, and the spark-submit argv with the scenario's placeholders
//! filled. Starts nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::TrialError;
use crate::deps::{self, PythonFor};
use crate::runtime::{KafkaBroker, RuntimeKind, TrialIds};
use crate::scenario::{fill_topics, Dependencies, Job, Placeholders, ResolvedJob, Scenario};
use crate::spark::{self, Submit};

/// The job as staged into a sandbox, paths relative to it.
#[derive(Debug, Clone)]
pub(super) struct StagedJob {
    /// The application (`job/app.py`, `job/app.jar`).
    pub app: String,
    /// Its dependencies (`deps/…`) and what the report says of them.
    pub deps: deps::Staged,
}

/// The Python the job's `requirements` are installed for on `runtime`.
fn python_for(runtime: RuntimeKind) -> PythonFor {
    match runtime {
        RuntimeKind::Local => PythonFor::Host,
        _ => PythonFor::Image,
    }
}

/// Resolves the job's dependencies for `version` on the host (`role` names the version in
/// errors: `target 4.0.1`), from the cache when a run resolved them before. `rehearse run` calls
/// it for every version before any image or container; staging calls it again (a cache hit).
pub fn resolve_dependencies(
    dependencies: &Dependencies,
    version: &str,
    role: &str,
    runtime: RuntimeKind,
    progress: &mut dyn FnMut(String),
) -> Result<deps::Resolved, TrialError> {
    Ok(deps::resolve(
        dependencies,
        version,
        role,
        python_for(runtime),
        progress,
    )?)
}

/// Copies the job (a PySpark file and the `.py` files beside it, or a jar) into `job/`, its
/// dependencies into `deps/` and the harness's logging config into `conf/`.
pub(super) fn stage_job(
    job: &ResolvedJob,
    dependencies: &Dependencies,
    sandbox: &Path,
    version: &str,
    runtime: RuntimeKind,
) -> Result<StagedJob, TrialError> {
    let resolved = resolve_dependencies(
        dependencies,
        version,
        &format!("Spark {version}"),
        runtime,
        &mut |_| {},
    )?;
    let deps = deps::stage(&resolved, sandbox)?;
    let stage = |from: &Path, to: PathBuf| -> Result<(), TrialError> {
        std::fs::copy(from, &to)
            .map(|_| ())
            .map_err(|source| TrialError::Stage {
                path: from.to_path_buf(),
                source,
            })
    };
    let app = match &job.job {
        Job::Python { file } => {
            if let Some(dir) = file.parent() {
                let siblings = std::fs::read_dir(dir).map_err(|source| TrialError::Stage {
                    path: dir.to_path_buf(),
                    source,
                })?;
                for entry in siblings.flatten() {
                    let p = entry.path();
                    if p.extension().is_some_and(|e| e == "py") && p.is_file() {
                        stage(&p, sandbox.join("job").join(entry.file_name()))?;
                    }
                }
            }
            stage(
                file,
                sandbox
                    .join("job")
                    .join(file.file_name().unwrap_or_default()),
            )?;
            file.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        }
        Job::Jar { jar, .. } => {
            stage(
                jar,
                sandbox
                    .join("job")
                    .join(jar.file_name().unwrap_or_default()),
            )?;
            jar.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        }
    };
    let (name, text) = spark::logging_config(version);
    let conf = sandbox.join("conf").join(name);
    std::fs::write(&conf, text).map_err(|source| TrialError::Stage { path: conf, source })?;
    Ok(StagedJob {
        app: format!("job/{app}"),
        deps,
    })
}

/// `argv` for a debug trace, without values that may be secrets: an argument that is one
/// `KEY=VALUE` whose key names a secret ([`crate::text::is_secret_key`]: a `--conf
/// spark.kafka.sasl.jaas.config=… password="…";`, `--api-token=…`) shows as `KEY=***`, its
/// whole value masked (a JAAS value holds spaces); in every other argument each secret
/// [`crate::text::mask`] finds is masked (a `-D…Password=` inside `--driver-java-options`, a
/// URL's password).
pub(super) fn redacted_argv(argv: &[String]) -> Vec<String> {
    argv.iter()
        .map(|arg| match arg.split_once('=') {
            Some((name, _))
                if !name.contains(char::is_whitespace) && crate::text::is_secret_key(name) =>
            {
                format!("{name}=***")
            }
            _ => crate::text::mask(arg).into_owned(),
        })
        .collect()
}

/// The spark-submit argv of `scenario`'s job, with `sandbox` the sandbox as the job sees it
/// (`RuntimeKind::job_sandbox`) and `staged` in it, submitted to the master of `ids`'s runtime
/// (`runtime::spark_master`: its conf wins over the scenario's); `job` the job this version runs
/// ([`Scenario::job_for`]). The installed `requirements` go on the driver's `PYTHONPATH` and,
/// through `spark.executorEnv.PYTHONPATH`, the executors'. `starting_offsets` fills
/// `{starting_offsets}` (the checkpoint's last committed Kafka offsets; `None`: `earliest`).
#[allow(clippy::too_many_arguments)] // each is one fact of the command line; a struct would only rename them
pub(super) fn submit(
    ids: &TrialIds,
    scenario: &Scenario,
    job: &ResolvedJob,
    version: &str,
    sandbox: &Path,
    staged: &StagedJob,
    args: &[String],
    kafka: &KafkaBroker,
    starting_offsets: Option<&crate::checkpoint::KafkaOffsets>,
) -> Result<Vec<String>, TrialError> {
    let placeholders = Placeholders {
        checkpoint: sandbox.join("checkpoint").to_string_lossy().into_owned(),
        bootstrap_servers: kafka.internal_bootstrap.clone(),
        output: sandbox.join("output").to_string_lossy().into_owned(),
        starting_offsets: starting_offsets.cloned(),
    };
    let names = scenario.topic_names();
    let args = args
        .iter()
        .map(|a| fill_topics(a, &placeholders, &names))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|message| TrialError::Args {
            scenario: scenario.file.clone(),
            message,
        })?;
    let main_class = match &job.job {
        Job::Jar { main_class, .. } => Some(main_class.clone()),
        Job::Python { .. } => None,
    };
    let in_sandbox = |rel: &String| sandbox.join(rel).to_string_lossy().into_owned();
    let mut conf = scenario.conf.clone();
    let mut env = BTreeMap::new();
    if let Some(path) = &staged.deps.python_path {
        let path = in_sandbox(path);
        let key = "spark.executorEnv.PYTHONPATH".to_string();
        let value = match conf.get(&key) {
            Some(user) => format!("{path}:{user}"),
            None => path.clone(),
        };
        conf.insert(key, value);
        env.insert("PYTHONPATH".to_string(), path);
    }
    let (master, master_conf) = crate::runtime::spark_master(ids);
    conf.extend(master_conf);
    Ok(spark::submit_command(&Submit {
        version: version.to_string(),
        master,
        sandbox: sandbox.to_path_buf(),
        app: in_sandbox(&staged.app),
        main_class,
        args,
        conf,
        jars: staged.deps.jars.iter().map(in_sandbox).collect(),
        py_files: staged.deps.py_files.iter().map(in_sandbox).collect(),
        env,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traced_argv_names_secrets_without_their_values() {
        let argv: Vec<String> = [
            "spark-submit",
            "--conf",
            "spark.hadoop.fs.s3a.secret.key=abc",
            "--conf",
            "spark.sql.shuffle.partitions=4",
            "--driver-java-options",
            "-Dlog4j2.configurationFile=file:/x -Djavax.net.ssl.trustStorePassword=pw",
            "/sandbox/job/app.py",
            "--checkpoint=/sandbox/checkpoint",
            "--api-token=xyz",
            "--conf",
            "spark.kafka.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"jaas-Secret1\";",
            "--master-url=spark://u:p/w?d#x@host:7077",
            "events",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            redacted_argv(&argv),
            [
                "spark-submit",
                "--conf",
                "spark.hadoop.fs.s3a.secret.key=***",
                "--conf",
                "spark.sql.shuffle.partitions=4",
                "--driver-java-options",
                "-Dlog4j2.configurationFile=file:/x -Djavax.net.ssl.trustStorePassword=***",
                "/sandbox/job/app.py",
                "--checkpoint=/sandbox/checkpoint",
                "--api-token=***",
                "--conf",
                "spark.kafka.sasl.jaas.config=***",
                "--master-url=spark://u:***@host:7077",
                "events",
            ]
        );
    }
}
