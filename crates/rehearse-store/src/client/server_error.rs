//! A store server's error as a sentence: opendal hands it on as its services' `Debug` form
//! (`S3Error { code: "AccessDenied", message: "Access Denied", resource: "", request_id: "" }`,
//! and likewise `AzblobError`, `GcsErrorResponse`, WebHDFS's `WebHdfsError`; opendal 0.57,
//! `opendal-service-*/src/error.rs` `parse_error`), which the breaker pass printed raw (U1).

/// `message` as `code: message (request id …)` when it is such a `Debug` form; else as it is.
/// The code stays first, so the callers' matching on codes (`accessdenied`, `nosuchbucket`,
/// `slowdown`) reads the same text.
pub(super) fn server_said(message: &str) -> String {
    if !looks_like_debug_struct(message) {
        return message.to_string();
    }
    let code = field(message, "code").or_else(|| field(message, "exception"));
    let text = field(message, "message").or_else(|| field(message, "reason"));
    let request = field(message, "request_id");
    let mut out = match (code, text) {
        (Some(c), Some(t)) => format!("{c}: {t}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => return message.to_string(),
    };
    if let Some(id) = request {
        out.push_str(&format!(" (request id {id})"));
    }
    out
}

/// `Name { …` with `Name` a Rust type name.
fn looks_like_debug_struct(message: &str) -> bool {
    message.split_once(" {").is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The first non-empty value of `name: "…"` (unescaped) or `name: 123` in a `Debug` form.
fn field(message: &str, name: &str) -> Option<String> {
    let key = format!("{name}: ");
    let mut from = 0;
    while let Some(at) = message[from..].find(&key) {
        let start = from + at;
        from = start + key.len();
        // `code` must not match the end of `error_code`.
        let before = message[..start].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &message[from..];
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.chars();
            loop {
                match chars.next() {
                    None | Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some('n') => out.push(' '),
                        Some(c) => out.push(c),
                        None => break,
                    },
                    Some(c) => out.push(c),
                }
            }
            out
        } else {
            rest.chars().take_while(char::is_ascii_digit).collect()
        };
        let value = value.trim().to_string();
        if !value.is_empty() {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::server_said;

    #[test]
    fn each_services_debug_form_is_said_as_code_and_message() {
        for (raw, said) in [
            (
                r#"S3Error { code: "AccessDenied", message: "Access Denied", resource: "", request_id: "" }"#,
                "AccessDenied: Access Denied",
            ),
            (
                r#"S3Error { code: "NoSuchBucket", message: "The specified bucket does not exist", resource: "/bkt", request_id: "4442587FB7D0A2F9" }"#,
                "NoSuchBucket: The specified bucket does not exist (request id 4442587FB7D0A2F9)",
            ),
            (
                r#"AzblobError { code: "AuthorizationFailure", message: "This request is not authorized.\nRequestId:1", query_parameter_name: "", query_parameter_value: "", reason: "" }"#,
                "AuthorizationFailure: This request is not authorized. RequestId:1",
            ),
            (
                r#"GcsErrorResponse { error: GcsError { code: 403, message: "a@b.iam.gserviceaccount.com does not have storage.objects.list access", errors: [GcsErrorDetail { domain: "global", location: "", location_type: "", message: "x", reason: "forbidden" }] } }"#,
                "403: a@b.iam.gserviceaccount.com does not have storage.objects.list access",
            ),
            (
                r#"WebHdfsError { exception: "AccessControlException", message: "Permission denied: user=bob, access=READ_EXECUTE", java_class_name: "org.apache.hadoop.security.AccessControlException" }"#,
                "AccessControlException: Permission denied: user=bob, access=READ_EXECUTE",
            ),
            (
                r#"S3Error { code: "Say \"no\"", message: "", resource: "", request_id: "" }"#,
                r#"Say "no""#,
            ),
            // Not a Debug form: as it is.
            (
                "<html>gateway says no</html>",
                "<html>gateway says no</html>",
            ),
            (
                "permission denied { quoted }",
                "permission denied { quoted }",
            ),
            ("Empty { }", "Empty { }"),
        ] {
            assert_eq!(server_said(raw), said, "{raw}");
        }
    }
}
