//! Benchmark: seconds to verdict of a rehearsal next to a bare `spark-submit` restart of the same
//! job on a fresh copy of the same checkpoint, in the same container image, in the same run.
//!
//! Needs a Docker engine and the images `rehearse/spark:3.5.3`, `rehearse/spark:4.0.1`,
//! `rehearse/kafka:3.9.1` (`rehearse images build …`). Run: `cargo bench --bench restart`.
//! Prints both times and their ratio; the overhead of watching and classifying should be small
//! (a verdict comes at the first qualifying progress line, the same line the baseline waits for).

use std::path::Path;

use rehearse::scenario::Scenario;
use rehearse::trial::{self, Broker, Generate, TrialSettings};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let scenario_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo.toml");
    let scenario = Scenario::load(&scenario_path).expect("scenarios/demo.toml");
    let g = Generate::of(&scenario, Default::default(), None)
        .expect("demo.toml generates its checkpoint");
    let target = rehearse::versions::SparkVersion::parse("4.0.1").expect("a version");
    runtime.block_on(async {
        let source = trial::generate_checkpoint(&scenario, &g, Broker::Own, &mut |_| {}).await.expect("source checkpoint");
        let inspection = rehearse::checkpoint::inspect(&source).expect("inspect");
        let mut rows = Vec::new();
        for round in 1..=2 {
            let report = trial::run_trial(&scenario, &source, &inspection, &target, &TrialSettings::default(), Broker::Own, &mut |_| {})
                .await
                .expect("trial");
            assert_eq!(report.verdict.name(), "resumed", "benchmark expects a resumed trial");
            let bare = trial::bare_restart_seconds(&scenario, &source, &inspection, &target).await.expect("bare restart");
            println!(
                "round {round}: rehearse seconds_to_verdict {:.1} s, bare spark-submit to first progress {:.1} s, ratio {:.2}",
                report.seconds_to_verdict,
                bare,
                report.seconds_to_verdict / bare
            );
            rows.push((report.seconds_to_verdict, bare));
        }
        let (r, b): (f64, f64) = rows.iter().fold((0.0, 0.0), |(a, c), (x, y)| (a + x, c + y));
        println!("mean: rehearse {:.1} s, bare {:.1} s, ratio {:.2} (target {target}, checkpoint {})", r / 2.0, b / 2.0, r / b, source.display());
    });
}
