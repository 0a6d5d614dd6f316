//! Progress of the long steps a user waits on, rendered on stderr from the library's events:
//! redrawn indicatif bars and spinners ([`ProgressMode::Bars`]) or one plain line per event
//! ([`ProgressMode::Lines`]). The mode is decided once, in `main`, by
//! [`rehearse::report::progress_style`]; the library never prints.
//!
//! In Bars mode the steps that finished stay on screen as the same lines Lines mode prints, above
//! the one bar that moves:
//!
//! | step                                      | bar                                           |
//! |-------------------------------------------|-----------------------------------------------|
//! | image build, pyspark download, local install | spinner with the step's current line        |
//! | generating the source checkpoint          | bar of committed batches (`done/of`)          |
//! | a trial of `rehearse run`                 | spinner per phase (kafka, seeding, spark, verdict) |
//! | the cells of `rehearse matrix`            | bar of finished cells (`done/total`), the checkpoints and cells running named after it; each finished cell's line (and a completed grid) above |
//!
//! The build and install scripts report progress as lines only (no byte counts), so their honest
//! bar is a spinner that shows the current line.

use std::io::Write;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rehearse::rehearsal::RehearsalEvent;
use rehearse::report::ProgressMode;
use rehearse::trial::{TrialEvent, TrialRole};

/// How often spinners turn and elapsed times tick.
const TICK: Duration = Duration::from_millis(120);

/// Which long step the current bar belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Making the runtime ready: image builds, local installs.
    Runtime,
    /// Generating the source checkpoint.
    Generation,
    /// A trial on a target version.
    Trial,
    /// Trials on several targets at once (`run --jobs`).
    Trials,
    /// The cells of a suite.
    Cells,
}

/// Progress on a writer (stderr in the binary, a `Vec<u8>` in tests). Lines mode writes every
/// line to `out`; Bars mode draws one indicatif bar on stderr and writes the lines that stay
/// above it through [`ProgressBar::suspend`]. Dropping it clears the bar, so an error or a report
/// printed afterwards starts on a clean line.
pub struct Progress<W: Write> {
    mode: ProgressMode,
    out: W,
    bar: Option<(Step, ProgressBar)>,
    /// What a suite is busy with: the groups whose source checkpoint is being prepared
    /// (`shape/provider/source`) and the cells running (`…->target`), in the order they started.
    running: Vec<String>,
    /// Trials running at once (`run --jobs`): each target with its current phase, in the order
    /// they started; `None` while trials run one at a time.
    at_once: Option<Vec<(String, String)>>,
}

impl<W: Write> Progress<W> {
    pub fn new(mode: ProgressMode, out: W) -> Progress<W> {
        Progress {
            mode,
            out,
            bar: None,
            running: Vec::new(),
            at_once: None,
        }
    }

    /// A line that stays: written as is in Lines mode, above the bar in Bars mode. A closed
    /// stderr is not worth a panic (which would skip the cleanup of containers), so write errors
    /// are ignored.
    pub fn line(&mut self, text: &str) {
        self.text(&format!("{text}\n"));
    }

    /// Text of whole lines (newline-terminated), written like [`Progress::line`].
    pub fn text(&mut self, text: &str) {
        let out = &mut self.out;
        let mut write = || {
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        };
        match &self.bar {
            Some((_, bar)) => bar.suspend(write),
            None => write(),
        }
    }

    /// Removes the bar, if one is drawn.
    pub fn clear(&mut self) {
        if let Some((_, bar)) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// A line of an image build or a local install.
    pub fn runtime_step(&mut self, line: &str) {
        match self.mode {
            ProgressMode::Lines => self.line(&format!("  {line}")),
            ProgressMode::Bars => {
                if self.step() != Some(Step::Runtime) {
                    self.start(
                        Step::Runtime,
                        spinner("{spinner} preparing the runtime: {msg}"),
                    );
                }
                self.set_message(line);
            }
        }
    }

    /// A suite of `total` cells starts running (Bars mode: the bar of finished cells).
    pub fn cells_started(&mut self, total: usize) {
        if self.mode == ProgressMode::Bars {
            let bar = ProgressBar::new(total as u64).with_style(style(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} cells  {wide_msg}",
            ));
            self.start(Step::Cells, bar);
        }
    }

    /// A group's source checkpoint is being prepared (Bars mode: named under the bar).
    pub fn source_started(&mut self, group: &str) {
        if self.mode == ProgressMode::Lines {
            // Without a bar (CI logs, a pipe) a generation would otherwise be minutes of
            // silence before the first cell's line (new-user pass, session 5).
            self.line(&format!(
                "{group}: preparing its source checkpoint (from the cache, or generated: minutes)"
            ));
        }
        self.running.push(format!("{group} (checkpoint)"));
        self.show_running();
    }

    /// A cell's trial started (Bars mode: named under the bar).
    pub fn cell_started(&mut self, id: &str) {
        self.group_ready(id);
        self.running.push(id.to_owned());
        self.show_running();
    }

    /// A cell finished: `text` (its progress line, and a grid when one is complete) stays above
    /// the bar of cells.
    pub fn cell_finished(&mut self, done: usize, id: &str, text: &str) {
        self.group_ready(id);
        self.running.retain(|r| r != id);
        if let Some((Step::Cells, bar)) = &self.bar {
            bar.set_position(done as u64);
        }
        self.show_running();
        self.text(text);
    }

    /// A cell of a group started or finished: its source checkpoint is no longer being prepared.
    fn group_ready(&mut self, id: &str) {
        if let Some((group, _)) = id.split_once("->") {
            let preparing = format!("{group} (checkpoint)");
            self.running.retain(|r| *r != preparing);
        }
    }

    /// The suite's work in progress as the bar's message.
    fn show_running(&self) {
        if let Some((Step::Cells, bar)) = &self.bar {
            let message = match self.running.len() {
                0 => String::new(),
                n => format!("{n} running: {}", self.running.join(", ")),
            };
            bar.set_message(message);
        }
    }

    /// An event of `rehearse run`.
    pub fn rehearsal(&mut self, event: RehearsalEvent) {
        match event {
            RehearsalEvent::RuntimeProgressed { line } => self.runtime_step(&line),
            RehearsalEvent::CachedSourceFound { spark, path } => {
                self.clear();
                self.line(&format!(
                    "using the source checkpoint generated earlier with Spark {spark}: {} (remove it to generate anew)",
                    path.display()
                ));
            }
            RehearsalEvent::GenerationStarted { spark, batches } => {
                self.clear();
                self.line(&format!(
                    "generating the source checkpoint with Spark {spark} ({batches} data batches)"
                ));
                if self.mode == ProgressMode::Bars {
                    let bar = ProgressBar::new(u64::from(batches)).with_style(style(
                        "  {spinner} {bar:30} {pos}/{len} batches committed  {msg} ({elapsed})",
                    ));
                    self.start(Step::Generation, bar);
                    self.set_message("starting Kafka");
                }
            }
            RehearsalEvent::TrialStarted { target } if self.at_once.is_some() => {
                let version = target.split(' ').next().unwrap_or_default().to_owned();
                self.line(&format!("[{version}] rehearsing on Spark {target}"));
                self.set_phase(&version, "creating the sandbox");
            }
            RehearsalEvent::TrialStarted { target } => {
                self.clear();
                self.line(&format!("rehearsing on Spark {target}"));
                if self.mode == ProgressMode::Bars {
                    self.start(Step::Trial, spinner("  {spinner} {msg} ({elapsed})"));
                    self.set_message("creating the sandbox");
                }
            }
            RehearsalEvent::Trial(event) => self.trial(event),
            RehearsalEvent::TrialsStarting { targets, at_once } => {
                self.clear();
                self.line(&format!(
                    "rehearsing on {} targets, {at_once} at a time: {}",
                    targets.len(),
                    targets.join(", ")
                ));
                self.at_once = Some(Vec::new());
                if self.mode == ProgressMode::Bars {
                    self.start(Step::Trials, spinner("  {spinner} {msg} ({elapsed})"));
                }
            }
            RehearsalEvent::TrialOf { target, event } => {
                let finished = matches!(event, TrialEvent::VerdictReached { .. });
                let next = phase_after(&event, false);
                self.line(&format!("  [{target}] {}", trial_line(event)));
                if finished {
                    if let Some(running) = self.at_once.as_mut() {
                        running.retain(|(t, _)| *t != target);
                    }
                    self.show_phases();
                } else if let Some(next) = next {
                    self.set_phase(&target, next);
                }
            }
            RehearsalEvent::TrialsFinished => {
                self.at_once = None;
                self.clear();
            }
            RehearsalEvent::RemoteSourceStaging { url } => {
                self.clear();
                self.line(&format!(
                    "staging the remote source checkpoint {url} (only listed and read)"
                ));
            }
            RehearsalEvent::RemoteSourceStaged {
                url,
                path,
                files,
                bytes,
            } => {
                self.clear();
                self.line(&format!(
                    "staged {url}: {files} files, {bytes} bytes into {}",
                    path.display()
                ));
            }
        }
    }

    /// An event inside the generation or a trial: in Bars mode a batch moves the generation
    /// bar (the last one stays as a line), any other event stays as a line and starts the next
    /// phase's spinner.
    fn trial(&mut self, event: TrialEvent) {
        let step = self.step();
        if self.mode == ProgressMode::Bars {
            if let (TrialEvent::BatchCommitted { done, of }, Some((Step::Generation, bar))) =
                (&event, &self.bar)
            {
                bar.set_length(u64::from(*of));
                bar.set_position(u64::from(*done));
                if done < of {
                    return;
                }
            }
        }
        let next = phase_after(&event, step == Some(Step::Generation));
        let finished = matches!(event, TrialEvent::VerdictReached { .. });
        self.line(&format!("  {}", trial_line(event)));
        if finished && step == Some(Step::Trial) {
            self.clear();
        } else if let Some(next) = next {
            self.set_message(next);
        }
    }

    /// Trials at once: `target` is now in `phase`; the spinner lists every running target's.
    fn set_phase(&mut self, target: &str, phase: &str) {
        if let Some(running) = self.at_once.as_mut() {
            match running.iter_mut().find(|(t, _)| t == target) {
                Some((_, p)) => *p = phase.to_owned(),
                None => running.push((target.to_owned(), phase.to_owned())),
            }
        }
        self.show_phases();
    }

    fn show_phases(&self) {
        if let (Some(running), Some((Step::Trials, bar))) = (&self.at_once, &self.bar) {
            let shown: Vec<String> = running.iter().map(|(t, p)| format!("{t}: {p}")).collect();
            bar.set_message(shown.join(" · "));
        }
    }

    fn step(&self) -> Option<Step> {
        self.bar.as_ref().map(|(step, _)| *step)
    }

    /// Replaces the bar with `bar` for `step`, drawn on stderr.
    fn start(&mut self, step: Step, bar: ProgressBar) {
        self.clear();
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.enable_steady_tick(TICK);
        self.bar = Some((step, bar));
    }

    /// The bar's message, its elapsed time counted from now (a new phase).
    fn set_message(&self, message: &str) {
        if let Some((_, bar)) = &self.bar {
            bar.set_message(message.to_owned());
            bar.reset_elapsed();
        }
    }
}

impl<W: Write> Drop for Progress<W> {
    fn drop(&mut self) {
        self.clear();
    }
}

/// The phase a trial (or the generation, `generation`) is in after `event`, for its spinner;
/// `None` when the event starts no new phase.
fn phase_after(event: &TrialEvent, generation: bool) -> Option<&'static str> {
    match event {
        TrialEvent::SandboxCreated { .. } => Some("starting Kafka"),
        TrialEvent::KafkaReady { .. } => Some("seeding Kafka"),
        TrialEvent::KafkaSeeded(_) => Some("starting spark-submit"),
        TrialEvent::SparkStarted { .. } if generation => Some("spark-submit committing batches"),
        TrialEvent::SparkStarted { .. } => Some("waiting for the restarted query's verdict"),
        TrialEvent::BatchCommitted { .. } => None,
        TrialEvent::WaitingFor { .. } => Some("waiting for the paths still to run"),
        TrialEvent::VerdictReached { .. } => None,
    }
}

/// A spinner drawn as `template` says.
fn spinner(template: &str) -> ProgressBar {
    ProgressBar::new_spinner().with_style(style(template))
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("the progress templates are valid")
        .progress_chars("=> ")
}

/// One progress line for an event of a trial or the generation.
fn trial_line(event: TrialEvent) -> String {
    match event {
        TrialEvent::SandboxCreated { path, files } => format!(
            "sandbox {} ({files} files copied and hashed)",
            path.display()
        ),
        TrialEvent::KafkaReady { bootstrap, seconds } => {
            format!("kafka ready at {bootstrap} after {seconds:.1} s")
        }
        TrialEvent::KafkaSeeded(s) => format!(
            "kafka seeded: {} filler + {} fresh records over {}",
            s.filler_records,
            s.fresh_records,
            s.topics
                .iter()
                .map(|(t, p)| format!("{t} ({p} partitions)"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TrialEvent::SparkStarted { image } => format!("spark-submit started in {image}"),
        TrialEvent::BatchCommitted { done, of } => {
            format!("source checkpoint: batch {done}/{of} committed")
        }
        TrialEvent::WaitingFor { what } if what == ["rows-read"] => {
            "offsets proven (the pending batch re-ran); waiting for a batch that reads the fresh records".to_string()
        }
        TrialEvent::WaitingFor { what } => format!(
            "offsets proven; waiting for {} to run (until the query goes idle or the timeout: then resume-unproven)",
            what.join(", ")
        ),
        TrialEvent::VerdictReached {
            target,
            role: TrialRole::Fresh,
            classification,
        } => {
            // A fresh run's success is `started-fresh`: say so, or the line reads as a failure
            // (new-user view, session 8).
            let c = classification;
            if rehearse::trial::ran_batch_zero(c.verdict, &c.rule, c.first_batch_after_restart) {
                format!(
                    "spark {target} (fresh run): {} (rule {}) — batch 0 ran on the new empty checkpoint, as a fresh run should; its start offsets are checked next",
                    c.verdict, c.rule
                )
            } else {
                format!(
                    "spark {target} (fresh run): {} (rule {}) — the fresh run did not run its first batch: the remedy failed too",
                    c.verdict, c.rule
                )
            }
        }
        TrialEvent::VerdictReached {
            target,
            role,
            classification,
        } => format!(
            "spark {target}{}: {} (rule {})",
            if role == TrialRole::Control { " (control)" } else { "" },
            classification.verdict,
            classification.rule
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use rehearse::kafka::SeedingSummary;

    use super::*;

    /// Trials at once (`run --jobs`, issue 31 §1): every line names its target, so two
    /// trials' interleaved lines stay readable; a fresh run's start is named by its version.
    #[test]
    fn trials_at_once_print_each_line_under_its_target() {
        let mut out = Vec::new();
        {
            let mut p = Progress::new(ProgressMode::Lines, &mut out);
            let of = |target: &str, event| RehearsalEvent::TrialOf {
                target: target.into(),
                event,
            };
            for event in [
                RehearsalEvent::TrialsStarting {
                    targets: vec!["4.0.1".into(), "3.3.4".into()],
                    at_once: 2,
                },
                RehearsalEvent::TrialStarted {
                    target: "4.0.1".into(),
                },
                RehearsalEvent::TrialStarted {
                    target: "3.3.4".into(),
                },
                of(
                    "3.3.4",
                    TrialEvent::KafkaReady {
                        bootstrap: "127.0.0.1:9093".into(),
                        seconds: 2.0,
                    },
                ),
                of(
                    "4.0.1",
                    TrialEvent::KafkaReady {
                        bootstrap: "127.0.0.1:9092".into(),
                        seconds: 3.0,
                    },
                ),
                RehearsalEvent::TrialStarted {
                    target: "4.0.1 (fresh: its job on a new empty checkpoint)".into(),
                },
                RehearsalEvent::TrialsFinished,
            ] {
                p.rehearsal(event);
            }
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "rehearsing on 2 targets, 2 at a time: 4.0.1, 3.3.4\n\
             [4.0.1] rehearsing on Spark 4.0.1\n\
             [3.3.4] rehearsing on Spark 3.3.4\n  \
             [3.3.4] kafka ready at 127.0.0.1:9093 after 2.0 s\n  \
             [4.0.1] kafka ready at 127.0.0.1:9092 after 3.0 s\n\
             [4.0.1] rehearsing on Spark 4.0.1 (fresh: its job on a new empty checkpoint)\n"
        );
    }

    /// Lines mode writes the lines `rehearse run` always printed (the integration tests read
    /// them), one per event, and no escape codes.
    #[test]
    fn lines_mode_prints_one_plain_line_per_event() {
        let mut out = Vec::new();
        {
            let mut p = Progress::new(ProgressMode::Lines, &mut out);
            for event in [
                RehearsalEvent::RuntimeProgressed {
                    line: "rehearse/spark:4.0.1 is missing: building".into(),
                },
                RehearsalEvent::GenerationStarted {
                    spark: "3.5.3".into(),
                    batches: 2,
                },
                RehearsalEvent::Trial(TrialEvent::SandboxCreated {
                    path: PathBuf::from("/tmp/sb"),
                    files: 12,
                }),
                RehearsalEvent::Trial(TrialEvent::KafkaReady {
                    bootstrap: "127.0.0.1:9092".into(),
                    seconds: 3.0,
                }),
                RehearsalEvent::Trial(TrialEvent::KafkaSeeded(SeedingSummary {
                    filler_records: 10,
                    fresh_records: 5,
                    topics: vec![("events".into(), 3)],
                    rebased: false,
                    mirrored: None,
                    below_base: Vec::new(),
                })),
                RehearsalEvent::Trial(TrialEvent::SparkStarted {
                    image: "rehearse/spark:3.5.3".into(),
                }),
                RehearsalEvent::Trial(TrialEvent::BatchCommitted { done: 1, of: 2 }),
                RehearsalEvent::Trial(TrialEvent::BatchCommitted { done: 2, of: 2 }),
                RehearsalEvent::CachedSourceFound {
                    spark: "3.5.3".into(),
                    path: PathBuf::from("/cache/src"),
                },
                RehearsalEvent::TrialStarted {
                    target: "4.0.1".into(),
                },
                RehearsalEvent::Trial(TrialEvent::WaitingFor {
                    what: vec!["state-evicted".into(), "sink-wrote".into()],
                }),
            ] {
                p.rehearsal(event);
            }
            p.cells_started(2);
            p.source_started("s/p/3.5.3");
            p.cell_started("s/p/3.5.3->4.0.1");
            p.cell_finished(1, "s/p/3.5.3->4.0.1", "[1/2] a  ok\n");
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  rehearse/spark:4.0.1 is missing: building\n\
             generating the source checkpoint with Spark 3.5.3 (2 data batches)\n\
             \x20 sandbox /tmp/sb (12 files copied and hashed)\n\
             \x20 kafka ready at 127.0.0.1:9092 after 3.0 s\n\
             \x20 kafka seeded: 10 filler + 5 fresh records over events (3 partitions)\n\
             \x20 spark-submit started in rehearse/spark:3.5.3\n\
             \x20 source checkpoint: batch 1/2 committed\n\
             \x20 source checkpoint: batch 2/2 committed\n\
             using the source checkpoint generated earlier with Spark 3.5.3: /cache/src (remove it to generate anew)\n\
             rehearsing on Spark 4.0.1\n\
             \x20 offsets proven; waiting for state-evicted, sink-wrote to run (until the query goes idle or the timeout: then resume-unproven)\n\
             s/p/3.5.3: preparing its source checkpoint (from the cache, or generated: minutes)\n\
             [1/2] a  ok\n"
        );
    }

    /// A fresh run's `started-fresh` after batch 0 is its success and the line says so; the
    /// control's line names it (new-user view, session 8: "spark 4.0.1: started-fresh" read as
    /// a failure).
    #[test]
    fn verdict_lines_name_the_control_and_a_fresh_runs_expected_start() {
        use rehearse::verdict::{BatchId, BuiltinRule, Classification, Verdict};
        let line = |role, verdict, rule: &str, first| {
            trial_line(TrialEvent::VerdictReached {
                target: "4.0.1".into(),
                role,
                classification: Box::new(Classification {
                    verdict,
                    rule: rule.into(),
                    first_batch_after_restart: first,
                    ..Classification::of_builtin(BuiltinRule::NoRuleMatched, Vec::new())
                }),
            })
        };
        let ok = line(
            TrialRole::Fresh,
            Verdict::StartedFresh,
            "new-query-started",
            Some(BatchId(0)),
        );
        assert!(ok.starts_with("spark 4.0.1 (fresh run): started-fresh (rule new-query-started) — batch 0 ran on the new empty checkpoint, as a fresh run should"), "{ok}");
        let failed = line(
            TrialRole::Fresh,
            Verdict::StartedFresh,
            "new-query-started",
            None,
        );
        assert!(failed.contains("did not run its first batch"), "{failed}");
        let control = line(
            TrialRole::Control,
            Verdict::Resumed,
            "progress-after-restart",
            Some(BatchId(3)),
        );
        assert_eq!(
            control,
            "spark 4.0.1 (control): resumed (rule progress-after-restart)"
        );
        let target = line(
            TrialRole::Target,
            Verdict::Resumed,
            "progress-after-restart",
            Some(BatchId(3)),
        );
        assert_eq!(target, "spark 4.0.1: resumed (rule progress-after-restart)");
    }
}
