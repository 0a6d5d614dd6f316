//! Containers for one trial (testcontainers): a network, a Kafka broker, a Spark driver.
//! The only module that names testcontainers.
