//! A throwaway HTTP/1.1 server for tests of the store client and of the copy engine over it
//! (protocol cases and hostile listings no real store produces).

use std::time::Duration;

use super::{CheckpointLocation, CheckpointStore, StoreEnv};

/// A throwaway HTTP/1.1 server on 127.0.0.1 for protocol cases no real store produces:
/// `answer(method, path?query)` gives the status line and headers (without the blank line)
/// and the body; `trickle` sends the body a byte every 100 ms.
pub fn serve(
    answer: impl Fn(&str, &str) -> (String, Vec<u8>) + Send + Sync + 'static,
    trickle: bool,
) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let answer = std::sync::Arc::new(answer);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                let mut parts = line.split_whitespace();
                let (method, target) = (
                    parts.next().unwrap_or("").to_string(),
                    parts.next().unwrap_or("").to_string(),
                );
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                }
                let (head, body) = answer(&method, &target);
                let head = format!(
                    "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = conn.write_all(head.as_bytes());
                if method == "HEAD" {
                    return;
                }
                if trickle {
                    for b in body {
                        if conn.write_all(&[b]).is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(100));
                    }
                } else {
                    let _ = conn.write_all(&body);
                }
            });
        }
    });
    format!("http://{addr}")
}

/// A store client for `url` (`s3://bkt/…`) on the fake S3 `endpoint`, with a store deadline of
/// one second.
pub async fn s3_at(endpoint: &str, url: &str) -> CheckpointStore {
    let location = CheckpointLocation::parse(url).unwrap();
    let env = StoreEnv::from_vars([
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "rehearse-test"),
        ("AWS_SECRET_ACCESS_KEY", "rehearse-test-secret"),
        ("REHEARSE_STORE_TIMEOUT_SECONDS", "1"),
    ]);
    CheckpointStore::open(location, &env).await.unwrap()
}

/// A fake S3 endpoint whose bucket `bkt` holds exactly `keys` (whole keys, taken literally: a
/// hostile server's `../`), each with the body `body`: one ListObjectsV2 page naming them all,
/// and that body for any GET.
pub fn s3_serving(keys: &[&str], body: &'static [u8]) -> String {
    let escape = |k: &str| {
        k.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let contents: String = keys
        .iter()
        .map(|k| {
            format!(
                "<Contents><Key>{}</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;e1&quot;</ETag><Size>{}</Size><StorageClass>STANDARD</StorageClass></Contents>",
                escape(k),
                body.len()
            )
        })
        .collect();
    let listing = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bkt</Name><Prefix></Prefix><KeyCount>{}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>"#,
        keys.len()
    );
    serve(
        move |_, target| {
            if target.contains("list-type=2") {
                (
                    "HTTP/1.1 200 OK\r\nContent-Type: application/xml".into(),
                    listing.as_bytes().to_vec(),
                )
            } else {
                (
                    "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nETag: \"e1\""
                        .into(),
                    body.to_vec(),
                )
            }
        },
        false,
    )
}
