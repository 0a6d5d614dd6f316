//! Sources of an inspection: each source's offset at the last committed batch and its kind,
//! Kafka offsets across the retained batches, and the source-private files under `sources/<n>/`.
//!
//! Part of the interpretation pass of `inspect.rs`; reads only through the loader.

use std::collections::BTreeMap;

use super::findings::Severity;
use super::inspect::{Inspector, Parsed};
use super::model::{SourceKind, SourceOffset};
use super::offsets::{
    kafka_offsets_json, offset_problem, offset_shape, OffsetLogFile, OffsetProblem, OffsetShape,
    SourceLine,
};
use super::{BatchId, KafkaOffsets};

impl Inspector {
    /// Sources at the last committed batch (or the latest batch before any commit). When that
    /// batch's offset file is missing or damaged, the newest committed batch before it whose file
    /// parses stands in: a fresh start from there re-processes the batches in between.
    pub(crate) fn sources(
        &mut self,
        offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
        commit_ids: &[u64],
        latest: Option<u64>,
    ) -> Vec<SourceOffset> {
        let is_committed = !commit_ids.is_empty();
        let Some((batch, log)) = self.sources_file(offsets, commit_ids, latest) else {
            return Vec::new();
        };
        log.sources()
            .iter()
            .enumerate()
            .map(|(index, line)| self.source_offset(index, line, batch, is_committed))
            .collect()
    }

    /// The offset file the sources are read from, with its batch id: the last committed batch's
    /// (or the latest batch's before any commit), else the newest committed one before it that
    /// parses (a finding says so). `None` when there is none.
    fn sources_file<'a>(
        &mut self,
        offsets: &'a BTreeMap<u64, Parsed<OffsetLogFile>>,
        commit_ids: &[u64],
        latest: Option<u64>,
    ) -> Option<(u64, &'a OffsetLogFile)> {
        let committed = commit_ids.last().copied();
        let wanted = committed.or(latest)?;
        if let Some(log) = offsets.get(&wanted).and_then(Parsed::ok) {
            return Some((wanted, log));
        }
        // Before any commit no earlier committed batch can stand in.
        committed?;
        let rel = format!("offsets/{wanted}");
        let fallback = commit_ids
            .iter()
            .rev()
            .skip_while(|c| **c >= wanted)
            .find_map(|c| offsets.get(c).and_then(Parsed::ok).map(|log| (*c, log)));
        let missing = !offsets.contains_key(&wanted);
        match fallback {
            Some((b, log)) => {
                self.finding(
                    if missing { Severity::Error } else { Severity::Warning },
                    "committed-offsets-fallback",
                    Some(&rel),
                    format!("{rel}, the offsets of the last committed batch, is {}; the source offsets shown are those of batch {b}, so a fresh start from them re-processes {}", if missing { "missing" } else { "unreadable" }, super::inspect::describe_ranges(&[(b + 1, wanted)])),
                );
                Some((b, log))
            }
            None => {
                if missing && !self.not_a_dir("offsets") {
                    self.finding(
                        Severity::Error,
                        "committed-offsets-missing",
                        Some(&rel),
                        format!("{rel}, the offsets of the last committed batch, is missing: the committed source positions are unknown"),
                    );
                }
                None
            }
        }
    }

    /// One source line of `offsets/<batch>`: its kind (from the offset's shape and the source's
    /// private files) and, for Kafka, its offsets and the `startingOffsets` they make.
    fn source_offset(
        &mut self,
        index: usize,
        line: &SourceLine,
        batch: u64,
        is_committed: bool,
    ) -> SourceOffset {
        let raw = line.offset_text().map(str::to_string);
        let mut source = SourceOffset {
            index,
            source_id: line.source_id().map(str::to_string),
            kind: SourceKind::Unknown,
            batch: BatchId(batch),
            committed: is_committed,
            offset: line.offset_json(),
            raw: raw.clone(),
            kafka: None,
            starting_offsets: None,
            initial_offsets: None,
        };
        let rel = format!("offsets/{batch}");
        match raw.as_deref().map(offset_shape) {
            Some(OffsetShape::Kafka(k)) => {
                let offsets = k.offsets();
                source.kind = SourceKind::Kafka;
                if offsets
                    .values()
                    .flat_map(|p| p.values())
                    .any(|o| *o == -1 || *o == -2)
                {
                    self.finding(
                        Severity::Warning,
                        "kafka-offset-negative",
                        Some(&rel),
                        format!("source {index} has the Kafka offset -1 (latest) or -2 (earliest) in {rel}; Spark writes resolved offsets (>= 0) there, so a restart resolves them anew and may skip or re-read records"),
                    );
                }
                source.starting_offsets = Some(kafka_offsets_json(&offsets));
                source.kafka = Some(offsets);
                source.initial_offsets = self.kafka_initial_offsets(index);
            }
            Some(OffsetShape::FileLog(n)) => {
                source.kind = SourceKind::File;
                self.check_file_source_log(index, n);
            }
            Some(OffsetShape::RatePerMicroBatch) => source.kind = SourceKind::Rate,
            Some(OffsetShape::Long(_)) if self.is_rate_source(index) => {
                source.kind = SourceKind::Rate
            }
            // An offset Spark cannot read is reported by `check_offset_lines`, for every
            // offset file read.
            Some(OffsetShape::Long(_) | OffsetShape::Other) => {}
            None => {}
        }
        source
    }

    /// Every source line of every offset file read: an offset Spark cannot read on restart (not
    /// JSON; a Kafka offset that is not a Long, or negative other than -1/-2) is a finding naming
    /// the file, the line and the value. An error in the files Spark reads on restart
    /// (`critical`: the latest two), a warning elsewhere.
    pub(crate) fn check_offset_lines(
        &mut self,
        offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
        critical: &[u64],
        pending: Option<u64>,
    ) {
        // Sources whose offset parses as Kafka's in some file: Kafka in every file.
        let kafka_sources: std::collections::BTreeSet<usize> = offsets
            .values()
            .filter_map(Parsed::ok)
            .flat_map(|log| log.sources().iter().enumerate())
            .filter(|(_, line)| {
                line.offset_text()
                    .is_some_and(|t| matches!(offset_shape(t), OffsetShape::Kafka(_)))
            })
            .map(|(index, _)| index)
            .collect();
        for (&id, parsed) in offsets {
            let Some(log) = parsed.ok() else { continue };
            let rel = format!("offsets/{id}");
            let (severity, why) = super::inspect::criticality(critical.contains(&id));
            let fix = super::inspect::offset_file_fix(id, Some(id) == pending);
            for (index, line) in log.sources().iter().enumerate() {
                let Some(text) = line.offset_text() else {
                    continue;
                };
                let (code, what) = match offset_problem(text, kafka_sources.contains(&index)) {
                    None => continue,
                    Some(OffsetProblem::NotJson { value, error }) => (
                        "source-offset-garbled",
                        format!("source {index}'s offset {value} is not JSON ({error}): the source cannot read it (a Kafka source fails in JsonUtils.partitionOffsets)"),
                    ),
                    Some(OffsetProblem::KafkaValue {
                        topic,
                        partition,
                        value,
                        why,
                        parse_fails,
                    }) => (
                        "kafka-offset-invalid",
                        format!("source {index}'s Kafka offset of {topic}-{partition} is {value}, which {why}: {}", if parse_fails {
                            "Spark fails to read the offsets (JsonUtils.partitionOffsets: \"Expected e.g. {\"topicA\":{\"0\":23,\"1\":-1},\"topicB\":{\"0\":-2}}\")"
                        } else {
                            "Spark has no such offset to start from"
                        }),
                    ),
                };
                let line_no = index + 3;
                self.findings_push(
                    super::findings::Finding::new(
                        severity,
                        code,
                        Some(&rel),
                        format!("{rel} line {line_no}: {what}{why}; {fix}"),
                    )
                    .at_line(line_no),
                );
            }
        }
    }

    /// `sources/<n>/0` of a Kafka source: a 0x00 byte, `v1\n`, then the initial offsets JSON
    /// (2.1.1+), or the length-prefixed JSON of 2.1.0.
    pub(crate) fn kafka_initial_offsets(&mut self, index: usize) -> Option<KafkaOffsets> {
        let rel = format!("sources/{index}/0");
        if !self.has_file(&rel) {
            return None;
        }
        let bytes = match self.listing.read(&rel) {
            Ok(b) => b,
            Err(e) => {
                self.finding(
                    Severity::Warning,
                    e.code(),
                    Some(&rel),
                    format!("cannot read {rel}: {e}; a Kafka source reads its initial offsets from it only if it must start over"),
                );
                return None;
            }
        };
        let body = bytes.get(1..).unwrap_or_default();
        let text = String::from_utf8_lossy(body);
        let json = if let Some(rest) = text.strip_prefix('v') {
            match rest.split_once('\n') {
                Some(("1", json)) => json.to_string(),
                _ => {
                    self.finding(
                        Severity::Warning,
                        "kafka-initial-offsets-version",
                        Some(&rel),
                        format!("{rel} does not start with version v1: a Kafka source that needs its initial offsets fails with \"Log file was malformed\" or UnsupportedLogVersion"),
                    );
                    return None;
                }
            }
        } else {
            // Spark 2.1.0's format, but only if it holds Kafka offsets: garbage is no version
            // marker.
            let parsed = super::offsets::KafkaSourceOffset::parse(text.trim());
            match parsed {
                Some(_) => self.observe("kafka-initial-offset-2-1-0", &rel, false),
                None => self.finding(
                    Severity::Warning,
                    "kafka-initial-offsets-garbled",
                    Some(&rel),
                    format!("{rel} is neither a Kafka initial-offset file of Spark 2.1.1+ (a 0x00 byte, v1, JSON) nor of 2.1.0 (JSON): a Kafka source that must start over (its offsets lost) fails reading it; otherwise it is not read"),
                ),
            }
            return parsed.map(|k| k.offsets());
        };
        super::offsets::KafkaSourceOffset::parse(json.trim()).map(|k| k.offsets())
    }

    pub(crate) fn check_file_source_log(&mut self, index: usize, log_offset: i64) {
        if log_offset < 0 {
            return;
        }
        let base = format!("sources/{index}/{log_offset}");
        if self.has_file(&base) || self.has_file(&format!("{base}.compact")) {
            return;
        }
        // A compacted log keeps entries of older batches in the next `.compact` file.
        let dir = format!("sources/{index}/");
        let has_later_compact = self.listing.entries.iter().any(|e| {
            e.rel
                .strip_prefix(&dir)
                .and_then(|n| n.strip_suffix(".compact"))
                .and_then(|n| n.parse::<i64>().ok())
                .is_some_and(|n| n >= log_offset)
        });
        if !has_later_compact {
            self.finding(
                Severity::Warning,
                "file-source-log-missing",
                Some(&base),
                format!("the file source {index} committed log offset {log_offset}, but {base} (its file list) is missing: Spark cannot tell which input files it already processed"),
            );
        }
    }

    pub(crate) fn is_rate_source(&mut self, index: usize) -> bool {
        let rel = format!("sources/{index}/0");
        if !self.has_file(&rel) {
            return false;
        }
        let Ok(bytes) = self.listing.read(&rel) else {
            return false;
        };
        let text = String::from_utf8_lossy(&bytes);
        text.strip_prefix("v1\n")
            .is_some_and(|rest| !rest.is_empty() && rest.trim().bytes().all(|b| b.is_ascii_digit()))
    }

    /// Per topic-partition, the highest offset over every retained offset file; reports offsets
    /// that went backwards between batches and changes of the source count.
    pub(crate) fn kafka_across_batches(
        &mut self,
        offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
    ) -> KafkaOffsets {
        let mut required = KafkaOffsets::new();
        let mut previous: Option<(u64, KafkaOffsets)> = None;
        let mut went_back: Option<(u64, String, u32, i64, i64)> = None;
        let mut source_count: Option<(u64, usize)> = None;
        let mut count_changed: Option<(u64, usize, usize)> = None;
        for (&id, parsed) in offsets {
            let Some(log) = parsed.ok() else { continue };
            match source_count {
                Some((_, n)) if n != log.sources().len() => {
                    count_changed = Some((id, n, log.sources().len()));
                    source_count = Some((id, log.sources().len()));
                }
                None => source_count = Some((id, log.sources().len())),
                _ => {}
            }
            let mut this = KafkaOffsets::new();
            for line in log.sources() {
                let Some(text) = line.offset_text() else {
                    continue;
                };
                if !text.starts_with('{') {
                    continue;
                }
                let Some(kafka) = super::offsets::KafkaSourceOffset::parse(text) else {
                    continue;
                };
                for (topic, parts) in kafka.offsets() {
                    let req = required.entry(topic.clone()).or_default();
                    let cur = this.entry(topic).or_default();
                    for (p, o) in parts {
                        req.entry(p).and_modify(|x| *x = (*x).max(o)).or_insert(o);
                        cur.insert(p, o);
                    }
                }
            }
            if let Some((_, prev)) = &previous {
                for (topic, parts) in &this {
                    for (p, o) in parts {
                        if let Some(before) = prev.get(topic).and_then(|m| m.get(p)) {
                            if o < before && went_back.is_none() {
                                went_back = Some((id, topic.clone(), *p, *before, *o));
                            }
                        }
                    }
                }
            }
            if !this.is_empty() {
                previous = Some((id, this));
            }
        }
        if let Some((id, topic, p, before, after)) = went_back {
            self.finding(
                Severity::Warning,
                "kafka-offset-went-back",
                Some(&format!("offsets/{id}")),
                format!("Kafka offset of {topic}-{p} went back from {before} to {after} at batch {id}: the topic was recreated or the offset log was edited"),
            );
        }
        // A restart reads the latest offset file and the one before it
        // (MicroBatchExecution.populateStartOffsets: `offsetLog.get(latestBatchId - 1)`), and
        // `OffsetSeq.toStreamProgress` asserts each names as many sources as the query has
        // ("There are [n] sources in the checkpoint offsets and now there are [m] sources
        // requested by the query. Cannot continue.", Spark 2.4–4.x): a latest file with no
        // source, or a count that differs between those two, cannot be restarted by any query.
        let counts: Vec<(u64, usize)> = offsets
            .iter()
            .filter_map(|(&id, parsed)| parsed.ok().map(|log| (id, log.sources().len())))
            .collect();
        match counts.as_slice() {
            [.., (id, 0)] => {
                self.finding(
                    Severity::Error,
                    "offset-file-without-source",
                    Some(&format!("offsets/{id}")),
                    format!("offsets/{id} names no source: a query has at least one, so Spark refuses to restart from it (OffsetSeq.toStreamProgress: \"There are [0] sources in the checkpoint offsets and now there are [n] sources requested by the query\")"),
                );
                return required;
            }
            [.., (before_id, before), (id, after)] if before != after && before_id + 1 == *id => {
                self.finding(
                    Severity::Error,
                    "source-count-changed",
                    Some(&format!("offsets/{id}")),
                    format!("offsets/{before_id} names {before} source(s) and offsets/{id} names {after}: a restart reads both (MicroBatchExecution.populateStartOffsets) and Spark refuses the one whose count differs from the query's (OffsetSeq.toStreamProgress: \"There are [n] sources in the checkpoint offsets and now there are [m] sources requested by the query\")"),
                );
                return required;
            }
            _ => {}
        }
        if let Some((id, before, after)) = count_changed {
            self.finding(
                Severity::Info,
                "source-count-changed",
                Some(&format!("offsets/{id}")),
                format!("the number of sources changed from {before} to {after} at batch {id}: the query's plan changed between runs"),
            );
        }
        required
    }

    pub(crate) fn check_kafka_conflicts(&mut self, sources: &[SourceOffset]) {
        let mut seen: BTreeMap<(String, u32), (usize, i64)> = BTreeMap::new();
        for s in sources {
            for (topic, parts) in s.kafka.iter().flatten() {
                for (p, o) in parts {
                    if let Some((other, o2)) = seen.insert((topic.clone(), *p), (s.index, *o)) {
                        if o2 != *o {
                            self.finding(
                                Severity::Warning,
                                "kafka-sources-overlap",
                                Some(&format!("offsets/{}", s.batch)),
                                format!("sources {other} and {} both read {topic}-{p}, at offsets {o2} and {o}: the merged startingOffsets uses the lower one; prefer each source's own", s.index),
                            );
                            return;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod source_count_tests {
    use super::Severity;

    const KAFKA: &str = r#"{"events":{"0":5}}"#;

    /// A checkpoint whose offset files have these source lines, batches 0…, all committed.
    fn findings(files: &[&[&str]]) -> Vec<(String, Severity)> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        crate::write_test_checkpoint(root, files);
        let inspection = crate::inspect(root).unwrap();
        inspection
            .findings
            .iter()
            .map(|f| (f.code.to_string(), f.severity))
            .collect()
    }

    fn has(found: &[(String, Severity)], code: &str, severity: Severity) -> bool {
        found.iter().any(|(c, s)| c == code && *s == severity)
    }

    /// Breaker pass (issue 25 §6): a latest offset file with no source line, or with two where
    /// the one before names one, was an info note and `inspect` exited 0; Spark refuses both
    /// restarts (OffsetSeq.toStreamProgress).
    #[test]
    fn an_offset_file_spark_cannot_restart_from_is_an_error() {
        let none = findings(&[&[KAFKA], &[]]);
        assert!(
            has(&none, "offset-file-without-source", Severity::Error),
            "{none:?}"
        );
        let two = findings(&[&[KAFKA], &[KAFKA, KAFKA]]);
        assert!(
            has(&two, "source-count-changed", Severity::Error),
            "{two:?}"
        );
        // A change long before the two files a restart reads is history: a note.
        let old = findings(&[&[KAFKA], &[KAFKA, KAFKA], &[KAFKA, KAFKA], &[KAFKA, KAFKA]]);
        assert!(has(&old, "source-count-changed", Severity::Info), "{old:?}");
        // Two sources throughout (a union of two streams): nothing to say.
        let union = findings(&[&[KAFKA, KAFKA], &[KAFKA, KAFKA]]);
        assert!(
            !union.iter().any(|(c, _)| c.starts_with("source-count")),
            "{union:?}"
        );
    }
}
