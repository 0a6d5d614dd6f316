//! End-to-end rehearsals on a Spark standalone cluster (`--runtime standalone`): a master and
//! workers in containers of the target's image, the driver in client mode. They restart the
//! shared source checkpoint of `run.rs` (generated once by Spark 3.5.3, cached), with the fewest
//! Spark starts that prove each point: a resume on two workers with its executors reported; a
//! worker killed mid-restart is never `resumed` without proof; the cluster is swept on SIGTERM
//! and by `rehearse gc`. Need a Docker engine and the images; fail under `CI=true` without one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::run::{cache_dir, docker_available, scenario, source_checkpoint};

/// A scenario restarting `source` on 4.0.1 named `name` (its containers carry it as the label
/// `org.rehearse.scenario`, which the tests filter on).
fn cluster_scenario(dir: &Path, source: &Path, name: &str) -> PathBuf {
    let path = scenario(
        dir,
        &format!("[checkpoint]\npath = \"{}\"\n", source.display()),
        "4.0.1",
        "",
        "",
    );
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "name = \"e2e\"",
        &format!("name = \"{name}\""),
        1,
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `rehearse run SCENARIO --json ARGS…`: the report, the exit code and stderr.
fn run(scenario: &Path, args: &[&str]) -> (serde_json::Value, i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .arg("run")
        .arg(scenario)
        .arg("--json")
        .args(args)
        .env("REHEARSE_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    (report, out.status.code().unwrap_or(-1), stderr)
}

/// Names of the containers (running or not) whose labels match every `label=value` filter.
fn containers(filters: &[String]) -> Vec<String> {
    let mut cmd = Command::new("docker");
    cmd.args(["ps", "-a", "--format", "{{.Names}}"]);
    for f in filters {
        cmd.args(["--filter", &format!("label={f}")]);
    }
    let out = cmd.output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Networks named `name`.
fn network_exists(name: &str) -> bool {
    let out = Command::new("docker")
        .args(["network", "ls", "--format", "{{.Name}}"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|n| n == name)
}

/// Waits (at most `limit`) until `ready` holds, polling every half second.
fn wait_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    false
}

#[test]
fn e2e_standalone_two_workers_resume_like_local_and_report_their_executors() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = source_checkpoint();
    let s = cluster_scenario(tmp.path(), &source, "e2e-cluster");
    let (report, code, stderr) = run(
        &s,
        &[
            "--runtime",
            "standalone",
            "--workers",
            "2",
            "--worker-cores",
            "1",
            "--worker-memory",
            "768",
        ],
    );
    let t = &report["trials"][0];
    // The same verdict as local[2] (run::e2e_checkpoint_from_3_5_resumes_on_4_0_…).
    assert_eq!(t["verdict"], "resumed", "{t:#}\n{stderr}");
    assert_eq!(t["start_offsets_match"], true);
    assert_eq!(t["source_untouched"], true);
    assert_eq!(code, 0);
    // Both workers ran an executor: the event log's hosts are the workers' container names.
    let e = &t["executors"];
    assert_eq!(e["count"], 2, "{e:#}");
    let workers: Vec<&str> = e["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(workers.len(), 2, "{workers:?}");
    assert!(workers[0].starts_with("rehearse-worker-1-"), "{workers:?}");
    assert!(workers[1].starts_with("rehearse-worker-2-"), "{workers:?}");
    assert!(
        stderr.contains("standalone cluster: 1 master, 2 worker(s)"),
        "{stderr}"
    );
    // Nothing of the cluster is left.
    assert!(
        containers(&["org.rehearse.scenario=e2e-cluster".into()]).is_empty(),
        "the master, workers, driver and broker are removed after the trial"
    );
}

#[test]
fn e2e_a_worker_killed_mid_restart_is_executors_lost_never_resumed() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = source_checkpoint();
    let s = cluster_scenario(tmp.path(), &source, "e2e-cluster-fault");
    let sandboxes = tmp.path().join("sandboxes");
    std::fs::create_dir(&sandboxes).unwrap();
    // Kill the one worker once the restarted query says where it resumes: its executor has
    // registered (the driver waits for it before the query starts) and no batch ran yet.
    let killer = {
        let sandboxes = sandboxes.clone();
        std::thread::spawn(move || {
            let resumed_at = || {
                std::fs::read_dir(&sandboxes)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|d| {
                        std::fs::read_to_string(d.path().join("logs/driver.log"))
                            .is_ok_and(|log| log.contains("Resuming at batch"))
                    })
            };
            if !wait_until(Duration::from_secs(400), resumed_at) {
                return None;
            }
            let worker = containers(&[
                "org.rehearse.scenario=e2e-cluster-fault".into(),
                "org.rehearse.role=worker".into(),
            ]);
            for w in &worker {
                Command::new("docker").args(["kill", w]).output().unwrap();
            }
            Some(worker)
        })
    };
    let (report, code, stderr) = run(
        &s,
        &[
            "--runtime",
            "standalone",
            "--workers",
            "1",
            "--worker-memory",
            "768",
            "--report-dir",
            sandboxes.to_str().unwrap(),
        ],
    );
    let killed = killer.join().unwrap();
    assert!(
        killed.as_ref().is_some_and(|k| k.len() == 1),
        "the worker was found and killed: {killed:?}\n{stderr}"
    );
    let t = &report["trials"][0];
    assert_ne!(t["verdict"], "resumed", "{t:#}\n{stderr}");
    assert_eq!(t["verdict"], "environment-error", "{t:#}\n{stderr}");
    assert_eq!(t["rule"], "executors-lost", "{t:#}");
    let evidence = t["evidence"].to_string();
    assert!(
        evidence.contains("executor 0 on rehearse-worker-1-"),
        "the removal names the executor and its worker: {evidence}"
    );
    assert_eq!(t["executors"]["count"], 1);
    assert_eq!(t["source_untouched"], true);
    assert_ne!(code, 0);
    assert!(containers(&["org.rehearse.scenario=e2e-cluster-fault".into()]).is_empty());
}

/// Starts `rehearse run` on a one-worker cluster in the background and waits until its worker
/// registered (its container exists and the master is up). Returns the child and its pid label.
fn start_until_worker(s: &Path, extra: &[&std::ffi::OsStr]) -> (std::process::Child, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .args(["run"])
        .arg(s)
        .args(["--runtime", "standalone"])
        .args(extra)
        .env("REHEARSE_CACHE_DIR", cache_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = format!("org.rehearse.pid={}", child.id());
    let worker = [pid.clone(), "org.rehearse.role=worker".to_string()];
    assert!(
        wait_until(Duration::from_secs(300), || !containers(&worker).is_empty()),
        "the worker container appeared"
    );
    // Let the start finish (registration, then the driver) so the sweep meets a whole cluster.
    std::thread::sleep(Duration::from_secs(5));
    (child, pid)
}

/// The trial network of the containers labelled `pid` (`rehearse-<trial>`).
fn trial_network(pid: &str) -> String {
    let names = containers(&[pid.to_string(), "org.rehearse.role=master".to_string()]);
    let master = names.first().expect("the master runs");
    let trial = master.strip_prefix("rehearse-master-").unwrap();
    format!("rehearse-{trial}")
}

#[test]
fn e2e_alone_the_cluster_is_swept_on_sigterm_and_by_gc() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = source_checkpoint();
    let s = cluster_scenario(tmp.path(), &source, "e2e-cluster-sweep");

    // SIGTERM (a cancelled CI job): the run removes its master, worker, driver, broker and
    // network itself and exits 130 — and keeps the sandbox `--keep` asked for.
    let kept = tmp.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    let (mut child, pid) = start_until_worker(
        &s,
        &["--keep".as_ref(), "--report-dir".as_ref(), kept.as_os_str()],
    );
    let network = trial_network(&pid);
    assert!(network_exists(&network));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        containers(std::slice::from_ref(&pid)).is_empty(),
        "SIGTERM removes every container of the run"
    );
    assert!(!network_exists(&network), "and its network {network}");
    let sandboxes: Vec<_> = std::fs::read_dir(&kept)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("checkpoint").is_dir())
        .collect();
    assert_eq!(
        sandboxes.len(),
        1,
        "--keep keeps the interrupted trial's sandbox with its checkpoint copy: {sandboxes:?}"
    );

    // SIGKILL leaves everything; `rehearse gc` removes it (its process is gone).
    let (mut child, pid) = start_until_worker(&s, &[]);
    let network = trial_network(&pid);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!containers(std::slice::from_ref(&pid)).is_empty());
    let out = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .arg("gc")
        .env("REHEARSE_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("rehearse-master-"),
        "gc names the master: {said}"
    );
    assert!(
        said.contains("rehearse-worker-1-"),
        "and the worker: {said}"
    );
    assert!(containers(std::slice::from_ref(&pid)).is_empty(), "{said}");
    assert!(!network_exists(&network), "{said}");
}

/// The address the host's default route uses (what `rehearse run --master` advertises by
/// default), found the same way: a UDP socket "connected" to a documentation address.
fn host_address() -> String {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    s.connect("192.0.2.1:9").unwrap();
    s.local_addr().unwrap().ip().to_string()
}

/// Containers the test started itself (an "existing" cluster), removed when dropped.
struct Started(Vec<String>);

impl Drop for Started {
    fn drop(&mut self) {
        for name in &self.0 {
            let _ = Command::new("docker").args(["rm", "-f", name]).output();
        }
    }
}

/// `docker run -d` of `rehearse/spark:4.0.1` on the host network, labelled so `rehearse gc`
/// sweeps it if this test process dies.
fn start_on_host(name: &str, extra: &[&str], cmd: &[&str]) {
    let out = Command::new("docker")
        .args(["run", "-d", "--name", name, "--network", "host"])
        .args(["--label", "org.rehearse.managed=true"])
        .args([
            "--label",
            &format!("org.rehearse.pid={}", std::process::id()),
        ])
        .args(["-e", "SPARK_DAEMON_MEMORY=256m"])
        .args(extra)
        .arg("rehearse/spark:4.0.1")
        .args(cmd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn logs_contain(name: &str, text: &str) -> bool {
    let out = Command::new("docker")
        .args(["logs", name])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr).contains(text)
        || String::from_utf8_lossy(&out.stdout).contains(text)
}

#[test]
fn e2e_master_pass_through_submits_to_an_existing_standalone_cluster() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = source_checkpoint();
    let s = cluster_scenario(tmp.path(), &source, "e2e-cluster-master");
    // The "existing" cluster: a master and a worker on the host's network, the shared
    // directory mounted at the same path in the worker.
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    let shared_str = shared.to_str().unwrap();
    let ip = host_address();
    let port = std::net::TcpListener::bind("0.0.0.0:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let me = std::process::id();
    let (master, worker) = (
        format!("rehearse-ext-master-{me}"),
        format!("rehearse-ext-worker-{me}"),
    );
    let _cluster = Started(vec![worker.clone(), master.clone()]);
    start_on_host(
        &master,
        &[],
        &[
            "spark-class",
            "org.apache.spark.deploy.master.Master",
            "--host",
            &ip,
            "--port",
            &port,
            "--webui-port",
            "0",
        ],
    );
    let url = format!("spark://{ip}:{port}");
    start_on_host(
        &worker,
        &["-v", &format!("{shared_str}:{shared_str}")],
        &[
            "spark-class",
            "org.apache.spark.deploy.worker.Worker",
            "--host",
            &ip,
            "--webui-port",
            "0",
            "--cores",
            "2",
            "--memory",
            "1g",
            "--work-dir",
            "/tmp/rehearse-ext-work",
            &url,
        ],
    );
    assert!(
        wait_until(Duration::from_secs(180), || logs_contain(
            &worker,
            "Successfully registered with master"
        )),
        "the worker registered with the master"
    );
    let (report, code, stderr) = run(
        &s,
        &[
            "--master",
            &url,
            "--report-dir",
            shared_str,
            "--conf",
            "spark.executor.memory=768m",
        ],
    );
    let t = &report["trials"][0];
    assert_eq!(t["verdict"], "resumed", "{t:#}\n{stderr}");
    assert_eq!(t["start_offsets_match"], true);
    assert_eq!(t["source_untouched"], true);
    assert_eq!(code, 0);
    // The executor ran on the cluster's worker (its --host), not in the driver.
    assert_eq!(t["executors"]["count"], 1, "{t:#}");
    assert_eq!(t["executors"]["workers"][0], ip.as_str());
    assert!(
        stderr.contains(&format!("client mode on {url}")),
        "{stderr}"
    );
    // rehearse removed its own driver and broker; the cluster it did not start still runs.
    assert!(containers(&["org.rehearse.scenario=e2e-cluster-master".into()]).is_empty());
    assert!(
        logs_contain(&master, "Registering app"),
        "the app was submitted there"
    );
}

/// A suite of two cells restarting on one Spark version (the CI slice's two shapes written by
/// 4.0.1, restarted on 4.0.1): on `--runtime standalone` both cells share one cluster of one
/// worker (2 cores: a cell each at once), get the CI slice's verdict on `local[2]` (`resumed`,
/// offsets matching; `matrix::e2e_ci_slice…`), report their one executor on that worker, and
/// the cluster, the drivers, the broker and the suite's sandbox directory are gone after it.
#[test]
fn e2e_matrix_cells_of_one_version_share_one_standalone_cluster_and_resume_like_local() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let suite = tmp.path().join("suite.toml");
    let mut shapes = String::new();
    for shape in ["windowed-count", "dedup"] {
        let file = repo.join(format!("scenarios/shapes/{shape}.toml"));
        shapes.push_str(&format!("[[shapes]]\nscenario = \"{}\"\n", file.display()));
    }
    std::fs::write(
        &suite,
        format!(
            "name = \"e2e-shared-cluster\"\nsources = [\"4.0.1\"]\ntargets = [\"4.0.1\"]\nproviders = [\"hdfs\"]\ntimeout_seconds = 300\n{shapes}"
        ),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_rehearse"))
        .args(["matrix", suite.to_str().unwrap(), "--json"])
        .args(["--runtime", "standalone", "--workers", "1"])
        .env("REHEARSE_CACHE_DIR", cache_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let cells = report["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{stderr}");
    let mut workers = Vec::new();
    for c in cells {
        let id = format!("{}->{}", c["shape"], c["target"]);
        assert_eq!(c["status"], "ran", "{id}: {c:#}\n{stderr}");
        assert_eq!(c["verdict"], "resumed", "{id}: {c:#}\n{stderr}");
        assert_eq!(c["start_offsets_match"], true, "{id}");
        let e = &c["executors"];
        assert_eq!(e["count"], 1, "{id}: {e:#}");
        workers.push(e["workers"][0].as_str().unwrap_or_default().to_string());
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // One cluster: both cells' executors ran on the same worker container.
    assert!(workers[0].starts_with("rehearse-worker-1-"), "{workers:?}");
    assert_eq!(workers[0], workers[1], "the cells shared one worker");
    assert!(
        stderr.contains("cells restart on a standalone cluster per target version"),
        "{stderr}"
    );
    // Nothing of the run is left: master, worker, drivers, broker, the sandbox directory.
    assert!(
        containers(&[format!("org.rehearse.pid={pid}")]).is_empty(),
        "the suite's containers are removed after it"
    );
    let prefix = format!("rehearse-suite-{pid:x}");
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|d| d.file_name().to_string_lossy().starts_with(&prefix))
        .map(|d| d.path())
        .collect();
    assert!(left.is_empty(), "sandbox directories left: {left:?}");
}
