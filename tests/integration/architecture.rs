//! The layer picture of docs/ARCHITECTURE.md, checked. The lowest layers are crates of their own
//! (crates/), so Cargo refuses an import that goes up between them; this file checks that no
//! crate *depends* upward ([`CRATES`]), that each forbids unsafe code, and, inside the root
//! package, that every `crate::` path in a module's non-test code names its own module or one of
//! a lower layer. A new crate or top-level module must be given a layer here (and a paragraph in
//! docs/ARCHITECTURE.md) before this test passes.

use std::path::Path;

/// The workspace's crates, lowest first (docs/ARCHITECTURE.md, "Layers"): each may depend only
/// on crates before it.
const CRATES: &[&str] = &[
    "rehearse-base",
    "rehearse-store",
    "rehearse-checkpoint",
    "rehearse-verdict",
    "rehearse-scenario",
    "rehearse-harness",
    "rehearse",
];

/// The `rehearse-*` crates a manifest's `[dependencies]` names (dev-dependencies may reach
/// anything below: a test support feature).
fn rehearse_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).expect("a readable Cargo.toml");
    let doc: toml::Table = toml::from_str(&text).expect("a valid Cargo.toml");
    doc.get("dependencies")
        .and_then(toml::Value::as_table)
        .map(|deps| {
            deps.keys()
                .filter(|name| name.starts_with("rehearse"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn crates_depend_only_on_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut manifests = vec![("rehearse".to_owned(), root.join("Cargo.toml"))];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/ is readable") {
        let dir = entry.expect("a crates/ entry").path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 name");
        manifests.push((name.to_owned(), dir.join("Cargo.toml")));
    }
    for (name, manifest) in &manifests {
        let src = manifest.parent().expect("a crate directory").join("src");
        let lib = std::fs::read_to_string(src.join("lib.rs")).expect("a crate's src/lib.rs");
        if name == "rehearse-harness" {
            // The one FFI module: kafka/legacy.rs, librdkafka's group-less consumer.
            let allowed: Vec<String> = walkdir::WalkDir::new(&src)
                .into_iter()
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
                .filter(|e| {
                    std::fs::read_to_string(e.path())
                        .is_ok_and(|t| t.contains("#[allow(unsafe_code)]"))
                })
                .map(|e| e.path().display().to_string())
                .collect();
            assert!(
                lib.contains("#![deny(unsafe_code)]")
                    && allowed.len() == 1
                    && allowed[0].ends_with("kafka/mod.rs"),
                "rehearse-harness denies unsafe code but for `mod legacy` (kafka/mod.rs); allowed in: {allowed:?}"
            );
        } else {
            assert!(
                lib.contains("#![forbid(unsafe_code)]"),
                "{name}: src/lib.rs must forbid unsafe code (the FFI lives in rehearse-harness's kafka/legacy.rs)"
            );
        }
    }
    let mut wrong = Vec::new();
    for (name, manifest) in &manifests {
        let Some(own) = CRATES.iter().position(|c| c == name) else {
            wrong.push(format!(
                "crate `{name}` has no layer in tests/integration/architecture.rs"
            ));
            continue;
        };
        for dep in rehearse_dependencies(manifest) {
            match CRATES.iter().position(|c| *c == dep) {
                Some(theirs) if theirs < own => {}
                _ => wrong.push(format!(
                    "`{name}` depends on `{dep}`, which is not below it"
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Top-level modules of the root package's library by layer (docs/ARCHITECTURE.md, "Layers"),
/// with the lower crates under the names lib.rs re-exports them by. Within a layer,
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

/// No import circle between the files of one module directory, in any crate (issue 27: the layer
/// test read `crate::` paths only and missed `kafka/records.rs` ↔ `seed.rs`, `legacy.rs` ↔
/// `mirror.rs`, `runtime/containers.rs` ↔ `cluster.rs`, `common.rs` ↔ `local.rs`). A file's
/// sibling imports are its `super::name` paths (and `crate::name` for files beside a crate's
/// lib.rs) in its non-test code; doc links (`//` lines) do not count.
#[test]
fn no_two_files_of_a_module_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut src_dirs = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/ is readable") {
        src_dirs.push(entry.expect("a crates/ entry").path().join("src"));
    }
    let sibling = regex::Regex::new(r"\b(super|crate)::([a-z_]+)").expect("a valid pattern");
    let mut circles = Vec::new();
    for src in &src_dirs {
        for dir in walkdir::WalkDir::new(src)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_dir())
        {
            let dir = dir.path();
            let at_crate_root = dir == src.as_path();
            // name -> the siblings its code imports
            let mut imports: std::collections::BTreeMap<
                String,
                std::collections::BTreeSet<String>,
            > = std::collections::BTreeMap::new();
            let files: Vec<_> = std::fs::read_dir(dir)
                .expect("a readable source directory")
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "rs"))
                .collect();
            let names: std::collections::BTreeSet<String> = files
                .iter()
                .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
                .filter(|n| !matches!(n.as_str(), "mod" | "lib" | "main" | "tests"))
                .collect();
            for file in &files {
                let Some(name) = file.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                if !names.contains(name) {
                    continue;
                }
                let text = std::fs::read_to_string(file).expect("a readable source file");
                let code: String = non_test_code(&text)
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let used = imports.entry(name.to_owned()).or_default();
                for m in sibling.captures_iter(&code) {
                    let (kind, other) = (&m[1], &m[2]);
                    if (kind == "super" || at_crate_root) && other != name && names.contains(other)
                    {
                        used.insert(other.to_owned());
                    }
                }
            }
            for (a, used) in &imports {
                for b in used {
                    if a < b && imports.get(b).is_some_and(|u| u.contains(a)) {
                        circles.push(format!("{}: {a}.rs ↔ {b}.rs", dir.display()));
                    }
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "files of one module import each other (move the shared item to a file of its own):\n{}",
        circles.join("\n")
    );
}
