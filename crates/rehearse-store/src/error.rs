//! Errors of the checkpoint store: each names the location (URL or path) and the fix, and none
//! holds a secret. Causes from the HTTP stack are kept as text that went through a [`Redactor`]
//! (known secret values and signature-like query parameters masked), never as the raw error.

use rehearse_base::{ErrorKind, HasErrorKind};
use std::fmt;

/// A failure to resolve, list or read a checkpoint location. Messages are lowercase fragments;
/// the fix follows on its own line as `(hint: …)`.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The typed location does not parse (see [`super::CheckpointLocation::parse`]).
    #[error("not a checkpoint location: {input:?}: {reason}\n(hint: {hint})")]
    BadLocation {
        /// What the user typed, any query string cut off.
        input: String,
        /// What is wrong with it.
        reason: String,
        /// The fix.
        hint: String,
    },
    /// The environment lacks a setting this kind of location needs (an Azure account for
    /// `az://`, `AWS_ALLOW_HTTP=true` for a plain-HTTP endpoint, …).
    #[error("cannot read {url}: {what}\n(hint: {hint})")]
    Config {
        /// The location.
        url: String,
        /// What is missing or contradictory.
        what: String,
        /// The fix.
        hint: String,
    },
    /// The bucket, container or filesystem does not exist (or is not visible to these
    /// credentials).
    #[error("no such bucket or container: {url}\n(hint: check the name in the URL, and the endpoint ({endpoint}) and account it is looked up on)")]
    MissingBucket {
        /// The location.
        url: String,
        /// The endpoint asked.
        endpoint: String,
    },
    /// The location exists but holds no file: a wrong prefix or an empty directory.
    #[error("nothing at {url}: no file under this prefix\n(hint: check the prefix; list its parent to see what is there)")]
    NothingThere {
        /// The location.
        url: String,
    },
    /// The location names one file (an object), not the directory a checkpoint is.
    #[error("{url} is a file (an object), not a checkpoint directory\n(hint: give the directory that holds the checkpoint's metadata, offsets/ and commits/, such as {parent})")]
    IsAFile {
        /// The location.
        url: String,
        /// The directory holding it.
        parent: String,
    },
    /// The endpoint answered, but not in its platform's protocol: a web page, a proxy's login
    /// or error page (a listing answered `200 text/html` read as an empty listing before).
    #[error("{endpoint} does not speak {protocol} for {url}: it answered a listing with {what}\n(hint: check the endpoint ({hint}); a web server, a proxy's login page or a captive portal answers like this)")]
    NotAStore {
        /// The location.
        url: String,
        /// The endpoint asked.
        endpoint: String,
        /// `the S3 API`, `WebHDFS`, ….
        protocol: &'static str,
        /// What came back: `an HTML page (200 text/html)`.
        what: String,
        /// Where the endpoint comes from.
        hint: String,
    },
    /// An operation on the location made no progress within the store deadline
    /// (`REHEARSE_STORE_TIMEOUT_SECONDS`, see [`super::StoreEnv::store_timeout`]).
    #[error("timed out: {operation} {url} made no progress in {seconds} s (the server at {endpoint} answers too slowly or stalls)\n(hint: check the endpoint and the network; to wait longer on a slow link set REHEARSE_STORE_TIMEOUT_SECONDS (now {seconds}))")]
    TimedOut {
        /// `list`, `read`, `stat`.
        operation: &'static str,
        /// The location or object.
        url: String,
        /// The endpoint asked.
        endpoint: String,
        /// The deadline.
        seconds: u64,
    },
    /// A listing that does not end: the server sent a name twice (a continuation token sent back
    /// unchanged), more names than any checkpoint holds, or kept listing past the whole
    /// listing's deadline (the per-request deadline never fires on a server that answers each
    /// page promptly).
    #[error("the listing of {url} from {endpoint} does not end: {why}\n(hint: the server repeats its pages or lists without end; check the endpoint (a proxy or an S3-compatible server with a pagination bug answers like this); a checkpoint holds far fewer files)")]
    ListingRunsAway {
        /// The location.
        url: String,
        /// The endpoint asked.
        endpoint: String,
        /// What gave it away.
        why: String,
    },
    /// The server asks rehearse to slow down (S3 `SlowDown`, HTTP 429, Azure `ServerBusy`):
    /// the store is throttling this account or prefix, not refusing the request.
    #[error("{endpoint} is throttling requests for {url} (it answered {code}): rehearse reads too fast for it, or other clients use up the request rate of this bucket or prefix\n(hint: retry later, or lower the load: fewer matrix --jobs at once, or other readers of the bucket paused)")]
    Throttled {
        /// The location.
        url: String,
        /// The endpoint asked.
        endpoint: String,
        /// What it answered: `SlowDown`, `429 Too Many Requests`.
        code: String,
    },
    /// The endpoint answers with redirects that never reach an answer (more than 10 in a row,
    /// or one back to itself).
    #[error("{endpoint} redirects the requests for {url} in a loop (too many redirects): it is not answering as a store would\n(hint: check the endpoint ({hint}): a load balancer or proxy in front of it may redirect HTTP to HTTPS and back, or to a login page; give the URL the store answers at)")]
    RedirectLoop {
        /// The location.
        url: String,
        /// The endpoint asked.
        endpoint: String,
        /// Where the endpoint comes from.
        hint: String,
    },
    /// One object or file named under the location does not exist.
    #[error("no such file: {url}")]
    NotFound {
        /// The object's URL or path.
        url: String,
    },
    /// The server refused these credentials (bad key, bad secret, expired token).
    #[error("credentials rejected for {url}{cause}\n(hint: check the credentials; {hint})")]
    BadCredentials {
        /// The location.
        url: String,
        /// The server's error, redacted, as `: …` (or empty).
        cause: Cause,
        /// Which variables the credentials come from.
        hint: String,
    },
    /// The credentials are valid but may not read this location.
    #[error("access denied to {url}{cause}\n(hint: grant these credentials list and read access (for S3: s3:ListBucket and s3:GetObject) on the bucket and prefix)")]
    AccessDenied {
        /// The location.
        url: String,
        /// The server's error, redacted, as `: …` (or empty).
        cause: Cause,
    },
    /// No credentials were found in any source of the platform's chain.
    #[error("no credentials found for {url}{cause}\n(hint: {hint})")]
    NoCredentials {
        /// The location.
        url: String,
        /// The chain's error, redacted.
        cause: Cause,
        /// Where credentials are looked for.
        hint: String,
    },
    /// The environment names credentials that are exchanged for a token (web identity, a
    /// service principal, a Google key), and no token came back: the token endpoint could not be
    /// reached, or refused the exchange.
    #[error("could not get a token for {url} from {token_endpoint}{cause}: the credentials are set, but the token endpoint could not be reached or refused the exchange\n(hint: check that this machine reaches the token endpoint (a proxy or firewall may block it) and that the role, client or key is still valid)")]
    NoToken {
        /// The location.
        url: String,
        /// Which endpoint, for which credentials.
        token_endpoint: String,
        /// The chain's error, redacted.
        cause: Cause,
    },
    /// Nothing answered at the endpoint (connection refused, DNS, timeout).
    #[error("cannot reach {endpoint} for {url}{cause}\n(hint: check the endpoint ({hint}) and that this machine can reach it)")]
    Unreachable {
        /// The location.
        url: String,
        /// The endpoint tried.
        endpoint: String,
        /// The connection error, redacted.
        cause: Cause,
        /// Where the endpoint comes from.
        hint: String,
    },
    /// Any other failure of an operation on the location (server error, protocol error).
    #[error("failed to {operation} {url}{cause}")]
    Other {
        /// `list`, `read`, `stat`.
        operation: &'static str,
        /// The location or object.
        url: String,
        /// The underlying error, redacted.
        cause: Cause,
    },
    /// A listing named a path that is not a plain relative path below the location (`..`, an
    /// absolute path, an empty or `.` segment, NUL, a backslash, a name too long for a local
    /// filesystem, a file that is also a directory): refused before anything is created, since
    /// joined onto a local directory it could lead out of it (issue 25 §1).
    #[error("the listing of {url} names {key:?}, which is not a plain relative path below the checkpoint: {reason}; nothing was copied\n(hint: Spark never writes such a name; remove or rename that object (or file) in the store, or check that the endpoint serves this checkpoint)")]
    UnsafeName {
        /// The location listed.
        url: String,
        /// The path as listed (shown escaped).
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A local file or directory could not be read.
    #[error("failed to {operation} {path}")]
    Io {
        /// `list`, `read`, `stat`.
        operation: &'static str,
        /// The path.
        path: String,
        /// The OS error (holds no secret).
        #[source]
        source: std::io::Error,
    },
}

/// A redacted cause, shown as `: text` after the main fragment (empty when there is none).
/// Kept as text: the HTTP stack's own errors may carry request URLs with signatures in them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cause(pub String);

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, ": {}", self.0)
        }
    }
}

/// Masks secrets in text headed for an error: every known secret value (at least 4 characters),
/// then everything [`rehearse_base::text::mask`] masks (a URL's password, the value of a signature- or
/// key-like parameter: `sig=`, `X-Amz-Signature=`, `X-Amz-Security-Token=`, `AccountKey=`,
/// `SharedAccessSignature=`, `token=`).
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// A redactor for these secret values; short or empty values are ignored.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets.into_iter().filter(|s| s.len() >= 4).collect();
        // Longest first, so a secret containing another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Self { secrets }
    }

    /// `text` with every secret replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            out = out.replace(s.as_str(), "***");
        }
        rehearse_base::text::mask(&out).into_owned()
    }

    /// A [`Cause`] from any error's text and its source chain, redacted.
    pub fn cause(&self, err: &(dyn std::error::Error + 'static)) -> Cause {
        let mut text = err.to_string();
        let mut source = err.source();
        while let Some(s) = source {
            let more = s.to_string();
            if !text.contains(&more) {
                text.push_str(": ");
                text.push_str(&more);
            }
            source = s.source();
        }
        Cause(self.redact(text.trim()))
    }
}

/// Bad input (exit 3) or environment (exit 4), by variant:
///
/// | variant | kind |
/// |---|---|
/// | BadLocation, MissingBucket, NothingThere, IsAFile, NotFound, UnsafeName | BadInput |
/// | Config, BadCredentials, AccessDenied, NoCredentials, NoToken, Unreachable, NotAStore, TimedOut, ListingRunsAway, Throttled, RedirectLoop, Other, Io | Environment |
impl HasErrorKind for StoreError {
    fn error_kind(&self) -> ErrorKind {
        use StoreError as E;
        match self {
            E::BadLocation { .. }
            | E::MissingBucket { .. }
            | E::NothingThere { .. }
            | E::IsAFile { .. }
            | E::NotFound { .. }
            | E::UnsafeName { .. } => ErrorKind::BadInput,
            E::NotAStore { .. }
            | E::TimedOut { .. }
            | E::ListingRunsAway { .. }
            | E::Throttled { .. }
            | E::RedirectLoop { .. } => ErrorKind::Environment,
            E::Config { .. }
            | E::BadCredentials { .. }
            | E::AccessDenied { .. }
            | E::NoCredentials { .. }
            | E::NoToken { .. }
            | E::Unreachable { .. }
            | E::Other { .. }
            | E::Io { .. } => ErrorKind::Environment,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// New-user pass: `AWS_ENDPOINT_URL=http://rehearse-admin:<secret>@127.0.0.1:1` was printed
    /// whole in "cannot reach …".
    #[test]
    fn passwords_in_urls_are_masked() {
        let r = Redactor::default();
        assert_eq!(
            r.redact("cannot reach http://admin:s3cr3t@127.0.0.1:1 for s3://b/p"),
            "cannot reach http://admin:***@127.0.0.1:1 for s3://b/p"
        );
        assert_eq!(
            r.redact("error sending request for url (https://k:v@h:9000/b?list-type=2)"),
            "error sending request for url (https://k:***@h:9000/b?list-type=2)"
        );
        for kept in ["az://container@account/p", "http://host:9000/p", "a:b@c"] {
            assert_eq!(r.redact(kept), kept);
        }
    }

    #[test]
    fn redactor_masks_known_values_and_signature_parameters() {
        let r = Redactor::new(["s3cr3t-value".to_string(), "abc".to_string()]);
        let text = "GET http://h/b?X-Amz-Signature=deadbeef&x=1 failed with s3cr3t-value; \
                    AccountKey=Zm9v==;BlobEndpoint=x sig=a%2Fb abc";
        let out = r.redact(text);
        assert!(!out.contains("s3cr3t-value"), "{out}");
        assert!(!out.contains("deadbeef"), "{out}");
        assert!(!out.contains("Zm9v"), "{out}");
        assert!(!out.contains("a%2Fb"), "{out}");
        assert!(out.contains("abc"), "short values are not secrets: {out}");
        assert!(out.contains("x=1"), "{out}");
    }

    #[test]
    fn kinds_split_bad_input_from_environment() {
        let bad = StoreError::NothingThere {
            url: "s3://b/p".into(),
        };
        assert_eq!(bad.error_kind(), ErrorKind::BadInput);
        let env = StoreError::Unreachable {
            url: "s3://b/p".into(),
            endpoint: "http://127.0.0.1:1".into(),
            cause: Cause::default(),
            hint: "AWS_ENDPOINT_URL".into(),
        };
        assert_eq!(env.error_kind(), ErrorKind::Environment);
        assert_eq!(
            env.to_string(),
            "cannot reach http://127.0.0.1:1 for s3://b/p\n(hint: check the endpoint (AWS_ENDPOINT_URL) and that this machine can reach it)"
        );
    }
}
