//! How many trials this machine runs at once: one rule for `rehearse matrix --jobs` and
//! `rehearse run --jobs`.

/// Memory kept back for the Kafka broker(s), the host and Docker, MiB.
pub const RESERVED_MEMORY_MB: u64 = 2048;

/// `--jobs` default: as many trials (matrix cells, run targets) as free memory holds at `spark_memory_mb` each after
/// [`RESERVED_MEMORY_MB`] (MemAvailable of /proc/meminfo), but no more than the CPU count
/// (at least 2): a Spark driver is CPU-bound while it starts, and more drivers than cores only
/// stretch every trial towards its timeout. Without /proc/meminfo: 2.
pub fn default_jobs(spark_memory_mb: u64) -> usize {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2);
    let by_memory = available_memory_mb()
        .map(|mb| (mb.saturating_sub(RESERVED_MEMORY_MB) / spark_memory_mb.max(256)) as usize)
        .unwrap_or(2);
    by_memory.clamp(1, cpus)
}

/// MemAvailable in MiB, from /proc/meminfo (Linux).
fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
