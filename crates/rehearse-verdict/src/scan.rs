//! Recognises driver-log lines: log4j record headers (1.x and 2.x pattern layouts, any
//! timestamp), Spark 4's structured JSON layout, exception headers, stack frames, Python
//! tracebacks and JVM start failures.
//!
//! Pure functions over one line; no state. The one function on the hot path,
//! [`has_anchor`], is a single literal-alternation search (the regex crate turns it into
//! a SIMD multi-substring scan), so lines that cannot matter are dropped after one pass.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

/// Log level of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

/// A parsed log record header: `26/11/30 13:10:19.105 ERROR MicroBatchExecution: msg`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header<'a> {
    pub level: Level,
    pub msg: &'a str,
}

/// Fixed strings without which a line (outside an open block) cannot matter.
const ANCHORS: &[&str] = &[
    "made progress",
    "terminated with e",
    "Starting new streaming query",
    "Resuming at batch",
    " [id = ",
    "Exception",
    "Error",
    "ERROR",
    "FATAL",
    "Caused by",
    "Traceback",
    "\tat ",
    "    at ",
    "Running Spark version",
    // MicroBatchExecution (3.5+), once no trigger found new data for
    // noDataProgressEventInterval (10 s): a live trial waiting for paths ends there.
    "has been idle and waiting for new data",
    "Spark Command:",
    "NotCompatible",
    "Java Virtual Machine",
    "initialization of VM",
    "JNI error",
    "JAVA_HOME",
    "VM option",
    "heap size",
    "OCI runtime",
    "file not found",
    "spark-submit:",
    "java: ",
    "getSubject",
    // Error classes whose exception name does not end in Exception/Error
    // (`…StateStoreInvalidConfigAfterRestart: [STATE_STORE_INVALID_CONFIG_AFTER_RESTART] …`).
    ": [",
    "User class threw",
    "[Error]",
];

fn anchors() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let alt: Vec<String> = ANCHORS.iter().map(|a| regex::escape(a)).collect();
        Regex::new(&alt.join("|")).expect("anchor literals compile")
    })
}

/// Whether the line holds any of the fixed strings a decisive line needs.
pub(crate) fn has_anchor(line: &str) -> bool {
    anchors().is_match(line)
}

/// Parses a pattern-layout record header. Accepts an optional leading indentation and a
/// timestamp of digits and `/-:.,T+Z` before the level (`yy/MM/dd HH:mm:ss`, ISO, none).
pub(crate) fn parse_header(line: &str) -> Option<Header<'_>> {
    let t = line.trim_start();
    let bytes = t.as_bytes();
    let first = *bytes.first()?;
    // Level directly at the start (`ERROR MicroBatchExecution: …`), or after a timestamp.
    let level_at = if first.is_ascii_uppercase() {
        0
    } else if first.is_ascii_digit() {
        let mut i = 0;
        while i < bytes.len().min(48) {
            let b = bytes[i];
            if b.is_ascii_digit() || b"/-:.,T+Z ".contains(&b) {
                i += 1;
            } else {
                break;
            }
        }
        // The level starts after the last space of the timestamp run (`…:19 TRACE`).
        t[..i].rfind(' ')? + 1
    } else {
        return None;
    };
    let rest = &t[level_at..];
    let (level, after) = [
        ("INFO ", Level::Info),
        ("WARN ", Level::Warn),
        ("ERROR ", Level::Error),
        ("DEBUG ", Level::Debug),
        ("TRACE ", Level::Trace),
        ("FATAL ", Level::Fatal),
        ("WARNING ", Level::Warn),
    ]
    .iter()
    .find_map(|(w, l)| rest.strip_prefix(w).map(|r| (*l, r)))?;
    let after = after.trim_start();
    // `Logger: message` — a logger name has no spaces.
    let msg = match after.find(": ") {
        Some(p) if !after[..p].contains(' ') => &after[p + 2..],
        _ => after,
    };
    Some(Header { level, msg })
}

/// A line of Spark 4's structured JSON layout (`{"ts":…,"level":…,"msg":…}`).
///
/// Also log4j2's own JSON layouts, one record a line: `JsonLayout` with `compact="true"`
/// (`level`, `loggerName`, `message`, `thrown`) and `JsonTemplateLayout`'s ECS template
/// (`log.level`, `log.logger`, `message`, `error.*`).
pub(crate) fn is_json_record(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("{\"")
        && (t.contains("\"level\"") || t.contains("\"log.level\""))
        && (t.contains("\"msg\"") || t.contains("\"message\""))
}

/// The first string among `keys` of a JSON object.
fn str_of<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

/// log4j2 `JsonLayout`'s `thrown` object (and its `cause` chain) as Java prints a stack trace.
fn log4j2_thrown_lines(thrown: &Value, out: &mut Vec<String>, caused: bool) {
    let name = str_of(thrown, &["name"]).unwrap_or("");
    let msg = str_of(thrown, &["message", "localizedMessage"]).unwrap_or("");
    let head = if msg.is_empty() {
        name.to_owned()
    } else {
        format!("{name}: {msg}")
    };
    out.push(if caused {
        format!("Caused by: {head}")
    } else {
        head
    });
    if let Some(Value::Array(frames)) = thrown
        .get("extendedStackTrace")
        .or_else(|| thrown.get("stackTrace"))
    {
        for f in frames {
            let c = str_of(f, &["class", "className"]).unwrap_or("?");
            let m = str_of(f, &["method", "methodName"]).unwrap_or("?");
            let file = str_of(f, &["file", "fileName"]).unwrap_or("?");
            let n = f
                .get("line")
                .or_else(|| f.get("lineNumber"))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            out.push(format!("\tat {c}.{m}({file}:{n})"));
        }
    }
    if let Some(cause) = thrown.get("cause").filter(|c| c.is_object()) {
        if out.len() < 2000 {
            log4j2_thrown_lines(cause, out, true);
        }
    }
}

/// Whether `line` can continue a progress report's pretty-printed JSON
/// (`StreamingQueryProgress.prettyJson`, json4s `pretty`: every line after the first is indented
/// or a closing bracket; strings escape their newlines). Any other line inside the report came
/// from the driver's other output stream.
pub(crate) fn is_progress_json_line(line: &str) -> bool {
    matches!(line.as_bytes().first(), Some(b' ' | b'\t' | b'}' | b']'))
}

/// Whether a line starts a new record (and so ends any open multi-line block).
pub(crate) fn is_record_start(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("Traceback (most recent call last)")
        || t.starts_with("Exception in thread \"")
        || t.starts_with("Spark Command:")
    {
        return true;
    }
    match t.as_bytes().first() {
        Some(b) if b.is_ascii_digit() || b.is_ascii_uppercase() => parse_header(t).is_some(),
        Some(b'{') => is_json_record(t),
        _ => false,
    }
}

/// A Java exception header: `java.lang.IllegalStateException: …`, `Caused by: …`,
/// `StreamingQueryException: …`, `StateSchemaNotCompatible: …`.
pub(crate) fn is_exception_header(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#"^\s*(?:Caused by:\s*|Suppressed:\s*)?(?:(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*|[A-Z][\w$]*(?:Exception|Error|Throwable|NotCompatible))(?::\s|:$|$)|^\s*(?:Caused by:\s*)?[A-Z][\w$]*:\s\[[A-Z][A-Z0-9_]{2,}(?:\.[A-Z0-9_]+)*\]"#,
        )
        .expect("exception header regex compiles")
    })
    .is_match(line)
}

/// The exception a wrapper line carries, for wrappers that are not Spark's own record header:
/// YARN's ApplicationMaster (`User class threw exception: <exception>`) and .NET for Spark's
/// logger (`[<time>] [<host>] [Error] [JvmBridge] <text>`).
pub(crate) fn strip_foreign_prefix(line: &str) -> Option<&str> {
    const YARN: &str = "User class threw exception: ";
    if let Some(p) = line.find(YARN) {
        return Some(&line[p + YARN.len()..]);
    }
    let t = line.trim_start();
    if t.starts_with('[') {
        // .NET for Spark: its Logger prints `[time] [host] [Level] [Component] message`.
        let p = t
            .find("] [Error] [")
            .or_else(|| t.find("] [Exception] ["))?;
        let after = &t[p + 2..];
        let after = &after[after.find("] [")? + 2..];
        let end = after.find("] ")?;
        return Some(after[end + 2..].trim_start());
    }
    None
}

/// The line without ANSI colour escapes (`ESC[31mERROR ESC[0m`), borrowed when it has none.
pub(crate) fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\x1b') {
        return std::borrow::Cow::Borrowed(line);
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b").expect("ANSI escape regex compiles")
    });
    re.replace_all(line, "")
}

/// A line the JVM launcher or the container runtime prints when Spark cannot start.
pub(crate) fn is_startup_failure(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"Could not create the Java Virtual Machine|Error occurred during initialization of VM|Error: A JNI error has occurred|Unrecognized VM option|Invalid maximum heap size|JAVA_HOME is not set|OCI runtime (?:create|exec|start) failed|executable file not found in \$PATH|spark-submit: (?:command )?not found|Error: Could not find or load main class|\bjava: (?:command )?not found|\bjava: No such file or directory",
        )
        .expect("startup failure regex compiles")
    })
    .is_match(line)
}

/// Byte offset of a query's pretty id (`[id = `) in `s`, found with a byte search for `[`.
pub(crate) fn find_pretty_id(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(p) = b[from..].iter().position(|&c| c == b'[') {
        let at = from + p;
        if b[at..].starts_with(b"[id = ") {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// `[id = <uuid>, runId = <uuid>]` as Spark prints a query's pretty id.
pub(crate) fn parse_pretty_id(s: &str) -> (Option<String>, Option<String>) {
    let Some(p) = find_pretty_id(s) else {
        return (None, None);
    };
    let rest = &s[p + 6..];
    let id_end = rest.find([',', ']']).unwrap_or(rest.len());
    let id = rest[..id_end].trim().to_owned();
    let run = rest
        .find("runId = ")
        .map(|q| {
            let r = &rest[q + 8..];
            r[..r.find([']', ',']).unwrap_or(r.len())].trim().to_owned()
        })
        .filter(|r| !r.is_empty());
    ((!id.is_empty()).then_some(id), run)
}

/// Turns one structured-JSON record into the lines the pattern layout would have
/// printed: header + message lines, then the exception and its stack trace.
pub(crate) fn json_record_lines(line: &str) -> Option<Vec<String>> {
    let v: Value = serde_json::from_str(line.trim()).ok()?;
    let level = str_of(&v, &["level", "log.level"])?;
    let msg = str_of(&v, &["msg", "message"]).unwrap_or("");
    let logger = str_of(&v, &["logger", "loggerName", "log.logger"])
        .map(|l| l.rsplit('.').next().unwrap_or(l))
        .unwrap_or("?");
    let ts = str_of(&v, &["ts"]).unwrap_or("0");
    // The header must parse as a record start: keep the timestamp only if it is digits.
    let ts = if ts.starts_with(|c: char| c.is_ascii_digit()) {
        ts.replace(
            |c: char| !(c.is_ascii_digit() || "/-:.,T+Z".contains(c)),
            "",
        )
    } else {
        String::new()
    };
    let mut msg_lines = msg.split('\n');
    let first = msg_lines.next().unwrap_or("");
    let mut out = vec![if ts.is_empty() {
        format!("{level} {logger}: {first}")
    } else {
        format!("{ts} {level} {logger}: {first}")
    }];
    out.extend(msg_lines.map(str::to_owned));
    if let Some(exc) = v.get("exception").filter(|e| e.is_object()) {
        let class = exc.get("class").and_then(Value::as_str).unwrap_or("");
        let emsg = exc.get("msg").and_then(Value::as_str).unwrap_or("");
        match exc.get("stacktrace") {
            Some(Value::String(st)) if !st.is_empty() => {
                if !st.starts_with(class) || class.is_empty() {
                    out.push(format!("{class}: {emsg}"));
                }
                out.extend(st.split('\n').map(|l| l.trim_end_matches('\r').to_owned()));
            }
            Some(Value::Array(frames)) => {
                out.push(format!("{class}: {emsg}"));
                for f in frames {
                    let c = f.get("class").and_then(Value::as_str).unwrap_or("?");
                    let m = f.get("method").and_then(Value::as_str).unwrap_or("?");
                    let file = f.get("file").and_then(Value::as_str).unwrap_or("?");
                    let n = f.get("line").and_then(Value::as_i64).unwrap_or(0);
                    out.push(format!("\tat {c}.{m}({file}:{n})"));
                }
            }
            _ if !class.is_empty() => out.push(format!("{class}: {emsg}")),
            _ => {}
        }
    } else if let Some(thrown) = v.get("thrown").filter(|t| t.is_object()) {
        log4j2_thrown_lines(thrown, &mut out, false);
    } else if let Some(st) = str_of(&v, &["error.stack_trace"]).filter(|s| !s.is_empty()) {
        out.extend(st.split('\n').map(|l| l.trim_end_matches('\r').to_owned()));
    } else if let Some(class) = str_of(&v, &["error.type"]) {
        let emsg = str_of(&v, &["error.message"]).unwrap_or("");
        out.push(format!("{class}: {emsg}"));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_every_layout_parse() {
        let h = parse_header("26/11/30 13:10:19.105 ERROR MicroBatchExecution: Query q [id = a, runId = b] terminated with error").unwrap();
        assert_eq!(h.level, Level::Error);
        assert!(h.msg.starts_with("Query q"));
        let h = parse_header("24/05/01 12:00:00 INFO MicroBatchExecution: Resuming at batch 3")
            .unwrap();
        assert_eq!(h.msg, "Resuming at batch 3");
        let h =
            parse_header("2024-05-01T12:00:00,123 WARN OffsetSeqMetadata: Conf 'x' was not found")
                .unwrap();
        assert_eq!(h.level, Level::Warn);
        let h =
            parse_header("  ERROR MicroBatchExecution: Query [id = <uuid>] terminated with error")
                .unwrap();
        assert_eq!(h.level, Level::Error);
        assert!(parse_header("\tat org.apache.spark.Foo.bar(Foo.scala:1)").is_none());
        assert!(parse_header("- Provided key schema: StructType(...)").is_none());
        assert!(
            parse_header("If you want to force running query without schema validation").is_none()
        );
    }

    #[test]
    fn continuation_lines_are_not_record_starts() {
        for l in [
            "\tat org.apache.spark.sql.execution.streaming.CommitLog.deserialize(CommitLog.scala:61)",
            "Caused by: java.io.FileNotFoundException: File file:/c/state/1/1/1.delta does not exist",
            "- Existing key schema: StructType(StructField(window,...))",
            "  \"batchId\" : 4,",
            "Driver stacktrace:",
            "org.apache.spark.SparkException: Job aborted due to stage failure",
        ] {
            assert!(!is_record_start(l), "{l}");
        }
        assert!(is_record_start("Traceback (most recent call last):"));
        assert!(is_record_start(
            "26/11/30 13:10:19.110 INFO MicroBatchExecution: Async log purge"
        ));
    }

    #[test]
    fn exception_headers() {
        assert!(is_exception_header(
            "java.lang.IllegalStateException: batch 3 doesn't exist"
        ));
        assert!(is_exception_header(
            "  Caused by: java.io.FileNotFoundException: No such file"
        ));
        assert!(is_exception_header(
            "StreamingQueryException: [STREAM_FAILED]"
        ));
        assert!(is_exception_header(
            "  StateSchemaNotCompatible: Provided schema doesn't match"
        ));
        assert!(is_exception_header(
            "pyspark.errors.exceptions.captured.StreamingQueryException: [STREAM_FAILED] Query"
        ));
        assert!(!is_exception_header("Note: this is fine"));
        assert!(!is_exception_header(
            "Error: Could not create the Java Virtual Machine."
        ));
    }

    #[test]
    fn pretty_id() {
        let (id, run) =
            parse_pretty_id("Starting q_agg [id = 347f, runId = d415]. Use file:/c to store");
        assert_eq!(id.as_deref(), Some("347f"));
        assert_eq!(run.as_deref(), Some("d415"));
        assert_eq!(parse_pretty_id("nothing").0, None);
    }

    #[test]
    fn json_layout_record_becomes_pattern_lines() {
        let line = r#"{"ts":"2024-05-01T12:00:00.000Z","level":"ERROR","msg":"Query q [id = a, runId = b] terminated with error","context":{},"exception":{"class":"java.lang.IllegalStateException","msg":"Incomplete log file in the offset commit log","stacktrace":"java.lang.IllegalStateException: Incomplete log file in the offset commit log\n\tat org.apache.spark.sql.execution.streaming.CommitLog.deserialize(CommitLog.scala:61)"},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#;
        assert!(is_json_record(line));
        let lines = json_record_lines(line).unwrap();
        assert!(parse_header(&lines[0]).is_some(), "{}", lines[0]);
        assert!(lines[0].contains("MicroBatchExecution: Query q"));
        assert!(lines.iter().any(|l| l.contains("CommitLog.deserialize")));
    }

    #[test]
    fn log4j2_json_layouts_become_pattern_lines() {
        // JsonLayout (compact): the throwable as `thrown` with its `cause` chain.
        let line = r#"{"instant":{"epochSecond":1700000000,"nanoOfSecond":0},"thread":"stream execution thread for q [id = a, runId = b]","level":"ERROR","loggerName":"org.apache.spark.sql.execution.streaming.MicroBatchExecution","message":"Query q [id = a, runId = b] terminated with error","thrown":{"commonElementCount":0,"localizedMessage":"Error reading delta file","message":"Error reading delta file file:/c/state/0/1/2.delta","name":"java.lang.IllegalStateException","extendedStackTrace":[{"class":"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider","method":"updateFromDeltaFile","file":"HDFSBackedStateStoreProvider.scala","line":461,"exact":false,"location":"spark-sql_2.12-3.5.3.jar","version":"3.5.3"}],"cause":{"name":"java.io.FileNotFoundException","message":"File file:/c/state/0/1/2.delta does not exist"}},"endOfBatch":false}"#;
        assert!(is_json_record(line));
        let lines = json_record_lines(line).unwrap();
        let h = parse_header(&lines[0]).unwrap();
        assert_eq!(h.level, Level::Error);
        assert!(h.msg.contains("terminated with error"), "{lines:?}");
        assert!(lines[1].starts_with("java.lang.IllegalStateException: Error reading delta file"));
        assert!(lines[2].starts_with("\tat org.apache.spark.sql.execution.streaming.state."));
        assert!(lines[3].starts_with("Caused by: java.io.FileNotFoundException"));
        // JsonTemplateLayout's ECS template: `log.level`, `message`, `error.stack_trace`.
        let ecs = r#"{"@timestamp":"2026-11-30T13:10:15.454Z","log.level":"ERROR","message":"Query q [id = a, runId = b] terminated with error","process.thread.name":"main","log.logger":"org.apache.spark.sql.execution.streaming.MicroBatchExecution","error.type":"java.lang.IllegalStateException","error.message":"batch 3 doesn't exist","error.stack_trace":"java.lang.IllegalStateException: batch 3 doesn't exist\n\tat org.apache.spark.sql.execution.streaming.MicroBatchExecution.populateStartOffsets(MicroBatchExecution.scala:256)"}"#;
        assert!(is_json_record(ecs));
        let lines = json_record_lines(ecs).unwrap();
        assert!(parse_header(&lines[0]).is_some(), "{lines:?}");
        assert_eq!(
            lines[1],
            "java.lang.IllegalStateException: batch 3 doesn't exist"
        );
        assert!(lines[2].contains("populateStartOffsets"));
    }

    #[test]
    fn wrappers_without_a_spark_header_give_their_exception() {
        assert_eq!(
            strip_foreign_prefix("User class threw exception: java.lang.IllegalStateException: batch 3 doesn't exist"),
            Some("java.lang.IllegalStateException: batch 3 doesn't exist")
        );
        assert_eq!(
            strip_foreign_prefix("[2020-09-18T05:54:04.5006780Z] [HOST] [Error] [JvmBridge] org.apache.spark.sql.streaming.StreamingQueryException: x"),
            Some("org.apache.spark.sql.streaming.StreamingQueryException: x")
        );
        assert_eq!(
            strip_foreign_prefix("[info]   at org.rocksdb.RocksDB.open(Native Method)"),
            None
        );
        assert_eq!(
            strip_foreign_prefix(
                "26/11/30 13:10:19 INFO SparkContext: Running Spark version 3.5.3"
            ),
            None
        );
        // An error class whose exception name does not end in Exception or Error.
        assert!(is_exception_header("StateStoreInvalidConfigAfterRestart: [STATE_STORE_INVALID_CONFIG_AFTER_RESTART] Cannot change"));
        assert!(!is_exception_header("Note: [x] is fine"));
        assert!(has_anchor("org.apache.spark.sql.execution.streaming.state.StateStoreInvalidConfigAfterRestart: [STATE_STORE_INVALID_CONFIG_AFTER_RESTART] Cannot change"));
        assert_eq!(
            strip_ansi("26/11/30 13:10:19 \x1b[31mERROR\x1b[0m X: y"),
            "26/11/30 13:10:19 ERROR X: y"
        );
    }

    #[test]
    fn anchors_skip_ordinary_lines() {
        assert!(!has_anchor("26/11/30 13:09:11.086 INFO HDFSBackedStateStoreProvider: Retrieved version 4 of HDFSStateStoreProvider[id = (op=0,part=0),dir = x] for readonly"));
        assert!(has_anchor(
            "26/11/30 13:09:12.149 INFO ProgressReporter: Streaming query made progress: {"
        ));
        assert!(has_anchor(
            "26/11/30 13:10:19.105 ERROR MicroBatchExecution: Query q terminated with error"
        ));
    }
}
