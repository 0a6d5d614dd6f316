//! `[[topics]]` (where each input topic's records come from) and `[[output_topics]]`, checked at
//! load.

use super::*;

/// `[[topics]]`, in file order.
pub(super) fn topics(specs: &[TopicSpec], dir: &Relative) -> Result<Vec<Topic>, String> {
    for (i, t) in specs.iter().enumerate() {
        if specs[..i].iter().any(|o| o.name == t.name) {
            return Err(format!(
                "[[topics]] names {:?} twice: give each topic one entry",
                t.name
            ));
        }
    }
    specs.iter().map(|t| topic(t, dir)).collect()
}

/// A valid Kafka topic name: letters, digits, `.`, `_`, `-`, not `.` or `..` (Kafka's
/// `Topic.validate`). The one rule: scenarios, `init`, and `capture`, whose `<topic>.jsonl` file
/// names come from a checkpoint's offsets (so a topic is never a path).
///
/// # Errors
/// The message naming the topic.
pub fn check_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
    {
        return Err(format!(
            "topic name {name:?} is not a valid Kafka topic name"
        ));
    }
    Ok(())
}

/// The keys of a `[[topics]]` entry that change nothing beside the others given, one load
/// warning each (issue 26 §7: `time_step_ms` and `kafka_timestamp` beside a `records_file` were
/// taken silently). A `records_file`'s records keep their own `timestamp_ms` (Kafka timestamp)
/// and values, so neither key reaches them (`kafka/records.rs`); a `template` without an
/// event-time placeholder (`{timestamp_ms}`, `{timestamp_s}`, `{timestamp_iso}`,
/// `{timestamp:…}`) uses `time_step_ms` only for the Kafka timestamp `kafka_timestamp = true`
/// asks for.
pub(super) fn unused_topic_keys(t: &TopicSpec) -> Vec<String> {
    let mut out = Vec::new();
    if t.records_file.is_some() {
        for (key, given) in [
            ("time_step_ms", t.time_step_ms.is_some()),
            ("kafka_timestamp", t.kafka_timestamp.is_some()),
        ] {
            if given {
                out.push(format!(
                    "topic {}: `{key}` is unused beside `records_file`: each line's own `timestamp_ms` is its record's Kafka timestamp and its value is sent as written (remove `{key}`, or give the event times in the file's lines)",
                    t.name
                ));
            }
        }
    } else if let Some(tpl) = &t.template {
        if t.time_step_ms.is_some()
            && !tpl.contains("{timestamp")
            && t.kafka_timestamp != Some(true)
        {
            out.push(format!(
                "topic {}: `time_step_ms` is unused: the template has no event-time placeholder ({{timestamp_ms}}, {{timestamp_s}}, {{timestamp_iso}}, {{timestamp:PATTERN}}) and `kafka_timestamp` is not true (put the event time the job parses into the template, or remove `time_step_ms`)",
                t.name
            ));
        }
    }
    out
}

/// One `[[topics]]` entry: a valid Kafka topic name and where its record values come from.
pub(super) fn topic(t: &TopicSpec, dir: &Relative) -> Result<Topic, String> {
    check_topic_name(&t.name)?;
    if t.time_step_ms
        .is_some_and(|s| s > i64::MAX as u64 / 1_000_000_000)
    {
        return Err(format!(
            "topic {}: time_step_ms is too large
(hint: a step of seconds or minutes, e.g. 1000)",
            t.name
        ));
    }
    if t.partitions == Some(0) {
        return Err(format!(
            "topic {}: partitions = 0: a Kafka topic has at least 1 partition; give the count the job's topic has, or leave it out (default 2; a checkpoint's own count wins)",
            t.name
        ));
    }
    Ok(Topic {
        name: t.name.clone(),
        partitions: t.partitions.unwrap_or(2),
        records: records(t, dir)?,
        fresh_records: t.fresh_records.unwrap_or(DEFAULT_FRESH_RECORDS),
        fill_to_checkpoint: t.fill_to_checkpoint.unwrap_or(true),
        time_step_ms: t.time_step_ms.unwrap_or(DEFAULT_TIME_STEP_MS),
        kafka_timestamp: t.kafka_timestamp.unwrap_or(false),
    })
}

/// A topic's `template`, `sample_file` (read now, one value per non-empty line) or
/// `records_file` (read and checked whole now; `partition`s checked against `partitions` when
/// the scenario gives it); none gives a JSON template with `n` and `partition`.
pub(super) fn records(t: &TopicSpec, dir: &Relative) -> Result<RecordSource, String> {
    let given = [
        t.template.is_some(),
        t.sample_file.is_some(),
        t.records_file.is_some(),
    ];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(format!(
            "topic {}: give one of `template`, `sample_file` or `records_file`, not several",
            t.name
        ));
    }
    if let Some(f) = &t.records_file {
        let f = dir.resolve(f);
        let file =
            RecordsFile::read(&f, t.partitions).map_err(|m| format!("topic {}: {m}", t.name))?;
        return Ok(RecordSource::File(std::sync::Arc::new(file)));
    }
    match (&t.template, &t.sample_file) {
        (Some(tpl), None) => {
            placeholders::check_template(tpl).map_err(|m| format!("topic {}: {m}", t.name))?;
            Ok(RecordSource::Template(tpl.clone()))
        }
        (None, Some(f)) => {
            let f = dir.resolve(f);
            let text = userfile::read_text(&f, "sample_file", userfile::MAX_SAMPLE_BYTES)
                .map_err(|e| format!("topic {}: {e}", t.name))?;
            let lines: Vec<String> = text
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            if lines.is_empty() {
                return Err(format!(
                    "topic {}: sample_file {} has no lines",
                    t.name,
                    f.display()
                ));
            }
            Ok(RecordSource::Samples(lines))
        }
        (None, None) => Ok(RecordSource::Template(
            "{\"n\":{n},\"partition\":{partition}}".into(),
        )),
        (Some(_), Some(_)) => Err(format!(
            "topic {}: give `template` or `sample_file`, not both",
            t.name
        )),
    }
}

/// `[[output_topics]]`, in file order: valid names, none twice, none also an input topic
/// (the job would read its own output, and seeding would fill it).
pub(super) fn output_topics(
    specs: &[OutputTopicSpec],
    inputs: &[Topic],
) -> Result<Vec<OutputTopic>, String> {
    let mut out: Vec<OutputTopic> = Vec::new();
    for t in specs {
        check_topic_name(&t.name).map_err(|m| format!("[[output_topics]]: {m}"))?;
        if out.iter().any(|o| o.name == t.name) {
            return Err(format!(
                "output topic {:?} is declared twice in [[output_topics]]\n(hint: keep one entry per topic)",
                t.name
            ));
        }
        if inputs.iter().any(|i| i.name == t.name) {
            return Err(format!(
                "topic {:?} is both in [[topics]] (read, seeded) and in [[output_topics]] (written, created empty)\n(hint: a job that reads its own output needs it under [[topics]] only; otherwise remove it there)",
                t.name
            ));
        }
        if t.partitions == Some(0) {
            return Err(format!(
                "output topic {:?}: partitions must be at least 1",
                t.name
            ));
        }
        let mut config = BTreeMap::new();
        for (key, value) in &t.config {
            if key.is_empty()
                || key.contains(|c: char| !(c.is_ascii_alphanumeric() || ".-_".contains(c)))
            {
                return Err(format!("output topic {:?}: config key {key:?} is not a Kafka topic config name (e.g. \"cleanup.policy\")", t.name));
            }
            let text = match value {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(format!(
                        "output topic {:?}: config {key:?} = {other} is not a string, integer or boolean",
                        t.name
                    ))
                }
            };
            config.insert(key.clone(), text);
        }
        out.push(OutputTopic {
            name: t.name.clone(),
            declared: t.name.clone(),
            partitions: t.partitions.unwrap_or(1),
            config,
        });
    }
    Ok(out)
}
