//! A CSV or TSV file's batches made on several threads (columns at once,
//! the next batch read meanwhile) are the batches made on one: the same
//! rows in the same batches, and the same first error (a ragged record, a
//! quote never closed, a record too long, text not UTF-8, a value not of
//! its column's type).

use std::io::Write;

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
