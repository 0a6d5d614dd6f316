//! Feeds a driver log file and an event log (file or directory) to a [`CompleteLog`]: the file
//! side of `rehearse classify`. Lines are read as bytes and decoded lossily (a log with a
//! stray Latin-1 byte is still a log); reading stops as soon as the verdict is certain.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use std::sync::LazyLock;

use regex::Regex;

use super::classify::CompleteLog;
use super::{Classification, TrialContext, Verdict};
use rehearse_base::{ErrorKind, HasErrorKind};

/// Why a log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file does not exist or cannot be opened.
    #[error("cannot open {path}")]
    Open {
        /// The path given.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A directory was given where a driver log file was expected.
    #[error("{path} is a directory, not a driver log file\n(hint: give the file holding spark-submit's stderr and stdout)")]
    IsDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// Not a regular file (a FIFO, a device): reading it could block forever or never end.
    #[error("{path} is not a regular file\n(hint: save the log to a file first, e.g. `spark-submit … > driver.log 2>&1`)")]
    NotAFile {
        /// The path given.
        path: PathBuf,
    },
    /// Reading failed midway.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Part of the file is in another text encoding than the rest (UTF-16 text in a UTF-8 file,
    /// or UTF-8 text after a UTF-16 start: what PowerShell's `>>` appending to a log writes).
    /// The part in the other encoding would be unread, and a failure there unseen: never a
    /// verdict from half a log.
    #[error("{path} mixes text encodings: line {line} is not in the encoding the file starts with ({start}), so part of the log cannot be read (a PowerShell `>>` appending to a log writes this)\n(hint: capture the log again with one redirect, or convert each part to UTF-8 and join them, e.g. with iconv -f UTF-16LE -t UTF-8)")]
    MixedEncoding {
        /// The file.
        path: PathBuf,
        /// 1-based line number of the first line in the other encoding.
        line: usize,
        /// The encoding the file starts with.
        start: &'static str,
    },
    /// A log4j2 `JsonLayout` record printed over several lines (its default, `compact=false`):
    /// rehearse reads one record per line, and a failure split over lines would be unseen.
    #[error("{path} holds log4j2 JsonLayout records printed over several lines (line {line}: a `\"loggerName\"` field on a line of its own); rehearse reads one JSON record per line\n(hint: set the layout's compact=\"true\" eventEol=\"true\" (or use JsonTemplateLayout, or the default PatternLayout) and capture the log again)")]
    MultiLineJson {
        /// The file.
        path: PathBuf,
        /// 1-based line number of the field.
        line: usize,
    },
    /// The event log is compressed.
    #[error("event log {path} is compressed\n(hint: run with spark.eventLog.compress=false, or decompress it first)")]
    Compressed {
        /// The file.
        path: PathBuf,
    },
    /// The driver log holds nothing Spark, the JVM, Python or the launcher writes (empty, or
    /// some other text file), and no rule matched it.
    #[error("{path} is not a Spark driver log: {what}. A driver log is what spark-submit writes to stderr: log4j lines such as `24/05/01 12:00:00 INFO SparkContext: Running Spark version 3.5.3`, a Java stack trace or a Python traceback when the job fails, or the launcher's own error when the JVM does not start\n(hint: capture it with `spark-submit … > driver.log 2>&1`, or take the driver's stderr from your cluster: `yarn logs -applicationId <id>`, `kubectl logs <driver-pod>`; then run `rehearse classify driver.log`)")]
    NotADriverLog {
        /// The file.
        path: PathBuf,
        /// What it holds instead: "it is empty", "none of its 12 lines …".
        what: String,
    },
    /// The event log directory holds no event log file.
    #[error("event log directory {path} holds no event log file")]
    NoEventLog {
        /// The directory.
        path: PathBuf,
    },
}

impl InputError {
    /// Advice for the variants whose cause is printed after the message (the others carry their
    /// hint in the message).
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            InputError::Open { .. } | InputError::Read { .. } => Some(
                "check the path: the driver log is the file holding spark-submit's stderr (`spark-submit … > driver.log 2>&1`); --event-log is the file or directory spark.eventLog.dir points to",
            ),
            _ => None,
        }
    }
}

/// Classifies a restart from its driver log file and, optionally, its event log (a file,
/// or a directory holding one plain or rolling event log).
pub fn classify_files(
    driver_log: &Path,
    event_log: Option<&Path>,
    ctx: TrialContext,
) -> Result<Classification, InputError> {
    let mut log = CompleteLog::new(ctx);
    let events = event_log.map(event_log_files).transpose()?;
    let mut lines = 0usize;
    let mut driver_like = false;
    let mut multi_line_json = None;
    // Every line, also after the verdict is final (then only counted, and not checked for the
    // pretty-JSON layout): whether the log holds a later run is known at its end.
    for_each_line(driver_log, |l| {
        lines += 1;
        if log.is_decided() {
            log.push_line(l);
            return false;
        }
        if is_pretty_json_field(l) {
            multi_line_json = Some(lines);
            return true;
        }
        // Checked only until the first such line: a real log costs one match or a few.
        driver_like = driver_like || (is_mostly_text(l) && looks_like_driver_output(l));
        log.push_line(l);
        false
    })?;
    let decided = log.is_decided();
    if let Some(line) = multi_line_json {
        return Err(InputError::MultiLineJson {
            path: driver_log.to_path_buf(),
            line,
        });
    }
    if !decided {
        for f in events.unwrap_or_default() {
            if for_each_line(&f, |l| log.push_event(l))? {
                break;
            }
        }
    }
    let c = log.finish();
    // Only a log nothing matched can be the wrong file: a short real log (the JVM died before
    // Spark started) matches a rule and keeps its verdict.
    // An excerpt (nothing says Spark or the query started) with no failure in it is no log
    // to judge either: a job's source file or a config mentions Spark and passed the lenient
    // check above, and got no-outcome (exit 18) as if a restart had ended without a batch.
    if c.excerpt && c.verdict == Verdict::NoOutcome && driver_like {
        return Err(InputError::NotADriverLog {
            path: driver_log.to_path_buf(),
            what: format!(
                "none of its {lines} line(s) shows Spark or the query starting, a batch, or a failure"
            ),
        });
    }
    if matches!(c.verdict, Verdict::UnclassifiedFailure | Verdict::NoOutcome) && !driver_like {
        return Err(InputError::NotADriverLog {
            path: driver_log.to_path_buf(),
            what: if lines == 0 {
                "it is empty".to_owned()
            } else {
                format!(
                    "none of its {lines} line(s) is something Spark, the JVM, Python or a shell writes"
                )
            },
        });
    }
    Ok(c)
}

/// Whether a line is the `"loggerName"` field of a log4j2 JsonLayout record printed over several
/// lines (`compact=false`, the layout's default). No plain driver log line and no progress
/// report Spark prints (whose pretty JSON has no such field) looks like that.
fn is_pretty_json_field(line: &str) -> bool {
    static FIELD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*"loggerName"\s*:\s*""#).expect("the pattern is a valid regex")
    });
    FIELD.is_match(line)
}

/// Whether a line is something a driver's stderr holds: a log4j or Python logging line, a Java
/// or Python exception, a stack frame, a traceback, a launcher or shell error, or any mention of
/// Spark, Java, Hadoop or Kafka. Deliberately lenient: it only tells a driver log from an
/// unrelated file (rejecting a real log would be far worse than classifying a stray file).
fn looks_like_driver_output(line: &str) -> bool {
    static MARKER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i:spark|java|jvm|py4j|python|hadoop|kafka|log4j|slf4j|scala)",
            r"|\b(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b",
            r"|\w(?:Exception|Error)\b|^Error:|^Exception|Caused by:|Traceback \(most recent call last\)",
            r"|^\s+at \S+\(|command not found|No such file or directory|Permission denied|^Killed\b",
        ))
        .expect("the pattern is a valid regex")
    });
    MARKER.is_match(line)
}

/// Whether a line (decoded lossily) is text at all: at most one character in ten is a
/// replacement character (an invalid UTF-8 byte) or a control character other than tab and ESC.
/// A log with a stray Latin-1 byte passes; random bytes (about half invalid as UTF-8) do not —
/// they matched the lenient marker by chance (`jvm` once in about 2 MB) and a file of noise got
/// a verdict instead of "not a driver log".
fn is_mostly_text(line: &str) -> bool {
    let (mut chars, mut noise) = (0usize, 0usize);
    for c in line.chars() {
        chars += 1;
        if c == char::REPLACEMENT_CHARACTER || (c.is_control() && c != '\t' && c != '\x1b') {
            noise += 1;
        }
    }
    noise * 10 <= chars
}

/// Longest line handed to the classifier (bytes); longer lines are cut.
const MAX_LINE: usize = 1 << 20;

/// Calls `f` with every line (decoded lossily) until it returns `true`; returns whether it did.
///
/// Lines end at `\n`, `\r\n` or a lone `\r`: a log saved with classic Mac line endings, or
/// one where Spark's console progress bar (`ConsoleProgressBar`, which redraws with `\r`) ran
/// into the log lines, is read line by line like any other — before, a CR-only log was one
/// line, cut at [`MAX_LINE`], and got `no-outcome`. Empty pieces between `\r`s are skipped.
fn for_each_line(path: &Path, mut f: impl FnMut(&str) -> bool) -> Result<bool, InputError> {
    if path.is_dir() {
        return Err(InputError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(InputError::NotAFile {
                path: path.to_path_buf(),
            })
        }
        _ => {}
    }
    let file = File::open(path).map_err(|source| InputError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let head = r.fill_buf().map_err(|source| InputError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if let Some(big_endian) = utf16_order(head) {
        return for_each_utf16_line(path, r, big_endian, f);
    }
    let mut buf = Vec::with_capacity(4096);
    // The piece after the last `\r` of a chunk cut at MAX_LINE: the start of the next line.
    let mut carry: Vec<u8> = Vec::new();
    let mut line_no = 0usize;
    let read_err = |source| InputError::Read {
        path: path.to_path_buf(),
        source,
    };
    loop {
        buf.clear();
        buf.append(&mut carry);
        // Bounded: a line longer than MAX_LINE is cut there and the rest of it skipped, so a
        // file without line endings cannot exhaust memory.
        let n = (&mut r)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf)
            .map_err(read_err)?;
        if n == 0 && buf.is_empty() {
            return Ok(false);
        }
        if n == MAX_LINE && buf.last() != Some(&b'\n') {
            if let Some(cr) = buf.iter().rposition(|&b| b == b'\r') {
                // CR-separated lines filled the chunk: keep the unfinished last one.
                carry = buf.split_off(cr + 1);
            } else {
                let mut skip = Vec::new();
                loop {
                    skip.clear();
                    let m = (&mut r)
                        .take(MAX_LINE as u64)
                        .read_until(b'\n', &mut skip)
                        .map_err(read_err)?;
                    if m == 0 || skip.last() == Some(&b'\n') {
                        break;
                    }
                }
            }
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        let mut feed = |piece: &[u8]| -> Result<bool, InputError> {
            line_no += 1;
            if looks_like_utf16(piece) {
                return Err(InputError::MixedEncoding {
                    path: path.to_path_buf(),
                    line: line_no,
                    start: "UTF-8",
                });
            }
            // Validating is much faster than the lossy decoder; decode lossily only when needed.
            Ok(match std::str::from_utf8(piece) {
                Ok(line) => f(line),
                Err(_) => f(&String::from_utf8_lossy(piece)),
            })
        };
        // `contains` on bytes is a memchr: a log without `\r` pays one fast scan per line.
        if buf.contains(&b'\r') {
            for piece in buf.split(|&b| b == b'\r').filter(|p| !p.is_empty()) {
                if feed(piece)? {
                    return Ok(true);
                }
            }
        } else if feed(&buf[..buf.len().min(MAX_LINE)])? {
            return Ok(true);
        }
    }
}

/// Whether a line read as UTF-8 is really UTF-16 text: at least 8 bytes, and NUL bytes in one
/// half of at least four in five byte pairs (ASCII characters each paired with a NUL). A
/// driver log written in one encoding never holds such a line.
fn looks_like_utf16(line: &[u8]) -> bool {
    let pairs = line.len() / 2;
    if pairs < 4 {
        return false;
    }
    let pairs_iter = || line.chunks_exact(2);
    let le = pairs_iter().filter(|p| p[1] == 0 && p[0] != 0).count();
    let be = pairs_iter().filter(|p| p[0] == 0 && p[1] != 0).count();
    le.max(be) * 5 >= pairs * 4
}

/// Whether a line decoded as UTF-16 is really single-byte text (UTF-8 or ASCII appended to a
/// UTF-16 file): at least 16 code units, more than half of them two printable ASCII bytes
/// (`"26"` read as one unit). A UTF-16 Spark log is nearly all ASCII, each character paired
/// with a NUL. A line wholly in CJK characters can look the same: refusing it is the safe side.
fn looks_like_single_byte(units: &[u16]) -> bool {
    if units.len() < 16 {
        return false;
    }
    let printable = |b: u16| (0x20..=0x7E).contains(&b);
    let paired = units
        .iter()
        .filter(|&&u| printable(u >> 8) && printable(u & 0xFF))
        .count();
    paired * 2 > units.len()
}

/// Whether the file starts as UTF-16 text (a PowerShell `>` redirect writes UTF-16LE with a
/// BOM; other tools write it without one): `Some(big_endian)`. Without a BOM, text whose
/// first bytes are ASCII characters each paired with a NUL byte is taken as UTF-16.
fn utf16_order(head: &[u8]) -> Option<bool> {
    match head {
        [0xFF, 0xFE, ..] => return Some(false),
        [0xFE, 0xFF, ..] => return Some(true),
        _ => {}
    }
    let pairs: Vec<&[u8]> = head.chunks_exact(2).take(256).collect();
    if pairs.len() < 4 {
        return None;
    }
    let ascii = |b: u8| b.is_ascii_graphic() || b.is_ascii_whitespace();
    let le = pairs.iter().filter(|p| p[1] == 0 && ascii(p[0])).count();
    let be = pairs.iter().filter(|p| p[0] == 0 && ascii(p[1])).count();
    // Nine in ten code units ASCII with a NUL half: no UTF-8 log looks like that.
    if le * 10 >= pairs.len() * 9 {
        Some(false)
    } else if be * 10 >= pairs.len() * 9 {
        Some(true)
    } else {
        None
    }
}

/// [`for_each_line`] for a UTF-16 file: streamed a buffer at a time (memory bounded by the
/// longest line, cut at [`MAX_LINE`] code units, not by the file: a 300 MB UTF-16 log was read
/// whole and took 462 MB), each line decoded lossily. Lines end as in the UTF-8 reader: `\n`,
/// `\r\n` or a lone `\r`.
fn for_each_utf16_line(
    path: &Path,
    mut r: impl BufRead,
    big_endian: bool,
    mut f: impl FnMut(&str) -> bool,
) -> Result<bool, InputError> {
    let unit = |a: u8, b: u8| {
        if big_endian {
            u16::from_be_bytes([a, b])
        } else {
            u16::from_le_bytes([a, b])
        }
    };
    let start = if big_endian { "UTF-16BE" } else { "UTF-16LE" };
    let mut line: Vec<u16> = Vec::with_capacity(4096);
    let mut units: Vec<u16> = Vec::new();
    let mut carry: Option<u8> = None;
    let mut line_no = 0usize;
    let mut first_unit = true;
    let mut after_cr = false;
    loop {
        let buf = r.fill_buf().map_err(|source| InputError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if buf.is_empty() {
            break;
        }
        let len = buf.len();
        units.clear();
        let mut bytes = buf;
        if let Some(a) = carry.take() {
            units.push(unit(a, bytes[0]));
            bytes = &bytes[1..];
        }
        let mut pairs = bytes.chunks_exact(2);
        units.extend((&mut pairs).map(|p| unit(p[0], p[1])));
        carry = pairs.remainder().first().copied();
        r.consume(len);
        for &u in &units {
            if std::mem::take(&mut first_unit) && u == 0xFEFF {
                continue;
            }
            // A `\r` ends a line: with the `\n` after it (CRLF) as one ending; alone (CR-only
            // endings, a console progress bar) when the piece before it is not empty.
            if std::mem::take(&mut after_cr) && u != u16::from(b'\n') && !line.is_empty() {
                line_no += 1;
                if utf16_line(path, &line, line_no, start, &mut f)? {
                    return Ok(true);
                }
                line.clear();
            }
            if u == u16::from(b'\r') {
                after_cr = true;
            } else if u == u16::from(b'\n') {
                line_no += 1;
                if utf16_line(path, &line, line_no, start, &mut f)? {
                    return Ok(true);
                }
                line.clear();
            } else if line.len() < MAX_LINE {
                line.push(u);
            }
        }
    }
    if line.is_empty() {
        return Ok(false);
    }
    utf16_line(path, &line, line_no + 1, start, &mut f)
}

/// One line of a UTF-16 file (without its `\n`): refused when it is really single-byte text,
/// else decoded lossily, cut at [`MAX_LINE`] bytes, and handed to `f`.
fn utf16_line(
    path: &Path,
    line: &[u16],
    line_no: usize,
    start: &'static str,
    f: &mut impl FnMut(&str) -> bool,
) -> Result<bool, InputError> {
    let line = line.strip_suffix(&[u16::from(b'\r')]).unwrap_or(line);
    if looks_like_single_byte(line) {
        return Err(InputError::MixedEncoding {
            path: path.to_path_buf(),
            line: line_no,
            start,
        });
    }
    let text: String = char::decode_utf16(line.iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    let mut end = text.len().min(MAX_LINE);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Ok(f(&text[..end]))
}

/// The event log files to read, in order: the file itself, or the files of a directory
/// (rolling event logs `events_<n>_<app>` sort by name; `appstatus_*` markers skipped).
fn event_log_files(path: &Path) -> Result<Vec<PathBuf>, InputError> {
    let compressed = |p: &Path| {
        matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("lz4" | "lzf" | "snappy" | "zstd" | "zst")
        )
    };
    if !path.is_dir() {
        if compressed(path) {
            return Err(InputError::Compressed {
                path: path.to_path_buf(),
            });
        }
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| InputError::Open {
            path: d.clone(),
            source,
        })?;
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name.starts_with("appstatus") {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() && d == path => dirs.push(p),
                Ok(t) if t.is_file() => files.push(p),
                _ => {}
            }
        }
    }
    files.sort();
    if let Some(c) = files.iter().find(|f| compressed(f)) {
        return Err(InputError::Compressed { path: c.clone() });
    }
    if files.is_empty() {
        return Err(InputError::NoEventLog {
            path: path.to_path_buf(),
        });
    }
    Ok(files)
}

/// A log given to `classify` that cannot be read is the user's to fix (exit 3).
impl HasErrorKind for InputError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &[u8], big_endian: bool, capacity: usize) -> Vec<String> {
        let mut out = Vec::new();
        let r = std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(bytes));
        for_each_utf16_line(Path::new("x.log"), r, big_endian, |l| {
            out.push(l.to_owned());
            false
        })
        .expect("readable");
        out
    }

    /// Lines come out the same whatever buffer size splits the stream, an odd one (a code
    /// unit cut in two) included, with the BOM dropped and `\r\n` ends stripped.
    #[test]
    fn utf16_lines_are_the_same_whatever_the_buffer_boundaries() {
        let text = "\u{feff}26/11/30 INFO SparkContext: Running Spark version 3.5.3\r\nCaused by: java.lang.IllegalStateException: ü €\nlast line without newline";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let want = vec![
            "26/11/30 INFO SparkContext: Running Spark version 3.5.3".to_owned(),
            "Caused by: java.lang.IllegalStateException: ü €".to_owned(),
            "last line without newline".to_owned(),
        ];
        for capacity in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(
                lines_of(&le, false, capacity),
                want,
                "LE, buffer {capacity}"
            );
            assert_eq!(lines_of(&be, true, capacity), want, "BE, buffer {capacity}");
        }
    }

    #[test]
    fn a_random_byte_line_is_not_text_and_a_stray_latin1_byte_is() {
        assert!(is_mostly_text(
            "26/11/30 INFO Caf\u{fffd} SparkContext: started"
        ));
        assert!(is_mostly_text("\x1b[31mERROR\x1b[0m\tat Foo.bar"));
        assert!(!is_mostly_text(
            "\u{fffd}\u{1}jvm\u{fffd}\u{fffd}\u{2}\u{fffd}x"
        ));
    }
}
