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

/// Fills `{checkpoint}`, `{bootstrap_servers}`, `{output}` and `{topic.NAME}` in `arg`, NAME
/// one of the input `topics`. An unknown `{topic.NAME}` is an error naming it.
pub fn fill(arg: &str, p: &Placeholders, topics: &[Topic]) -> Result<String, String> {
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    fill_topics(arg, p, &names)
}

/// [`fill`] with NAME one of `names`: the input topics and the `[[output_topics]]`
/// ([`Scenario::topic_names`](super::Scenario::topic_names)).
pub fn fill_topics(arg: &str, p: &Placeholders, names: &[&str]) -> Result<String, String> {
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
