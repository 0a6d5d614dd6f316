//! A PySpark job's directory: which of its files travel with the job into the sandbox (the
//! `.py` files beside it and its Python packages, recursively), which names beside it an
//! `import` could mean but that do not travel (the verdict of a `ModuleNotFoundError` names
//! them), and what the job's own code overrides of the command line (a `.master(…)` in the
//! source wins over spark-submit's `--master`). Read at load (the bounds are checked there,
//! before any container) and again when a trial stages the job.

use std::path::{Path, PathBuf};

use rehearse_store::safe_relative;

/// Most files the job's directory may ship (the `.py` files beside it and every file of its
/// packages): a job directory is a few modules, a larger count is a checkout or a data folder.
pub const MAX_JOB_DIR_FILES: usize = 2_000;

/// Most bytes the shipped files may hold together (64 MiB, the bound of one job file,
/// `userfile::MAX_JOB_BYTES`).
pub const MAX_JOB_DIR_BYTES: u64 = rehearse_base::userfile::MAX_JOB_BYTES;

/// Deepest directory below the job's directory walked (a package nested deeper is a mistake or
/// a loop of bind mounts, not a job).
pub const MAX_JOB_DIR_DEPTH: usize = 16;

/// Directory names never shipped: byte-code caches, version control, virtual environments and
/// tool caches. A directory holding `pyvenv.cfg` (any venv) is skipped too.
const SKIPPED_DIRS: &[&str] = &[
    "__pycache__",
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".ipynb_checkpoints",
    "node_modules",
    "site-packages",
];

/// The name of the zip of a job's modules, beside the job in the sandbox's `job/` (given to
/// spark-submit `--py-files`, for the executors).
pub const MODULES_ZIP: &str = "job-modules.zip";

/// One file that travels with the job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShippedFile {
    /// Its path below the job's directory, `/`-separated, a plain relative path
    /// (`store::safe_relative`): `util.py`, `lib/sub/m.py`.
    pub relative: String,
    /// Where it is on the host.
    pub path: PathBuf,
}

/// A name beside the job an `import` could mean that does not travel with it, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NotShipped {
    /// The module name (`lib` for a directory `lib/`).
    pub name: String,
    /// Why it stays behind, a fragment: `a directory without __init__.py`.
    pub why: String,
}

/// What of a PySpark job's directory travels with the job ([`JobDir::read`]).
#[derive(Debug, Clone, Default)]
pub struct JobDir {
    /// The job's directory.
    pub dir: PathBuf,
    /// The job file's own name (`app.py`).
    pub job_file: String,
    /// Every file that travels, sorted by `relative`: the `.py` files beside the job (the job
    /// itself too) and every file of each package (a directory holding `__init__.py`), without
    /// byte code and [`SKIPPED_DIRS`].
    pub files: Vec<ShippedFile>,
    /// Bytes of `files` together.
    pub bytes: u64,
    /// Top-level package names shipped (`lib`).
    pub packages: Vec<String>,
    /// Names beside the job that stay behind (directories without `__init__.py`, links leading
    /// out of the directory), sorted.
    pub not_shipped: Vec<NotShipped>,
}

impl JobDir {
    /// Reads the directory of the PySpark job at `job_file`. Links are followed only when they
    /// lead to a file inside the job's directory (a link to a directory is never walked, so no
    /// loop and no way out); FIFOs, sockets and devices are left out.
    ///
    /// # Errors
    /// One paragraph naming the directory and the fix: over [`MAX_JOB_DIR_FILES`] files or
    /// [`MAX_JOB_DIR_BYTES`] bytes, a name that is not a plain UTF-8 relative path, an
    /// unreadable directory.
    pub fn read(job_file: &Path) -> Result<JobDir, String> {
        let dir = match job_file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let root = std::fs::canonicalize(&dir).map_err(|e| {
            format!(
                "the job's directory {} cannot be read ({e}): check [job] file",
                dir.display()
            )
        })?;
        let mut out = JobDir {
            dir: dir.clone(),
            job_file: job_file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            ..JobDir::default()
        };
        let mut walk = Walk {
            root: &root,
            dir: &dir,
            out: &mut out,
        };
        for entry in walk.entries(&dir)? {
            let name = entry.name.clone();
            match entry.kind {
                Kind::File if name.ends_with(".py") => walk.ship(&entry.path, &name)?,
                Kind::File => {}
                Kind::Dir if skipped(&entry.path, &name) => {}
                Kind::Dir if entry.path.join("__init__.py").is_file() => {
                    walk.package(&entry.path, &name, 1)?;
                    walk.out.packages.push(name);
                }
                Kind::Dir if is_identifier(&name) => walk.out.not_shipped.push(NotShipped {
                    name,
                    why: "a directory without __init__.py (only packages travel with the job)"
                        .into(),
                }),
                Kind::Dir => {}
                Kind::LinkOut if is_identifier(module_name(&name)) => {
                    walk.out.not_shipped.push(NotShipped {
                        name: module_name(&name).to_string(),
                        why: "a link leading out of the job's directory (links are not followed out of it)"
                            .into(),
                    })
                }
                Kind::LinkOut | Kind::Other => {}
            }
        }
        out.files.sort_by(|a, b| a.relative.cmp(&b.relative));
        out.not_shipped.sort_by(|a, b| a.name.cmp(&b.name));
        // The zip of the job's modules is written into the same `job/` directory (breaker
        // pass, session 13: a package directory of that name passed load and failed staging).
        if let Some(f) = out.files.iter().find(|f| {
            f.relative == MODULES_ZIP || f.relative.starts_with(&format!("{MODULES_ZIP}/"))
        }) {
            return Err(format!(
                "the job's directory {} holds {}, the name rehearse gives the zip of the job's modules in the sandbox\n(hint: rename it)",
                dir.display(),
                f.relative
            ));
        }
        Ok(out)
    }

    /// The shipped files other than the job file itself: what goes into the `--py-files` zip
    /// the executors import from.
    pub fn modules(&self) -> impl Iterator<Item = &ShippedFile> {
        self.files.iter().filter(|f| f.relative != self.job_file)
    }

    /// The entry of [`JobDir::not_shipped`] for the top-level name of `module` (`lib` for
    /// `lib.sub.m`), if there is one.
    pub fn not_shipped_for(&self, module: &str) -> Option<&NotShipped> {
        let top = module.split('.').next().unwrap_or(module);
        self.not_shipped.iter().find(|n| n.name == top)
    }
}

/// A name without its `.py` (a module's name for a file).
fn module_name(name: &str) -> &str {
    name.strip_suffix(".py").unwrap_or(name)
}

/// Whether `name` can be a Python module name (an identifier): `lib`, `my_pkg`; not `data-1`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// Whether a directory is never shipped: a [`SKIPPED_DIRS`] name, a hidden directory, or a
/// virtual environment (`pyvenv.cfg`).
fn skipped(path: &Path, name: &str) -> bool {
    SKIPPED_DIRS.contains(&name) || name.starts_with('.') || path.join("pyvenv.cfg").exists()
}

enum Kind {
    File,
    Dir,
    /// A link to a file outside the job's directory, or to a directory.
    LinkOut,
    Other,
}

struct Entry {
    name: String,
    path: PathBuf,
    kind: Kind,
}

struct Walk<'a> {
    /// The job's directory, canonical (where links may lead).
    root: &'a Path,
    /// The job's directory as given (errors name it).
    dir: &'a Path,
    out: &'a mut JobDir,
}

impl Walk<'_> {
    /// The entries of `dir`, sorted by name; links resolved by the rule of [`JobDir::read`].
    fn entries(&self, dir: &Path) -> Result<Vec<Entry>, String> {
        let read = std::fs::read_dir(dir).map_err(|e| {
            format!(
                "the job's directory {} cannot be listed ({e}): check its permissions",
                dir.display()
            )
        })?;
        let mut entries = Vec::new();
        for e in read.flatten() {
            let path = e.path();
            let Some(name) = e.file_name().to_str().map(str::to_owned) else {
                // A name that is not UTF-8 cannot be a Python module name; files of a package
                // with one are refused where they would be shipped.
                if dir != self.dir {
                    return Err(self.unsafe_name(&path, "it is not valid UTF-8"));
                }
                continue;
            };
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let kind = if meta.file_type().is_symlink() {
                match std::fs::canonicalize(&path) {
                    // A link to a file of the job's directory that would travel by itself: not
                    // into a hidden or skipped directory (a `.hidden/token.py` got through the
                    // skip list by a link, breaker pass, session 13).
                    Ok(target)
                        if target.starts_with(self.root)
                            && target.is_file()
                            && !self.under_skipped(&target) =>
                    {
                        Kind::File
                    }
                    _ => Kind::LinkOut,
                }
            } else if meta.is_file() {
                Kind::File
            } else if meta.is_dir() {
                Kind::Dir
            } else {
                Kind::Other
            };
            entries.push(Entry { name, path, kind });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// Whether `target` (canonical, below the root) sits in a directory that never travels.
    fn under_skipped(&self, target: &Path) -> bool {
        let Ok(rel) = target.strip_prefix(self.root) else {
            return true;
        };
        let mut at = self.root.to_path_buf();
        let parents: Vec<_> = rel
            .parent()
            .map(|p| p.components().collect())
            .unwrap_or_default();
        for c in parents {
            at.push(c);
            let name = c.as_os_str().to_string_lossy();
            if skipped(&at, &name) {
                return true;
            }
        }
        false
    }

    /// Every file of the package at `dir` (named `relative` below the job's directory).
    fn package(&mut self, dir: &Path, relative: &str, depth: usize) -> Result<(), String> {
        if depth > MAX_JOB_DIR_DEPTH {
            return Err(format!(
                "the job's package directory {} is nested over {MAX_JOB_DIR_DEPTH} levels deep below {}: rehearse ships the job's packages with it and stops there\n(hint: flatten the package, or move what is not the job's code out of its directory)",
                dir.display(),
                self.dir.display()
            ));
        }
        for entry in self.entries(dir)? {
            let rel = format!("{relative}/{}", entry.name);
            match entry.kind {
                Kind::File if entry.name.ends_with(".pyc") || entry.name.ends_with(".pyo") => {}
                Kind::File => self.ship(&entry.path, &rel)?,
                Kind::Dir if skipped(&entry.path, &entry.name) => {}
                Kind::Dir => self.package(&entry.path, &rel, depth + 1)?,
                Kind::LinkOut | Kind::Other => {}
            }
        }
        Ok(())
    }

    /// Adds one file, within the bounds.
    fn ship(&mut self, path: &Path, relative: &str) -> Result<(), String> {
        safe_relative(relative).map_err(|e| self.unsafe_name(path, &e.reason))?;
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        self.out.bytes += size;
        self.out.files.push(ShippedFile {
            relative: relative.to_string(),
            path: path.to_path_buf(),
        });
        // Say which bound was crossed, with the count: "over 2000 files or 64 MiB" left the
        // user to count both (issue 25).
        let crossed = if self.out.files.len() > MAX_JOB_DIR_FILES {
            format!("over {MAX_JOB_DIR_FILES} files (rehearse's limit of files shipped with a job)")
        } else if self.out.bytes > MAX_JOB_DIR_BYTES {
            format!(
                "over {} MiB ({} bytes so far; rehearse's limit of bytes shipped with a job is {MAX_JOB_DIR_BYTES})",
                MAX_JOB_DIR_BYTES >> 20,
                self.out.bytes
            )
        } else {
            return Ok(());
        };
        Err(format!(
            "the job's directory {} ships {crossed} (the .py files beside the job and every file of its packages, the directories holding __init__.py; reached at {relative}): rehearse copies them into every sandbox\n(hint: keep the job and its own packages in a directory of their own, and move data, checkouts and virtual environments out of it)",
            self.dir.display(),
        ))
    }

    fn unsafe_name(&self, path: &Path, reason: &str) -> String {
        format!(
            "the job's package file {} cannot travel with the job: {reason}\n(hint: rename it, or move it out of the package directory below {})",
            path.display(),
            self.dir.display()
        )
    }
}

/// A `.master(…)`, `setMaster(…)`, `spark.master` key or `SparkContext(master, …)` in the job's Python source: Spark applies the code's
/// master over spark-submit's `--master` (SparkConf set in code wins over submit arguments,
/// docs/configuration.md "Dynamically Loading Spark Properties"), so the job would not run
/// where rehearse starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasterOverride {
    /// The file, relative to the job's directory.
    pub file: String,
    /// Its line, from 1.
    pub line: usize,
    /// The line's text, trimmed and clipped to 120 characters.
    pub text: String,
}

/// Every master set in code (see [`MasterOverride`]) in the shipped `.py` files of `dir`: code
/// only — a comment, a docstring or a string that merely mentions `.master(` is not one (issue
/// 25: the warning fired on `print("call .master(…) later")`), nor is reading the setting
/// (`spark.conf.get("spark.master")`). A file that cannot be read as text is passed over (the
/// check is a warning).
pub fn master_overrides(dir: &JobDir) -> Vec<MasterOverride> {
    use std::sync::OnceLock;
    static CALL: OnceLock<regex::Regex> = OnceLock::new();
    let call = CALL.get_or_init(|| {
        // On code whose string literals are blanked (`""`, see `python_code_lines`):
        // `.master(…)`, `setMaster(…)`, and `SparkContext("local[*]", …)` /
        // `SparkContext(master=…)`; the `spark.master` key is looked for apart.
        regex::Regex::new(r#"(?:\.master|\bsetMaster)\s*\(|\bSparkContext\s*\(\s*(?:master\s*=|")"#)
            .expect("master regex compiles")
    });
    let mut found = Vec::new();
    for f in dir.files.iter().filter(|f| f.relative.ends_with(".py")) {
        let Ok(text) = rehearse_base::userfile::read_text(&f.path, "job file", MAX_JOB_DIR_BYTES)
        else {
            continue;
        };
        for (i, (line, code)) in text.lines().zip(python_code_lines(&text)).enumerate() {
            if call.is_match(&code) || sets_the_master_key(&code) {
                let text: String = rehearse_base::text::sanitize(line.trim())
                    .chars()
                    .take(120)
                    .collect();
                found.push(MasterOverride {
                    file: f.relative.clone(),
                    line: i + 1,
                    text,
                });
            }
        }
    }
    found
}

/// Whether a line of blanked code names the `spark.master` key other than to read it
/// (`.config("spark.master", …)`, `conf.set(…)`, `{"spark.master": …}`, but not `.get(…)`).
fn sets_the_master_key(code: &str) -> bool {
    const KEY: &str = "\"spark.master\"";
    code.match_indices(KEY).any(|(at, _)| {
        let before: String = code[..at].chars().filter(|c| !c.is_whitespace()).collect();
        !before.ends_with("get(")
    })
}

/// The lines of Python source `text` as code only, one entry per line of `text.lines()`:
/// comments dropped and every string literal's text blanked to `""` — except a literal that is
/// exactly `spark.master`, kept as `"spark.master"`. Triple-quoted strings (docstrings) run over
/// lines; the literal is placed on the line that closes it. Escapes are skipped, so `"\""` is
/// one literal. A string prefix (`f`, `r`, `b`) stays as code before `""`.
fn python_code_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    // An open literal: its quote (`"`, `'`, `"""` or `'''`) and its text so far.
    let mut open: Option<(&'static str, String)> = None;
    for line in text.lines() {
        let mut code = String::new();
        let mut rest = line;
        loop {
            if let Some((quote, content)) = open.as_mut() {
                match closing(rest, quote) {
                    Some(end) => {
                        content.push_str(&rest[..end]);
                        code.push_str(if content == "spark.master" {
                            "\"spark.master\""
                        } else {
                            "\"\""
                        });
                        rest = &rest[end + quote.len()..];
                        open = None;
                    }
                    None => {
                        content.push_str(rest);
                        content.push('\n');
                        // A one-quote literal ends with its line unless continued with `\`.
                        if quote.len() == 1 && !rest.ends_with('\\') {
                            open = None;
                            code.push_str("\"\"");
                        }
                        break;
                    }
                }
            } else {
                let Some(at) = rest.find(['#', '"', '\'']) else {
                    code.push_str(rest);
                    break;
                };
                code.push_str(&rest[..at]);
                let tail = &rest[at..];
                if tail.starts_with('#') {
                    break;
                }
                let quote = ["\"\"\"", "\'\'\'", "\"", "\'"]
                    .into_iter()
                    .find(|q| tail.starts_with(q))
                    .expect("tail starts with a quote");
                open = Some((quote, String::new()));
                rest = &tail[quote.len()..];
            }
        }
        lines.push(code);
    }
    lines
}

/// Byte offset in `text` of the first unescaped `quote` (compared as bytes: `text` may hold
/// any UTF-8, and a quote is ASCII, so the offset is a char boundary).
fn closing(text: &str, quote: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
        } else if bytes[i..].starts_with(quote.as_bytes()) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A job directory as real jobs have it: the job, a helper beside it, a nested package with
    /// a data file, byte code, a directory without `__init__.py`, a venv and links (one out of
    /// the directory, one to a file inside it).
    fn job_dir() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let d = tmp.path();
        write(&d.join("app.py"), "import lib.sub.m\n");
        write(&d.join("util.py"), "X = 1\n");
        write(&d.join("lib/__init__.py"), "");
        write(&d.join("lib/sub/__init__.py"), "");
        write(&d.join("lib/sub/m.py"), "def f(): pass\n");
        write(&d.join("lib/sub/schema.json"), "{}\n");
        write(&d.join("lib/__pycache__/x.cpython-311.pyc"), "bytecode");
        write(&d.join("lib/sub/m.pyc"), "bytecode");
        write(&d.join("conf/settings.py"), "");
        write(&d.join(".venv/pyvenv.cfg"), "");
        write(&d.join(".venv/lib/__init__.py"), "");
        write(&d.join("env2/pyvenv.cfg"), "");
        write(&d.join("env2/__init__.py"), "");
        write(&outside.path().join("secret.py"), "TOKEN = 'x'\n");
        write(&outside.path().join("pkg/__init__.py"), "");
        std::os::unix::fs::symlink(outside.path().join("secret.py"), d.join("lib/leak.py"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path().join("pkg"), d.join("lib/sub/loop")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("pkg"), d.join("shared")).unwrap();
        std::os::unix::fs::symlink(d.join("util.py"), d.join("lib/util_link.py")).unwrap();
        let job = d.join("app.py");
        (tmp, outside, job)
    }

    #[test]
    fn packages_travel_with_the_job_without_byte_code_venvs_or_links_out() {
        let (_tmp, _outside, job) = job_dir();
        let dir = JobDir::read(&job).unwrap();
        let names: Vec<&str> = dir.files.iter().map(|f| f.relative.as_str()).collect();
        assert_eq!(
            names,
            [
                "app.py",
                "lib/__init__.py",
                "lib/sub/__init__.py",
                "lib/sub/m.py",
                "lib/sub/schema.json",
                "lib/util_link.py",
                "util.py",
            ]
        );
        assert_eq!(dir.packages, ["lib"]);
        assert_eq!(
            dir.not_shipped
                .iter()
                .map(|n| n.name.as_str())
                .collect::<Vec<_>>(),
            ["conf", "shared"]
        );
        assert!(dir
            .not_shipped_for("conf.settings")
            .unwrap()
            .why
            .contains("__init__.py"));
        assert!(dir.not_shipped_for("shared").unwrap().why.contains("link"));
        assert!(dir.not_shipped_for("lib").is_none());
        assert_eq!(
            dir.modules().count(),
            6,
            "the job itself is not a module to zip"
        );
    }

    /// Breaker pass, session 13: `pkg/linked_token.py -> ../.hidden/token.py` carried a file of
    /// a hidden directory, which never travels by itself; and a package directory named as the
    /// modules' zip passed load and failed staging.
    #[test]
    fn a_link_into_a_hidden_directory_stays_and_the_zips_name_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        write(&d.join("app.py"), "");
        write(&d.join("pkg/__init__.py"), "");
        write(&d.join(".hidden/token.py"), "TOKEN = 'x'");
        write(&d.join("pkg/real.py"), "");
        std::os::unix::fs::symlink(d.join(".hidden/token.py"), d.join("pkg/linked_token.py"))
            .unwrap();
        std::os::unix::fs::symlink(d.join("pkg/real.py"), d.join("pkg/alias.py")).unwrap();
        let dir = JobDir::read(&d.join("app.py")).unwrap();
        let names: Vec<&str> = dir.files.iter().map(|f| f.relative.as_str()).collect();
        assert_eq!(
            names,
            ["app.py", "pkg/__init__.py", "pkg/alias.py", "pkg/real.py"]
        );
        write(&d.join("job-modules.zip/__init__.py"), "");
        let e = JobDir::read(&d.join("app.py")).unwrap_err();
        assert!(e.contains("job-modules.zip"), "{e}");
    }

    #[test]
    fn a_package_over_the_bound_is_refused_naming_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("app.py"), "");
        write(&tmp.path().join("data/__init__.py"), "");
        for i in 0..MAX_JOB_DIR_FILES {
            write(&tmp.path().join(format!("data/f{i}.csv")), "");
        }
        let e = JobDir::read(&tmp.path().join("app.py")).unwrap_err();
        assert!(e.contains(&tmp.path().display().to_string()), "{e}");
        assert!(
            e.contains("over 2000 files (rehearse's limit of files") && !e.contains("MiB"),
            "{e}"
        );
    }

    /// Issue 25: the message named both bounds ("over 2000 files or 64 MiB"), not the one
    /// crossed. One sparse file over the byte bound names the bytes.
    #[test]
    fn a_package_over_the_byte_bound_names_that_bound() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("app.py"), "");
        write(&tmp.path().join("data/__init__.py"), "");
        let big = std::fs::File::create(tmp.path().join("data/blob.bin")).unwrap();
        big.set_len(MAX_JOB_DIR_BYTES + 1).unwrap();
        let e = JobDir::read(&tmp.path().join("app.py")).unwrap_err();
        assert!(
            e.contains("over 64 MiB (") && e.contains("blob.bin") && !e.contains("files ("),
            "{e}"
        );
    }

    #[test]
    fn a_package_nested_too_deep_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("app.py"), "");
        let mut p = tmp.path().join("deep");
        write(&p.join("__init__.py"), "");
        for i in 0..=MAX_JOB_DIR_DEPTH {
            p = p.join(format!("d{i}"));
        }
        write(&p.join("x.py"), "");
        let e = JobDir::read(&tmp.path().join("app.py")).unwrap_err();
        assert!(e.contains("nested over 16 levels"), "{e}");
    }

    #[test]
    fn a_package_file_with_a_backslash_is_refused_by_the_untrusted_name_rule() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("app.py"), "");
        write(&tmp.path().join("lib/__init__.py"), "");
        write(&tmp.path().join("lib/a\\b.py"), "");
        let e = JobDir::read(&tmp.path().join("app.py")).unwrap_err();
        assert!(e.contains("backslash") && e.contains("a\\b.py"), "{e}");
    }

    /// Issue 25: the warning fired on string literals and docstrings that mention `.master(`,
    /// and on reading the setting.
    #[test]
    fn master_mentioned_in_strings_or_read_is_not_a_master_set_in_code() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            &tmp.path().join("app.py"),
            concat!(
                "\"\"\"Run me.\n\n    Do not call .master(\"local\") here: spark-submit sets it.\n",
                "    SparkContext(\"local\") is the old way.\n\"\"\"\n",
                "print(\"set .master('x') with setMaster(…) # not code\")\n",
                "msg = 'it\\'s .master(\"y\")'\n",
                "m = spark.conf.get(\"spark.master\")\n",
                "log.info(f\"master is {m}\")  # .master(\n",
                "x = \"spark.master is set by submit\"\n",
                "spark = SparkSession.builder.config(\n    \"spark.master\", \"yarn\").getOrCreate()\n",
            ),
        );
        let dir = JobDir::read(&tmp.path().join("app.py")).unwrap();
        let lines: Vec<usize> = master_overrides(&dir).iter().map(|m| m.line).collect();
        assert_eq!(lines, [12], "only the config call sets the master");
    }

    #[test]
    fn master_set_in_code_is_found_with_file_and_line_but_not_in_comments() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            &tmp.path().join("app.py"),
            "from pyspark.sql import SparkSession\n# .master('local[*]') in a comment\nspark = (SparkSession.builder\n    .master(\"spark://spark-master:7077\")\n    .getOrCreate())\n",
        );
        write(&tmp.path().join("lib/__init__.py"), "");
        write(
            &tmp.path().join("lib/ctx.py"),
            "conf = SparkConf().setAppName('x').setMaster('local[4]')\n",
        );
        write(
            &tmp.path().join("lib/legacy.py"),
            "sc = SparkContext(\"local[2]\", \"legacy\")\nsc2 = SparkContext(master=m)\nspark = SparkSession.builder.config(\"spark.master\", \"yarn\").getOrCreate()\nsc3 = SparkContext(conf=conf)\nspark.conf.get('spark.app.name')\n",
        );
        let dir = JobDir::read(&tmp.path().join("app.py")).unwrap();
        let found = master_overrides(&dir);
        let legacy: Vec<usize> = found
            .iter()
            .filter(|m| m.file == "lib/legacy.py")
            .map(|m| m.line)
            .collect();
        assert_eq!(legacy, [1, 2, 3], "{found:?}");
        let found: Vec<MasterOverride> = found
            .into_iter()
            .filter(|m| m.file != "lib/legacy.py")
            .collect();
        assert_eq!(
            found,
            [
                MasterOverride {
                    file: "app.py".into(),
                    line: 4,
                    text: ".master(\"spark://spark-master:7077\")".into()
                },
                MasterOverride {
                    file: "lib/ctx.py".into(),
                    line: 1,
                    text: "conf = SparkConf().setAppName('x').setMaster('local[4]')".into()
                },
            ]
        );
    }
}
