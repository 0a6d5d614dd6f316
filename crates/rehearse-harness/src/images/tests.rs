use super::*;

fn v(s: &str) -> SparkVersion {
    spark_version(s).expect("valid version")
}

#[test]
fn tags_are_repository_and_version() {
    assert_eq!(spark_image("3.5.3"), "rehearse/spark:3.5.3");
    assert_eq!(kafka_image(DEFAULT_KAFKA_VERSION), "rehearse/kafka:3.9.1");
}

#[test]
fn parses_release_and_preview_versions() {
    let r = v("3.5.3");
    assert_eq!((r.line(), r.suffix()), (Some((3, 5)), None));
    let p = v("4.0.0-preview2");
    assert_eq!(p.line(), Some((4, 0)));
    assert_eq!(p.suffix(), Some("preview2"));
    assert_eq!(p.to_string(), "4.0.0-preview2");
}

#[test]
fn rejects_nonsense_versions() {
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
        "3.5.1234567",
    ] {
        assert!(
            matches!(spark_version(bad), Err(ImageError::InvalidVersion { .. })),
            "{bad:?} was accepted"
        );
    }
}

#[test]
fn ensure_rejects_spark_2_and_nonsense_before_touching_docker() {
    let mut sink = |_: &str| {};
    assert!(matches!(
        ensure_spark("2.4.8", ImageSourceKind::Packages, &mut sink),
        Err(ImageError::InvalidVersion { .. })
    ));
    assert!(matches!(
        ensure_kafka("3.9;rm", ImageSourceKind::Packages, &mut sink),
        Err(ImageError::InvalidVersion { .. })
    ));
}

#[test]
fn scala_suffix_follows_the_major_version() {
    assert_eq!(scala_suffix(&v("3.0.3")), "2.12");
    assert_eq!(scala_suffix(&v("3.5.3")), "2.12");
    assert_eq!(scala_suffix(&v("4.0.1")), "2.13");
    assert_eq!(scala_suffix(&v("4.1.0-preview1")), "2.13");
}

#[test]
fn base_image_per_spark_version() {
    for (s, base) in [
        ("3.0.3", BaseImage::BullseyeJre11),
        ("3.2.4", BaseImage::BullseyeJre11),
        ("3.3.4", BaseImage::BullseyeJre11),
        ("3.4.4", BaseImage::BookwormJre17),
        ("3.5.3", BaseImage::BookwormJre17),
        ("4.0.1", BaseImage::BookwormJre17),
    ] {
        assert_eq!(base_for_spark(&v(s)), base, "{s}");
    }
    assert_eq!(
        BaseImage::BullseyeJre11.tag(),
        "rehearse/base:bullseye-jre11"
    );
    assert_eq!(BaseImage::BookwormJre17.suite(), "bookworm");
}

#[test]
fn recipe_hash_is_stable_and_parameter_sensitive() {
    let a = recipe_hash(ImageKind::Spark, "3.5.3", ImageSourceKind::Packages);
    assert_eq!(
        a,
        recipe_hash(ImageKind::Spark, "3.5.3", ImageSourceKind::Packages)
    );
    assert!(a.starts_with("b3-") && a.len() == 35, "{a}");
    let others = [
        recipe_hash(ImageKind::Spark, "3.5.4", ImageSourceKind::Packages),
        recipe_hash(ImageKind::Spark, "3.5.3", ImageSourceKind::Official),
        recipe_hash(ImageKind::Kafka, "3.5.3", ImageSourceKind::Packages),
    ];
    for o in &others {
        assert_ne!(&a, o);
    }
    // the hash is of file names and contents, not of anything on this machine
    assert_eq!(
        hash_of(&[("a", "x")], &["p"]),
        hash_of(&[("a", "x")], &["p"])
    );
    assert_ne!(
        hash_of(&[("a", "x")], &["p"]),
        hash_of(&[("a", "y")], &["p"])
    );
    assert_ne!(
        hash_of(&[("a", "x")], &["p"]),
        hash_of(&[("b", "x")], &["p"])
    );
    assert_ne!(
        base_hash(BaseImage::BookwormJre17),
        base_hash(BaseImage::BullseyeJre11)
    );
}

#[test]
fn recipe_errors_map_to_variants() {
    let log = Path::new("/tmp/x.log");
    let e = |kind: &str| {
        classify_failure(
            kind,
            "msg",
            "rehearse/spark:9.9.9",
            "9.9.9",
            String::new(),
            log,
        )
    };
    assert!(matches!(e("no-docker"), ImageError::NoDocker { .. }));
    assert!(matches!(e("not-root"), ImageError::NotRoot { .. }));
    assert!(matches!(e("tools-missing"), ImageError::ToolMissing { .. }));
    assert!(matches!(
        e("not-published"),
        ImageError::NotPublished { .. }
    ));
    assert!(matches!(
        e("maven-missing"),
        ImageError::MavenArtifactMissing { .. }
    ));
    assert!(matches!(
        e("registry-unreachable"),
        ImageError::RegistryUnreachable { .. }
    ));
    assert!(matches!(
        e("something-else"),
        ImageError::BuildFailed { .. }
    ));
    assert_eq!(
        parse_recipe_error("REHEARSE-ERROR not-published: pyspark==9.9.9 is not published"),
        Some(("not-published", "pyspark==9.9.9 is not published"))
    );
    assert_eq!(parse_recipe_error("rehearse-images: building"), None);
}

#[test]
fn every_error_has_a_hint() {
    let log = PathBuf::from("/tmp/x.log");
    let errors = [
        ImageError::InvalidVersion {
            version: "x".into(),
        },
        ImageError::NoDocker { detail: "d".into() },
        ImageError::NotRoot { detail: "d".into() },
        ImageError::ToolMissing { detail: "d".into() },
        ImageError::NotPublished {
            version: "9".into(),
            detail: "d".into(),
        },
        ImageError::MavenArtifactMissing { detail: "d".into() },
        ImageError::RegistryUnreachable { detail: "d".into() },
        ImageError::BuildFailed {
            tag: "t".into(),
            detail: "d".into(),
            tail: "last".into(),
            log,
        },
    ];
    for e in errors {
        assert!(e.to_string().contains("(hint: "), "{e}");
    }
}

/// The recipes pick the Scala suffix and the base image in shell (changing them would
/// change every recipe hash and rebuild every image); this pins them to the table.
#[test]
fn the_recipes_agree_with_the_spark_line_table() {
    let script = |name: &str| {
        SPARK_FILES
            .iter()
            .chain(LOCAL_FILES)
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .unwrap()
    };
    let scala = r#"if [ "$major" -ge 4 ]; then scala=2.13; else scala=2.12; fi"#;
    assert!(script("spark.sh").contains(scala));
    assert!(script("local-install.sh").contains(scala));
    assert!(script("spark.sh").contains(
        r#"if [ "$major" -eq 3 ] && [ "$minor" -le 3 ]; then suite=bullseye base=rehearse/base:bullseye-jre11; else suite=bookworm base=rehearse/base:bookworm-jre17; fi"#
    ));
    for line in rehearse_base::versions::SparkLine::all() {
        let (major, minor) = line.line;
        let shell_scala = if major >= 4 { "2.13" } else { "2.12" };
        let shell_base = if major == 3 && minor <= 3 {
            Debian::Bullseye
        } else {
            Debian::Bookworm
        };
        assert_eq!(
            (line.scala, line.base),
            (shell_scala, shell_base),
            "{major}.{minor}"
        );
    }
}

#[test]
fn the_recipes_are_embedded() {
    assert!(SPARK_FILES
        .iter()
        .any(|(n, t)| *n == "spark.sh" && t.contains("spark-sql-kafka-0-10")));
    assert!(KAFKA_FILES
        .iter()
        .any(|(n, t)| *n == "kafka-start.sh" && t.contains("INTERNAL://")));
}
