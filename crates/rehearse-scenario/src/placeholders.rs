//! The placeholders a scenario's job arguments may hold (`{checkpoint}`, `{bootstrap_servers}`,
//! `{output}`, `{topic.NAME}` of an input or output topic) and how the harness fills them; and
//! the version placeholders `{spark}` and `{scala}` of job paths and dependency coordinates
//! ([`fill_versions`], [`check_versions`]).

use super::Topic;
use rehearse_base::versions::SparkLine;

/// The placeholders of job paths (`jar`, `file`) and dependency coordinates, filled per Spark
/// version by [`fill_versions`]: `{spark}` the full version (`4.0.1`), `{scala}` the Scala
/// binary version of its line (`2.13`, the `scala` column of `crates/rehearse-base/src/versions/spark-lines.toml`:
/// pom.xml `scala.binary.version`). Teams that publish one artifact per line name it so:
/// `app_{scala}-{spark}.jar`, `org.apache.spark:spark-avro_{scala}:{spark}`.
pub const VERSION_NAMES: &[&str] = &["spark", "scala"];

/// Fills `{spark}` with `spark` and `{scala}` with the Scala binary version of `spark`'s line
/// ([`VERSION_NAMES`]). A version before the table's first line (Spark 2.x, refused at load)
/// leaves `{scala}` as written. Any other `{…}` is left as it is: [`check_versions`] refuses it
/// at load.
pub fn fill_versions(text: &str, spark: &str) -> String {
    let mut out = text.replace("{spark}", spark);
    if let Some(line) = SparkLine::of_text(spark) {
        out = out.replace("{scala}", line.scala);
    }
    out
}

/// Checks that every `{NAME}` in `text` (a job path or a dependency coordinate, named `what` in
/// the message, e.g. `[job] jar`) is one of [`VERSION_NAMES`]; `Err` names the placeholder, the
/// closest of them and what they are filled with.
pub fn check_versions(text: &str, what: &str) -> Result<(), String> {
    for name in names(text) {
        if VERSION_NAMES.contains(&name) {
            continue;
        }
        let hint = closest(name, VERSION_NAMES.iter().copied())
            .map(|k| format!(" — did you mean {{{k}}}?"))
            .unwrap_or_default();
        let run_time = if KNOWN.contains(&name)
            || name.starts_with("topic.")
            || name.starts_with(STARTING_OFFSETS_OF)
        {
            format!(" ({{{name}}} is filled in job arguments only)")
        } else {
            String::new()
        };
        return Err(format!(
            "{what} = {text:?} holds the placeholder {{{name}}}, which rehearse does not fill there{hint}{run_time}; {what} takes {{spark}} (the Spark version, e.g. 4.0.1) and {{scala}} (its Scala binary version, e.g. 2.13)"
        ));
    }
    Ok(())
}

/// The most bytes one `{random:N}` of a record template fills (1 MiB): Kafka's default
/// `max.message.bytes` is 1 MiB (`TopicConfig.MAX_MESSAGE_BYTES_DOC`, Kafka 3.x), so a record
/// holding more would be refused by the broker anyway.
pub const MAX_RANDOM_BYTES: usize = 1 << 20;

/// The characters `{random:N}` draws from: printable ASCII without space, `"` and `\`, so the
/// text stays valid inside a JSON string of a template (92 characters: about 6.5 bits each,
/// which LZ4, Snappy and ZSTD cannot squeeze much; RocksDB's state then takes on disk about
/// what it holds).
const RANDOM_ALPHABET: &[u8] =
    b"!#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";

/// Checks a topic's record `template`: every `{random:N}` has N a whole number from 1 to
/// [`MAX_RANDOM_BYTES`]. `Err` says what is wrong and the form.
pub fn check_template(template: &str) -> Result<(), String> {
    super::event_time::check(template)?;
    let mut random = 0usize;
    for (at, _) in template.match_indices("{random:") {
        let rest = &template[at + "{random:".len()..];
        let digits = rest.find('}').map(|end| &rest[..end]);
        match digits.map(|d| (d, d.parse::<usize>())) {
            Some((_, Ok(n))) if (1..=MAX_RANDOM_BYTES).contains(&n) => random += n,
            Some((d, _)) => {
                return Err(format!(
                    "template {template:?} holds {{random:{d}}}: give {{random:N}} with N the number of pseudo-random characters, from 1 to {MAX_RANDOM_BYTES}"
                ))
            }
            None => {
                return Err(format!(
                    "template {template:?} opens {{random: but never closes it: write {{random:N}}, N from 1 to {MAX_RANDOM_BYTES}"
                ))
            }
        }
    }
    // A record the producer refuses fails the seeding after a broker started (breaker pass,
    // session 7: `{random:1000000}` passed the load and failed with MessageSizeTooLarge).
    // Event-time placeholders grow as they fill (`{timestamp_iso}`: 15 → 24 bytes): measured
    // filled, at the widest time a year of four digits gives (breaker pass, issue 25).
    let size = super::event_time::fill(template, 253_402_300_799_999).len() + random;
    if size > MAX_RECORD_BYTES {
        return Err(format!(
            "template {:?}… fills to about {size} bytes a record, above the {MAX_RECORD_BYTES} bytes Kafka's producer sends by default (librdkafka message.max.bytes; the broker's own limit is 1048588): give smaller {{random:N}} or fewer placeholders",
            template.chars().take(40).collect::<String>()
        ));
    }
    Ok(())
}

/// The largest record value seeding sends: librdkafka's default `message.max.bytes`
/// (1,000,000, CONFIGURATION.md), which the sandbox producer keeps, below the broker's default
/// `message.max.bytes` (1048588, Kafka's `ServerLogConfigs`).
pub const MAX_RECORD_BYTES: usize = 1_000_000;

/// splitmix64's output function (Steele, Lea, Flood 2014; the constants of Java's
/// `SplittableRandom`): a bijective 64-bit mix.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Fills each `{random:N}` of `text` with N pseudo-random printable characters
/// ([`RANDOM_ALPHABET`]) that depend only on (`partition`, `n`, which `{random:…}` it is): the
/// same record gets the same bytes in every seeding, so a generation and its restarts stay
/// reproducible, while no two records share them (values RocksDB cannot compress). A
/// `{random:…}` that [`check_template`] refuses is left as written.
pub fn fill_random(text: &str, partition: u32, n: u64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut index = 0u64;
    while let Some(at) = rest.find("{random:") {
        let after = &rest[at + "{random:".len()..];
        let len = after
            .find('}')
            .and_then(|end| after[..end].parse::<usize>().ok().map(|len| (end, len)))
            .filter(|(_, len)| (1..=MAX_RANDOM_BYTES).contains(len));
        let Some((end, len)) = len else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        };
        out.push_str(&rest[..at]);
        // splitmix64 (Steele, Lea, Flood 2014) from a seed hashed out of the record and the
        // occurrence. A linear seed (n·γ) made record n+1's stream record n's shifted by one
        // word — values that compress well (breaker pass, session 7); hashed seeds start
        // unrelated streams.
        let mut state = mix64(mix64(u64::from(partition) ^ n.rotate_left(20)) ^ index);
        let mut filled = 0;
        while filled < len {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = mix64(state);
            for byte in z.to_le_bytes().into_iter().take(len - filled) {
                out.push(char::from(
                    RANDOM_ALPHABET[usize::from(byte) % RANDOM_ALPHABET.len()],
                ));
                filled += 1;
            }
        }
        rest = &after[end + 1..];
        index += 1;
    }
    out.push_str(rest);
    out
}

/// Values the harness fills into job arguments.
#[derive(Debug, Clone)]
pub struct Placeholders {
    /// `{checkpoint}`: the checkpoint path as the job sees it.
    pub checkpoint: String,
    /// `{bootstrap_servers}`: Kafka as the job sees it.
    pub bootstrap_servers: String,
    /// `{output}`: the sink directory as the job sees it.
    pub output: String,
    /// `{starting_offsets}` and `{starting_offsets.TOPIC}`: the Kafka offsets of the
    /// checkpoint's last committed batch (after a rebase, the sandbox copy's), topic →
    /// partition → offset; `None` (a generation, a checkpoint without a committed batch): both
    /// are filled with `earliest`.
    pub starting_offsets: Option<rehearse_checkpoint::KafkaOffsets>,
}

/// The placeholders the harness fills, besides `{topic.NAME}` (one per `[[topics]]` entry). A
/// `{name}` in a job argument that is none of these is refused at load ([`check`]): a typo such
/// as `{outptu}` would otherwise reach the job as literal text.
///
/// `{starting_offsets}` is the `startingOffsets` JSON of every Kafka topic of the checkpoint at
/// its last committed batch (the remedy `rehearse run --fresh` rehearses); `{starting_offsets.TOPIC}`
/// only TOPIC's partitions, for a job with several Kafka sources: Spark asserts that a source's
/// JSON names exactly the partitions it is assigned ("If startingOffsets contains specific
/// offsets, you must specify all TopicPartitions", `KafkaOffsetReaderAdmin.fetchSpecificOffsets`,
/// Spark 3.3–4.0). Both are filled in every trial: a Kafka source reads `startingOffsets` only
/// when its `sources/<n>/0` does not exist yet (`KafkaMicroBatchStream.getOrCreateInitialPartitionOffsets`:
/// `metadataLog.get(0).getOrElse { … startingOffsets … metadataLog.add(0, offsets) }`), so a
/// restart on the checkpoint ignores it and a job can always carry it.
pub const KNOWN: &[&str] = &[
    "checkpoint",
    "bootstrap_servers",
    "output",
    "starting_offsets",
];

/// The prefix of the per-topic form `{starting_offsets.TOPIC}`.
pub const STARTING_OFFSETS_OF: &str = "starting_offsets.";

/// Whether `arg` holds `{starting_offsets}` or some `{starting_offsets.TOPIC}`: a target
/// rehearsed `fresh` must pass one of them to its job.
pub fn holds_starting_offsets(arg: &str) -> bool {
    names(arg).any(|n| n == "starting_offsets" || n.starts_with(STARTING_OFFSETS_OF))
}

/// Checks that every `{starting_offsets.NAME}` of `arg` names an input topic (`inputs`, the
/// `[[topics]]`): an `[[output_topics]]` name passes [`check`] (it takes `{topic.NAME}` too),
/// but the checkpoint holds no offsets of a topic the job writes, so the fill would fail in
/// every trial, after its broker started.
pub fn check_starting_offsets_topics(arg: &str, inputs: &[&str]) -> Result<(), String> {
    for name in names(arg) {
        if let Some(topic) = name.strip_prefix(STARTING_OFFSETS_OF) {
            if !inputs.contains(&topic) {
                return Err(format!(
                    "{arg:?} names {{{name}}}, but {topic:?} is not an input topic ([[topics]]: {}): the checkpoint has offsets only for the topics the query reads",
                    inputs.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// The `startingOffsets` value for `topic` (`None`: every topic): the JSON of those offsets,
/// or `earliest` when there are none (no committed batch: a generation). `Err` when `topic` is
/// not among the checkpoint's Kafka topics.
pub fn starting_offsets_value(
    offsets: Option<&rehearse_checkpoint::KafkaOffsets>,
    topic: Option<&str>,
) -> Result<String, String> {
    let Some(all) = offsets.filter(|o| !o.is_empty()) else {
        return Ok("earliest".to_string());
    };
    match topic {
        None => Ok(rehearse_checkpoint::kafka_offsets_json(all)),
        Some(t) => match all.get(t) {
            Some(parts) => Ok(rehearse_checkpoint::kafka_offsets_json(
                &std::iter::once((t.to_string(), parts.clone())).collect(),
            )),
            None => Err(format!(
                "{{starting_offsets.{t}}} names topic {t:?}, but the checkpoint's last committed batch has offsets for {} only",
                all.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        },
    }
}

/// The `{…}` placeholders of `arg`: every `{NAME}` where NAME is letters, digits, `_`, `.` and
/// `-` starting with a letter or `_` (so JSON such as `{"a":1}` and shell `${X}` are not taken
/// for one, nor `{}` or `{0}`).
fn names(arg: &str) -> impl Iterator<Item = &str> {
    let bytes = arg.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(open) = arg[at..].find('{').map(|i| at + i) {
            at = open + 1;
            if open > 0 && bytes[open - 1] == b'$' {
                continue;
            }
            let close = arg[open + 1..].find('}').map(|i| open + 1 + i)?;
            let name = &arg[open + 1..close];
            let first_ok = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            if first_ok
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
            {
                at = close + 1;
                return Some(name);
            }
        }
        None
    })
}

/// The known name closest to `name` (by edit distance, at most 3), for "did you mean".
fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let next = (prev + usize::from(ca != *cb))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                prev = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    }
    known
        .map(|k| (distance(name, k), k))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// A placeholder written almost right: `{ checkpoint }` (spaces inside), `{{checkpoint}}`
/// (doubled braces, which would leave `{…}` around the filled value) or `{checkpoint` (never
/// closed). The harness would pass it on as literal text, so it is refused like a typo. A `{`
/// counts as opening a placeholder when the word after it (spaces skipped) is a known name or
/// `topic.…`; other braces (JSON, `${X}`, prose) are left alone.
fn malformed(arg: &str) -> Option<String> {
    let bytes = arg.as_bytes();
    for (open, _) in arg.match_indices('{') {
        if open > 0 && bytes[open - 1] == b'$' {
            continue;
        }
        let rest = &arg[open + 1..];
        let inner = rest.trim_start_matches([' ', '\t']);
        let padded_before = inner.len() != rest.len();
        let word_len = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
            .unwrap_or(inner.len());
        let word = &inner[..word_len];
        if !(KNOWN.contains(&word)
            || word.starts_with("topic.")
            || word.starts_with(STARTING_OFFSETS_OF))
        {
            continue;
        }
        let after = &inner[word_len..];
        let after_trimmed = after.trim_start_matches([' ', '\t']);
        let padded_after = after_trimmed.len() != after.len();
        let fix = format!("write {{{word}}}");
        if !after_trimmed.starts_with('}') {
            return Some(format!(
                "{arg:?} opens the placeholder {{{word} but never closes it: {fix}"
            ));
        }
        if padded_before || padded_after {
            return Some(format!(
                "{arg:?} holds a placeholder with spaces inside the braces, which rehearse does not fill: {fix}, without spaces"
            ));
        }
        let doubled_open = open > 0 && bytes[open - 1] == b'{';
        let doubled_close = after_trimmed[1..].starts_with('}');
        if doubled_open || doubled_close {
            return Some(format!(
                "{arg:?} holds {{{{{word}}}}} with doubled braces: rehearse fills single braces, so the job would get braces around the value; {fix}"
            ));
        }
    }
    None
}

/// Checks that every `{NAME}` placeholder in `arg` is one the harness fills: one of [`KNOWN`],
/// or `topic.NAME` for NAME one of `topics` (the input topics and the `[[output_topics]]`),
/// and that none is written almost right ([`malformed`]: spaces inside, doubled braces, never
/// closed). `Err` names the placeholder, the closest known one and the list, or the fix.
pub fn check(arg: &str, topics: &[&str]) -> Result<(), String> {
    if let Some(e) = malformed(arg) {
        return Err(e);
    }
    let topic_names: Vec<String> = topics.iter().map(|t| format!("topic.{t}")).collect();
    for name in names(arg) {
        let per_topic = name
            .strip_prefix("topic.")
            .or_else(|| name.strip_prefix(STARTING_OFFSETS_OF));
        if let Some(topic) = per_topic {
            if !topics.contains(&topic) {
                let known = if topics.is_empty() {
                    "none: the scenario has no [[topics]] or [[output_topics]]".to_string()
                } else {
                    topics.join(", ")
                };
                // Either side may hold the typo: the argument or the `[[topics]]` name. The
                // name that counts is the one in the checkpoint's offsets, so the hint points
                // there rather than at the closest declared name alone (session-6 new-user
                // pass: following "did you mean" led to a second error when the typo was in
                // [[topics]]).
                let prefix = &name[..name.len() - topic.len()];
                let hint = closest(topic, topics.iter().copied())
                    .map(|k| {
                        format!(
                            " (did you mean {{{prefix}{k}}}? — or is {k:?} the misspelled one? Both must be the topic name the checkpoint's offsets use: `rehearse inspect` lists them)"
                        )
                    })
                    .unwrap_or_default();
                return Err(format!(
                    "{arg:?} names topic {topic:?}, which is not in [[topics]] or [[output_topics]]{hint}; the topics are {known}"
                ));
            }
            continue;
        }
        if !KNOWN.contains(&name) {
            let hint = closest(
                name,
                KNOWN
                    .iter()
                    .copied()
                    .chain(topic_names.iter().map(String::as_str)),
            )
            .map(|k| format!(" — did you mean {{{k}}}?"))
            .unwrap_or_default();
            let all: Vec<String> = KNOWN
                .iter()
                .map(|k| format!("{{{k}}}"))
                .chain([
                    "{topic.NAME}".to_string(),
                    "{starting_offsets.NAME}".to_string(),
                ])
                .collect();
            return Err(format!(
                "{arg:?} holds the placeholder {{{name}}}, which rehearse does not fill{hint} (it fills {}){}",
                all.join(", "),
                if VERSION_NAMES.contains(&name) {
                    format!("; {{{name}}} is filled in job paths (`jar`, `file`) and dependency coordinates, not in arguments")
                } else {
                    String::new()
                }
            ));
        }
    }
    Ok(())
}

/// Fills `{checkpoint}`, `{bootstrap_servers}`, `{output}` and `{topic.NAME}` in `arg`, NAME
/// one of the input `topics`. An unknown `{topic.NAME}` is an error naming it.
pub fn fill(arg: &str, p: &Placeholders, topics: &[Topic]) -> Result<String, String> {
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    fill_topics(arg, p, &names)
}

/// [`fill`] with NAME one of `names`: the input topics and the `[[output_topics]]`
/// ([`Scenario::topic_names`](super::Scenario::topic_names)).
pub fn fill_topics(arg: &str, p: &Placeholders, names: &[&str]) -> Result<String, String> {
    check(arg, names)?;
    let mut out = arg
        .replace("{checkpoint}", &p.checkpoint)
        .replace("{bootstrap_servers}", &p.bootstrap_servers)
        .replace("{output}", &p.output);
    if out.contains("{starting_offsets}") {
        out = out.replace(
            "{starting_offsets}",
            &starting_offsets_value(p.starting_offsets.as_ref(), None)?,
        );
    }
    let open = format!("{{{STARTING_OFFSETS_OF}");
    while let Some(start) = out.find(&open) {
        let end = out[start..]
            .find('}')
            .map(|e| start + e)
            .ok_or_else(|| format!("unclosed placeholder in {arg:?}"))?;
        let topic = &out[start + open.len()..end];
        let value = starting_offsets_value(p.starting_offsets.as_ref(), Some(topic))?;
        out = format!("{}{}{}", &out[..start], value, &out[end + 1..]);
    }
    while let Some(start) = out.find("{topic.") {
        let end = out[start..]
            .find('}')
            .map(|e| start + e)
            .ok_or_else(|| format!("unclosed placeholder in {arg:?}"))?;
        let name = &out[start + 7..end];
        let topic = names.iter().find(|n| **n == name).ok_or_else(|| {
            format!("{arg:?} names topic {name:?}, which is not in [[topics]] or [[output_topics]]")
        })?;
        out = format!("{}{}{}", &out[..start], topic, &out[end + 1..]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_fill_spark_and_the_scala_binary_version_of_its_line() {
        assert_eq!(
            fill_versions("jobs/app_{scala}-{spark}.jar", "3.5.3"),
            "jobs/app_2.12-3.5.3.jar"
        );
        assert_eq!(
            fill_versions("org.apache.spark:spark-avro_{scala}:{spark}", "4.0.1"),
            "org.apache.spark:spark-avro_2.13:4.0.1"
        );
        assert_eq!(fill_versions("plain.jar", "4.0.1"), "plain.jar");
        assert_eq!(fill_versions("a_{scala}.jar", "2.4.8"), "a_{scala}.jar");
        check_versions("app_{scala}-{spark}.jar", "[job] jar").unwrap();
        check_versions("${HOME}/x.jar", "[job] jar").unwrap();
        for (text, needle) in [
            ("app_{scla}.jar", "did you mean {scala}"),
            ("app_{Spark}.jar", "did you mean {spark}"),
            ("{output}/app.jar", "filled in job arguments only"),
        ] {
            let e = check_versions(text, "[job] jar").unwrap_err();
            assert!(e.contains(needle) && e.contains("[job] jar"), "{text}: {e}");
        }
        let e = check("--v={spark}", &[]).unwrap_err();
        assert!(e.contains("not in arguments"), "{e}");
    }

    /// A typo in the `[[topics]]` name, not the argument: the hint says either side may hold
    /// it and where the real name is (session-6 new-user pass).
    #[test]
    fn a_topic_typo_hint_names_both_sides_and_the_checkpoint() {
        let e = check("{topic.orders}", &["order"]).unwrap_err();
        assert!(e.contains("did you mean {topic.order}"), "{e}");
        assert!(e.contains("\"order\" the misspelled one"), "{e}");
        assert!(e.contains("rehearse inspect"), "{e}");
    }

    #[test]
    fn placeholder_typos_are_refused_with_the_closest_known_name() {
        let topics = ["events"];
        for (arg, needle) in [
            ("{outptu}", "did you mean {output}"),
            ("--cp={checkpint}", "did you mean {checkpoint}"),
            ("{bootstrap_server}", "did you mean {bootstrap_servers}"),
            ("{topic.evnets}", "did you mean {topic.events}"),
            ("{Output}", "{output}"),
            ("{zzzzzzzzzz}", "it fills {checkpoint}"),
        ] {
            let e = check(arg, &topics).unwrap_err();
            assert!(e.contains(needle), "{arg}: {e}");
        }
        for (arg, needle) in [
            ("{ checkpoint }", "write {checkpoint}, without spaces"),
            ("{checkpoint }", "without spaces"),
            ("--x={ topic.events}", "write {topic.events}"),
            ("{{checkpoint}}", "doubled braces"),
            ("{{output}", "doubled braces"),
            ("{bootstrap_servers}}", "doubled braces"),
            ("{checkpoint", "never closes it: write {checkpoint}"),
            ("--cp={checkpoint/x", "never closes it"),
            ("{topic.events", "never closes it: write {topic.events}"),
        ] {
            let e = check(arg, &topics).unwrap_err();
            assert!(e.contains(needle), "{arg}: {e}");
        }
        for ok in [
            "{checkpoint}{output}",
            "${checkpoint}",
            "{ not a placeholder }",
            "{checkpoint}/x",
            "{bootstrap_servers}",
            "{output}-{topic.events}",
            r#"{"json":1}"#,
            "${HOME}",
            "{}",
            "{0}",
            "a {b c} d",
        ] {
            check(ok, &topics).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn random_fills_are_printable_json_safe_deterministic_and_incompressible_looking() {
        let t = r#"{"v":"{random:300}","w":"{random:5}"}"#;
        check_template(t).unwrap();
        let a = fill_random(t, 3, 17);
        assert_eq!(a, fill_random(t, 3, 17), "the same record, the same bytes");
        assert_ne!(a, fill_random(t, 3, 18));
        assert_ne!(a, fill_random(t, 4, 17));
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        let s = v["v"].as_str().unwrap();
        assert_eq!(s.len(), 300);
        assert_eq!(v["w"].as_str().unwrap().len(), 5);
        assert!(s.bytes().all(|b| RANDOM_ALPHABET.contains(&b)));
        // Two occurrences in one record differ.
        assert_ne!(&s[..5], v["w"].as_str().unwrap());
        // Spread over the alphabet: no character takes more than 3 % of 30,000.
        let big = fill_random("{random:30000}", 0, 1);
        let mut counts = [0usize; 256];
        big.bytes().for_each(|b| counts[usize::from(b)] += 1);
        assert!(counts.iter().all(|c| *c < 900), "{:?}", counts.iter().max());
        assert_eq!(
            counts.iter().filter(|c| **c > 0).count(),
            RANDOM_ALPHABET.len()
        );
        // Consecutive records are not shifted copies of each other (breaker pass, session 7:
        // record n+1's characters were record n's moved by 8, so the data compressed to 4 %).
        // No 16-character window of one record appears in the next, in any partition.
        for partition in [0, 1, 3] {
            for n in 0..200 {
                let (a, b) = (
                    fill_random("{random:200}", partition, n),
                    fill_random("{random:200}", partition, n + 1),
                );
                for w in (0..=184).step_by(8) {
                    assert!(!b.contains(&a[w..w + 16]), "p{partition} n{n}: {a} / {b}");
                }
            }
        }
    }

    #[test]
    fn a_bad_random_placeholder_is_refused_and_left_alone() {
        for big in ["{random:1000000}", "{random:600000}{random:600000}"] {
            let e = check_template(big).unwrap_err();
            assert!(
                e.contains("MessageSizeTooLarge") || e.contains("message.max.bytes"),
                "{e}"
            );
        }
        check_template("{random:999000}").unwrap();
        for bad in [
            "{random:0}",
            "{random:x}",
            "{random:}",
            "{random:2000000}",
            "{random:5",
        ] {
            let e = check_template(bad).unwrap_err();
            assert!(e.contains("{random:N}"), "{bad}: {e}");
            assert_eq!(fill_random(bad, 0, 0), bad);
        }
        check_template("{\"n\":{n}}").unwrap();
    }

    /// `{starting_offsets}` (every topic) and `{starting_offsets.TOPIC}` (one topic) are the
    /// last committed batch's offsets as `startingOffsets` JSON; `earliest` without any.
    #[test]
    fn starting_offsets_fill_the_committed_offsets_whole_or_per_topic() {
        let offsets: rehearse_checkpoint::KafkaOffsets = [
            ("a".to_string(), [(0u32, 5i64), (1, 7)].into()),
            ("b".to_string(), [(0u32, 3i64)].into()),
        ]
        .into();
        let p = Placeholders {
            checkpoint: "/c".into(),
            bootstrap_servers: "k:9092".into(),
            output: "/o".into(),
            starting_offsets: Some(offsets),
        };
        let names = ["a", "b"];
        assert_eq!(
            fill_topics("--so={starting_offsets}", &p, &names).unwrap(),
            r#"--so={"a":{"0":5,"1":7},"b":{"0":3}}"#
        );
        assert_eq!(
            fill_topics("{starting_offsets.b}", &p, &names).unwrap(),
            r#"{"b":{"0":3}}"#
        );
        assert_eq!(
            fill_topics("{topic.a}={starting_offsets.a}", &p, &names).unwrap(),
            r#"a={"a":{"0":5,"1":7}}"#
        );
        let generation = Placeholders {
            starting_offsets: None,
            ..p.clone()
        };
        assert_eq!(
            fill_topics("{starting_offsets.a}", &generation, &names).unwrap(),
            "earliest"
        );
        assert_eq!(
            fill_topics("{starting_offsets}", &generation, &names).unwrap(),
            "earliest"
        );
        // A declared topic the checkpoint has no offsets for is an error at fill time.
        let e = fill_topics("{starting_offsets.c}", &p, &["a", "b", "c"]).unwrap_err();
        assert!(e.contains("has offsets for a, b only"), "{e}");
        assert!(holds_starting_offsets("x={starting_offsets}"));
        assert!(holds_starting_offsets("{starting_offsets.a}"));
        assert!(!holds_starting_offsets("{starting_offset}"));
    }

    #[test]
    fn a_starting_offsets_topic_not_declared_is_refused_like_a_topic() {
        let e = check("{starting_offsets.evnts}", &["events"]).unwrap_err();
        assert!(e.contains("did you mean {starting_offsets.events}"), "{e}");
        assert!(e.contains("not in [[topics]]"), "{e}");
        let e = check("{startng_offsets}", &["events"]).unwrap_err();
        assert!(e.contains("did you mean {starting_offsets}"), "{e}");
        let e = check("{ starting_offsets }", &["events"]).unwrap_err();
        assert!(e.contains("spaces"), "{e}");
    }
}
