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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use opendal::{services, Operator};
use rehearse::store::{CheckpointLocation, CheckpointStore, ObjectInfo, StoreEnv};

use super::store::{azure_connection_string, s3_uploader, servers, unique, upload};

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

#[tokio::test]
async fn inspect_by_url_is_the_local_inspection_on_every_server_and_reads_only_what_it_parses() {
    let Some(s) = servers("inspect_by_url") else {
        return;
    };
    let cwd = tempfile::tempdir().unwrap();
    for server in all_servers(&s) {
        let prefix = unique("inspect");
        let env = server.store_env();
        let mut urls = Vec::new();
        for name in FIXTURES {
            let url = server
                .upload_dir(&format!("{prefix}/{name}"), &fixture(name))
                .await;
            urls.push(url);
        }
        let before = snapshot(&format!("{}/{prefix}", server.base), &env).await;
        let cwd_before = tree(cwd.path());
        for (name, url) in FIXTURES.iter().zip(&urls) {
            let local = fixture(name);
            let local_str = local.to_str().unwrap();
            let (lcode, ljson, lerr) = rehearse(&["inspect", "--json", local_str], &[], cwd.path());
            let (rcode, rjson, rerr) =
                rehearse(&["inspect", "--json", url], &server.env, cwd.path());
            assert_eq!(
                rcode, lcode,
                "{}: {url}: exit code\n{rerr}\nlocal: {lerr}",
                server.name
            );
            let rdoc: serde_json::Value = serde_json::from_str(&rjson)
                .unwrap_or_else(|e| panic!("{url}: no JSON ({e}):\n{rjson}\n{rerr}"));
            let ldoc: serde_json::Value = serde_json::from_str(&ljson).unwrap();
            assert_eq!(rdoc["schema"], "rehearse.inspect/v1");
            assert_eq!(rdoc["path"], url.as_str(), "the document names the URL");
            assert_eq!(
                without_path(rdoc),
                without_path(ldoc),
                "{}: {url}: the same document as for the local directory",
                server.name
            );
            // The text report too, with the URL where the local report has the path.
            let (_, rtext, _) = rehearse(&["inspect", url], &server.env, cwd.path());
            let (_, ltext, _) = rehearse(&["inspect", local_str], &[], cwd.path());
            assert_eq!(
                rtext,
                ltext.replace(local_str, url),
                "{}: {url}: text",
                server.name
            );

            // What the inspection asked of the server: one listing, the small files it parses.
            let store = CheckpointStore::open(CheckpointLocation::parse(url).unwrap(), &env)
                .await
                .unwrap();
            let (_, reads) = rehearse::checkpoint::inspect_store_counted(&store)
                .await
                .unwrap();
            let listed = store.list().await.unwrap();
            let total: u64 = listed.iter().map(|o| o.size).sum();
            let state_bytes: u64 = listed
                .iter()
                .filter(|o| is_state_data(&o.path))
                .map(|o| o.size)
                .sum();
            eprintln!(
                "{}: inspect {url}: {} listing, {} reads, {} bytes read of {} files / {} bytes ({} bytes of state data, none read)",
                server.name,
                reads.listings,
                reads.files.len(),
                reads.bytes(),
                listed.len(),
                total,
                state_bytes
            );
            assert_eq!(reads.listings, 1);
            assert!(!reads.files.is_empty());
            for (path, _) in &reads.files {
                assert!(
                    !is_state_data(path),
                    "{url}: inspect read the state file {path}"
                );
                assert!(!path.ends_with(".crc"), "{url}: inspect read {path}");
            }
            assert!(state_bytes > 0, "{url}: the fixture has state data");
            assert!(reads.bytes() < total, "{url}");
        }

        // The prefix above holds three checkpoints and none of its own: each is named by URL.
        let parent = format!("{}/{prefix}", server.base);
        let (code, out, err) = rehearse(&["inspect", &parent], &server.env, cwd.path());
        assert_eq!(code, 3, "{}: {parent}: {err}", server.name);
        assert!(out.is_empty(), "{out}");
        for url in &urls {
            assert!(
                err.contains(&format!("{url}/")),
                "{}: {url} listed in:\n{err}",
                server.name
            );
        }
        assert!(err.contains(&parent) && err.contains("hint"), "{err}");
        eprintln!("{}: {parent} ->\n{err}", server.name);

        // A missing prefix: bad input, the URL and the fix.
        let missing = format!("{}/{prefix}-missing", server.base);
        let (code, _, err) = rehearse(&["inspect", &missing], &server.env, cwd.path());
        assert_eq!(code, 3, "{}: {missing}: {err}", server.name);
        assert!(err.contains(&missing) && err.contains("hint"), "{err}");

        assert_eq!(
            snapshot(&parent, &env).await,
            before,
            "{}: the objects are unchanged",
            server.name
        );
        assert_eq!(tree(cwd.path()), cwd_before, "nothing written locally");
    }
}

#[tokio::test]
async fn inspect_by_url_bad_cases_are_one_clear_error_each_and_write_nothing() {
    let Some(s) = servers("inspect_by_url_bad_cases") else {
        return;
    };
    let cwd = tempfile::tempdir().unwrap();
    let servers = all_servers(&s);
    let minio = &servers[0];
    let prefix = unique("bad");
    let good = minio
        .upload_dir(&format!("{prefix}/ckpt"), &fixture("rocksdb-agg"))
        .await;
    // Not a checkpoint: files, but none of metadata, offsets/, commits/, state/.
    upload(
        &minio.uploader,
        &format!("{prefix}/notes"),
        &[
            ("readme.txt".to_string(), b"not a checkpoint".to_vec()),
            ("data/part-0000.parquet".to_string(), vec![1, 2, 3]),
        ],
    )
    .await;
    let before = snapshot(&format!("{}/{prefix}", minio.base), &minio.store_env()).await;
    let cwd_before = tree(cwd.path());
    let secret = s["S3_SECRET_ACCESS_KEY"].clone();
    let wrong = "wrong-secret-Qz81xv-rehearse".to_string();
    let ro_secret = s["S3_RO_SECRET_ACCESS_KEY"].clone();
    let ro_token = s["S3_RO_SESSION_TOKEN"].clone();
    let mut ro_env = s3_env(&s, &s["S3_RO_ACCESS_KEY_ID"], &ro_secret);
    ro_env.push(("AWS_SESSION_TOKEN".into(), ro_token.clone()));
    let mut down = minio.env.clone();
    down[0].1 = "http://127.0.0.1:1".into();
    type Env = Vec<(String, String)>;
    // (what, URL, environment, exit code, words the error must hold)
    let cases: Vec<(&str, String, Env, i32, &str)> = vec![
        (
            "missing bucket",
            format!("s3://no-such-bucket-rehearse/{prefix}/ckpt"),
            minio.env.clone(),
            3,
            "no such bucket",
        ),
        (
            "missing prefix",
            format!("{}/{prefix}/no-such-ckpt", minio.base),
            minio.env.clone(),
            3,
            "nothing at",
        ),
        (
            "not a checkpoint",
            format!("{}/{prefix}/notes", minio.base),
            minio.env.clone(),
            3,
            "is not a checkpoint",
        ),
        (
            "wrong credentials",
            good.clone(),
            s3_env(&s, &s["S3_ACCESS_KEY_ID"], &wrong),
            4,
            "credentials rejected",
        ),
        (
            "unknown access key",
            good.clone(),
            s3_env(&s, "no-such-access-key", &wrong),
            4,
            "credentials rejected",
        ),
        (
            "access denied",
            format!("s3://{}/{prefix}", s["S3_PRIVATE_BUCKET"]),
            ro_env.clone(),
            4,
            "access denied",
        ),
        (
            "unreachable endpoint",
            good.clone(),
            down,
            4,
            "cannot reach http://127.0.0.1:1",
        ),
        (
            "plain HTTP without AWS_ALLOW_HTTP",
            good.clone(),
            minio
                .env
                .iter()
                .filter(|(k, _)| k != "AWS_ALLOW_HTTP")
                .cloned()
                .collect(),
            4,
            "AWS_ALLOW_HTTP=true",
        ),
        (
            "a query string (a SAS token) in the URL",
            format!("{good}?sig=s3cr3t-in-url"),
            minio.env.clone(),
            3,
            "pass credentials",
        ),
        // The breaker pass: a raw `S3Error {…}`, exit 4.
        (
            "a bucket name S3 refuses",
            format!("s3://BRK/{prefix}/ckpt"),
            minio.env.clone(),
            3,
            "is not an S3 bucket name",
        ),
        // The breaker pass: "no file under this prefix".
        (
            "a URL naming one object",
            format!("{good}/metadata"),
            minio.env.clone(),
            3,
            "is a file (an object), not a checkpoint directory",
        ),
        // The breaker pass: called a query string.
        (
            "a fragment in the URL",
            format!("{good}#frag"),
            minio.env.clone(),
            3,
            "a fragment (`#…`)",
        ),
    ];
    for (what, url, env, want, needle) in &cases {
        for json in [false, true] {
            let mut args = vec!["inspect", url.as_str()];
            if json {
                args.push("--json");
            }
            let (code, out, err) = rehearse(&args, env, cwd.path());
            eprintln!("{what}: {url} -> exit {code}\n{err}");
            assert_eq!(code, *want, "{what}: {url}: {err}");
            assert!(out.is_empty(), "{what}: nothing on stdout: {out}");
            assert!(err.contains(needle), "{what}: {needle:?} in {err}");
            assert!(err.contains("hint"), "{what}: a fix in {err}");
            let shown = url.split(['?', '#']).next().unwrap();
            assert!(err.contains(shown), "{what}: the URL in {err}");
            assert_eq!(
                err.lines().filter(|l| l.starts_with("error:")).count(),
                1,
                "one error: {err}"
            );
            assert!(
                !err.contains("hint: \n") && !err.trim_end().ends_with("hint:"),
                "{err}"
            );
            for s in [
                &secret,
                &wrong,
                &ro_secret,
                &ro_token,
                &"s3cr3t-in-url".to_string(),
            ] {
                assert!(!err.contains(s.as_str()), "{what}: a secret in {err}");
            }
        }
    }
    assert_eq!(
        snapshot(&format!("{}/{prefix}", minio.base), &minio.store_env()).await,
        before,
        "the objects are unchanged"
    );
    // The missing bucket was not created by looking for it.
    let (code, _, _) = rehearse(
        &[
            "inspect",
            &format!("s3://no-such-bucket-rehearse/{prefix}/ckpt"),
        ],
        &minio.env,
        cwd.path(),
    );
    assert_eq!(code, 3);
    assert_eq!(tree(cwd.path()), cwd_before, "nothing written locally");
}

#[tokio::test]
async fn no_secret_reaches_the_output_of_inspect_by_url_even_with_a_full_trace() {
    let Some(s) = servers("inspect_by_url_secrets") else {
        return;
    };
    let cwd = tempfile::tempdir().unwrap();
    let servers = all_servers(&s);
    let prefix = unique("secret");
    let minio_url = servers[0]
        .upload_dir(&format!("{prefix}/ckpt"), &fixture("kafka-agg"))
        .await;
    let azure_url = servers[1]
        .upload_dir(&format!("{prefix}/ckpt"), &fixture("kafka-agg"))
        .await;
    let mut ro_env = s3_env(&s, &s["S3_RO_ACCESS_KEY_ID"], &s["S3_RO_SECRET_ACCESS_KEY"]);
    ro_env.push(("AWS_SESSION_TOKEN".into(), s["S3_RO_SESSION_TOKEN"].clone()));
    let wrong = "wrong-secret-Zq81xv-rehearse";
    let secrets = [
        s["S3_SECRET_ACCESS_KEY"].as_str(),
        s["S3_RO_SECRET_ACCESS_KEY"].as_str(),
        s["S3_RO_SESSION_TOKEN"].as_str(),
        s["AZURE_ACCOUNT_KEY"].as_str(),
        wrong,
    ];
    let runs: Vec<(String, Vec<(String, String)>)> = vec![
        (minio_url.clone(), servers[0].env.clone()),
        (minio_url.clone(), s3_env(&s, &s["S3_ACCESS_KEY_ID"], wrong)),
        (
            format!("s3://{}/{prefix}", s["S3_PRIVATE_BUCKET"]),
            ro_env.clone(),
        ),
        (azure_url.clone(), servers[1].env.clone()),
        (
            azure_url,
            vec![(
                "AZURE_STORAGE_CONNECTION_STRING".into(),
                azure_connection_string(&s["AZURE_BLOB_ENDPOINT"], &s["AZURE_ACCOUNT"], wrong),
            )],
        ),
    ];
    let mut checked = 0;
    for (url, env) in runs {
        for (flags, trace) in [
            (vec!["--json"], None),
            (vec!["--verbose"], None),
            (vec![], Some("trace")),
        ] {
            let mut env = env.clone();
            if let Some(t) = trace {
                env.push(("RUST_LOG".into(), t.into()));
            }
            let mut args = vec!["inspect", url.as_str()];
            args.extend(flags);
            let (code, out, err) = rehearse(&args, &env, cwd.path());
            assert!(matches!(code, 0 | 3 | 4 | 5), "{url}: {code}\n{err}");
            for secret in secrets {
                assert!(
                    !out.contains(secret) && !err.contains(secret),
                    "{url} {args:?}: a secret in the output"
                );
            }
            checked += out.len() + err.len();
        }
    }
    eprintln!("{checked} bytes of stdout and stderr checked for 5 secrets");
    assert!(checked > 10_000, "the trace was on");
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

/// `rehearse run` of a scenario whose `[checkpoint] path` is a URL, on each server: a real
/// checkpoint written by Spark 3.5.3 (the run tests' cached one) is uploaded, rehearsed by URL
/// on Spark 4.0.1 with a real restart → `resumed`; the report names the URL (never a
/// credential) and says the remote source was unchanged (size + ETag, or size + modification
/// time on HDFS); the objects are unchanged (listing before vs after); the staged copy is
/// removed; no secret is in stdout, stderr, the JUnit and Markdown reports or the kept
/// sandbox's logs.
#[tokio::test]
async fn run_by_url_resumes_on_every_server_and_leaves_the_source_unchanged() {
    let Some(s) = servers("run_by_url") else {
        return;
    };
    if !super::run::docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = super::run::source_checkpoint(tmp.path());
    let prefix = unique("run");
    let secrets = [
        s["S3_SECRET_ACCESS_KEY"].clone(),
        s["AZURE_ACCOUNT_KEY"].clone(),
    ];
    // REHEARSE_E2E_SERVERS=s3-minio (comma-separated) narrows the servers rehearsed.
    let only = std::env::var("REHEARSE_E2E_SERVERS").ok();
    for server in all_servers(&s) {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|n| n == server.name))
        {
            eprintln!(
                "{}: not rehearsed (REHEARSE_E2E_SERVERS={only:?})",
                server.name
            );
            continue;
        }
        let url = server.upload_dir(&format!("{prefix}/ckpt"), &source).await;
        let env = server.store_env();
        let before = snapshot(&url, &env).await;
        let dir = tmp.path().join(server.name);
        let reports = dir.join("reports");
        std::fs::create_dir_all(&reports).unwrap();
        let scenario = super::run::scenario(
            &dir,
            &format!("[checkpoint]\npath = \"{url}\"\n"),
            "4.0.1",
            "",
            "",
        );
        let mut run_env = server.env.clone();
        run_env.push((
            "REHEARSE_CACHE_DIR".into(),
            super::run::cache_dir().display().to_string(),
        ));
        if let Ok(host) = std::env::var("DOCKER_HOST") {
            run_env.push(("DOCKER_HOST".into(), host));
        }
        let junit = dir.join("junit.xml");
        let markdown = dir.join("summary.md");
        let started = std::time::Instant::now();
        let (code, out, err) = rehearse(
            &[
                "run",
                scenario.to_str().unwrap(),
                "--json",
                "--verbose",
                "--keep",
                "--report-dir",
                reports.to_str().unwrap(),
                "--junit",
                junit.to_str().unwrap(),
                "--markdown",
                markdown.to_str().unwrap(),
            ],
            &run_env,
            &dir,
        );
        let report: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{}: no JSON report ({e}):\n{out}\n{err}", server.name));
        eprintln!(
            "{}: rehearse run by URL {url}: exit {code}, verdict {}, {:.1} s",
            server.name,
            report["trials"][0]["verdict"],
            started.elapsed().as_secs_f64()
        );
        assert_eq!(
            report["trials"][0]["verdict"], "resumed",
            "{}:\n{err}",
            server.name
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(report["source_checkpoint"], url.as_str());
        let remote = &report["remote_source"];
        assert_eq!(remote["url"], url.as_str(), "{remote}");
        assert_eq!(remote["unchanged"], true, "{remote}");
        assert_eq!(remote["changes"], serde_json::json!([]));
        assert!(remote["files"].as_u64().unwrap() > 0, "{remote}");
        let compared = remote["compared"].as_str().unwrap();
        if server.name.starts_with("hdfs") {
            assert!(compared.contains("modification time"), "{compared}");
        } else {
            assert!(compared.contains("ETag"), "{compared}");
        }
        assert_eq!(report["trials"][0]["source_untouched"], true);
        assert_eq!(
            snapshot(&url, &env).await,
            before,
            "{}: objects unchanged",
            server.name
        );

        // Kept (--keep): the staged copy under the report dir is the restart's working set —
        // fewer files than the source, each byte-identical to the source's file of that path,
        // `metadata` and the last commit among them.
        let staged = PathBuf::from(remote["staged_at"].as_str().unwrap());
        assert!(staged.starts_with(&reports), "{}", staged.display());
        let rel = |tree: Vec<(PathBuf, Vec<u8>)>, root: &Path| -> Vec<(PathBuf, Vec<u8>)> {
            tree.into_iter()
                .map(|(p, b)| (p.strip_prefix(root).unwrap().to_path_buf(), b))
                .collect()
        };
        let source_files: std::collections::BTreeMap<PathBuf, Vec<u8>> =
            rel(read_tree(&source), &source).into_iter().collect();
        let staged_files = rel(read_tree(&staged), &staged);
        assert_eq!(remote["working_set"], true, "{remote}");
        assert_eq!(
            remote["files"].as_u64().unwrap() as usize,
            staged_files.len(),
            "{remote}"
        );
        assert!(staged_files.len() < source_files.len(), "{remote}");
        for (path, bytes) in &staged_files {
            assert_eq!(
                source_files.get(path),
                Some(bytes),
                "{}: staged {} differs from the source",
                server.name,
                path.display()
            );
        }
        for needed in ["metadata", "offsets", "commits"] {
            assert!(
                staged_files.iter().any(|(p, _)| p.starts_with(needed)),
                "{}: {needed} not staged",
                server.name
            );
        }

        // No secret in anything the run printed or wrote.
        let mut written: Vec<(PathBuf, Vec<u8>)> = read_tree(&dir);
        written.push(("stdout".into(), out.clone().into_bytes()));
        written.push(("stderr".into(), err.clone().into_bytes()));
        assert!(
            written.iter().any(|(p, _)| p.ends_with("driver.log")),
            "logs kept"
        );
        for (path, bytes) in &written {
            let text = String::from_utf8_lossy(bytes);
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{}: a secret in {}",
                    server.name,
                    path.display()
                );
            }
        }
        let md = std::fs::read_to_string(&markdown).unwrap();
        assert!(md.contains(&url) && md.contains("unchanged"), "{md}");
    }
}

/// Without `--keep`, the staged copy is removed after the run, and bad remote sources stop
/// `rehearse run` before any image or container, each with the URL and the fix.
#[tokio::test]
async fn run_by_url_bad_sources_stop_before_any_container_and_write_nothing() {
    let Some(s) = servers("run_by_url_bad") else {
        return;
    };
    let servers = all_servers(&s);
    let minio = &servers[0];
    let tmp = tempfile::tempdir().unwrap();
    let prefix = unique("runbad");
    upload(
        &minio.uploader,
        &format!("{prefix}/notes"),
        &[("readme.txt".to_string(), b"not a checkpoint".to_vec())],
    )
    .await;
    let good = minio
        .upload_dir(&format!("{prefix}/ckpt"), &fixture("kafka-agg"))
        .await;
    let reports = tmp.path().join("reports");
    let mut down = minio.env.clone();
    down[0].1 = "http://127.0.0.1:1".into();
    type Env = Vec<(String, String)>;
    let cases: Vec<(String, Env, i32, &str)> = vec![
        (
            format!("s3://no-such-bucket-rehearse/{prefix}"),
            minio.env.clone(),
            3,
            "no such bucket",
        ),
        (
            format!("{}/{prefix}/missing", minio.base),
            minio.env.clone(),
            3,
            "nothing at",
        ),
        (
            format!("{}/{prefix}/notes", minio.base),
            minio.env.clone(),
            3,
            "is not a checkpoint",
        ),
        (
            format!("{}/{prefix}", minio.base),
            minio.env.clone(),
            3,
            "holds 1 checkpoint: ",
        ),
        (
            good.clone(),
            s3_env(&s, &s["S3_ACCESS_KEY_ID"], "wrong-secret-Zq81"),
            4,
            "credentials rejected",
        ),
        (good.clone(), down, 4, "cannot reach"),
    ];
    for (url, env, want, needle) in cases {
        let scenario = super::run::scenario(
            tmp.path(),
            &format!("[checkpoint]\npath = \"{url}\"\n"),
            "4.0.1",
            "",
            "",
        );
        let started = std::time::Instant::now();
        let (code, out, err) = rehearse(
            &[
                "run",
                scenario.to_str().unwrap(),
                "--report-dir",
                reports.to_str().unwrap(),
            ],
            &env,
            tmp.path(),
        );
        eprintln!(
            "run {url} -> exit {code} in {:.1} s\n{err}",
            started.elapsed().as_secs_f64()
        );
        assert_eq!(code, want, "{url}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(&url) && err.contains(needle) && err.contains("hint"),
            "{err}"
        );
        assert!(!err.contains("wrong-secret-Zq81") && !err.contains(&s["S3_SECRET_ACCESS_KEY"]));
        assert!(
            std::fs::read_dir(&reports).map(|d| d.count()).unwrap_or(0) == 0,
            "{url}: nothing written under the report dir"
        );
        // Stopped before any image build or container: well under a Spark start.
        assert!(started.elapsed().as_secs() < 30, "{url}");
    }
    // Cheapest first (issue 17): a good source is inspected by URL, then the job's
    // dependencies are resolved, and only then is the source staged — a package that cannot
    // be resolved (its registry unreachable: exit 4) costs no copy, nothing under the report
    // dir.
    let scenario = super::run::scenario(
        tmp.path(),
        &format!("[checkpoint]\npath = \"{good}\"\n"),
        "4.0.1",
        "packages = [\"org.example.rehearse:never-published:0.0.1\"]",
        "",
    );
    let mut env = minio.env.clone();
    env.push(("MAVEN_REPO".into(), "http://127.0.0.1:9/maven2".into()));
    let (code, _, err) = rehearse(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--report-dir",
            reports.to_str().unwrap(),
        ],
        &env,
        tmp.path(),
    );
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("unreachable")
            && err.contains("never-published")
            && !err.contains("staging the remote source checkpoint"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(&reports).map(|d| d.count()).unwrap_or(0) == 0,
        "nothing staged under the report dir before the dependencies resolved"
    );
}
