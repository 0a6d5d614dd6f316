//! Semantic warnings from the checkpoint's state files before the restart (the source
//! checkpoint) and after it (the sandbox copy the restarted query wrote into): the state
//! schema files and the operator metadata (issue 13 §2). Pure: both sides come parsed
//! ([`Operator`] of an inspection, read by `checkpoint/operators.rs` and `metadata.rs`).
//!
//! What each Spark line writes, and when (measured here: the dedup job re-keyed from `value`
//! to `topic`, a string for a string, restarted on the version that wrote it,
//! `tests/fixtures/state-schemas/README.md`):
//!
//! | file | written by | on a compatible schema change |
//! |------|------------|-------------------------------|
//! | `state/<op>/<part>/_metadata/schema` (v1/v2, `StateSchemaCompatibilityChecker`, 3.1+) | the first run of an operator | kept as it was: `validateAndMaybeEvolveStateSchema` only logs "Detected schema change which is compatible. Allowing to put rows." (3.5.3 and 4.0.1 both, measured; byte-identical file after the restart) |
//! | `state/<op>/_metadata/metadata` (operator metadata v1, 4.0+; v2 for transformWithState) | 4.0+ | unchanged for the dedup (`dedupe`, v1) |
//! | `state/<op>/_stateSchema/…` (`StateSchemaV3File`, 4.0+) | transformWithState only | not written for the dedup or aggregations |
//!
//! So on 3.5.x and 4.0.x a renamed key is NOT visible as a file difference: the restarted
//! query's names are written nowhere in the checkpoint, and Spark's INFO line stays the
//! evidence ([`super::warnings::line_warning`]). What the files add:
//! - the names the state was written under, as evidence beside that line
//!   ([`stored_schema_evidence`]), so a reviewer can compare them with the job's keys;
//! - a schema file that the restart did rewrite with other names and the same types (a Spark
//!   that evolves the file) → `state-schema-names-changed` with both schemas;
//! - a `state/<op>` directory the restart created, or an operator whose metadata names another
//!   operator after the restart → `stateful-operators-changed`.
//!
//! Any difference it cannot read (a schema file unreadable on either side) gives no warning
//! rather than a guess; warnings only ever add to a verdict.

use serde_json::Value;

use super::warnings::{row_for_check, Warning};
use rehearse_checkpoint::Operator;

/// The warnings the state files give for a restart from `before` (the source checkpoint's
/// operators) that left `after` (the sandbox copy's operators after the restart).
pub fn state_file_warnings(before: &[Operator], after: &[Operator]) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut renamed = Vec::new();
    for b in before {
        let Some(a) = after.iter().find(|a| a.id == b.id) else {
            continue;
        };
        for bs in &b.schemas {
            let Some(old) = &bs.schema else { continue };
            let Some(new) = a
                .schemas
                .iter()
                .find(|s| s.file == bs.file)
                .and_then(|s| s.schema.as_ref())
            else {
                continue;
            };
            for (what, o, n) in [
                ("key", &old.key_schema, &new.key_schema),
                ("value", &old.value_schema, &new.value_schema),
            ] {
                let (Some(o), Some(n)) = (o, n) else { continue };
                if shape(o) == shape(n) && names(o) != names(n) {
                    renamed.push(format!(
                        "{} ({what} schema): before the restart ({}), after it ({})",
                        bs.file,
                        describe(o),
                        describe(n)
                    ));
                }
            }
        }
    }
    if !renamed.is_empty() {
        let row = row_for_check("schema-files-names-differ");
        out.push(Warning {
            code: row.0.to_owned(),
            message: row.1.to_owned(),
            evidence: renamed,
        });
    }
    let mut operators = Vec::new();
    for a in after {
        match before.iter().find(|b| b.id == a.id) {
            None => operators.push(format!(
                "state/{} was created by the restart{}: the checkpoint had no such stateful operator (it had {})",
                a.id,
                a.name.as_ref().map(|n| format!(" (operator {n})")).unwrap_or_default(),
                list_operators(before)
            )),
            Some(b) => {
                if let (Some(bn), Some(an)) = (spark_name(b), spark_name(a)) {
                    if bn != an {
                        operators.push(format!(
                            "state/{}/_metadata/metadata: operator {bn} before the restart, {an} after it",
                            a.id
                        ));
                    }
                }
            }
        }
    }
    if !operators.is_empty() {
        let row = row_for_check("operator-metadata-differs");
        out.push(Warning {
            code: row.0.to_owned(),
            message: row.1.to_owned(),
            evidence: operators,
        });
    }
    out
}

/// Evidence for a `state-schema-names-changed` raised by Spark's line: the names the state was
/// written under, per schema file of the source checkpoint.
pub fn stored_schema_evidence(before: &[Operator]) -> Vec<String> {
    let mut out = Vec::new();
    for op in before {
        for s in &op.schemas {
            let Some(schema) = &s.schema else { continue };
            let key = schema.key_schema.as_ref().map(describe).unwrap_or_default();
            let value = schema
                .value_schema
                .as_ref()
                .map(describe)
                .unwrap_or_default();
            out.push(format!(
                "the state was written with key ({key}) and value ({value}) ({}{}); Spark 3.5.3 and 4.0.1 keep this file on a compatible change, so compare these names with the restarted job's keys",
                s.file,
                op.name.as_ref().map(|n| format!(", operator {n}")).unwrap_or_default()
            ));
        }
    }
    out
}

/// Adds `found` to `warnings`: evidence of a code already raised joins it (one warning per
/// code), a new code is appended.
pub fn merge_warnings(warnings: &mut Vec<Warning>, found: Vec<Warning>) {
    for w in found {
        match warnings.iter_mut().find(|k| k.code == w.code) {
            Some(k) => {
                for e in w.evidence {
                    if !k.evidence.contains(&e) {
                        k.evidence.push(e);
                    }
                }
            }
            None => warnings.push(w),
        }
    }
}

fn list_operators(ops: &[Operator]) -> String {
    if ops.is_empty() {
        return "none".into();
    }
    ops.iter()
        .map(|o| match &o.name {
            Some(n) => format!("state/{} ({n})", o.id),
            None => format!("state/{}", o.id),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The operator's name as Spark writes it in operator metadata, so two sides compare like with
/// like: the name Spark wrote (4.0+), or for a stream-stream join known only by its `left-…`
/// stores (Spark before 4.0 writes no operator metadata; rehearse's inferred name is `join`) the
/// name Spark 4.0+ writes for it, `symmetricHashJoin` (`StreamingSymmetricHashJoinExec.shortName`,
/// sql/core, 4.0.1; seen in the 4.0.1 and 4.2.0 atlas fixtures). Comparing the inferred `join`
/// with the written `symmetricHashJoin` raised `stateful-operators-changed` on every unchanged
/// 3.5 → 4.0 join (issue 26 §1).
fn spark_name(op: &Operator) -> Option<&str> {
    match op.operator_metadata.as_ref() {
        Some(m) => m.metadata.operator_name.as_deref(),
        None if op.stores.iter().any(|s| s.starts_with("left-")) => Some("symmetricHashJoin"),
        None => None,
    }
}

/// A StructType JSON with every field name and metadata removed: the types and nullability
/// Spark's compatibility check compares (`StateSchemaCompatibilityChecker.schemasCompatible`
/// ignores names).
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "name" && k.as_str() != "metadata")
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(shape).collect()),
        other => other.clone(),
    }
}

/// Every field name, nested ones dotted (`window.start`), in order.
fn names(v: &Value) -> Vec<String> {
    fn walk(v: &Value, prefix: &str, out: &mut Vec<String>) {
        let Some(fields) = v.get("fields").and_then(Value::as_array) else {
            return;
        };
        for f in fields {
            let name = f.get("name").and_then(Value::as_str).unwrap_or("?");
            let full = if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}.{name}")
            };
            if let Some(t) = f.get("type") {
                walk(t, &full, out);
            }
            out.push(full);
        }
    }
    let mut out = Vec::new();
    walk(v, "", &mut out);
    out
}

/// `value: string, ts: timestamp` (a nested struct as `window: struct<start: timestamp, …>`).
fn describe(v: &Value) -> String {
    let Some(fields) = v.get("fields").and_then(Value::as_array) else {
        return v.to_string();
    };
    fields
        .iter()
        .map(|f| {
            let name = f.get("name").and_then(Value::as_str).unwrap_or("?");
            let t = match f.get("type") {
                Some(Value::String(s)) => s.clone(),
                Some(t @ Value::Object(_)) if t.get("fields").is_some() => {
                    format!("struct<{}>", describe(t))
                }
                Some(t) => t.to_string(),
                None => "?".into(),
            };
            format!("{name}: {t}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rehearse_checkpoint::{
        parse_operator_metadata, parse_state_schema, OperatorMetadataFile, Provider, SchemaFile,
    };

    const FIXTURES: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/state-schemas"
    );

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{FIXTURES}/{name}")).expect("fixture")
    }

    fn operator(id: u32, schema_fixture: Option<&str>, metadata_fixture: Option<&str>) -> Operator {
        let metadata = metadata_fixture.map(|m| OperatorMetadataFile {
            file: format!("state/{id}/_metadata/metadata"),
            metadata: parse_operator_metadata(&String::from_utf8(fixture(m)).unwrap()).unwrap(),
        });
        Operator {
            id,
            name: metadata
                .as_ref()
                .and_then(|m| m.metadata.operator_name.clone()),
            partitions: 2,
            provider: Provider::from_class("HDFSBackedStateStoreProvider"),
            stores: vec!["default".into()],
            latest_version: Some(3),
            partition_states: Vec::new(),
            changelog_checkpointing: false,
            unique_id_files: false,
            schemas: schema_fixture
                .map(|f| SchemaFile {
                    file: format!("state/{id}/0/_metadata/schema"),
                    store: "default".into(),
                    schema: Some(parse_state_schema(&fixture(f)).unwrap()),
                })
                .into_iter()
                .collect(),
            operator_metadata: metadata,
            state_schema_v3_files: 0,
        }
    }

    /// Real files (Spark 3.5.3): the dedup on (value, ts) and on (topic, ts). A schema file the
    /// restart rewrote with other names and the same types is the warning, with both schemas.
    #[test]
    fn a_rewritten_schema_file_with_other_names_and_the_same_types_is_a_warning() {
        let before = [operator(0, Some("3.5.3-dedup-value-ts.schema"), None)];
        let after = [operator(0, Some("3.5.3-dedup-topic-ts.schema"), None)];
        let w = state_file_warnings(&before, &after);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code, "state-schema-names-changed");
        assert_eq!(
            w[0].evidence,
            ["state/0/0/_metadata/schema (key schema): before the restart (value: string, ts: timestamp), after it (topic: string, ts: timestamp)"]
        );
        // What 3.5.3 and 4.0.1 really leave: the file as it was, so no difference.
        assert!(state_file_warnings(&before, &before).is_empty());
        // The names the state was written under, for the evidence beside Spark's line.
        let ev = stored_schema_evidence(&before);
        assert!(
            ev[0].starts_with("the state was written with key (value: string, ts: timestamp) and value (__dummy__: void)"),
            "{ev:?}"
        );
    }

    /// Real operator metadata (Spark 4.0.1, the dedup: v1, `dedupe`): a state directory the
    /// restart created, or another operator name, is `stateful-operators-changed`.
    #[test]
    fn an_operator_created_or_renamed_by_the_restart_is_a_warning() {
        let dedup = operator(0, None, Some("4.0.1-dedup.operator-metadata"));
        assert_eq!(dedup.name.as_deref(), Some("dedupe"));
        let before = [dedup.clone()];
        assert!(state_file_warnings(&before, &before).is_empty());
        let mut added = dedup.clone();
        added.id = 1;
        let w = state_file_warnings(&before, &[dedup.clone(), added]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code, "stateful-operators-changed");
        assert!(
            w[0].evidence[0].starts_with("state/1 was created by the restart (operator dedupe)"),
            "{w:?}"
        );
        let mut renamed = dedup.clone();
        renamed.name = Some("stateStoreSave".into());
        renamed
            .operator_metadata
            .as_mut()
            .expect("metadata")
            .metadata
            .operator_name = Some("stateStoreSave".into());
        let w = state_file_warnings(&before, &[renamed]);
        assert_eq!(
            w[0].evidence,
            ["state/0/_metadata/metadata: operator dedupe before the restart, stateStoreSave after it"]
        );
    }

    /// A 3.5 join (no operator metadata: rehearse infers `join` from its `left-…` stores)
    /// restarted on 4.0.1, which writes `symmetricHashJoin` for the same operator (the real
    /// metadata of the 4.0.1 inner-join atlas fixture): no warning. The same 3.5 join replaced
    /// by an aggregation still warns; so does a written name changing (issue 26 §1).
    #[test]
    fn an_unchanged_join_upgraded_from_3_5_to_4_0_is_no_warning() {
        let real = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/checkpoints/atlas/inner-join-rocksdb-4.0.1/state/0/_metadata/metadata"
        ))
        .expect("fixture");
        let meta = OperatorMetadataFile {
            file: "state/0/_metadata/metadata".into(),
            metadata: parse_operator_metadata(&real).expect("real 4.0.1 operator metadata"),
        };
        assert_eq!(
            meta.metadata.operator_name.as_deref(),
            Some("symmetricHashJoin")
        );
        let stores: Vec<String> = [
            "left-keyToNumValues",
            "left-keyWithIndexToValue",
            "right-keyToNumValues",
            "right-keyWithIndexToValue",
        ]
        .map(String::from)
        .to_vec();
        let mut before = operator(0, None, None);
        before.stores = stores.clone();
        before.name = Some("join".into());
        let mut after = operator(0, None, None);
        after.stores = stores;
        after.name = meta.metadata.operator_name.clone();
        after.operator_metadata = Some(meta.clone());
        assert!(
            state_file_warnings(&[before.clone()], &[after.clone()]).is_empty(),
            "{:?}",
            state_file_warnings(&[before.clone()], &[after.clone()])
        );
        // 3.5 → 3.5: both inferred.
        assert!(state_file_warnings(&[before.clone()], &[before.clone()]).is_empty());
        // The join replaced by an aggregation (4.0 writes stateStoreSave): still a warning.
        let mut agg = after.clone();
        agg.name = Some("stateStoreSave".into());
        agg.operator_metadata
            .as_mut()
            .expect("metadata")
            .metadata
            .operator_name = Some("stateStoreSave".into());
        let w = state_file_warnings(&[before], &[agg]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code, "stateful-operators-changed");
        assert_eq!(
            w[0].evidence,
            ["state/0/_metadata/metadata: operator symmetricHashJoin before the restart, stateStoreSave after it"]
        );
    }

    #[test]
    fn evidence_of_one_code_joins_the_warning_already_raised() {
        let mut ws = vec![Warning {
            code: "state-schema-names-changed".into(),
            message: "m".into(),
            evidence: vec!["INFO line".into()],
        }];
        merge_warnings(
            &mut ws,
            vec![Warning {
                code: "state-schema-names-changed".into(),
                message: "other".into(),
                evidence: vec!["file".into(), "INFO line".into()],
            }],
        );
        assert_eq!(ws.len(), 1);
        assert_eq!(ws[0].evidence, ["INFO line", "file"]);
    }

    #[test]
    fn types_decide_shape_and_names_are_dotted() {
        let a: Value = serde_json::json!({"type":"struct","fields":[{"name":"window","type":{"type":"struct","fields":[{"name":"start","type":"timestamp","nullable":true,"metadata":{}}]},"nullable":false,"metadata":{}}]});
        let mut b = a.clone();
        b["fields"][0]["type"]["fields"][0]["name"] = "begin".into();
        assert_eq!(shape(&a), shape(&b));
        assert_eq!(names(&a), ["window.start", "window"]);
        assert_ne!(names(&a), names(&b));
        assert_eq!(describe(&a), "window: struct<start: timestamp>");
        let mut c = a.clone();
        c["fields"][0]["type"]["fields"][0]["type"] = "long".into();
        assert_ne!(shape(&a), shape(&c));
    }
}
