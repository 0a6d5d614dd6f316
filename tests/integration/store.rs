//! `rehearse::store` against REAL servers: MinIO (S3), Azurite (Azure Blob), fake-gcs-server
//! (GCS) and a single-node HDFS (WebHDFS), started by `scripts/setup-test-servers.sh`, which
//! writes the env file these tests read (`$REHEARSE_TEST_SERVERS_ENV`, default
//! `/tmp/rehearse-test-servers.env`). Without it the tests print why and pass on a developer
//! machine, and fail when `CI=true` (`.ci/run` starts the servers).
//!
//! Each backend test uploads a real checkpoint (the 3.5.3 RocksDB fixture, plus the shared
//! 3.5.3-aggregation case when present, plus a 9 MiB file that streams in several chunks) with
//! `opendal` directly — the store itself cannot write — then lists it through `store` (same
//! paths, same sizes, change markers where the backend has them), streams every file back and
//! byte-compares it, and checks the bad cases: missing bucket, missing prefix, wrong password
//! and unreachable endpoint, each an error naming the URL, of the right kind, with no secret in
//! it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use futures::StreamExt;
use opendal::{services, Operator};
use rehearse::exit::{ErrorKind, HasErrorKind as _};
use rehearse::store::{CheckpointLocation, CheckpointStore, StoreEnv, StoreError};

/// The servers' env file as a map, or `None` (with a printed reason) when absent outside CI.
pub(crate) fn servers(test: &str) -> Option<BTreeMap<String, String>> {
    // The uploaders below use opendal's default HTTP client, which needs a rustls provider
    // (the store installs the same one for its own client).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let path = std::env::var("REHEARSE_TEST_SERVERS_ENV")
        .unwrap_or_else(|_| "/tmp/rehearse-test-servers.env".to_string());
    let Ok(text) = std::fs::read_to_string(&path) else {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci,
            "{test}: CI=true but {path} is missing: run scripts/setup-test-servers.sh"
        );
        eprintln!(
            "{test}: SKIPPED, no test servers ({path} is missing; run scripts/setup-test-servers.sh)"
        );
        return None;
    };
    Some(
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// A prefix no other run used: reruns against the same servers never see old files.
pub(crate) fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{name}-{}-{nanos}", std::process::id())
}

/// The checkpoints uploaded: (relative path under the prefix, local bytes), sorted.
fn checkpoint_files() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![(
        "rocksdb-agg",
        root.join("tests/fixtures/checkpoints/3.5.3/rocksdb-agg"),
    )];
    let shared = root.join("../shared/cases/checkpoints/3.5.3-aggregation");
    if shared.is_dir() {
        sources.push(("shared-3.5.3-aggregation", shared));
    }
    let mut files = Vec::new();
    for (name, dir) in sources {
        assert!(dir.is_dir(), "fixture {} is missing", dir.display());
        for entry in walkdir::WalkDir::new(&dir) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() {
                let rel = entry.path().strip_prefix(&dir).unwrap();
                let rel = rel.to_str().unwrap().replace('\\', "/");
                files.push((
                    format!("{name}/{rel}"),
                    std::fs::read(entry.path()).unwrap(),
                ));
            }
        }
    }
    // Bigger than one READ_CHUNK, not a multiple of it: the stream must give several chunks.
    let big: Vec<u8> = (0..(9 << 20) + 12345u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    files.push(("rocksdb-agg/state/0/0/big.sst".to_string(), big));
    files.sort();
    files
}

pub(crate) async fn upload(op: &Operator, prefix: &str, files: &[(String, Vec<u8>)]) {
    for (rel, bytes) in files {
        // A few tries: a test server busy with other tests' uploads may drop a connection.
        let mut tries = 0;
        loop {
            match op.write(&format!("{prefix}/{rel}"), bytes.clone()).await {
                Ok(_) => break,
                Err(e) if e.is_temporary() && tries < 3 => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                }
                Err(e) => panic!("upload {prefix}/{rel}: {e}"),
            }
        }
    }
}

/// Lists `url` through the store and compares paths, sizes and every byte with `files`.
async fn check_round_trip(
    url: &str,
    env: &StoreEnv,
    files: &[(String, Vec<u8>)],
    expect_etag: bool,
) {
    let location = CheckpointLocation::parse(url).unwrap();
    let store = CheckpointStore::open(location, env).await.unwrap();
    let listed = store
        .list()
        .await
        .unwrap_or_else(|e| panic!("list {url}: {e}"));
    let got: Vec<(&str, u64)> = listed.iter().map(|o| (o.path.as_str(), o.size)).collect();
    let want: Vec<(&str, u64)> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.len() as u64))
        .collect();
    assert_eq!(got, want, "{url}: listing");
    for o in &listed {
        assert_eq!(
            o.etag.is_some(),
            expect_etag,
            "{url}: etag of {}: {:?}",
            o.path,
            o.etag
        );
    }
    let mut multi_chunk = false;
    for (rel, bytes) in files {
        let mut stream = store.read(rel).await.unwrap_or_else(|e| panic!("{e}"));
        let mut got = Vec::with_capacity(bytes.len());
        let mut chunks = 0;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.unwrap_or_else(|e| panic!("read {rel}: {e}"));
            assert!(chunk.len() <= rehearse::store::READ_CHUNK);
            got.extend_from_slice(&chunk);
            chunks += 1;
        }
        assert!(got == *bytes, "{url}/{rel}: bytes differ");
        multi_chunk |= chunks > 1;
    }
    assert!(
        multi_chunk,
        "{url}: the 9 MiB file streamed in several chunks"
    );
    let head = store.head("rocksdb-agg/metadata").await.unwrap();
    assert_eq!(head.path, "rocksdb-agg/metadata");
    let small = store
        .read_small("rocksdb-agg/metadata", 1 << 16)
        .await
        .unwrap();
    assert_eq!(
        small,
        files
            .iter()
            .find(|(p, _)| p == "rocksdb-agg/metadata")
            .unwrap()
            .1
    );
    let err = store.head("rocksdb-agg/no-such-file").await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{url}: {err}");
    assert!(
        err.to_string().contains("rocksdb-agg/no-such-file"),
        "{err}"
    );
}

/// Opens and lists `url`, expecting an error; checks it names the URL, has the kind, and holds
/// none of the `secrets`.
async fn expect_error(url: &str, env: &StoreEnv, kind: ErrorKind, secrets: &[&str]) -> StoreError {
    let location = CheckpointLocation::parse(url).unwrap();
    let err = match CheckpointStore::open(location, env).await {
        Err(e) => e,
        Ok(store) => store
            .list()
            .await
            .expect_err(&format!("{url}: listing should fail")),
    };
    eprintln!("{url} ->\n{err}\n");
    let text = format!("{err} {err:?}");
    assert!(text.contains(url), "the error names {url}: {text}");
    assert!(
        err.to_string().contains("hint:") || matches!(err, StoreError::NotFound { .. }),
        "{text}"
    );
    assert_eq!(err.error_kind(), kind, "{text}");
    for s in secrets {
        assert!(!text.contains(s), "secret leaked in: {text}");
    }
    err
}

fn s3_env(s: &BTreeMap<String, String>, key: &str, secret: &str) -> StoreEnv {
    StoreEnv::from_vars([
        ("AWS_ENDPOINT_URL", s["S3_ENDPOINT"].as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", s["S3_REGION"].as_str()),
        ("AWS_ACCESS_KEY_ID", key),
        ("AWS_SECRET_ACCESS_KEY", secret),
    ])
}

pub(crate) fn s3_uploader(s: &BTreeMap<String, String>, bucket: &str) -> Operator {
    Operator::new(
        services::S3::default()
            .root("/")
            .bucket(bucket)
            .endpoint(&s["S3_ENDPOINT"])
            .region(&s["S3_REGION"])
            .access_key_id(&s["S3_ACCESS_KEY_ID"])
            .secret_access_key(&s["S3_SECRET_ACCESS_KEY"])
            .disable_config_load()
            .disable_ec2_metadata(),
    )
    .unwrap()
    .finish()
}

#[tokio::test]
async fn s3_minio_checkpoint_round_trips_and_bad_cases_are_clear() {
    let Some(s) = servers("s3_minio") else { return };
    let files = checkpoint_files();
    let prefix = unique("ckpt");
    let bucket = &s["S3_BUCKET"];
    upload(&s3_uploader(&s, bucket), &prefix, &files).await;
    let env = s3_env(&s, &s["S3_ACCESS_KEY_ID"], &s["S3_SECRET_ACCESS_KEY"]);
    check_round_trip(&format!("s3://{bucket}/{prefix}"), &env, &files, true).await;
    // s3a:// as Spark spells it reads the same objects.
    let store = CheckpointStore::open(
        CheckpointLocation::parse(&format!("s3a://{bucket}/{prefix}/rocksdb-agg")).unwrap(),
        &env,
    )
    .await
    .unwrap();
    assert!(store
        .list()
        .await
        .unwrap()
        .iter()
        .any(|o| o.path == "metadata"));

    let secret = s["S3_SECRET_ACCESS_KEY"].as_str();
    let err = expect_error(
        &format!("s3://no-such-bucket-rehearse/{prefix}"),
        &env,
        ErrorKind::BadInput,
        &[secret],
    )
    .await;
    assert!(matches!(err, StoreError::MissingBucket { .. }), "{err}");
    let err = expect_error(
        &format!("s3://{bucket}/{prefix}-missing"),
        &env,
        ErrorKind::BadInput,
        &[secret],
    )
    .await;
    assert!(matches!(err, StoreError::NothingThere { .. }), "{err}");

    let wrong = "wrong-password-Zq81xv";
    let err = expect_error(
        &format!("s3://{bucket}/{prefix}"),
        &s3_env(&s, &s["S3_ACCESS_KEY_ID"], wrong),
        ErrorKind::Environment,
        &[wrong, secret],
    )
    .await;
    assert!(matches!(err, StoreError::BadCredentials { .. }), "{err}");
    assert!(err.to_string().contains("AWS_SECRET_ACCESS_KEY"), "{err}");
    let err = expect_error(
        &format!("s3://{bucket}/{prefix}"),
        &s3_env(&s, "no-such-access-key", wrong),
        ErrorKind::Environment,
        &[wrong],
    )
    .await;
    assert!(matches!(err, StoreError::BadCredentials { .. }), "{err}");

    let unreachable = StoreEnv::from_vars([
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:1"),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", s["S3_ACCESS_KEY_ID"].as_str()),
        ("AWS_SECRET_ACCESS_KEY", secret),
    ]);
    let err = expect_error(
        &format!("s3://{bucket}/{prefix}"),
        &unreachable,
        ErrorKind::Environment,
        &[secret],
    )
    .await;
    assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
    assert!(err.to_string().contains("127.0.0.1:1"), "{err}");
}

#[tokio::test]
async fn s3_minio_read_only_key_reads_its_bucket_and_is_denied_elsewhere() {
    let Some(s) = servers("s3_minio_read_only") else {
        return;
    };
    let files: Vec<_> = checkpoint_files()
        .into_iter()
        .filter(|(p, _)| p.starts_with("rocksdb-agg/"))
        .collect();
    let prefix = unique("ro");
    upload(&s3_uploader(&s, &s["S3_RO_BUCKET"]), &prefix, &files).await;
    upload(&s3_uploader(&s, &s["S3_PRIVATE_BUCKET"]), &prefix, &files).await;
    let token = s["S3_RO_SESSION_TOKEN"].as_str();
    let secret = s["S3_RO_SECRET_ACCESS_KEY"].as_str();
    let env = StoreEnv::from_vars([
        ("AWS_ENDPOINT_URL", s["S3_ENDPOINT"].as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", s["S3_RO_ACCESS_KEY_ID"].as_str()),
        ("AWS_SECRET_ACCESS_KEY", secret),
        ("AWS_SESSION_TOKEN", token),
    ]);
    check_round_trip(
        &format!("s3://{}/{prefix}", s["S3_RO_BUCKET"]),
        &env,
        &files,
        true,
    )
    .await;
    let err = expect_error(
        &format!("s3://{}/{prefix}", s["S3_PRIVATE_BUCKET"]),
        &env,
        ErrorKind::Environment,
        &[secret, token],
    )
    .await;
    assert!(matches!(err, StoreError::AccessDenied { .. }), "{err}");
    assert!(err.to_string().contains("s3:ListBucket"), "{err}");
}

pub(crate) fn azure_connection_string(endpoint: &str, account: &str, key: &str) -> String {
    format!(
        "DefaultEndpointsProtocol=http;AccountName={account};AccountKey={key};BlobEndpoint={endpoint};"
    )
}

#[tokio::test]
async fn azure_azurite_checkpoint_round_trips_and_bad_cases_are_clear() {
    let Some(s) = servers("azure_azurite") else {
        return;
    };
    let files = checkpoint_files();
    let prefix = unique("ckpt");
    let (endpoint, account, key) = (
        s["AZURE_BLOB_ENDPOINT"].as_str(),
        s["AZURE_ACCOUNT"].as_str(),
        s["AZURE_ACCOUNT_KEY"].as_str(),
    );
    let container = &s["AZURE_CONTAINER"];
    let cs = azure_connection_string(endpoint, account, key);
    let uploader = Operator::new(
        services::Azblob::from_connection_string(&cs)
            .unwrap()
            .container(container)
            .root("/"),
    )
    .unwrap()
    .finish();
    upload(&uploader, &prefix, &files).await;
    let env = StoreEnv::from_vars([("AZURE_STORAGE_CONNECTION_STRING", cs.as_str())]);
    check_round_trip(&format!("az://{container}/{prefix}"), &env, &files, true).await;
    // The account named in a wasbs:// URL must be the connection string's.
    let store = CheckpointStore::open(
        CheckpointLocation::parse(&format!(
            "wasbs://{container}@{account}.blob.core.windows.net/{prefix}"
        ))
        .unwrap(),
        &env,
    )
    .await
    .unwrap();
    assert_eq!(store.list().await.unwrap().len(), files.len());

    let err = expect_error(
        &format!("az://no-such-container/{prefix}"),
        &env,
        ErrorKind::BadInput,
        &[key],
    )
    .await;
    assert!(matches!(err, StoreError::MissingBucket { .. }), "{err}");
    let err = expect_error(
        &format!("az://{container}/{prefix}-missing"),
        &env,
        ErrorKind::BadInput,
        &[key],
    )
    .await;
    assert!(matches!(err, StoreError::NothingThere { .. }), "{err}");

    // A well-formed key that is not the account's.
    let wrong = "V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3JvbmdLZXk=";
    let wrong_env = StoreEnv::from_vars([(
        "AZURE_STORAGE_CONNECTION_STRING",
        azure_connection_string(endpoint, account, wrong),
    )]);
    let err = expect_error(
        &format!("az://{container}/{prefix}"),
        &wrong_env,
        ErrorKind::Environment,
        &[wrong, key],
    )
    .await;
    assert!(matches!(err, StoreError::BadCredentials { .. }), "{err}");

    let down = StoreEnv::from_vars([(
        "AZURE_STORAGE_CONNECTION_STRING",
        azure_connection_string("http://127.0.0.1:1/devstoreaccount1", account, key),
    )]);
    let err = expect_error(
        &format!("az://{container}/{prefix}"),
        &down,
        ErrorKind::Environment,
        &[key],
    )
    .await;
    assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
}

#[tokio::test]
async fn gcs_fake_server_checkpoint_round_trips_and_bad_cases_are_clear() {
    let Some(s) = servers("gcs_fake_server") else {
        return;
    };
    let files = checkpoint_files();
    let prefix = unique("ckpt");
    let bucket = &s["GCS_BUCKET"];
    let uploader = Operator::new(
        services::Gcs::default()
            .root("/")
            .bucket(bucket)
            .endpoint(&s["GCS_ENDPOINT"])
            .skip_signature()
            .disable_vm_metadata()
            .disable_config_load(),
    )
    .unwrap()
    .finish();
    upload(&uploader, &prefix, &files).await;
    let env = StoreEnv::from_vars([("STORAGE_EMULATOR_HOST", s["GCS_ENDPOINT"].as_str())]);
    check_round_trip(&format!("gs://{bucket}/{prefix}"), &env, &files, true).await;

    let err = expect_error(
        &format!("gs://no-such-bucket-rehearse/{prefix}"),
        &env,
        ErrorKind::BadInput,
        &[],
    )
    .await;
    assert!(matches!(err, StoreError::MissingBucket { .. }), "{err}");
    let err = expect_error(
        &format!("gs://{bucket}/{prefix}-missing"),
        &env,
        ErrorKind::BadInput,
        &[],
    )
    .await;
    assert!(matches!(err, StoreError::NothingThere { .. }), "{err}");
    // fake-gcs-server checks no credentials: the wrong-password case is S3's and Azure's.
    let down = StoreEnv::from_vars([("STORAGE_EMULATOR_HOST", "127.0.0.1:1")]);
    let err = expect_error(
        &format!("gs://{bucket}/{prefix}"),
        &down,
        ErrorKind::Environment,
        &[],
    )
    .await;
    assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
}

#[tokio::test]
async fn hdfs_webhdfs_checkpoint_round_trips_and_bad_cases_are_clear() {
    let Some(s) = servers("hdfs_webhdfs") else {
        return;
    };
    let files = checkpoint_files();
    let prefix = format!("rehearse-test/{}", unique("ckpt"));
    let uploader = Operator::new(
        services::Webhdfs::default()
            .root("/")
            .endpoint(&s["WEBHDFS_ENDPOINT"])
            .user_name("tester"),
    )
    .unwrap()
    .finish();
    upload(&uploader, &prefix, &files).await;
    let http_port = s["WEBHDFS_ENDPOINT"]
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let env = StoreEnv::from_vars([
        ("REHEARSE_WEBHDFS_PORT", http_port.as_str()),
        ("HADOOP_USER_NAME", "reader"),
    ]);
    let url = format!("{}/{prefix}", s["HDFS_URL"]);
    check_round_trip(&url, &env, &files, false).await;
    // webhdfs:// names the HTTP port itself.
    let direct = format!(
        "webhdfs://{}/{prefix}",
        s["WEBHDFS_ENDPOINT"].trim_start_matches("http://")
    );
    let store = CheckpointStore::open(
        CheckpointLocation::parse(&direct).unwrap(),
        &StoreEnv::default(),
    )
    .await
    .unwrap();
    assert_eq!(store.list().await.unwrap().len(), files.len());

    let err = expect_error(
        &format!("{}/{prefix}-missing", s["HDFS_URL"]),
        &env,
        ErrorKind::BadInput,
        &[],
    )
    .await;
    assert!(matches!(err, StoreError::NothingThere { .. }), "{err}");
    let down = StoreEnv::from_vars([("REHEARSE_WEBHDFS_PORT", "1")]);
    let err = expect_error(&url, &down, ErrorKind::Environment, &[]).await;
    assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
    assert!(err.to_string().contains("REHEARSE_WEBHDFS_PORT"), "{err}");
}

/// The local backend lists exactly what the remote ones do for the same checkpoint.
#[tokio::test]
async fn local_checkpoint_lists_like_the_remote_ones() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/checkpoints/3.5.3/rocksdb-agg");
    let store = CheckpointStore::open(
        CheckpointLocation::parse(&format!("file://{}", dir.display())).unwrap(),
        &StoreEnv::default(),
    )
    .await
    .unwrap();
    let listed = store.list().await.unwrap();
    let want: Vec<String> = checkpoint_files()
        .into_iter()
        .filter_map(|(p, _)| p.strip_prefix("rocksdb-agg/").map(str::to_string))
        .filter(|p| p != "state/0/0/big.sst")
        .collect();
    let got: Vec<String> = listed.into_iter().map(|o| o.path).collect();
    assert_eq!(got, want);
    assert!(Path::new(&dir).join("metadata").is_file());
}
