//! The placeholders a scenario's job arguments may hold (`{checkpoint}`, `{bootstrap_servers}`,
//! `{output}`, `{topic.NAME}` of an input or output topic) and how the harness fills them.

use super::Topic;

/// Values the harness fills into job arguments.
#[derive(Debug, Clone)]
pub struct Placeholders {
    /// `{checkpoint}`: the checkpoint path as the job sees it.
    pub checkpoint: String,
    /// `{bootstrap_servers}`: Kafka as the job sees it.
    pub bootstrap_servers: String,
    /// `{output}`: the sink directory as the job sees it.
    pub output: String,
}

/// The placeholders the harness fills, besides `{topic.NAME}` (one per `[[topics]]` entry). A
/// `{name}` in a job argument that is none of these is refused at load ([`check`]): a typo such
/// as `{outptu}` would otherwise reach the job as literal text.
pub const KNOWN: &[&str] = &["checkpoint", "bootstrap_servers", "output"];

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

/// Checks that every `{NAME}` placeholder in `arg` is one the harness fills: one of [`KNOWN`],
/// or `topic.NAME` for NAME one of `topics` (the input topics and the `[[output_topics]]`).
/// `Err` names the placeholder, the closest known one and the list.
pub fn check(arg: &str, topics: &[&str]) -> Result<(), String> {
    let topic_names: Vec<String> = topics.iter().map(|t| format!("topic.{t}")).collect();
    for name in names(arg) {
        if let Some(topic) = name.strip_prefix("topic.") {
            if !topics.contains(&topic) {
                let known = if topics.is_empty() {
                    "none: the scenario has no [[topics]] or [[output_topics]]".to_string()
                } else {
                    topics.join(", ")
                };
                let hint = closest(name, topic_names.iter().map(String::as_str))
                    .map(|k| format!(" (did you mean {{{k}}}?)"))
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
                .chain(std::iter::once("{topic.NAME}".to_string()))
                .collect();
            return Err(format!(
                "{arg:?} holds the placeholder {{{name}}}, which rehearse does not fill{hint} (it fills {})",
                all.join(", ")
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
        for ok in [
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
}
