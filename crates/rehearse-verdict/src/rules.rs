//! The verdict rules as data: loads and validates a rule table (by default the embedded
//! `default-rules.toml`) and matches a failure text against it.
//!
//! A rule only names what a failed restart was. It never decides `resumed` (that needs
//! positive proof, see `judge.rs`) nor `timeout` (how a trial ended); the loader
//! rejects rows that try. Matching is done on rare events (a failure block), never per
//! log line, so clarity wins over speed here.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::Verdict;

/// The rule table compiled into the binary (`crates/rehearse-verdict/src/default-rules.toml`).
pub const DEFAULT_RULES_TOML: &str = include_str!("default-rules.toml");

/// One row of the rule table: what it matches, the verdict it gives, and why.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Stable name, shown with the verdict.
    pub id: String,
    /// The verdict this rule gives.
    pub verdict: Verdict,
    /// The Spark versions that print the text.
    pub spark: String,
    /// Where the text comes from (Spark file and version, JIRA, connector file).
    pub source: String,
    /// One sentence a data engineer can act on.
    pub remedy: String,
    error_class: Vec<Regex>,
    exception: Vec<Regex>,
    message: Vec<Regex>,
    frame: Vec<Regex>,
    /// A frame of the failure must be in the job's own classes (outside `library_frames`).
    user_frame: bool,
    /// A fact of the trial that must hold ([`FACTS`]), or none.
    pub when: Option<String>,
}

/// The facts of a trial a row's `when` may name; the classifier decides each from the
/// [`TrialContext`](super::TrialContext) (`judge.rs`).
pub const FACTS: &[&str] = &["job-built-for-another-line", "module-beside-job"];

/// A validated rule table; order is priority (the first matching row wins).
#[derive(Debug, Clone)]
pub struct RuleTable {
    rules: Vec<Rule>,
    /// Class-name prefixes of the JDK, Scala, Spark and the libraries it ships: a frame of
    /// none of them is the job's own (`user_frame` rows).
    library_frames: Vec<String>,
}

/// Why a rule table could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The text is not TOML of the expected shape.
    #[error("rule table is not valid TOML of the expected shape")]
    Toml(#[source] toml::de::Error),
    /// A row is invalid (the message names the row and the problem).
    #[error("rule `{id}`: {problem}")]
    Invalid {
        /// The row's id (or its position when the id is empty).
        id: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A pattern of a row does not compile.
    #[error("rule `{id}`: {field} pattern `{pattern}` does not compile")]
    Regex {
        /// The row's id.
        id: String,
        /// `message`, `frame`, `exception` or `error_class`.
        field: &'static str,
        /// The pattern as written.
        pattern: String,
        /// The regex error.
        #[source]
        source: regex::Error,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    library_frames: Vec<String>,
    rule: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    verdict: Verdict,
    #[serde(default)]
    error_class: Vec<String>,
    #[serde(default)]
    exception: Vec<String>,
    #[serde(default)]
    message: Vec<String>,
    #[serde(default)]
    frame: Vec<String>,
    #[serde(default)]
    spark: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    remedy: String,
    #[serde(default)]
    user_frame: bool,
    when: Option<String>,
}

impl RawRule {
    /// Checks what a row must have: a unique id, a verdict a rule may give, its source,
    /// versions and remedy, and at least one matcher. `id` names the row in errors.
    fn validate(
        &self,
        id: &str,
        seen: &mut std::collections::HashSet<String>,
    ) -> Result<(), RulesError> {
        let problem = if self.id.trim().is_empty() {
            Some("has no id")
        } else if !seen.insert(self.id.clone()) {
            Some("id is used by an earlier row")
        } else if matches!(self.verdict, Verdict::Resumed | Verdict::Timeout) {
            Some("a rule cannot give `resumed` (needs proof from progress) or `timeout`")
        } else if self.source.trim().is_empty() {
            Some("has no source (Spark file and version, or JIRA)")
        } else if self.spark.trim().is_empty() {
            Some("names no Spark versions")
        } else if self.remedy.trim().is_empty() {
            Some("has no remedy")
        } else if self.when.as_deref().is_some_and(|w| !FACTS.contains(&w)) {
            Some("`when` names a fact the classifier does not know (job-built-for-another-line)")
        } else if self.error_class.is_empty()
            && self.exception.is_empty()
            && self.message.is_empty()
            && self.frame.is_empty()
        {
            Some("matches nothing (no error_class, exception, message or frame)")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(invalid(id, problem)),
            None => Ok(()),
        }
    }

    /// Compiles the row's matchers (error classes and exception names into their regexes).
    fn compile(self, id: &str) -> Result<Rule, RulesError> {
        let error_class = self
            .error_class
            .iter()
            .map(|c| error_class_regex(id, c))
            .collect::<Result<_, _>>()?;
        let exception = self
            .exception
            .iter()
            .map(|e| exception_regex(id, e))
            .collect::<Result<_, _>>()?;
        let message = self
            .message
            .iter()
            .map(|m| compile(id, "message", m, m.clone()))
            .collect::<Result<_, _>>()?;
        let frame = self
            .frame
            .iter()
            .map(|f| compile(id, "frame", f, f.clone()))
            .collect::<Result<_, _>>()?;
        Ok(Rule {
            id: self.id,
            verdict: self.verdict,
            spark: self.spark,
            source: self.source,
            remedy: self.remedy,
            error_class,
            exception,
            message,
            frame,
            user_frame: self.user_frame,
            when: self.when,
        })
    }
}

fn invalid(id: &str, problem: &str) -> RulesError {
    RulesError::Invalid {
        id: id.to_owned(),
        problem: problem.to_owned(),
    }
}

/// `re` compiled, or an error naming the row, the field and the pattern as written.
fn compile(id: &str, field: &'static str, pattern: &str, re: String) -> Result<Regex, RulesError> {
    Regex::new(&re).map_err(|source| RulesError::Regex {
        id: id.to_owned(),
        field,
        pattern: pattern.to_owned(),
        source,
    })
}

/// `STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE` matches `[…]` and `[….<SUB>]`; `STATE_STORE_*` a family.
fn error_class_regex(id: &str, c: &str) -> Result<Regex, RulesError> {
    if c.is_empty()
        || !c
            .trim_end_matches('*')
            .chars()
            .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_' || ch == '.')
    {
        return Err(invalid(id, &format!("error_class `{c}` is not an error class (UPPER_SNAKE, optional .SUB, optional trailing *)")));
    }
    let re = match c.strip_suffix('*') {
        Some(prefix) => format!(r"\[{}[A-Z0-9_.]*\]", regex::escape(prefix)),
        None => format!(r"\[{}(?:\.[A-Z0-9_]+)?\]", regex::escape(c)),
    };
    compile(id, "error_class", c, re)
}

/// An exception class name, simple or qualified, followed by `:` or the end of a line.
fn exception_regex(id: &str, e: &str) -> Result<Regex, RulesError> {
    if e.is_empty() || e.contains(char::is_whitespace) {
        return Err(invalid(id, &format!("exception `{e}` is not a class name")));
    }
    let re = format!(r"(?m)(?:^|[\s.(:$])(?:{})(?::|\s*$)", regex::escape(e));
    compile(id, "exception", e, re)
}

/// The text a rule is matched against: the lines of one failure (exception, message,
/// `Caused by` chain, frames), plus the error-class hint from the event log.
#[derive(Debug, Clone, Default)]
pub struct FailureText {
    /// The lines, verbatim.
    pub lines: Vec<String>,
    /// `QueryTerminatedEvent.errorClassOnException`, consulted only when no row matches the text.
    pub error_class_hint: Option<String>,
}

/// A row that matched, and the lines that made it match.
#[derive(Debug, Clone)]
pub struct RuleMatch<'t> {
    /// The row.
    pub rule: &'t Rule,
    /// Indexes into [`FailureText::lines`] of the lines that matched the row's patterns.
    pub lines: Vec<usize>,
    /// Whether the row matched only through the event log's error-class hint.
    pub by_hint: bool,
}

impl RuleTable {
    /// The embedded default table, compiled once.
    pub fn default_table() -> &'static RuleTable {
        static TABLE: OnceLock<RuleTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            RuleTable::parse(DEFAULT_RULES_TOML)
                .expect("the embedded default-rules.toml is validated by a unit test")
        })
    }

    /// Parses and validates a rule table written like `default-rules.toml`.
    pub fn parse(text: &str) -> Result<RuleTable, RulesError> {
        let raw: RawTable = toml::from_str(text).map_err(RulesError::Toml)?;
        let mut rules = Vec::with_capacity(raw.rule.len());
        let mut seen = std::collections::HashSet::new();
        let library_frames = raw.library_frames;
        for (i, r) in raw.rule.into_iter().enumerate() {
            if r.user_frame && library_frames.is_empty() {
                return Err(invalid(
                    &r.id,
                    "`user_frame = true` needs the table's `library_frames` (the prefixes that are not the job's code)",
                ));
            }
            let id = if r.id.trim().is_empty() {
                format!("#{}", i + 1)
            } else {
                r.id.clone()
            };
            r.validate(&id, &mut seen)?;
            rules.push(r.compile(&id)?);
        }
        if rules.is_empty() {
            return Err(RulesError::Invalid {
                id: "-".into(),
                problem: "the table has no rules".into(),
            });
        }
        Ok(RuleTable {
            rules,
            library_frames,
        })
    }

    /// The first frame of `lines` in the job's own code: a stack frame whose class is under
    /// none of the table's `library_frames` (a `java.base/` module prefix dropped).
    pub fn user_frame<'l>(&self, lines: &'l [String]) -> Option<&'l str> {
        lines.iter().map(String::as_str).find(|l| {
            is_frame(l) && {
                let class = l.trim_start().trim_start_matches("at ");
                let class = class.split_once('/').map_or(class, |(module, rest)| {
                    if module.contains('(') {
                        class
                    } else {
                        rest
                    }
                });
                !self
                    .library_frames
                    .iter()
                    .any(|prefix| class.starts_with(prefix.as_str()))
            }
        })
    }

    /// The rows, in priority order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The first row matching `text`; when none matches the text, the first row whose
    /// `error_class` matches the event log's hint (and that has no other matcher).
    pub fn first_match<'t>(&'t self, text: &FailureText) -> Option<RuleMatch<'t>> {
        self.first_match_given(text, &[])
    }

    /// [`first_match`](Self::first_match) for a trial where `facts` hold (of [`FACTS`]): a row
    /// with `when` is tried only when its fact is one of them.
    pub fn first_match_given<'t>(
        &'t self,
        text: &FailureText,
        facts: &[&str],
    ) -> Option<RuleMatch<'t>> {
        let joined = text.lines.join("\n");
        let frames: Vec<(usize, &str)> = text
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| is_frame(l))
            .map(|(i, l)| (i, l.as_str()))
            .collect();
        for rule in &self.rules {
            if rule.when.as_deref().is_some_and(|w| !facts.contains(&w)) {
                continue;
            }
            if rule.user_frame && self.user_frame(&text.lines).is_none() {
                continue;
            }
            if let Some(lines) = rule.matches(text, &joined, &frames) {
                return Some(RuleMatch {
                    rule,
                    lines,
                    by_hint: false,
                });
            }
        }
        let hint = text.error_class_hint.as_deref()?;
        let bracketed = format!("[{hint}]");
        self.rules
            .iter()
            .find(|r| {
                !r.error_class.is_empty()
                    && r.exception.is_empty()
                    && r.message.is_empty()
                    && r.frame.is_empty()
                    && r.error_class.iter().any(|re| re.is_match(&bracketed))
            })
            .map(|rule| RuleMatch {
                rule,
                lines: Vec::new(),
                by_hint: true,
            })
    }
}

impl Rule {
    /// Every given matcher kind must match (any pattern within a kind); returns the lines
    /// that matched.
    fn matches(
        &self,
        text: &FailureText,
        joined: &str,
        frames: &[(usize, &str)],
    ) -> Option<Vec<usize>> {
        let mut hit_lines = Vec::new();
        for kind in [&self.error_class, &self.exception, &self.message] {
            if kind.is_empty() {
                continue;
            }
            let mut any = false;
            for re in kind.iter() {
                if let Some(m) = re.find(joined) {
                    any = true;
                    hit_lines.push(line_of(joined, m.start(), &text.lines));
                }
            }
            if !any {
                return None;
            }
        }
        if !self.frame.is_empty() {
            let hit = frames
                .iter()
                .find(|(_, l)| self.frame.iter().any(|re| re.is_match(l)))?;
            hit_lines.push(hit.0);
        }
        hit_lines.sort_unstable();
        hit_lines.dedup();
        Some(hit_lines)
    }
}

/// Index of the line holding byte `pos` of `joined` (the lines joined by `\n`).
fn line_of(joined: &str, pos: usize, lines: &[String]) -> usize {
    let idx = joined.as_bytes()[..pos]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    idx.min(lines.len().saturating_sub(1))
}

/// A Java stack frame line: `at pkg.Class.method(File.java:12)`, any indentation.
pub(crate) fn is_frame(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("at ") && t.contains('(')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> FailureText {
        FailureText {
            lines: s.lines().map(str::to_owned).collect(),
            error_class_hint: None,
        }
    }

    #[test]
    fn default_table_loads_and_every_row_is_documented() {
        let table = RuleTable::parse(DEFAULT_RULES_TOML).expect("default rules load");
        assert!(table.rules().len() > 30);
        for r in table.rules() {
            assert!(!r.source.trim().is_empty(), "{} has no source", r.id);
            assert!(!r.remedy.trim().is_empty(), "{} has no remedy", r.id);
            assert!(!r.spark.trim().is_empty(), "{} names no versions", r.id);
            assert!(
                r.remedy.ends_with('.'),
                "{}: remedy is one sentence ending in '.'",
                r.id
            );
        }
    }

    #[test]
    fn rows_that_claim_resumed_are_rejected() {
        let err = RuleTable::parse(
            "[[rule]]\nid='x'\nverdict='resumed'\nmessage=['progress']\nspark='all'\nsource='s'\nremedy='r.'\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot give `resumed`"), "{err}");
    }

    #[test]
    fn rows_without_a_source_are_rejected() {
        let err = RuleTable::parse(
            "[[rule]]\nid='x'\nverdict='plan-change'\nmessage=['a']\nspark='all'\nremedy='r.'\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("no source"), "{err}");
    }

    #[test]
    fn bad_regex_names_the_row() {
        let err = RuleTable::parse(
            "[[rule]]\nid='broken'\nverdict='plan-change'\nmessage=['(']\nspark='all'\nsource='s'\nremedy='r.'\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("broken"), "{err}");
    }

    #[test]
    fn error_class_matches_class_and_subclass() {
        let t = RuleTable::default_table();
        let m = t
            .first_match(&text("java.lang.IllegalStateException: Failed to read log file /c/offsets/3. [INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION] UnsupportedLogVersion. The maximum supported log version is v1, but encountered v99. SQLSTATE: KD002"))
            .unwrap();
        assert_eq!(m.rule.id, "log-version-too-new-4x");
        assert_eq!(m.rule.verdict, Verdict::OffsetLogError);
    }

    #[test]
    fn json_parse_error_is_recognised_by_its_frame() {
        let t = RuleTable::default_table();
        let m = t
            .first_match(&text(
                "com.fasterxml.jackson.core.io.JsonEOFException: Unexpected end-of-input in field name\n\tat com.fasterxml.jackson.core.base.ParserMinimalBase._reportInvalidEOF(ParserMinimalBase.java:682)\n\tat org.apache.spark.sql.execution.streaming.CommitLog.deserialize(CommitLog.scala:61)",
            ))
            .unwrap();
        assert_eq!(m.rule.id, "log-file-json-unreadable");
        // Without the frame, a JSON error says nothing about the checkpoint.
        assert!(t
            .first_match(&text("com.fasterxml.jackson.core.io.JsonEOFException: Unexpected end-of-input in field name"))
            .is_none());
    }

    #[test]
    fn benign_version_change_warnings_match_nothing() {
        let t = RuleTable::default_table();
        for l in [
            "WARN OffsetSeqMetadata: Conf 'spark.sql.streaming.stateStore.encodingFormat' was not found in the offset log, using default value 'unsaferow'",
            "WARN OffsetSeqMetadata: Updating the value of conf 'spark.sql.streaming.stateStore.providerClass' in current session from 'a' to 'b'.",
            "WARN HDFSBackedStateStoreProvider: The state for version 4 doesn't exist in loadedMaps. Reading snapshot file and delta files if needed...Note that this is normal for the first batch of starting query.",
            "WARN StateMetadataPartitionReader: Failed to find operator metadata for path=file:/c with exception=java.io.FileNotFoundException: File file:/c/state/0/_metadata/metadata does not exist",
        ] {
            assert!(t.first_match(&text(l)).is_none(), "{l}");
        }
    }

    #[test]
    fn hint_is_used_only_when_text_says_nothing() {
        let t = RuleTable::default_table();
        let mut ft = text("org.apache.spark.SparkException: something opaque");
        ft.error_class_hint = Some("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE".into());
        let m = t.first_match(&ft).unwrap();
        assert!(m.by_hint);
        assert_eq!(m.rule.verdict, Verdict::StateStoreError);
    }
}
