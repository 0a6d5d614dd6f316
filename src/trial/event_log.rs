//! Tailing Spark's event log while the driver runs; reads only, never blocks.

use std::path::PathBuf;

/// Follows the newest event-log file in a directory (Spark writes `<app-id>.inprogress`,
/// renamed when the application ends), returning complete new lines.
pub(super) struct EventLogTail {
    dir: PathBuf,
    file: Option<PathBuf>,
    offset: u64,
}

impl EventLogTail {
    /// Follows the event log Spark writes into `dir` (nothing is read yet).
    pub(super) fn new(dir: PathBuf) -> EventLogTail {
        EventLogTail {
            dir,
            file: None,
            offset: 0,
        }
    }

    /// The complete lines written since the last call (none while no file exists yet).
    pub(super) fn read_new(&mut self) -> Vec<String> {
        use std::io::{Read, Seek, SeekFrom};
        if self.file.as_ref().is_none_or(|f| !f.exists()) {
            let stem = self
                .file
                .as_ref()
                .and_then(|f| f.file_stem())
                .map(|s| s.to_os_string());
            let found = std::fs::read_dir(&self.dir).ok().and_then(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .find(|p| {
                        stem.as_ref()
                            .is_none_or(|s| p.file_stem() == Some(s) || p.file_name() == Some(s))
                    })
            });
            if found.is_none() {
                return Vec::new();
            }
            self.file = found;
        }
        let Some(path) = &self.file else {
            return Vec::new();
        };
        let Ok(mut f) = std::fs::File::open(path) else {
            return Vec::new();
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() {
            return Vec::new();
        }
        let Some(last_newline) = buf.iter().rposition(|b| *b == b'\n') else {
            return Vec::new();
        };
        self.offset += last_newline as u64 + 1;
        String::from_utf8_lossy(&buf[..last_newline])
            .lines()
            .map(str::to_string)
            .collect()
    }
}
