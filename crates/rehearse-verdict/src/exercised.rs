//! Exercised paths: which of the things a restarted query does after a restart were seen to
//! run, from its progress reports (issue 13 §1).
//!
//! A first batch that continues the checkpoint's offsets proves the offsets. It does not prove
//! that the query read its old state, wrote new state, advanced its event-time watermark,
//! evicted state by it, or that its sink wrote: an append-mode windowed aggregation can resume
//! and fail a minute later when its first window closes. [`PathTracker`] reads every progress
//! report of the restarted run and records, per path the query HAS, whether it ran and the
//! report behind it ([`Exercised`]). A live trial's `resumed` needs every present path `ran`
//! (the gate is in `watch.rs`; the verdict otherwise is `resume-unproven`).
//!
//! | path                 | present when                                                   | ran when (fields of `StreamingQueryProgress`, sql/core `streaming/progress.scala`, 3.3–4.0) |
//! |----------------------|----------------------------------------------------------------|---------------------------------------------------------------|
//! | `state_loaded`       | the checkpoint has state (`state/<op>` directories)            | the FIRST batch after the restart holds rows it did not put: `numRowsTotal + numRowsRemoved > numRowsUpdated` summed over `stateOperators` (a store that loaded nothing holds at most what the batch put); or every operator's `customMetrics.loadedMapCacheMissCount > 0` (an HDFS-backed store read the version from the checkpoint's files: `HDFSBackedStateStoreProvider.loadMap`); or every operator has a RocksDB store whose driver-log line says it read the batch's version from the checkpoint's files (`store_load.rs`: `RocksDBFileManager.loadCheckpointFromDfs`, 3.3–4.2; local mode only) |
//! | `state_updated`      | the checkpoint has state, or a report lists `stateOperators`    | some batch's `numRowsUpdated > 0` |
//! | `watermark_advanced` | a report of the restarted run has `eventTime.watermark`, and the query has state | some batch's `eventTime.watermark` is past the checkpoint's (`batchWatermarkMs` of its offset log, `nextBatchWatermarkMs` of its commit log), or past the first one reported when the checkpoint has none |
//! | `state_evicted`      | state and a watermark are both present                          | some batch's `numRowsRemoved > 0` (windows closed, duplicates or join rows dropped by the watermark) |
//! | `sink_wrote`         | a report gives `sink.numOutputRows` ≥ 0                          | some batch's `sink.numOutputRows > 0` |
//!
//! A stateless query with `withWatermark` reports `eventTime.watermark` too (ProgressReporter
//! reports it whenever the plan has an `EventTimeWatermarkExec`, and `WatermarkTracker` moves it
//! from that node's event-time stats), but there it changes nothing: `EventTimeWatermarkExec`
//! only observes event times and passes every row on, and late rows are dropped, and state
//! evicted, only by stateful operators (`WatermarkSupport.watermarkPredicateForData` /
//! `watermarkPredicateForKeys`, sql/core `statefulOperators.scala`, 3.3–4.0). So without state
//! the watermark is no path to prove: requiring it would only turn a proved stateless resume
//! into `resume-unproven` when the fresh records' event time happens not to move it.
//!
//! A watermark the checkpoint had and the restarted query lacks is not a path that did not
//! run: the query no longer has it, and the `watermark-removed` warning says so. A sink that
//! reports `numOutputRows` as `-1` (V1 sinks: the file sink, `foreachBatch`; see
//! `SinkProgress` and `ProgressReporter.finishTrigger`) cannot be proved from progress: the
//! path is absent and [`Exercised::not_measured`] says why.

use serde::{Deserialize, Serialize};

use super::progress::{Progress, WatermarkSeen};
use rehearse_base::text::{parse_utc_millis, utc_millis};

/// Whether one path ran after the restart, and the progress report that says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathProof {
    /// The path ran after the restart.
    pub ran: bool,
    /// The progress report behind it (`batch 5: numRowsRemoved 3`), or why it did not run.
    pub evidence: String,
}

/// The paths a restarted query has and whether each ran; `None`: the query has no such path.
/// See the module docs for what each path means and which progress field proves it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exercised {
    /// The first batch after the restart saw rows of the checkpoint's state.
    pub state_loaded: Option<PathProof>,
    /// A batch after the restart put rows into state.
    pub state_updated: Option<PathProof>,
    /// The event-time watermark moved past the checkpoint's.
    pub watermark_advanced: Option<PathProof>,
    /// A batch removed state rows (windows closed, by the watermark).
    pub state_evicted: Option<PathProof>,
    /// The sink wrote rows after the restart.
    pub sink_wrote: Option<PathProof>,
    /// Paths the progress reports cannot prove, and why (a sink reporting `numOutputRows` -1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<String>,
}

impl Exercised {
    /// Every path by its name as reports write it (`state-loaded`), present or not.
    pub fn paths(&self) -> [(&'static str, Option<&PathProof>); 5] {
        [
            ("state-loaded", self.state_loaded.as_ref()),
            ("state-updated", self.state_updated.as_ref()),
            ("watermark-advanced", self.watermark_advanced.as_ref()),
            ("state-evicted", self.state_evicted.as_ref()),
            ("sink-wrote", self.sink_wrote.as_ref()),
        ]
    }

    /// The present paths that did not run, with their evidence.
    pub fn not_run(&self) -> Vec<(&'static str, &PathProof)> {
        self.paths()
            .into_iter()
            .filter_map(|(name, p)| p.filter(|p| !p.ran).map(|p| (name, p)))
            .collect()
    }

    /// Whether every present path ran.
    pub fn all_ran(&self) -> bool {
        self.not_run().is_empty()
    }

    /// Adds what later batches of the same run showed (`rehearse classify` reads past its
    /// verdict): a path that ran later counts as ran, a path only later reports have is added
    /// (ran or not). `state_loaded` is never taken from later batches: only the first batch
    /// after the restart proves the checkpoint's state was read.
    pub(crate) fn merge_later(&mut self, later: &Exercised) {
        for (mine, theirs) in [
            (&mut self.state_updated, &later.state_updated),
            (&mut self.watermark_advanced, &later.watermark_advanced),
            (&mut self.state_evicted, &later.state_evicted),
            (&mut self.sink_wrote, &later.sink_wrote),
        ] {
            let Some(t) = theirs else { continue };
            match mine {
                Some(m) if m.ran => {}
                Some(_) if !t.ran => {}
                _ => *mine = Some(t.clone()),
            }
        }
        for n in &later.not_measured {
            if !self.not_measured.contains(n) {
                self.not_measured.push(n.clone());
            }
        }
    }

    /// The evidence lines a verdict lists for these paths, in this order: the
    /// [`summary`](Exercised::summary) (`exercised paths: …`), each present path's proof
    /// (`state-updated: batch 5: numRowsUpdated 20`), then what is not measured. Every verdict
    /// that lists the paths lists them by this, so `rehearse classify`, which merges later
    /// batches' paths after its verdict ([`merge_later`](Exercised::merge_later)), can replace
    /// the lines it listed with the merged ones: the evidence never says `NOT run` beside an
    /// `exercised` that says ran (new-user pass, session 8).
    pub fn evidence_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("exercised paths: {}", self.summary())];
        for (name, p) in self.paths() {
            if let Some(p) = p {
                lines.push(format!("{name}: {}", p.evidence));
            }
        }
        lines.extend(self.not_measured.iter().cloned());
        lines
    }

    /// The present paths that ran, by name.
    pub fn ran(&self) -> Vec<&'static str> {
        self.paths()
            .into_iter()
            .filter_map(|(name, p)| p.filter(|p| p.ran).map(|_| name))
            .collect()
    }

    /// One line: `state-loaded ✓ state-updated ✓ sink-wrote ✗` (present paths only).
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .paths()
            .into_iter()
            .filter_map(|(name, p)| {
                p.map(|p| format!("{name} {}", if p.ran { "ran" } else { "NOT run" }))
            })
            .collect();
        if parts.is_empty() {
            "no path beyond the offsets (stateless, no watermark, sink not measured)".into()
        } else {
            parts.join(", ")
        }
    }
}

/// Reads the progress reports of the restarted run into [`Exercised`]; see the module docs.
#[derive(Debug, Clone, Default)]
pub(crate) struct PathTracker {
    /// The checkpoint has state (`TrialContext::operator_ids` not empty).
    checkpoint_state: bool,
    /// The checkpoint's watermark (`TrialContext::checkpoint_watermark_ms`).
    checkpoint_watermark_ms: Option<i64>,
    /// Executed batches seen.
    batches: u64,
    state_loaded: Option<PathProof>,
    state_seen: bool,
    state_updated: Option<PathProof>,
    /// The watermark the comparison starts from, and the first report's batch.
    watermark_base: Option<(i64, String)>,
    watermark_advanced: Option<PathProof>,
    state_evicted: Option<PathProof>,
    sink_measured: Option<bool>,
    sink_wrote: Option<PathProof>,
    /// RocksDB stores' "Loading checkpoint files for version V" lines seen before the first
    /// batch (`store_load.rs`): (version, operator, the line), bounded.
    store_loads: Vec<(u64, u64, String)>,
    /// Nothing fresh was seeded (`TrialContext::nothing_fresh`): a path that did not run is
    /// said to have had no record to run on, not blamed on fresh records that do not exist.
    nothing_fresh: bool,
}

/// Store load lines kept (a store per operator and partition; the first batch's are enough).
const STORE_LOADS_KEPT: usize = 4096;

fn batch_name(p: &Progress) -> String {
    p.batch_id
        .map_or_else(|| "batch ?".to_owned(), |b| format!("batch {b}"))
}

impl PathTracker {
    /// A tracker for a restart of a checkpoint with (or without) state and this watermark.
    pub fn new(checkpoint_state: bool, checkpoint_watermark_ms: Option<i64>) -> PathTracker {
        PathTracker {
            checkpoint_state,
            checkpoint_watermark_ms,
            ..PathTracker::default()
        }
    }

    /// The same tracker for a trial that seeded nothing past the checkpoint's offsets
    /// (`TrialContext::nothing_fresh`): why a path did not run says so.
    pub fn nothing_fresh(mut self, nothing_fresh: bool) -> PathTracker {
        self.nothing_fresh = nothing_fresh;
        self
    }

    /// A RocksDB store of `operator` read `version` from the checkpoint's files
    /// (`store_load.rs`), as the driver log line `line` says. Read only until the first batch.
    pub fn saw_store_load(&mut self, operator: u64, version: u64, line: String) {
        if self.batches == 0
            && self.store_loads.len() < STORE_LOADS_KEPT
            && !self
                .store_loads
                .iter()
                .any(|(v, o, _)| *v == version && *o == operator)
        {
            self.store_loads.push((version, operator, line));
        }
    }

    /// Evidence that every one of the first batch's `operators` stateful operators has a RocksDB
    /// store that read version `batch_id` (the one the batch runs on) from the checkpoint's
    /// files; `None` when one has not (or the batch id is 0: an empty store).
    fn rocksdb_loaded(&self, batch_id: Option<u64>, operators: usize) -> Option<String> {
        let version = batch_id.filter(|&b| b > 0)?;
        let loads: Vec<&(u64, u64, String)> = self
            .store_loads
            .iter()
            .filter(|(v, _, _)| *v == version)
            .collect();
        let mut ops: Vec<u64> = loads.iter().map(|(_, o, _)| *o).collect();
        ops.sort_unstable();
        ops.dedup();
        (operators > 0 && ops.len() >= operators).then(|| {
            format!(
                "the RocksDB store of every stateful operator ({}) read version {version} from the checkpoint's files before the batch ran (RocksDBFileManager.loadCheckpointFromDfs): {}",
                ops.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
                loads[0].2
            )
        })
    }

    /// Executed batches of the restarted run seen.
    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// Whether a batch of the restarted run was seen.
    pub fn saw_a_batch(&self) -> bool {
        self.batches > 0
    }

    /// Reads one progress report of the restarted run. Reports of idle triggers, and reports
    /// cut before their end (whose fields are not all visible), are skipped.
    pub fn observe(&mut self, p: &Progress) {
        if !p.executed || p.start_offsets.is_none() {
            return;
        }
        self.batches += 1;
        let batch = batch_name(p);
        self.observe_state(p, &batch);
        self.observe_watermark(p, &batch);
        match p.sink_rows {
            Some(rows) if rows >= 0 => {
                self.sink_measured = Some(true);
                if rows > 0 && !self.sink_wrote.as_ref().is_some_and(|s| s.ran) {
                    self.sink_wrote = Some(PathProof {
                        ran: true,
                        evidence: format!("{batch}: sink.numOutputRows {rows}"),
                    });
                }
            }
            Some(_) => {
                self.sink_measured.get_or_insert(false);
            }
            None => {}
        }
    }

    fn observe_state(&mut self, p: &Progress, batch: &str) {
        let first = self.batches == 1;
        match p.state {
            Some(s) => {
                self.state_seen = true;
                if first && self.checkpoint_state {
                    let rows_tell = s.total + s.removed > s.updated;
                    let rocksdb = if rows_tell || s.loaded_from_files {
                        None
                    } else {
                        self.rocksdb_loaded(p.batch_id, s.operators)
                    };
                    let loaded = rows_tell || s.loaded_from_files || rocksdb.is_some();
                    self.state_loaded = Some(PathProof {
                        ran: loaded,
                        evidence: if let Some(rocksdb) = rocksdb {
                            // The rows cannot tell (the batch updated every row the store
                            // holds); a RocksDB store's load line can (issue 13, session 8).
                            format!(
                                "{batch} (the first after the restart): {rocksdb} (numRowsTotal {} + numRowsRemoved {} = numRowsUpdated {} could not tell)",
                                s.total, s.removed, s.updated
                            )
                        } else if !rows_tell && s.loaded_from_files {
                            // The rows cannot tell (the batch updated every row the store
                            // holds), the store's own load metric can (new-user pass, session
                            // 7: the JVM example's two keys, both updated).
                            format!(
                                "{batch} (the first after the restart): every stateful operator reports customMetrics.loadedMapCacheMissCount > 0: its HDFS-backed store read the checkpoint's snapshot and delta files for the version it resumes (numRowsTotal {} + numRowsRemoved {} = numRowsUpdated {} could not tell)",
                                s.total, s.removed, s.updated
                            )
                        } else if loaded {
                            format!(
                                "{batch} (the first after the restart): numRowsTotal {} + numRowsRemoved {} > numRowsUpdated {}: the store held rows from before the restart",
                                s.total, s.removed, s.updated
                            )
                        } else if s.updated > 0 && s.total + s.removed == s.updated {
                            // Every row the store holds was updated by this batch (a query with
                            // few keys, each given a fresh record): a store loaded from the
                            // checkpoint and an empty one look alike here (new-user pass,
                            // session 7: the JVM example's two users).
                            format!(
                                "{batch} (the first after the restart): numRowsTotal {} + numRowsRemoved {} = numRowsUpdated {}: the batch updated every row the store holds, so the checkpoint's state cannot be told from an empty store; seed fresh records with keys the checkpoint does not have (e.g. {{n}} in the key) to prove it",
                                s.total, s.removed, s.updated
                            )
                        } else {
                            format!(
                                "{batch} (the first after the restart): numRowsTotal {} + numRowsRemoved {} ≤ numRowsUpdated {}: no row of the checkpoint's state was seen (its state was empty, or not read)",
                                s.total, s.removed, s.updated
                            )
                        },
                    });
                }
                if s.updated > 0 && !self.state_updated.as_ref().is_some_and(|x| x.ran) {
                    self.state_updated = Some(PathProof {
                        ran: true,
                        evidence: format!("{batch}: numRowsUpdated {}", s.updated),
                    });
                }
                if s.removed > 0 && !self.state_evicted.as_ref().is_some_and(|x| x.ran) {
                    self.state_evicted = Some(PathProof {
                        ran: true,
                        evidence: format!("{batch}: numRowsRemoved {}", s.removed),
                    });
                }
            }
            None if first && self.checkpoint_state => {
                self.state_loaded = Some(PathProof {
                    ran: false,
                    evidence: format!(
                        "{batch} (the first after the restart) lists no stateful operator: the checkpoint's state was not read by the restarted query"
                    ),
                });
            }
            None => {}
        }
    }

    /// The watermark the comparison starts from (the checkpoint's, else the first reported
    /// after the restart), once known.
    pub(crate) fn watermark_base(&self) -> Option<(i64, String)> {
        self.watermark_base.clone()
    }

    /// Starts the comparison from `base` (a watcher reading later batches of the same run,
    /// `rehearse classify`), unless this tracker has a base already.
    pub(crate) fn continue_watermark_from(&mut self, base: (i64, String)) {
        self.watermark_base.get_or_insert(base);
    }

    fn observe_watermark(&mut self, p: &Progress, batch: &str) {
        let WatermarkSeen::At(at) = &p.watermark else {
            return;
        };
        let Some(ms) = parse_utc_millis(at) else {
            return;
        };
        let base = self
            .watermark_base
            .get_or_insert_with(|| match self.checkpoint_watermark_ms {
                Some(c) => (c, format!("the checkpoint's {}", utc_millis(c))),
                None => (ms, format!("the first reported after the restart, {at}")),
            })
            .clone();
        if ms > base.0 && !self.watermark_advanced.as_ref().is_some_and(|w| w.ran) {
            self.watermark_advanced = Some(PathProof {
                ran: true,
                evidence: format!("{batch}: eventTime.watermark {at}, past {}", base.1),
            });
        }
    }

    /// The paths as far as the reports so far show them.
    pub fn exercised(&self) -> Exercised {
        let not_yet = |why: String| PathProof {
            ran: false,
            evidence: why,
        };
        let has_state = self.checkpoint_state || self.state_seen;
        let has_watermark = self.watermark_base.is_some();
        let watermark_text = self
            .watermark_base
            .as_ref()
            .map(|b| b.1.clone())
            .unwrap_or_default();
        // Why a path did not run: the fresh records did not reach it, or there were none.
        let why = |fresh_missed: String, none_seeded: &str| {
            if self.nothing_fresh {
                format!("{none_seeded}: no fresh records were seeded past the checkpoint's offsets, so no batch after the restart had a new record to run it on")
            } else {
                fresh_missed
            }
        };
        let mut not_measured = Vec::new();
        if self.sink_measured == Some(false) {
            not_measured.push(
                "sink-wrote: the sink reports numOutputRows -1 (a V1 sink: the file sink, foreachBatch), so its writes are not proved by progress".into(),
            );
        }
        Exercised {
            state_loaded: self.checkpoint_state.then(|| {
                self.state_loaded.clone().unwrap_or_else(|| {
                    not_yet("no batch of the restarted query reported its state yet".into())
                })
            }),
            state_updated: has_state.then(|| {
                self.state_updated.clone().unwrap_or_else(|| {
                    not_yet(why(
                        "no batch after the restart put a row into state (numRowsUpdated 0): the fresh records reached no stateful operator (filtered, or dropped as late)".into(),
                        "no batch after the restart put a row into state (numRowsUpdated 0)",
                    ))
                })
            }),
            watermark_advanced: (has_state && has_watermark).then(|| {
                self.watermark_advanced.clone().unwrap_or_else(|| {
                    not_yet(why(
                        format!("eventTime.watermark never moved past {watermark_text}: the fresh records' event time did not pass it; seed records whose event time steps past it (in the template the event-time placeholder the job parses — {{timestamp_ms}}, {{timestamp_s}}, {{timestamp_iso}} or {{timestamp:yyyy-MM-dd HH:mm:ss}} — with time_step_ms, or kafka_timestamp = true when it reads Kafka's timestamp)"),
                        &format!("eventTime.watermark never moved past {watermark_text}"),
                    ))
                })
            }),
            state_evicted: (has_state && has_watermark).then(|| {
                self.state_evicted.clone().unwrap_or_else(|| {
                    not_yet(why(
                        "no batch after the restart removed a state row (numRowsRemoved 0): no window closed, event time did not pass the watermark by the query's delay and window; seed records with the event-time placeholder the job parses ({timestamp_ms}, {timestamp_s}, {timestamp_iso} or {timestamp:PATTERN}) and a time_step_ms large enough (or the state is not keyed by event time and is never evicted)".into(),
                        "no batch after the restart removed a state row (numRowsRemoved 0)",
                    ))
                })
            }),
            sink_wrote: (self.sink_measured == Some(true)).then(|| {
                self.sink_wrote.clone().unwrap_or_else(|| {
                    not_yet(why(
                        "no batch after the restart wrote a row to the sink (sink.numOutputRows 0): in append mode a window is written once the watermark closes it".into(),
                        "no batch after the restart wrote a row to the sink (sink.numOutputRows 0)",
                    ))
                })
            }),
            not_measured,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(batch: u64, state: Option<(i64, i64, i64)>, wm: Option<&str>, sink: i64) -> Progress {
        let mut v = json!({
            "id": "q", "runId": "r", "batchId": batch, "numInputRows": 3,
            "durationMs": {"addBatch": 10},
            "sources": [{"startOffset": {"t": {"0": 1}}, "numInputRows": 3}],
            "sink": {"description": "x", "numOutputRows": sink}
        });
        if let Some((total, updated, removed)) = state {
            v["stateOperators"] = json!([{"numRowsTotal": total, "numRowsUpdated": updated, "numRowsRemoved": removed}]);
        }
        if let Some(wm) = wm {
            v["eventTime"] = json!({"watermark": wm});
        }
        Progress::from_json(&v)
    }

    #[test]
    fn a_stateless_query_without_watermark_has_only_the_sink_path() {
        let mut t = PathTracker::new(false, None);
        t.observe(&report(4, None, None, 3));
        let e = t.exercised();
        assert_eq!(e.state_loaded, None);
        assert_eq!(e.state_updated, None);
        assert_eq!(e.watermark_advanced, None);
        assert_eq!(e.state_evicted, None);
        assert!(e.sink_wrote.as_ref().is_some_and(|s| s.ran), "{e:?}");
        assert!(e.all_ran());
    }

    #[test]
    fn a_windowed_aggregation_proves_every_path_only_once_a_window_closed() {
        let ckpt = parse_utc_millis("2024-01-01T00:00:30.000Z");
        let mut t = PathTracker::new(true, ckpt);
        // The first batch: old rows in the store, new ones put; nothing closed, nothing written.
        t.observe(&report(
            4,
            Some((6, 2, 0)),
            Some("2024-01-01T00:00:30.000Z"),
            0,
        ));
        let e = t.exercised();
        assert!(e.state_loaded.as_ref().is_some_and(|p| p.ran), "{e:?}");
        assert!(e.state_updated.as_ref().is_some_and(|p| p.ran));
        let missing: Vec<&str> = e.not_run().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            missing,
            ["watermark-advanced", "state-evicted", "sink-wrote"]
        );
        // The no-data batch after the watermark moved: windows evicted and written.
        t.observe(&report(
            5,
            Some((2, 0, 4)),
            Some("2024-01-01T00:00:50.000Z"),
            4,
        ));
        let e = t.exercised();
        assert!(e.all_ran(), "{e:?}");
        assert!(e
            .state_evicted
            .unwrap()
            .evidence
            .contains("batch 5: numRowsRemoved 4"));
        assert!(e
            .watermark_advanced
            .unwrap()
            .evidence
            .contains("past the checkpoint's 2024-01-01T00:00:30.000Z"));
    }

    /// New-user pass, session 7: two keys, both updated by the first batch — the rows cannot
    /// tell; the HDFS-backed store's own load metric can (every Spark fixture log's first batch
    /// after the restart reports `loadedMapCacheMissCount` 2: tests/fixtures/logs/*/resumed.log).
    #[test]
    fn the_hdfs_stores_load_metric_proves_the_state_was_read_when_the_rows_cannot() {
        let with_misses = |misses: i64| {
            let v = json!({
                "id": "q", "runId": "r", "batchId": 4, "numInputRows": 3,
                "durationMs": {"addBatch": 10},
                "sources": [{"startOffset": {"t": {"0": 1}}, "numInputRows": 3}],
                "stateOperators": [{"numRowsTotal": 2, "numRowsUpdated": 2, "numRowsRemoved": 0,
                    "customMetrics": {"loadedMapCacheHitCount": 0, "loadedMapCacheMissCount": misses}}],
                "sink": {"description": "x", "numOutputRows": 2}
            });
            let mut t = PathTracker::new(true, None);
            t.observe(&Progress::from_json(&v));
            t.exercised()
                .state_loaded
                .expect("the checkpoint has state")
        };
        let loaded = with_misses(2);
        assert!(loaded.ran, "{loaded:?}");
        assert!(
            loaded.evidence.contains("loadedMapCacheMissCount > 0"),
            "{loaded:?}"
        );
        let unknown = with_misses(0);
        assert!(!unknown.ran, "{unknown:?}");
        // The real first batch after a restart, from Spark's own log.
        let log = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/logs/4.0.1/resumed.log"
        ))
        .unwrap();
        assert!(log.contains("\"loadedMapCacheMissCount\" : 2"));
    }

    #[test]
    fn a_rocksdb_stores_load_line_proves_the_state_was_read_when_the_rows_cannot() {
        // Two operators, a first batch (4) that updated every row its stores hold: the rows
        // cannot tell, the stores' load lines of version 4 for BOTH operators can.
        let first = json!({
            "id": "q", "runId": "r", "batchId": 4, "numInputRows": 3,
            "durationMs": {"addBatch": 10},
            "sources": [{"startOffset": {"t": {"0": 1}}, "numInputRows": 3}],
            "stateOperators": [
                {"numRowsTotal": 2, "numRowsUpdated": 2, "numRowsRemoved": 0,
                 "customMetrics": {"rocksdbBytesCopied": 2684, "rocksdbFilesCopied": 2}},
                {"numRowsTotal": 1, "numRowsUpdated": 1, "numRowsRemoved": 0,
                 "customMetrics": {"rocksdbBytesCopied": 1334, "rocksdbFilesCopied": 1}}],
            "sink": {"description": "x", "numOutputRows": 2}
        });
        let with_loads = |loads: &[(u64, u64)]| {
            let mut t = PathTracker::new(true, None);
            for &(op, version) in loads {
                t.saw_store_load(op, version, format!("RocksDBFileManager StateStoreId(opId={op},partId=0,name=default): Loading checkpoint files for version {version}"));
            }
            t.observe(&Progress::from_json(&first));
            // Lines after the first batch change nothing.
            t.saw_store_load(1, 4, "late".into());
            t.exercised()
                .state_loaded
                .expect("the checkpoint has state")
        };
        let loaded = with_loads(&[(0, 4), (1, 4), (0, 4)]);
        assert!(loaded.ran, "{loaded:?}");
        assert!(loaded.evidence.contains("read version 4"), "{loaded:?}");
        assert!(loaded.evidence.contains("opId=0"), "{loaded:?}");
        // One operator's store loaded, the other's not seen; another version; version 0.
        for loads in [&[(0, 4)][..], &[(0, 3), (1, 3)], &[], &[(1, 4), (1, 4)]] {
            let unknown = with_loads(loads);
            assert!(!unknown.ran, "{loads:?}: {unknown:?}");
            assert!(unknown.evidence.contains("cannot be told"), "{unknown:?}");
        }
        let mut zero = PathTracker::new(true, None);
        zero.saw_store_load(0, 0, "v0".into());
        let mut batch0 = first.clone();
        batch0["batchId"] = json!(0);
        batch0["stateOperators"] =
            json!([{"numRowsTotal": 2, "numRowsUpdated": 2, "numRowsRemoved": 0}]);
        zero.observe(&Progress::from_json(&batch0));
        assert!(!zero.exercised().state_loaded.unwrap().ran);
    }

    #[test]
    fn state_put_by_the_batch_alone_does_not_prove_the_checkpoint_state_was_read() {
        let mut t = PathTracker::new(true, None);
        t.observe(&report(4, Some((3, 3, 0)), None, 1));
        let e = t.exercised();
        let loaded = e.state_loaded.expect("the checkpoint has state");
        // The batch updated every row the store holds: it cannot tell, and says what would.
        assert!(
            !loaded.ran
                && loaded.evidence.contains("= numRowsUpdated 3")
                && loaded
                    .evidence
                    .contains("cannot be told from an empty store"),
            "{loaded:?}"
        );
        // A later batch cannot prove it: it reads the restarted run's own state.
        t.observe(&report(5, Some((9, 3, 0)), None, 1));
        assert!(!t.exercised().state_loaded.unwrap().ran);
        // Rows removed in the first batch were in the store before it.
        let mut t = PathTracker::new(true, None);
        t.observe(&report(4, Some((0, 1, 3)), None, 1));
        assert!(t.exercised().state_loaded.unwrap().ran);
    }

    #[test]
    fn a_query_that_lost_its_stateful_operator_did_not_load_the_state() {
        let mut t = PathTracker::new(true, None);
        t.observe(&report(4, None, None, 2));
        let e = t.exercised();
        assert!(!e.state_loaded.unwrap().ran);
        assert!(!e.state_updated.unwrap().ran);
    }

    /// `classify` reads past its verdict: later batches add the paths they proved, never
    /// `state_loaded`, and a path that ran stays ran.
    #[test]
    fn later_batches_add_the_paths_they_proved() {
        let ckpt = parse_utc_millis("2024-01-01T00:00:30.000Z");
        let mut first = PathTracker::new(true, ckpt);
        first.observe(&report(
            4,
            Some((6, 2, 0)),
            Some("2024-01-01T00:00:30.000Z"),
            0,
        ));
        let mut e = first.exercised();
        let mut later = PathTracker::new(true, ckpt);
        later.observe(&report(
            5,
            Some((0, 0, 0)),
            Some("2024-01-01T00:00:50.000Z"),
            4,
        ));
        later.observe(&report(
            6,
            Some((2, 0, 4)),
            Some("2024-01-01T00:00:50.000Z"),
            0,
        ));
        let l = later.exercised();
        assert!(
            !l.state_loaded.as_ref().unwrap().ran,
            "a later batch cannot prove it"
        );
        e.merge_later(&l);
        assert!(e.all_ran(), "{e:?}");
        assert!(e
            .state_loaded
            .as_ref()
            .unwrap()
            .evidence
            .contains("batch 4"));
        assert!(e
            .state_evicted
            .as_ref()
            .unwrap()
            .evidence
            .contains("batch 6"));
        // A path later reports did not prove stays as it was.
        let mut e = first.exercised();
        e.merge_later(&PathTracker::new(true, ckpt).exercised());
        assert!(!e.all_ran());
        assert_eq!(e, first.exercised());
    }

    #[test]
    fn a_v1_sink_is_not_measured_and_idle_triggers_are_skipped() {
        let mut t = PathTracker::new(false, None);
        let mut idle = report(4, None, None, 0);
        idle.executed = false;
        t.observe(&idle);
        assert!(!t.saw_a_batch());
        t.observe(&report(4, None, None, -1));
        let e = t.exercised();
        assert_eq!(e.sink_wrote, None);
        assert!(e.not_measured[0].contains("numOutputRows -1"), "{e:?}");
        assert!(e.all_ran());
    }

    #[test]
    fn without_a_checkpoint_watermark_the_first_reported_one_is_the_base() {
        let state = Some((3, 1, 0));
        let mut t = PathTracker::new(true, None);
        t.observe(&report(4, state, Some("2024-01-01T00:00:30.000Z"), 1));
        assert!(!t.exercised().watermark_advanced.unwrap().ran);
        t.observe(&report(5, state, Some("2024-01-01T00:00:31.000Z"), 1));
        assert!(t.exercised().watermark_advanced.unwrap().ran);
    }

    /// A stateless query with `withWatermark`: the watermark is reported but drops and evicts
    /// nothing, so it is no path the resume must prove (a proved resume is not held back).
    #[test]
    fn a_stateless_query_with_a_watermark_does_not_need_it_to_advance() {
        let ckpt = parse_utc_millis("2024-01-01T00:00:30.000Z");
        let mut t = PathTracker::new(false, ckpt);
        t.observe(&report(4, None, Some("2024-01-01T00:00:30.000Z"), 3));
        let e = t.exercised();
        assert_eq!(e.watermark_advanced, None, "{e:?}");
        assert_eq!(e.state_evicted, None);
        assert!(e.all_ran(), "{e:?}");
        // The same reports with a stateful operator: the watermark must move.
        let mut t = PathTracker::new(true, ckpt);
        t.observe(&report(
            4,
            Some((6, 2, 0)),
            Some("2024-01-01T00:00:30.000Z"),
            3,
        ));
        assert!(!t.exercised().watermark_advanced.unwrap().ran);
    }
}
