//! `[kafka.mirror]`: the production Kafka cluster whose records a trial copies into its sandbox
//! broker (read-only), and the client properties file that says how to reach it. Checked whole
//! at load, before any image or container: the file exists, every key is one rehearse knows,
//! the mechanism is one librdkafka builds in (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), every
//! certificate file named exists. The file is read as Java reads a `.properties` file
//! (`java.util.Properties#load`: `key=value`, `key: value` or `key value`, `#`/`!` comments),
//! so the file a team gives its Java clients (`--consumer.config`) works here too; the Java
//! keys (`sasl.jaas.config`, `ssl.truststore.*`) are translated to librdkafka's.
//! Secret values are kept apart ([`MirrorConfig::secrets`]) so every message can mask them.

use std::path::{Path, PathBuf};

/// Records per partition below the checkpointed offset copied by default (a re-run pending
/// batch reads them).
pub const DEFAULT_MIRROR_HISTORY: u64 = 1000;
/// Records per partition from the checkpointed offset on copied by default (the restart's new work).
pub const DEFAULT_MIRROR_FRESH: u64 = 1000;
/// At most this many records per partition are copied (memory: they are held until produced).
pub const MAX_MIRROR_RECORDS: u64 = 1_000_000;

/// `[kafka.mirror]`, checked.
#[derive(Clone, PartialEq, Eq)]
pub struct MirrorConfig {
    /// `bootstrap_servers` of the production cluster (`host:port[,host:port…]`).
    pub bootstrap: String,
    /// The client properties file, if one was given (absolute).
    pub properties_file: Option<PathBuf>,
    /// librdkafka settings translated from the properties file (secrets included: never print
    /// them; [`MirrorConfig::masked`] is the printable form).
    pub client: Vec<(String, String)>,
    /// Records per partition copied below the checkpointed offset.
    pub history: u64,
    /// Records per partition copied from the checkpointed offset on.
    pub fresh: u64,
    /// Values of `client` that ran on over continuation lines: never shown, masked as the
    /// passwords are (a `\` at a line's end makes the next line, which may be a password on a
    /// line of its own, part of the value; found by tests/integration/properties.rs).
    pub hidden: Vec<String>,
}

impl std::fmt::Debug for MirrorConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MirrorConfig")
            .field("bootstrap", &self.bootstrap)
            .field("properties_file", &self.properties_file)
            .field("client", &self.masked())
            .field("history", &self.history)
            .field("fresh", &self.fresh)
            .field("hidden", &self.hidden.len())
            .finish()
    }
}

/// The librdkafka keys whose values are secrets.
const SECRET_KEYS: &[&str] = &["sasl.password", "ssl.key.password", "ssl.keystore.password"];

impl MirrorConfig {
    /// The client settings with secret values as `***`.
    pub fn masked(&self) -> Vec<(String, String)> {
        self.client
            .iter()
            .map(|(k, v)| {
                let v = if SECRET_KEYS.contains(&k.as_str()) || self.hidden.contains(v) {
                    "***".to_string()
                } else {
                    rehearse_base::text::mask(v).into_owned()
                };
                (k.clone(), v)
            })
            .collect()
    }

    /// The secret values (passwords), for [`rehearse_base::text::mask_secrets`].
    pub fn secrets(&self) -> Vec<String> {
        self.client
            .iter()
            .filter(|(k, v)| SECRET_KEYS.contains(&k.as_str()) && !v.is_empty())
            .map(|(_, v)| v.clone())
            .chain(self.hidden.iter().filter(|v| !v.is_empty()).cloned())
            .collect()
    }
}

/// Properties keys rehearse knows, as a Java client or librdkafka names them.
const KNOWN_KEYS: &[&str] = &[
    "security.protocol",
    "sasl.mechanism",
    "sasl.mechanisms",
    "sasl.username",
    "sasl.password",
    "sasl.jaas.config",
    "ssl.ca.location",
    "ssl.certificate.location",
    "ssl.key.location",
    "ssl.key.password",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.type",
    "ssl.endpoint.identification.algorithm",
    "client.id",
    "client.dns.lookup",
];

/// Mechanisms librdkafka builds in without Cyrus SASL (GSSAPI) or an OAuth token callback.
const MECHANISMS: &[&str] = &["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];
const PROTOCOLS: &[&str] = &["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"];

/// Checks `[kafka.mirror]` (`file`: the scenario, for relative paths) and reads its properties
/// file. The message names the file and key and says the fix.
pub fn mirror_config(
    bootstrap: &str,
    properties: Option<&Path>,
    history: Option<u64>,
    fresh: Option<u64>,
    dir: &Path,
) -> Result<MirrorConfig, String> {
    let bootstrap = bootstrap.trim();
    if bootstrap.contains('@') {
        // `alice:SECRET@host:9093` passed the host:port check (its last `:` is the port's)
        // and was echoed; the value is not shown, whatever it holds.
        return Err(
            "[kafka.mirror] bootstrap_servers holds a user name or password (a `…@` before a host); the value is not shown\n(hint: give only host:port[,host:port…], as the production clients' bootstrap.servers; put the user and password in the client properties file ([kafka.mirror] properties): sasl.username/sasl.password or sasl.jaas.config, with security.protocol and sasl.mechanism)".to_owned(),
        );
    }
    if bootstrap.is_empty()
        || bootstrap.split(',').any(|h| {
            h.trim()
                .rsplit_once(':')
                .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err())
        })
    {
        return Err(format!(
            "[kafka.mirror] bootstrap_servers = {bootstrap:?} is not host:port[,host:port…]\n(hint: the production cluster's bootstrap servers, as its clients' bootstrap.servers)"
        ));
    }
    let history = history.unwrap_or(DEFAULT_MIRROR_HISTORY);
    let fresh = fresh.unwrap_or(DEFAULT_MIRROR_FRESH);
    for (key, n) in [("history", history), ("fresh", fresh)] {
        if n > MAX_MIRROR_RECORDS {
            return Err(format!(
                "[kafka.mirror] {key} = {n} is more than {MAX_MIRROR_RECORDS} records per partition\n(hint: a rehearsal needs the records around the checkpoint, not the whole topic)"
            ));
        }
    }
    if history + fresh == 0 {
        return Err("[kafka.mirror] history and fresh are both 0: nothing would be copied\n(hint: fresh = 1000 copies the next records the restart reads)".into());
    }
    let (properties_file, (client, hidden)) = match properties {
        None => (None, (Vec::new(), Vec::new())),
        Some(p) => {
            let path = if p.is_absolute() {
                p.to_path_buf()
            } else {
                dir.join(p)
            };
            let text = rehearse_base::userfile::read_text(
                &path,
                "Kafka client properties",
                rehearse_base::userfile::MAX_CONFIG_BYTES,
            )
            .map_err(|e| format!("[kafka.mirror] properties: {e}"))?;
            let client = client_settings(&text, &path)?;
            (Some(path), client)
        }
    };
    Ok(MirrorConfig {
        bootstrap: bootstrap.to_string(),
        properties_file,
        client,
        history,
        fresh,
        hidden,
    })
}

/// `key=value` pairs of a Java `.properties` text with their line numbers and whether the
/// value runs on over continuation lines (joined; escapes other than `\\` and line
/// continuations are kept as written).
fn properties(text: &str) -> Vec<(usize, String, String, bool)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let mut logical = line.trim_start().to_string();
        if logical.is_empty() || logical.starts_with('#') || logical.starts_with('!') {
            continue;
        }
        let mut continued = false;
        while logical.ends_with('\\') && !logical.ends_with("\\\\") {
            logical.pop();
            match lines.next() {
                Some((_, next)) => {
                    logical.push_str(next.trim_start());
                    continued = true;
                }
                None => break,
            }
        }
        let (k, v) = split_property(&logical);
        out.push((i + 1, k, v.trim().replace("\\\\", "\\"), continued));
    }
    out
}

/// A value as a message shows it: [`rehearse_base::text::quoted`], or not at all when it ran on over
/// continuation lines — a `\` at a line's end makes the next line, which may be a password on
/// a line of its own, part of the value (found by tests/integration/properties.rs).
fn shown_value(value: &str, continued: bool) -> String {
    if continued {
        "(a value continued over several lines; not shown: it may hold a secret)".to_string()
    } else {
        rehearse_base::text::quoted(value)
    }
}

/// One logical line split as `java.util.Properties.load` splits it: the key ends at the first
/// unescaped `=`, `:` or whitespace (a backslash escapes the next character of the key); then
/// whitespace, at most one `=` or `:`, and whitespace are skipped; the rest is the value. The
/// first `=`/`:` alone is not enough: `sasl.password s3:cret` is key `sasl.password`, value
/// `s3:cret` (breaker pass: the old split printed `sasl.password s3` as an unknown key, the
/// start of the password with it).
fn split_property(line: &str) -> (String, &str) {
    let mut key = String::new();
    let mut chars = line.char_indices();
    let mut end = line.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, next)) = chars.next() {
                    key.push(next);
                }
            }
            '=' | ':' => {
                end = i;
                break;
            }
            c if c.is_whitespace() => {
                end = i;
                break;
            }
            c => key.push(c),
        }
    }
    let rest = line[end..].trim_start();
    let rest = rest.strip_prefix(['=', ':']).unwrap_or(rest);
    (key, rest.trim_start())
}

/// librdkafka settings, and the values among them never to show (see [`MirrorConfig::hidden`]).
type Settings = (Vec<(String, String)>, Vec<String>);

/// The librdkafka settings of a properties file, checked.
fn client_settings(text: &str, path: &Path) -> Result<Settings, String> {
    let at = |line: usize| format!("{}:{line}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out: Vec<(String, String)> = Vec::new();
    let mut truststore_type = None;
    let mut keystore_type = None;
    let props = properties(text);
    for (line, key, value, continued) in &props {
        // A line that is not `name = value` may be a secret on a line of its own (a JAAS
        // `password="…";` whose `\` continuation was lost, a bare password): never echoed.
        let named = !value.is_empty()
            && !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !KNOWN_KEYS.contains(&key.as_str()) && (!named || *continued) {
            return Err(format!(
                "{}: not a `key = value` setting (the line is not shown: it may hold a secret)\n(hint: a JAAS line continued on the next needs a `\\` at its end: sasl.jaas.config=… required \\ then username=\"…\" password=\"…\"; on the next line; remove anything else)",
                at(*line)
            ));
        }
        if !KNOWN_KEYS.contains(&key.as_str()) {
            return Err(format!(
                "{}: unknown key {key:?}\n(hint: rehearse reads security.protocol, sasl.mechanism, sasl.username/sasl.password or sasl.jaas.config, and the ssl.* files; remove the key, or the consumer setting it is: the mirror reads without a group)",
                at(*line)
            ));
        }
        if key == "ssl.truststore.type" {
            truststore_type = props
                .iter()
                .find(|p| p.1 == *key)
                .map(|p| p.2.to_uppercase());
        }
        if key == "ssl.keystore.type" {
            keystore_type = props
                .iter()
                .find(|p| p.1 == *key)
                .map(|p| p.2.to_uppercase());
        }
    }
    let file = |line: usize, key: &str, value: &str, continued: bool| -> Result<String, String> {
        let p = Path::new(value);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        };
        // librdkafka reads `ssl.ca.location` as a file or a directory of CA certificates
        // (OpenSSL's CApath); every other file key names one file.
        if key == "ssl.ca.location" && p.is_dir() {
            return Ok(p.display().to_string());
        }
        // Said as what is there: a FIFO or a directory was called "no such file" (issue 25 §7).
        rehearse_base::userfile::check_regular(&p, key, rehearse_base::userfile::MAX_CONFIG_BYTES).map_err(
            |e| {
                let what = match e {
                    rehearse_base::userfile::UserFileError::Missing { .. } => "no such file".to_string(),
                    rehearse_base::userfile::UserFileError::Directory { .. } => {
                        "a directory, not a file".to_string()
                    }
                    rehearse_base::userfile::UserFileError::NotRegular { kind, .. } => format!(
                        "a {kind}, not a regular file (librdkafka would block reading a pipe)"
                    ),
                    rehearse_base::userfile::UserFileError::TooBig { size, max, .. } => {
                        format!("{size} bytes, over the {max} bytes a certificate or key file holds")
                    }
                    other => other.to_string().lines().next().unwrap_or_default().to_string(),
                };
                format!(
                    "{}: {key} = {}: {what} ({})\n(hint: name a PEM (or PKCS12 keystore) file, a path relative to the properties file, or absolute)",
                    at(line),
                    shown_value(value, continued),
                    // The path holds the value: masked, and not shown when the value is not.
                    if continued {
                        "the path is not shown".to_string()
                    } else {
                        rehearse_base::text::mask(&p.display().to_string()).into_owned()
                    }
                )
            },
        )?;
        Ok(p.display().to_string())
    };
    // The properties line each setting of `out` comes from, for librdkafka's refusals.
    let mut origin: Vec<usize> = Vec::new();
    // Settings of `out` whose value ran on over continuation lines (never shown).
    let mut hidden: Vec<bool> = Vec::new();
    for (line, key, value, continued) in &props {
        let (line, value, continued) = (*line, value.as_str(), *continued);
        let file = |line, key, value| file(line, key, value, continued);
        match key.as_str() {
            "security.protocol" => {
                if !PROTOCOLS.contains(&value.to_uppercase().as_str()) {
                    return Err(format!(
                        "{}: security.protocol = {} is not one of {}",
                        at(line),
                        shown_value(value, continued),
                        PROTOCOLS.join(", ")
                    ));
                }
                out.push((key.clone(), value.to_uppercase()));
            }
            "sasl.mechanism" | "sasl.mechanisms" => {
                if !MECHANISMS.contains(&value.to_uppercase().as_str()) {
                    return Err(format!(
                        "{}: sasl.mechanism = {} is not supported\n(hint: rehearse's Kafka client (librdkafka, built without Cyrus SASL or OAuth callbacks) speaks {}; give it a user of one of these)",
                        at(line),
                        shown_value(value, continued),
                        MECHANISMS.join(", ")
                    ));
                }
                out.push(("sasl.mechanism".into(), value.to_uppercase()));
            }
            "sasl.jaas.config" => {
                let (user, pass) = jaas_credentials(value).ok_or_else(|| {
                    format!(
                        "{}: sasl.jaas.config has no username=\"…\" password=\"…\"\n(hint: PlainLoginModule or ScramLoginModule required username=\"…\" password=\"…\";)",
                        at(line)
                    )
                })?;
                if value.contains("OAuthBearerLoginModule") || value.contains("Krb5LoginModule") {
                    return Err(format!("{}: sasl.jaas.config names a login module rehearse cannot use\n(hint: PLAIN or SCRAM only)", at(line)));
                }
                out.push(("sasl.username".into(), user));
                out.push(("sasl.password".into(), pass));
            }
            "ssl.truststore.location" => {
                if truststore_type.as_deref() != Some("PEM") {
                    return Err(format!(
                        "{}: ssl.truststore.location is a {} truststore, which librdkafka cannot read\n(hint: give the CA as PEM: ssl.truststore.type=PEM, or ssl.ca.location=ca.pem exported with `keytool -exportcert -rfc -alias <ca> -keystore <truststore> -file ca.pem`)",
                        at(line),
                        truststore_type.as_deref().unwrap_or("JKS")
                    ));
                }
                out.push(("ssl.ca.location".into(), file(line, key, value)?));
            }
            "ssl.keystore.location" => {
                if matches!(keystore_type.as_deref(), Some(t) if t != "PKCS12") {
                    return Err(format!(
                        "{}: ssl.keystore.type = {} cannot be read by librdkafka\n(hint: a PKCS12 keystore, or ssl.certificate.location and ssl.key.location as PEM)",
                        at(line),
                        keystore_type.as_deref().unwrap_or("")
                    ));
                }
                out.push((key.clone(), file(line, key, value)?));
            }
            "ssl.ca.location" | "ssl.certificate.location" | "ssl.key.location" => {
                out.push((key.clone(), file(line, key, value)?));
            }
            "ssl.endpoint.identification.algorithm" => {
                // Java: "" turns host name checking off; librdkafka says "none".
                let v = if value.is_empty() { "none" } else { value };
                out.push((key.clone(), v.to_lowercase()));
            }
            "ssl.truststore.type" | "ssl.keystore.type" | "ssl.truststore.password" => {}
            _ => out.push((key.clone(), value.to_string())),
        }
        origin.resize(out.len(), line);
        // A JAAS line runs on by design; its password is a secret key's value anyway.
        hidden.resize(out.len(), continued && key != "sasl.jaas.config");
    }
    librdkafka_accepts(&out, &origin, &hidden, path)?;
    let get = |k: &str| {
        out.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let sasl = get("security.protocol").is_some_and(|p| p.starts_with("SASL_"));
    if sasl && (get("sasl.username").is_none() || get("sasl.password").is_none()) {
        return Err(format!(
            "{}: security.protocol is {} but no sasl.username/sasl.password or sasl.jaas.config is given\n(hint: the user the mirror reads as)",
            path.display(),
            get("security.protocol").unwrap_or("")
        ));
    }
    if sasl && get("sasl.mechanism").is_none() {
        // Java's and librdkafka's default is GSSAPI.
        return Err(format!(
            "{}: security.protocol is SASL but sasl.mechanism is not given (the default is GSSAPI, which rehearse cannot use)\n(hint: sasl.mechanism=SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN)",
            path.display()
        ));
    }
    let hidden_values = out
        .iter()
        .zip(&hidden)
        .filter(|(_, h)| **h)
        .map(|((_, v), _)| v.clone())
        .collect();
    Ok((out, hidden_values))
}

/// Each translated setting as librdkafka's own configuration parser takes it
/// (`rd_kafka_conf_set` through rdkafka's `ClientConfig::create_native_config`: no client is
/// created, nothing is connected to). rehearse checks the keys it knows and their files; the
/// values of the others (`client.dns.lookup=bogus`) only librdkafka judges, and a value it
/// refused surfaced after the sandbox started as "cannot reach the production cluster", exit 4,
/// with no file or line (issue 25 §6). `origin[i]` is the line `settings[i]` comes from.
fn librdkafka_accepts(
    settings: &[(String, String)],
    origin: &[usize],
    hidden: &[bool],
    path: &Path,
) -> Result<(), String> {
    for (i, (key, value)) in settings.iter().enumerate() {
        let mut config = rdkafka::ClientConfig::new();
        config.set(key, value);
        if let Err(e) = config.create_native_config() {
            let why = match &e {
                rdkafka::error::KafkaError::ClientConfig(_, description, _, _) => {
                    description.clone()
                }
                other => other.to_string(),
            };
            let secret = SECRET_KEYS.contains(&key.as_str()) || hidden.get(i) == Some(&true);
            let shown = if secret {
                "(the value is not shown: it may hold a secret)".to_string()
            } else {
                rehearse_base::text::quoted(value)
            };
            // librdkafka's description quotes the value; a secret's is not repeated.
            let why = if secret {
                "librdkafka refuses it".to_string()
            } else if value.chars().count() > rehearse_base::text::QUOTE_CHARS {
                // Already quoted, clipped, before it.
                rehearse_base::text::mask(&why.replace(value.as_str(), "…")).into_owned()
            } else {
                rehearse_base::text::mask(&why).into_owned()
            };
            return Err(format!(
                "{}:{}: {key} = {shown}: librdkafka, rehearse's Kafka client, refuses this value: {why}\n(hint: give a value librdkafka takes for {key} (see librdkafka's CONFIGURATION.md), or remove the line to use its default)",
                path.display(),
                origin.get(i).copied().unwrap_or(0)
            ));
        }
    }
    Ok(())
}

/// `username="…"` and `password="…"` of a JAAS line.
fn jaas_credentials(jaas: &str) -> Option<(String, String)> {
    let value = |name: &str| -> Option<String> {
        let at = jaas.find(&format!("{name}="))? + name.len() + 1;
        let rest = &jaas[at..];
        let rest = rest.strip_prefix('"')?;
        let end = rest.find('"')?;
        Some(rest[..end].to_string())
    };
    Some((value("username")?, value("password")?))
}

#[cfg(test)]
mod split_tests {
    use super::split_property;

    /// As java.util.Properties.load reads each line.
    #[test]
    fn a_line_splits_where_java_splits_it() {
        for (line, key, value) in [
            (
                "sasl.password s3:cretSECRETPW",
                "sasl.password",
                "s3:cretSECRETPW",
            ),
            ("sasl.password=a=b:c", "sasl.password", "a=b:c"),
            ("sasl.password : x y", "sasl.password", "x y"),
            ("sasl.password\t= x", "sasl.password", "x"),
            (
                "security.protocol:SASL_SSL",
                "security.protocol",
                "SASL_SSL",
            ),
            ("a\\ b = c", "a b", "c"),
            ("lonely", "lonely", ""),
        ] {
            let (k, v) = split_property(line);
            assert_eq!((k.as_str(), v), (key, value), "{line:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_java_client_file_is_translated_and_its_secrets_are_masked() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "ca.pem", "x");
        write(
            d.path(),
            "client.properties",
            "# prod\nsecurity.protocol=SASL_SSL\nsasl.mechanism: SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n  username=\"alice\" password=\"s3cr3t\";\nssl.truststore.type=PEM\nssl.truststore.location=ca.pem\n",
        );
        let m = mirror_config(
            "prod:9093",
            Some(Path::new("client.properties")),
            None,
            Some(5),
            d.path(),
        )
        .unwrap();
        assert_eq!((m.history, m.fresh), (DEFAULT_MIRROR_HISTORY, 5));
        let get = |k: &str| {
            m.client
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(get("sasl.username").as_deref(), Some("alice"));
        assert_eq!(get("sasl.password").as_deref(), Some("s3cr3t"));
        assert_eq!(get("sasl.mechanism").as_deref(), Some("SCRAM-SHA-512"));
        assert!(get("ssl.ca.location").unwrap().ends_with("ca.pem"));
        assert_eq!(m.secrets(), ["s3cr3t"]);
        assert!(!format!("{m:?}").contains("s3cr3t"), "{m:?}");
    }

    /// Issue 25 §7: a FIFO or a directory given as a certificate file was called "no such
    /// file"; each is said as what it is, and a FIFO is never opened (librdkafka would block).
    /// A directory of CA certificates is what librdkafka's ssl.ca.location also takes.
    #[test]
    fn certificate_paths_are_said_as_what_they_are() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("certs")).unwrap();
        let fifo = d.path().join("ca.fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        for (text, wanted) in [
            (
                "ssl.ca.location=ca.fifo\n",
                ":1: ssl.ca.location = \"ca.fifo\": a FIFO (named pipe), not a regular file",
            ),
            (
                "ssl.certificate.location=certs\n",
                ":1: ssl.certificate.location = \"certs\": a directory, not a file",
            ),
            (
                "ssl.key.location=missing.pem\n",
                ":1: ssl.key.location = \"missing.pem\": no such file",
            ),
        ] {
            write(d.path(), "c.properties", text);
            let e = mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path())
                .unwrap_err();
            assert!(
                e.contains("c.properties") && e.contains(wanted),
                "{text}: {e}"
            );
        }
        // Found by the property suite (tests/integration/properties.rs): a `\` continuation
        // made the next line, a password, the value of a file key; the path shown held it.
        write(
            d.path(),
            "c.properties",
            "ssl.ca.location=\\\nsasl.password=Pl4ntedAaaA00AA0A\n ",
        );
        let e = mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path())
            .unwrap_err();
        assert!(e.contains("no such file") && !e.contains("Pl4nted"), "{e}");
        // A setting that does load keeps such a value out of its Debug and masks it in messages.
        write(
            d.path(),
            "c.properties",
            "client.id=\\\nsasl.password=Pl4ntedAa0000AaAA\nclient.id=",
        );
        let m =
            mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path()).unwrap();
        assert!(!format!("{m:?}").contains("Pl4nted"), "{m:?}");
        assert!(m.secrets().iter().any(|s| s.contains("Pl4nted")));
        // The same with a bare password line: the value itself is not shown either.
        for text in [
            "ssl.ca.location=\\\nPl4ntedAaaA00AA0A\n ",
            "security.protocol=\\\nPl4ntedAaaA00AA0A\n",
            "client.dns.lookup=\\\nPl4ntedAaaA00AA0A\n",
            "group.id=\\\nPl4ntedAaaA00AA0A\n",
        ] {
            write(d.path(), "c.properties", text);
            let e = mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path())
                .unwrap_err();
            assert!(
                e.contains("c.properties:1") && !e.contains("Pl4nted"),
                "{text:?}: {e}"
            );
        }
        write(d.path(), "c.properties", "ssl.ca.location=certs\n");
        let m =
            mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path()).unwrap();
        assert!(m.client[0].1.ends_with("certs"), "{:?}", m.client);
    }

    #[test]
    fn bad_properties_name_the_file_line_and_key() {
        let d = tempfile::tempdir().unwrap();
        for (text, wanted) in [
            ("group.id=x\n", ":1: unknown key \"group.id\""),
            (
                "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n",
                ":2: sasl.mechanism = \"GSSAPI\" is not supported",
            ),
            (
                "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n",
                "no sasl.username",
            ),
            (
                "ssl.ca.location=missing.pem\n",
                ":1: ssl.ca.location = \"missing.pem\": no such file",
            ),
            (
                "ssl.truststore.location=t.jks\n",
                "JKS truststore, which librdkafka cannot read",
            ),
            // Issue 25 §3: a password on a line of its own was echoed as an "unknown key".
            (
                "sasl.username=alice\nhunter2-Secret\n",
                ":2: not a `key = value` setting (the line is not shown",
            ),
            (
                "sasl.jaas.config=x required username=\"alice\"\n  \"jaas-Secret1\";\n",
                ":2: not a `key = value` setting",
            ),
        ] {
            write(d.path(), "c.properties", text);
            let e = mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path())
                .unwrap_err();
            assert!(
                e.contains("c.properties") && e.contains(wanted),
                "{text}: {e}"
            );
            for secret in ["hunter2", "jaas-Secret1"] {
                assert!(!e.contains(secret), "{text}: {e}");
            }
        }
        // Issue 25 §6: values only librdkafka judges were refused after the sandbox started,
        // as "cannot reach the production cluster" (exit 4) with no file or line.
        for (text, wanted) in [
            (
                "security.protocol=SSL\nclient.dns.lookup=bogus\n",
                ":2: client.dns.lookup = \"bogus\": librdkafka, rehearse's Kafka client, refuses this value: Invalid value \"bogus\"",
            ),
            (
                "ssl.endpoint.identification.algorithm=sometimes\n",
                ":1: ssl.endpoint.identification.algorithm = \"sometimes\": librdkafka",
            ),
        ] {
            write(d.path(), "c.properties", text);
            let e = mirror_config("h:1", Some(Path::new("c.properties")), None, None, d.path())
                .unwrap_err();
            assert!(e.contains("c.properties") && e.contains(wanted), "{text}: {e}");
        }
        let e = mirror_config(
            "h:1",
            Some(Path::new("nope.properties")),
            None,
            None,
            d.path(),
        )
        .unwrap_err();
        assert!(e.contains("nope.properties"), "{e}");
        // Issue 25 §3: a user and password in the servers passed the host:port check and were
        // echoed in the message of a failed connection (exit 4); refused at load, not shown.
        for servers in [
            "alice:SECRET-pw1@prod:9093",
            "prod:9092,SASL_SSL://alice:SECRET-pw1@prod:9093",
        ] {
            let e = mirror_config(servers, None, None, None, d.path()).unwrap_err();
            assert!(
                e.contains("bootstrap_servers holds a user name or password")
                    && e.contains("sasl.username"),
                "{e}"
            );
            assert!(!e.contains("SECRET-pw1") && !e.contains("alice"), "{e}");
        }
        assert!(mirror_config("nohostport", None, None, None, d.path())
            .unwrap_err()
            .contains("bootstrap_servers"));
        assert!(mirror_config("h:1", None, Some(0), Some(0), d.path())
            .unwrap_err()
            .contains("nothing would be copied"));
    }
}
