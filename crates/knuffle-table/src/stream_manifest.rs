//! What a stream cache's entry is (stream_cache.rs): the dataset it
//! belongs to (everything that decides pass 1's content but the epoch,
//! and the digest that names its directory), and its manifest: that
//! identity in full with the epoch, the schema of the rows, who wrote it,
//! and the byte ranges of the buckets in its bucket file.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::time::UNIX_EPOCH;

use arrow::datatypes::SchemaRef;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::format::Format;
use crate::source::Source;
use crate::spill::{Bucket, LabelRange, Spilled};

/// The version of the cache's layout and manifest (2: an input is also
/// known by its device, inode and change time).
const CACHE_VERSION: u64 = 2;

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
            let mut input = file_identity(&metadata);
            input.insert("path".into(), json!(path.to_string_lossy()));
            input.insert("format".into(), json!(format!("{:?}", source.format)));
            if !source.partition.is_empty() {
                input.insert("partition".into(), json!(source.partition.describe()));
            }
            inputs.push(Value::Object(input));
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

/// What tells a file's content apart from an earlier one's, short of
/// reading it: its size and modification time (which a copy can restore:
/// `cp -p`, `rsync -t`, `utime`), its device and inode (a file written
/// elsewhere and renamed over it), and its status change time, which the
/// kernel sets on every write and no call can set back.
fn file_identity(metadata: &fs::Metadata) -> serde_json::Map<String, Value> {
    let mut identity = serde_json::Map::new();
    identity.insert("size".into(), json!(metadata.len()));
    identity.insert("modified_ns".into(), json!(modified_ns(metadata)));
    identity.insert("dev".into(), json!(metadata.dev()));
    identity.insert("ino".into(), json!(metadata.ino()));
    identity.insert(
        "ctime".into(),
        json!([metadata.ctime(), metadata.ctime_nsec()]),
    );
    identity
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
    changed_input(&manifest["identity"]["dataset"]).is_none()
}

/// The first input of `dataset` (an identity) that is gone or no longer
/// as it was when the identity was taken (its path; the whole list if the
/// identity names none).
pub(crate) fn changed_input(dataset: &Value) -> Option<String> {
    let Some(inputs) = dataset["inputs"].as_array() else {
        return Some("the inputs".into());
    };
    inputs.iter().find_map(|input| {
        let Some(path) = input["path"].as_str() else {
            return Some("the inputs".into());
        };
        let same = fs::metadata(path).is_ok_and(|m| {
            file_identity(&m)
                .iter()
                .all(|(key, value)| input[key.as_str()] == *value)
        });
        (!same).then(|| path.to_owned())
    })
}
