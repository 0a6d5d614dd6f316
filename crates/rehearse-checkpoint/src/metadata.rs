//! Pure parsers for the checkpoint's metadata files: the query's `metadata` file, operator
//! metadata `state/<op>/_metadata/metadata` (v1) and `_metadata/v2/<batchId>` (v2), and the header
//! of the state schema file `state/<op>/0/_metadata/schema`. Nothing here touches the file system.

use serde::Serialize;

use super::error::{ParseError, ParseErrorKind};
use super::offsets::parse_version_line;

/// Parses `metadata`: one line of JSON `{"id":"<query uuid>"}` (StreamMetadata.scala) and
/// returns the query id.
pub fn parse_query_metadata(text: &str) -> Result<String, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::new(1, ParseErrorKind::Empty));
    }
    let first = text.lines().next().unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(first)
        .map_err(|e| ParseError::new(1, ParseErrorKind::Json(e.to_string())))?;
    let id = value
        .get("id")
        .and_then(|id| id.as_str())
        .map(str::to_string)
        .ok_or_else(|| {
            ParseError::new(1, ParseErrorKind::Shape("no string field \"id\"".into()))
        })?;
    if !is_java_uuid(&id) {
        return Err(ParseError::new(
            1,
            ParseErrorKind::Shape(format!(
                "the id {:?} is not a UUID: StreamMetadata.read (StreamMetadata.scala) parses it with java.util.UUID.fromString, which throws IllegalArgumentException, so the query does not start",
                id.chars().take(60).collect::<String>()
            )),
        ));
    }
    Ok(id)
}

/// Whether Java's `UUID.fromString` accepts `s`: at most 36 characters, five `-`-separated
/// groups of hex digits of at most 8, 4, 4, 4 and 12 digits (it is lenient about short
/// groups, so this is too).
fn is_java_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    s.len() <= 36
        && parts.len() == 5
        && parts.iter().zip([8, 4, 4, 4, 12]).all(|(p, max)| {
            !p.is_empty() && p.len() <= max && p.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

/// Operator metadata (OperatorStateMetadata.scala, 4.0.0+).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorMetadata {
    /// 1 (`_metadata/metadata`) or 2 (`_metadata/v2/<batchId>`, transformWithState).
    pub version: u32,
    /// `operatorInfo.operatorId`.
    pub operator_id: Option<u32>,
    /// `operatorInfo.operatorName`, e.g. `stateStoreSave`, `dedupe`, `symmetricHashJoin`.
    pub operator_name: Option<String>,
    /// `stateStoreInfo[]`: one per store.
    pub stores: Vec<StoreInfo>,
}

/// One `stateStoreInfo` entry of operator metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreInfo {
    /// `storeName` (`default`, or a join store such as `left-keyToNumValues`).
    pub name: String,
    /// `numPartitions`: state partitions the operator was created with.
    pub partitions: Option<u32>,
}

/// Highest operator metadata version Spark writes (v2, 4.0.0+).
pub const OPERATOR_METADATA_MAX_VERSION: u32 = 2;

/// Parses operator metadata: a version line, then one JSON line.
pub fn parse_operator_metadata(text: &str) -> Result<OperatorMetadata, ParseError> {
    if text.is_empty() {
        return Err(ParseError::new(1, ParseErrorKind::Empty));
    }
    let mut lines = text.lines();
    let version = parse_version_line(
        lines.next().unwrap_or_default(),
        OPERATOR_METADATA_MAX_VERSION,
    )
    .map_err(|k| ParseError::new(1, k))?;
    let body = lines.next().ok_or_else(|| {
        ParseError::new(2, ParseErrorKind::Shape("the JSON line is missing".into()))
    })?;
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| ParseError::new(2, ParseErrorKind::Json(e.to_string())))?;
    let info = value.get("operatorInfo");
    let stores = value
        .get("stateStoreInfo")
        .and_then(|s| s.as_array())
        .map(|stores| {
            stores
                .iter()
                .map(|s| StoreInfo {
                    name: s
                        .get("storeName")
                        .and_then(|n| n.as_str())
                        .unwrap_or("default")
                        .to_string(),
                    partitions: s
                        .get("numPartitions")
                        .and_then(|n| n.as_u64())
                        .and_then(|n| u32::try_from(n).ok()),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(OperatorMetadata {
        version,
        operator_id: info
            .and_then(|i| i.get("operatorId"))
            .and_then(|n| n.as_u64())
            .and_then(|n| u32::try_from(n).ok()),
        operator_name: info
            .and_then(|i| i.get("operatorName"))
            .and_then(|n| n.as_str())
            .map(str::to_string),
        stores,
    })
}

/// The state schema file `_metadata/schema` (StateSchemaCompatibilityChecker, 3.1+): Java
/// `DataOutputStream` data, `writeUTF("v<N>")` then the key and value schema JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateSchema {
    /// The schema file version (2 from Spark 3.1.3 on).
    pub version: u32,
    /// The key schema JSON (Spark's StructType JSON), when it could be decoded.
    pub key_schema: Option<serde_json::Value>,
    /// The value schema JSON, when it could be decoded.
    pub value_schema: Option<serde_json::Value>,
}

/// Decodes a state schema file. v1: `writeUTF(key)`, `writeUTF(value)`; v2: for the key then the
/// value, `writeInt(numChunks)` and that many `writeUTF` chunks (SchemaHelper.scala).
pub fn parse_state_schema(bytes: &[u8]) -> Result<StateSchema, ParseError> {
    let bad = |what: &str| ParseError::new(1, ParseErrorKind::Shape(what.to_string()));
    if bytes.is_empty() {
        return Err(ParseError::new(1, ParseErrorKind::Empty));
    }
    let mut reader = DataInput { bytes, pos: 0 };
    let header = reader
        .utf()
        .ok_or_else(|| bad("no version string at the start (not a state schema file)"))?;
    let version = parse_version_line(&header, u32::MAX).map_err(|k| ParseError::new(1, k))?;
    let (key, value) = match version {
        1 => (reader.utf(), reader.utf()),
        2 => (reader.chunked(), reader.chunked()),
        _ => (None, None),
    };
    let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
    let (key_schema, value_schema) = (json(key), json(value));
    // Spark reads both schemas whole (SchemaHelper's readers) and fails on a short or garbled
    // file; a version it does not know is left to the version check.
    if matches!(version, 1 | 2) {
        for (what, schema) in [("key", &key_schema), ("value", &value_schema)] {
            if schema.is_none() {
                return Err(bad(&format!(
                    "the {what} schema is cut short or not JSON (the file is truncated or damaged)"
                )));
            }
        }
    }
    Ok(StateSchema {
        version,
        key_schema,
        value_schema,
    })
}

struct DataInput<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl DataInput<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    fn utf(&mut self) -> Option<String> {
        let len = self.take(2)?;
        let len = u16::from_be_bytes([len[0], len[1]]) as usize;
        // Modified UTF-8 differs from UTF-8 only for NUL and supplementary characters, which a
        // schema JSON does not hold; decode lossily rather than fail.
        Some(String::from_utf8_lossy(self.take(len)?).into_owned())
    }

    fn chunked(&mut self) -> Option<String> {
        let n = self.take(4)?;
        let n = i32::from_be_bytes([n[0], n[1], n[2], n[3]]);
        if !(0..=1024).contains(&n) {
            return None;
        }
        let mut out = String::new();
        for _ in 0..n {
            out.push_str(&self.utf()?);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_id_from_metadata() {
        assert_eq!(
            parse_query_metadata("{\"id\":\"347fa587-d246-436c-9c94-aa57c7581372\"}").unwrap(),
            "347fa587-d246-436c-9c94-aa57c7581372"
        );
        assert_eq!(
            parse_query_metadata("").unwrap_err().kind,
            ParseErrorKind::Empty
        );
        assert!(matches!(
            parse_query_metadata("{\"id\":").unwrap_err().kind,
            ParseErrorKind::Json(_)
        ));
        assert!(matches!(
            parse_query_metadata("{}").unwrap_err().kind,
            ParseErrorKind::Shape(_)
        ));
    }

    #[test]
    fn operator_metadata_v1() {
        // The shape quoted in spark-checkpoints.md §1.6.
        let m = parse_operator_metadata(
            "v1\n{\"operatorInfo\":{\"operatorId\":0,\"operatorName\":\"stateStoreSave\"},\"stateStoreInfo\":[{\"storeName\":\"default\",\"numColsPrefixKey\":0,\"numPartitions\":2}]}",
        )
        .unwrap();
        assert_eq!(m.version, 1);
        assert_eq!(m.operator_id, Some(0));
        assert_eq!(m.operator_name.as_deref(), Some("stateStoreSave"));
        assert_eq!(m.stores[0].partitions, Some(2));
    }

    #[test]
    fn state_schema_v2_header_and_chunks() {
        let mut bytes = vec![0, 2, b'v', b'2'];
        for text in [
            "{\"type\":\"struct\",\"fields\":[]}",
            "{\"type\":\"struct\"}",
        ] {
            bytes.extend_from_slice(&1i32.to_be_bytes());
            bytes.extend_from_slice(&(text.len() as u16).to_be_bytes());
            bytes.extend_from_slice(text.as_bytes());
        }
        let s = parse_state_schema(&bytes).unwrap();
        assert_eq!(s.version, 2);
        assert_eq!(s.key_schema.unwrap()["fields"], serde_json::json!([]));
        assert!(s.value_schema.is_some());
        assert!(parse_state_schema(b"garbage").is_err());
        // Issue 15: a file cut after its header is damage Spark fails on, not a schema-less file.
        assert!(parse_state_schema(&[0, 2, b'v', b'2']).is_err());
        assert!(parse_state_schema(&bytes[..bytes.len() - 3]).is_err());
    }
}
