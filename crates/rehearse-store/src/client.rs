//! [`CheckpointStore`]: a read-only client for one checkpoint location. It lists (recursively,
//! with sizes and the backend's change markers), heads and streams files, and nothing else: the
//! type has no write, delete, rename or tag operation, and it never creates the root it is
//! pointed at (remote operators are rooted at `/` and local paths are only opened for reading).
//!
//! Remote backends go through `opendal` over one `reqwest` client (rustls with the ring
//! provider); local directories through `std`/`tokio` directly, so that a mistyped path is never
//! created and later copies can use the filesystem's own fast paths.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures::{Stream, StreamExt, TryStreamExt};
use opendal::Operator;

use super::env::StoreEnv;
use super::error::{Cause, Redactor, StoreError};
use super::location::CheckpointLocation;
use super::platforms;

/// The most one chunk of a file stream holds (8 MiB), whatever the file's size. A remote file is
/// read with one streamed GET and its chunks are the response's body frames as they arrive
/// (a few KiB to a few hundred KiB each); a local file is read in chunks of 1 MiB. Asking the
/// backend for 8 MiB ranges instead held each range whole, and a copy with 8 objects in flight
/// peaked at 166 MiB (bench/copy.sh).
pub const READ_CHUNK: usize = 8 << 20;

/// How long to wait for a TCP (and TLS) connection before calling the endpoint unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a started response may stall before the read fails.
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// One file of a checkpoint, as listed or headed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// Path relative to the checkpoint root, `/`-separated: `offsets/12`, `state/0/3/1.delta`.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// The server's entity tag, quotes included as the server sent them (S3, GCS, Azure); `None`
    /// for HDFS and local files.
    pub etag: Option<String>,
    /// Object version id where the backend reports one (versioned S3 buckets, GCS generation).
    pub version: Option<String>,
    /// Base64 MD5 of the content where the backend reports it (GCS, Azure Blob).
    pub content_md5: Option<String>,
    /// Last modification time, where known (all backends; second precision on some).
    pub last_modified: Option<SystemTime>,
}

/// A file's bytes as a stream of chunks of at most [`READ_CHUNK`] bytes; dropping it stops the
/// transfer.
pub struct ObjectStream {
    inner: Pin<Box<dyn Stream<Item = Result<Bytes, StoreError>> + Send>>,
}

impl Stream for ObjectStream {
    type Item = Result<Bytes, StoreError>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl std::fmt::Debug for ObjectStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ObjectStream")
    }
}

/// A read-only client for one checkpoint location. Cheap to clone.
#[derive(Clone)]
pub struct CheckpointStore {
    location: CheckpointLocation,
    backend: Backend,
    redactor: Redactor,
}

#[derive(Clone)]
enum Backend {
    Local {
        root: PathBuf,
    },
    Remote {
        op: Operator,
        /// The location's prefix inside the operator (rooted at `/`): `""` or `"a/b/"`.
        prefix: String,
        /// The base URL requests go to, for messages.
        endpoint: String,
        /// Where that endpoint came from, for hints.
        endpoint_from: &'static str,
        /// Where credentials come from, for hints.
        credentials_from: &'static str,
        /// The token endpoint the credential chain exchanges credentials at, when the
        /// environment names such credentials ([`token_endpoint`]).
        token_from: Option<&'static str>,
        /// The store deadline ([`StoreEnv::store_timeout`]).
        timeout: Duration,
        /// The most names one listing may return ([`StoreEnv::max_listed`]).
        max_listed: usize,
    },
}

impl std::fmt::Debug for CheckpointStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointStore")
            .field("location", &self.location.to_string())
            .field("endpoint", &self.endpoint())
            .finish()
    }
}

impl CheckpointStore {
    /// A client for `location`, configured from `env` (see [`StoreEnv`] for the variables each
    /// platform reads). Makes no request, except on S3 without a region set, where the bucket's
    /// region is asked of AWS.
    ///
    /// # Errors
    /// [`StoreError::Config`] when the environment lacks something this location needs (an
    /// Azure account for `az://`) or contradicts it (a plain-HTTP S3 endpoint without
    /// `AWS_ALLOW_HTTP=true`), or when the backend refuses the configuration.
    pub async fn open(location: CheckpointLocation, env: &StoreEnv) -> Result<Self, StoreError> {
        let redactor = Redactor::new(env.secrets());
        let backend = match &location {
            CheckpointLocation::Local { path } => Backend::Local { root: path.clone() },
            _ => remote_backend(&location, env, &redactor).await?,
        };
        Ok(Self {
            location,
            backend,
            redactor,
        })
    }

    /// The location this client reads.
    pub fn location(&self) -> &CheckpointLocation {
        &self.location
    }

    /// The base URL requests go to (`https://s3.eu-west-1.amazonaws.com`,
    /// `http://namenode:9870`), or the local directory.
    pub fn endpoint(&self) -> String {
        match &self.backend {
            Backend::Local { root } => root.display().to_string(),
            Backend::Remote { endpoint, .. } => endpoint.clone(),
        }
    }

    /// Every file under the location, recursively, sorted by path. Directories are not listed
    /// (object stores have none); local symbolic links are neither followed nor listed. Every
    /// remote path is a plain relative path ([`super::safe_listing`]).
    ///
    /// # Errors
    /// [`StoreError::UnsafeName`] when a remote listing names a path that is not a plain
    /// relative path below the location (`..`, `//`, NUL, a file that is also a directory, …);
    /// [`StoreError::NothingThere`] when no file is under the location (a wrong prefix, an
    /// empty or missing directory); [`StoreError::MissingBucket`] when the bucket, container or
    /// filesystem does not exist; credential, permission and network errors as in
    /// [`StoreError`].
    pub async fn list(&self) -> Result<Vec<ObjectInfo>, StoreError> {
        let mut files = match &self.backend {
            Backend::Local { root } => list_local(root).await?,
            Backend::Remote {
                op,
                prefix,
                timeout,
                max_listed,
                ..
            } => {
                let dir = if prefix.is_empty() {
                    "/"
                } else {
                    prefix.as_str()
                };
                // The deadline bounds the first entry and each next one; the guard the whole
                // listing (a server repeating its continuation token answers each page at once).
                let mut guard = ListingGuard::new(LIST_DEADLINE, *max_listed);
                let mut lister = self
                    .within(*timeout, "list", "", op.lister_with(dir).recursive(true))
                    .await?;
                let mut files = Vec::new();
                while let Some(entry) = self
                    .within(
                        (*timeout).min(guard.remaining()),
                        "list",
                        "",
                        lister.try_next(),
                    )
                    .await
                    .map_err(|e| guard.or_ran_away(e, self))?
                {
                    // Directories count too: a WebHDFS directory entry `.` was listed as
                    // `ck/./`, then `ck/././`, … for 30 minutes (breaker pass 3, H1).
                    guard
                        .admit(entry.path())
                        .map_err(|why| self.ran_away(why))?;
                    let Some(rel) = entry.path().strip_prefix(prefix.as_str()) else {
                        continue;
                    };
                    let is_dir = entry.metadata().is_dir();
                    // A directory's path ends with the one `/` opendal adds; any other is the
                    // server's and refused below.
                    let name = if is_dir {
                        rel.strip_suffix('/').unwrap_or(rel)
                    } else {
                        rel
                    };
                    if name.is_empty() {
                        continue;
                    }
                    // Every name a server sends is untrusted, refused as it comes (a name with
                    // a `.` segment may lead the lister into the same directory again) and
                    // before any consumer (the copy, inspect, the end check) joins one onto a
                    // directory. Kept as listed (a key `p//x` under `p/` is `/x`), never
                    // trimmed into another name.
                    super::names::safe_relative(name)
                        .map_err(|name| self.location.unsafe_name(name))?;
                    if !is_dir {
                        files.push(object_info(rel, entry.metadata()));
                    }
                }
                // A file that is also another name's directory is only seen in the whole.
                super::names::safe_listing(files.iter().map(|f| f.path.as_str()))
                    .map_err(|name| self.location.unsafe_name(name))?;
                files
            }
        };
        if files.is_empty() {
            return Err(self.nothing_there().await);
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// One file's size and change markers. `relative` is `/`-separated under the location.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when there is no such file; the others as for
    /// [`list`](Self::list).
    pub async fn head(&self, relative: &str) -> Result<ObjectInfo, StoreError> {
        let rel = relative.trim_matches('/');
        match &self.backend {
            Backend::Local { root } => {
                let path = root.join(rel);
                let meta = tokio::fs::metadata(&path)
                    .await
                    .map_err(|e| local_error("stat", &path, e))?;
                if !meta.is_file() {
                    return Err(StoreError::NotFound {
                        url: path.display().to_string(),
                    });
                }
                Ok(local_info(rel, &meta))
            }
            Backend::Remote {
                op,
                prefix,
                timeout,
                ..
            } => {
                let meta = self
                    .within(*timeout, "stat", rel, op.stat(&format!("{prefix}{rel}")))
                    .await?;
                if meta.is_dir() {
                    return Err(StoreError::NotFound {
                        url: self.location.join_display(rel),
                    });
                }
                Ok(object_info(rel, &meta))
            }
        }
    }

    /// Streams one file's bytes in chunks of at most [`READ_CHUNK`] bytes, never the whole file
    /// in memory: remotely one GET whose body is passed on as it arrives.
    ///
    /// # Errors
    /// As for [`head`](Self::head), when opening; each chunk may carry a read error later.
    pub async fn read(&self, relative: &str) -> Result<ObjectStream, StoreError> {
        let rel = relative.trim_matches('/').to_string();
        match &self.backend {
            Backend::Local { root } => {
                let path = root.join(&rel);
                let file = tokio::fs::File::open(&path)
                    .await
                    .map_err(|e| local_error("read", &path, e))?;
                Ok(ObjectStream {
                    inner: Box::pin(local_stream(file, path)),
                })
            }
            Backend::Remote {
                op,
                prefix,
                timeout,
                ..
            } => {
                let full = format!("{prefix}{rel}");
                let opening = async { op.reader_with(&full).await?.into_bytes_stream(..).await };
                let stream = self.within(*timeout, "read", &rel, opening).await?;
                let this = self.clone();
                let stream = stream.map(move |r| {
                    r.map_err(|e| match e.downcast::<opendal::Error>() {
                        Ok(e) => this.remote_error("read", &rel, e),
                        Err(e) => StoreError::Other {
                            operation: "read",
                            url: this.location.join_display(&rel),
                            cause: this.redactor.cause(&e),
                        },
                    })
                });
                let timed_out = self.timed_out("read", relative.trim_matches('/'), *timeout);
                Ok(ObjectStream {
                    inner: Box::pin(with_progress_deadline(stream, *timeout, timed_out)),
                })
            }
        }
    }

    /// A small file's whole content (offset and commit logs, `metadata`), refusing files larger
    /// than `limit` bytes so that a mistaken path cannot fill the memory.
    ///
    /// # Errors
    /// As for [`read`](Self::read); [`StoreError::Other`] when the file exceeds `limit`.
    pub async fn read_small(&self, relative: &str, limit: u64) -> Result<Vec<u8>, StoreError> {
        let whole = async {
            let mut stream = self.read(relative).await?;
            let mut out = Vec::new();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk?;
                if (out.len() + chunk.len()) as u64 > limit {
                    return Err(StoreError::Other {
                        operation: "read",
                        url: self.location.join_display(relative.trim_matches('/')),
                        cause: Cause(format!("larger than {limit} bytes, not a small file")),
                    });
                }
                out.extend_from_slice(&chunk);
            }
            Ok(out)
        };
        match &self.backend {
            Backend::Local { .. } => whole.await,
            // A small file is read whole within the deadline.
            Backend::Remote { timeout, .. } => tokio::time::timeout(*timeout, whole)
                .await
                .unwrap_or_else(|_| Err(self.timed_out("read", relative, *timeout))),
        }
    }

    /// `fut` (an opendal operation) within `timeout`; its error mapped by
    /// [`remote_error`](Self::remote_error).
    async fn within<T>(
        &self,
        timeout: Duration,
        operation: &'static str,
        rel: &str,
        fut: impl std::future::IntoFuture<Output = opendal::Result<T>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(timeout, fut.into_future()).await {
            Ok(r) => r.map_err(|e| self.remote_error(operation, rel, e)),
            Err(_) => Err(self.timed_out(operation, rel, timeout)),
        }
    }

    fn ran_away(&self, why: String) -> StoreError {
        StoreError::ListingRunsAway {
            url: self.location.to_string(),
            endpoint: self.endpoint(),
            why,
        }
    }

    fn timed_out(&self, operation: &'static str, rel: &str, timeout: Duration) -> StoreError {
        StoreError::TimedOut {
            operation,
            url: self.location.join_display(rel.trim_matches('/')),
            endpoint: self.endpoint(),
            seconds: timeout.as_secs(),
        }
    }

    /// Why a listing found no file: the location may name one object (`…/ckpt/metadata`), which
    /// a listing of the prefix `…/metadata/` does not show; else nothing is there.
    async fn nothing_there(&self) -> StoreError {
        let url = self.location.to_string();
        if let Backend::Remote {
            op,
            prefix,
            timeout,
            ..
        } = &self.backend
        {
            let object = prefix.trim_end_matches('/');
            if !object.is_empty() {
                if let Ok(Ok(meta)) = tokio::time::timeout(*timeout, op.stat(object)).await {
                    if meta.is_file() {
                        let parent = url.rsplit_once('/').map_or(url.as_str(), |(p, _)| p);
                        return StoreError::IsAFile {
                            parent: parent.to_string(),
                            url,
                        };
                    }
                }
            }
        }
        StoreError::NothingThere { url }
    }

    /// Maps a backend error to a [`StoreError`] naming the location (or the object under it)
    /// and the fix; the cause text is redacted.
    fn remote_error(&self, operation: &'static str, rel: &str, err: opendal::Error) -> StoreError {
        let Backend::Remote {
            endpoint,
            endpoint_from,
            credentials_from,
            token_from,
            ..
        } = &self.backend
        else {
            unreachable!("remote_error on a local store")
        };
        if err.message() == NOT_A_STORE {
            return StoreError::NotAStore {
                url: self.location.to_string(),
                endpoint: endpoint.clone(),
                protocol: protocol(&self.location),
                what: "an HTML page (200 text/html)".into(),
                hint: endpoint_from.to_string(),
            };
        }
        if let Some(first) = err.message().strip_prefix(NOT_A_LISTING) {
            return StoreError::NotAStore {
                url: self.location.to_string(),
                endpoint: endpoint.clone(),
                protocol: protocol(&self.location),
                what: format!("bytes that are not a listing of it, starting {first}"),
                hint: endpoint_from.to_string(),
            };
        }
        let url = self.location.to_string();
        let target = self.location.join_display(rel);
        // The message and its sources, without opendal's context dump (request headers, paths).
        let mut cause = Cause(
            self.redactor
                .redact(&server_error::server_said(err.message())),
        );
        if let Some(src) = std::error::Error::source(&err) {
            let more = self.redactor.cause(src);
            cause.0 = format!("{}: {}", cause.0, more.0);
        }
        let text = cause.0.to_ascii_lowercase();
        let hdfs = matches!(self.location, CheckpointLocation::Hdfs { .. });
        if is_redirect_loop(&err) {
            return StoreError::RedirectLoop {
                url,
                endpoint: endpoint.clone(),
                hint: endpoint_from.to_string(),
            };
        }
        // Throttling, said as such (the raw `S3Error { code: "SlowDown", … }` was printed).
        const THROTTLED: [(&str, &str); 5] = [
            ("slowdown", "SlowDown"),
            ("throttl", "a throttling error"),
            ("serverbusy", "ServerBusy"),
            ("toomanyrequests", "429 Too Many Requests"),
            ("requestlimitexceeded", "RequestLimitExceeded"),
        ];
        if let Some((_, code)) = THROTTLED
            .iter()
            .find(|(m, _)| text.replace(' ', "").contains(m))
        {
            return StoreError::Throttled {
                url,
                endpoint: endpoint.clone(),
                code: (*code).to_string(),
            };
        }
        if err.kind() == opendal::ErrorKind::RateLimited {
            return StoreError::Throttled {
                url,
                endpoint: endpoint.clone(),
                code: "429 Too Many Requests".into(),
            };
        }
        if is_connect_error(&err) {
            return StoreError::Unreachable {
                url,
                endpoint: endpoint.clone(),
                cause,
                hint: endpoint_from.to_string(),
            };
        }
        const MISSING_BUCKET: [&str; 5] = [
            "nosuchbucket",
            "containernotfound",
            "filesystemnotfound",
            "bucket does not exist",
            "bucket not found",
        ];
        if text.contains("invalidbucketname") {
            // Names the parser lets through (it checks each platform's rule) but this server
            // refuses.
            return StoreError::BadLocation {
                input: url,
                reason: format!("the server at {endpoint} refuses the bucket name"),
                hint: "check the bucket name against the server's naming rule (S3: https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html)".into(),
            };
        }
        if MISSING_BUCKET.iter().any(|m| text.contains(m)) {
            return StoreError::MissingBucket {
                url,
                endpoint: endpoint.clone(),
            };
        }
        const BAD_CREDENTIALS: [&str; 9] = [
            "server failed to authenticate",
            "signaturedoesnotmatch",
            "invalidaccesskeyid",
            "authenticationfailed",
            "invalidtoken",
            "expiredtoken",
            "invalid_grant",
            "invalidauthenticationinfo",
            "unauthorized",
        ];
        match err.kind() {
            _ if BAD_CREDENTIALS.iter().any(|m| text.contains(m)) => StoreError::BadCredentials {
                url,
                cause,
                hint: credentials_from.to_string(),
            },
            opendal::ErrorKind::PermissionDenied => StoreError::AccessDenied { url, cause },
            opendal::ErrorKind::NotFound if operation == "list" => {
                if hdfs {
                    StoreError::NothingThere { url }
                } else {
                    StoreError::MissingBucket {
                        url,
                        endpoint: endpoint.clone(),
                    }
                }
            }
            opendal::ErrorKind::NotFound => StoreError::NotFound { url: target },
            opendal::ErrorKind::ConfigInvalid | opendal::ErrorKind::Unexpected
                if text.contains("credential") && token_from.is_some() =>
            {
                StoreError::NoToken {
                    url,
                    token_endpoint: token_from.unwrap_or_default().to_string(),
                    cause,
                }
            }
            opendal::ErrorKind::ConfigInvalid | opendal::ErrorKind::Unexpected
                if text.contains("credential") =>
            {
                StoreError::NoCredentials {
                    url,
                    cause,
                    hint: credentials_from.to_string(),
                }
            }
            _ => StoreError::Other {
                operation,
                url: target,
                cause,
            },
        }
    }
}

/// True when the error (or anything in its source chain) is reqwest giving up on redirects
/// (its policy follows at most 10).
fn is_redirect_loop(err: &opendal::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if e.downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_redirect)
        {
            return true;
        }
        source = e.source();
    }
    false
}

/// True when the error (or anything in its source chain) is a failure to connect: refused,
/// DNS, connect timeout.
fn is_connect_error(err: &opendal::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if let Some(r) = e.downcast_ref::<reqwest::Error>() {
            if r.is_connect() || (r.is_timeout() && r.status().is_none()) {
                return true;
            }
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind as K;
            if matches!(
                io.kind(),
                K::ConnectionRefused | K::ConnectionReset | K::TimedOut | K::HostUnreachable
            ) {
                return true;
            }
        }
        source = e.source();
    }
    false
}

fn object_info(rel: &str, meta: &opendal::Metadata) -> ObjectInfo {
    ObjectInfo {
        path: rel.to_string(),
        size: meta.content_length(),
        etag: meta.etag().map(str::to_string),
        version: meta.version().map(str::to_string),
        content_md5: meta.content_md5().map(str::to_string),
        last_modified: meta
            .last_modified()
            .map(|t| SystemTime::from(t.into_inner())),
    }
}

fn local_info(rel: &str, meta: &std::fs::Metadata) -> ObjectInfo {
    ObjectInfo {
        path: rel.to_string(),
        size: meta.len(),
        etag: None,
        version: None,
        content_md5: None,
        last_modified: meta.modified().ok(),
    }
}

fn local_error(operation: &'static str, path: &Path, source: std::io::Error) -> StoreError {
    if source.kind() == std::io::ErrorKind::NotFound {
        StoreError::NotFound {
            url: path.display().to_string(),
        }
    } else {
        StoreError::Io {
            operation,
            path: path.display().to_string(),
            source,
        }
    }
}

async fn list_local(root: &Path) -> Result<Vec<ObjectInfo>, StoreError> {
    let root = root.to_path_buf();
    let listed = tokio::task::spawn_blocking(move || {
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(&root).follow_links(false) {
            let entry = match entry {
                Ok(e) => e,
                // A missing root lists as nothing (NothingThere), like an empty prefix.
                Err(e)
                    if e.depth() == 0
                        && e.io_error().map(|io| io.kind())
                            == Some(std::io::ErrorKind::NotFound) =>
                {
                    return Ok(files)
                }
                Err(e) => {
                    let path = e.path().unwrap_or(&root).display().to_string();
                    let source = e
                        .into_io_error()
                        .unwrap_or_else(|| std::io::Error::other("filesystem loop"));
                    return Err(StoreError::Io {
                        operation: "list",
                        path,
                        source,
                    });
                }
            };
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(&root)
                .unwrap_or(entry.path())
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let meta = entry.metadata().map_err(|e| StoreError::Io {
                operation: "list",
                path: entry.path().display().to_string(),
                source: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("metadata")),
            })?;
            files.push(local_info(&rel, &meta));
        }
        Ok(files)
    })
    .await
    .map_err(|e| StoreError::Io {
        operation: "list",
        path: String::new(),
        source: std::io::Error::other(e),
    })??;
    Ok(listed)
}

fn local_stream(
    file: tokio::fs::File,
    path: PathBuf,
) -> impl Stream<Item = Result<Bytes, StoreError>> + Send {
    use tokio::io::AsyncReadExt;
    futures::stream::try_unfold(
        (file, path, vec![0u8; 1 << 20]),
        |(mut file, path, mut buf)| async move {
            let n = file
                .read(&mut buf)
                .await
                .map_err(|e| local_error("read", &path, e))?;
            if n == 0 {
                return Ok(None);
            }
            Ok(Some((Bytes::copy_from_slice(&buf[..n]), (file, path, buf))))
        },
    )
}

/// The process-wide rustls crypto provider (ring), installed once; a provider installed earlier
/// by someone else is kept.
fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

fn http_client(url: &str) -> Result<opendal::raw::HttpClient, StoreError> {
    install_crypto_provider();
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .build()
        .map_err(|e| StoreError::Config {
            url: url.to_string(),
            what: format!("cannot build an HTTP client: {e}"),
            hint: "check the system's TLS root certificates".into(),
        })?;
    Ok(opendal::raw::HttpClient::with(StoreHttp(client)))
}

/// The message of the error [`StoreHttp`] gives for a listing answered with a web page.
const NOT_A_STORE: &str = "a listing was answered with an HTML page";

/// Query parameters of a listing request, per backend: S3 `list-type=2`, Azure Blob
/// `comp=list`, ADLS Gen2 `resource=filesystem`, WebHDFS `op=LISTSTATUS`, GCS (and the others)
/// `prefix=`.
const LISTING_MARKERS: [&str; 5] = [
    "list-type=",
    "comp=list",
    "resource=filesystem",
    "op=LISTSTATUS",
    "prefix=",
];

/// reqwest under every remote operator, plus one check no backend makes: a listing answered
/// `2xx text/html` (a web server, a proxy's login page at the endpoint) is an error, where the
/// backends' XML/JSON parsers read it as an empty listing ("no file under this prefix").
/// Objects are not checked: a file may be stored as `text/html`.
struct StoreHttp(reqwest::Client);

impl opendal::raw::HttpFetch for StoreHttp {
    async fn fetch(
        &self,
        req: http::Request<opendal::Buffer>,
    ) -> opendal::Result<http::Response<opendal::raw::HttpBody>> {
        let query = req.uri().query().unwrap_or("").to_string();
        let listing = LISTING_MARKERS.iter().any(|m| query.contains(m));
        let resp = self.0.fetch(req).await?;
        let html = resp
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/html"));
        if listing && html && resp.status().is_success() {
            return Err(opendal::Error::new(
                opendal::ErrorKind::Unexpected,
                NOT_A_STORE,
            ));
        }
        if !listing || !resp.status().is_success() {
            return Ok(resp);
        }
        // A listing page is small (1000 names at most): read it whole and check it is one.
        // `<html>` served as application/octet-stream parsed as an empty listing, and the
        // prefix then as "a file" (issue 25 §7).
        let (parts, mut body) = resp.into_parts();
        let page = body.to_buffer().await?;
        let bytes = page.to_bytes();
        if !is_listing(&query, &bytes) {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(60)]).into_owned();
            return Err(opendal::Error::new(
                opendal::ErrorKind::Unexpected,
                format!("{NOT_A_LISTING}{}", rehearse_base::text::quoted(&head)),
            ));
        }
        let size = bytes.len() as u64;
        let stream = futures::stream::iter([Ok(opendal::Buffer::from(bytes))]);
        Ok(http::Response::from_parts(
            parts,
            opendal::raw::HttpBody::new(stream, Some(size)),
        ))
    }
}

/// The message prefix of the error [`StoreHttp`] gives for a listing answered with bytes that
/// are no listing of the backend's protocol; the first bytes follow, quoted.
const NOT_A_LISTING: &str = "a listing was answered with other bytes: ";

/// Whether `body` can be a successful listing page of the request with this query: the root
/// element of S3's (`ListBucketResult`) or Azure Blob's (`EnumerationResults`) XML, a JSON
/// object for WebHDFS, ADLS Gen2 and GCS.
fn is_listing(query: &str, body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if query.contains("list-type=") {
        text.contains("<ListBucketResult")
    } else if query.contains("comp=list") {
        text.contains("<EnumerationResults")
    } else {
        text.starts_with('{')
    }
}

/// The protocol a location's endpoint must speak, for [`StoreError::NotAStore`].
fn protocol(location: &CheckpointLocation) -> &'static str {
    match location {
        CheckpointLocation::S3 { .. } => "the S3 API",
        CheckpointLocation::Gcs { .. } => "the Cloud Storage JSON API",
        CheckpointLocation::AzureBlob { .. } => "the Azure Blob API",
        CheckpointLocation::AzureDataLake { .. } => "the ADLS Gen2 API",
        CheckpointLocation::Hdfs { .. } => "WebHDFS",
        CheckpointLocation::Local { .. } => "a filesystem",
    }
}

/// Bytes a streamed read must deliver (or end) within each store deadline.
const PROGRESS_BYTES: u64 = 1 << 20;

/// `inner`, failing with `timed_out` when a window of `deadline` passes with fewer than
/// [`PROGRESS_BYTES`] received and no end: a stalled or trickling response, however large the
/// file, while a slow but steady one (above 1 MiB per deadline) goes on.
fn with_progress_deadline(
    inner: impl Stream<Item = Result<Bytes, StoreError>> + Send + 'static,
    deadline: Duration,
    timed_out: StoreError,
) -> impl Stream<Item = Result<Bytes, StoreError>> + Send {
    let start = tokio::time::Instant::now();
    futures::stream::unfold(
        (Box::pin(inner), start, 0u64, Some(timed_out)),
        move |(mut inner, window, got, timed_out)| async move {
            let timed_out = timed_out?;
            match tokio::time::timeout_at(window + deadline, inner.next()).await {
                Err(_) => Some((Err(timed_out), (inner, window, got, None))),
                Ok(None) => None,
                Ok(Some(Err(e))) => Some((Err(e), (inner, window, got, None))),
                Ok(Some(Ok(chunk))) => {
                    let got = got + chunk.len() as u64;
                    let (window, got) = if got >= PROGRESS_BYTES {
                        (tokio::time::Instant::now(), 0)
                    } else {
                        (window, got)
                    };
                    Some((Ok(chunk), (inner, window, got, Some(timed_out))))
                }
            }
        },
    )
}

/// The token endpoint a location's credential chain must reach when the environment names
/// credentials that are exchanged for a token (web identity, a service principal, a Google key
/// file), else `None`. When such a chain ends with "failed to load signing credential", the
/// credentials are there and the exchange failed: "no credentials found" sent the user looking
/// for credentials they had set (issue 25 §7).
fn token_endpoint(location: &CheckpointLocation, env: &StoreEnv) -> Option<&'static str> {
    let has = |v: &str| env.get(v).is_some_and(|x| !x.is_empty());
    match location {
        CheckpointLocation::S3 { .. } if has("AWS_WEB_IDENTITY_TOKEN_FILE") && has("AWS_ROLE_ARN") => {
            Some("AWS STS (AssumeRoleWithWebIdentity for AWS_ROLE_ARN with AWS_WEB_IDENTITY_TOKEN_FILE)")
        }
        CheckpointLocation::S3 { .. }
            if has("AWS_CONTAINER_CREDENTIALS_FULL_URI")
                || has("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") =>
        {
            Some("the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI)")
        }
        CheckpointLocation::AzureBlob { .. } | CheckpointLocation::AzureDataLake { .. }
            if has("AZURE_FEDERATED_TOKEN_FILE")
                || (has("AZURE_CLIENT_ID") && has("AZURE_CLIENT_SECRET") && has("AZURE_TENANT_ID")) =>
        {
            Some("Microsoft Entra ID's token endpoint (login.microsoftonline.com, for AZURE_CLIENT_ID in AZURE_TENANT_ID)")
        }
        CheckpointLocation::Gcs { .. }
            if has("GOOGLE_APPLICATION_CREDENTIALS") && !has("STORAGE_EMULATOR_HOST") =>
        {
            Some("Google's OAuth token endpoint (oauth2.googleapis.com, for the key in GOOGLE_APPLICATION_CREDENTIALS)")
        }
        _ => None,
    }
}

/// The operator, endpoint and hints for a remote location (one function per platform in
/// `platforms.rs`), over the one HTTP client.
async fn remote_backend(
    location: &CheckpointLocation,
    env: &StoreEnv,
    redactor: &Redactor,
) -> Result<Backend, StoreError> {
    let url = location.to_string();
    let timeout = env.store_timeout().map_err(|what| StoreError::Config {
        url: url.clone(),
        what,
        hint: format!(
            "unset it (the default is {} s) or give whole seconds",
            super::env::DEFAULT_STORE_TIMEOUT_SECONDS
        ),
    })?;
    let max_listed = env.max_listed().map_err(|what| StoreError::Config {
        url: url.clone(),
        what,
        hint: format!(
            "unset it (the default is {} names) or give a whole number",
            super::env::DEFAULT_MAX_LISTED
        ),
    })?;
    check_credential_files(&url, env)?;
    let client = http_client(&url)?;
    let (remote, prefix) = match location {
        CheckpointLocation::S3 { bucket, prefix } => {
            (platforms::s3(&url, bucket, env, redactor).await?, prefix)
        }
        CheckpointLocation::Gcs { bucket, prefix } => {
            (platforms::gcs(&url, bucket, env, redactor)?, prefix)
        }
        CheckpointLocation::AzureBlob {
            account,
            container,
            prefix,
        } => (
            platforms::azure_blob(&url, account.as_deref(), container, env, redactor)?,
            prefix,
        ),
        CheckpointLocation::AzureDataLake {
            account,
            filesystem,
            prefix,
        } => (
            platforms::azure_data_lake(&url, account, filesystem, env, redactor)?,
            prefix,
        ),
        CheckpointLocation::Hdfs {
            host,
            port,
            port_is_http,
            path,
        } => (
            platforms::webhdfs(&url, host, *port, *port_is_http, env, redactor)?,
            path,
        ),
        CheckpointLocation::Local { .. } => unreachable!("local locations have no remote backend"),
    };
    Ok(Backend::Remote {
        op: remote
            .op
            .layer(opendal::layers::HttpClientLayer::new(client)),
        prefix: if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        },
        // For messages only (the operator holds its own): never with a password in it.
        endpoint: rehearse_base::text::mask(&remote.endpoint).into_owned(),
        endpoint_from: remote.endpoint_from,
        credentials_from: remote.credentials_from,
        token_from: token_endpoint(location, env),
        timeout,
        max_listed,
    })
}

mod credentials;
mod listing;
mod server_error;

use credentials::check_credential_files;
use listing::{ListingGuard, LIST_DEADLINE};

#[cfg(test)]
mod tests;
