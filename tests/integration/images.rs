//! `rehearse images`: the list command always runs; the image checks need a Docker engine and
//! are skipped without one on a developer machine, but fail when `CI=true` (CI must run them).

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use rehearse::exit::Outcome;

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn docker_answers() -> bool {
    Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True when the Docker tests should run; panics in CI without an engine.
fn need_docker(test: &str) -> bool {
    if docker_answers() {
        return true;
    }
    assert!(
        !in_ci(),
        "{test}: CI=true but no Docker engine answers (run scripts/setup-docker.sh)"
    );
    eprintln!("{test}: skipped, no Docker engine answers");
    false
}

#[test]
fn images_list_runs() {
    let out = Command::cargo_bin("rehearse")
        .expect("binary")
        .args(["images", "list"])
        .output()
        .expect("run rehearse images list");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if docker_answers() {
        assert!(out.status.success(), "{out:?}");
        assert!(stdout.starts_with("IMAGE"), "{stdout}");
    } else {
        assert!(!in_ci(), "CI=true but no Docker engine answers");
        // no engine: environment error with the setup hint
        assert_eq!(out.status.code(), Some(Outcome::Environment.code()));
        assert!(String::from_utf8_lossy(&out.stderr).contains("setup-docker.sh"));
    }
}

#[test]
fn images_build_rejects_nonsense_versions() {
    let out = Command::cargo_bin("rehearse")
        .expect("binary")
        .args(["images", "build", "--spark", "3.5;rm"])
        .output()
        .expect("run rehearse images build");
    assert_eq!(out.status.code(), Some(Outcome::Usage.code()), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid version '3.5;rm'"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--spark 3.5;rm:"));
}

/// A well-formed version of no Spark line the table knows (`9.9.9`), or a patch past its line's last, is
/// refused before any build starts — Kafka's, which is built first, included (issue 25 §6).
#[test]
fn images_build_refuses_unknown_spark_releases_before_building_anything() {
    for v in ["9.9.9", "4.9.9", "4.0.99"] {
        let out = Command::cargo_bin("rehearse")
            .expect("binary")
            .args(["images", "build", "--kafka", "3.9.1", "--spark", v])
            .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
            .output()
            .expect("run rehearse images build");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(Outcome::Usage.code()), "{v}: {err}");
        assert!(err.contains(&format!("--spark {v}:")), "{v}: {err}");
        assert!(err.contains("spark-lines.toml"), "{v}: {err}");
        assert!(
            !err.contains("rehearse/kafka"),
            "{v}: a build started: {err}"
        );
    }
}

#[test]
fn e2e_spark_353_image_runs_spark_submit() {
    if !need_docker("e2e_spark_353_image_runs_spark_submit") {
        return;
    }
    let tag = rehearse::images::spark_image("3.5.3");
    assert!(
        rehearse::images::image_exists(&tag).expect("docker answers"),
        "{tag} is missing (hint: rehearse images build --spark 3.5.3)"
    );
    let listed = Command::cargo_bin("rehearse")
        .expect("binary")
        .args(["images", "list"])
        .output()
        .expect("run rehearse images list");
    assert!(String::from_utf8_lossy(&listed.stdout).contains(&tag));
    let out = Command::new("docker")
        .args(["run", "--rm", &tag, "spark-submit", "--version"])
        .output()
        .expect("docker run");
    assert!(out.status.success(), "{out:?}");
    // spark-submit prints its banner on stderr
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("version 3.5.3"), "{text}");
    // and the connector is baked in
    let jars = Command::new("docker")
        .args(["run", "--rm", &tag, "ls", "/opt/spark/jars"])
        .output()
        .expect("docker run ls");
    let jars = String::from_utf8_lossy(&jars.stdout);
    for j in [
        "spark-sql-kafka-0-10_2.12-3.5.3.jar",
        "spark-token-provider-kafka-0-10_2.12-3.5.3.jar",
        "kafka-clients-3.4.1.jar",
        "commons-pool2-2.11.1.jar",
    ] {
        assert!(jars.contains(j), "{j} missing from {tag}: {jars}");
    }
}

#[test]
fn e2e_spark_image_runs_as_another_user() {
    if !need_docker("e2e_spark_image_runs_as_another_user") {
        return;
    }
    let tag = rehearse::images::spark_image("3.5.3");
    let out = Command::new("docker")
        .args([
            "run",
            "--rm",
            "--user",
            "1000:1000",
            &tag,
            "sh",
            "-c",
            "whoami && spark-submit --version",
        ])
        .output()
        .expect("docker run --user");
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("spark"),
        "{out:?}"
    );
}
