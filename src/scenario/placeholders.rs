//! The placeholders a scenario's job arguments may hold (`{checkpoint}`, `{bootstrap_servers}`,
//! `{output}`, `{topic.NAME}`) and how the harness fills them.

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

/// Fills `{checkpoint}`, `{bootstrap_servers}`, `{output}` and `{topic.NAME}` in `arg`.
/// An unknown `{topic.NAME}` is an error naming it.
pub fn fill(arg: &str, p: &Placeholders, topics: &[Topic]) -> Result<String, String> {
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
        let topic = topics
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("{arg:?} names topic {name:?}, which is not in [[topics]]"))?;
        out = format!("{}{}{}", &out[..start], topic.name, &out[end + 1..]);
    }
    Ok(out)
}
