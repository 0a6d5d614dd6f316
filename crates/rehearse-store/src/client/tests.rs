use super::*;
use rehearse_base::{ErrorKind, HasErrorKind as _};

use crate::test_server::{s3_at, s3_serving, serve};

const EMPTY_LISTING: &str = r#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bkt</Name><Prefix>ck/metadata/</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>"#;

/// The breaker pass: an endpoint that trickles a byte a second hung `inspect`. Listing,
/// stat, small reads and streamed reads each fail within the store deadline, exit 4, naming
/// the URL and the variable that gives more time.
#[tokio::test]
async fn a_trickling_endpoint_times_out_naming_the_url_and_the_setting() {
    let listing = format!("{EMPTY_LISTING}{}", " ".repeat(400));
    let endpoint = serve(
        move |_, _| {
            (
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml".into(),
                listing.clone().into_bytes(),
            )
        },
        true,
    );
    let store = s3_at(&endpoint, "s3://bkt/ck").await;
    let started = std::time::Instant::now();
    let err = store.list().await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10), "{err}");
    assert!(
        matches!(
            err,
            StoreError::TimedOut {
                operation: "list",
                seconds: 1,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.error_kind(), ErrorKind::Environment);
    let text = err.to_string();
    assert!(
        text.contains("s3://bkt/ck") && text.contains(&endpoint),
        "{text}"
    );
    assert!(text.contains("REHEARSE_STORE_TIMEOUT_SECONDS"), "{text}");
    let err = store.read_small("metadata", 1 << 20).await.unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::TimedOut {
                operation: "read",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("s3://bkt/ck/metadata"), "{err}");
    // A streamed read: the response starts, then fewer than 1 MiB arrives per deadline.
    let mut stream = store.read("state/0/0/1.delta").await.unwrap();
    let mut last = None;
    while let Some(item) = stream.next().await {
        if let Err(e) = item {
            last = Some(e);
            break;
        }
    }
    let err = last.expect("a trickled stream must fail");
    assert!(
        matches!(
            err,
            StoreError::TimedOut {
                operation: "read",
                ..
            }
        ),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// The deadline is a setting: a bad value is refused when the store is opened.
#[tokio::test]
async fn a_bad_store_timeout_is_refused_naming_the_variable() {
    for bad in ["0", "ten", "99999999"] {
        let err = CheckpointStore::open(
            CheckpointLocation::parse("s3://bkt/ck").unwrap(),
            &env(&[
                ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
                ("AWS_ALLOW_HTTP", "true"),
                ("REHEARSE_STORE_TIMEOUT_SECONDS", bad),
            ]),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("REHEARSE_STORE_TIMEOUT_SECONDS") && err.contains(bad),
            "{err}"
        );
    }
}

/// The breaker pass: an endpoint answering `200 text/html` (a web server, a proxy's login
/// page) was read as an empty listing, "no file under this prefix", exit 3.
#[tokio::test]
async fn an_endpoint_answering_html_does_not_speak_s3() {
    let endpoint = serve(
        |_, _| {
            (
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8".into(),
                b"<!DOCTYPE html><html><body>Sign in</body></html>".to_vec(),
            )
        },
        false,
    );
    let store = s3_at(&endpoint, "s3://bkt/ck").await;
    let err = store.list().await.unwrap_err();
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err:?}");
    assert_eq!(err.error_kind(), ErrorKind::Environment);
    let text = err.to_string();
    assert!(
        text.contains("does not speak the S3 API")
            && text.contains("HTML")
            && text.contains("s3://bkt/ck")
            && text.contains("AWS_ENDPOINT_URL"),
        "{text}"
    );
}

/// The breaker pass: a URL naming one object (`…/ck/metadata`) said "no file under this
/// prefix"; it is a file, not a checkpoint directory, and the message names the directory.
/// A real empty prefix still says nothing is there.
#[tokio::test]
async fn a_url_naming_one_object_is_called_a_file_not_an_empty_prefix() {
    let endpoint = serve(
        |method, target| match (method, target.split('?').next().unwrap_or("")) {
            ("HEAD", "/bkt/ck/metadata") => (
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nETag: \"e1\"".into(),
                Vec::new(),
            ),
            ("HEAD", _) => ("HTTP/1.1 404 Not Found".into(), Vec::new()),
            _ => (
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml".into(),
                EMPTY_LISTING.as_bytes().to_vec(),
            ),
        },
        false,
    );
    let err = s3_at(&endpoint, "s3://bkt/ck/metadata")
        .await
        .list()
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::IsAFile { .. }), "{err:?}");
    assert_eq!(err.error_kind(), ErrorKind::BadInput);
    let text = err.to_string();
    assert!(
        text.contains("s3://bkt/ck/metadata is a file")
            && text.contains("not a checkpoint directory")
            && text.contains("such as s3://bkt/ck)"),
        "{text}"
    );
    let err = s3_at(&endpoint, "s3://bkt/nothing")
        .await
        .list()
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NothingThere { .. }), "{err:?}");
}

/// A name the parser lets through but the server refuses (`InvalidBucketName`) is bad
/// input naming the rule, not a raw `S3Error {…}`, exit 4.
#[tokio::test]
async fn a_bucket_name_the_server_refuses_is_bad_input() {
    let endpoint = serve(
        |_, _| {
            (
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/xml".into(),
                br#"<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidBucketName</Code><Message>The specified bucket is not valid.</Message><BucketName>xn--bkt</BucketName></Error>"#.to_vec(),
            )
        },
        false,
    );
    let err = s3_at(&endpoint, "s3://xn--bkt/ck")
        .await
        .list()
        .await
        .unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::BadInput, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("refuses the bucket name") && text.contains("bucketnamingrules"),
        "{text}"
    );
    assert!(!text.contains("S3Error"), "{text}");
}

/// Breaker pass 3, U1: a 403 AccessDenied printed opendal's raw
/// `S3Error { code: "AccessDenied", …, request_id: "" }`. Said as code and message; a secret in
/// the server's message stays masked.
#[tokio::test]
async fn access_denied_is_said_as_the_servers_code_and_message() {
    let endpoint = serve(
        |_, _| {
            (
                "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml".into(),
                br#"<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied for rehearse-test-secret</Message><RequestId>R42</RequestId></Error>"#.to_vec(),
            )
        },
        false,
    );
    let err = s3_at(&endpoint, "s3://bkt/ck")
        .await
        .list()
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::AccessDenied { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("AccessDenied: Access Denied for") && text.contains("(request id R42)"),
        "{text}"
    );
    assert!(
        !text.contains("S3Error") && !text.contains("rehearse-test-secret"),
        "{text}"
    );
}

fn env(vars: &[(&str, &str)]) -> StoreEnv {
    StoreEnv::from_vars(vars.iter().copied())
}

#[tokio::test]
async fn local_directories_list_head_and_stream_without_creating_anything() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("offsets")).unwrap();
    std::fs::write(dir.path().join("metadata"), b"{\"id\":\"x\"}").unwrap();
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("offsets/0"), &big).unwrap();
    let loc = CheckpointLocation::parse(dir.path().to_str().unwrap()).unwrap();
    let store = CheckpointStore::open(loc, &StoreEnv::default())
        .await
        .unwrap();
    let files = store.list().await.unwrap();
    let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["metadata", "offsets/0"]);
    assert_eq!(files[1].size, big.len() as u64);
    assert_eq!(
        store.head("offsets/0").await.unwrap().size,
        big.len() as u64
    );
    let mut stream = store.read("offsets/0").await.unwrap();
    let mut got = Vec::new();
    let mut chunks = 0;
    while let Some(c) = stream.next().await {
        let c = c.unwrap();
        assert!(c.len() <= READ_CHUNK);
        got.extend_from_slice(&c);
        chunks += 1;
    }
    assert_eq!(got, big);
    assert!(chunks > 1, "streamed in several chunks");
    assert_eq!(
        store.read_small("metadata", 100).await.unwrap(),
        b"{\"id\":\"x\"}"
    );
    assert!(store.read_small("offsets/0", 100).await.is_err());
    assert!(matches!(
        store.head("nope").await.unwrap_err(),
        StoreError::NotFound { .. }
    ));

    let missing = dir.path().join("not-there");
    let store = CheckpointStore::open(
        CheckpointLocation::parse(missing.to_str().unwrap()).unwrap(),
        &StoreEnv::default(),
    )
    .await
    .unwrap();
    let err = store.list().await.unwrap_err();
    assert!(matches!(err, StoreError::NothingThere { .. }), "{err}");
    assert!(!missing.exists(), "listing never creates the root");
}

#[tokio::test]
async fn plain_http_s3_endpoints_need_aws_allow_http() {
    let loc = CheckpointLocation::parse("s3://bkt/p").unwrap();
    let err = CheckpointStore::open(
        loc.clone(),
        &env(&[
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
            ("AWS_SECRET_ACCESS_KEY", "topsecret"),
        ]),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("AWS_ALLOW_HTTP=true"), "{text}");
    assert!(text.contains("s3://bkt/p"), "{text}");
    CheckpointStore::open(
        loc,
        &env(&[
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
            ("AWS_ALLOW_HTTP", "true"),
        ]),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn az_without_an_account_says_which_variable_to_set() {
    let loc = CheckpointLocation::parse("az://cont/p").unwrap();
    let err = CheckpointStore::open(loc, &StoreEnv::default())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("AZURE_STORAGE_ACCOUNT_NAME"),
        "{err}"
    );
    assert_eq!(err.error_kind(), ErrorKind::Environment);
}

#[tokio::test]
async fn hdfs_urls_derive_the_webhdfs_endpoint() {
    let open = |url: &'static str, vars: &'static [(&'static str, &'static str)]| async move {
        CheckpointStore::open(CheckpointLocation::parse(url).unwrap(), &env(vars))
            .await
            .unwrap()
            .endpoint()
    };
    assert_eq!(open("hdfs://nn:8020/c", &[]).await, "http://nn:9870");
    assert_eq!(
        open("hdfs://nn:8020/c", &[("REHEARSE_WEBHDFS_PORT", "50070")]).await,
        "http://nn:50070"
    );
    assert_eq!(open("webhdfs://nn:14000/c", &[]).await, "http://nn:14000");
    assert_eq!(
        open(
            "hdfs://ns1/c",
            &[("REHEARSE_WEBHDFS_URL", "https://knox:8443/gateway/")]
        )
        .await,
        "https://knox:8443/gateway"
    );
}

/// Issue 25 §1: keys with `..` segments were joined onto the staging directory and written
/// outside it. Every hostile listing is refused at the listing, naming the key and the URL, as
/// bad input: `..`, an empty segment, a `.` segment, a backslash, a name too long for a local
/// filesystem, and a file that is also a directory. A plain listing still lists.
#[tokio::test]
async fn hostile_listings_are_refused_naming_the_key_and_the_url() {
    let long = format!("ck/{}", "n".repeat(256));
    let cases: [(&[&str], &str, &str); 7] = [
        (
            &["ck/metadata", "ck/offsets/../../../PWNED"],
            "\"offsets/../../../PWNED\"",
            "`..` segment",
        ),
        (&["ck/../PWNED"], "\"../PWNED\"", "`..` segment"),
        (&["ck/offsets//0"], "\"offsets//0\"", "empty segment"),
        (&["ck/./metadata"], "\"./metadata\"", "`.` segment"),
        (
            &["ck/offsets\\..\\x"],
            "\"offsets\\\\..\\\\x\"",
            "backslash",
        ),
        (&[long.as_str()], "256 bytes", "255 bytes"),
        (
            &["ck/offsets/0", "ck/offsets/0.crc", "ck/offsets/0/x"],
            "\"offsets/0\"",
            "offsets/0/x",
        ),
    ];
    for (keys, named, reason) in cases {
        let endpoint = s3_serving(keys, b"x");
        let err = s3_at(&endpoint, "s3://bkt/ck")
            .await
            .list()
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::UnsafeName { .. }),
            "{keys:?}: {err:?}"
        );
        assert_eq!(err.error_kind(), ErrorKind::BadInput);
        let text = err.to_string();
        assert!(
            text.contains("s3://bkt/ck") && text.contains(named) && text.contains(reason),
            "{keys:?}: {text}"
        );
    }
    let endpoint = s3_serving(&["ck/metadata", "ck/offsets/0", "ck/offsets/.0.crc"], b"x");
    let listed = s3_at(&endpoint, "s3://bkt/ck").await.list().await.unwrap();
    let paths: Vec<&str> = listed.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["metadata", "offsets/.0.crc", "offsets/0"]);
}

/// Issue 25 §1 and §6 on WebHDFS: a name `../../PWNED` in a LISTSTATUS answer is refused like
/// an S3 key, and `HADOOP_USER_NAME` reaches the query percent-encoded (it went in as is, so
/// `alice&op=DELETE` added a parameter).
#[tokio::test]
async fn webhdfs_names_are_checked_and_the_user_name_is_percent_encoded() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = seen.clone();
    let status = |suffix: &str, kind: &str| {
        format!(
            r#"{{"accessTime":0,"blockSize":134217728,"childrenNum":0,"fileId":16386,"group":"g","length":1,"modificationTime":1700000000000,"owner":"u","pathSuffix":"{suffix}","permission":"644","replication":1,"storagePolicy":0,"type":"{kind}"}}"#
        )
    };
    let statuses = format!(
        r#"{{"FileStatus":[{},{}]}}"#,
        status("metadata", "FILE"),
        status("../../PWNED", "FILE")
    );
    // opendal asks LISTSTATUS_BATCH where the server offers it, else LISTSTATUS.
    let batch = format!(
        r#"{{"DirectoryListing":{{"partialListing":{{"FileStatuses":{statuses}}},"remainingEntries":0}}}}"#
    );
    let listing = format!(r#"{{"FileStatuses":{statuses}}}"#);
    let root = format!(r#"{{"FileStatus":{}}}"#, status("", "DIRECTORY"));
    let endpoint = serve(
        move |_, target| {
            log.lock().unwrap().push(target.to_string());
            let body = if target.contains("op=LISTSTATUS_BATCH") {
                batch.clone()
            } else if target.contains("op=LISTSTATUS") {
                listing.clone()
            } else {
                root.clone()
            };
            (
                "HTTP/1.1 200 OK\r\nContent-Type: application/json".into(),
                body.into_bytes(),
            )
        },
        false,
    );
    let vars = [
        ("REHEARSE_WEBHDFS_URL", endpoint.as_str()),
        ("HADOOP_USER_NAME", "alice&op=DELETE x"),
        ("REHEARSE_STORE_TIMEOUT_SECONDS", "2"),
    ];
    let location = CheckpointLocation::parse("hdfs://nn:8020/ck").unwrap();
    let store = CheckpointStore::open(location, &env(&vars)).await.unwrap();
    let err = store.list().await.unwrap_err();
    assert!(matches!(err, StoreError::UnsafeName { .. }), "{err:?}");
    assert!(err.to_string().contains("\"../../PWNED\""), "{err}");
    let targets = seen.lock().unwrap().clone();
    assert!(
        targets
            .iter()
            .any(|t| t.contains("user.name=alice%26op%3DDELETE%20x")),
        "{targets:?}"
    );
    assert!(
        targets.iter().all(|t| !t.contains("&op=DELETE")),
        "{targets:?}"
    );
}

/// Breaker pass 3, H1: a LISTSTATUS answer holding a *directory* `.` (or `..`) was relisted
/// for 30 minutes (`ck/./`, `ck/././`, …): directories were skipped before any check. Each
/// such name is now refused as it comes, naming it.
#[tokio::test]
async fn a_webhdfs_directory_named_dot_is_refused_at_once() {
    for hostile in [".", ".."] {
        let status = |suffix: &str, kind: &str| {
            format!(
                r#"{{"accessTime":0,"blockSize":134217728,"childrenNum":0,"fileId":16386,"group":"g","length":1,"modificationTime":1700000000000,"owner":"u","pathSuffix":"{suffix}","permission":"644","replication":1,"storagePolicy":0,"type":"{kind}"}}"#
            )
        };
        let statuses = format!(
            r#"{{"FileStatus":[{},{}]}}"#,
            status("metadata", "FILE"),
            status(hostile, "DIRECTORY")
        );
        let batch = format!(
            r#"{{"DirectoryListing":{{"partialListing":{{"FileStatuses":{statuses}}},"remainingEntries":0}}}}"#
        );
        let listing = format!(r#"{{"FileStatuses":{statuses}}}"#);
        let root = format!(r#"{{"FileStatus":{}}}"#, status("", "DIRECTORY"));
        let endpoint = serve(
            move |_, target| {
                let body = if target.contains("op=LISTSTATUS_BATCH") {
                    batch.clone()
                } else if target.contains("op=LISTSTATUS") {
                    listing.clone()
                } else {
                    root.clone()
                };
                (
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json".into(),
                    body.into_bytes(),
                )
            },
            false,
        );
        let vars = [
            ("REHEARSE_WEBHDFS_URL", endpoint.as_str()),
            ("REHEARSE_STORE_TIMEOUT_SECONDS", "2"),
        ];
        let location = CheckpointLocation::parse("hdfs://nn:8020/ck").unwrap();
        let store = CheckpointStore::open(location, &env(&vars)).await.unwrap();
        let err = tokio::time::timeout(Duration::from_secs(20), store.list())
            .await
            .expect("the listing ends")
            .unwrap_err();
        assert!(
            matches!(err, StoreError::UnsafeName { .. }),
            "{hostile}: {err:?}"
        );
        assert!(err.to_string().contains("segment"), "{hostile}: {err}");
    }
}

/// Issue 25 §5: an S3 endpoint answering every ListObjectsV2 page at once, truncated, with the
/// same continuation token, was followed forever (the per-request deadline never fired).
#[tokio::test]
async fn a_listing_that_repeats_its_continuation_token_ends_with_an_error() {
    let page = r#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bkt</Name><Prefix>ck/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>same</NextContinuationToken><Contents><Key>ck/metadata</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;e1&quot;</ETag><Size>1</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>"#;
    let endpoint = serve(
        move |_, _| {
            (
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml".into(),
                page.as_bytes().to_vec(),
            )
        },
        false,
    );
    let store = s3_at(&endpoint, "s3://bkt/ck").await;
    let err = tokio::time::timeout(Duration::from_secs(30), store.list())
        .await
        .expect("the listing ends")
        .unwrap_err();
    assert!(matches!(err, StoreError::ListingRunsAway { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("s3://bkt/ck")
            && text.contains("\"ck/metadata\" twice")
            && text.contains("hint"),
        "{text}"
    );
}

/// Breaker pass 3, H2: an S3 endpoint sending 1,000 new keys and a new continuation token on
/// every page was followed to 10 million names (half an hour, 3 GB). The bound is now a
/// million names, lowered here through `REHEARSE_STORE_MAX_LISTED`, and the error names it.
#[tokio::test]
async fn a_listing_of_endless_new_names_ends_at_the_name_bound() {
    let page = std::sync::atomic::AtomicUsize::new(0);
    let endpoint = serve(
        move |_, _| {
            let n = page.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let contents: String = (0..1000)
                .map(|i| format!("<Contents><Key>ck/state/0/{n}/{i}.delta</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;e1&quot;</ETag><Size>1</Size><StorageClass>STANDARD</StorageClass></Contents>"))
                .collect();
            let body = format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bkt</Name><Prefix>ck/</Prefix><KeyCount>1000</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>t{n}</NextContinuationToken>{contents}</ListBucketResult>"#
            );
            (
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml".into(),
                body.into_bytes(),
            )
        },
        false,
    );
    let env = StoreEnv::from_vars([
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "rehearse-test"),
        ("AWS_SECRET_ACCESS_KEY", "rehearse-test-secret"),
        ("REHEARSE_STORE_TIMEOUT_SECONDS", "5"),
        ("REHEARSE_STORE_MAX_LISTED", "5000"),
    ]);
    let location = CheckpointLocation::parse("s3://bkt/ck").unwrap();
    let store = CheckpointStore::open(location, &env).await.unwrap();
    let err = tokio::time::timeout(Duration::from_secs(30), store.list())
        .await
        .expect("the listing ends")
        .unwrap_err();
    assert!(matches!(err, StoreError::ListingRunsAway { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("more than 5000 names") && text.contains("REHEARSE_STORE_MAX_LISTED=50000"),
        "{text}"
    );
}

#[test]
fn the_name_bound_is_a_whole_number_in_range() {
    let at = |v: &str| StoreEnv::from_vars([("REHEARSE_STORE_MAX_LISTED", v)]).max_listed();
    assert_eq!(StoreEnv::default().max_listed(), Ok(1_000_000));
    assert_eq!(at("2_000_000"), Ok(2_000_000));
    for bad in ["0", "999", "-1", "1e6", "lots", "100000001"] {
        let why = at(bad).unwrap_err();
        assert!(
            why.contains("REHEARSE_STORE_MAX_LISTED") && why.contains(bad),
            "{why}"
        );
    }
}

#[test]
fn the_listing_guard_ends_on_a_repeat_a_count_or_the_deadline() {
    let mut g = ListingGuard::new(Duration::from_secs(60), 2);
    g.admit("a").unwrap();
    assert!(g.admit("a").unwrap_err().contains("twice"));
    g.admit("b").unwrap();
    assert!(g.admit("c").unwrap_err().contains("more than 2 names"));
    let mut late = ListingGuard::new(Duration::ZERO, 10);
    assert!(late
        .admit("a")
        .unwrap_err()
        .contains("still listing after 0 s"));
}

/// Issue 25 §5: `GOOGLE_APPLICATION_CREDENTIALS` naming a FIFO blocked the credential chain
/// forever, and `/dev/zero` was read to 4.2 GB before "no credentials found".
#[tokio::test]
async fn a_credential_file_that_is_no_regular_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("key.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let big = dir.path().join("big.json");
    std::fs::write(
        &big,
        vec![b' '; (super::credentials::MAX_CREDENTIAL_FILE_BYTES + 1) as usize],
    )
    .unwrap();
    let fifo = fifo.display().to_string();
    let big = big.display().to_string();
    for (var, path, said) in [
        ("GOOGLE_APPLICATION_CREDENTIALS", fifo.as_str(), "FIFO"),
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            "/dev/zero",
            "character device",
        ),
        (
            "AWS_SHARED_CREDENTIALS_FILE",
            big.as_str(),
            "over rehearse's limit",
        ),
    ] {
        let url = if var.starts_with("AWS") {
            "s3://bkt/ck"
        } else {
            "gs://bkt/ck"
        };
        let env = StoreEnv::from_vars([(var, path), ("AWS_REGION", "us-east-1")]);
        let opened = tokio::time::timeout(
            Duration::from_secs(20),
            CheckpointStore::open(CheckpointLocation::parse(url).unwrap(), &env),
        )
        .await
        .expect("refused at once, not blocked");
        let err = opened.unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, StoreError::Config { .. })
                && text.contains(var)
                && text.contains(path)
                && text.contains(said),
            "{var}={path}: {text}"
        );
    }
}

/// Issue 25 §7: a throttling answer (`503 SlowDown`, `429`) printed the raw
/// `S3Error { code: "SlowDown", … }`; a redirect loop printed reqwest's "error following
/// redirect"; each is now a sentence naming the URL, the endpoint and what to do.
#[tokio::test]
async fn throttling_and_redirect_loops_are_said_as_such() {
    let slow = serve(
        |_, _| {
            (
                "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml".into(),
                b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>r1</RequestId></Error>".to_vec(),
            )
        },
        false,
    );
    let store = s3_at(&slow, "s3://bkt/ck").await;
    for err in [
        store.list().await.unwrap_err(),
        store.read_small("metadata", 100).await.unwrap_err(),
    ] {
        assert!(matches!(err, StoreError::Throttled { .. }), "{err:?}");
        assert_eq!(err.error_kind(), ErrorKind::Environment);
        let text = err.to_string();
        assert!(
            text.contains("is throttling requests for s3://bkt/ck")
                && text.contains("SlowDown")
                && text.contains("retry later")
                && !text.contains("S3Error {"),
            "{text}"
        );
    }
    let redirect = serve(
        |_, target| {
            (
                format!("HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}"),
                Vec::new(),
            )
        },
        false,
    );
    let store = s3_at(&redirect, "s3://bkt/ck").await;
    let err = store.list().await.unwrap_err();
    assert!(matches!(err, StoreError::RedirectLoop { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("redirects the requests for s3://bkt/ck in a loop")
            && text.contains(&redirect)
            && text.contains("AWS_ENDPOINT_URL"),
        "{text}"
    );
}

/// Issue 25 §7: a server answering a listing with bytes that are no listing — a web page sent
/// as `application/octet-stream`, garbage sent as XML — was read as an empty listing and the
/// prefix called "a file (an object)", or printed serde's "deserialize xml: invalid type"; it
/// does not speak the S3 API, naming the URL, the endpoint and its first bytes.
#[tokio::test]
async fn a_listing_answered_with_other_bytes_does_not_speak_s3() {
    for (content_type, body) in [
        (
            "application/octet-stream",
            &b"<html><body>hello</body></html>"[..],
        ),
        ("application/xml", b"\x00\x01garbage not xml"),
        ("application/xml", b""),
    ] {
        let endpoint = serve(
            move |_, _| {
                (
                    format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}"),
                    body.to_vec(),
                )
            },
            false,
        );
        let store = s3_at(&endpoint, "s3://bkt/ck").await;
        let err = store.list().await.unwrap_err();
        assert!(
            matches!(err, StoreError::NotAStore { .. }),
            "{body:?}: {err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains(&format!(
                "{endpoint} does not speak the S3 API for s3://bkt/ck"
            )) && text.contains("not a listing"),
            "{text}"
        );
    }
    // A real listing still lists through the check.
    let endpoint = s3_serving(&["ck/metadata"], b"{}");
    let store = s3_at(&endpoint, "s3://bkt/ck").await;
    assert_eq!(store.list().await.unwrap().len(), 1);
}

/// Issue 25 §7: `AWS_ENDPOINT_URL=not a url` failed each request with "building http request:
/// invalid uri character"; a garbage `AZURE_STORAGE_CONNECTION_STRING` printed opendal's
/// context dump. Each is refused when the store is opened, naming the variable and the form.
#[tokio::test]
async fn endpoint_urls_and_connection_strings_are_checked_naming_the_variable() {
    for (var, value, wanted) in [
        ("AWS_ENDPOINT_URL", "not a url", "it holds whitespace"),
        ("AWS_ENDPOINT_URL", "ftp://x", "its scheme is ftp://"),
        (
            "AWS_ENDPOINT_URL",
            "http://",
            "AWS_ENDPOINT_URL=\"http://\" is not an endpoint URL",
        ),
        (
            "AWS_ENDPOINT_URL_S3",
            "minio:9000",
            "no http:// or https://",
        ),
        (
            "AWS_ENDPOINT_URL",
            "http://h\x07",
            "AWS_ENDPOINT_URL=\"http://h\\u{7}\" is not an endpoint URL",
        ),
    ] {
        let err = CheckpointStore::open(
            CheckpointLocation::parse("s3://bkt/ck").unwrap(),
            &env(&[(var, value), ("AWS_ALLOW_HTTP", "true")]),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, StoreError::Config { .. })
                && text.contains(&format!("{var}="))
                && text.contains(wanted)
                && text.contains("s3://bkt/ck"),
            "{value:?}: {text}"
        );
    }
    for (cs, wanted) in [
        ("garbage", "not KEY=VALUE pairs"),
        ("AccountName=;AccountKey=", "names no AccountName"),
        (
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=not base64!!;BlobEndpoint=http://127.0.0.1:9/a",
            "AZURE_STORAGE_CONNECTION_STRING is not a storage connection string",
        ),
        (
            "AccountName=a;AccountKey=Zm9v;BlobEndpoint=not a url",
            "BlobEndpoint=\"not a url\" is not an endpoint URL",
        ),
    ] {
        let err = CheckpointStore::open(
            CheckpointLocation::parse("az://ckpts/ck").unwrap(),
            &env(&[("AZURE_STORAGE_CONNECTION_STRING", cs)]),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(wanted) && !text.contains("context:") && !text.contains("Zm9v"),
            "{cs}: {text}"
        );
    }
}

/// Issue 25 §7: a malformed Google credentials file was "no credentials found … failed to load
/// signing credential" or "failed to parse PKCS#8 RSA private key PEM: … ASN.1 error", and a
/// malformed AWS credentials file "no credentials found", none naming the file. Each is
/// refused when the store is opened, naming the variable, the file and what is wrong.
#[tokio::test]
async fn a_malformed_credential_file_is_named_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("creds");
    let path = file.display().to_string();
    for (var, body, wanted) in [
        ("GOOGLE_APPLICATION_CREDENTIALS", "{not json", "not JSON"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "{\"type\":\"authorized_user\"}", "a credentials file of type authorized_user without \"client_id\""),
        ("GOOGLE_APPLICATION_CREDENTIALS", "{\"type\":\"robot\"}", "its \"type\" is \"robot\""),
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            "{\"type\":\"service_account\",\"client_email\":\"a@b\",\"private_key\":\"-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----\\n\"}",
            "holds 3 bytes that are not a PKCS#8 key",
        ),
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            "{\"type\":\"service_account\",\"client_email\":\"a@b\",\"private_key\":\"MIIE\"}",
            "not a PEM PKCS#8 key",
        ),
        ("AWS_SHARED_CREDENTIALS_FILE", "[default]\naws_access_key_id = AKIA\nwJalrXUtnFEMI-Secret1\n", "line 3 is not `key = value`"),
    ] {
        std::fs::write(&file, body).unwrap();
        let url = if var.starts_with("AWS") { "s3://bkt/ck" } else { "gs://bkt/ck" };
        let env = StoreEnv::from_vars([(var, path.as_str()), ("AWS_REGION", "us-east-1")]);
        let err = CheckpointStore::open(CheckpointLocation::parse(url).unwrap(), &env)
            .await
            .unwrap_err();
        // As the user sees it: through the output mask, which must leave the file's name.
        let text = rehearse_base::text::mask(&err.to_string()).into_owned();
        assert!(
            text.contains(&format!("{var} {path}")) && text.contains(wanted) && !text.contains("Secret1"),
            "{body}: {text}"
        );
    }
    // A key pasted into the variable is not echoed as if it were a file's name.
    let pasted =
        "{\"type\":\"authorized_user\",\"client_id\":\"c\",\"refresh_tok\":\"pasted-Secret1\"}";
    let env = StoreEnv::from_vars([("GOOGLE_APPLICATION_CREDENTIALS", pasted)]);
    let err = CheckpointStore::open(CheckpointLocation::parse("gs://bkt/ck").unwrap(), &env)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("holds text, not a file's path") && !text.contains("Secret1"),
        "{text}"
    );
    // A well-formed one passes the check (the chain reads it later).
    std::fs::write(
        &file,
        "[default]\n# c\naws_access_key_id = AKIA\naws_secret_access_key = x\n",
    )
    .unwrap();
    let env = StoreEnv::from_vars([
        ("AWS_SHARED_CREDENTIALS_FILE", path.as_str()),
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
        ("AWS_ALLOW_HTTP", "true"),
    ]);
    assert!(
        CheckpointStore::open(CheckpointLocation::parse("s3://bkt/ck").unwrap(), &env)
            .await
            .is_ok()
    );
}

/// Issue 25 §7: credentials that are exchanged for a token, with the token endpoint not
/// answering, were reported as "no credentials found", sending the user to look for
/// credentials they had set. Said as the token that could not be got, naming the endpoint.
#[tokio::test]
async fn a_token_that_cannot_be_got_is_not_called_missing_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("user.json");
    std::fs::write(
        &key,
        r#"{"type":"authorized_user","client_id":"c","client_secret":"token-test-Secret1","refresh_token":"r"}"#,
    )
    .unwrap();
    let env = StoreEnv::from_vars([
        ("GOOGLE_APPLICATION_CREDENTIALS", key.to_str().unwrap()),
        ("REHEARSE_STORE_TIMEOUT_SECONDS", "10"),
    ]);
    let store = CheckpointStore::open(CheckpointLocation::parse("gs://bucket-x/ck").unwrap(), &env)
        .await
        .unwrap();
    // The exchange fails whether Google is reachable (the refresh token is refused) or not.
    let err = store.list().await.unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, StoreError::NoToken { .. })
            && text.contains("could not get a token for gs://bucket-x/ck")
            && text.contains("oauth2.googleapis.com")
            && !text.contains("no credentials found")
            && !text.contains("token-test-Secret1"),
        "{err:?}: {text}"
    );
    // Without such credentials it is still "no credentials found".
    let env = StoreEnv::from_vars([
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
        ("AWS_ALLOW_HTTP", "true"),
    ]);
    assert_eq!(
        token_endpoint(&CheckpointLocation::parse("s3://bkt/ck").unwrap(), &env),
        None
    );
}
