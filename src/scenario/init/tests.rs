use super::*;
use crate::checkpoint::WriterVersion;

fn writer(min: Option<&str>, max: Option<&str>) -> WriterVersion {
    WriterVersion {
        min: min.map(|m| SparkVersion::parse(m).unwrap()),
        max: max.map(str::to_string),
        or_pre_release: None,
        evidence: Vec::new(),
    }
}

/// The newest patch of a line, from the table (never written out, so a new patch in the
/// table does not break the test).
fn last(line: (u32, u32)) -> SparkVersion {
    SparkLine::all()
        .iter()
        .find(|l| l.line == line)
        .unwrap()
        .last
        .clone()
}

#[test]
fn default_targets_are_the_writers_highest_line_and_the_next() {
    let d = default_targets(&writer(Some("3.2.1"), Some("3.5.x")));
    assert_eq!(d.targets, vec![last((3, 5)), last((4, 0))]);
    assert!(
        d.why.contains("(3.5.x)") && d.why.contains("next line"),
        "{}",
        d.why
    );
    let d = default_targets(&writer(Some("4.0.0"), Some("4.1.x")));
    assert_eq!(d.targets, vec![last((4, 1)), last((4, 2))]);
    // A patch bound ("3.2.0", below 3.2.1) names its line.
    let d = default_targets(&writer(None, Some("3.2.0")));
    assert_eq!(d.targets, vec![last((3, 2)), last((3, 3))]);
    // Open-ended: the lowest version decides.
    let d = default_targets(&writer(Some("4.2.0"), None));
    assert_eq!(d.targets, vec![last((4, 2)), last((4, 3))]);
    assert!(d.why.contains(">= 4.2.0"), "{}", d.why);
    // Older than the table: its first lines, said so.
    let d = default_targets(&writer(Some("2.2.0"), Some("2.3.x")));
    assert_eq!(d.targets, vec![last((3, 0)), last((3, 1))]);
    assert!(d.why.contains("first lines"), "{}", d.why);
    // A pre-release of 4.0.0: the 4.0 line itself.
    let d = default_targets(&writer(Some("4.0.0-preview"), Some("4.0.0-preview")));
    assert_eq!(d.targets, vec![last((4, 0)), last((4, 1))]);
}

#[test]
fn the_newest_line_gets_its_newest_patch_only() {
    let newest = SparkLine::all().last().unwrap();
    let (a, b) = newest.line;
    let d = default_targets(&writer(Some(&format!("{a}.{b}.0")), None));
    assert_eq!(d.targets, vec![newest.last.clone()]);
    assert!(d.why.contains("newest line"), "{}", d.why);
    // A writer above the table (a conf key the marker table does not know yet).
    let d = default_targets(&writer(Some(&format!("{a}.{}.0", b + 1)), None));
    assert_eq!(d.targets, vec![newest.last.clone()]);
    assert!(d.why.contains("newest line"), "{}", d.why);
}

#[test]
fn an_unknown_writer_gets_the_newest_lines() {
    let d = default_targets(&writer(None, None));
    let lines = SparkLine::all();
    assert_eq!(
        d.targets,
        vec![
            lines[lines.len() - 2].last.clone(),
            lines[lines.len() - 1].last.clone()
        ]
    );
    assert!(d.why.contains("unknown"), "{}", d.why);
    // "below 1.6.0" (a bound under every line) falls back to the lowest version.
    let d = default_targets(&writer(None, Some("below 1.6.0")));
    assert!(d.why.contains("unknown"), "{}", d.why);
}

#[test]
fn toml_strings_hold_any_text_on_one_line() {
    for s in [
        "plain",
        "quote \" and back\\slash",
        "new\nline\r\ttab\u{7f}\u{1b}[31m",
        "ünïcödé → ok",
        "",
    ] {
        let q = toml_string(s);
        assert!(!q.contains('\n') && !q.contains('\r'), "{q}");
        let doc: toml::Table = toml::from_str(&format!("k = {q}")).unwrap();
        assert_eq!(doc["k"].as_str(), Some(s));
    }
    assert_eq!(comment_safe("a\nb\r\x1b[31mc"), "a bc");
}

#[test]
fn job_files_are_checked_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("job.py");
    let jar = dir.path().join("app.JAR");
    let txt = dir.path().join("job.txt");
    for f in [&py, &jar, &txt] {
        std::fs::write(f, "x").unwrap();
    }
    assert_eq!(job_kind(&py, None).unwrap(), JobKind::Python);
    assert_eq!(
        job_kind(&jar, Some("com.example.Orders$")).unwrap(),
        JobKind::Jar
    );
    let err = |p: &Path, c: Option<&str>| job_kind(p, c).unwrap_err();
    assert!(matches!(err(&txt, None), InitError::JobKind { .. }));
    assert!(matches!(err(&jar, None), InitError::NoMainClass { .. }));
    assert!(matches!(
        err(&py, Some("a.B")),
        InitError::MainClassForPython { .. }
    ));
    for bad in ["", "a..B", "1a.B", "a.B;rm", "a b"] {
        assert!(
            matches!(err(&jar, Some(bad)), InitError::BadMainClass { .. }),
            "{bad:?}"
        );
    }
    assert!(matches!(
        err(&dir.path().join("missing.py"), None),
        InitError::JobMissing { .. }
    ));
    assert!(matches!(
        err(dir.path(), None),
        InitError::JobNotAFile { .. }
    ));
}
