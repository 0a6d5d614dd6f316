//! Checkpoint stores: where a production checkpoint lives (a local directory, S3, GCS, Azure
//! Blob / ADLS Gen2, HDFS through WebHDFS) and a **read-only** client for it.
//!
//! A leaf module: it imports nothing from the rest of the crate. [`CheckpointLocation::parse`]
//! turns what the user typed into a location; [`CheckpointStore::open`] configures a client from
//! a [`StoreEnv`] (each platform's standard variables and credential chain); the client lists,
//! heads and streams files. There is no write, delete, rename or tag operation anywhere in this
//! API, and opening a location never creates it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), rehearse_store::StoreError> {
//! use rehearse_store::{CheckpointLocation, CheckpointStore, StoreEnv};
//! let location = CheckpointLocation::parse("s3://prod-checkpoints/orders")?;
//! let store = CheckpointStore::open(location, &StoreEnv::from_process()).await?;
//! for file in store.list().await? {
//!     println!("{} {} {:?}", file.path, file.size, file.etag);
//! }
//! let metadata = store.read_small("metadata", 64 << 10).await?;
//! # let _ = metadata; Ok(()) }
//! ```
//!
//! Errors ([`StoreError`]) name the location and the fix and never contain a secret: causes
//! from the HTTP stack pass through a redactor that masks every secret value of the
//! [`StoreEnv`] and any signature-like URL parameter. [`StoreError::kind`] splits bad input
//! (exit 3) from environment problems (exit 4).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod client;
mod env;
mod error;
mod location;
mod names;
mod platforms;
#[cfg(any(test, feature = "test-server"))]
#[doc(hidden)]
pub mod test_server;

pub use client::{CheckpointStore, ObjectInfo, ObjectStream, READ_CHUNK};
pub use env::StoreEnv;
pub use error::{Cause, Redactor, StoreError};
pub use location::{looks_like_url, CheckpointLocation};
pub use names::{safe_listing, safe_relative, UnsafeName, NAME_MAX};
