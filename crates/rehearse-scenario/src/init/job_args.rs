//! What a PySpark job's own source says of its command line, for `rehearse init`'s `[job] args`:
//! the `--flags` it names (argparse's `add_argument("--x")`, or a flag tuple handed to a helper
//! that adds them, as the example jobs' `parse_args(topics=("--left-topic", "--right-topic"))`)
//! and the `sys.argv[N]` it reads, with the name it gives each. Pure text in, text out; a
//! heuristic whose guesses the written file marks `CHECK` (issue 26 §7: init wrote the example
//! jobs' flags, `--topic` twice for two topics, for jobs that took other flags).

use std::sync::OnceLock;

use regex::Regex;

/// The command line a job's source reveals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobArgs {
    /// Long flags named in the sources, in order of first appearance, without duplicates:
    /// `--checkpoint`, `--bootstrap-servers`.
    pub flags: Vec<String>,
    /// `sys.argv[N]` reads (N from 1), by N, with the name assigned (`brokers = sys.argv[1]`),
    /// or `""` when the read is not assigned to a name.
    pub positional: Vec<(usize, String)>,
}

impl JobArgs {
    /// Whether the sources revealed nothing (then init writes the example jobs' flags).
    pub fn is_empty(&self) -> bool {
        self.flags.is_empty() && self.positional.is_empty()
    }
}

/// Most flags or positions taken from the sources: a job has a handful; more is a CLI tool
/// or a generated file, and the scenario should not list them all.
const MAX_ARGS: usize = 32;

/// Reads the command line of a job from the text of its `.py` sources (the job file first,
/// then the files beside it that travel with it). Comments are skipped.
pub fn read_job_args(sources: &[&str]) -> JobArgs {
    static FLAG: OnceLock<Regex> = OnceLock::new();
    static ARGV: OnceLock<Regex> = OnceLock::new();
    let flag = FLAG.get_or_init(|| {
        Regex::new(r#"["'](--[A-Za-z][A-Za-z0-9_-]*)["']"#).expect("flag regex compiles")
    });
    let argv = ARGV.get_or_init(|| {
        Regex::new(r"(?:(\w+)\s*=\s*)?sys\.argv\[(\d+)\]").expect("argv regex compiles")
    });
    let mut out = JobArgs::default();
    for text in sources {
        for line in text.lines() {
            let code = line.split('#').next().unwrap_or("");
            for c in flag.captures_iter(code) {
                let f = c[1].to_string();
                if out.flags.len() < MAX_ARGS && !out.flags.contains(&f) && f != "--help" {
                    out.flags.push(f);
                }
            }
            for c in argv.captures_iter(code) {
                let Ok(n) = c[2].parse::<usize>() else {
                    continue;
                };
                let name = c.get(1).map_or("", |m| m.as_str()).to_string();
                if (1..=MAX_ARGS).contains(&n) && !out.positional.iter().any(|(i, _)| *i == n) {
                    out.positional.push((n, name));
                }
            }
        }
    }
    out.positional.sort();
    out
}

/// The top-level module names a job's source imports (`common` of `from common import x`,
/// `lib` of `import lib.sub`): the files beside it whose flags belong to it.
pub fn imported_modules(source: &str) -> Vec<String> {
    static IMPORT: OnceLock<Regex> = OnceLock::new();
    let import = IMPORT.get_or_init(|| {
        Regex::new(r"^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*))")
            .expect("import regex compiles")
    });
    let mut out: Vec<String> = Vec::new();
    for line in source.lines() {
        if let Some(c) = import.captures(line) {
            let m = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
            let top = m.split('.').next().unwrap_or(m).to_string();
            if !top.is_empty() && !out.contains(&top) {
                out.push(top);
            }
        }
    }
    out
}

/// What one argument of the job is for, from its name (`--bootstrap-servers`, `brokers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgRole {
    /// The checkpoint location: `{checkpoint}`.
    Checkpoint,
    /// The Kafka bootstrap servers: `{bootstrap_servers}`.
    Brokers,
    /// An input topic (or topics): `{topic.NAME}`.
    Topic,
    /// An output topic: the job's own, not one of the checkpoint's.
    OutputTopic,
    /// The sink's path: `{output}`.
    Output,
    /// Anything else: the user's to fill.
    Other,
}

/// Whether a (lowercase, `-`-separated) name is one of a topic: its last word is `topic` or
/// `topics`, and it is not a switch about topics (`--group-by-topic`, `--dedup-on-topic`).
fn topic_name(n: &str) -> bool {
    let words: Vec<&str> = n.split('-').collect();
    matches!(words.last(), Some(&("topic" | "topics")))
        && !words
            .iter()
            .any(|w| matches!(*w, "by" | "on" | "per" | "no"))
}

/// The role of an argument by its name: a flag (`--left-topic`) or a variable (`checkpoint_dir`).
pub fn role(name: &str) -> ArgRole {
    let n = name
        .trim_start_matches('-')
        .to_ascii_lowercase()
        .replace('_', "-");
    let has = |w: &str| n.contains(w);
    if has("checkpoint") || n == "chk" || n == "ckpt" {
        ArgRole::Checkpoint
    } else if has("bootstrap") || has("broker") || has("kafka-server") || n == "servers" {
        ArgRole::Brokers
    } else if topic_name(&n) {
        if has("output") || has("sink") || has("dest") || n.starts_with("out-") {
            ArgRole::OutputTopic
        } else {
            ArgRole::Topic
        }
    } else if n == "output"
        || n == "out"
        || n.starts_with("output-")
        || n.ends_with("-output")
        || n == "sink"
        || n.starts_with("sink-")
        || n == "path"
    {
        ArgRole::Output
    } else {
        ArgRole::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example jobs: `common.py` adds the shared flags, the join job names its two topic
    /// flags in a tuple it hands to `parse_args`.
    #[test]
    fn flags_of_argparse_and_of_a_tuple_handed_to_a_helper() {
        let job = "from common import parse_args\nargs = parse_args(__doc__, topics=(\"--left-topic\", \"--right-topic\"))\n";
        let common = "def parse_args(description, topics=(\"--topic\",)):\n    p = argparse.ArgumentParser()\n    p.add_argument(\"--checkpoint\", required=True)\n    p.add_argument('--bootstrap-servers', required=True)\n    p.add_argument(\"--output\", required=True)  # \"--not-a-flag\" in a comment\n    p.add_argument(\"--trigger-seconds\", type=int, default=1)\n";
        let a = read_job_args(&[job, common]);
        assert_eq!(
            a.flags,
            [
                "--left-topic",
                "--right-topic",
                "--topic",
                "--checkpoint",
                "--bootstrap-servers",
                "--output",
                "--trigger-seconds"
            ]
        );
        assert!(a.positional.is_empty());
    }

    #[test]
    fn sys_argv_reads_with_their_names() {
        let job = "import sys\nbrokers = sys.argv[1]\ntopic = sys.argv[2]\ncheckpoint_dir = sys.argv[3]\nprint(sys.argv[0])\n";
        let a = read_job_args(&[job]);
        assert!(a.flags.is_empty());
        assert_eq!(
            a.positional,
            [
                (1, "brokers".to_string()),
                (2, "topic".to_string()),
                (3, "checkpoint_dir".to_string())
            ]
        );
    }

    #[test]
    fn imports_name_the_modules_beside_the_job() {
        let job = "import sys\nfrom common import parse_args, session\nimport lib.sub.m as m\nfrom pyspark.sql import functions as F\n    import json\n";
        assert_eq!(
            imported_modules(job),
            ["sys", "common", "lib", "pyspark", "json"]
        );
    }

    #[test]
    fn roles_by_name() {
        for (name, want) in [
            ("--checkpoint", ArgRole::Checkpoint),
            ("checkpoint_dir", ArgRole::Checkpoint),
            ("--checkpoint-location", ArgRole::Checkpoint),
            ("--bootstrap-servers", ArgRole::Brokers),
            ("brokers", ArgRole::Brokers),
            ("--kafka-servers", ArgRole::Brokers),
            ("--topic", ArgRole::Topic),
            ("--left-topic", ArgRole::Topic),
            ("input_topics", ArgRole::Topic),
            ("--output-topic", ArgRole::OutputTopic),
            ("--group-by-topic", ArgRole::Other),
            ("--dedup-on-topic", ArgRole::Other),
            ("--sink-topic", ArgRole::OutputTopic),
            ("--output", ArgRole::Output),
            ("--output-path", ArgRole::Output),
            ("--trigger-seconds", ArgRole::Other),
            ("--max-offsets-per-trigger", ArgRole::Other),
        ] {
            assert_eq!(role(name), want, "{name}");
        }
    }
}
