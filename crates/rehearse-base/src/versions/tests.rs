use super::*;

fn v(s: &str) -> SparkVersion {
    SparkVersion::parse(s).expect("valid version")
}

#[test]
fn the_embedded_table_is_valid_and_covers_3_0_to_4_3() {
    let all = SparkLine::all();
    assert_eq!(all.first().unwrap().line, (3, 0));
    assert_eq!(all.last().unwrap().line, (4, 3));
    for pair in all.windows(2) {
        assert!(pair[0].line < pair[1].line);
    }
    assert!(all
        .iter()
        .all(|l| !l.source.is_empty() && !l.java.is_empty()));
}

#[test]
fn known_release_refuses_versions_outside_the_table_before_any_build() {
    for (bad, needle) in [
        ("03.5.3", "write it 3.5.3"),
        ("3.05.3", "write it 3.5.3"),
        ("4.9.9", "not a release rehearse knows"),
        ("9.9.9", "add its line"),
        ("2.4.8", "not supported"),
        ("3.1.0", "3.1 line runs 3.1.1"),
        ("3.5.99", "raise `last`"),
        ("99999999999999999999.0.0", "not a release rehearse knows"),
        (
            "3.5",
            "a Spark line, not a release: name one of its releases, 3.5.0 to",
        ),
        ("4.0.0-preview2", "not a Spark version"),
    ] {
        let e = SparkVersion::known_release(bad).unwrap_err();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    for line in SparkLine::all() {
        for v in [&line.first, &line.last] {
            SparkVersion::known_release(v.as_str()).unwrap();
        }
    }
}

#[test]
fn kafka_release_names_kafka_and_the_oldest_broker() {
    let e = KafkaVersion::release("2.8.0").unwrap_err();
    assert!(e.contains("Kafka 2.8.0") && e.contains("3.x"), "{e}");
    let e = KafkaVersion::release("3.9").unwrap_err();
    assert!(e.contains("Kafka version") && !e.contains("Spark"), "{e}");
    assert!(KafkaVersion::release("03.9.1")
        .unwrap_err()
        .contains("leading zeros"));
    KafkaVersion::release("3.9.1").unwrap();
    KafkaVersion::release("4.1.0").unwrap();
}

#[test]
fn parses_releases_and_pre_releases_and_shows_them_as_given() {
    let p = v("4.0.0-preview2");
    assert_eq!(p.line(), Some((4, 0)));
    assert_eq!(p.suffix(), Some("preview2"));
    assert!(!p.is_release());
    assert_eq!(p.to_string(), "4.0.0-preview2");
    assert_eq!(v("3.05.0").to_string(), "3.05.0");
    assert_eq!(v("3.05.0"), v("3.5.0"));
    assert!(v("3.5.3").is_release());
}

#[test]
fn refuses_what_the_recipes_refuse() {
    for bad in [
        "",
        "3",
        "3.5",
        "3.5.3.1",
        "3.5;rm",
        "3.5.3;rm -rf /",
        " 3.5.3",
        "3.5.3 ",
        "v3.5.3",
        "3.5.x",
        "3.5.3-",
        "3.5.3-a b",
        "3.5.3-$(id)",
        "../3.5.3",
        "3.5.3\n",
        "3..5",
    ] {
        assert!(SparkVersion::parse(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn orders_numerically_with_pre_releases_before_their_release() {
    let sorted = [
        "3.4.0",
        "3.9.1",
        "3.10.0",
        "4.0.0-preview1",
        "4.0.0-preview2",
        "4.0.0-preview10",
        "4.0.0",
        "4.0.1",
        "99999999999999999999.0.0",
    ];
    for pair in sorted.windows(2) {
        assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
    }
}

#[test]
fn serde_is_the_plain_string() {
    let json = serde_json::to_string(&v("4.0.0-preview2")).unwrap();
    assert_eq!(json, "\"4.0.0-preview2\"");
    let back: SparkVersion = serde_json::from_str("\"3.5.3\"").unwrap();
    assert_eq!(back, v("3.5.3"));
    assert!(serde_json::from_str::<SparkVersion>("\"3.5\"").is_err());
}

#[test]
fn releases_only_where_scenarios_take_versions() {
    assert!(SparkVersion::release("3.5.3").is_ok());
    let e = SparkVersion::release("4.0.0-preview2").unwrap_err();
    assert_eq!(e, "\"4.0.0-preview2\" is not a Spark version like 3.5.3");
    // A line named instead of a release gets the line's releases (new-user pass, session 7:
    // `targets = ["4.0"]` was refused with no hint).
    let e = SparkVersion::release("4.0").unwrap_err();
    assert!(
        e.starts_with(
            "\"4.0\" is a Spark line, not a release: name one of its releases, 4.0.0 to "
        ),
        "{e}"
    );
    let e = SparkVersion::release("9.9").unwrap_err();
    assert_eq!(e, "\"9.9\" is not a Spark version like 3.5.3");
    assert!(KafkaVersion::release("3.9;rm").is_err());
}

#[test]
fn any_pre_release_sorts_between_the_line_before_and_the_release() {
    let p = v("4.0.0").any_pre_release();
    assert_eq!(p.to_string(), "4.0.0-preview");
    assert_eq!(p, v("4.0.0-preview"));
    assert_eq!(v("4.0.0-rc1").any_pre_release(), p);
    assert!(!p.is_release());
    assert!(v("3.5.9") < p && p < v("4.0.0"));
    assert!(v("3.99.99") < p);
    assert!(p < v("4.0.0-preview1") && v("4.0.0-preview2") < v("4.0.0-rc1"));
    assert!(v("4.0.0-SNAPSHOT") < p && v("4.0.0-RC1") < p);
    assert_eq!(p.to_release(), v("4.0.0"));
    assert_eq!(p.to_release().to_string(), "4.0.0");
    assert_eq!(v("3.05.0-rc1").to_release().to_string(), "3.05.0");
}

#[test]
fn constructors_and_parts() {
    assert_eq!(SparkVersion::from_parts(3, 2, 1).to_string(), "3.2.1");
    assert_eq!(SparkVersion::from_parts(3, 2, 1), v("3.2.1"));
    assert_eq!(v("4.0.0-preview2").parts(), Some((4, 0, 0)));
    assert_eq!(v("99999999999.0.0").parts(), None);
}

#[test]
fn lines_are_two_numbers() {
    assert_eq!(parse_line("3.5"), Ok((3, 5)));
    assert_eq!(parse_line("2.3"), Ok((2, 3)));
    for bad in [
        "3",
        "3.5.0",
        "3.",
        ".5",
        "3.x",
        " 3.5",
        "3.5-rc1",
        "99999999999.0",
    ] {
        assert!(parse_line(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn a_line_newer_than_the_table_runs_like_the_newest_and_2_x_has_none() {
    assert_eq!(SparkLine::of(&v("5.1.0")).unwrap().line, (4, 3));
    assert_eq!(SparkLine::of(&v("3.3.4")).unwrap().line, (3, 3));
    assert_eq!(SparkLine::of(&v("4.0.0-preview2")).unwrap().line, (4, 0));
    assert!(SparkLine::of(&v("2.4.8")).is_none());
}

#[test]
fn the_table_keeps_the_decisions_it_replaced() {
    for (version, log4j, scala, base, structured) in [
        (
            "3.0.3",
            LogFramework::Log4j1,
            "2.12",
            Debian::Bullseye,
            false,
        ),
        (
            "3.2.4",
            LogFramework::Log4j1,
            "2.12",
            Debian::Bullseye,
            false,
        ),
        (
            "3.3.4",
            LogFramework::Log4j2,
            "2.12",
            Debian::Bullseye,
            false,
        ),
        (
            "3.4.4",
            LogFramework::Log4j2,
            "2.12",
            Debian::Bookworm,
            false,
        ),
        (
            "3.5.3",
            LogFramework::Log4j2,
            "2.12",
            Debian::Bookworm,
            false,
        ),
        (
            "4.0.1",
            LogFramework::Log4j2,
            "2.13",
            Debian::Bookworm,
            true,
        ),
        (
            "4.2.0",
            LogFramework::Log4j2,
            "2.13",
            Debian::Bookworm,
            true,
        ),
    ] {
        let l = SparkLine::of(&v(version)).unwrap();
        assert_eq!(
            (l.log4j, l.scala, l.base, l.structured_logging),
            (log4j, scala, base, structured),
            "{version}"
        );
    }
}
