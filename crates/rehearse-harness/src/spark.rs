//! The `spark-submit` command line and the logging configuration the harness gives a job, per
//! Spark version, so that the evidence the verdict reads is always in the driver log.
//!
//! Facts used (per Spark line in `crates/rehearse-base/src/versions/spark-lines.toml`):
//! - Spark ≤ 3.2 logs through log4j 1 (`log4j.properties`, `-Dlog4j.configuration`); 3.3+
//!   through log4j2 (`log4j2.properties`, `-Dlog4j2.configurationFile`).
//! - The streaming loggers live in `org.apache.spark.sql.execution.streaming` (MicroBatchExecution
//!   to 3.5; ProgressReporter is its own class from 4.0; the `runtime` subpackage from 4.1), so
//!   INFO on the package prefix covers every version.
//! - 4.0+ can log JSON (`spark.log.structuredLogging.enabled`); the harness asks for plain text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rehearse_base::versions::SparkVersion;

/// Where the sandbox is mounted in the Spark container (docker runtime). The local runtime's
/// job sees the sandbox at its host path; `runtime::RuntimeKind::job_sandbox` picks.
pub const SANDBOX_MOUNT: &str = "/sandbox";

pub use rehearse_base::versions::LogFramework;

/// The logging framework of a Spark version: the `log4j` column of its line in
/// `crates/rehearse-base/src/versions/spark-lines.toml` (log4j2 from 3.3, SPARK-37814). Before the table (Spark 2.x)
/// log4j 1.
pub fn log_framework(version: &SparkVersion) -> LogFramework {
    version
        .spark_line()
        .map_or(LogFramework::Log4j1, |line| line.log4j)
}

/// The logging config file the harness writes into the sandbox: `(file name, contents)`.
/// Root at WARN to stderr; INFO for the streaming package (resume and progress lines) and for
/// SparkContext (the Spark version line).
pub fn logging_config(version: &SparkVersion) -> (&'static str, String) {
    let pattern = "%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n";
    match log_framework(version) {
        LogFramework::Log4j1 => (
            "log4j.properties",
            format!(
                "log4j.rootCategory=WARN, console\n\
                 log4j.appender.console=org.apache.log4j.ConsoleAppender\n\
                 log4j.appender.console.target=System.err\n\
                 log4j.appender.console.layout=org.apache.log4j.PatternLayout\n\
                 log4j.appender.console.layout.ConversionPattern={pattern}\n\
                 log4j.logger.org.apache.spark.sql.execution.streaming=INFO\n\
                 log4j.logger.org.apache.spark.SparkContext=INFO\n"
            ),
        ),
        LogFramework::Log4j2 => (
            "log4j2.properties",
            format!(
                "rootLogger.level = warn\n\
                 rootLogger.appenderRef.stderr.ref = console\n\
                 appender.console.type = Console\n\
                 appender.console.name = console\n\
                 appender.console.target = SYSTEM_ERR\n\
                 appender.console.layout.type = PatternLayout\n\
                 appender.console.layout.pattern = {pattern}%ex\n\
                 logger.streaming.name = org.apache.spark.sql.execution.streaming\n\
                 logger.streaming.level = info\n\
                 logger.sc.name = org.apache.spark.SparkContext\n\
                 logger.sc.level = info\n"
            ),
        ),
    }
}

/// What to submit.
#[derive(Debug, Clone)]
pub struct Submit {
    /// Target Spark version (picks the logging framework).
    pub version: SparkVersion,
    /// `--master`: `local[2]` (the docker and local runtimes), `spark://host:7077` (a standalone
    /// cluster; Spark's `deploy/SparkSubmitArguments`), `k8s://…` or `yarn`. Always client mode:
    /// the driver runs where rehearse watches it.
    pub master: String,
    /// Where the job sees the sandbox (`/sandbox` in a container, the host path locally): the
    /// logging config is read from `conf/` in it, the event log written to `eventlog/`.
    pub sandbox: PathBuf,
    /// The application as the job sees it: a `.py` file or a jar.
    pub app: String,
    /// Main class for a jar.
    pub main_class: Option<String>,
    /// Application arguments, placeholders already filled.
    pub args: Vec<String>,
    /// User Spark conf.
    pub conf: BTreeMap<String, String>,
    /// Jars as the job sees them, passed as `--jars a,b` (the job's `packages` and `jars`).
    pub jars: Vec<String>,
    /// Python files as the job sees them, passed as `--py-files a,b`.
    pub py_files: Vec<String>,
    /// Environment of spark-submit (and so of the driver's Python, whose `PYTHONPATH`
    /// `PythonRunner` extends, core/src/main/scala/org/apache/spark/deploy/PythonRunner.scala):
    /// the command starts with `env K=V …` when it is not empty.
    pub env: BTreeMap<String, String>,
}

/// The conf the harness sets (after the user's, so it wins): local master, no UI, the event
/// log in the sandbox (`sandbox`: where the job sees it), plain-text logs.
pub fn harness_conf(version: &SparkVersion, sandbox: &Path) -> BTreeMap<String, String> {
    let mut conf = BTreeMap::new();
    conf.insert("spark.ui.enabled".into(), "false".into());
    conf.insert("spark.eventLog.enabled".into(), "true".into());
    // Plain, single-file event logs: Spark 4.0 made rolling, zstd-compressed event logs the
    // default, which the watcher (and `rehearse classify --event-log`) cannot follow.
    conf.insert("spark.eventLog.compress".into(), "false".into());
    conf.insert("spark.eventLog.rolling.enabled".into(), "false".into());
    conf.insert(
        "spark.eventLog.dir".into(),
        format!("file://{}", sandbox.join("eventlog").display()),
    );
    // 4.0+ (the `structured_logging` column) can log JSON; the watcher reads plain text.
    if version
        .spark_line()
        .is_some_and(|line| line.structured_logging)
    {
        conf.insert("spark.log.structuredLogging.enabled".into(), "false".into());
    }
    conf
}

/// The `spark-submit` argv run in the container.
pub fn submit_command(s: &Submit) -> Vec<String> {
    let (file, _) = logging_config(&s.version);
    let conf_file = s.sandbox.join("conf").join(file);
    let log_opt = match log_framework(&s.version) {
        LogFramework::Log4j1 => format!("-Dlog4j.configuration=file:{}", conf_file.display()),
        LogFramework::Log4j2 => {
            format!("-Dlog4j2.configurationFile=file:{}", conf_file.display())
        }
    };
    let mut cmd: Vec<String> = Vec::new();
    if !s.env.is_empty() {
        cmd.push("env".into());
        cmd.extend(s.env.iter().map(|(k, v)| format!("{k}={v}")));
    }
    cmd.extend([
        "spark-submit".to_string(),
        "--master".into(),
        s.master.clone(),
        "--driver-java-options".into(),
        log_opt,
    ]);
    let mut conf = s.conf.clone();
    conf.extend(harness_conf(&s.version, &s.sandbox));
    for (k, v) in conf {
        cmd.push("--conf".into());
        cmd.push(format!("{k}={v}"));
    }
    if !s.jars.is_empty() {
        cmd.push("--jars".into());
        cmd.push(s.jars.join(","));
    }
    if !s.py_files.is_empty() {
        cmd.push("--py-files".into());
        cmd.push(s.py_files.join(","));
    }
    if let Some(class) = &s.main_class {
        cmd.push("--class".into());
        cmd.push(class.clone());
    }
    cmd.push(s.app.clone());
    cmd.extend(s.args.iter().cloned());
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_go_before_the_app_and_the_environment_first() {
        let s = Submit {
            version: SparkVersion::parse("4.0.1").unwrap(),
            master: "local[2]".into(),
            sandbox: PathBuf::from(SANDBOX_MOUNT),
            app: "/sandbox/job/job.py".into(),
            main_class: None,
            args: vec!["x".into()],
            conf: BTreeMap::new(),
            jars: vec![
                "/sandbox/deps/jars/a.jar".into(),
                "/sandbox/deps/jars/b.jar".into(),
            ],
            py_files: vec!["/sandbox/deps/py/u.py".into()],
            env: BTreeMap::from([("PYTHONPATH".to_string(), "/sandbox/deps/python".to_string())]),
        };
        let cmd = submit_command(&s);
        assert_eq!(
            cmd[..3],
            ["env", "PYTHONPATH=/sandbox/deps/python", "spark-submit"]
        );
        let at = |w: &str| cmd.iter().position(|c| c == w).unwrap();
        assert_eq!(
            cmd[at("--jars") + 1],
            "/sandbox/deps/jars/a.jar,/sandbox/deps/jars/b.jar"
        );
        assert_eq!(cmd[at("--py-files") + 1], "/sandbox/deps/py/u.py");
        assert!(at("--py-files") < at("/sandbox/job/job.py"));
    }

    #[test]
    fn logging_framework_switches_at_3_3() {
        assert_eq!(
            log_framework(&SparkVersion::parse("3.2.4").unwrap()),
            LogFramework::Log4j1
        );
        assert_eq!(
            log_framework(&SparkVersion::parse("3.3.4").unwrap()),
            LogFramework::Log4j2
        );
        assert_eq!(
            log_framework(&SparkVersion::parse("4.1.0").unwrap()),
            LogFramework::Log4j2
        );
        assert!(logging_config(&SparkVersion::parse("3.1.3").unwrap())
            .1
            .contains("log4j.logger.org.apache.spark.sql.execution.streaming=INFO"));
        assert!(logging_config(&SparkVersion::parse("4.0.1").unwrap())
            .1
            .contains("logger.streaming.name = org.apache.spark.sql.execution.streaming"));
    }

    #[test]
    fn submit_command_puts_harness_conf_last_and_app_before_args() {
        let s = Submit {
            version: SparkVersion::parse("4.0.1").unwrap(),
            master: "local[2]".into(),
            sandbox: PathBuf::from(SANDBOX_MOUNT),
            app: "/sandbox/job/job.py".into(),
            main_class: None,
            args: vec!["--checkpoint".into(), "/sandbox/checkpoint".into()],
            conf: BTreeMap::from([("spark.ui.enabled".to_string(), "true".to_string())]),
            jars: vec![],
            py_files: vec![],
            env: BTreeMap::new(),
        };
        let cmd = submit_command(&s);
        assert!(
            cmd.contains(&"spark.ui.enabled=false".to_string()),
            "harness wins: {cmd:?}"
        );
        assert!(cmd.contains(&"spark.log.structuredLogging.enabled=false".to_string()));
        assert_eq!(
            &cmd[cmd.len() - 3..],
            &["/sandbox/job/job.py", "--checkpoint", "/sandbox/checkpoint"]
        );
        assert!(cmd.contains(&"spark.eventLog.dir=file:///sandbox/eventlog".to_string()));
        assert!(cmd.contains(
            &"-Dlog4j2.configurationFile=file:/sandbox/conf/log4j2.properties".to_string()
        ));
    }

    #[test]
    fn a_host_sandbox_is_used_as_is() {
        let s = Submit {
            version: SparkVersion::parse("3.2.4").unwrap(),
            master: "spark://m:7077".into(),
            sandbox: PathBuf::from("/tmp/rehearse-abc"),
            app: "/tmp/rehearse-abc/job/job.py".into(),
            main_class: None,
            args: vec![],
            conf: BTreeMap::new(),
            jars: vec![],
            py_files: vec![],
            env: BTreeMap::new(),
        };
        let cmd = submit_command(&s);
        assert_eq!(cmd[1..3], ["--master", "spark://m:7077"]);
        assert!(cmd.contains(&"spark.eventLog.dir=file:///tmp/rehearse-abc/eventlog".to_string()));
        assert!(cmd.contains(
            &"-Dlog4j.configuration=file:/tmp/rehearse-abc/conf/log4j.properties".to_string()
        ));
    }
}
