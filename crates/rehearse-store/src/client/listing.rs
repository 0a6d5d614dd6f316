//! The guard that ends a remote listing which would not end by itself (issue 25 §5).

use std::time::Duration;

use super::CheckpointStore;
use crate::error::StoreError;

/// The longest a whole remote listing may take, however promptly each page comes: a checkpoint
/// of a million files lists in a few minutes (1,000 names a page).
pub(super) const LIST_DEADLINE: Duration = Duration::from_secs(30 * 60);

/// Ends a listing that would not end by itself (issue 25 §5: an S3 endpoint repeating its
/// continuation token was followed forever): a name seen twice, more than `max` names, or past
/// the deadline.
pub(super) struct ListingGuard {
    seen: std::collections::HashSet<String>,
    started: tokio::time::Instant,
    deadline: Duration,
    max: usize,
}

impl ListingGuard {
    pub(super) fn new(deadline: Duration, max: usize) -> Self {
        Self {
            seen: Default::default(),
            started: tokio::time::Instant::now(),
            deadline,
            max,
        }
    }

    /// The time left of the whole listing's deadline.
    pub(super) fn remaining(&self) -> Duration {
        self.deadline.saturating_sub(self.started.elapsed())
    }

    /// Takes one listed name, or says why the listing runs away.
    pub(super) fn admit(&mut self, path: &str) -> Result<(), String> {
        if self.remaining().is_zero() {
            return Err(format!(
                "it was still listing after {} s",
                self.deadline.as_secs()
            ));
        }
        if self.seen.len() >= self.max {
            return Err(format!(
                "it listed more than {} names, and a checkpoint holds far fewer (if yours really holds more files, set {}={})",
                self.max,
                crate::env::MAX_LISTED_VARIABLE,
                self.max.saturating_mul(10)
            ));
        }
        if !self.seen.insert(path.to_string()) {
            return Err(format!(
                "it sent {path:?} twice after {} names (a continuation token sent back unchanged)",
                self.seen.len()
            ));
        }
        Ok(())
    }

    /// A per-request timeout that was the whole listing's deadline running out is said as such.
    pub(super) fn or_ran_away(&self, e: StoreError, store: &CheckpointStore) -> StoreError {
        match e {
            StoreError::TimedOut { .. } if self.remaining().is_zero() => store.ran_away(format!(
                "it was still listing after {} s",
                self.deadline.as_secs()
            )),
            e => e,
        }
    }
}
