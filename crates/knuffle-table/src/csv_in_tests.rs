//! A CSV or TSV file's batches made on several threads (columns at once,
//! the next batch read meanwhile) are the batches made on one: the same
//! rows in the same batches, and the same first error (a ragged record, a
//! quote never closed, a record too long, text not UTF-8, a value not of
//! its column's type).

use std::io::Write;

use arrow::array::Array;
use arrow::datatypes::{DataType, Field, Schema};
use proptest::prelude::*;

use super::*;

fn outcome(
    text: &[u8],
    delimiter: u8,
    limits: CsvLimits,
    typed: Option<&Schema>,
    buffer: usize,
) -> Result<(SchemaRef, Vec<Result<RecordBatch, String>>), String> {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text).unwrap();
    let input = Decompressed::new(File::open(file.path()).unwrap(), buffer).unwrap();
    let (schema, batches) = open(PathBuf::from("t.csv"), input, delimiter, limits, typed)
        .map_err(|e| e.message().to_owned())?;
    let mut out = Vec::new();
    for batch in batches {
        let failed = batch.is_err();
        out.push(batch.map_err(|e| e.message().to_owned()));
        if failed {
            break;
        }
    }
    Ok((schema, out))
}

/// A field: plain, empty, quoted (with a delimiter, a quote, a newline or
/// multi-byte characters inside), an integer, or bytes that are not UTF-8.
fn field() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => Just(b"x".to_vec()),
        4 => (-20i64..20).prop_map(|i| i.to_string().into_bytes()),
        2 => Just(Vec::new()),
        1 => Just(b"\"a,b\"".to_vec()),
        1 => Just(b"\"say \"\"hi\"\"\"".to_vec()),
        1 => Just(b"\"two\nlines\r\n\"".to_vec()),
        1 => Just("\"\u{e9}\u{20ac}\u{1f600}\"".as_bytes().to_vec()),
        1 => Just("\u{fc}ber".as_bytes().to_vec()),
        1 => Just(b"a\"b".to_vec()),
        1 => Just(vec![0xff, b'z']),
        1 => Just(b"\"".to_vec()),
        1 => Just(b"y".repeat(40)),
    ]
}

fn csv() -> impl Strategy<Value = Vec<u8>> {
    let record = prop_oneof![
        12 => prop::collection::vec(field(), 3..=3),
        1 => prop::collection::vec(field(), 1..6),
    ];
    (
        prop::collection::vec(record, 0..30),
        prop::sample::select(vec!["\n", "\r\n", "\r"]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(records, end, last_end, blank)| {
            let mut text = b"a,b,c".to_vec();
            for record in records {
                text.extend_from_slice(end.as_bytes());
                if blank {
                    text.extend_from_slice(end.as_bytes());
                }
                text.extend_from_slice(&record.join(&b","[..]));
            }
            if last_end {
                text.extend_from_slice(end.as_bytes());
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn batches_made_on_several_threads_are_those_made_on_one(
        text in csv(),
        tsv in any::<bool>(),
        typed in any::<bool>(),
        batch_rows in 1usize..7,
        batch_bytes in prop::sample::select(vec![150usize, 400, 1 << 16]),
        workers in 2usize..4,
        buffer in 1usize..32,
    ) {
        let (text, delimiter) = if tsv {
            (text.iter().map(|&b| if b == b',' { b'\t' } else { b }).collect(), b'\t')
        } else {
            (text, b',')
        };
        let schema = Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("c", DataType::Int64, true),
        ]);
        let typed = typed.then_some(&schema);
        let limits = |workers| CsvLimits { batch_rows, batch_bytes, workers };
        let one = outcome(&text, delimiter, limits(1), typed, buffer);
        let several = outcome(&text, delimiter, limits(workers), typed, buffer);
        prop_assert_eq!(several, one);
    }
}

/// The records of `text` as `csv-core` reads the whole text in one go
/// (the header first), each field's text.
fn records_in_one_go(text: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut reader = ReaderBuilder::new().build();
    let mut input = text;
    let (mut out, mut ends) = (vec![0; text.len() + 1], vec![0; 1024]);
    let mut records = Vec::new();
    let (mut used, mut ended) = (0, 0);
    loop {
        let (result, read, written, count) =
            reader.read_record(input, &mut out[used..], &mut ends[ended..]);
        input = &input[read..];
        // The ends count from the record's start (over every call).
        used += written;
        ended += count;
        match result {
            ReadRecordResult::Record => {
                let mut start = 0;
                let fields = ends[..ended]
                    .iter()
                    .map(|&end| {
                        let field = out[start..end].to_vec();
                        start = end;
                        field
                    })
                    .collect();
                records.push(fields);
                (used, ended) = (0, 0);
            }
            ReadRecordResult::End => return records,
            ReadRecordResult::InputEmpty => {}
            other => panic!("{other:?}"),
        }
    }
}

/// Valid UTF-8 fields of every kind: quoted line ends and delimiters, a
/// quote inside an unquoted field, a byte order mark starting a field.
fn valid_field() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => Just(b"x".to_vec()),
        2 => Just(Vec::new()),
        1 => Just(b"\"a,b\"".to_vec()),
        1 => Just(b"\"say \"\"hi\"\"\"".to_vec()),
        1 => Just(b"\"two\nlines\r\n\"".to_vec()),
        1 => Just(b"a\"b".to_vec()),
        1 => Just("\u{feff}bom".as_bytes().to_vec()),
        1 => Just("\"\u{feff}\"".as_bytes().to_vec()),
        1 => Just(b"y".repeat(40)),
    ]
}

fn valid_csv() -> impl Strategy<Value = (Vec<u8>, usize)> {
    (
        any::<bool>(),
        prop::collection::vec(prop::collection::vec(valid_field(), 3..=3), 0..40),
        prop::sample::select(vec!["\n", "\r\n", "\r"]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(bom, records, end, last_end, blank_first)| {
            let mut text = if bom {
                b"\xef\xbb\xbf".to_vec()
            } else {
                Vec::new()
            };
            // Blank lines before the header (a byte order mark after them
            // is text of its first name, as csv-core reads it).
            if blank_first {
                text.splice(0..0, end.bytes().chain(end.bytes()));
            }
            text.extend_from_slice(b"a,b,c");
            for record in &records {
                text.extend_from_slice(end.as_bytes());
                text.extend_from_slice(&record.join(&b","[..]));
            }
            if last_end {
                text.extend_from_slice(end.as_bytes());
            }
            (text, records.len())
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_rows_are_those_of_the_whole_text_read_in_one_go(
        (text, count) in valid_csv(),
        batch_rows in 1usize..9,
        batch_bytes in prop::sample::select(vec![200usize, 700, 1 << 16]),
        workers in 1usize..4,
        buffer in 1usize..64,
    ) {
        let limits = CsvLimits { batch_rows, batch_bytes, workers };
        let (schema, batches) = outcome(&text, b',', limits, None, buffer).unwrap();
        let names: Vec<&[u8]> = schema.fields().iter().map(|f| f.name().as_bytes()).collect();
        let expected = records_in_one_go(&text);
        prop_assert_eq!(names, expected[0].iter().map(|n| &n[..]).collect::<Vec<_>>());
        let mut rows: Vec<Vec<Vec<u8>>> = Vec::new();
        for batch in batches {
            let batch = batch.unwrap();
            for row in 0..batch.num_rows() {
                rows.push((0..3).map(|column| {
                    let values = batch.column(column).as_any()
                        .downcast_ref::<arrow::array::StringArray>().unwrap();
                    if values.is_valid(row) {
                        values.value(row).as_bytes().to_vec()
                    } else {
                        Vec::new()
                    }
                }).collect());
            }
        }
        prop_assert_eq!(expected.len(), count + 1);
        prop_assert_eq!(rows, expected[1..].to_vec());
    }

    #[test]
    fn an_error_names_its_record_in_the_whole_file(
        good in 0usize..60,
        bad in 0usize..4,
        batch_bytes in prop::sample::select(vec![150usize, 700, 1 << 16]),
        workers in 1usize..4,
    ) {
        let mut text = b"a,b,c\n".to_vec();
        for i in 0..good {
            text.extend_from_slice(format!("{i},\"q\nq\",z\n").as_bytes());
        }
        let record = good + 2;
        let (bad_record, expected) = match bad {
            0 => (b"1,2\n".to_vec(), "expected 3 got 2".to_owned()),
            1 => (b"1,2,3,4,5,6,7\n".to_vec(), "expected 3 got 7".to_owned()),
            2 => (b"1,\"open\n".to_vec(), "opens a quoted field that is never closed".to_owned()),
            _ => (b"1,\xff,3\n".to_vec(), "not UTF-8".to_owned()),
        };
        text.extend_from_slice(&bad_record);
        if bad != 2 {
            text.extend_from_slice(b"7,8,9\n");
        }
        let limits = CsvLimits { batch_rows: 5, batch_bytes, workers };
        let (_, batches) = outcome(&text, b',', limits, None, 16).unwrap();
        let rows: usize = batches.iter().flatten().map(RecordBatch::num_rows).sum();
        let error = batches.last().unwrap().clone().unwrap_err();
        prop_assert!(rows <= good);
        prop_assert!(error.contains(&format!("record {record}")), "{}", error);
        prop_assert!(error.contains(&expected), "{}", error);
    }
}
