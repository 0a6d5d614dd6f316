//! Mutation fuzzing of every parser of user input, inside `cargo test` (issue 15): the offset
//! log, commit log, query metadata, operator metadata and state schema parsers, scenario and
//! suite TOML, matrix report JSON (read, validated, merged and rendered), and driver logs through
//! the classifier. Seeds are the real fixtures (`tests/fixtures/checkpoints`, `scenarios/`, the
//! log corpus); each round mutates a seed (byte flips, cuts, repeats, inserted tokens that
//! parsers trip on: huge numbers, `-1`, NUL, `v99`, brackets) and feeds it in. No input may
//! panic, and each target must finish within its time budget (a hang fails the test with the
//! input that hung).
//!
//! Bounded for CI: `REHEARSE_FUZZ_ITERS` rounds per target (default 400) and at most
//! `REHEARSE_FUZZ_SECONDS` seconds per target (default 20); `REHEARSE_FUZZ_SEED` picks another
//! sequence (default fixed, so a failure reproduces). A failing input is written to
//! `target/fuzz-failures/<target>.bin`.
//!
//! cargo-fuzz needs nightly and its own crate; this runs on stable with the rest of the tests.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rehearse::report::matrix::{self as reports, MatrixReport};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Tokens parsers of these formats trip on.
const TOKENS: &[&str] = &[
    "99999999999999999999",
    "18446744073709551615",
    "-1",
    "0",
    "\0",
    "v99",
    "v1",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\n",
    "\r\n",
    ":",
    "=",
    ",",
    "{checkpoint}",
    "{topic.",
    "NaN",
    "1e400",
    "\u{feff}",
    "é",
    "[[topics]]\nname = \"x\"\n",
    "\"batchId\":",
    "{\"a\":{\"0\":1}}",
    "-",
    "\\",
];

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let len = data.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                data.drain(start..end);
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                let at = rng.below(len + 1);
                data.splice(at..at, t.iter().copied());
            }
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(256)).min(len);
                let piece = data[start..end].to_vec();
                let at = rng.below(data.len() + 1);
                data.splice(at..at, piece);
            }
            4 => data.truncate(rng.below(len + 1)),
            _ => {
                let at = rng.below(len + 1);
                let b = (rng.next() & 0xff) as u8;
                data.insert(at, b);
            }
        }
    }
    data
}

/// Runs `target` on `rounds` mutations of the seeds (and the seeds themselves), on a thread with
/// a deadline: a panic or a hang fails the test and saves the input.
fn fuzz(name: &'static str, seeds: Vec<Vec<u8>>, target: fn(&[u8])) {
    assert!(!seeds.is_empty(), "{name}: no seeds");
    let rounds = env_u64("REHEARSE_FUZZ_ITERS", 400);
    let budget = Duration::from_secs(env_u64("REHEARSE_FUZZ_SECONDS", 20));
    let seed = env_u64("REHEARSE_FUZZ_SEED", 0x5EED_1505) ^ name.len() as u64;
    let last = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let shared = last.clone();
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut rng = Rng(seed | 1);
        let mut result = Ok(0u64);
        let inputs = seeds.iter().cloned().chain((0..rounds).map(|_| {
            let s = &seeds[rng.below(seeds.len())];
            mutate(s, &mut rng)
        }));
        for (n, input) in inputs.enumerate() {
            *shared.lock().unwrap() = input.clone();
            if std::panic::catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
                result = Err(input);
                break;
            }
            result = Ok(n as u64 + 1);
            if started.elapsed() > budget / 2 {
                break; // enough for this run; half the budget leaves room for a slow input
            }
        }
        let _ = tx.send(result);
    });
    let save = |input: &[u8]| {
        let dir = repo().join("target/fuzz-failures");
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join(format!("{name}.bin"));
        let _ = std::fs::write(&file, input);
        file
    };
    match rx.recv_timeout(budget) {
        Ok(Ok(n)) => assert!(n > 0, "{name}: ran nothing"),
        Ok(Err(input)) => panic!(
            "{name}: a mutated input panicked; saved in {}",
            save(&input).display()
        ),
        Err(_) => {
            let input = last.lock().map(|l| l.clone()).unwrap_or_default();
            panic!(
                "{name}: an input ran past {budget:?} (a hang?); saved in {}",
                save(&input).display()
            )
        }
    }
}

/// Files under `dir` whose path matches `keep`, read whole.
fn files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && keep(e.path()))
        .take(200)
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect()
}

fn checkpoint_files(keep: impl Fn(&Path) -> bool) -> Vec<Vec<u8>> {
    files(&repo().join("tests/fixtures/checkpoints"), keep)
}

fn parent_is(p: &Path, name: &str) -> bool {
    p.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn fuzz_offset_and_commit_logs() {
    fuzz(
        "offset-log",
        checkpoint_files(|p| parent_is(p, "offsets")),
        |b| {
            let _ = rehearse::checkpoint::parse_offset_log(&text(b));
        },
    );
    fuzz(
        "commit-log",
        checkpoint_files(|p| parent_is(p, "commits")),
        |b| {
            let _ = rehearse::checkpoint::parse_commit_log(&text(b));
        },
    );
}

#[test]
fn fuzz_metadata_and_state_schema() {
    fuzz(
        "query-metadata",
        checkpoint_files(|p| {
            p.file_name().is_some_and(|n| n == "metadata") && !parent_is(p, "_metadata")
        }),
        |b| {
            let _ = rehearse::checkpoint::parse_query_metadata(&text(b));
        },
    );
    fuzz(
        "operator-metadata",
        checkpoint_files(|p| {
            parent_is(p, "_metadata") && p.file_name().is_some_and(|n| n == "metadata")
        }),
        |b| {
            let _ = rehearse::checkpoint::parse_operator_metadata(&text(b));
        },
    );
    fuzz(
        "state-schema",
        checkpoint_files(|p| {
            parent_is(p, "_metadata") && p.file_name().is_some_and(|n| n == "schema")
        }),
        |b| {
            let _ = rehearse::checkpoint::parse_state_schema(b);
        },
    );
}

#[test]
fn fuzz_scenario_and_suite_files() {
    let scenarios = files(&repo().join("scenarios"), |p| {
        p.extension().is_some_and(|e| e == "toml") && !parent_is(p, "suites")
    });
    fuzz("scenario", scenarios, |b| {
        // Paths resolve against the shipped scenarios, so jobs and sample files exist.
        let path = repo().join("scenarios/shapes/fuzz.toml");
        let _ = rehearse::scenario::Scenario::parse(&text(b), &path);
    });
    let suites = files(&repo().join("scenarios/suites"), |p| {
        p.extension().is_some_and(|e| e == "toml")
    });
    fuzz("suite", suites, |b| {
        let path = repo().join("scenarios/suites/fuzz.toml");
        let _ = rehearse::scenario::suite::Suite::parse(&text(b), &path);
    });
}

/// A small valid matrix report (2 × 2 grid), as `rehearse matrix --json` writes it.
fn matrix_seed(shard: &str) -> Vec<u8> {
    let cell = |s: &str, t: &str| {
        format!(
            r#"{{"shape":"dedup","provider":"hdfs","source":"{s}","target":"{t}","status":"ran","verdict":"resumed","expected":"resumed","expected_reason":null,"rule":"r","evidence":["line"],"remedy":"x","last_committed_batch":2,"first_batch_after_restart":3,"start_offsets_match":true,"seconds":10.0,"notes":[],"sandbox":null}}"#
        )
    };
    format!(
        r#"{{"schema":"rehearse.matrix/v1","suite":"t","shapes":["dedup"],"providers":["hdfs"],"sources":["3.5.3","4.0.1"],"targets":["3.5.3","4.0.1"],"shards":["{shard}"],"cells":[{},{}],"seconds":60.0,"jobs":2}}"#,
        cell("3.5.3", "3.5.3"),
        cell("4.0.1", "4.0.1")
    )
    .into_bytes()
}

#[test]
fn fuzz_matrix_reports_through_merge_and_every_writer() {
    fuzz(
        "matrix-report",
        vec![matrix_seed("1/2"), matrix_seed("2/2")],
        |b| {
            let Ok(report) = serde_json::from_slice::<MatrixReport>(b) else {
                return;
            };
            let other: MatrixReport =
                serde_json::from_slice(&matrix_seed("2/2")).expect("the seed is valid");
            for inputs in [
                vec![("a.json".to_string(), report.clone())],
                vec![
                    ("a.json".to_string(), report),
                    ("b.json".to_string(), other),
                ],
            ] {
                let Ok(merged) = reports::merge(inputs) else {
                    continue;
                };
                let mut out = Vec::new();
                let _ = reports::write_grid(&merged, &mut out);
                let _ = reports::write_markdown(&merged, &mut out);
                let _ = reports::write_html(&merged, &mut out);
                let _ = reports::write_junit(&merged, &mut out);
                let _ = reports::write_json(&merged, &mut out);
                let _ = reports::outcome(&merged);
            }
        },
    );
}

#[test]
fn fuzz_driver_logs_through_the_classifier() {
    let logs = files(&repo().join("tests/fixtures/logs"), |p| {
        p.extension().is_some_and(|e| e == "log" || e == "txt")
            || p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains("driver"))
    });
    fuzz("driver-log", logs, |b| {
        let t = text(b);
        let ctx = rehearse::verdict::TrialContext::default();
        let _ = rehearse::verdict::classify(t.lines(), std::iter::empty(), &ctx);
    });
}

/// The harness itself can fail: a target that panics on some mutated input is reported.
#[test]
#[should_panic(expected = "a mutated input panicked")]
fn fuzz_reports_a_target_that_panics() {
    fuzz("self-check", vec![b"abcdef".to_vec()], |b| {
        assert!(!b.contains(&b'{'), "a brace");
    });
}
