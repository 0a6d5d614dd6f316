//! Text made safe to show: [`sanitize`] strips what a log line must not carry to a terminal or a
//! Markdown summary. A leaf module: every human-readable writer (the checkpoint report, the
//! classification text, the run and matrix reports) uses it, and it imports nothing of rehearse.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Removes ANSI escape sequences and control characters other than tab and newline (C0, DEL
/// and the 8-bit C1 controls, which some terminals obey too).
///
/// Evidence is copied verbatim from driver logs; a coloured log (or a stray `\r`) must not
/// repaint the user's terminal or leak escape codes into a Markdown job summary.
pub fn sanitize(line: &str) -> Cow<'_, str> {
    static ANSI: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f\u{80}-\u{9f}]")
            .expect("the pattern is a valid regex")
    });
    ANSI.replace_all(line, "")
}

/// `scheme://user:***@host/…` for every `scheme://user:password@host/…` in `text`: the one rule
/// for a URL's password wherever rehearse shows or logs one (store URLs, `MAVEN_REPO`, pip
/// requirement lines and resolver logs). The userinfo ends at the authority's last `@` (as a URL
/// parser reads it); a userinfo without `:` (Azure's `container@account`) holds no password
/// and is kept.
pub fn mask_userinfo(text: &str) -> Cow<'_, str> {
    static USERINFO: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^\s/?#@:]*):[^\s/?#]*@")
            .expect("the pattern is a valid regex")
    });
    USERINFO.replace_all(text, "${1}${2}:***@")
}

/// `text` with every secret masked as `***`: a URL's password ([`mask_userinfo`]), the value of
/// a `…password…` setting (`sasl.password=…`, JAAS `password="…"`), and each of `secrets`
/// (the passwords a Kafka client properties file gave) wherever it occurs. The one rule every
/// message, log line and report about a production Kafka passes through.
pub fn mask_secrets<'a>(text: &'a str, secrets: &[String]) -> Cow<'a, str> {
    static SETTING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)(\b[a-z.\-_]*password\s*[=:]\s*)("[^"]*"|[^\s;,"]+)"#)
            .expect("the pattern is a valid regex")
    });
    let mut out = mask_userinfo(text);
    if SETTING.is_match(&out) {
        out = Cow::Owned(SETTING.replace_all(&out, "${1}***").into_owned());
    }
    for s in secrets.iter().filter(|s| !s.is_empty()) {
        if out.contains(s.as_str()) {
            out = Cow::Owned(out.replace(s.as_str(), "***"));
        }
    }
    out
}

/// Epoch milliseconds as an ISO-8601 UTC instant to the second: `2024-01-01T00:00:24Z`
/// (no time zone database needed).
pub fn utc_seconds(ms: i64) -> String {
    let (date, h, m, s) = utc_parts(ms);
    format!("{date}T{h:02}:{m:02}:{s:02}Z")
}

/// Epoch milliseconds as Spark prints a watermark: `2024-01-01T00:00:24.000Z`.
pub fn utc_millis(ms: i64) -> String {
    let (date, h, m, s) = utc_parts(ms);
    format!("{date}T{h:02}:{m:02}:{s:02}.{:03}Z", ms.rem_euclid(1000))
}

/// (`YYYY-MM-DD`, hour, minute, second) of epoch milliseconds, UTC.
fn utc_parts(ms: i64) -> (String, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    (
        format!("{y:04}-{m:02}-{d:02}"),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
    )
}

/// Epoch milliseconds of a UTC timestamp as Spark's progress reports write them
/// (`2024-01-01T00:00:24.000Z`: `ProgressReporter.formatTimestamp`, the pattern
/// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC); the fraction may be absent. `None` for anything else.
pub fn parse_utc_millis(at: &str) -> Option<i64> {
    let at = at.strip_suffix('Z')?;
    let (date, time) = at.split_once('T')?;
    let mut d = date.splitn(3, '-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let mut t = hms.splitn(3, ':');
    let h: i64 = t.next()?.parse().ok()?;
    let min: i64 = t.next()?.parse().ok()?;
    let s: i64 = t.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || min > 59 || s > 60 {
        return None;
    }
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ms: i64 = format!("{frac:0<3}")[..3].parse().ok()?;
    Some((days_from_civil(y, m, day) * 86_400 + h * 3600 + min * 60 + s) * 1000 + ms)
}

/// Howard Hinnant's `days_from_civil`: (year, month, day) → days since 1970-01-01.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 → (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A byte count for people: `17 B`, `512.0 KiB`, `2.1 GiB` (binary units, one decimal).
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_read_as_people_read_them() {
        assert_eq!(super::bytes(17), "17 B");
        assert_eq!(super::bytes(512 * 1024), "512.0 KiB");
        assert_eq!(super::bytes(2_254_857_830), "2.1 GiB");
        assert_eq!(super::bytes(u64::MAX), "16384.0 PiB");
    }

    use super::*;

    #[test]
    fn spark_timestamps_parse_back_to_their_millis() {
        for ms in [0, 1_704_067_224_000, 1_764_547_207_123, 951_782_400_000] {
            assert_eq!(parse_utc_millis(&utc_millis(ms)), Some(ms), "{ms}");
        }
        assert_eq!(
            parse_utc_millis("2024-01-01T00:00:24Z"),
            Some(1_704_067_224_000)
        );
        assert_eq!(
            parse_utc_millis("2024-01-01T00:00:24.5Z"),
            Some(1_704_067_224_500)
        );
        for bad in [
            "",
            "2024-01-01",
            "2024-13-01T00:00:00.000Z",
            "2024-01-01T00:00:00.000",
            "x",
        ] {
            assert_eq!(parse_utc_millis(bad), None, "{bad}");
        }
    }

    /// The breaker pass: `MAVEN_REPO=https://alice:SuperSecret123@host/maven2` was printed
    /// whole in errors and the mvn log.
    #[test]
    fn a_urls_password_is_masked_wherever_it_stands_in_text() {
        assert_eq!(
            mask_userinfo("mirror https://alice:SuperSecret123@host/maven2 failed"),
            "mirror https://alice:***@host/maven2 failed"
        );
        assert_eq!(
            mask_userinfo("six @ https://bob:TopSecret99@host/six.whl\nhttp://u:p@a@h:80/x"),
            "six @ https://bob:***@host/six.whl\nhttp://u:***@h:80/x"
        );
        for kept in [
            "abfss://container@account.dfs.core.windows.net/x",
            "https://host:8080/a@b",
            "https://alice@host/x",
            "no url here: a:b@c",
        ] {
            assert_eq!(mask_userinfo(kept), kept);
        }
    }

    #[test]
    fn sanitize_strips_ansi_and_control_characters_but_keeps_tabs() {
        let line = "\x1b[31mERROR\x1b[0m\tat Foo.bar\r";
        assert_eq!(sanitize(line), "ERROR\tat Foo.bar");
        // OSC (window title), bell, backspace, an 8-bit CSI.
        assert_eq!(sanitize("\x1b]0;owned\x07a\x08b\u{9b}2Jc"), "0;ownedab2Jc");
        assert_eq!(sanitize("plain → text"), "plain → text");
    }

    #[test]
    fn mask_secrets_hides_passwords_in_settings_jaas_lines_and_anywhere_named() {
        let secrets = vec!["hunter2".to_string()];
        let t = "sasl.password=hunter2 x; password=\"pw 1\"; SSL_KEYSTORE_PASSWORD: abc, kafka://u:p@h:1 said hunter2";
        let m = mask_secrets(t, &secrets);
        for gone in ["hunter2", "pw 1", "abc", "u:p@"] {
            assert!(!m.contains(gone), "{m}");
        }
        assert!(
            m.contains("sasl.password=***") && m.contains("password=***"),
            "{m}"
        );
        assert_eq!(mask_secrets("no secret here", &secrets), "no secret here");
    }
}
