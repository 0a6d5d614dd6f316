//! Credential files the environment names, checked before a backend's credential chain reads
//! one (issue 25 §5).

use std::path::Path;

use crate::env::StoreEnv;
use crate::error::StoreError;

/// Environment variables naming a file the backends' credential chains read (AWS SDK,
/// Google auth, Azure workload identity), checked before any is read.
const CREDENTIAL_FILE_VARIABLES: &[&str] = &[
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AZURE_FEDERATED_TOKEN_FILE",
];

/// Largest credential file read: a service-account key or an SSO config is a few kilobytes.
pub(super) const MAX_CREDENTIAL_FILE_BYTES: u64 = 1 << 20;

/// Each credential file the environment names must be a regular file of at most
/// [`MAX_CREDENTIAL_FILE_BYTES`] (issue 25 §5: `GOOGLE_APPLICATION_CREDENTIALS` naming a FIFO
/// blocked the credential chain forever, and `/dev/zero` was read to 4.2 GB).
pub(super) fn check_credential_files(url: &str, env: &StoreEnv) -> Result<(), StoreError> {
    for var in CREDENTIAL_FILE_VARIABLES {
        if let Some(path) = env.get(var) {
            // A key pasted into the variable instead of a path: every message below names
            // the value as a file, so it would print the key (masking catches only known fields).
            if path.trim_start().starts_with('{') || path.contains('\n') {
                return Err(StoreError::Config {
                    url: url.to_string(),
                    what: format!("{var} holds text, not a file's path (the value is not shown: it may hold a key)"),
                    hint: format!("save the credentials to a file and point {var} at it, or unset it"),
                });
            }
            rehearse_base::userfile::check_regular(Path::new(path), var, MAX_CREDENTIAL_FILE_BYTES)
                .map_err(|e| StoreError::Config {
                    url: url.to_string(),
                    // The first line: the file and what is wrong with it; the fix is ours.
                    what: e.to_string().lines().next().unwrap_or_default().to_string(),
                    hint: format!(
                        "point {var} at the credentials file (a JSON or INI file), or unset it"
                    ),
                })?;
            let check = match *var {
                "GOOGLE_APPLICATION_CREDENTIALS" => google_credentials,
                "AWS_SHARED_CREDENTIALS_FILE" | "AWS_CONFIG_FILE" => aws_ini,
                _ => continue,
            };
            // Read as text through the same rule; a file that is not UTF-8 is said so.
            let text =
                rehearse_base::userfile::read_text(Path::new(path), var, MAX_CREDENTIAL_FILE_BYTES)
                    .map_err(|e| StoreError::Config {
                        url: url.to_string(),
                        what: e.to_string().lines().next().unwrap_or_default().to_string(),
                        hint: format!("point {var} at the credentials file, or unset it"),
                    })?;
            if let Err(what) = check(&text) {
                return Err(StoreError::Config {
                    url: url.to_string(),
                    // `{var} {path}`, not `{var}={path}`: the output mask reads
                    // `…CREDENTIALS=…` as a secret assignment and would hide the file's name.
                    what: format!("{var} {path}: {what}"),
                    hint: format!(
                        "{}, or unset {var}",
                        if *var == "GOOGLE_APPLICATION_CREDENTIALS" {
                            "download the service account's key again (IAM → Service accounts → Keys → Add key → JSON) or run `gcloud auth application-default login`"
                        } else {
                            "fix the line named (INI: [profile] sections, then key = value lines) or write the file again with `aws configure`"
                        }
                    ),
                });
            }
        }
    }
    Ok(())
}

/// What is wrong with a Google credentials file, as the auth library would find it only when
/// signing the first request — and then report as "no credentials found" or a PKCS#8 ASN.1 error
/// without the file's name (issue 25 §7). Checks the JSON, its `type`, and for a service account
/// its `client_email` and a `private_key` that is a PEM PKCS#8 key (DER inside).
fn google_credentials(text: &str) -> Result<(), String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "not JSON ({e}); a credentials file is the JSON key of a service account or of a user"
        )
    })?;
    let Some(obj) = value.as_object() else {
        return Err("not a JSON object".into());
    };
    let field = |name: &str| obj.get(name).and_then(serde_json::Value::as_str);
    let kind = field("type").ok_or("it has no \"type\" (service_account, authorized_user, external_account or impersonated_service_account)")?;
    let need: &[&str] = match kind {
        "service_account" => &["client_email", "private_key"],
        "authorized_user" => &["client_id", "client_secret", "refresh_token"],
        "external_account" => &["audience", "subject_token_type"],
        "impersonated_service_account" => &["service_account_impersonation_url", "source_credentials"],
        other => {
            return Err(format!(
                "its \"type\" is {}, not service_account, authorized_user, external_account or impersonated_service_account",
                rehearse_base::text::quoted(other)
            ))
        }
    };
    for name in need {
        if obj.get(*name).is_none_or(serde_json::Value::is_null) {
            return Err(format!(
                "a credentials file of type {kind} without \"{name}\""
            ));
        }
    }
    if kind == "service_account" {
        let key = field("private_key").ok_or("\"private_key\" is not a string")?;
        let body = key
            .split_once("-----BEGIN PRIVATE KEY-----")
            .and_then(|(_, rest)| rest.split_once("-----END PRIVATE KEY-----"))
            .map(|(body, _)| body.split_whitespace().collect::<String>())
            .ok_or("its \"private_key\" is not a PEM PKCS#8 key (-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----)")?;
        use base64::Engine as _;
        let der = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|e| {
                format!("its \"private_key\" is not base64 between the PEM lines ({e})")
            })?;
        // A DER PKCS#8 PrivateKeyInfo is a SEQUENCE (0x30) of more than a few bytes.
        if der.len() < 64 || der[0] != 0x30 {
            return Err(format!(
                "its \"private_key\" holds {} bytes that are not a PKCS#8 key (the key was cut or edited)",
                der.len()
            ));
        }
    }
    Ok(())
}

/// The first line of an AWS credentials or config file (INI) that is not blank, a comment, a
/// `[section]`, a `key = value` line or an indented continuation of a value: the SDK skipped
/// such a file and said only "no credentials found" (issue 25 §7).
fn aws_ini(text: &str) -> Result<(), String> {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let ok = t.is_empty()
            || t.starts_with('#')
            || t.starts_with(';')
            || (t.starts_with('[') && t.ends_with(']'))
            || t.split_once('=').is_some_and(|(k, _)| !k.trim().is_empty())
            || (i > 0 && line.starts_with([' ', '\t']));
        if !ok {
            // The line is not shown: it may be a key pasted on a line of its own.
            return Err(format!(
                "line {} is not `key = value`, a [section] or a comment (the line is not shown: it may hold a secret)",
                i + 1
            ));
        }
    }
    Ok(())
}
