//! `shuffle_table` on real files: every Arrow type survives every format
//! that can hold it, the order is the table order whatever the files, the
//! memory limit or the shards, and bad inputs fail cleanly.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::*;
use arrow::record_batch::RecordBatch;
use knuffle_table::{Destination, ErrorKind, Options, ShardSplit, shuffle_table, table_order};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn options(seed: &str) -> Options {
    Options {
        seed: seed.into(),
        memory: 1 << 30,
        temp_dir: None,
        format: None,
        output_format: None,
        count: None,
        compression: None,
        row_group_rows: None,
        infer_types: false,
    }
}

/// A table of `n` rows with a column of every kind, `id` = row number.
fn every_type(n: usize) -> RecordBatch {
    let id = Int64Array::from_iter_values(0..n as i64);
    let null_every = |k: usize, i: usize| i % k == 1;
    let ints = Int32Array::from_iter((0..n).map(|i| (!null_every(5, i)).then_some(i as i32 * 7)));
    let u8s = UInt8Array::from_iter((0..n).map(|i| (!null_every(4, i)).then_some(i as u8)));
    let floats =
        Float64Array::from_iter((0..n).map(|i| (!null_every(6, i)).then_some(i as f64 / 3.0)));
    let halfish = Float32Array::from_iter((0..n).map(|i| Some(i as f32 * 0.5)));
    let bools = BooleanArray::from_iter((0..n).map(|i| (!null_every(3, i)).then_some(i % 2 == 0)));
    let strings = StringArray::from_iter(
        (0..n).map(|i| (!null_every(7, i)).then(|| format!("s{i},\"q\"\n"))),
    );
    let large = LargeStringArray::from_iter((0..n).map(|i| Some("L".repeat(i % 9))));
    let binary =
        BinaryArray::from_iter((0..n).map(|i| (!null_every(8, i)).then(|| vec![i as u8, 0, 255])));
    let large_binary = LargeBinaryArray::from_iter((0..n).map(|i| Some(vec![i as u8; i % 4])));
    let decimals = Decimal128Array::from_iter(
        (0..n).map(|i| (!null_every(9, i)).then_some(i as i128 * 12345)),
    )
    .with_precision_and_scale(20, 4)
    .unwrap();
    let fixed = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..n).map(|i| (!null_every(5, i)).then_some([i as u8, 7, (i >> 8) as u8])),
        3,
    )
    .unwrap();
    let dates = Date32Array::from_iter((0..n).map(|i| Some(18000 + i as i32)));
    let stamps = TimestampMicrosecondArray::from_iter(
        (0..n).map(|i| (!null_every(5, i)).then_some(1_600_000_000_000_000 + i as i64)),
    )
    .with_timezone("Europe/Paris");
    let dict: DictionaryArray<Int32Type> =
        (0..n).map(|i| ["red", "green", "blue"][i % 3]).collect();
    let mut lists = ListBuilder::new(Int64Builder::new());
    for i in 0..n {
        if null_every(4, i) {
            lists.append_null();
        } else {
            for k in 0..(i % 3) {
                lists.values().append_value((i * 10 + k) as i64);
            }
            lists.append(true);
        }
    }
    let struct_array = StructArray::from(vec![
        (
            Arc::new(Field::new("a", DataType::Int64, true)),
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (!null_every(3, i)).then_some(i as i64)),
            )) as ArrayRef,
        ),
        (
            Arc::new(Field::new("b", DataType::Utf8, true)),
            Arc::new(StringArray::from_iter(
                (0..n).map(|i| Some(format!("b{i}"))),
            )) as ArrayRef,
        ),
    ]);
    let mut maps = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    for i in 0..n {
        for k in 0..(i % 3) {
            maps.keys().append_value(format!("k{k}"));
            maps.values().append_value((i + k) as i64);
        }
        maps.append(!null_every(6, i)).unwrap();
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(id)),
        ("int", Arc::new(ints)),
        ("u8", Arc::new(u8s)),
        ("float", Arc::new(floats)),
        ("f32", Arc::new(halfish)),
        ("bool", Arc::new(bools)),
        ("string", Arc::new(strings)),
        ("large_string", Arc::new(large)),
        ("binary", Arc::new(binary)),
        ("large_binary", Arc::new(large_binary)),
        ("decimal", Arc::new(decimals)),
        ("fixed_binary", Arc::new(fixed)),
        ("date", Arc::new(dates)),
        ("timestamp", Arc::new(stamps)),
        ("dictionary", Arc::new(dict)),
        ("list", Arc::new(lists.finish())),
        ("struct", Arc::new(struct_array)),
        ("map", Arc::new(maps.finish())),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array)| {
            Field::new(*name, array.data_type().clone(), *name != "id").with_metadata(
                HashMap::from([("comment".into(), format!("the {name} column"))]),
            )
        })
        .collect();
    let schema =
        Schema::new_with_metadata(fields, HashMap::from([("owner".into(), "tests".into())]));
    RecordBatch::try_new(
        Arc::new(schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

fn write_parquet(path: &Path, batch: &RecordBatch, row_group: usize) {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group))
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .set_key_value_metadata(Some(vec![parquet::file::metadata::KeyValue::new(
            "made-by".into(),
            "tests".to_string(),
        )]))
        .build();
    let mut writer =
        ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

fn read_parquet(path: &Path) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let schema = reader.schema().clone();
    let batches: Vec<RecordBatch> = reader.build().unwrap().map(Result::unwrap).collect();
    arrow::compute::concat_batches(&schema, &batches).unwrap()
}

fn read_ipc(path: &Path) -> RecordBatch {
    let reader = arrow::ipc::reader::FileReader::try_new(File::open(path).unwrap(), None).unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    arrow::compute::concat_batches(&schema, &batches).unwrap()
}

fn ids(batch: &RecordBatch) -> Vec<u64> {
    let column = batch.column_by_name("id").unwrap();
    let column = arrow::compute::cast(column, &DataType::Int64).unwrap();
    column
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .values()
        .iter()
        .map(|&v| v as u64)
        .collect()
}

/// `batch`'s rows in the order `rows`.
fn reorder(batch: &RecordBatch, rows: &[u64]) -> RecordBatch {
    let indices = UInt64Array::from(rows.to_vec());
    arrow::compute::take_record_batch(batch, &indices).unwrap()
}

/// The same columns, fields and values; the table metadata of `expected`
/// is in `got`'s (a Parquet reader adds the file's key-value metadata).
fn assert_same(got: &RecordBatch, expected: &RecordBatch) {
    assert_eq!(got.schema().fields(), expected.schema().fields());
    for (key, value) in expected.schema().metadata() {
        assert_eq!(
            got.schema().metadata().get(key),
            Some(value),
            "metadata {key}"
        );
    }
    assert_eq!(got.columns(), expected.columns());
}

fn shuffle(inputs: &[PathBuf], out: &Path, options: &Options) -> knuffle_table::Report {
    shuffle_table(inputs, &Destination::File(out.to_path_buf()), options).unwrap()
}

#[test]
fn every_type_survives_parquet_in_the_table_order() {
    let dir = tempfile::tempdir().unwrap();
    let table = every_type(500);
    let input = dir.path().join("in.parquet");
    write_parquet(&input, &table, 128);
    let out = dir.path().join("out.parquet");
    let report = shuffle(&[input], &out, &options("types"));
    assert_eq!((report.rows_in, report.rows_out), (500, 500));
    let got = read_parquet(&out);
    let order = table_order("types", 500);
    assert_eq!(ids(&got), order);
    // Schema (field and table metadata included) and every value.
    assert_same(&got, &reorder(&table, &order));
    assert_eq!(got.schema().metadata()["owner"], "tests");
    // The layout and file metadata of the input.
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&out).unwrap()).unwrap();
    let metadata = reader.metadata();
    assert_eq!(metadata.row_group(0).num_rows(), 128);
    assert!(matches!(
        metadata.row_group(0).column(0).compression(),
        parquet::basic::Compression::ZSTD(_)
    ));
    let kv = metadata.file_metadata().key_value_metadata().unwrap();
    assert!(
        kv.iter()
            .any(|e| e.key == "made-by" && e.value.as_deref() == Some("tests"))
    );
}

#[test]
fn every_type_survives_arrow_ipc_files_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let table = every_type(300);
    let input = dir.path().join("in.arrow");
    let mut writer =
        arrow::ipc::writer::FileWriter::try_new(File::create(&input).unwrap(), &table.schema())
            .unwrap();
    writer.write(&table.slice(0, 100)).unwrap();
    writer.write(&table.slice(100, 200)).unwrap();
    writer.finish().unwrap();
    let stream = dir.path().join("mid.arrows");
    shuffle(&[input], &stream, &options("ipc"));
    // The stream back to a file, shuffled again with another seed: two
    // permutations composed, checked against the reference.
    let out = dir.path().join("out.feather");
    shuffle(&[stream], &out, &options("ipc2"));
    let first = table_order("ipc", 300);
    let second = table_order("ipc2", 300);
    let composed: Vec<u64> = second.iter().map(|&p| first[p as usize]).collect();
    assert_eq!(read_ipc(&out), reorder(&table, &composed));
}

#[test]
fn the_order_does_not_depend_on_files_memory_or_shards() {
    let dir = tempfile::tempdir().unwrap();
    let n = 60_000;
    let table = every_type(n);
    let whole = dir.path().join("whole.parquet");
    write_parquet(&whole, &table, 10_000);
    // The same rows in 7 shards of uneven sizes, in a directory.
    let shards = dir.path().join("shards");
    fs::create_dir(&shards).unwrap();
    let cuts = [0, 1, 5000, 5001, 20_000, 33_333, 50_000, n];
    for (i, w) in cuts.windows(2).enumerate() {
        write_parquet(
            &shards.join(format!("part-{i}.parquet")),
            &table.slice(w[0], w[1] - w[0]),
            4096,
        );
    }
    fs::write(shards.join("_SUCCESS"), "").unwrap();
    let expected = reorder(&table, &table_order("same", n as u64));

    let one = dir.path().join("one.parquet");
    assert_eq!(
        shuffle(std::slice::from_ref(&whole), &one, &options("same")).buckets,
        0
    );
    assert_same(&read_parquet(&one), &expected);

    let from_shards = dir.path().join("from-shards.parquet");
    shuffle(&[shards], &from_shards, &options("same"));
    assert_same(&read_parquet(&from_shards), &expected);
    // Row groups as the largest of any input (not the 1-row shard's).
    let metadata =
        ParquetRecordBatchReaderBuilder::try_new(File::open(&from_shards).unwrap()).unwrap();
    assert_eq!(metadata.metadata().num_row_groups(), n.div_ceil(4096));

    // Small memory: many buckets, some split again.
    let mut small = options("same");
    small.memory = 2 << 20;
    let external = dir.path().join("external.parquet");
    let report = shuffle(std::slice::from_ref(&whole), &external, &small);
    assert!(report.buckets >= 2, "{report:?}");
    assert_same(&read_parquet(&external), &expected);

    // CSV out: the same bytes in memory and through buckets (the batches
    // are cut at the same rows whatever the buckets).
    let text = dir.path().join("text.csv");
    fs::write(&text, {
        let mut t = String::from("id,name\n");
        for i in 0..n {
            t.push_str(&format!("{i},\"n{i},\n{}\"\n", "x".repeat(i % 50)));
        }
        t
    })
    .unwrap();
    let csv_memory = dir.path().join("memory.csv");
    let csv_buckets = dir.path().join("buckets.csv");
    shuffle(std::slice::from_ref(&text), &csv_memory, &options("same"));
    assert!(shuffle(std::slice::from_ref(&text), &csv_buckets, &small).buckets >= 2);
    let same = fs::read(&csv_memory).unwrap() == fs::read(&csv_buckets).unwrap();
    assert!(same, "CSV outputs differ between memory and buckets");
    // An IPC file holds one dictionary per column: a dictionary column
    // whose values differ between batches is a clear error, and no file.
    let file = dir.path().join("dictionaries.arrow");
    let error = shuffle_table(
        std::slice::from_ref(&whole),
        &Destination::File(file.clone()),
        &small,
    )
    .unwrap_err();
    assert!(
        error
            .message()
            .contains("write an Arrow stream (.arrows) or Parquet"),
        "{error}"
    );
    assert!(!file.exists());

    // Shards out: their concatenation is the order.
    let out = dir.path().join("sharded");
    shuffle_table(
        &[whole],
        &Destination::Shards(out.clone(), ShardSplit::Count(4)),
        &small,
    )
    .unwrap();
    let names: Vec<String> = {
        let mut names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names,
        [
            "part-00000.parquet",
            "part-00001.parquet",
            "part-00002.parquet",
            "part-00003.parquet"
        ]
    );
    let parts: Vec<RecordBatch> = names
        .iter()
        .map(|name| read_parquet(&out.join(name)))
        .collect();
    assert_eq!(
        parts.iter().map(RecordBatch::num_rows).collect::<Vec<_>>(),
        [15_000; 4]
    );
    assert_same(
        &arrow::compute::concat_batches(&parts[0].schema(), &parts).unwrap(),
        &expected,
    );
}

#[test]
fn head_count_takes_the_first_rows_of_the_order() {
    let dir = tempfile::tempdir().unwrap();
    let n = 50_000;
    let table = every_type(n);
    let input = dir.path().join("in.parquet");
    write_parquet(&input, &table, 8192);
    let order = table_order("head", n as u64);
    for k in [0u64, 1, 7, 20_000, 50_000, 80_000] {
        let mut options = options("head");
        options.count = Some(k);
        let out = dir.path().join(format!("head-{k}.parquet"));
        let report = shuffle(std::slice::from_ref(&input), &out, &options);
        let expected = &order[..k.min(n as u64) as usize];
        assert_eq!(report.rows_out, expected.len() as u64);
        assert_same(&read_parquet(&out), &reorder(&table, expected));
    }
}

#[test]
fn csv_fields_stay_whole_and_come_back_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let rows = [
        "1,plain,007",
        "2,\"a, comma\",1.50",
        "3,\"two\nlines\",x",
        "4,\"say \"\"hi\"\"\",",
        "5,\"\r\n\",-0",
    ];
    fs::write(&input, format!("id,text,raw\n{}\n", rows.join("\n"))).unwrap();
    let out = dir.path().join("out.csv");
    shuffle(&[input], &out, &options("csv"));
    let written = fs::read_to_string(&out).unwrap();
    let order = table_order("csv", 5);
    let expected: Vec<&str> = order.iter().map(|&i| rows[i as usize]).collect();
    // Quoting as needed: the same fields (an empty field stays empty).
    assert_eq!(written, format!("id,text,raw\n{}\n", expected.join("\n")));
}

#[test]
fn tsv_json_lines_and_conversions() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("in.tsv");
    fs::write(&tsv, "id\tname\n0\ta\n1\tb\n2\tc\n").unwrap();
    let jsonl = dir.path().join("out.jsonl");
    shuffle(&[tsv], &jsonl, &options("tsv"));
    let order = table_order("tsv", 3);
    let lines: Vec<String> = order
        .iter()
        .map(|&i| {
            format!(
                "{{\"id\":\"{i}\",\"name\":\"{}\"}}",
                ["a", "b", "c"][i as usize]
            )
        })
        .collect();
    assert_eq!(fs::read_to_string(&jsonl).unwrap(), lines.join("\n") + "\n");

    let json = dir.path().join("typed.jsonl");
    fs::write(&json, "{\"id\":0,\"x\":1.5,\"tags\":[\"a\"],\"o\":{\"k\":true}}\n{\"id\":1,\"x\":null}\n{\"id\":2,\"x\":2,\"tags\":[]}\n").unwrap();
    let parquet = dir.path().join("typed.parquet");
    shuffle(&[json], &parquet, &options("json"));
    let got = read_parquet(&parquet);
    assert_eq!(ids(&got), table_order("json", 3));
    assert_eq!(
        got.schema().field_with_name("x").unwrap().data_type(),
        &DataType::Float64
    );
}

#[test]
fn empty_and_one_row_tables() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [("empty.csv", "a,b\n"), ("one.csv", "a,b\n1,2\n")] {
        let input = dir.path().join(name);
        fs::write(&input, content).unwrap();
        let out = dir.path().join(format!("out-{name}"));
        shuffle(&[input], &out, &options("s"));
        assert_eq!(fs::read_to_string(&out).unwrap(), content);
    }
    let table = every_type(0);
    let input = dir.path().join("empty.parquet");
    write_parquet(&input, &table, 10);
    let out = dir.path().join("out.parquet");
    assert_eq!(shuffle(&[input], &out, &options("s")).rows_out, 0);
    assert_same(&read_parquet(&out), &table);
}

#[test]
fn bad_inputs_are_invalid_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.parquet");
    write_parquet(&good, &every_type(100), 50);
    let bytes = fs::read(&good).unwrap();
    let truncated = dir.path().join("truncated.parquet");
    fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let corrupt = dir.path().join("corrupt.parquet");
    let mut flipped = bytes.clone();
    for b in &mut flipped[4..bytes.len() / 2] {
        *b ^= 0x5a;
    }
    fs::write(&corrupt, &flipped).unwrap();
    let ragged = dir.path().join("ragged.csv");
    fs::write(&ragged, "a,b\n1,2\n3\n4,5\n").unwrap();
    let other = dir.path().join("other.csv");
    fs::write(&other, "a,c\n1,2\n").unwrap();
    let cases: Vec<(Vec<PathBuf>, &str)> = vec![
        (vec![truncated.clone()], "truncated.parquet"),
        (vec![corrupt.clone()], "corrupt.parquet"),
        (vec![ragged.clone()], "record 3"),
        (
            vec![ragged.clone(), other.clone()],
            "do not have the same schema",
        ),
        (vec![good.clone(), other.clone()], "other.csv"),
    ];
    for (inputs, expected) in cases {
        let out = dir.path().join("out.parquet");
        let error =
            shuffle_table(&inputs, &Destination::File(out.clone()), &options("bad")).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Invalid, "{inputs:?}: {error}");
        assert!(error.message().contains(expected), "{inputs:?}: {error}");
        assert!(!out.exists(), "{inputs:?} left an output");
    }
    let missing = shuffle_table(
        &[dir.path().join("nope.parquet")],
        &Destination::File(dir.path().join("o.parquet")),
        &options("x"),
    )
    .unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::Io);
    // Only the inputs remain: no temporary file anywhere in the directory.
    let mut left: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "corrupt.parquet",
            "good.parquet",
            "other.csv",
            "ragged.csv",
            "truncated.parquet"
        ]
    );
}

#[test]
fn shard_directories_must_be_new_or_empty() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    fs::write(&input, "a\n1\n2\n3\n").unwrap();
    let taken = dir.path().join("taken");
    fs::create_dir(&taken).unwrap();
    fs::write(taken.join("keep.txt"), "mine").unwrap();
    let error = shuffle_table(
        std::slice::from_ref(&input),
        &Destination::Shards(taken.clone(), ShardSplit::Count(2)),
        &options("s"),
    )
    .unwrap_err();
    assert!(error.message().contains("not empty"), "{error}");
    assert_eq!(fs::read_to_string(taken.join("keep.txt")).unwrap(), "mine");
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    shuffle_table(
        &[input],
        &Destination::Shards(empty.clone(), ShardSplit::RowsEach(2)),
        &options("s"),
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(empty.join("part-00000.csv"))
            .unwrap()
            .lines()
            .count(),
        3
    );
    assert_eq!(
        fs::read_to_string(empty.join("part-00001.csv"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}
