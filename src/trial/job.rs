//! The job of a trial or a generation inside its sandbox: the job's files, its dependencies
//! (`deps`: resolved on the host, from the cache once a run resolved them) and the harness's
//! logging config staged into it, and the spark-submit argv with the scenario's placeholders
//! filled. Starts nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::TrialError;
use crate::deps::{self, PythonFor};
use crate::runtime::{KafkaBroker, RuntimeKind, TrialIds};
use crate::scenario::{
    fill_topics, Dependencies, Job, JobDir, Placeholders, ResolvedJob, Scenario,
};
use crate::spark::{self, Submit};
use crate::versions::SparkVersion;

/// The job as staged into a sandbox, paths relative to it.
#[derive(Debug, Clone)]
pub(super) struct StagedJob {
    /// The application (`job/app.py`, `job/app.jar`).
    pub app: String,
    /// Its dependencies (`deps/…`) and what the report says of them.
    pub deps: deps::Staged,
    /// The zip of a PySpark job's own modules (`job/job-modules.zip`), when it has any beside it.
    pub modules_zip: Option<String>,
}

impl StagedJob {
    /// `--py-files` as the job sees them under `sandbox`: the scenario's `py_files`, then the
    /// zip of the job's own modules (executors import them from it).
    fn py_files(&self, sandbox: &Path) -> Vec<String> {
        self.deps
            .py_files
            .iter()
            .chain(&self.modules_zip)
            .map(|rel| sandbox.join(rel).to_string_lossy().into_owned())
            .collect()
    }
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

/// Copies the job (a PySpark file with the `.py` files and Python packages beside it,
/// [`JobDir`], and their zip for the executors; or a jar) into `job/`, its dependencies into
/// `deps/` and the harness's logging config into `conf/`.
pub(super) fn stage_job(
    job: &ResolvedJob,
    dependencies: &Dependencies,
    sandbox: &Path,
    version: &SparkVersion,
    runtime: RuntimeKind,
) -> Result<StagedJob, TrialError> {
    let resolved = resolve_dependencies(
        dependencies,
        version.as_str(),
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
    let mut packages = None;
    let app = match &job.job {
        Job::Python { file } => {
            let (app, zip) = stage_python_job(file, sandbox)?;
            packages = zip;
            app
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
        modules_zip: packages,
    })
}

/// Copies a PySpark job and its directory's shipped files ([`JobDir`], as load checked it) into
/// the sandbox's `job/`, with the zip of its modules; returns the job's file name and the zip's
/// path in the sandbox. Issue 26 §3: a job's `import lib.x` of its own `lib/` package failed in
/// the sandbox, where only the top-level `.py` files had travelled.
fn stage_python_job(file: &Path, sandbox: &Path) -> Result<(String, Option<String>), TrialError> {
    let stage_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source: std::io::Error| TrialError::Stage { path, source }
    };
    let dir = JobDir::read(file).map_err(|m| TrialError::Stage {
        path: file.to_path_buf(),
        source: std::io::Error::other(m),
    })?;
    let job_dir = sandbox.join("job");
    for f in &dir.files {
        // `relative` passed `store::safe_relative` in `JobDir::read`.
        let to = job_dir.join(&f.relative);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(stage_err(&f.path))?;
        }
        std::fs::copy(&f.path, &to).map_err(stage_err(&f.path))?;
    }
    let name = file.file_name().unwrap_or_default();
    // The job itself even when it is a link leading out of its directory (the scenario names it).
    std::fs::copy(file, job_dir.join(name)).map_err(stage_err(file))?;
    let zip = stage_modules_zip(&dir, &job_dir)?;
    Ok((name.to_string_lossy().into_owned(), zip))
}

/// The name of the zip of the job's own modules in the sandbox's `job/`.
use crate::scenario::job_dir::MODULES_ZIP;

/// Writes the job's own modules (the `.py` files beside it and its packages, `dir.modules()`)
/// into `job/job-modules.zip` and returns its path in the sandbox (`job/job-modules.zip`), or
/// `None` when the job has none. The driver imports them from `job/` (Python puts the script's
/// directory first on `sys.path`); executors' Python workers do not run there, so the zip goes
/// to `--py-files`, which Spark ships to every executor and puts on its workers' `sys.path`
/// (core/src/main/scala/org/apache/spark/deploy/SparkSubmit.scala, python/pyspark/context.py
/// `_add_py_file`). Entries are stored, not compressed: zipimport reads either.
fn stage_modules_zip(dir: &JobDir, job_dir: &Path) -> Result<Option<String>, TrialError> {
    if dir.modules().next().is_none() {
        return Ok(None);
    }
    let path = job_dir.join(MODULES_ZIP);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| TrialError::Stage { path, source: e }
    };
    let zip_err = |path: &Path| {
        let path = path.to_path_buf();
        move |e: zip::result::ZipError| TrialError::Stage {
            path,
            source: std::io::Error::other(e),
        }
    };
    let out = std::fs::File::create(&path).map_err(io(&path))?;
    let mut w = zip::ZipWriter::new(std::io::BufWriter::new(out));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    for f in dir.modules() {
        w.start_file(f.relative.as_str(), options)
            .map_err(zip_err(&f.path))?;
        let mut from = std::fs::File::open(&f.path).map_err(io(&f.path))?;
        std::io::copy(&mut from, &mut w).map_err(io(&f.path))?;
    }
    let mut buf = w.finish().map_err(zip_err(&path))?;
    std::io::Write::flush(&mut buf).map_err(io(&path))?;
    Ok(Some(format!("job/{MODULES_ZIP}")))
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

/// One spark-submit of a trial or a generation, as [`submit`] turns it into an argv: the job a
/// Spark version runs in a sandbox, against a broker. Plain data its callers (a restart, a
/// generation, a baseline) build.
#[derive(Clone, Copy)]
pub(super) struct SubmitCommand<'a> {
    /// The trial's containers or processes; the master comes from its runtime.
    pub ids: &'a TrialIds,
    /// The scenario (its conf and topic names).
    pub scenario: &'a Scenario,
    /// The job this version runs ([`Scenario::job_for`], or the generation's).
    pub job: &'a ResolvedJob,
    /// The Spark version spark-submit runs.
    pub version: &'a SparkVersion,
    /// The sandbox as the job sees it (`RuntimeKind::job_sandbox`).
    pub sandbox: &'a Path,
    /// The job as staged into the sandbox.
    pub staged: &'a StagedJob,
    /// The job's arguments, placeholders unfilled (`restart_args` appended for a restart).
    pub args: &'a [String],
    /// The broker `{bootstrap_servers}` names.
    pub kafka: &'a KafkaBroker,
    /// Fills `{starting_offsets}`: the checkpoint's last committed Kafka offsets (`None`:
    /// `earliest`).
    pub starting_offsets: Option<&'a crate::checkpoint::KafkaOffsets>,
}

/// The spark-submit argv of `command`: its scenario's job with the placeholders filled,
/// `staged` in the sandbox, submitted to the master of `ids`'s runtime (`runtime::spark_master`:
/// its conf wins over the scenario's). The installed `requirements` go on the driver's
/// `PYTHONPATH` and, through `spark.executorEnv.PYTHONPATH`, the executors'.
pub(super) fn submit(command: &SubmitCommand<'_>) -> Result<Vec<String>, TrialError> {
    let SubmitCommand {
        ids,
        scenario,
        job,
        version,
        sandbox,
        staged,
        args,
        kafka,
        starting_offsets,
    } = *command;
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
        version: version.clone(),
        master,
        sandbox: sandbox.to_path_buf(),
        app: in_sandbox(&staged.app),
        main_class,
        args,
        conf,
        jars: staged.deps.jars.iter().map(in_sandbox).collect(),
        py_files: staged.py_files(sandbox),
        env,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Issue 26 §3: a job importing its own nested `lib/` package. The sandbox gets the package
    /// (for the driver, which imports from `job/`) and a zip of it (for `--py-files`), without
    /// byte code and without the file a link beside it leads to outside the job's directory.
    #[test]
    fn a_jobs_nested_package_is_staged_and_zipped_without_caches_or_links_out() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let jobs = tmp.path().join("jobs");
        write(&jobs.join("app.py"), "import lib.sub.m\n");
        write(&jobs.join("lib/__init__.py"), "");
        write(&jobs.join("lib/sub/__init__.py"), "");
        write(&jobs.join("lib/sub/m.py"), "def f():\n    return 1\n");
        write(&jobs.join("lib/__pycache__/m.cpython-311.pyc"), "bytecode");
        write(&outside.path().join("creds.py"), "TOKEN = 'secret'\n");
        std::os::unix::fs::symlink(outside.path().join("creds.py"), jobs.join("lib/creds.py"))
            .unwrap();
        let sandbox = tmp.path().join("sandbox");
        std::fs::create_dir_all(sandbox.join("job")).unwrap();

        let (app, zip) = stage_python_job(&jobs.join("app.py"), &sandbox).unwrap();

        assert_eq!(app, "app.py");
        assert_eq!(zip.as_deref(), Some("job/job-modules.zip"));
        let staged = sandbox.join("job");
        assert_eq!(
            std::fs::read_to_string(staged.join("lib/sub/m.py")).unwrap(),
            "def f():\n    return 1\n"
        );
        assert!(staged.join("lib/sub/__init__.py").is_file());
        assert!(!staged.join("lib/__pycache__").exists());
        assert!(!staged.join("lib/creds.py").exists());
        let archive =
            zip::ZipArchive::new(std::fs::File::open(staged.join("job-modules.zip")).unwrap())
                .unwrap();
        let mut names: Vec<String> = archive
            .file_names()
            .map(|n| n.unwrap().into_owned())
            .collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["lib/__init__.py", "lib/sub/__init__.py", "lib/sub/m.py"]
        );
    }

    #[test]
    fn the_modules_zip_goes_to_py_files_after_the_scenarios_own() {
        let staged = StagedJob {
            app: "job/app.py".into(),
            deps: deps::Staged {
                py_files: vec!["deps/py/helpers.py".into()],
                ..deps::Staged::default()
            },
            modules_zip: Some("job/job-modules.zip".into()),
        };
        assert_eq!(
            staged.py_files(Path::new("/sandbox")),
            [
                "/sandbox/deps/py/helpers.py",
                "/sandbox/job/job-modules.zip"
            ]
        );
    }

    #[test]
    fn a_job_alone_in_its_directory_gets_no_zip() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("jobs/app.py"), "");
        std::fs::create_dir_all(tmp.path().join("sandbox/job")).unwrap();
        let (_, zip) =
            stage_python_job(&tmp.path().join("jobs/app.py"), &tmp.path().join("sandbox")).unwrap();
        assert_eq!(zip, None);
    }

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
