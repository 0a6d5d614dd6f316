//! Where rehearse keeps what it reuses between runs: the one place the cache roots are
//! computed. Reads environment variables and joins paths; creates and removes nothing.
//!
//! There are two roots, and they differ on purpose:
//!
//! | root | used for | `$REHEARSE_CACHE_DIR` | then | no home known |
//! |---|---|---|---|---|
//! | [`root`] | generated checkpoints ([`checkpoints`]), local-runtime installs ([`local`]) | honoured first | `$REHEARSE_CACHE`, `$XDG_CACHE_HOME/rehearse`, `~/.cache/rehearse` | `<tmp>/.cache/rehearse` |
//! | [`images_root`] | image-build downloads and logs ([`build_logs`]), job dependencies ([`dependencies`], [`maven_repository`]) | ignored | `$REHEARSE_CACHE`, `$XDG_CACHE_HOME/rehearse`, `~/.cache/rehearse` | `<tmp>` |
//!
//! [`images_root`] is the root the image recipes compute for themselves (`CACHE` in
//! `docker/common.sh`, which knows only `$REHEARSE_CACHE`): the Rust side writes the build logs
//! next to the recipes' downloads. `$REHEARSE_CACHE_DIR` moves only what rehearse itself caches
//! (the integration tests point it into `target/` and still share the downloads).

use std::ffi::OsString;
use std::path::PathBuf;

/// The cache root of generated checkpoints and local-runtime installs: `$REHEARSE_CACHE_DIR`,
/// else `$REHEARSE_CACHE` (empty values are skipped), else `$XDG_CACHE_HOME/rehearse`, else
/// `~/.cache/rehearse` (with no home: under the temp dir). README documents this order.
pub fn root() -> PathBuf {
    root_in(&|var| std::env::var_os(var))
}

/// [`root`] with the environment passed in.
fn root_in(env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    for var in ["REHEARSE_CACHE_DIR", "REHEARSE_CACHE"] {
        if let Some(d) = env(var).filter(|d| !d.is_empty()) {
            return PathBuf::from(d);
        }
    }
    if let Some(d) = env("XDG_CACHE_HOME").and_then(absolute) {
        return d.join("rehearse");
    }
    env("HOME")
        .and_then(absolute)
        .unwrap_or_else(std::env::temp_dir)
        .join(".cache/rehearse")
}

/// An environment path taken only when absolute: the XDG base-directory spec says to ignore an
/// empty or relative `XDG_CACHE_HOME`, and `HOME=` made the cache `./.cache/rehearse` in
/// whatever directory rehearse ran (breaker pass, session 13).
fn absolute(value: OsString) -> Option<PathBuf> {
    let p = PathBuf::from(value);
    p.is_absolute().then_some(p)
}

/// Checks that the cache roots ([`root`], [`images_root`]) are directories or do not exist yet:
/// a root that is a file (`REHEARSE_CACHE=~/notes.txt`) would throw away a finished generation
/// when it is stored, and fail image builds. `Err` names the path, the variables that choose it
/// and the fix.
pub fn check_roots() -> Result<(), String> {
    check_roots_in(&|var| std::env::var_os(var))
}

fn check_roots_in(env: &dyn Fn(&str) -> Option<OsString>) -> Result<(), String> {
    for (root, vars) in [
        (
            root_in(env),
            "$REHEARSE_CACHE_DIR, else $REHEARSE_CACHE, else $XDG_CACHE_HOME/rehearse",
        ),
        (
            images_root_in(env),
            "$REHEARSE_CACHE, else $XDG_CACHE_HOME/rehearse",
        ),
    ] {
        if let Some(blocker) = root
            .ancestors()
            .find(|a| a.exists())
            .filter(|a| !a.is_dir())
        {
            return Err(format!(
                "the cache directory {} cannot be used: {} is not a directory (the cache is {vars}, else ~/.cache/rehearse)\n  hint: point REHEARSE_CACHE (or REHEARSE_CACHE_DIR) at a directory, or unset it",
                root.display(),
                blocker.display()
            ));
        }
    }
    Ok(())
}

/// Generated source checkpoints: `<root>/checkpoints`, one `<scenario>-<version>-<key>/` each.
pub fn checkpoints() -> PathBuf {
    root().join("checkpoints")
}

/// Trials' kept evidence (driver log, event log, `trial.json`) when no `--report-dir` is given:
/// `<root>/reports`, one `<sandbox name>/` each.
pub fn reports() -> PathBuf {
    root().join("reports")
}

/// Spark and Kafka installed for the local runtime: `<root>/local`.
pub fn local() -> PathBuf {
    root().join("local")
}

/// The root the image recipes cache their downloads under (`docker/common.sh`):
/// `$REHEARSE_CACHE`, else `$XDG_CACHE_HOME/rehearse`, else `~/.cache/rehearse`, else the temp
/// dir. Not moved by `$REHEARSE_CACHE_DIR` (see the module doc).
pub fn images_root() -> PathBuf {
    images_root_in(&|var| std::env::var_os(var))
}

/// [`images_root`] with the environment passed in.
fn images_root_in(env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    env("REHEARSE_CACHE")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            env("XDG_CACHE_HOME")
                .and_then(absolute)
                .map(|d| d.join("rehearse"))
        })
        .or_else(|| {
            env("HOME")
                .and_then(absolute)
                .map(|d| d.join(".cache/rehearse"))
        })
        .unwrap_or_else(std::env::temp_dir)
}

/// Job dependencies resolved on the host (`[job] packages` jars per coordinate, `requirements`
/// environments per file hash and Python): `<images root>/deps`, next to the Maven repository
/// (`m2/`) the image recipes and the package resolution share. Not moved by
/// `$REHEARSE_CACHE_DIR`, like the images' downloads.
pub fn dependencies() -> PathBuf {
    images_root().join("deps")
}

/// The local Maven repository the image recipes (`docker/common.sh`, `maven_copy`) and the job's
/// `packages` resolve into: `<images root>/m2`.
pub fn maven_repository() -> PathBuf {
    images_root().join("m2")
}

/// Where the whole output of image builds and local installs goes: `<images root>/logs`.
pub fn build_logs() -> PathBuf {
    images_root().join("logs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_root_that_is_a_file_is_refused_with_the_variable_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "x").unwrap();
        let f = file.to_str().unwrap();
        let e = check_roots_in(&env(&[("REHEARSE_CACHE", f)])).unwrap_err();
        assert!(
            e.contains("notes.txt") && e.contains("REHEARSE_CACHE"),
            "{e}"
        );
        let under = format!("{f}/cache");
        let e = check_roots_in(&env(&[("REHEARSE_CACHE_DIR", &under)])).unwrap_err();
        assert!(e.contains("notes.txt is not a directory"), "{e}");
        let ok = dir.path().join("new").to_str().unwrap().to_string();
        check_roots_in(&env(&[("REHEARSE_CACHE", &ok)])).unwrap();
    }

    /// Breaker pass, session 13: `XDG_CACHE_HOME=` made the cache `./rehearse` and `HOME=`
    /// `./.cache/rehearse`, in whatever directory rehearse ran; an empty or relative value is
    /// ignored, as the XDG spec says.
    #[test]
    fn an_empty_or_relative_xdg_cache_home_or_home_is_ignored() {
        for (xdg, home, want) in [
            ("", "/home/u", "/home/u/.cache/rehearse"),
            ("rel/cache", "/home/u", "/home/u/.cache/rehearse"),
            ("/x/cache", "/home/u", "/x/cache/rehearse"),
        ] {
            let vars = [("XDG_CACHE_HOME", xdg), ("HOME", home)];
            assert_eq!(root_in(&env(&vars)), PathBuf::from(want), "{xdg:?}");
            assert_eq!(images_root_in(&env(&vars)), PathBuf::from(want), "{xdg:?}");
        }
        let no_home = [("HOME", "")];
        assert!(root_in(&env(&no_home)).is_absolute());
        assert!(images_root_in(&env(&no_home)).is_absolute());
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_cache_root_follows_the_documented_order() {
        let all = [
            ("REHEARSE_CACHE_DIR", "/dir"),
            ("REHEARSE_CACHE", "/cache"),
            ("XDG_CACHE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(root_in(&env(&all)), PathBuf::from("/dir"));
        assert_eq!(root_in(&env(&all[1..])), PathBuf::from("/cache"));
        assert_eq!(root_in(&env(&all[2..])), PathBuf::from("/xdg/rehearse"));
        assert_eq!(
            root_in(&env(&all[3..])),
            PathBuf::from("/home/u/.cache/rehearse")
        );
        let empty = [("REHEARSE_CACHE_DIR", ""), ("REHEARSE_CACHE", "/cache")];
        assert_eq!(root_in(&env(&empty)), PathBuf::from("/cache"));
    }

    #[test]
    fn the_images_root_ignores_rehearse_cache_dir() {
        let all = [
            ("REHEARSE_CACHE_DIR", "/dir"),
            ("REHEARSE_CACHE", "/cache"),
            ("XDG_CACHE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(images_root_in(&env(&all)), PathBuf::from("/cache"));
        assert_eq!(
            images_root_in(&env(&all[2..])),
            PathBuf::from("/xdg/rehearse")
        );
        assert_eq!(
            images_root_in(&env(&all[3..])),
            PathBuf::from("/home/u/.cache/rehearse")
        );
        assert_eq!(images_root_in(&env(&[])), std::env::temp_dir());
    }
}
