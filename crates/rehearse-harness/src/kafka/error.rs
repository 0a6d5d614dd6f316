//! [`KafkaError`]: why talking to the sandbox broker failed. In a file of its own so that every
//! part of `kafka/` (seeding, records files, outputs, rows) can name it without importing the
//! seeding code, and the seeding code can import them.

/// Why talking to the sandbox Kafka failed.
#[derive(Debug, thiserror::Error)]
pub enum KafkaError {
    /// No metadata answer within the wait.
    #[error(
        "kafka at {bootstrap} did not answer a metadata request within {seconds} s: {last_error}"
    )]
    NotReady {
        /// Bootstrap servers tried.
        bootstrap: String,
        /// Seconds waited.
        seconds: u64,
        /// The last client error.
        last_error: String,
    },
    /// Creating a topic failed.
    #[error("cannot create topic {topic} on {bootstrap}: {message}")]
    CreateTopic {
        /// Topic.
        topic: String,
        /// Bootstrap servers.
        bootstrap: String,
        /// The broker's answer.
        message: String,
    },
    /// Producing failed.
    #[error("cannot produce to {topic}/{partition} on {bootstrap}: {message}")]
    Produce {
        /// Topic.
        topic: String,
        /// Partition.
        partition: u32,
        /// Bootstrap servers.
        bootstrap: String,
        /// The client error.
        message: String,
    },
    /// A records file does not fit the topic as the checkpoint has it (bad input).
    #[error("topic {topic}: records_file {message}")]
    Records {
        /// Topic.
        topic: String,
        /// The file and line, what is wrong and the fix.
        message: String,
    },
    /// Any other client error (config, watermarks).
    #[error("kafka client error on {bootstrap}: {message}")]
    Client {
        /// Bootstrap servers.
        bootstrap: String,
        /// The client error.
        message: String,
    },
}

/// A Kafka error is the environment's (the sandbox broker did not answer or refused), except a
/// records file that does not fit the checkpoint's topic: the scenario's.
impl rehearse_base::HasErrorKind for KafkaError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        match self {
            KafkaError::Records { .. } => rehearse_base::ErrorKind::BadInput,
            _ => rehearse_base::ErrorKind::Environment,
        }
    }
}
