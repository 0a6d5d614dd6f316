//! `rehearse run` by URL on every test server: resumes, leaves the source unchanged, and bad
//! sources stop before any container.

use super::*;

/// `rehearse run` of a scenario whose `[checkpoint] path` is a URL, on each server: a real
/// checkpoint written by Spark 3.5.3 (the run tests' cached one) is uploaded, rehearsed by URL
/// on Spark 4.0.1 with a real restart → `resumed`; the report names the URL (never a
/// credential) and says the remote source was unchanged (size + ETag, or size + modification
/// time on HDFS); the objects are unchanged (listing before vs after); the staged copy is
/// removed; no secret is in stdout, stderr, the JUnit and Markdown reports or the kept
/// sandbox's logs.
#[tokio::test]
async fn e2e_run_by_url_resumes_on_every_server_and_leaves_the_source_unchanged() {
    let Some(s) = servers("run_by_url") else {
        return;
    };
    if !crate::run::docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = crate::run::source_checkpoint();
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
        let scenario = crate::run::scenario(
            &dir,
            &format!("[checkpoint]\npath = \"{url}\"\n"),
            "4.0.1",
            "",
            "",
        );
        let mut run_env = server.env.clone();
        run_env.push((
            "REHEARSE_CACHE_DIR".into(),
            crate::run::cache_dir().display().to_string(),
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
        let scenario = crate::run::scenario(
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
    let scenario = crate::run::scenario(
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
