//! The images a trial's containers run, as values: a repository and a tag kept apart from the
//! start (never a `name:tag` string split again), each a testcontainers [`Image`] with the
//! ready condition of the role it is started in — the way testcontainers-rs makes an image a
//! value (STYLE.md). Built only from versions the scenario already validated.

use std::fmt;

use testcontainers::core::WaitFor;
use testcontainers::Image;

/// `rehearse/spark:<version>`, the image of a Spark driver, master or worker.
///
/// Its ready condition is the role's: none for a driver (its readiness is its own log, watched
/// by the trial), `I have been elected leader` for a standalone master, `Successfully
/// registered with master` for a worker ([`ready_when`](Self::ready_when); the lines Spark's
/// `Master.scala` and `Worker.scala` log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparkImage {
    name: String,
    tag: String,
    ready: Option<&'static str>,
}

impl SparkImage {
    /// rehearse's image of Spark `version` (a release the scenario validated: `3.5.3`).
    pub fn rehearse(version: &str) -> Self {
        SparkImage {
            name: "rehearse/spark".to_string(),
            tag: version.to_string(),
            ready: None,
        }
    }

    /// The same image, started in a role that is ready once `line` appears on stdout or stderr.
    pub fn ready_when(&self, line: &'static str) -> Self {
        SparkImage {
            ready: Some(line),
            ..self.clone()
        }
    }
}

/// `rehearse/kafka:<version>`, the trial's broker. No ready condition: a broker is ready when
/// it answers a metadata request (`kafka::wait_ready`), which no log line proves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaImage {
    name: String,
    tag: String,
}

impl KafkaImage {
    /// rehearse's image of Kafka `version` (validated at load: `3.9.1`).
    pub fn rehearse(version: &str) -> Self {
        KafkaImage {
            name: "rehearse/kafka".to_string(),
            tag: version.to_string(),
        }
    }
}

impl Image for SparkImage {
    fn name(&self) -> &str {
        &self.name
    }

    fn tag(&self) -> &str {
        &self.tag
    }

    fn ready_conditions(&self) -> Vec<WaitFor> {
        self.ready
            .map(WaitFor::message_on_either_std)
            .into_iter()
            .collect()
    }
}

impl Image for KafkaImage {
    fn name(&self) -> &str {
        &self.name
    }

    fn tag(&self) -> &str {
        &self.tag
    }

    fn ready_conditions(&self) -> Vec<WaitFor> {
        Vec::new()
    }
}

/// `name:tag`, as `docker images` shows it and as errors and reports name the image.
impl fmt::Display for SparkImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.name, self.tag)
    }
}

/// `name:tag`, as `docker images` shows it and as errors and reports name the image.
impl fmt::Display for KafkaImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.name, self.tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_is_its_name_and_tag_and_its_role_s_ready_line() {
        let spark = SparkImage::rehearse("3.5.3");
        assert_eq!((spark.name(), spark.tag()), ("rehearse/spark", "3.5.3"));
        assert_eq!(spark.to_string(), "rehearse/spark:3.5.3");
        assert!(spark.ready_conditions().is_empty());
        let master = spark.ready_when("I have been elected leader");
        assert_eq!(master.ready_conditions().len(), 1);
        assert_eq!(master.to_string(), "rehearse/spark:3.5.3");
        let kafka = KafkaImage::rehearse("3.9.1");
        assert_eq!(kafka.to_string(), "rehearse/kafka:3.9.1");
        assert!(kafka.ready_conditions().is_empty());
    }
}
