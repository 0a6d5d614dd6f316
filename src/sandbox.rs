//! The sandbox: a private, hashed copy of the source checkpoint plus everything a trial writes.
