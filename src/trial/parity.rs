//! Output parity judged (issue 13 §3): what a target's restart wrote after the restart, compared
//! with what the control wrote — the same sandbox copy restarted on the source version with the
//! unchanged job, over the same seeded records. Pure: the rows come in already read (the trial
//! reads the file sinks under `{output}` and the output topics); nothing here opens a file.
//!
//! Rows are compared as multisets (row order ignored). A JSON row (a JSON file sink's line, a
//! Kafka value that is a JSON object) is normalised first: the scenario's `volatile_columns`
//! removed (top-level keys), keys sorted, and each number compared by its exact decimal value
//! and its kind: a JSON integer as an integer; a number with a fraction or exponent as the
//! exact decimal it writes, in one form (`0.0020`, `0.002` and `2.0E-3` are one value — JDK
//! 8–18's `Double.toString`, which Jackson's `writeNumber(double)` uses for Spark's JSON output,
//! wrote some doubles longer than JDK 19+, JDK-4511638), never rounded to a double (a
//! `decimal(38,18)` that changed in its 18th digit differs; breaker pass, session 8). An
//! integer and a fraction are never one value: `1` and `1.0` differ, so an output column that
//! changed type (a long turned double) shows. A decimal column turned double shows only where
//! the values print differently (`0.33` vs `0.3333333333333333`; `100.00` and `100.0` are one
//! value).
//! Any other row is compared as its text.
//!
//! | what either side shows                                   | status        |
//! |----------------------------------------------------------|---------------|
//! | a row set's rows differ (any set)                        | `differs`     |
//! | none differ, but a set could not be read (Parquet, …)    | `not-checked` |
//! | neither side wrote a row that could be read              | `not-checked` |
//! | otherwise                                                | `same`        |
//!
//! The reasons a comparison cannot be fair at all (the control did not resume, a run did not
//! read every seeded record, the two brokers got other records) are decided by the caller and
//! passed as [`Parity::not_checked`]. Parity never changes a verdict. The report holds and shows
//! the result (`report/parity.rs`: [`Parity`], its summary); it judges nothing.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::report::{Parity, ParityStatus};

/// Most rows shown per side in [`Parity`]'s examples.
pub const PARITY_EXAMPLES: usize = 5;

/// What one run wrote to one place after its restart: a file sink directory, or an output
/// topic. The trial fills it; [`compare`] reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSet {
    /// Where: `file sink output/data` or `output topic orders-enriched` (the same name on both
    /// sides: sets are matched by it; an output topic by the name the scenario declares, the
    /// topic a trial renamed it to in `how`).
    pub name: String,
    /// The rows as read: a JSON line, a CSV line, or `key=… value=…` of a Kafka record.
    pub rows: Vec<String>,
    /// How the rows were chosen (`3 files named by _spark_metadata`), for the report.
    pub how: String,
    /// Why this set could not be read (a Parquet sink), when it could not: it is then not
    /// compared and makes the status `not-checked` unless another set differs.
    pub unreadable: Option<String>,
}

/// Compares what a target wrote with what the control wrote, set by set (matched by name; a
/// set only one side has counts as empty on the other), ignoring row order and `volatile`
/// columns of JSON rows. See the module table for the status.
pub fn compare(
    target: &[RowSet],
    control: &[RowSet],
    volatile: &[String],
    control_version: &str,
    may_differ: bool,
) -> Parity {
    let mut names: Vec<&str> = target
        .iter()
        .chain(control)
        .map(|s| s.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut parity = Parity {
        volatile_columns: volatile.to_vec(),
        may_differ,
        ..Parity::not_checked(control_version, "")
    };
    let mut unreadable = Vec::new();
    let mut rows_seen = 0usize;
    let empty = RowSet::default();
    for name in names {
        let t = target.iter().find(|s| s.name == name).unwrap_or(&empty);
        let c = control.iter().find(|s| s.name == name).unwrap_or(&empty);
        if let Some(why) = t.unreadable.as_ref().or(c.unreadable.as_ref()) {
            unreadable.push(format!("{name}: {why}"));
            parity
                .compared
                .push(format!("{name}: not compared ({why})"));
            continue;
        }
        rows_seen += t.rows.len() + c.rows.len();
        let (only_t, only_c) = multiset_difference(&t.rows, &c.rows, volatile);
        // How each side chose its rows: once when they agree, else both (the topics a target
        // and its control read in a suite have names of their own).
        let how = match (t.how.as_str(), c.how.as_str()) {
            ("", "") => String::new(),
            (h, "") | ("", h) => format!(", {h}"),
            (a, b) if a == b => format!(", {a}"),
            (a, b) => format!(", target: {a}; control: {b}"),
        };
        parity.compared.push(format!(
            "{name}: {} rows (target), {} (control){how}",
            t.rows.len(),
            c.rows.len(),
        ));
        parity.rows_only_in_target += only_t.len() as u64;
        parity.rows_only_in_control += only_c.len() as u64;
        for (examples, rows) in [
            (&mut parity.examples_only_in_target, only_t),
            (&mut parity.examples_only_in_control, only_c),
        ] {
            for row in rows {
                if examples.len() < PARITY_EXAMPLES {
                    examples.push(format!("{name}: {row}"));
                }
            }
        }
    }
    (parity.status, parity.reason) = if parity.rows_only_in_target + parity.rows_only_in_control > 0
    {
        let reason = may_differ.then(|| {
            "the scenario allows this target's output to differ (parity = \"may-differ\")"
                .to_string()
        });
        (ParityStatus::Differs, reason)
    } else if !unreadable.is_empty() {
        (
            ParityStatus::NotChecked,
            Some(format!(
                "not every output could be read: {}",
                unreadable.join("; ")
            )),
        )
    } else if rows_seen == 0 {
        (
            ParityStatus::NotChecked,
            Some(
                "neither run wrote a row the harness can read after the restart: no JSON or CSV \
                 file under {output} and no record in an [[output_topics]] topic"
                    .to_string(),
            ),
        )
    } else {
        (ParityStatus::Same, None)
    };
    parity
}

/// The rows only in `a` and only in `b` (multisets of normalised rows), each sorted.
fn multiset_difference(
    a: &[String],
    b: &[String],
    volatile: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for row in a {
        *counts.entry(normalise_row(row, volatile)).or_default() += 1;
    }
    for row in b {
        *counts.entry(normalise_row(row, volatile)).or_default() -= 1;
    }
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    for (row, n) in counts {
        let side = if n > 0 { &mut only_a } else { &mut only_b };
        for _ in 0..n.unsigned_abs() {
            side.push(row.clone());
        }
    }
    (only_a, only_b)
}

/// A row as it is compared: a JSON object without the `volatile` keys, keys sorted, numbers in
/// one form per type (integers as integers, doubles in their shortest form); a Kafka record's `key=K value=V` with V normalised the same
/// way when it is a JSON object; anything else as its text without a trailing `\r`.
pub fn normalise_row(row: &str, volatile: &[String]) -> String {
    let row = row.trim_end_matches('\r');
    if let Some(json) = normalise_json(row, volatile) {
        return json;
    }
    if let Some((key, value)) = row
        .strip_prefix("key=")
        .and_then(|rest| rest.split_once(" value="))
    {
        if let Some(json) = normalise_json(value, volatile) {
            return format!("key={key} value={json}");
        }
    }
    row.to_string()
}

/// `text` as normalised JSON, when it is a JSON object.
fn normalise_json(text: &str, volatile: &[String]) -> Option<String> {
    let trimmed = text.trim();
    if !trimmed.starts_with('{') {
        return None;
    }
    // Numbers become marked strings of their exact value before parsing, so serde_json never
    // rounds them to a double; they are written back unmarked.
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(&mark_numbers(trimmed)) else {
        return None;
    };
    for column in volatile {
        map.remove(column);
    }
    // serde_json's map (no `preserve_order` feature) is a BTreeMap: keys come out sorted.
    serde_json::to_string(&Value::Object(map))
        .ok()
        .map(|json| unmark_numbers(&json))
}

/// The mark of a number turned string by [`mark_numbers`], as `serde_json` writes it back.
const NUMBER_MARK: &str = "\\u0001#";

/// `json` with every number (outside strings) replaced by the string `"\u0001#V"` (JSON's
/// escape of U+0001: a control character may not appear raw in a JSON string), V the
/// number's exact value in one form ([`exact_number`]). Text that is not JSON stays not JSON.
fn mark_numbers(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    let mut chars = json.char_indices().peekable();
    let (mut in_string, mut escaped) = (false, false);
    while let Some((at, c)) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == '-' || c.is_ascii_digit() {
            let mut end = at + c.len_utf8();
            while let Some(&(i, d)) = chars.peek() {
                if !(d.is_ascii_digit() || matches!(d, '.' | 'e' | 'E' | '+' | '-')) {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            out.push_str("\"\\u0001#");
            out.push_str(&exact_number(&json[at..end]));
            out.push('"');
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes the marked numbers of normalised `json` back as numbers.
fn unmark_numbers(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    let needle = format!("\"{NUMBER_MARK}");
    while let Some(at) = rest.find(&needle) {
        out.push_str(&rest[..at]);
        let value = &rest[at + 1 + NUMBER_MARK.len()..];
        let end = value.find('"').unwrap_or(value.len());
        out.push_str(&value[..end]);
        rest = value.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// A JSON number token in one form per exact value and kind: an integer as written (`-0` as
/// `0`); a number with a fraction or exponent as its exact decimal value, plain (`0.002`,
/// `100.0`) when its point is within 30 digits, else `D.DDDE±N`, always with a fraction so it
/// never reads as an integer. A token that is not a number is returned as written (the parse
/// that follows then fails on it, and the row is compared as its text).
fn exact_number(token: &str) -> String {
    let (negative, body) = match token.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, token),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()),
        None => (body, Some(0)),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let well_formed = !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && (fraction.len() < mantissa.len())
        && (!mantissa.contains('.') || !fraction.is_empty());
    let Some(exponent) = exponent.filter(|_| well_formed) else {
        return token.to_string();
    };
    let integer = !token.contains(['.', 'e', 'E']);
    if integer {
        let digits = whole.trim_start_matches('0');
        return match (negative && !digits.is_empty(), digits.is_empty()) {
            (_, true) => "0".into(),
            (true, _) => format!("-{digits}"),
            (false, _) => digits.into(),
        };
    }
    // value = digits × 10^scale, digits without leading or trailing zeros.
    let all = format!("{whole}{fraction}");
    let digits = all.trim_start_matches('0');
    let trailing = digits.len() - digits.trim_end_matches('0').len();
    let digits = digits.trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    if digits.is_empty() {
        return format!("{sign}0.0");
    }
    let scale = exponent
        .saturating_sub(fraction.len() as i64)
        .saturating_add(trailing as i64);
    // Digits before the point.
    let point = (digits.len() as i64).saturating_add(scale);
    if (1..=30).contains(&point) {
        let point = point as usize;
        if point >= digits.len() {
            format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{sign}{}.{}", &digits[..point], &digits[point..])
        }
    } else if (-30..=0).contains(&point) {
        format!(
            "{sign}0.{}{digits}",
            "0".repeat(point.unsigned_abs() as usize)
        )
    } else {
        let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{rest}E{}", &digits[..1], point - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(name: &str, rows: &[&str]) -> RowSet {
        RowSet {
            name: name.into(),
            rows: rows.iter().map(|r| r.to_string()).collect(),
            how: String::new(),
            unreadable: None,
        }
    }

    #[test]
    fn json_rows_are_equal_whatever_their_key_order_and_rendering_of_a_double() {
        assert_eq!(
            normalise_row(r#"{"b":1.0,"a":{"y":2,"x":[3.00,"s"]}}"#, &[]),
            r#"{"a":{"x":[3.0,"s"],"y":2},"b":1.0}"#
        );
        assert_eq!(normalise_row("{\"a\":1}\r", &[]), r#"{"a":1}"#);
        assert_eq!(
            normalise_row(r#"{"a":1.5}"#, &[]),
            r#"{"a":1.5}"#,
            "a fraction is kept"
        );
        assert_eq!(normalise_row("a,b,1.0", &[]), "a,b,1.0", "CSV as its text");
        // One double, as JDK 8–18 (`0.0020`, JDK-4511638) and JDK 19+ (`0.002`) print it, and
        // in exponent form; a large one in two exact renderings.
        for same in [
            [r#"{"x":0.0020}"#, r#"{"x":0.002}"#],
            [r#"{"x":2.0E-3}"#, r#"{"x":0.002}"#],
            [r#"{"x":1.0E23}"#, r#"{"x":1e23}"#],
            [
                r#"{"x":0.30000000000000004}"#,
                r#"{"x":0.30000000000000004000}"#,
            ],
        ] {
            assert_eq!(
                normalise_row(same[0], &[]),
                normalise_row(same[1], &[]),
                "{same:?}"
            );
        }
    }

    /// Breaker pass, session 8: numbers were read as doubles, so two decimals differing past
    /// the 17th digit, or two big integers, compared equal.
    #[test]
    fn numbers_are_compared_by_their_exact_value_never_rounded_to_a_double() {
        for differ in [
            [
                r#"{"amt":1.000000000000000001}"#,
                r#"{"amt":1.000000000000000002}"#,
            ],
            [
                r#"{"amt":12345678901234567890123}"#,
                r#"{"amt":12345678901234567890124}"#,
            ],
            [
                r#"{"amt":1.2345678901234567890123E22}"#,
                r#"{"amt":1.2345678901234567890124E22}"#,
            ],
            [r#"{"n":1}"#, r#"{"n":1.0}"#],
            [r#"{"n":-0.0}"#, r#"{"n":0.0}"#],
            [r#"{"n":[1,2]}"#, r#"{"n":[1,2.0]}"#],
        ] {
            assert_ne!(
                normalise_row(differ[0], &[]),
                normalise_row(differ[1], &[]),
                "{differ:?}"
            );
        }
        // Written back as numbers, in one form, strings untouched.
        assert_eq!(
            normalise_row(
                r#"{"s":"1.50 -2e3 \"9\"","d":1.000000000000000001,"e":2.50E-40,"i":-0,"big":1.0E31,"z":0.000}"#,
                &[]
            ),
            r#"{"big":1.0E31,"d":1.000000000000000001,"e":2.5E-40,"i":0,"s":"1.50 -2e3 \"9\"","z":0.0}"#
        );
        assert_eq!(exact_number("100.00"), "100.0");
        assert_eq!(exact_number("1e2"), "100.0");
        assert_eq!(exact_number("-12.3400e1"), "-123.4");
        assert_eq!(exact_number("0.0020"), "0.002");
        assert_eq!(
            exact_number("1.5e-31"),
            "0.00000000000000000000000000000015"
        );
        assert_eq!(exact_number("1.5e-32"), "1.5E-32");
        assert_eq!(exact_number("12"), "12");
        assert_eq!(
            exact_number("1.2.3"),
            "1.2.3",
            "not a number: left as written"
        );
        // Not JSON after marking either: compared as its text.
        assert_eq!(normalise_row(r#"{"a":1.2.3}"#, &[]), r#"{"a":1.2.3}"#);
    }

    #[test]
    fn an_output_column_that_changed_type_differs() {
        // A count (long) the target writes as a double: the values agree, the type does not.
        let t = [set("file sink output/data", &[r#"{"u":"a","c":1.0}"#])];
        let c = [set("file sink output/data", &[r#"{"u":"a","c":1}"#])];
        let p = compare(&t, &c, &[], "3.5.3", false);
        assert_eq!(p.status, ParityStatus::Differs, "{p:?}");
        assert_eq!(
            p.examples_only_in_target,
            [r#"file sink output/data: {"c":1.0,"u":"a"}"#]
        );
        assert_eq!(
            p.examples_only_in_control,
            [r#"file sink output/data: {"c":1,"u":"a"}"#]
        );
    }

    #[test]
    fn volatile_columns_are_left_out_of_json_rows_and_kafka_values() {
        let volatile = vec!["processed_at".to_string()];
        assert_eq!(
            normalise_row(r#"{"n":1,"processed_at":"2026-01-01"}"#, &volatile),
            r#"{"n":1}"#
        );
        assert_eq!(
            normalise_row(r#"key=k1 value={"processed_at":3,"n":1.0}"#, &volatile),
            r#"key=k1 value={"n":1.0}"#
        );
        assert_eq!(
            normalise_row("key=k1 value=plain", &volatile),
            "key=k1 value=plain"
        );
    }

    #[test]
    fn the_same_rows_in_another_order_are_same() {
        let t = [set(
            "file sink output/data",
            &[r#"{"u":"a","c":1}"#, r#"{"u":"b","c":2}"#],
        )];
        let c = [set(
            "file sink output/data",
            &[r#"{"c":2,"u":"b"}"#, r#"{"c":1,"u":"a"}"#],
        )];
        let p = compare(&t, &c, &[], "3.5.3", false);
        assert_eq!(p.status, ParityStatus::Same, "{p:?}");
        assert!(!p.fails());
        assert_eq!(p.rows_only_in_target + p.rows_only_in_control, 0);
        assert!(
            p.compared[0].contains("2 rows (target), 2 (control)"),
            "{p:?}"
        );
        assert!(p.summary().starts_with("same as the control on 3.5.3"));
    }

    #[test]
    fn a_row_only_on_one_side_and_a_duplicate_differ_with_examples() {
        let t = [set(
            "output topic out",
            &["key=a value=1", "key=a value=1", "key=b value=2"],
        )];
        let c = [set("output topic out", &["key=a value=1", "key=c value=3"])];
        let p = compare(&t, &c, &[], "3.5.3", false);
        assert_eq!(p.status, ParityStatus::Differs);
        assert!(p.fails());
        assert_eq!(p.rows_only_in_target, 2, "the duplicate counts: {p:?}");
        assert_eq!(p.rows_only_in_control, 1);
        assert_eq!(
            p.examples_only_in_target,
            [
                "output topic out: key=a value=1",
                "output topic out: key=b value=2"
            ]
        );
        assert_eq!(
            p.examples_only_in_control,
            ["output topic out: key=c value=3"]
        );
        assert!(p
            .summary()
            .contains("2 rows only in the target, 1 only in the control"));
    }

    #[test]
    fn a_volatile_column_alone_does_not_make_rows_differ() {
        let t = [set("f", &[r#"{"n":1,"at":"10:00"}"#])];
        let c = [set("f", &[r#"{"n":1,"at":"10:05"}"#])];
        assert_eq!(
            compare(&t, &c, &[], "3.5.3", false).status,
            ParityStatus::Differs
        );
        let p = compare(&t, &c, &["at".to_string()], "3.5.3", false);
        assert_eq!(p.status, ParityStatus::Same);
        assert_eq!(p.volatile_columns, ["at"]);
    }

    #[test]
    fn examples_stop_at_five_but_counts_do_not() {
        let rows: Vec<String> = (0..8).map(|i| format!("{{\"i\":{i}}}")).collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let p = compare(&[set("f", &rows)], &[], &[], "3.5.3", false);
        assert_eq!(p.rows_only_in_target, 8);
        assert_eq!(p.examples_only_in_target.len(), PARITY_EXAMPLES);
        assert_eq!(p.status, ParityStatus::Differs);
    }

    #[test]
    fn may_differ_reports_the_difference_without_failing() {
        let p = compare(&[set("f", &["x"])], &[set("f", &["y"])], &[], "3.5.3", true);
        assert_eq!(p.status, ParityStatus::Differs);
        assert!(!p.fails());
        assert!(p.reason.as_deref().unwrap().contains("may-differ"));
    }

    #[test]
    fn nothing_written_or_an_unreadable_sink_is_not_checked_never_same() {
        let p = compare(&[set("f", &[])], &[set("f", &[])], &[], "3.5.3", false);
        assert_eq!(p.status, ParityStatus::NotChecked);
        assert!(p
            .reason
            .as_deref()
            .unwrap()
            .contains("neither run wrote a row"));
        let mut parquet = set("file sink output/p", &[]);
        parquet.unreadable = Some("Parquet files are not read".into());
        let p = compare(
            &[parquet.clone(), set("f", &["a"])],
            &[parquet.clone(), set("f", &["a"])],
            &[],
            "3.5.3",
            false,
        );
        assert_eq!(p.status, ParityStatus::NotChecked);
        assert!(p.reason.as_deref().unwrap().contains("Parquet"), "{p:?}");
        // A difference elsewhere is still a difference.
        let p = compare(
            &[parquet.clone(), set("f", &["a"])],
            &[parquet, set("f", &["b"])],
            &[],
            "3.5.3",
            false,
        );
        assert_eq!(p.status, ParityStatus::Differs);
    }

    /// The report's writers are tested on fixed parities (`report/test_helpers.rs`, which may
    /// not call up into the trial): they are what `compare` makes of their rows.
    #[test]
    fn the_report_fixtures_are_what_compare_makes() {
        let set = |rows: &[&str]| RowSet {
            how: "2 files named by _spark_metadata".to_owned(),
            ..set("file sink output/data", rows)
        };
        let fixture = |status| {
            crate::report::test_helpers::resumed_with_parity(status).trials[0]
                .parity
                .clone()
        };
        let same = compare(
            &[set(&[r#"{"user":"a","count":1}"#])],
            &[set(&[r#"{"count":1,"user":"a"}"#])],
            &[],
            "3.5.3",
            false,
        );
        assert_eq!(Some(same), fixture(ParityStatus::Same));
        let differs = compare(
            &[set(&[r#"{"user":"a","count":2}"#])],
            &[set(&[r#"{"user":"a","count":1}"#])],
            &["processed_at".to_owned()],
            "3.5.3",
            false,
        );
        assert_eq!(Some(differs), fixture(ParityStatus::Differs));
    }

    #[test]
    fn a_set_only_one_side_wrote_counts_as_empty_on_the_other() {
        let p = compare(
            &[set("output topic x", &["key=a value=1"])],
            &[],
            &[],
            "3.5.3",
            false,
        );
        assert_eq!(p.status, ParityStatus::Differs);
        assert_eq!(p.rows_only_in_target, 1);
    }
}
