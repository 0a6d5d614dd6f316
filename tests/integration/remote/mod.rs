//! Checkpoints by URL against REAL servers: MinIO (S3), Azurite (Azure Blob), fake-gcs-server
//! (GCS) and a single-node HDFS (WebHDFS), started by `scripts/setup-test-servers.sh` (see
//! `store.rs`: without the servers' env file these tests say why and pass on a developer
//! machine, and FAIL when `CI=true`).
//!
//! Real checkpoints written by real Spark (the fixtures under `tests/fixtures/checkpoints`) are
//! uploaded with `opendal` directly — rehearse's store cannot write — then `rehearse inspect`
//! reads them by URL: the same `rehearse.inspect/v1` document as for the local directory, with
//! one listing and only the small files it parses read (never a state data file), and the
//! objects unchanged afterwards (listing with sizes, ETags and modification times, before vs
//! after). The bad cases are each one error naming the URL and the fix, exit 3 or 4, nothing
//! written; no secret reaches stdout or stderr, even with a full trace.
//!
//! `inspect.rs` holds the inspection tests, `run.rs` the `rehearse run` ones; the servers and
//! helpers stay here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use opendal::{services, Operator};
use rehearse::store::{CheckpointLocation, CheckpointStore, ObjectInfo, StoreEnv};

use super::store::{azure_connection_string, s3_uploader, servers, unique, upload};

mod inspect;
mod run;

/// The fixtures uploaded: a RocksDB aggregation (state zips), a Kafka-source aggregation
/// (`sources/0/0` read) and a RocksDB changelog aggregation, all written by Spark 3.5.3.
const FIXTURES: [&str; 3] = ["rocksdb-agg", "kafka-agg", "rocksdb-changelog-agg"];

pub(crate) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/checkpoints/3.5.3")
        .join(name)
}

/// One test server: how to upload to it, the URL its checkpoints are read at, and the
/// environment rehearse reads them with.
pub(crate) struct Server {
    pub name: &'static str,
    pub uploader: Operator,
    /// Key prefix the uploader writes under for `base` (HDFS: the directory of `base`).
    pub key_root: String,
    /// URL of the bucket/container/directory, without a trailing `/`.
    pub base: String,
    /// What rehearse reads its settings and credentials from.
    pub env: Vec<(String, String)>,
}

impl Server {
    pub fn store_env(&self) -> StoreEnv {
        StoreEnv::from_vars(self.env.clone())
    }

    /// Uploads `dir` under `rel` (below `base`) and returns its URL.
    pub async fn upload_dir(&self, rel: &str, dir: &Path) -> String {
        let files = local_files(dir);
        upload(&self.uploader, &format!("{}{rel}", self.key_root), &files).await;
        format!("{}/{rel}", self.base)
    }
}

pub(crate) fn all_servers(s: &BTreeMap<String, String>) -> Vec<Server> {
    let gcs = Operator::new(
        services::Gcs::default()
            .root("/")
            .bucket(&s["GCS_BUCKET"])
            .endpoint(&s["GCS_ENDPOINT"])
            .skip_signature()
            .disable_vm_metadata()
            .disable_config_load(),
    )
    .unwrap()
    .finish();
    let cs = azure_connection_string(
        &s["AZURE_BLOB_ENDPOINT"],
        &s["AZURE_ACCOUNT"],
        &s["AZURE_ACCOUNT_KEY"],
    );
    let azure = Operator::new(
        services::Azblob::from_connection_string(&cs)
            .unwrap()
            .container(&s["AZURE_CONTAINER"])
            .root("/"),
    )
    .unwrap()
    .finish();
    let hdfs = Operator::new(
        services::Webhdfs::default()
            .root("/")
            .endpoint(&s["WEBHDFS_ENDPOINT"])
            .user_name("tester"),
    )
    .unwrap()
    .finish();
    let http_port = s["WEBHDFS_ENDPOINT"]
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    vec![
        Server {
            name: "s3-minio",
            uploader: s3_uploader(s, &s["S3_BUCKET"]),
            key_root: String::new(),
            base: format!("s3://{}", s["S3_BUCKET"]),
            env: s3_env(s, &s["S3_ACCESS_KEY_ID"], &s["S3_SECRET_ACCESS_KEY"]),
        },
        Server {
            name: "azure-azurite",
            uploader: azure,
            key_root: String::new(),
            base: format!("az://{}", s["AZURE_CONTAINER"]),
            env: pairs(&[("AZURE_STORAGE_CONNECTION_STRING", &cs)]),
        },
        Server {
            name: "gcs-fake-gcs-server",
            uploader: gcs,
            key_root: String::new(),
            base: format!("gs://{}", s["GCS_BUCKET"]),
            env: pairs(&[("STORAGE_EMULATOR_HOST", &s["GCS_ENDPOINT"])]),
        },
        Server {
            name: "hdfs-webhdfs",
            uploader: hdfs,
            key_root: "rehearse-test/".into(),
            base: format!("{}/rehearse-test", s["HDFS_URL"]),
            env: pairs(&[
                ("REHEARSE_WEBHDFS_PORT", &http_port),
                ("HADOOP_USER_NAME", "reader"),
            ]),
        },
    ]
}

pub(crate) fn s3_env(
    s: &BTreeMap<String, String>,
    key: &str,
    secret: &str,
) -> Vec<(String, String)> {
    [
        ("AWS_ENDPOINT_URL", s["S3_ENDPOINT"].as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", s["S3_REGION"].as_str()),
        ("AWS_ACCESS_KEY_ID", key),
        ("AWS_SECRET_ACCESS_KEY", secret),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Every file under `dir` as (relative path, bytes), sorted.
pub(crate) fn local_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    assert!(dir.is_dir(), "{} is missing", dir.display());
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_str().unwrap();
            (rel.replace('\\', "/"), std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// `rehearse ARGS` with exactly `env` (plus PATH, and a HOME of its own so that no
/// ~/.aws, ~/.azure or gcloud config of the machine is read), run in `cwd`.
pub(crate) fn rehearse(
    args: &[&str],
    env: &[(String, String)],
    cwd: &Path,
) -> (i32, String, String) {
    // Not in `cwd`: `cwd` must stay empty.
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The listing of `url` with every change marker the server gives (size, ETag, version, MD5,
/// modification time): equal before and after means nothing was written, replaced or removed.
pub(crate) async fn snapshot(url: &str, env: &StoreEnv) -> Vec<ObjectInfo> {
    let store = CheckpointStore::open(CheckpointLocation::parse(url).unwrap(), env)
        .await
        .unwrap();
    store
        .list()
        .await
        .unwrap_or_else(|e| panic!("list {url}: {e}"))
}

/// Files of everything under `dir` (names, for "nothing written" checks).
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .map(|e| e.path().to_path_buf())
        .collect();
    v.sort();
    v
}

fn without_path(mut doc: serde_json::Value) -> serde_json::Value {
    doc.as_object_mut().unwrap().remove("path");
    doc
}

/// A state data file: what an inspection must never download.
fn is_state_data(path: &str) -> bool {
    path.starts_with("state/")
        && [".delta", ".snapshot", ".zip", ".sst", ".changelog", ".log"]
            .iter()
            .any(|ext| path.ends_with(ext))
}

/// Every file under `dir` with its bytes, for "byte-identical" and secret checks.
fn read_tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    v
}
