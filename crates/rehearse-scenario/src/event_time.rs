//! Event-time placeholders of a record `template`, for jobs that parse the time from the
//! message rather than take Kafka's timestamp: every form fills the record's event time (the
//! `{timestamp_ms}` of [`RecordSource`](super::RecordSource)), in UTC.
//!
//! | placeholder | fills | e.g. |
//! |---|---|---|
//! | `{timestamp_ms}` | epoch milliseconds | `1704067200000` |
//! | `{timestamp_s}` | epoch seconds (floor) | `1704067200` |
//! | `{timestamp_iso}` | ISO-8601 with milliseconds | `2024-01-01T00:00:00.000Z` |
//! | `{timestamp:PATTERN}` | a datetime pattern as Spark's `to_timestamp(col, PATTERN)` takes it | `{timestamp:yyyy-MM-dd HH:mm:ss}` → `2024-01-01 00:00:00` |
//!
//! PATTERN letters are those of Spark's datetime patterns (docs/sql-ref-datetime-pattern.md,
//! Spark 3.0+; Java's `DateTimeFormatter`): `yyyy`/`yy`/`y` year, `MM`/`M` month, `dd`/`d` day,
//! `HH`/`H` hour (0–23), `mm`/`m` minute, `ss`/`s` second, `S`… fraction of a second (one
//! letter per digit), `X`/`XX`/`XXX` the zone (`Z`, UTC), `Z` (`+0000`); text in single quotes
//! is literal (`'T'`, `''` a quote), and any other character not a letter is kept as is. Other
//! letters (`a`, `E`, `hh`, `z`…) are refused at load with the list of those supported.

use chrono::{DateTime, Datelike, Timelike, Utc};

/// The letters a `{timestamp:PATTERN}` may hold.
const SUPPORTED: &str = "yyyy yy MM M dd d HH H mm m ss s S… X XX XXX Z, text in 'quotes'";

/// Checks every `{timestamp:PATTERN}` of `template` (the load check).
///
/// # Errors
/// The placeholder, what is wrong and the letters supported.
pub fn check(template: &str) -> Result<(), String> {
    let mut rest = template;
    while let Some(at) = rest.find("{timestamp:") {
        let after = &rest[at + "{timestamp:".len()..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "template {} opens {{timestamp: but never closes it: write {{timestamp:PATTERN}}, e.g. {{timestamp:yyyy-MM-dd HH:mm:ss}}",
                clipped(template)
            ));
        };
        let pattern = &after[..end];
        // A quote or brace in a pattern is the template's, not the pattern's: `"{timestamp:HH"}`
        // would close at the JSON's `}` and leave every record without it.
        if pattern.is_empty() || pattern.contains(['"', '{']) {
            return Err(format!(
                "template {}: {{timestamp:{pattern}}} is empty or holds a quote or brace: write {{timestamp:PATTERN}} closed by its own `}}`, e.g. {{timestamp:yyyy-MM-dd HH:mm:ss}}",
                clipped(template)
            ));
        }
        format(pattern, 0).map_err(|m| {
            format!(
                "template {}: {{timestamp:{}}}: {m}; supported: {SUPPORTED} (as Spark's to_timestamp patterns)",
                clipped(template),
                &after[..end]
            )
        })?;
        rest = &after[end..];
    }
    Ok(())
}

/// The template as an error quotes it: its first 80 characters (a megabyte template was
/// echoed whole).
fn clipped(template: &str) -> String {
    let head: String = template.chars().take(80).collect();
    if head.len() < template.len() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// `text` with `{timestamp_s}`, `{timestamp_iso}` and each `{timestamp:PATTERN}` filled with the
/// event time `ms` (epoch milliseconds, UTC). A pattern [`check`] refuses is left as written.
pub fn fill(text: &str, ms: i64) -> String {
    let text = text
        .replace("{timestamp_s}", &ms.div_euclid(1000).to_string())
        .replace("{timestamp_iso}", &iso(ms));
    if !text.contains("{timestamp:") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("{timestamp:") {
        let after = &rest[at + "{timestamp:".len()..];
        match after
            .find('}')
            .and_then(|end| format(&after[..end], ms).ok().map(|s| (end, s)))
        {
            Some((end, filled)) => {
                out.push_str(&rest[..at]);
                out.push_str(&filled);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[..at + 1]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `ms` as ISO-8601 UTC with milliseconds (`2024-01-01T00:00:00.000Z`).
pub fn iso(ms: i64) -> String {
    format("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", ms).unwrap_or_else(|_| ms.to_string())
}

/// `ms` rendered by a Spark datetime `pattern`.
fn format(pattern: &str, ms: i64) -> Result<String, String> {
    let t: DateTime<Utc> = DateTime::from_timestamp_millis(ms)
        .ok_or_else(|| format!("{ms} ms is outside the years a datetime can hold"))?;
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // '' is a quote; 'text' is literal text.
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            let close = chars[i + 1..]
                .iter()
                .position(|&q| q == '\'')
                .ok_or("a quote opens literal text but never closes it")?;
            out.extend(&chars[i + 1..i + 1 + close]);
            i += close + 2;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        i += run;
        if !c.is_ascii_alphabetic() {
            out.extend(std::iter::repeat_n(c, run));
            continue;
        }
        let pad = |v: i64, width: usize| format!("{v:0width$}");
        let field = match (c, run) {
            ('y', 2) => pad(i64::from(t.year()).rem_euclid(100), 2),
            ('y', _) => pad(i64::from(t.year()), run),
            ('M', 1 | 2) => pad(i64::from(t.month()), run),
            ('d', 1 | 2) => pad(i64::from(t.day()), run),
            ('H', 1 | 2) => pad(i64::from(t.hour()), run),
            ('m', 1 | 2) => pad(i64::from(t.minute()), run),
            ('s', 1 | 2) => pad(i64::from(t.second()), run),
            ('S', 1..=9) => {
                let nanos = format!("{:09}", t.timestamp_subsec_nanos());
                nanos[..run].to_string()
            }
            ('X', 1..=3) => "Z".to_string(),
            ('Z', 1..=3) => "+0000".to_string(),
            _ => {
                return Err(format!(
                    "the letters {:?} are not supported",
                    std::iter::repeat_n(c, run).collect::<String>()
                ))
            }
        };
        out.push_str(&field);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-03-05 07:08:09.123 UTC.
    const T: i64 = 1_709_622_489_123;

    #[test]
    fn patterns_as_the_three_public_jobs_parse_them() {
        // Issue 26 §2: the jobs parsed `yyyy-MM-dd HH:mm:ss`, ISO-8601 and epoch seconds.
        assert_eq!(
            fill(r#"{"ts":"{timestamp:yyyy-MM-dd HH:mm:ss}"}"#, T),
            r#"{"ts":"2024-03-05 07:08:09"}"#
        );
        assert_eq!(fill("{timestamp_iso}", T), "2024-03-05T07:08:09.123Z");
        assert_eq!(fill("{timestamp_s}", T), "1709622489");
        assert_eq!(
            fill("{timestamp:yyyy-MM-dd'T'HH:mm:ss.SSSXXX}", T),
            "2024-03-05T07:08:09.123Z"
        );
        assert_eq!(
            fill("{timestamp:yy/M/d H:m:s.S Z}", T),
            "24/3/5 7:8:9.1 +0000"
        );
        assert_eq!(fill("{timestamp:''dd''}", T), "'05'");
        // Before the epoch: seconds floor, the date is the day before.
        assert_eq!(
            fill("{timestamp_s} {timestamp:yyyy-MM-dd}", -1),
            "-1 1969-12-31"
        );
        // Two placeholders and text around them.
        assert_eq!(fill("a{timestamp:HH}b{timestamp:mm}c", T), "a07b08c");
    }

    #[test]
    fn unsupported_or_unclosed_patterns_are_refused_at_load_and_left_as_written() {
        for (bad, said) in [
            ("{timestamp:hh:mm a}", "\"hh\""),
            ("{timestamp:EEE}", "\"EEE\""),
            ("{timestamp:yyyy-MM-dd", "never closes"),
            ("{timestamp:'T}", "never closes"),
            (
                r#"{"t":"{timestamp:yyyy-MM-dd HH:mm:ss"}"#,
                "quote or brace",
            ),
            ("{timestamp:}", "empty"),
        ] {
            let e = check(bad).unwrap_err();
            assert!(e.contains(said), "{bad}: {e}");
        }
        check("{\"n\":{n},\"ts\":\"{timestamp:yyyy-MM-dd HH:mm:ss}\"}").unwrap();
        // A template that fills past what Kafka's producer sends is refused by its filled size
        // (it passed, at 930 KB written and 1.49 MB filled), and the error quotes 80 characters.
        let big = "{timestamp_iso}".repeat(62_000);
        let e = super::super::placeholders::check_template(&big).unwrap_err();
        assert!(
            e.contains("fills to about 1488000 bytes") && e.len() < 1000,
            "{e}"
        );
        let e = check(&format!("{}{{timestamp:EEE}}", "x".repeat(100_000))).unwrap_err();
        assert!(e.len() < 1000, "{}", e.len());
        assert_eq!(fill("{timestamp:EEE}", T), "{timestamp:EEE}");
    }
}
