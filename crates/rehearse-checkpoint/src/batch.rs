//! [`BatchId`]: the micro-batch id every log of a checkpoint is keyed by. It lives here, at the
//! bottom of the pipeline, because the checkpoint model names it first; the verdict layer
//! re-exports it.

use serde::{Deserialize, Serialize};

/// A micro-batch id: the decimal file name of `offsets/N` and `commits/N` (HDFSMetadataLog.scala).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BatchId(pub u64);

impl std::fmt::Display for BatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::BatchId;

    #[test]
    fn batch_id_is_a_bare_number_in_json_and_text() {
        assert_eq!(serde_json::to_string(&BatchId(42)).unwrap(), "42");
        assert_eq!(serde_json::from_str::<BatchId>("7").unwrap(), BatchId(7));
        assert_eq!(BatchId(3).to_string(), "3");
    }
}
