//! The job of a trial or a generation inside its sandbox: the job's files and the harness's
//! logging config staged into it, and the spark-submit argv with the scenario's placeholders
//! filled. Starts nothing.

use std::path::{Path, PathBuf};

use super::TrialError;
use crate::runtime::KafkaBroker;
use crate::scenario::{fill_topics, Job, Placeholders, ResolvedJob, Scenario};
use crate::spark::{self, Submit};

/// Copies the job (a PySpark file and the `.py` files beside it, or a jar) into `job/` and the
/// harness's logging config into `conf/`. Returns the app path relative to the sandbox.
pub(super) fn stage_job(
    job: &ResolvedJob,
    sandbox: &Path,
    version: &str,
) -> Result<String, TrialError> {
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
    Ok(format!("job/{app}"))
}

/// `argv` for a debug trace, without values that may be secrets: in every `KEY=VALUE` word of
/// an argument (a `--conf`, a `-D` inside `--driver-java-options`, a job argument) whose key
/// names one (password, secret, token, credential, key, auth, sasl, jaas) the value shows as
/// `…`; the name stays.
pub(super) fn redacted_argv(argv: &[String]) -> Vec<String> {
    const SECRET: [&str; 9] = [
        "password",
        "passwd",
        "secret",
        "token",
        "credential",
        "key",
        "auth",
        "sasl",
        "jaas",
    ];
    let word = |w: &str| match w.split_once('=') {
        Some((name, _)) if SECRET.iter().any(|s| name.to_ascii_lowercase().contains(s)) => {
            format!("{name}=…")
        }
        _ => w.to_owned(),
    };
    argv.iter()
        .map(|arg| arg.split(' ').map(word).collect::<Vec<_>>().join(" "))
        .collect()
}

/// The spark-submit argv of `scenario`'s job, with `sandbox` the sandbox as the job sees it
/// (`RuntimeKind::job_sandbox`) and `app` relative to it; `job` the job this version runs
/// ([`Scenario::job_for`]).
pub(super) fn submit(
    scenario: &Scenario,
    job: &ResolvedJob,
    version: &str,
    sandbox: &Path,
    app: &str,
    args: &[String],
    kafka: &KafkaBroker,
) -> Result<Vec<String>, TrialError> {
    let placeholders = Placeholders {
        checkpoint: sandbox.join("checkpoint").to_string_lossy().into_owned(),
        bootstrap_servers: kafka.internal_bootstrap.clone(),
        output: sandbox.join("output").to_string_lossy().into_owned(),
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
    Ok(spark::submit_command(&Submit {
        version: version.to_string(),
        sandbox: sandbox.to_path_buf(),
        app: sandbox.join(app).to_string_lossy().into_owned(),
        main_class,
        args,
        conf: scenario.conf.clone(),
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
            "events",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            redacted_argv(&argv),
            [
                "spark-submit",
                "--conf",
                "spark.hadoop.fs.s3a.secret.key=…",
                "--conf",
                "spark.sql.shuffle.partitions=4",
                "--driver-java-options",
                "-Dlog4j2.configurationFile=file:/x -Djavax.net.ssl.trustStorePassword=…",
                "/sandbox/job/app.py",
                "--checkpoint=/sandbox/checkpoint",
                "--api-token=…",
                "events",
            ]
        );
    }
}
