//! Credential files the environment names, checked before a backend's credential chain reads
//! one (issue 25 §5).

use std::path::Path;

use crate::store::env::StoreEnv;
use crate::store::error::StoreError;

/// Environment variables naming a file the backends' credential chains read (AWS SDK,
/// Google auth, Azure workload identity), checked before any is read.
const CREDENTIAL_FILE_VARIABLES: &[&str] = &[
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AZURE_FEDERATED_TOKEN_FILE",
];

/// Largest credential file read: a service-account key or an SSO config is a few kilobytes.
pub(super) const MAX_CREDENTIAL_FILE_BYTES: u64 = 1 << 20;

/// Each credential file the environment names must be a regular file of at most
/// [`MAX_CREDENTIAL_FILE_BYTES`] (issue 25 §5: `GOOGLE_APPLICATION_CREDENTIALS` naming a FIFO
/// blocked the credential chain forever, and `/dev/zero` was read to 4.2 GB).
pub(super) fn check_credential_files(url: &str, env: &StoreEnv) -> Result<(), StoreError> {
    for var in CREDENTIAL_FILE_VARIABLES {
        if let Some(path) = env.get(var) {
            crate::userfile::check_regular(Path::new(path), var, MAX_CREDENTIAL_FILE_BYTES)
                .map_err(|e| StoreError::Config {
                    url: url.to_string(),
                    // The first line: the file and what is wrong with it; the fix is ours.
                    what: e.to_string().lines().next().unwrap_or_default().to_string(),
                    hint: format!(
                        "point {var} at the credentials file (a JSON or INI file), or unset it"
                    ),
                })?;
        }
    }
    Ok(())
}
