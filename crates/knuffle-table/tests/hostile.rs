//! Hostile tables (issue 40): each input is either read with every row
//! there and unchanged, or refused as invalid data naming the file, in
//! bounded memory, with no output left behind. Every crafted file is made
//! here, by the test.

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::*;
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use knuffle_table::{Destination, ErrorKind, Options, shuffle_table, table_order};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::{
    FileMetaData, ParquetMetaData, ParquetMetaDataBuilder, ParquetMetaDataWriter,
};
use parquet::file::reader::{FileReader, SerializedFileReader};

fn options(seed: &str) -> Options {
    Options {
        seed: seed.into(),
        memory: 256 << 20,
        temp_dir: None,
        format: None,
        output_format: None,
        count: None,
        compression: None,
        row_group_rows: None,
        infer_types: false,
    }
}

fn run(
    input: &Path,
    out: &Path,
    options: &Options,
) -> Result<knuffle_table::Report, knuffle_table::Error> {
    shuffle_table(
        &[input.to_path_buf()],
        &Destination::File(out.to_path_buf()),
        options,
    )
}

/// `input` is refused as invalid data, the message naming it and saying
/// `expected`, and nothing is written.
fn refused(input: &Path, options: &Options, expected: &str) -> String {
    let out = input.with_extension("out.csv");
    let error = run(input, &out, options).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Invalid, "{error}");
    let name = input.file_name().unwrap().to_str().unwrap();
    assert!(error.message().contains(name), "{error}");
    assert!(error.message().contains(expected), "{error}");
    assert!(!out.exists());
    error.message().to_owned()
}

#[test]
fn a_csv_or_tsv_quote_never_closed_is_an_error_not_one_row() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        ("uq.csv", "id,a\n1,\"unclosed\n2,b\n3,c\n"),
        ("late.csv", "id,a\n1,x\n2,y\n3,\"z"),
    ] {
        let input = dir.path().join(name);
        fs::write(&input, content).unwrap();
        refused(&input, &options("q"), "never closed");
    }
    let message = refused(&dir.path().join("uq.csv"), &options("q"), "record 2");
    assert!(
        message.contains("record 2 opens a quoted field"),
        "{message}"
    );
    // Closed quotes, even around line breaks, are one field.
    let good = dir.path().join("good.csv");
    fs::write(&good, "id,a\n1,\"two\nlines\"\n2,\"\"\"\"\n").unwrap();
    let out = dir.path().join("good-out.csv");
    assert_eq!(run(&good, &out, &options("q")).unwrap().rows_out, 2);
}

#[test]
fn tsv_is_read_and_written_without_quote_processing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    let rows = ["0\t\"quoted\" text", "1\ta \"b\" c", "2\t\""];
    fs::write(&input, format!("id\tv\n{}\n", rows.join("\n"))).unwrap();
    let out = dir.path().join("out.tsv");
    assert_eq!(run(&input, &out, &options("tsv")).unwrap().rows_out, 3);
    let order = table_order("tsv", 3);
    let expected: Vec<&str> = order.iter().map(|&i| rows[i as usize]).collect();
    assert_eq!(
        fs::read_to_string(&out).unwrap(),
        format!("id\tv\n{}\n", expected.join("\n"))
    );
    // As JSON Lines the value is the TSV field, quotes and all.
    let json = dir.path().join("out.jsonl");
    run(&input, &json, &options("tsv")).unwrap();
    assert!(
        fs::read_to_string(&json)
            .unwrap()
            .contains(r#""v":"\"quoted\" text""#)
    );
    // A value with a TAB cannot be TSV: refused, not quoted.
    let csv = dir.path().join("tab.csv");
    fs::write(&csv, "id,v\n0,\"a\tb\"\n").unwrap();
    let error = run(&csv, &dir.path().join("tab.tsv"), &options("t")).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Invalid);
    assert!(error.message().contains("TAB"), "{error}");
    assert!(!dir.path().join("tab.tsv").exists());
}

#[test]
fn duplicate_column_names_are_refused_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("dup.csv");
    fs::write(&csv, "a,b,a\n1,2,3\n").unwrap();
    let message = refused(&csv, &options("d"), "appears twice");
    assert!(message.contains("columns 1 and 3"), "{message}");
    let schema = Arc::new(Schema::new(vec![
        Field::new("x", DataType::Int64, false),
        Field::new("x", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(vec![1, 2])),
            Arc::new(Int64Array::from(vec![3, 4])),
        ],
    )
    .unwrap();
    let arrow_file = dir.path().join("dup.arrow");
    let mut writer =
        arrow::ipc::writer::FileWriter::try_new(File::create(&arrow_file).unwrap(), &schema)
            .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    refused(&arrow_file, &options("d"), "appears twice");
    let parquet = dir.path().join("dup.parquet");
    let mut writer = ArrowWriter::try_new(File::create(&parquet).unwrap(), schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    refused(&parquet, &options("d"), "appears twice");
}

fn ids_batch(n: i64) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(0..n))]).unwrap()
}

fn write_parquet(path: &Path, batch: &RecordBatch, row_group: usize) {
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

/// `path` with its footer replaced by `change` of its metadata.
fn refooter(path: &Path, out: &Path, change: impl FnOnce(ParquetMetaData) -> ParquetMetaData) {
    let bytes = fs::read(path).unwrap();
    let footer = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap()) as usize;
    let metadata = SerializedFileReader::new(File::open(path).unwrap())
        .unwrap()
        .metadata()
        .clone();
    let changed = change(metadata);
    let mut file = File::create(out).unwrap();
    file.write_all(&bytes[..bytes.len() - 8 - footer]).unwrap();
    ParquetMetaDataWriter::new(&mut file, &changed)
        .finish()
        .unwrap();
}

fn with_num_rows(metadata: ParquetMetaData, rows: i64) -> ParquetMetaData {
    let old = metadata.file_metadata();
    let file = FileMetaData::new(
        old.version(),
        rows,
        old.created_by().map(str::to_owned),
        old.key_value_metadata().cloned(),
        old.schema_descr_ptr(),
        old.column_orders().cloned(),
    );
    ParquetMetaData::new(file, metadata.row_groups().to_vec())
}

#[test]
fn a_parquet_footer_must_count_the_rows_of_its_row_groups() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.parquet");
    write_parquet(&good, &ids_batch(2000), 500);
    // FileMetaData's field 3, num_rows (Thrift compact: header 0x16, then
    // 2000 as a zigzag varint), said otherwise.
    let bytes = fs::read(&good).unwrap();
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap()) as usize;
    let start = bytes.len() - 8 - footer_len;
    let footer = &bytes[start..bytes.len() - 8];
    let at = footer
        .windows(3)
        .position(|w| w == [0x16, 0xa0, 0x1f])
        .expect("num_rows in the footer");
    for (name, varint) in [
        ("zero.parquet", &[0x00][..]),
        ("more.parquet", &[0x90, 0x4e][..]),
        ("minus.parquet", &[0x01][..]),
    ] {
        let mut changed = footer[..=at].to_vec();
        changed.extend_from_slice(varint);
        changed.extend_from_slice(&footer[at + 3..]);
        let mut file = bytes[..start].to_vec();
        file.extend_from_slice(&changed);
        file.extend_from_slice(&(changed.len() as u32).to_le_bytes());
        file.extend_from_slice(b"PAR1");
        let bad = dir.path().join(name);
        fs::write(&bad, file).unwrap();
        refused(&bad, &options("p"), "its row groups hold 2000");
    }
    // The same footer rewritten with the right count reads every row.
    let same = dir.path().join("same.parquet");
    refooter(&good, &same, |m| with_num_rows(m, 2000));
    let out = dir.path().join("out.parquet");
    assert_eq!(run(&same, &out, &options("p")).unwrap().rows_out, 2000);
}

#[test]
fn a_parquet_footer_that_asks_for_too_much_is_refused_before_it_is_decoded() {
    let dir = tempfile::tempdir().unwrap();
    // A FileMetaData in Thrift's compact protocol: version 1, a schema of
    // one element (the root) claiming 2^31-1 children, 0 rows, no row
    // groups.
    let mut footer = vec![0x15, 0x02, 0x19, 0x1c, 0x48, 0x04];
    footer.extend_from_slice(b"root");
    footer.extend_from_slice(&[0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    footer.extend_from_slice(&[0x16, 0x00, 0x19, 0x0c, 0x00]);
    let mut file = b"PAR1".to_vec();
    file.extend_from_slice(&footer);
    file.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    file.extend_from_slice(b"PAR1");
    let children = dir.path().join("children.parquet");
    fs::write(&children, &file).unwrap();
    refused(&children, &options("f"), "claims 2147483647 children");

    // 100,000 row groups over the same pages: more footer than the memory
    // limit allows.
    let good = dir.path().join("good.parquet");
    write_parquet(&good, &ids_batch(10), 10);
    let many = dir.path().join("many.parquet");
    refooter(&good, &many, |m| {
        let groups = vec![m.row_groups()[0].clone(); 100_000];
        let with_rows = with_num_rows(m, 1_000_000);
        ParquetMetaDataBuilder::new_from_metadata(with_rows)
            .set_row_groups(groups)
            .build()
    });
    let small = Options {
        memory: 32 << 20,
        ..options("f")
    };
    refused(&many, &small, "raise the memory limit");

    // A footer longer than the file, and a file too short to have one.
    let mut long = fs::read(&good).unwrap();
    let at = long.len() - 8;
    long[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let long_path = dir.path().join("long.parquet");
    fs::write(&long_path, &long).unwrap();
    refused(&long_path, &options("f"), "truncated or corrupt");
    let short = dir.path().join("short.parquet");
    fs::write(&short, b"PAR1PAR1").unwrap();
    refused(&short, &options("f"), "too short");
}

#[test]
fn rows_without_columns_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(Schema::empty());
    let batch = RecordBatch::try_new_with_options(
        schema.clone(),
        vec![],
        &RecordBatchOptions::new().with_row_count(Some(5)),
    )
    .unwrap();
    let input = dir.path().join("none.arrows");
    let mut writer =
        arrow::ipc::writer::StreamWriter::try_new(File::create(&input).unwrap(), &schema).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    for out in ["out.arrows", "out.arrow"] {
        let out = dir.path().join(out);
        let report = run(&input, &out, &options("z")).unwrap();
        assert_eq!((report.rows_in, report.rows_out), (5, 5), "{out:?}");
        let back = run(&out, &dir.path().join("again.arrows"), &options("z")).unwrap();
        assert_eq!(back.rows_in, 5, "{out:?} read back");
    }
    // The other formats would write the rows as nothing: refused.
    for out in ["out.parquet", "out.csv", "out.jsonl"] {
        let out = dir.path().join(out);
        let error = run(&input, &out, &options("z")).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Invalid);
        assert!(error.message().contains("rows without columns"), "{error}");
        assert!(!out.exists());
    }
}

#[test]
fn json_lines_keep_their_column_order_and_their_integers() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    fs::write(
        &input,
        "{\"zeta\":18446744073709551615,\"alpha\":\"x\",\"mid\":1}\n{\"zeta\":1,\"alpha\":\"y\",\"new\":true}\n",
    )
    .unwrap();
    let out = dir.path().join("out.csv");
    run(&input, &out, &options("j")).unwrap();
    let text = fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("zeta,alpha,mid,new\n"), "{text}");
    assert!(text.contains("18446744073709551615,x,1,"), "{text}");
    let jsonl = dir.path().join("out.jsonl");
    run(&input, &jsonl, &options("j")).unwrap();
    let text = fs::read_to_string(&jsonl).unwrap();
    assert!(
        text.contains("{\"zeta\":18446744073709551615,\"alpha\":\"x\",\"mid\":1}"),
        "{text}"
    );
    // Integers on both sides of the 64-bit types: refused, not rounded.
    let both = dir.path().join("both.jsonl");
    fs::write(&both, "{\"v\":-1}\n{\"v\":18446744073709551615}\n").unwrap();
    refused(&both, &options("j"), "below 0 and above 2^63-1");
    // A float column stays a float column.
    let floats = dir.path().join("floats.jsonl");
    fs::write(&floats, "{\"v\":1.5}\n{\"v\":18446744073709551615}\n").unwrap();
    run(&floats, &dir.path().join("f.jsonl"), &options("j")).unwrap();
}

#[test]
fn json_lines_errors_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.jsonl");
    let mut text = "{\"a\":1}\n".repeat(999);
    text.push_str("{\"a\":\n{\"a\":2}\n");
    fs::write(&input, text).unwrap();
    refused(&input, &options("e"), "line 1000");
    let array = dir.path().join("array.jsonl");
    fs::write(&array, "{\"a\":1}\n[1,2]\n").unwrap();
    refused(&array, &options("e"), "line 2: not a JSON object");
}

fn stamps(n: i64) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into())),
            true,
        ),
    ]));
    let at = TimestampMicrosecondArray::from_iter_values(
        (0..n).map(|i| 1_600_000_000_000_000 + i * 3_600_000_000),
    )
    .with_timezone("Europe/Paris");
    RecordBatch::try_new(
        schema,
        vec![Arc::new(Int64Array::from_iter_values(0..n)), Arc::new(at)],
    )
    .unwrap()
}

#[test]
fn arrow_ipc_with_lz4_and_zstd_bodies_and_time_zones_everywhere() {
    use arrow::ipc::CompressionType;
    use arrow::ipc::writer::IpcWriteOptions;
    let dir = tempfile::tempdir().unwrap();
    let batch = stamps(100);
    for (name, codec) in [
        ("lz4.arrow", CompressionType::LZ4_FRAME),
        ("zstd.arrow", CompressionType::ZSTD),
    ] {
        let input = dir.path().join(name);
        let options_ipc = IpcWriteOptions::default()
            .try_with_compression(Some(codec))
            .unwrap();
        let mut writer = arrow::ipc::writer::FileWriter::try_new_with_options(
            File::create(&input).unwrap(),
            &batch.schema(),
            options_ipc,
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        for out in ["out.csv", "out.jsonl", "out.parquet", "out.arrows"] {
            let out = dir.path().join(out);
            let report = run(&input, &out, &options("ipc")).unwrap();
            assert_eq!(report.rows_out, 100, "{name} to {out:?}");
        }
        let csv = fs::read_to_string(dir.path().join("out.csv")).unwrap();
        assert!(csv.contains("+02:00") || csv.contains("+01:00"), "{csv}");
        let json = fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
        assert!(json.contains("+02:00") || json.contains("+01:00"), "{json}");
    }
}

#[test]
fn a_compressed_arrow_batch_claiming_a_huge_size_is_refused() {
    use arrow::ipc::CompressionType;
    use arrow::ipc::writer::IpcWriteOptions;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("lz4.arrows");
    let options_ipc = IpcWriteOptions::default()
        .try_with_compression(Some(CompressionType::LZ4_FRAME))
        .unwrap();
    let batch = ids_batch(1000);
    let mut writer = arrow::ipc::writer::StreamWriter::try_new_with_options(
        File::create(&input).unwrap(),
        &batch.schema(),
        options_ipc,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    // The id column's buffer says 8000 uncompressed bytes in its first 8
    // bytes; say 2^40 instead.
    let mut bytes = fs::read(&input).unwrap();
    let prefix = 8000u64.to_le_bytes();
    let at = bytes
        .windows(8)
        .position(|w| w == prefix)
        .expect("the length prefix");
    bytes[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let bad = dir.path().join("huge.arrows");
    fs::write(&bad, &bytes).unwrap();
    refused(&bad, &options("c"), "uncompressed");
}

#[test]
fn truncated_arrow_files_and_streams_are_invalid_data() {
    let dir = tempfile::tempdir().unwrap();
    let batch = ids_batch(5000);
    for name in ["t.arrow", "t.arrows"] {
        let whole = dir.path().join(format!("whole-{name}"));
        let file = File::create(&whole).unwrap();
        if name.ends_with(".arrows") {
            let mut w = arrow::ipc::writer::StreamWriter::try_new(file, &batch.schema()).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        } else {
            let mut w = arrow::ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        }
        let bytes = fs::read(&whole).unwrap();
        let cut = dir.path().join(name);
        fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        refused(&cut, &options("t"), "truncated");
    }
}

#[test]
fn wide_and_long_csv_inputs_stay_within_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    // 100,000 columns: read a few rows at a time.
    let columns = 100_000;
    let header: Vec<String> = (0..columns).map(|c| format!("c{c}")).collect();
    let row: Vec<String> = (0..columns).map(|c| (c % 10).to_string()).collect();
    let input = dir.path().join("wide.csv");
    fs::write(
        &input,
        format!(
            "{}\n{}\n{}\n",
            header.join(","),
            row.join(","),
            row.join(",")
        ),
    )
    .unwrap();
    let out = dir.path().join("wide-out.csv");
    // Its arrays alone take about 100 MiB (a run peaks at 115 MB):
    // refused under 64 MiB before a row is read, shuffled under 256 MiB.
    let small = Options {
        memory: 64 << 20,
        ..options("w")
    };
    let error = run(&input, &out, &small).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Memory, "{error}");
    assert!(
        error
            .message()
            .contains("wide.csv: a table of 100000 columns takes about 98 MiB"),
        "{error}"
    );
    assert!(!out.exists());
    let enough = Options {
        memory: 256 << 20,
        ..options("w")
    };
    assert_eq!(run(&input, &out, &enough).unwrap().rows_out, 2);
    // One cell longer than the memory limit allows a record: refused.
    let long = dir.path().join("long.csv");
    fs::write(&long, format!("id,v\n1,{}\n", "x".repeat(4 << 20))).unwrap();
    let tiny = Options {
        memory: 8 << 20,
        ..options("w")
    };
    refused(&long, &tiny, "raise the memory limit");
}

#[test]
fn a_sample_of_one_row_fits_a_small_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("rows.parquet");
    let n = 10_000;
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("text", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(0..n)),
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("{i:0>200}")),
            )),
        ],
    )
    .unwrap();
    write_parquet(&input, &batch, 10_000);
    let out = dir.path().join("one.csv");
    let options = Options {
        memory: 2 << 20,
        count: Some(1),
        ..options("n")
    };
    assert_eq!(run(&input, &out, &options).unwrap().rows_out, 1);
}
