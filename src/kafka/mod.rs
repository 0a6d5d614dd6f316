//! Kafka topic administration and seeding for a trial (rdkafka).
