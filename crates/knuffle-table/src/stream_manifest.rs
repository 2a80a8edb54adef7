//! What a stream cache's entry is (stream_cache.rs): the dataset it
//! belongs to (everything that decides pass 1's content but the epoch,
//! and the digest that names its directory), and its manifest: that
//! identity in full with the epoch, the schema of the rows, who wrote it,
//! and the byte ranges of the buckets in its bucket file.

use std::fs;
use std::time::UNIX_EPOCH;

use arrow::datatypes::SchemaRef;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::format::Format;
use crate::source::Source;
use crate::spill::{Bucket, LabelRange, Spilled};

/// The version of the cache's layout and manifest.
const CACHE_VERSION: u64 = 1;

/// Hex digits of a dataset's directory name.
const DIGEST_CHARS: usize = 32;

/// What decides pass 1's content, but the epoch: a dataset of the cache.
#[derive(Clone, Debug)]
pub(crate) struct Dataset {
    /// The identity in full.
    pub(crate) identity: Value,
    /// Its digest: the name of its directory in the cache.
    pub(crate) digest: String,
}

impl Dataset {
    /// The dataset of `sources` read with `format` (the option), `seed` and
    /// `columns` (none: all); the inputs must be regular files.
    pub(crate) fn of(
        sources: &[Source],
        seed: &str,
        columns: Option<&[String]>,
        format: Option<Format>,
    ) -> Result<Dataset, Error> {
        let mut inputs = Vec::with_capacity(sources.len());
        for source in sources {
            let path =
                fs::canonicalize(&source.path).map_err(|e| Error::io_at(&source.path, &e))?;
            let metadata = fs::metadata(&path).map_err(|e| Error::io_at(&path, &e))?;
            if !metadata.is_file() {
                return Err(Error::invalid(format!(
                    "{}: a stream cache needs its inputs to be files (this is not a regular file)",
                    source.path.display()
                )));
            }
            inputs.push(json!({
                "path": path.to_string_lossy(),
                "format": format!("{:?}", source.format),
                "size": metadata.len(),
                "modified_ns": modified_ns(&metadata),
            }));
        }
        let identity = json!({
            "cache": CACHE_VERSION,
            "knuffle": env!("CARGO_PKG_VERSION"),
            "order": crate::order::VERSION,
            "seed_sha256": hex(&Sha256::digest(seed.as_bytes())),
            "columns": columns,
            "format": format.map(|f| format!("{f:?}")),
            "inputs": inputs,
        });
        let digest =
            hex(&Sha256::digest(identity.to_string().as_bytes()))[..DIGEST_CHARS].to_owned();
        Ok(Dataset { identity, digest })
    }
}

/// A file's modification time in nanoseconds since 1970 (0 if unknown).
fn modified_ns(metadata: &fs::Metadata) -> u64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The schema of the rows as a manifest records it.
pub(crate) fn schema_value(schema: &SchemaRef) -> Value {
    Value::Array(
        schema
            .fields()
            .iter()
            .map(|f| json!([f.name(), format!("{:?}", f.data_type()), f.is_nullable()]))
            .collect(),
    )
}

/// Who wrote an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Writer {
    /// Its process id.
    pub(crate) pid: u32,
    /// Whether it wrote it in the background (the next epoch's pass 1).
    pub(crate) background: bool,
}

/// Whether `name` is one of a dataset's directory.
pub(crate) fn is_dataset_name(name: &str) -> bool {
    name.len() == DIGEST_CHARS && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The manifest of epoch `epoch` of `dataset` (an identity), its rows of
/// `schema` (see [`schema_value`]) written by `writer` to a bucket file of
/// `bytes` bytes, as `spilled`.
pub(crate) fn manifest(
    dataset: &Value,
    epoch: u64,
    schema: &Value,
    writer: Writer,
    bytes: u64,
    spilled: &Spilled,
) -> Value {
    let buckets: Vec<Value> = spilled
        .buckets()
        .iter()
        .map(|b| {
            let segments: Vec<u64> = b.segments.iter().flat_map(|&(o, l)| [o, l]).collect();
            json!([b.rows, b.bytes, segments])
        })
        .collect();
    json!({
        "identity": {"dataset": dataset, "epoch": epoch},
        "schema": schema,
        "writer": {"pid": writer.pid, "background": writer.background},
        "bytes": bytes,
        "range": [spilled.range().lo, spilled.range().hi],
        "buckets": buckets,
    })
}

/// Whether `manifest` is of epoch `epoch` of `dataset`.
pub(crate) fn is_of(manifest: &Value, dataset: &Value, epoch: u64) -> bool {
    manifest["identity"]["dataset"] == *dataset && manifest["identity"]["epoch"] == json!(epoch)
}

/// What a manifest lists.
pub(crate) struct Parsed {
    pub(crate) range: LabelRange,
    pub(crate) buckets: Vec<Bucket>,
    /// The bucket file's length.
    pub(crate) bytes: u64,
    pub(crate) writer: Writer,
}

/// What a manifest lists (none if it is not well formed).
pub(crate) fn parse(manifest: &Value) -> Option<Parsed> {
    let range = manifest["range"].as_array()?;
    let range = LabelRange {
        lo: range.first()?.as_u64()?,
        hi: range.get(1)?.as_u64()?,
    };
    if range.lo >= range.hi || range.hi > crate::order::LABELS {
        return None;
    }
    let bytes = manifest["bytes"].as_u64()?;
    let mut buckets = Vec::new();
    for bucket in manifest["buckets"].as_array()? {
        let [rows, size, segments] = bucket.as_array()?.as_slice() else {
            return None;
        };
        let segments = segments.as_array()?;
        if segments.len() % 2 != 0 {
            return None;
        }
        let mut pairs = Vec::with_capacity(segments.len() / 2);
        for pair in segments.chunks(2) {
            let (offset, length) = (pair[0].as_u64()?, pair[1].as_u64()?);
            if offset.checked_add(length)? > bytes {
                return None;
            }
            pairs.push((offset, length));
        }
        buckets.push(Bucket {
            segments: pairs,
            rows: rows.as_u64()?,
            bytes: size.as_u64()?,
        });
    }
    if buckets.is_empty() {
        return None;
    }
    let writer = Writer {
        pid: u32::try_from(manifest["writer"]["pid"].as_u64()?).ok()?,
        background: manifest["writer"]["background"].as_bool()?,
    };
    Some(Parsed {
        range,
        buckets,
        bytes,
        writer,
    })
}

/// Whether every input a manifest names is still there as it was.
pub(crate) fn inputs_unchanged(manifest: &Value) -> bool {
    let Some(inputs) = manifest["identity"]["dataset"]["inputs"].as_array() else {
        return false;
    };
    inputs.iter().all(|input| {
        let Some(path) = input["path"].as_str() else {
            return false;
        };
        fs::metadata(path).is_ok_and(|m| {
            input["size"].as_u64() == Some(m.len())
                && input["modified_ns"].as_u64() == Some(modified_ns(&m))
        })
    })
}
