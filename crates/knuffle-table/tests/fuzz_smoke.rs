//! The table readers' fuzz targets in the normal test suite (stable Rust,
//! no libFuzzer): each target's body (`knuffle_table::fuzzing`) is fed its
//! seed corpus (`fuzz/corpus/table_*`), seeds made here, and deterministic
//! mutations of them (bytes flipped, cut, repeated). The bodies panic on
//! any failure of the readers' contract; `cargo +nightly fuzz run
//! table_parquet` (and `table_arrow`, `table_csv`, `table_jsonl`) runs them
//! for as long as one likes.

use std::fs::{self, File};
use std::path::Path;
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::*;
use arrow::record_batch::RecordBatch;
use knuffle_table::Format;
use knuffle_table::fuzzing::{read_arrow, read_csv, read_table};

/// xorshift64 (Marsaglia 2003, "Xorshift RNGs"): the mutations' positions
/// and bytes, the same on every run.
struct Mutations(u64);

impl Mutations {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        // Positions for mutations, not a permutation: the bias of `%` does
        // not matter here.
        (self.next() >> 16) as usize % n.max(1)
    }

    /// `seed` mutated: bytes flipped, set to an extreme, a run cut out or
    /// repeated, or the end cut off.
    fn mutate(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut bytes = seed.to_vec();
        if bytes.is_empty() {
            return vec![self.next() as u8];
        }
        for _ in 0..1 + self.below(3) {
            let at = self.below(bytes.len());
            match self.below(6) {
                0 => bytes[at] ^= 1 << self.below(8),
                1 => bytes[at] = [0, 0xff, 0x7f, 0x80][self.below(4)],
                2 => {
                    let end = (at + 1 + self.below(16)).min(bytes.len());
                    bytes.drain(at..end);
                }
                3 => {
                    let end = (at + 1 + self.below(16)).min(bytes.len());
                    let run = bytes[at..end].to_vec();
                    bytes.splice(at..at, run);
                }
                4 => bytes.truncate(at),
                _ => bytes[at] = self.next() as u8,
            }
            if bytes.is_empty() {
                break;
            }
        }
        bytes
    }
}

/// The committed seeds of `target`'s corpus (`seed-*`: what a local
/// `cargo fuzz run` adds there is not read).
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("seed-"))
        })
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| fs::read(f).unwrap()).collect();
    assert!(!seeds.is_empty(), "{}: no seeds", dir.display());
    seeds
}

fn table(n: i64) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("text", DataType::Utf8, true),
        Field::new(
            "list",
            DataType::List(Arc::new(Field::new("item", DataType::Int32, true))),
            true,
        ),
    ]));
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..n {
        for k in 0..i % 3 {
            lists.values().append_value((i * 3 + k) as i32);
        }
        lists.append(i % 5 != 2);
    }
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(0..n)),
            Arc::new(StringArray::from_iter(
                (0..n).map(|i| (i % 4 != 1).then(|| format!("t{i}"))),
            )),
            Arc::new(lists.finish()),
        ],
    )
    .unwrap()
}

fn parquet_seed(dir: &Path) -> Vec<u8> {
    let path = dir.join("seed.parquet");
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(20))
        .build();
    let batch = table(50);
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        File::create(&path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    fs::read(path).unwrap()
}

fn arrow_seeds(dir: &Path) -> Vec<Vec<u8>> {
    use arrow::ipc::CompressionType;
    use arrow::ipc::writer::IpcWriteOptions;
    let batch = table(30);
    let mut seeds = Vec::new();
    for codec in [
        None,
        Some(CompressionType::LZ4_FRAME),
        Some(CompressionType::ZSTD),
    ] {
        let options = IpcWriteOptions::default()
            .try_with_compression(codec)
            .unwrap();
        let path = dir.join("seed.arrow");
        let mut writer = arrow::ipc::writer::FileWriter::try_new_with_options(
            File::create(&path).unwrap(),
            &batch.schema(),
            options.clone(),
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.write(&batch.slice(0, 7)).unwrap();
        writer.finish().unwrap();
        let mut file = vec![0u8];
        file.extend(fs::read(&path).unwrap());
        seeds.push(file);
        let mut stream = Vec::new();
        let mut writer = arrow::ipc::writer::StreamWriter::try_new_with_options(
            &mut stream,
            &batch.schema(),
            options,
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        let mut file = vec![1u8];
        file.extend(stream);
        seeds.push(file);
    }
    seeds
}

/// Runs `body` on every seed and `rounds` mutations of each; returns how
/// many inputs were read whole.
fn smoke(seeds: &[Vec<u8>], rounds: usize, body: impl Fn(&[u8]) -> bool) -> usize {
    let mut mutations = Mutations(0x2545_f491_4f6c_dd1d);
    let mut read = 0;
    for seed in seeds {
        read += usize::from(body(seed));
        for _ in 0..rounds {
            read += usize::from(body(&mutations.mutate(seed)));
        }
    }
    read
}

#[test]
fn parquet_reader() {
    let dir = tempfile::tempdir().unwrap();
    let mut seeds = corpus("table_parquet");
    seeds.push(parquet_seed(dir.path()));
    let seed_rows = read_table(Format::Parquet, seeds.last().unwrap()).unwrap();
    assert_eq!(seed_rows, 50);
    let read = smoke(&seeds, 150, |b| read_table(Format::Parquet, b).is_ok());
    assert!(read > seeds.len(), "only the seeds read ({read})");
}

/// Found by `cargo fuzz run table_parquet`: a key of the footer's
/// metadata changed (`ARROW:schema` to `ARROA\0schema`) reaches the file's
/// schema but not its batches' (parquet 60.1); the rows are all there.
#[test]
fn a_parquet_footer_key_changed_keeps_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = parquet_seed(dir.path());
    let at = bytes
        .windows(12)
        .position(|w| w == b"ARROW:schema")
        .unwrap();
    bytes[at..at + 12].copy_from_slice(b"ARROA\0schema");
    assert_eq!(read_table(Format::Parquet, &bytes).unwrap(), 50);
}

/// Found by `cargo fuzz run table_csv`: blank lines, then a byte order
/// mark starting the header; the first column's name keeps it, and a CSV
/// written with it would read back without it: refused.
#[test]
fn a_header_starting_with_a_byte_order_mark_after_blank_lines() {
    let input: &[u8] = b"\x00\x0a\x0d\xef\xbb\xbf\x31\x0a\x0d\x00\x0a\x0d\x31\x0a\x0d\x0d\x0d\x0a\x32\x22\x0d\x0a\x0d\x0d\x0d\x0a\x0a\x00\x0d\x0d\x0a\x32\x22\x0d\x0a\x0d\x0d\x0d\x0a\x0a\x00\x01\x0a\x00\x1e\x0d\x0d\x0a\x09\x00\x0c\x0e\x0d";
    assert!(read_csv(input).is_ok());
}

#[test]
fn arrow_reader() {
    let dir = tempfile::tempdir().unwrap();
    let mut seeds = corpus("table_arrow");
    seeds.extend(arrow_seeds(dir.path()));
    for seed in &seeds[seeds.len() - 6..] {
        let rows = read_arrow(seed).unwrap();
        assert!(rows >= 30, "{rows} rows of seed {}", seed[0]);
    }
    let read = smoke(&seeds, 60, |b| read_arrow(b).is_ok());
    assert!(read > seeds.len(), "only the seeds read ({read})");
}

#[test]
fn csv_reader() {
    let mut seeds = corpus("table_csv");
    seeds.push(b"\0id,text\n1,\"a,b\"\n2,\"x\ny\"\n3,\n".to_vec());
    seeds.push(b"\x01id\ttext\n1\t\"a\" b\n2\t\n".to_vec());
    let read = smoke(&seeds, 200, |b| read_csv(b).is_ok());
    assert!(read > seeds.len(), "only the seeds read ({read})");
}

#[test]
fn json_lines_reader() {
    let mut seeds = corpus("table_jsonl");
    seeds.push(
        b"{\"b\":1,\"a\":\"x\",\"l\":[1,2],\"o\":{\"k\":true}}\n{\"b\":18446744073709551615}\n"
            .to_vec(),
    );
    let read = smoke(&seeds, 200, |b| read_table(Format::JsonLines, b).is_ok());
    assert!(read > seeds.len(), "only the seeds read ({read})");
}
