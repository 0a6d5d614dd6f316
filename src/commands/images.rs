//! `rehearse images build|list`: turns the clap types into calls of `rehearse::images` and prints
//! progress (stderr) and the image table (stdout). No logic beyond that; the exit code comes
//! from `rehearse::exit`.

use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use rehearse::exit::{HasErrorKind, Outcome};
use rehearse::images::{self, ImageSourceKind};

use super::Failure;

/// `rehearse images …`.
#[derive(Debug, Subcommand)]
pub enum ImagesCommand {
    /// Build `rehearse/spark:<V>` and/or `rehearse/kafka:<V>` (cached: an image built from the
    /// same recipe is not rebuilt).
    Build(ImagesBuildArgs),
    /// List the local rehearse images.
    List,
}

/// `rehearse images build`.
#[derive(Debug, Args)]
pub struct ImagesBuildArgs {
    /// Spark versions to build (e.g. 3.5.3, 4.0.1).
    #[arg(long = "spark", value_name = "VERSION")]
    pub spark: Vec<String>,
    /// Kafka broker versions to build (e.g. 3.9.1).
    #[arg(long = "kafka", value_name = "VERSION")]
    pub kafka: Vec<String>,
    /// Where the images come from.
    #[arg(long, value_enum, default_value_t = ImageSource::Packages, env = "REHEARSE_IMAGE_SOURCE")]
    pub from: ImageSource,
}

/// Where `images build` takes its parts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImageSource {
    /// Debian (debootstrap), PyPI (pyspark) and Maven Central (connector, broker): no container
    /// registry needed.
    Packages,
    /// FROM the official `apache/spark` and `apache/kafka` images on Docker Hub.
    Official,
}

/// Runs one `rehearse images` subcommand; returns its outcome (the exit code).
pub fn exec(cmd: ImagesCommand) -> Result<Outcome, Failure> {
    match cmd {
        ImagesCommand::Build(args) => build(args),
        ImagesCommand::List => list(),
    }
}

/// `rehearse images build`: each image in turn (Kafka first), progress on stderr; stops at the
/// first that fails.
fn build(args: ImagesBuildArgs) -> Result<Outcome, Failure> {
    let source = match args.from {
        ImageSource::Packages => ImageSourceKind::Packages,
        ImageSource::Official => ImageSourceKind::Official,
    };
    if args.spark.is_empty() && args.kafka.is_empty() {
        say!("error: nothing to build\n(hint: name images with --spark VERSION and/or --kafka VERSION)");
        return Ok(Outcome::Usage);
    }
    // Every Spark version is checked against the Spark-line table before the first build starts
    // (Kafka's builds come first): `9.9.9` parses as a version, so the recipe would run a
    // download that cannot succeed — and a typo would cost a Kafka build before it is named.
    for v in &args.spark {
        if let Err(err) = images::spark_version(v) {
            say!("error: --spark {v}: {err}");
            return Ok(Outcome::Usage);
        }
        if let Err(why) = rehearse::versions::SparkVersion::known_release(v) {
            say!("error: --spark {v}: {why}");
            return Ok(Outcome::Usage);
        }
    }
    let builds = args
        .kafka
        .iter()
        .map(|v| (images::kafka_image(v), v, true))
        .chain(
            args.spark
                .iter()
                .map(|v| (images::spark_image(v), v, false)),
        );
    for (tag, version, is_kafka) in builds {
        tracing::debug!(%tag, ?source, "ensuring image");
        let t0 = Instant::now();
        let mut progress = |line: &str| {
            say!("[{:>5.0}s] {tag}: {line}", t0.elapsed().as_secs_f64());
        };
        let built = if is_kafka {
            images::ensure_kafka(version, source, &mut progress)
        } else {
            images::ensure_spark(version, source, &mut progress)
        };
        tracing::debug!(%tag, ok = built.is_ok(), seconds = t0.elapsed().as_secs_f64(), "image step ended");
        match built {
            Ok(()) => say!("{tag}: ready ({:.0}s)", t0.elapsed().as_secs_f64()),
            Err(err) => {
                say!("error: {err}");
                // A version typed on this command line is a usage error here.
                return Ok(match err {
                    images::ImageError::InvalidVersion { .. } => Outcome::Usage,
                    _ => Outcome::from(err.error_kind()),
                });
            }
        }
    }
    Ok(Outcome::Success)
}

/// `rehearse images list`: the table of local rehearse images on stdout.
fn list() -> Result<Outcome, Failure> {
    match images::list_images() {
        Ok(list) => {
            println!(
                "{:<32} {:>8}  {:<16} {:<9} SUBSTITUTED",
                "IMAGE", "SIZE", "BUILT", "SOURCE"
            );
            for i in list {
                println!(
                    "{:<32} {:>8}  {:<16} {:<9} {}",
                    i.tag, i.size, i.created, i.source, i.substituted
                );
            }
            Ok(Outcome::Success)
        }
        Err(err) => {
            say!("error: {err}");
            Ok(Outcome::from(err.error_kind()))
        }
    }
}
