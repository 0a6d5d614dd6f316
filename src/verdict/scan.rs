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
pub(crate) fn is_json_record(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("{\"") && t.contains("\"level\"") && t.contains("\"msg\"")
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
            r#"^\s*(?:Caused by:\s*|Suppressed:\s*)?(?:(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*|[A-Z][\w$]*(?:Exception|Error|Throwable|NotCompatible))(?::\s|:$|$)"#,
        )
        .expect("exception header regex compiles")
    })
    .is_match(line)
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
    let level = v.get("level")?.as_str()?;
    let msg = v.get("msg").and_then(Value::as_str).unwrap_or("");
    let logger = v
        .get("logger")
        .and_then(Value::as_str)
        .map(|l| l.rsplit('.').next().unwrap_or(l))
        .unwrap_or("?");
    let ts = v.get("ts").and_then(Value::as_str).unwrap_or("0");
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
