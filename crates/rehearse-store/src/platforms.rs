//! One function per platform: how a remote location becomes an `opendal` operator, from which
//! variables of the [`StoreEnv`] (see its table), with the endpoint used and where the endpoint and
//! credentials come from (for the hints of [`StoreError`]s). No request is made here, except for
//! S3 without a region, where the bucket's region is asked of AWS.

use opendal::{services, Operator};

use super::env::StoreEnv;
use super::error::{Redactor, StoreError};

/// A configured operator (rooted at `/`, no HTTP client layer yet) and its hints.
pub(super) struct Remote {
    pub op: Operator,
    /// The base URL requests go to.
    pub endpoint: String,
    /// Where that endpoint came from.
    pub endpoint_from: &'static str,
    /// Where credentials come from.
    pub credentials_from: &'static str,
}

/// The backend refused its configuration: the error's text, redacted.
fn config_error(url: &str, redactor: &Redactor, e: opendal::Error) -> StoreError {
    StoreError::Config {
        url: url.to_string(),
        // The message without opendal's "ConfigInvalid (permanent) at …, context: {…}" dump.
        what: redactor.redact(e.message()),
        hint: "check the store's settings in the environment".into(),
    }
}

/// Checks an endpoint URL from the environment (`name=value`): `http://` or `https://`, a host,
/// no whitespace — `AWS_ENDPOINT_URL=not a url` failed every request with "building http
/// request: invalid uri character" and no variable named (issue 25 §7).
fn check_endpoint(url: &str, name: &str, value: &str) -> Result<(), StoreError> {
    let shown = rehearse_base::text::quoted(value);
    let bad = |why: &str| {
        StoreError::Config {
        url: url.to_string(),
        what: format!("{name}={shown} is not an endpoint URL: {why}"),
        hint: format!("set {name} to the server's base URL, e.g. https://minio.example.com:9000 or http://127.0.0.1:9000 (with AWS_ALLOW_HTTP=true for plain HTTP)"),
    }
    };
    if value.chars().any(char::is_whitespace) {
        return Err(bad("it holds whitespace"));
    }
    let uri: http::Uri = value
        .parse()
        .map_err(|e: http::uri::InvalidUri| bad(&e.to_string()))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        Some(other) => {
            return Err(bad(&format!(
                "its scheme is {other}://, not http:// or https://"
            )))
        }
        None => return Err(bad("it has no http:// or https://")),
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(bad("it names no host"));
    }
    Ok(())
}

/// S3 or an S3-compatible server: `AWS_ENDPOINT_URL[_S3]` (plain HTTP only with
/// `AWS_ALLOW_HTTP=true`), the region (asked of AWS when unset and no custom endpoint), static
/// keys when set, else the AWS chain; never the EC2 metadata address for a custom endpoint.
pub(super) async fn s3(
    url: &str,
    bucket: &str,
    env: &StoreEnv,
    redactor: &Redactor,
) -> Result<Remote, StoreError> {
    let custom = env.first(&["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"]);
    let region = match env.first(&["AWS_REGION", "AWS_DEFAULT_REGION"]) {
        Some((_, r)) => r.to_string(),
        None if custom.is_some() => "us-east-1".to_string(),
        None => services::S3::detect_region("https://s3.amazonaws.com", bucket)
            .await
            .unwrap_or_else(|| "us-east-1".to_string()),
    };
    let endpoint = match custom {
        Some((name, e)) => {
            check_endpoint(url, name, e)?;
            let e = e.trim_end_matches('/').to_string();
            if e.starts_with("http://") && env.get("AWS_ALLOW_HTTP") != Some("true") {
                return Err(StoreError::Config {
                    url: url.to_string(),
                    what: format!("{name}={e} is plain HTTP"),
                    hint: "set AWS_ALLOW_HTTP=true to allow an unencrypted endpoint (an on-premise MinIO or Ceph), or use https://".into(),
                });
            }
            e
        }
        None => format!("https://s3.{region}.amazonaws.com"),
    };
    let mut b = services::S3::default()
        .root("/")
        .bucket(bucket)
        .region(&region)
        .endpoint(&endpoint);
    if let (Some(id), Some(secret)) = (
        env.get("AWS_ACCESS_KEY_ID"),
        env.get("AWS_SECRET_ACCESS_KEY"),
    ) {
        b = b.access_key_id(id).secret_access_key(secret);
        if let Some(token) = env.get("AWS_SESSION_TOKEN") {
            b = b.session_token(token);
        }
    }
    if custom.is_some() {
        // A custom endpoint is not AWS: never probe the EC2 metadata address.
        b = b.disable_ec2_metadata();
    }
    let op = Operator::new(b)
        .map_err(|e| config_error(url, redactor, e))?
        .finish();
    Ok(Remote {
        op,
        endpoint,
        endpoint_from: if custom.is_some() {
            "AWS_ENDPOINT_URL"
        } else {
            "AWS S3 for the bucket's region; set AWS_ENDPOINT_URL for another S3 server"
        },
        credentials_from: "AWS credentials come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (+AWS_SESSION_TOKEN), the AWS_PROFILE profile, web identity or instance metadata",
    })
}

/// Google Cloud Storage with a read-only token scope: `STORAGE_EMULATOR_HOST` (an emulator, no
/// auth), else `GOOGLE_APPLICATION_CREDENTIALS` or the application-default chain.
pub(super) fn gcs(
    url: &str,
    bucket: &str,
    env: &StoreEnv,
    redactor: &Redactor,
) -> Result<Remote, StoreError> {
    let mut b = services::Gcs::default()
        .root("/")
        .bucket(bucket)
        .scope("https://www.googleapis.com/auth/devstorage.read_only");
    let (endpoint, from) = match env.get("STORAGE_EMULATOR_HOST") {
        Some(host) => {
            let e = if super::location::looks_like_url(host) {
                host.trim_end_matches('/').to_string()
            } else {
                format!("http://{}", host.trim_end_matches('/'))
            };
            check_endpoint(url, "STORAGE_EMULATOR_HOST", &e)?;
            b = b
                .endpoint(&e)
                .skip_signature()
                .disable_vm_metadata()
                .disable_config_load();
            (e, "STORAGE_EMULATOR_HOST")
        }
        None => {
            if let Some(path) = env.get("GOOGLE_APPLICATION_CREDENTIALS") {
                b = b.credential_path(path);
            }
            (
                "https://storage.googleapis.com".to_string(),
                "Google Cloud Storage; set STORAGE_EMULATOR_HOST for an emulator",
            )
        }
    };
    let op = Operator::new(b)
        .map_err(|e| config_error(url, redactor, e))?
        .finish();
    Ok(Remote {
        op,
        endpoint,
        endpoint_from: from,
        credentials_from: "Google credentials come from GOOGLE_APPLICATION_CREDENTIALS, application-default credentials (gcloud auth application-default login) or the VM's service account",
    })
}

/// Azure Blob: `AZURE_STORAGE_CONNECTION_STRING` (its `BlobEndpoint`, so Azurite too; its
/// account must be the URL's), else the account (URL or `AZURE_STORAGE_ACCOUNT_NAME`) with a key,
/// a SAS token or the Azure chain.
pub(super) fn azure_blob(
    url: &str,
    account: Option<&str>,
    container: &str,
    env: &StoreEnv,
    redactor: &Redactor,
) -> Result<Remote, StoreError> {
    let creds = "Azure credentials come from AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_CLIENT_ID/AZURE_CLIENT_SECRET/AZURE_TENANT_ID, workload identity or the Azure CLI";
    let (b, endpoint, from) = match env.get("AZURE_STORAGE_CONNECTION_STRING") {
        Some(cs) => {
            // A garbage value was "ConfigInvalid (permanent) at  => Invalid connection string,
            // expected '=' in field: ***" (issue 25 §7): said as the variable, what it must be.
            let garbage = |why: String| {
                StoreError::Config {
                url: url.to_string(),
                what: format!("AZURE_STORAGE_CONNECTION_STRING is not a storage connection string: {why}"),
                hint: "copy it from the storage account's Access keys page: DefaultEndpointsProtocol=https;AccountName=NAME;AccountKey=KEY;EndpointSuffix=core.windows.net (or Azurite's, with BlobEndpoint=…), or unset it".into(),
            }
            };
            if cs
                .split(';')
                .filter(|p| !p.trim().is_empty())
                .any(|p| !p.contains('='))
            {
                return Err(garbage("it is not KEY=VALUE pairs separated by `;`".into()));
            }
            if connection_string_part(cs, "AccountName").is_none() {
                return Err(garbage("it names no AccountName".into()));
            }
            if let Some(e) = connection_string_part(cs, "BlobEndpoint") {
                check_endpoint(url, "AZURE_STORAGE_CONNECTION_STRING's BlobEndpoint", &e)?;
            }
            let b = services::Azblob::from_connection_string(cs)
                .map_err(|e| {
                    // opendal's text without its context dump, redacted (it may quote the key).
                    garbage(redactor.redact(e.message()))
                })?
                .container(container);
            let endpoint = connection_string_part(cs, "BlobEndpoint")
                .map(|e| e.trim_end_matches('/').to_string())
                .or_else(|| {
                    connection_string_part(cs, "AccountName")
                        .map(|a| format!("https://{a}.blob.core.windows.net"))
                })
                .unwrap_or_default();
            if let (Some(want), Some(have)) = (account, connection_string_part(cs, "AccountName")) {
                if want != have {
                    return Err(StoreError::Config {
                        url: url.to_string(),
                        what: format!("the URL names account {want} but AZURE_STORAGE_CONNECTION_STRING is for {have}"),
                        hint: "use az://container/prefix with the connection string's account, or unset AZURE_STORAGE_CONNECTION_STRING".into(),
                    });
                }
            }
            (
                b,
                endpoint,
                "AZURE_STORAGE_CONNECTION_STRING's BlobEndpoint",
            )
        }
        None => {
            let Some(account) = account.or_else(|| {
                env.first(&["AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT"])
                    .map(|(_, v)| v)
            }) else {
                return Err(StoreError::Config {
                    url: url.to_string(),
                    what: "az:// names no storage account".into(),
                    hint: "set AZURE_STORAGE_ACCOUNT_NAME (or AZURE_STORAGE_CONNECTION_STRING), or write wasbs://container@account.blob.core.windows.net/prefix".into(),
                });
            };
            let endpoint = format!("https://{account}.blob.core.windows.net");
            let mut b = services::Azblob::default()
                .container(container)
                .endpoint(&endpoint)
                .account_name(account);
            if let Some((_, key)) = env.first(&["AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY"]) {
                b = b.account_key(key);
            }
            if let Some(sas) = env.get("AZURE_STORAGE_SAS_TOKEN") {
                b = b.sas_token(sas);
            }
            (b, endpoint, "the account's blob.core.windows.net endpoint")
        }
    };
    let op = Operator::new(b.root("/"))
        .map_err(|e| match env.get("AZURE_STORAGE_CONNECTION_STRING") {
            // The connection string's parts are checked as the operator is built (an
            // AccountKey that is not base64).
            Some(_) => StoreError::Config {
                url: url.to_string(),
                what: format!(
                    "AZURE_STORAGE_CONNECTION_STRING is not a storage connection string: {}",
                    redactor.redact(e.message())
                ),
                hint: "copy it from the storage account's Access keys page, or unset it".into(),
            },
            None => config_error(url, redactor, e),
        })?
        .finish();
    Ok(Remote {
        op,
        endpoint,
        endpoint_from: from,
        credentials_from: creds,
    })
}

/// ADLS Gen2 through the dfs endpoint: an account key, a SAS token, a service principal
/// (`AZURE_CLIENT_ID`/`AZURE_CLIENT_SECRET`/`AZURE_TENANT_ID`) or the Azure chain.
pub(super) fn azure_data_lake(
    url: &str,
    account: &str,
    filesystem: &str,
    env: &StoreEnv,
    redactor: &Redactor,
) -> Result<Remote, StoreError> {
    let endpoint = format!("https://{account}.dfs.core.windows.net");
    let mut b = services::Azdls::default()
        .root("/")
        .filesystem(filesystem)
        .endpoint(&endpoint)
        .account_name(account);
    if let Some((_, key)) = env.first(&["AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY"]) {
        b = b.account_key(key);
    }
    if let Some(sas) = env.get("AZURE_STORAGE_SAS_TOKEN") {
        b = b.sas_token(sas);
    }
    if let (Some(id), Some(secret), Some(tenant)) = (
        env.get("AZURE_CLIENT_ID"),
        env.get("AZURE_CLIENT_SECRET"),
        env.get("AZURE_TENANT_ID"),
    ) {
        b = b.client_id(id).client_secret(secret).tenant_id(tenant);
    }
    let op = Operator::new(b)
        .map_err(|e| config_error(url, redactor, e))?
        .finish();
    Ok(Remote {
        op,
        endpoint,
        endpoint_from: "the account's dfs.core.windows.net endpoint",
        credentials_from: "Azure credentials come from AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_CLIENT_ID/AZURE_CLIENT_SECRET/AZURE_TENANT_ID, workload identity or the Azure CLI",
    })
}

/// Bytes a query value keeps as they are: RFC 3986's unreserved characters.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `value` percent-encoded for one query parameter: opendal's WebHDFS backend appends
/// `&user.name={user}` as given, so `HADOOP_USER_NAME='a&op=DELETE'` would add a parameter
/// (issue 25 §6).
fn query_value(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, QUERY_VALUE).to_string()
}

/// HDFS through WebHDFS: `REHEARSE_WEBHDFS_URL`, else the NameNode host with the HTTP port
/// (`webhdfs://`'s own, else `REHEARSE_WEBHDFS_PORT`, else 9870); simple auth as
/// `HADOOP_USER_NAME`.
pub(super) fn webhdfs(
    url: &str,
    host: &str,
    port: Option<u16>,
    port_is_http: bool,
    env: &StoreEnv,
    redactor: &Redactor,
) -> Result<Remote, StoreError> {
    let (endpoint, from) = match env.get("REHEARSE_WEBHDFS_URL") {
        Some(u) => {
            check_endpoint(url, "REHEARSE_WEBHDFS_URL", u)?;
            (u.trim_end_matches('/').to_string(), "REHEARSE_WEBHDFS_URL")
        }
        None => {
            let http_port = match (port_is_http, port) {
                (true, Some(p)) => p,
                _ => match env.get("REHEARSE_WEBHDFS_PORT") {
                    Some(p) => p.parse().map_err(|_| StoreError::Config {
                        url: url.to_string(),
                        what: format!("REHEARSE_WEBHDFS_PORT={p} is not a port"),
                        hint: "set it to the NameNode's HTTP port (dfs.namenode.http-address, 9870 by default)".into(),
                    })?,
                    None => 9870,
                },
            };
            (
                format!("http://{host}:{http_port}"),
                "the NameNode's HTTP port: 9870 unless REHEARSE_WEBHDFS_PORT (or a whole REHEARSE_WEBHDFS_URL) says otherwise; the hdfs:// port is the RPC port",
            )
        }
    };
    let mut b = services::Webhdfs::default().root("/").endpoint(&endpoint);
    if let Some(user) = env.get("HADOOP_USER_NAME") {
        b = b.user_name(&query_value(user));
    }
    let op = Operator::new(b)
        .map_err(|e| config_error(url, redactor, e))?
        .finish();
    Ok(Remote {
        op,
        endpoint,
        endpoint_from: from,
        credentials_from: "WebHDFS uses simple authentication as HADOOP_USER_NAME (Kerberos/SPNEGO is not supported)",
    })
}

/// The value of `key` in an Azure connection string (`K=V;K=V`), keys compared case-insensitively.
fn connection_string_part(cs: &str, key: &str) -> Option<String> {
    cs.split(';').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        (k.trim().eq_ignore_ascii_case(key) && !v.is_empty()).then(|| v.trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_string_parts_are_found_case_insensitively() {
        let cs = "DefaultEndpointsProtocol=http;AccountName=dev;AccountKey=k==;BlobEndpoint=http://127.0.0.1:1/dev;";
        assert_eq!(
            connection_string_part(cs, "accountname").as_deref(),
            Some("dev")
        );
        assert_eq!(
            connection_string_part(cs, "BlobEndpoint").as_deref(),
            Some("http://127.0.0.1:1/dev")
        );
        assert_eq!(
            connection_string_part(cs, "AccountKey").as_deref(),
            Some("k==")
        );
    }
}
