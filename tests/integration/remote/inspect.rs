//! `rehearse inspect` by URL on every test server: the local inspection, the bad cases, no
//! secret in the output.

use super::*;

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
