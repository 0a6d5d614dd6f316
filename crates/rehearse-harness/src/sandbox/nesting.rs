//! Refusing a sandbox parent (the report dir) inside the source checkpoint, or a source
//! checkpoint inside the report dir, before anything starts (issue 11 §3). A copy into its own
//! source copies itself until a path is too long, writing thousands of files into the
//! production checkpoint on the way.

use std::path::{Component, Path, PathBuf};

use super::SandboxError;

/// Refuses the cache directory `cache` (where trials keep their evidence, `<cache>/reports/`,
/// and generated checkpoints go) inside `source`: evidence would be written into the production
/// checkpoint (breaker pass, session 13: `REHEARSE_CACHE_DIR=<checkpoint>/cache` was accepted,
/// while the same through `--report-dir` is refused).
///
/// # Errors
/// [`SandboxError::Nested`] naming both directories and the variables that choose the cache.
pub fn refuse_cache_inside(source: &Path, cache: &Path) -> Result<(), SandboxError> {
    let Ok(src) = source.canonicalize() else {
        return Ok(());
    };
    if resolve(cache).starts_with(&src) {
        return Err(SandboxError::Nested {
            message: format!(
                "the cache directory {} is inside the source checkpoint {}: each trial keeps its driver log and report there, which would write into the production checkpoint, which rehearse only ever reads; nothing was written\n(hint: point REHEARSE_CACHE_DIR (or REHEARSE_CACHE, XDG_CACHE_HOME) at a directory outside {})",
                cache.display(),
                source.display(),
                source.display()
            ),
        });
    }
    Ok(())
}

/// Refuses `sandbox_parent` inside `source` (every copy would be written into the checkpoint),
/// and, when the parent was given explicitly (`--report-dir`, `explicit`), `source` inside it
/// or equal to it. Paths are compared after resolving links and `..` (a parent that does not
/// exist yet is resolved from its nearest existing ancestor). A source that does not exist is
/// left to the steps that read it.
///
/// # Errors
/// [`SandboxError::Nested`], a one-paragraph error naming both directories and the fix.
pub fn refuse_nesting(
    source: &Path,
    sandbox_parent: &Path,
    explicit: bool,
) -> Result<(), SandboxError> {
    let Ok(src) = source.canonicalize() else {
        return Ok(());
    };
    let parent = resolve(sandbox_parent);
    if parent.starts_with(&src) {
        return Err(SandboxError::Nested {
            message: format!(
                "the sandbox directory {} is inside the source checkpoint {}: every trial would copy the checkpoint into itself and write into the production checkpoint, which rehearse only ever reads; nothing was written\n(hint: pass --report-dir with a directory outside {}, or leave it out to use the system temp dir)",
                sandbox_parent.display(),
                source.display(),
                source.display()
            ),
        });
    }
    if explicit && src.starts_with(&parent) {
        return Err(SandboxError::Nested {
            message: format!(
                "the source checkpoint {} is inside the report dir {}, where rehearse creates and removes sandboxes; nothing was written\n(hint: pass --report-dir with a directory that does not contain the checkpoint, e.g. a new empty one)",
                source.display(),
                sandbox_parent.display()
            ),
        });
    }
    Ok(())
}

/// `path` absolute, `.` and `..` removed, links resolved in the part that exists (the rest
/// appended as written).
/// Refuses an output directory (`flag`, e.g. `--out-dir`) inside the source checkpoint: what
/// rehearse writes there would land in the production checkpoint, which it only ever reads
/// (breaker pass: `rehearse capture CK --out-dir CK` added `CK/events.jsonl`).
///
/// # Errors
/// [`SandboxError::Nested`] naming both directories and the fix.
pub fn refuse_output_inside(source: &Path, out: &Path, flag: &str) -> Result<(), SandboxError> {
    let Ok(src) = source.canonicalize() else {
        return Ok(());
    };
    if resolve(out).starts_with(&src) {
        return Err(SandboxError::Nested {
            message: format!(
                "{flag} {} is inside the source checkpoint {}: rehearse only ever reads a checkpoint, and would write there; nothing was written\n(hint: pass {flag} with a directory outside {})",
                out.display(),
                source.display(),
                source.display()
            ),
        });
    }
    Ok(())
}

fn resolve(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut lexical = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other.as_os_str()),
        }
    }
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return lexical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_inside_the_source_is_refused() {
        let src = tempfile::tempdir().unwrap();
        let err = refuse_cache_inside(src.path(), &src.path().join("cache")).unwrap_err();
        assert!(err.to_string().contains("REHEARSE_CACHE_DIR"), "{err}");
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(refuse_cache_inside(src.path(), elsewhere.path()).is_ok());
    }

    #[test]
    fn a_report_dir_inside_the_source_is_refused_and_nothing_is_written() {
        let src = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(src.path().join("offsets")).unwrap();
        std::fs::write(src.path().join("offsets/0"), "v1\n{}\n").unwrap();
        let before: Vec<_> = walkdir::WalkDir::new(src.path())
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .collect();
        let inside = src.path().join("reports/new");
        let err = refuse_nesting(src.path(), &inside, true).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("inside the source checkpoint") && text.contains("--report-dir"),
            "{text}"
        );
        // The sandbox itself refuses too, whoever calls it.
        let err = crate::sandbox::Sandbox::create(src.path(), Some(&inside), "nested").unwrap_err();
        assert!(matches!(err, SandboxError::Nested { .. }), "{err}");
        let after: Vec<_> = walkdir::WalkDir::new(src.path())
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .collect();
        assert_eq!(before, after);
        // Through a `..` and a link as well.
        let link = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(src.path(), link.path().join("ck")).unwrap();
        assert!(refuse_nesting(&link.path().join("ck"), &src.path().join("x/../y"), true).is_err());
        assert!(refuse_nesting(src.path(), src.path(), false).is_err());
    }

    #[test]
    fn a_source_inside_an_explicit_report_dir_is_refused_siblings_are_fine() {
        let reports = tempfile::tempdir().unwrap();
        let src = reports.path().join("ckpt");
        std::fs::create_dir_all(&src).unwrap();
        let err = refuse_nesting(&src, reports.path(), true).unwrap_err();
        assert!(err.to_string().contains("inside the report dir"), "{err}");
        // The default temp dir may hold sources (only an explicit report dir is refused).
        assert!(refuse_nesting(&src, reports.path(), false).is_ok());
        let other = tempfile::tempdir().unwrap();
        assert!(refuse_nesting(&src, other.path(), true).is_ok());
        assert!(refuse_nesting(Path::new("/no/such/checkpoint"), other.path(), true).is_ok());
    }
}
