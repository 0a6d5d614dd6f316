//! Where a checkpoint lives: a [`CheckpointLocation`] parsed from what the user typed (a plain
//! path or a URL). Pure: no I/O, no environment. Credentials never belong in a location, and a
//! URL carrying a query string (where SAS tokens hide) is refused without being echoed.

use super::names::UnsafeName;
use std::fmt;
use std::path::{Path, PathBuf};

use super::error::StoreError;

/// A checkpoint's root, local or remote. Prefixes and paths have no leading or trailing `/`
/// (an empty prefix is the bucket's root).
///
/// | typed | variant |
/// |---|---|
/// | `/data/ckpt`, `ckpt`, `file:///data/ckpt` | [`Local`](Self::Local) |
/// | `s3://bucket/prefix` (also `s3a://`, `s3n://`, as Spark spells them) | [`S3`](Self::S3) |
/// | `gs://bucket/prefix` | [`Gcs`](Self::Gcs) |
/// | `az://container/prefix` (account from the environment) | [`AzureBlob`](Self::AzureBlob) |
/// | `wasbs://container@account.blob.core.windows.net/prefix` | [`AzureBlob`](Self::AzureBlob) |
/// | `abfss://filesystem@account.dfs.core.windows.net/prefix` (ADLS Gen2) | [`AzureDataLake`](Self::AzureDataLake) |
/// | `hdfs://namenode:8020/path` (read through WebHDFS) | [`Hdfs`](Self::Hdfs) |
/// | `webhdfs://namenode:9870/path` (the port is the HTTP port) | [`Hdfs`](Self::Hdfs) |
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointLocation {
    /// A directory on this machine, as typed (relative paths stay relative).
    Local {
        /// The directory.
        path: PathBuf,
    },
    /// An S3 (or S3-compatible: MinIO, Ceph) bucket and key prefix.
    S3 {
        /// Bucket name.
        bucket: String,
        /// Key prefix without leading or trailing `/`.
        prefix: String,
    },
    /// A Google Cloud Storage bucket and object prefix.
    Gcs {
        /// Bucket name.
        bucket: String,
        /// Object prefix without leading or trailing `/`.
        prefix: String,
    },
    /// An Azure Blob Storage container (also readable on ADLS Gen2 accounts).
    AzureBlob {
        /// Storage account, when the URL names it (`wasbs://`); `az://` takes it from the environment.
        account: Option<String>,
        /// Container name.
        container: String,
        /// Blob prefix without leading or trailing `/`.
        prefix: String,
    },
    /// An ADLS Gen2 filesystem (hierarchical namespace), read through the dfs endpoint.
    AzureDataLake {
        /// Storage account.
        account: String,
        /// Filesystem (container) name.
        filesystem: String,
        /// Path without leading or trailing `/`.
        prefix: String,
    },
    /// An HDFS directory, read through the NameNode's WebHDFS REST API.
    Hdfs {
        /// NameNode host.
        host: String,
        /// The port the URL names: the RPC port for `hdfs://` (not used to connect), the HTTP
        /// port for `webhdfs://`.
        port: Option<u16>,
        /// True for `webhdfs://` (the port is WebHDFS's), false for `hdfs://`.
        port_is_http: bool,
        /// Absolute path without leading or trailing `/`.
        path: String,
    },
}

/// Whether `text` is to be read as a URL: it holds `://` anywhere (`s3://b/x`, `file:///x`,
/// `http://localhost:4443`; not `/tmp/x`, `localhost:4443`). The one rule of rehearse for
/// "is it a URL": a checkpoint argument ([`CheckpointLocation::looks_like_url`]), an emulator
/// host given with or without its scheme, a pip requirement that is a direct URL reference.
pub fn looks_like_url(text: &str) -> bool {
    text.contains("://")
}

impl CheckpointLocation {
    /// Parses what the user typed: a URL with a known scheme, else a local path.
    ///
    /// # Errors
    /// [`StoreError::BadLocation`] for an unknown scheme, a missing bucket/container/host, a
    /// `..` segment, a query string or fragment, or an `abfss://`/`wasbs://` authority that is not
    /// `name@account.<dfs|blob>.<suffix>`.
    pub fn parse(input: &str) -> Result<Self, StoreError> {
        Self::parse_parts(input.trim()).map_err(|Refusal(reason, hint)| StoreError::BadLocation {
            input: without_query(input),
            reason,
            hint,
        })
    }

    /// `parse` without the error wrapping: scheme dispatch, then one function per URL family.
    fn parse_parts(input: &str) -> Result<Self, Refusal> {
        if input.is_empty() {
            return Err(refuse(
                "it is empty",
                "give a directory or a URL such as s3://bucket/prefix",
            ));
        }
        let Some((scheme, rest)) = input.split_once("://") else {
            return Ok(Self::Local {
                path: PathBuf::from(input),
            });
        };
        // Whichever comes first names the part: `s3://b/p#x?y` holds a fragment.
        match rest.find(['?', '#']).map(|i| &rest[i..i + 1]) {
            Some("?") => {
                return Err(refuse(
                    "a query string (`?…`) is not part of a checkpoint location",
                    "remove it; pass credentials (SAS tokens, keys) through the environment, never in the URL",
                ))
            }
            Some(_) => {
                return Err(refuse(
                    "a fragment (`#…`) is not part of a checkpoint location (it is never sent to the server)",
                    "remove the `#` and what follows it",
                ))
            }
            None => {}
        }
        let scheme = scheme.to_ascii_lowercase();
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        // `user:password@`: a secret typed into the URL would be echoed in messages, reports and
        // scenarios. Refused for every scheme (Azure's `container@account` has no `:`), and
        // HDFS takes no user in the URL at all.
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            if userinfo.contains(':') || matches!(scheme.as_str(), "hdfs" | "webhdfs") {
                return Err(refuse(
                    "credentials in the URL (user:password@host) are not accepted",
                    "remove them from the URL and pass credentials through the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT_KEY …; see the README)",
                ));
            }
        }
        let path = clean_path(path).map_err(|r| refuse(r, "remove the `..` segments"))?;
        match scheme.as_str() {
            "file" => Self::file(authority, &path),
            "s3" | "s3a" | "s3n" | "gs" | "az" => Self::bucket(&scheme, authority, path),
            "abfs" | "abfss" | "wasb" | "wasbs" => Self::azure(&scheme, authority, path),
            "hdfs" | "webhdfs" => Self::hdfs(&scheme, authority, path),
            other => Err(refuse(
                &format!("the scheme {other}:// is not supported"),
                "use a local path, file://, s3://, gs://, az://, wasbs://, abfss:// or hdfs://",
            )),
        }
    }

    /// `file:///abs/path` (or `file://localhost/abs/path`).
    fn file(authority: &str, path: &str) -> Result<Self, Refusal> {
        if !(authority.is_empty() || authority == "localhost") {
            return Err(refuse(
                "a file:// URL names no remote host",
                "write file:///absolute/path (three slashes) or a plain path",
            ));
        }
        Ok(Self::Local {
            path: PathBuf::from(format!("/{path}")),
        })
    }

    /// `s3://`, `s3a://`, `s3n://`, `gs://`, `az://`: `SCHEME://bucket/prefix`.
    fn bucket(scheme: &str, authority: &str, prefix: String) -> Result<Self, Refusal> {
        if authority.is_empty() {
            return Err(refuse(
                "the bucket (or container) name is missing",
                "write SCHEME://bucket/prefix",
            ));
        }
        if authority.contains('@') || authority.contains(':') {
            return Err(refuse(
                "the bucket (or container) name holds `@` or `:`",
                "write SCHEME://bucket/prefix; for credentials use the environment",
            ));
        }
        let rule = if scheme == "gs" {
            &GCS_BUCKET
        } else if scheme == "az" {
            &AZURE_CONTAINER
        } else {
            &S3_BUCKET
        };
        rule.check(authority)?;
        let bucket = authority.to_string();
        Ok(match scheme {
            "gs" => Self::Gcs { bucket, prefix },
            "az" => Self::AzureBlob {
                account: None,
                container: bucket,
                prefix,
            },
            _ => Self::S3 { bucket, prefix },
        })
    }

    /// `abfs[s]://filesystem@account.dfs.<suffix>/path`, `wasb[s]://container@account.blob.<suffix>/path`.
    fn azure(scheme: &str, authority: &str, prefix: String) -> Result<Self, Refusal> {
        let dfs = scheme.starts_with("abfs");
        let kind = if dfs { "dfs" } else { "blob" };
        let example = format!("write {scheme}://container@account.{kind}.core.windows.net/path");
        let (container, host) = authority
            .split_once('@')
            .filter(|(c, h)| !c.is_empty() && !h.is_empty())
            .ok_or_else(|| refuse("the authority is not container@account host", &example))?;
        let account = host
            .split_once(&format!(".{kind}."))
            .map(|(a, _)| a)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                refuse(
                    &format!("the host {host:?} is not account.{kind}.<suffix>"),
                    &example,
                )
            })?;
        AZURE_CONTAINER.check(container)?;
        Ok(if dfs {
            Self::AzureDataLake {
                account: account.to_string(),
                filesystem: container.to_string(),
                prefix,
            }
        } else {
            Self::AzureBlob {
                account: Some(account.to_string()),
                container: container.to_string(),
                prefix,
            }
        })
    }

    /// `hdfs://namenode[:rpc-port]/path`, `webhdfs://namenode[:http-port]/path`.
    fn hdfs(scheme: &str, authority: &str, path: String) -> Result<Self, Refusal> {
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => {
                let port = p.parse::<u16>().map_err(|_| {
                    refuse(
                        &format!("the port {p:?} is not a number"),
                        "write hdfs://namenode:8020/path",
                    )
                })?;
                (h, Some(port))
            }
            None => (authority, None),
        };
        if host.is_empty() {
            return Err(refuse(
                "the NameNode host is missing",
                "write hdfs://namenode:8020/path (hdfs:///path needs the cluster's fs.defaultFS, which rehearse does not read)",
            ));
        }
        Ok(Self::Hdfs {
            host: host.to_string(),
            port,
            port_is_http: scheme == "webhdfs",
            path,
        })
    }

    /// Whether a checkpoint argument (a scenario's `checkpoint.path`, the argument of `inspect`,
    /// `capture`, `init`) is to be read as a URL: it holds `://` anywhere. So `s3://b/x` and
    /// `file:///tmp/x` are URLs, `/tmp/x` and `ckpt` plain paths, and a path holding `://` after
    /// a slash (`./a://b`) is read as a URL too and refused by [`parse`](Self::parse) as an
    /// unknown scheme (`./a`), as it always was: the one rule every caller shares.
    pub fn looks_like_url(text: &str) -> bool {
        looks_like_url(text)
    }

    /// The argument's text when it [`looks_like_url`](Self::looks_like_url), to be given to
    /// [`parse`](Self::parse); `None` for a plain path (and for a path that is not UTF-8), which
    /// callers take as it is: not trimmed, not parsed.
    pub fn url_arg(arg: &Path) -> Option<&str> {
        arg.to_str().filter(|t| Self::looks_like_url(t))
    }

    /// True for a directory on this machine.
    pub fn is_local(&self) -> bool {
        matches!(self, Self::Local { .. })
    }

    /// The store error refusing a listing of this location for `name` ([`safe_relative`]).
    pub fn unsafe_name(&self, name: UnsafeName) -> StoreError {
        StoreError::UnsafeName {
            url: self.to_string(),
            key: name.key,
            reason: name.reason,
        }
    }

    /// The URL (or path) of `relative` under this location, for messages: `s3://b/p/offsets/0`.
    pub fn join_display(&self, relative: &str) -> String {
        let base = self.to_string();
        if relative.is_empty() {
            base
        } else if base.ends_with('/') {
            format!("{base}{relative}")
        } else {
            format!("{base}/{relative}")
        }
    }
}

/// Canonical spelling: `s3://bucket/prefix`, `gs://…`, `az://container/prefix`,
/// `wasbs://c@a.blob.core.windows.net/p`, `abfss://fs@a.dfs.core.windows.net/p`,
/// `hdfs://host:port/path`, or the local path as typed.
impl fmt::Display for CheckpointLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with = |f: &mut fmt::Formatter<'_>, head: String, tail: &str| {
            if tail.is_empty() {
                write!(f, "{head}")
            } else {
                write!(f, "{head}/{tail}")
            }
        };
        match self {
            Self::Local { path } => write!(f, "{}", path.display()),
            Self::S3 { bucket, prefix } => with(f, format!("s3://{bucket}"), prefix),
            Self::Gcs { bucket, prefix } => with(f, format!("gs://{bucket}"), prefix),
            Self::AzureBlob {
                account: None,
                container,
                prefix,
            } => with(f, format!("az://{container}"), prefix),
            Self::AzureBlob {
                account: Some(account),
                container,
                prefix,
            } => with(
                f,
                format!("wasbs://{container}@{account}.blob.core.windows.net"),
                prefix,
            ),
            Self::AzureDataLake {
                account,
                filesystem,
                prefix,
            } => with(
                f,
                format!("abfss://{filesystem}@{account}.dfs.core.windows.net"),
                prefix,
            ),
            Self::Hdfs {
                host,
                port,
                port_is_http,
                path,
            } => {
                let scheme = if *port_is_http { "webhdfs" } else { "hdfs" };
                let authority = match port {
                    Some(p) => format!("{host}:{p}"),
                    None => host.clone(),
                };
                write!(f, "{scheme}://{authority}/{path}")
            }
        }
    }
}

impl std::str::FromStr for CheckpointLocation {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A platform's rule for bucket (container) names, checked when a URL is parsed: a name the
/// platform would refuse gets the rule, not the server's raw answer.
struct NameRule {
    /// What the name is called: "an S3 bucket name".
    what: &'static str,
    /// Shortest and longest name.
    len: (usize, usize),
    /// Characters allowed besides lowercase ASCII letters and digits.
    also: &'static str,
    /// True when two hyphens in a row are refused (Azure).
    no_double_hyphen: bool,
    /// The rule in words, for the message.
    text: &'static str,
    /// Where the platform documents it.
    source: &'static str,
}

/// <https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html> (general
/// purpose buckets; MinIO and Ceph follow it).
const S3_BUCKET: NameRule = NameRule {
    what: "an S3 bucket name",
    len: (3, 63),
    also: ".-",
    no_double_hyphen: false,
    text: "3 to 63 characters: lowercase letters, digits, `.` and `-`, beginning and ending with a letter or digit",
    source: "https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html",
};

/// <https://cloud.google.com/storage/docs/buckets#naming> (names with dots may reach 222
/// characters).
const GCS_BUCKET: NameRule = NameRule {
    what: "a Cloud Storage bucket name",
    len: (3, 222),
    also: ".-_",
    no_double_hyphen: false,
    text: "3 to 63 characters (222 with dots): lowercase letters, digits, `-`, `_` and `.`, beginning and ending with a letter or digit",
    source: "https://cloud.google.com/storage/docs/buckets#naming",
};

/// <https://learn.microsoft.com/rest/api/storageservices/naming-and-referencing-containers--blobs--and-metadata#container-names>
const AZURE_CONTAINER: NameRule = NameRule {
    what: "an Azure container (filesystem) name",
    len: (3, 63),
    also: "-",
    no_double_hyphen: true,
    text: "3 to 63 characters: lowercase letters, digits and single `-`, beginning and ending with a letter or digit",
    source: "https://learn.microsoft.com/rest/api/storageservices/naming-and-referencing-containers--blobs--and-metadata#container-names",
};

impl NameRule {
    fn check(&self, name: &str) -> Result<(), Refusal> {
        // Azure's root container is spelled `$root`.
        if self.no_double_hyphen && name == "$root" {
            return Ok(());
        }
        let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
        let n = name.chars().count();
        let ok = n >= self.len.0
            && n <= self.len.1
            && (n <= 63 || name.contains('.'))
            && name.chars().all(|c| alnum(c) || self.also.contains(c))
            && name.starts_with(alnum)
            && name.ends_with(alnum)
            && !(self.no_double_hyphen && name.contains("--"))
            && !name.split('.').any(|part| part.len() > 63);
        if ok {
            return Ok(());
        }
        let lower = name.to_ascii_lowercase();
        let hint = if lower != name && self.check(&lower).is_ok() {
            format!(
                "names are lowercase: did you mean {lower:?}? (rule: {})",
                self.source
            )
        } else {
            format!("check the name (rule: {})", self.source)
        };
        Err(Refusal(
            format!("{name:?} is not {}: {}", self.what, self.text),
            hint,
        ))
    }
}

/// Why a location was refused and the fix (the `reason` and `hint` of [`StoreError::BadLocation`]).
struct Refusal(String, String);

fn refuse(reason: &str, hint: &str) -> Refusal {
    Refusal(reason.to_string(), hint.to_string())
}

/// Drops empty and `.` segments; refuses `..` (object keys are literal, so `a/../b` would name a
/// different object than a shell user expects).
fn clean_path(path: &str) -> Result<String, &'static str> {
    let mut parts = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err("a `..` segment is ambiguous in an object-store path"),
            s => parts.push(s),
        }
    }
    Ok(parts.join("/"))
}

/// The input with any query string or fragment cut off, so that an error never echoes a SAS
/// token someone pasted into the URL.
fn without_query(input: &str) -> String {
    let cut = input.find(['?', '#']).unwrap_or(input.len());
    let mut s = without_password(input[..cut].trim());
    if let Some(mark) = input[cut..].chars().next() {
        s.push(mark);
        s.push('…');
    }
    s
}

/// `scheme://user:***@host/…` for `scheme://user:password@host/…`: the URL as it may be shown
/// ([`rehearse_base::text::mask`], the one rule for it).
fn without_password(input: &str) -> String {
    rehearse_base::text::mask(input).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::{safe_listing, safe_relative, NAME_MAX};

    /// Issue 27 item 4: one rule for "is it a URL", `://` anywhere; a path holding `://` after a
    /// slash is read as a URL (and refused as an unknown scheme), as the four callers always did.
    #[test]
    fn looks_like_url_is_a_colon_slash_slash_anywhere() {
        for url in ["s3://b/x", "file:///tmp/x", "./a://b", "hdfs://nn:8020/p"] {
            assert!(CheckpointLocation::looks_like_url(url), "{url}");
            assert_eq!(CheckpointLocation::url_arg(Path::new(url)), Some(url));
        }
        for path in ["/tmp/x", "ckpt", " s3:/b", "./a:/b", ""] {
            assert!(!CheckpointLocation::looks_like_url(path), "{path}");
            assert_eq!(CheckpointLocation::url_arg(Path::new(path)), None);
        }
        let e = CheckpointLocation::parse("./a://b")
            .unwrap_err()
            .to_string();
        assert!(e.contains("./a://b"), "{e}");
    }

    /// Issue 25 §1: every hostile name a listing may carry is refused with its reason; plain
    /// names (dots inside a name, `.crc` side files, 255-byte names) pass unchanged.
    #[test]
    fn safe_relative_refuses_every_name_that_could_leave_the_root() {
        let long = "n".repeat(NAME_MAX + 1);
        let deep_long = format!("state/0/{long}");
        for (key, reason) in [
            ("", "empty"),
            ("/etc/passwd", "absolute"),
            ("../x", "`..`"),
            ("offsets/../../tmp/x/PWNED", "`..`"),
            ("offsets/..", "`..`"),
            ("a//b", "empty segment"),
            ("a/b/", "empty segment"),
            ("./metadata", "`.` segment"),
            ("offsets/./0", "`.` segment"),
            ("offsets/0\0/x", "NUL"),
            // Breaker pass, session 18: staged as local names and echoed to the terminal.
            ("ck/offsets/9\nx", "U+000A"),
            ("offsets/9\x1b[31mred", "U+001B"),
            ("offsets/9\u{7f}", "U+007F"),
            ("offsets\\..\\x", "backslash"),
            (long.as_str(), "256 bytes"),
            (deep_long.as_str(), "over the 255 bytes"),
        ] {
            let err = safe_relative(key).expect_err(key);
            assert_eq!(err.key, key);
            assert!(err.reason.contains(reason), "{key:?}: {}", err.reason);
        }
        let max = "n".repeat(NAME_MAX);
        for key in [
            "metadata",
            "offsets/.0.crc",
            "state/0/1/2.delta",
            "a..b/..c",
            "...",
            max.as_str(),
        ] {
            assert_eq!(safe_relative(key), Ok(key));
        }
    }

    /// A file that is also a directory in one listing (`offsets/0` and `offsets/0/x`) is
    /// refused, whatever the order; siblings sharing a prefix (`offsets/0.crc`) are not.
    #[test]
    fn safe_listing_refuses_a_file_that_is_also_a_directory() {
        for listing in [
            vec!["offsets/0", "offsets/0.crc", "offsets/0/x"],
            vec!["offsets/0/x/y", "metadata", "offsets/0"],
        ] {
            let err = safe_listing(listing.iter().copied()).unwrap_err();
            assert_eq!(err.key, "offsets/0", "{listing:?}");
            assert!(err.reason.contains("also names"), "{}", err.reason);
        }
        assert!(safe_listing(["offsets/0", "offsets/0.crc", "offsets/01/x"]).is_ok());
        let err = safe_listing(["metadata", "a/../b"]).unwrap_err();
        assert_eq!(err.key, "a/../b");
        let err = CheckpointLocation::parse("s3://bkt/ck")
            .unwrap()
            .unsafe_name(err)
            .to_string();
        assert!(
            err.contains("the listing of s3://bkt/ck names \"a/../b\"") && err.contains("hint:"),
            "{err}"
        );
    }

    /// The breaker pass: `s3://key:secret@bucket/x` was echoed whole, and
    /// `webhdfs://u:pass@host/x` was accepted and written into the report and init's scenario.
    #[test]
    fn credentials_in_a_url_are_refused_and_never_echoed() {
        for url in [
            "s3://AKIAXX:supersecret123@brk/one",
            "gs://u:supersecret123@bkt/x",
            "az://c:supersecret123@acct/x",
            "hdfs://user:supersecret123@127.0.0.1:19000/x",
            "webhdfs://u:supersecret123@127.0.0.1:19870/x",
            "abfss://fsys:supersecret123@acct.dfs.core.windows.net/x",
            "wasbs://c:supersecret123@acct.blob.core.windows.net/x",
        ] {
            let e = CheckpointLocation::parse(url).expect_err(url).to_string();
            assert!(!e.contains("supersecret123"), "{url}: {e}");
            assert!(e.contains("credentials in the URL"), "{url}: {e}");
        }
        assert!(CheckpointLocation::parse("hdfs://someone@namenode:8020/x").is_err());
        // Azure's own container@account form stays.
        parse("abfss://fsys@acct.dfs.core.windows.net/x");
    }

    fn parse(s: &str) -> CheckpointLocation {
        CheckpointLocation::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn every_supported_spelling_parses_and_prints_canonically() {
        let table = [
            ("/data/ckpt", "/data/ckpt"),
            ("ckpt/run1", "ckpt/run1"),
            ("file:///data/ckpt/", "/data/ckpt"),
            ("file://localhost/data/ckpt", "/data/ckpt"),
            (
                "s3://prod-checkpoints/orders",
                "s3://prod-checkpoints/orders",
            ),
            (
                "s3a://prod-checkpoints/orders/",
                "s3://prod-checkpoints/orders",
            ),
            ("S3://bkt", "s3://bkt"),
            ("s3://bkt//x/./y", "s3://bkt/x/y"),
            ("gs://bkt/a/b", "gs://bkt/a/b"),
            ("az://cont/ckpt", "az://cont/ckpt"),
            (
                "wasbs://cont@acct.blob.core.windows.net/ckpt",
                "wasbs://cont@acct.blob.core.windows.net/ckpt",
            ),
            (
                "abfss://fsys@acct.dfs.core.windows.net/a/ckpt",
                "abfss://fsys@acct.dfs.core.windows.net/a/ckpt",
            ),
            ("hdfs://nn:8020/user/x/ckpt", "hdfs://nn:8020/user/x/ckpt"),
            ("hdfs://nn/ckpt", "hdfs://nn/ckpt"),
            ("webhdfs://nn:9870/ckpt", "webhdfs://nn:9870/ckpt"),
        ];
        for (typed, shown) in table {
            assert_eq!(parse(typed).to_string(), shown, "{typed}");
            assert_eq!(parse(shown), parse(typed), "{typed} round-trips");
        }
        assert_eq!(
            parse("abfss://fsys@acct.dfs.core.windows.net/a/ckpt"),
            CheckpointLocation::AzureDataLake {
                account: "acct".into(),
                filesystem: "fsys".into(),
                prefix: "a/ckpt".into()
            }
        );
        assert_eq!(
            parse("hdfs://nn:8020/user/x/"),
            CheckpointLocation::Hdfs {
                host: "nn".into(),
                port: Some(8020),
                port_is_http: false,
                path: "user/x".into()
            }
        );
        assert!(parse("./x").is_local());
        assert_eq!(
            parse("s3://bkt/p").join_display("offsets/0"),
            "s3://bkt/p/offsets/0"
        );
        assert_eq!(
            parse("s3://bkt").join_display("metadata"),
            "s3://bkt/metadata"
        );
    }

    #[test]
    fn bad_locations_are_refused_with_a_hint_and_no_query_echoed() {
        let table = [
            ("", "empty"),
            ("  ", "empty"),
            ("ftp://host/x", "ftp:// is not supported"),
            ("s3://", "bucket"),
            ("s3:///prefix", "bucket"),
            ("s3://user:pw@bucket/x", "credentials in the URL"),
            ("gs://bkt/../x", "`..`"),
            ("file://otherhost/x", "no remote host"),
            ("abfss://acct.dfs.core.windows.net/x", "container@account"),
            ("abfss://fsys@acct.blob.core.windows.net/x", "account.dfs"),
            ("wasbs://c@/x", "container@account"),
            ("hdfs://:8020/x", "NameNode host"),
            ("hdfs://nn:port/x", "not a number"),
        ];
        for (typed, expected) in table {
            let err = CheckpointLocation::parse(typed)
                .expect_err(typed)
                .to_string();
            assert!(err.contains(expected), "{typed}: {err}");
            assert!(err.contains("hint:"), "{typed}: {err}");
            assert!(
                err.starts_with("not a checkpoint location"),
                "{typed}: {err}"
            );
        }
        let err = CheckpointLocation::parse("az://cont/p?sv=2024&sig=SECRETSIG")
            .unwrap_err()
            .to_string();
        assert!(!err.contains("SECRETSIG"), "{err}");
        assert!(err.contains("az://cont/p?…"), "{err}");
        assert!(err.contains("a query string"), "{err}");
    }

    /// The breaker pass: `s3://b/x#frag` was refused as a query string and shown as `?…`.
    #[test]
    fn a_fragment_is_called_a_fragment_and_never_echoed() {
        for (typed, shown) in [
            ("s3://bkt/x#frag", "s3://bkt/x#…"),
            ("gs://bkt/x#frag?y=1", "gs://bkt/x#…"),
            ("hdfs://nn:8020/x#frag", "hdfs://nn:8020/x#…"),
        ] {
            let err = CheckpointLocation::parse(typed)
                .expect_err(typed)
                .to_string();
            assert!(err.contains("a fragment (`#…`)"), "{typed}: {err}");
            assert!(!err.contains("query string"), "{typed}: {err}");
            assert!(
                err.contains(shown) && !err.contains("#frag"),
                "{typed}: {err}"
            );
        }
        let err = CheckpointLocation::parse("s3://bkt/x?a=1#frag")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("a query string") && err.contains("s3://bkt/x?…"),
            "{err}"
        );
    }

    /// The breaker pass: `s3://BRK/x` reached the server and came back as a raw `S3Error {…}`
    /// debug string, exit 4. Every platform's naming rule is checked when the URL is parsed.
    #[test]
    fn bucket_names_each_platform_refuses_are_bad_locations_naming_the_rule() {
        let table = [
            (
                "s3://BRK/x",
                "not an S3 bucket name",
                "did you mean \"brk\"",
            ),
            (
                "s3a://my_bucket/x",
                "not an S3 bucket name",
                "bucketnamingrules",
            ),
            ("s3://ab/x", "3 to 63 characters", "bucketnamingrules"),
            ("s3://-bkt/x", "beginning and ending", "bucketnamingrules"),
            (
                "gs://Bkt/x",
                "not a Cloud Storage bucket name",
                "did you mean \"bkt\"",
            ),
            ("az://my--container/x", "single `-`", "container-names"),
            (
                "az://my_container/x",
                "not an Azure container",
                "container-names",
            ),
            (
                "abfss://Fsys@acct.dfs.core.windows.net/x",
                "not an Azure container",
                "did you mean \"fsys\"",
            ),
        ];
        for (typed, reason, hint) in table {
            let err = CheckpointLocation::parse(typed).expect_err(typed);
            assert_eq!(
                rehearse_base::HasErrorKind::error_kind(&err),
                rehearse_base::ErrorKind::BadInput,
                "{typed}"
            );
            let text = err.to_string();
            assert!(
                text.contains(reason) && text.contains(hint),
                "{typed}: {text}"
            );
            assert!(!text.contains("S3Error"), "{typed}: {text}");
        }
        let long = format!("{}.{}", "a".repeat(60), "b".repeat(60));
        for ok in [
            "s3://prod-checkpoints.eu/x",
            "s3://abc",
            "gs://my_bucket/x",
            "az://$root/x",
            "az://a-b-c/x",
        ] {
            parse(ok);
        }
        parse(&format!("gs://{long}/x"));
        assert!(CheckpointLocation::parse(&format!("s3://{long}/x")).is_err());
    }
}
