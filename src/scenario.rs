//! Scenario files (TOML): the checkpoint, the job, Kafka topics, targets and expectations.
