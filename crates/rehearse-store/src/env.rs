//! The environment a store reads its settings and credentials from, passed in as a value so
//! that tests can give each case its own without touching the process environment. Its `Debug`
//! shows variable names only, never values.

use std::collections::BTreeMap;
use std::fmt;

/// The variable that sets [`StoreEnv::store_timeout`].
pub const STORE_TIMEOUT_VARIABLE: &str = "REHEARSE_STORE_TIMEOUT_SECONDS";
/// The store deadline when [`STORE_TIMEOUT_VARIABLE`] is unset: two minutes without progress.
pub const DEFAULT_STORE_TIMEOUT_SECONDS: u64 = 120;
/// The variable that sets [`StoreEnv::max_listed`].
pub const MAX_LISTED_VARIABLE: &str = "REHEARSE_STORE_MAX_LISTED";
/// The most names a remote listing may return when [`MAX_LISTED_VARIABLE`] is unset. Spark
/// keeps `spark.sql.streaming.minBatchesToRetain` (default 100) batches of every log and state
/// store version: 200 shuffle partitions × 4 stateful operators × ~200 retained files each
/// (deltas, snapshots, their `.crc`) is 160,000 names. A million is six times that, and about
/// 300 MB of names held while listing; an endpoint sending new names without end reaches it in
/// about a minute (breaker pass 3, H2: 10 million took half an hour and 3 GB).
pub const DEFAULT_MAX_LISTED: usize = 1_000_000;

/// Environment variables relevant to checkpoint stores (endpoints, regions, credentials).
///
/// The variables read, by platform (the standard ones each platform's own tools read):
///
/// | platform | variables |
/// |---|---|
/// | S3 | `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, `AWS_REGION`, `AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; else the chain (profile `AWS_PROFILE`, web identity, instance metadata) |
/// | GCS | `STORAGE_EMULATOR_HOST` (emulator, no auth), `GOOGLE_APPLICATION_CREDENTIALS`; else application-default credentials, VM metadata |
/// | Azure | `AZURE_STORAGE_CONNECTION_STRING`, `AZURE_STORAGE_ACCOUNT_NAME`/`AZURE_STORAGE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_KEY`/`AZURE_STORAGE_KEY`, `AZURE_STORAGE_SAS_TOKEN`, `AZURE_CLIENT_ID` + `AZURE_CLIENT_SECRET` + `AZURE_TENANT_ID`; else workload identity, Azure CLI, managed identity |
/// | HDFS | `REHEARSE_WEBHDFS_URL` (whole base URL), `REHEARSE_WEBHDFS_PORT` (default 9870), `HADOOP_USER_NAME` |
/// | all remote | `REHEARSE_STORE_TIMEOUT_SECONDS` (see [`StoreEnv::store_timeout`]), `REHEARSE_STORE_MAX_LISTED` (see [`StoreEnv::max_listed`]) |
#[derive(Clone, Default)]
pub struct StoreEnv {
    vars: BTreeMap<String, String>,
}

impl StoreEnv {
    /// This process's environment.
    pub fn from_process() -> Self {
        Self::from_vars(std::env::vars())
    }

    /// An environment made of exactly these variables (tests, or a scenario's own settings).
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self {
            vars: vars
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// The variable's value, `None` when unset or empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The first of these variables that is set, with its name.
    pub fn first<'a>(&'a self, names: &[&'a str]) -> Option<(&'a str, &'a str)> {
        names.iter().find_map(|n| self.get(n).map(|v| (*n, v)))
    }

    /// The store deadline: how long a remote operation may go without progress before it
    /// fails with [`super::StoreError::TimedOut`]. From `REHEARSE_STORE_TIMEOUT_SECONDS`
    /// (whole seconds, 1 to 86400), else [`DEFAULT_STORE_TIMEOUT_SECONDS`]. It bounds:
    ///
    /// - a listing: the first entry, and each next one, must arrive within it (a listing of a
    ///   million objects may take longer as a whole, page after page);
    /// - a stat and a small read (`metadata`, an offset or commit file, a zip): the whole;
    /// - a streamed read (the copy): the response's start, then each MiB (or the end).
    ///
    /// A server that trickles a byte a second defeats a per-read socket timeout; this does not.
    ///
    /// # Errors
    /// The variable's value, when it is not a whole number of seconds in range.
    pub fn store_timeout(&self) -> Result<std::time::Duration, String> {
        match self.get(STORE_TIMEOUT_VARIABLE) {
            None => Ok(std::time::Duration::from_secs(
                DEFAULT_STORE_TIMEOUT_SECONDS,
            )),
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if (1..=86_400).contains(&n) => Ok(std::time::Duration::from_secs(n)),
                _ => Err(format!(
                    "{STORE_TIMEOUT_VARIABLE}={v:?} is not a whole number of seconds from 1 to 86400"
                )),
            },
        }
    }

    /// The most names one remote listing may return before it fails with
    /// [`super::StoreError::ListingRunsAway`]: from `REHEARSE_STORE_MAX_LISTED` (a whole number
    /// from 1,000 to 100,000,000), else [`DEFAULT_MAX_LISTED`].
    ///
    /// # Errors
    /// The variable's value, when it is not a whole number in range.
    pub fn max_listed(&self) -> Result<usize, String> {
        match self.get(MAX_LISTED_VARIABLE) {
            None => Ok(DEFAULT_MAX_LISTED),
            Some(v) => match v.trim().replace('_', "").parse::<usize>() {
                Ok(n) if (1_000..=100_000_000).contains(&n) => Ok(n),
                _ => Err(format!(
                    "{MAX_LISTED_VARIABLE}={v:?} is not a whole number of names from 1000 to 100000000"
                )),
            },
        }
    }

    /// Values that must never appear in output: every variable whose name says it holds a
    /// secret (SECRET, PASSWORD, TOKEN, CONNECTION_STRING, SAS, or a KEY that is not a key id),
    /// plus the `AccountKey=` and `SharedAccessSignature=` parts of connection strings.
    pub fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, value) in &self.vars {
            let n = name.to_ascii_uppercase();
            let secret = ["SECRET", "PASSWORD", "TOKEN", "CONNECTION_STRING", "SAS"]
                .iter()
                .any(|w| n.contains(w))
                || (n.contains("KEY") && !n.ends_with("KEY_ID"));
            if secret {
                out.push(value.clone());
                for part in value.split(';') {
                    if let Some((k, v)) = part.split_once('=') {
                        if k.eq_ignore_ascii_case("AccountKey")
                            || k.eq_ignore_ascii_case("SharedAccessSignature")
                        {
                            out.push(v.to_string());
                        }
                    }
                }
            }
        }
        out
    }
}

impl fmt::Debug for StoreEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreEnv")
            .field("names", &self.vars.keys().collect::<Vec<_>>())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_names_only_and_secrets_are_found_by_name() {
        let env = StoreEnv::from_vars([
            ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI"),
            (
                "AZURE_STORAGE_CONNECTION_STRING",
                "AccountName=a;AccountKey=Zm9vYmFy;",
            ),
            ("AWS_REGION", "eu-west-1"),
            ("EMPTY", ""),
        ]);
        let dbg = format!("{env:?}");
        assert!(dbg.contains("AWS_SECRET_ACCESS_KEY") && !dbg.contains("wJalrXUtnFEMI"));
        let secrets = env.secrets();
        assert!(secrets.contains(&"wJalrXUtnFEMI".to_string()));
        assert!(secrets.contains(&"Zm9vYmFy".to_string()));
        assert!(!secrets.contains(&"AKIDEXAMPLE".to_string()));
        assert!(!secrets.contains(&"eu-west-1".to_string()));
        assert_eq!(env.get("EMPTY"), None);
        assert_eq!(
            env.first(&["NOPE", "AWS_REGION"]),
            Some(("AWS_REGION", "eu-west-1"))
        );
    }
}
