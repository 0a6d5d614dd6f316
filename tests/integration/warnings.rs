//! Issue 13 §2 and §5 on real runs: a change Spark restarts without a word keeps `resumed` and
//! is flagged. (The dedup cases — watermark removed, dedup re-keyed — are in `run.rs` beside
//! their shared checkpoint.)

use super::run::{assert_verdict, docker_available, rehearse, scenario, source_checkpoint};

/// The windowed count (grouped by window and `user`, a string) restarted grouped by window
/// and `topic`, another string: the state key's types match, its names do not. Spark accepts
/// it on 3.5.3 and 4.0.1 and counts the new groups into the old users' windows; the verdict
/// stays `resumed`, flagged `state-schema-names-changed` with Spark's line and the key names
/// the state was written under. One cached 3.5.3 checkpoint, one restart per version.
#[test]
fn e2e_windowed_count_regrouped_by_a_same_type_column_resumes_with_a_warning() {
    if !docker_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = source_checkpoint();
    let path = format!("[checkpoint]\npath = \"{}\"\n", source.display());
    for target in ["3.5.3", "4.0.1"] {
        let s = scenario(
            tmp.path(),
            &path,
            target,
            "restart_args = [\"--group-by-topic\"]",
            "",
        );
        let (mut report, code, stderr) = rehearse(&s);
        let t = report.trials.remove(0);
        assert_verdict(&t, "resumed", &stderr);
        let w = t
            .warnings
            .iter()
            .find(|w| w.code == "state-schema-names-changed")
            .unwrap_or_else(|| {
                panic!(
                    "{target}: no state-schema-names-changed in {:?}\n{stderr}",
                    t.warnings
                )
            });
        for want in ["Detected schema change which is compatible", "user: string"] {
            assert!(
                w.evidence.iter().any(|e| e.contains(want)),
                "{target}: {want:?} not in {:?}",
                w.evidence
            );
        }
        assert_eq!(code, 0, "{target}: {stderr}");
    }
}
