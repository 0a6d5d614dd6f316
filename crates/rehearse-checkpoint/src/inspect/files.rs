//! The listing pass of `inspect`: counts files, side files and leftovers, and reports links,
//! special files, unlisted directories and `.crc` side files whose file is gone.

use super::*;

impl Inspector {
    /// Counts files, side files and leftovers; reports links, special files, unlisted directories
    /// and `.crc` side files whose file is gone.
    pub(super) fn scan_files(&mut self) -> FileSummary {
        let FileScan {
            mut summary,
            mut orphans,
            spark_crc,
            mut links,
            specials,
        } = scan_entries(&self.listing.entries);
        self.specials.extend(specials);
        if let Some(file) = spark_crc {
            self.observe("spark-crc-files", &file, false);
        }
        summary.symlinks.sort();
        summary.tmp_files.sort();
        orphans.sort();
        links.sort_by(|a, b| a.0.cmp(&b.0));
        self.report_links(links);
        for tmp in summary.tmp_files.clone() {
            self.finding(
                Severity::Warning,
                "tmp-file-left",
                Some(&tmp),
                format!("{tmp} is a temporary file left by an interrupted write (CheckpointFileManager.createAtomic); Spark ignores it, it is safe to delete in a copy"),
            );
        }
        self.report_orphan_crcs(&orphans);
        self.report_unlisted_dirs();
        summary
    }

    /// One warning per symbolic link (sorted by path), saying what it means for Spark and for a
    /// copy. Links to special files are reported with the special files.
    pub(super) fn report_links(&mut self, links: Vec<(String, LinkTarget)>) {
        for (link, target) in links {
            let (code, message) = match target {
                LinkTarget::File => ("symlink-to-file", format!("{link} is a symbolic link to a regular file: Spark reads through it, and so did rehearse; rehearse run's sandbox copies the file it points at, but other copies that skip or keep links (cp -r, hdfs dfs -cp) lose it: replace the link with a copy of its target")),
                LinkTarget::Dir => ("symlink-not-followed", format!("{link} is a symbolic link to a directory; rehearse does not walk links inside a checkpoint (they can lead out of it, or in a circle), so what it holds was not inspected and is not counted missing either; replace the link with the directory to have it checked")),
                LinkTarget::Broken => ("symlink-not-followed", format!("{link} is a symbolic link to nothing (dangling, a loop, or unreadable): Spark cannot read it either; restore what it pointed to, or remove the link")),
                // Reported with the special files.
                LinkTarget::Other => continue,
            };
            self.finding(Severity::Warning, code, Some(&link), message);
        }
    }

    /// One warning for `.x.crc` side files whose `x` is gone (sorted; the first one named).
    pub(super) fn report_orphan_crcs(&mut self, orphans: &[(String, String)]) {
        let Some((first_crc, first_target)) = orphans.first() else {
            return;
        };
        let more = if orphans.len() > 1 {
            format!(" ({} such side files in all)", orphans.len())
        } else {
            String::new()
        };
        self.finding(
            Severity::Warning,
            "crc-without-file",
            Some(first_target),
            format!("{first_crc} exists but {first_target} does not: the file was deleted after Spark wrote it{more}"),
        );
    }

    /// Directories the loader could not list: an error under the logs and state, else a warning.
    pub(super) fn report_unlisted_dirs(&mut self) {
        for (dir, err) in std::mem::take(&mut self.listing.unlisted) {
            let critical = TOP_LEVEL
                .iter()
                .any(|t| dir == *t || dir.starts_with(&format!("{t}/")));
            self.finding(
                if critical {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                "dir-unreadable",
                Some(&dir),
                format!("cannot list {dir}: {err}; what it holds was not inspected"),
            );
        }
    }

    /// Special files no specific check reported (one Spark does not read on restart, or one
    /// outside the logs and state): a warning each.
    pub(super) fn report_specials(&mut self) {
        for rel in std::mem::take(&mut self.specials) {
            let reported = self
                .findings
                .iter()
                .any(|f| f.code == "not-a-regular-file" && f.file.as_deref() == Some(&rel));
            if !reported {
                self.finding(
                    Severity::Warning,
                    "not-a-regular-file",
                    Some(&rel),
                    format!("{rel} is not a regular file or directory (a FIFO, socket or device, or a link to one) and was not opened; Spark does not need it on restart, but it has no place in a checkpoint: remove it"),
                );
            }
        }
    }
}

/// What one pass over the listing found, before any finding is made of it.
#[derive(Default)]
pub(super) struct FileScan {
    summary: FileSummary,
    /// `.x.crc` side files whose `x` is gone: (side file, missing file).
    orphans: Vec<(String, String)>,
    /// The first Spark-written `.crc` file (not a Hadoop side file): a version marker.
    spark_crc: Option<String>,
    links: Vec<(String, LinkTarget)>,
    /// FIFOs, sockets, devices and links to them, in listing order.
    specials: Vec<String>,
}

/// Counts and collects what [`Inspector::scan_files`] reports, one directory at a time.
pub(super) fn scan_entries(entries: &[Entry]) -> FileScan {
    let mut scan = FileScan::default();
    // The loader lists one directory completely before the next, so the entries of a
    // directory are contiguous: check `.x.crc` side files against their own directory only.
    let mut start = 0;
    while start < entries.len() {
        let dir = parent(&entries[start].rel);
        let end = entries[start..]
            .iter()
            .position(|e| parent(&e.rel) != dir)
            .map_or(entries.len(), |n| start + n);
        scan_dir(&mut scan, dir, &entries[start..end]);
        start = end;
    }
    scan
}

/// Adds the entries of one directory (`dir`, all of its entries) to the scan.
pub(super) fn scan_dir(scan: &mut FileScan, dir: &str, group: &[Entry]) {
    let names: HashSet<&str> = group
        .iter()
        .filter(|e| e.kind.is_file_like())
        .map(|e| file_name(&e.rel))
        .collect();
    for entry in group {
        let name = file_name(&entry.rel);
        if let EntryKind::Symlink(target) = entry.kind {
            scan.summary.symlinks.push(entry.rel.clone());
            scan.links.push((entry.rel.clone(), target));
        }
        if entry.kind.is_special() {
            scan.specials.push(entry.rel.clone());
        }
        if entry.kind != EntryKind::File {
            continue;
        }
        scan.summary.total += 1;
        if let Some(target) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".crc")) {
            scan.summary.crc_sidecars += 1;
            if !names.contains(target) {
                let target = if dir.is_empty() {
                    target.to_string()
                } else {
                    format!("{dir}/{target}")
                };
                scan.orphans.push((entry.rel.clone(), target));
            }
        } else if name.starts_with('.') && name.ends_with(".tmp") {
            scan.summary.tmp_files.push(entry.rel.clone());
        } else if name.ends_with(".crc") && scan.spark_crc.is_none() {
            scan.spark_crc = Some(entry.rel.clone());
        }
    }
}

pub(super) fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

pub(super) fn file_name(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, name)| name)
}
