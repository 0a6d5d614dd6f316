//! [`Mirrored`]: one record read from a production cluster, owned — what the group-less consumer
//! (`legacy.rs`) returns and the mirror (`mirror.rs`) collects, in a file of its own so that
//! neither imports the other's types.

use super::records::Record;

/// One record read from the production cluster, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mirrored {
    /// Its offset in the production partition.
    pub offset: i64,
    /// Key bytes.
    pub key: Option<Vec<u8>>,
    /// Value bytes.
    pub value: Option<Vec<u8>>,
    /// Headers in order.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    /// Its Kafka timestamp (create or log-append time), ms.
    pub timestamp_ms: Option<i64>,
}

impl Mirrored {
    /// As seeding produces it (the same shape as a `records_file` line's).
    pub fn record(&self) -> Record<'_> {
        Record {
            key: self.key.as_deref().map(std::borrow::Cow::Borrowed),
            value: self.value.as_deref().map(std::borrow::Cow::Borrowed),
            headers: &self.headers,
            timestamp_ms: self.timestamp_ms,
        }
    }

    /// Key, value and header bytes.
    pub fn bytes(&self) -> u64 {
        let h: usize = self
            .headers
            .iter()
            .map(|(k, v)| k.len() + v.as_ref().map_or(0, Vec::len))
            .sum();
        (self.key.as_ref().map_or(0, Vec::len) + self.value.as_ref().map_or(0, Vec::len) + h) as u64
    }
}
