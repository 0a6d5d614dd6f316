//! The copy driver `bench/copy.sh` times (issue 11 §6): inspects a checkpoint (a local directory
//! or a URL), copies it with the sandbox's copy engine into DEST, checks the source again with
//! `verify_source`, and prints one line `files=N bytes=N copy_s=S verify_s=S` for the script.
//!
//! ```text
//! copy_bench SOURCE DEST [--target V] [--full] [--method range|rw] [--parallel N]
//! ```
//! - SOURCE: a directory or a checkpoint URL (`s3://bucket/prefix`, with the store's usual
//!   environment: `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, keys).
//! - `--target V`: the working set for a restart on Spark V (repeatable); none: any line.
//! - `--full`: copy everything (`--full-copy`).
//! - `--method`: how local files are copied (`range`: `copy_file_range` then hash the copy,
//!   the default; `rw`: read, hash and write through one buffer).
//!
//! Not a user command: a thin binary over the library so the benchmark measures the engine,
//! not the CLI.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use rehearse::sandbox::{self, CopyOptions, LocalMethod};
use rehearse::store::{CheckpointLocation, CheckpointStore, StoreEnv};
use rehearse::versions::SparkVersion;

fn usage() -> ExitCode {
    eprintln!(
        "usage: copy_bench SOURCE DEST [--target V]... [--full] [--method range|rw] [--parallel N]"
    );
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut positional, mut targets) = (Vec::new(), Vec::new());
    let mut options = CopyOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--full" => options.full_copy = true,
            "--target" => match it.next().map(|v| SparkVersion::parse(v)) {
                Some(Ok(v)) => targets.push(v),
                _ => return usage(),
            },
            "--method" => match it.next().map(String::as_str) {
                Some("range") => sandbox::set_local_method(LocalMethod::CopyRange),
                Some("rw") => sandbox::set_local_method(LocalMethod::ReadWrite),
                _ => return usage(),
            },
            "--parallel" => match it.next().and_then(|n| n.parse().ok()) {
                Some(n) => options.parallel = n,
                None => return usage(),
            },
            _ if a.starts_with("--") => return usage(),
            _ => positional.push(a.clone()),
        }
    }
    let [source, dest] = positional.as_slice() else {
        return usage();
    };
    match run(source, &PathBuf::from(dest), &targets, &options).await {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("copy_bench: {e:#}");
            ExitCode::from(1)
        }
    }
}

async fn run(
    source: &str,
    dest: &std::path::Path,
    targets: &[SparkVersion],
    options: &CopyOptions,
) -> anyhow::Result<String> {
    let location = CheckpointLocation::parse(source)?;
    let store = CheckpointStore::open(location, &StoreEnv::from_process()).await?;
    let inspection = rehearse::checkpoint::inspect_store(&store).await?;
    std::fs::create_dir_all(dest)?;
    let t0 = Instant::now();
    let copy = sandbox::copy_checkpoint_for(&store, &inspection, targets, dest, options).await?;
    let copy_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let changes = sandbox::verify_source(&store, &copy).await?;
    let verify_s = t1.elapsed().as_secs_f64();
    anyhow::ensure!(changes.is_empty(), "the source changed: {changes:?}");
    Ok(format!(
        "files={} bytes={} copy_s={copy_s:.3} verify_s={verify_s:.3}",
        copy.files, copy.bytes
    ))
}
