//! The layer picture of docs/ARCHITECTURE.md, checked: every `crate::` path in a module's
//! non-test code names its own module or one of a lower layer. A new top-level module must be
//! given a layer here (and a paragraph in docs/ARCHITECTURE.md) before this test passes.

use std::path::Path;

/// Top-level modules of the library by layer (docs/ARCHITECTURE.md, "Layers"). Within a layer,
/// the second column lists the same-layer modules a module may import (`runtime` uses `images`
/// and `spark`; `matrix` uses `rehearsal`).
const LAYERS: &[(&str, u32, &[&str])] = &[
    ("text", 0, &[]),
    ("cache", 0, &[]),
    ("versions", 0, &[]),
    ("store", 0, &["text", "userfile"]),
    ("userfile", 0, &[]),
    ("checkpoint", 1, &[]),
    ("verdict", 2, &[]),
    ("exit", 3, &[]),
    ("scenario", 4, &[]),
    ("kafka", 5, &[]),
    ("sandbox", 6, &[]),
    ("spark", 6, &[]),
    ("images", 6, &[]),
    ("deps", 6, &[]),
    ("runtime", 6, &["images", "spark"]),
    ("report", 7, &[]),
    ("trial", 8, &[]),
    ("rehearsal", 9, &[]),
    ("matrix", 9, &["rehearsal"]),
];

fn layer(module: &str) -> Option<(u32, &'static [&'static str])> {
    LAYERS
        .iter()
        .find(|(name, _, _)| *name == module)
        .map(|(_, layer, peers)| (*layer, *peers))
}

/// The code of a file before its first `#[cfg(test)]` (tests may import anything).
fn non_test_code(text: &str) -> &str {
    match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    }
}

#[test]
fn imports_follow_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let crate_path = regex::Regex::new(r"crate::([a-z_]+)").expect("a valid pattern");
    let binary = ["main", "cli", "commands", "trace", "progress_render", "lib"];
    let mut wrong = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.expect("src/ is readable");
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let relative = path.strip_prefix(&src).expect("under src/");
        let first = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("a UTF-8 name");
        let module = first.trim_end_matches(".rs");
        if binary.contains(&module) {
            continue;
        }
        let Some((own, peers)) = layer(module) else {
            wrong.push(format!(
                "{}: module `{module}` has no layer in tests/integration/architecture.rs",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(path).expect("a readable source file");
        for m in crate_path.captures_iter(non_test_code(&text)) {
            let used = &m[1];
            if used == module {
                continue;
            }
            match layer(used) {
                Some((theirs, _)) if theirs < own || peers.contains(&used) => {}
                Some((theirs, _)) => wrong.push(format!(
                    "{}: `{module}` (layer {own}) imports `{used}` (layer {theirs})",
                    relative.display()
                )),
                None => {}
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the layers of docs/ARCHITECTURE.md:\n{}",
        wrong.join("\n")
    );
}

/// scripts/test runs tests in phases by name: `e2e_…` tests (they start containers or a host
/// Spark) two at a time after every other test, `e2e_alone_…` tests one at a time at the end.
/// A test that asks for a Docker engine (`docker_available()`, `need_docker(`) but is not named
/// `e2e_…` would run among the quick tests; one in faults.rs (it stops the engine, kills
/// containers or rehearse, fills a disk) not named `e2e_alone_…` would break a neighbour.
#[test]
fn tests_that_start_containers_are_named_for_their_test_phase() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let mut wrong = Vec::new();
    for entry in walkdir::WalkDir::new(&root).into_iter().flatten() {
        let path = entry.path();
        // This file names the markers it looks for.
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("architecture.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let starts: Vec<usize> = text
            .match_indices("#[test]")
            .chain(text.match_indices("#[tokio::test"))
            .map(|(i, _)| i)
            .collect();
        let mut starts = starts;
        starts.sort_unstable();
        for (k, &start) in starts.iter().enumerate() {
            let body = &text[start..starts.get(k + 1).copied().unwrap_or(text.len())];
            let Some(name) = body
                .split("fn ")
                .nth(1)
                .and_then(|rest| rest.split(['(', '<']).next())
            else {
                continue;
            };
            let needs_docker = body.contains("docker_available()") || body.contains("need_docker(");
            let alone = path.ends_with("faults.rs");
            let rel = path.strip_prefix(&root).unwrap().display();
            if needs_docker && !name.starts_with("e2e_") {
                wrong.push(format!("{rel}: {name} needs Docker: name it e2e_…"));
            }
            if needs_docker && alone && !name.starts_with("e2e_alone_") {
                wrong.push(format!(
                    "{rel}: {name} breaks neighbours: name it e2e_alone_…"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
