//! The public API of `knuffle_records`: what a caller sees, whatever the
//! path taken inside (in memory, reservoir, external).

use std::io::Cursor;

use knuffle_records::{Error, HeadCount, Input, Options, Randomness, shuffle_records};

fn lines(count: usize) -> Vec<u8> {
    (0..count)
        .flat_map(|i| format!("record {i}\n").into_bytes())
        .collect()
}

fn shuffle(input: &[u8], options: &Options, seed: &str) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    shuffle_records(
        [Input::Reader(Box::new(Cursor::new(input.to_vec())))],
        options,
        &mut Randomness::from_seed_text(seed),
        &mut out,
    )?;
    Ok(out)
}

fn sorted(bytes: &[u8], delimiter: u8) -> Vec<&[u8]> {
    let mut records: Vec<&[u8]> = bytes.split_inclusive(|&b| b == delimiter).collect();
    records.sort();
    records
}

#[test]
fn every_path_writes_a_permutation_reproducibly() {
    let input = lines(60_000);
    for memory in [None, Some(1 << 20)] {
        let options = Options {
            memory,
            ..Options::default()
        };
        let out = shuffle(&input, &options, "api").unwrap();
        assert_ne!(out, input);
        assert_eq!(sorted(&out, b'\n'), sorted(&input, b'\n'));
        assert_eq!(shuffle(&input, &options, "api").unwrap(), out);
        assert_ne!(shuffle(&input, &options, "other").unwrap(), out);
    }
}

#[test]
fn header_count_and_delimiter() {
    let input = b"h\0a\0b\0c\0d\0e";
    let options = Options {
        delimiter: 0,
        header: 1,
        count: HeadCount::AtMost(2),
        ..Options::default()
    };
    let out = shuffle(input, &options, "z").unwrap();
    assert!(out.starts_with(b"h\0"));
    assert_eq!(out.iter().filter(|&&b| b == 0).count(), 3);
    let all = shuffle(
        input,
        &Options {
            delimiter: 0,
            ..Options::default()
        },
        "z",
    )
    .unwrap();
    assert_eq!(sorted(&all, 0), sorted(b"h\0a\0b\0c\0d\0e\0", 0));
}

#[test]
fn no_input_no_record_and_a_zero_count_reads_nothing() {
    let mut out = Vec::new();
    shuffle_records(
        Vec::new(),
        &Options::default(),
        &mut Randomness::from_seed_text("e"),
        &mut out,
    )
    .unwrap();
    assert!(out.is_empty());
    let zero = Options {
        count: HeadCount::AtMost(0),
        ..Options::default()
    };
    // A missing file is not even opened for `count: Some(0)`.
    shuffle_records(
        [Input::from_name("/nonexistent/knuffle")],
        &zero,
        &mut Randomness::from_seed_text("e"),
        &mut out,
    )
    .unwrap();
    assert!(out.is_empty());
}

#[test]
fn a_sample_that_cannot_fit_the_limit_is_refused() {
    // One 3 MiB line, a 1 MiB limit, `-n 1`: refused, not held.
    let mut input = vec![b'x'; 3 << 20];
    input.push(b'\n');
    let options = Options {
        count: HeadCount::AtMost(1),
        memory: Some(1 << 20),
        ..Options::default()
    };
    let refused = shuffle(&input, &options, "long").unwrap_err();
    assert!(matches!(refused, Error::RecordTooLong { limit } if limit == 1 << 20));
    // Without -n the external shuffle passes the line through.
    let options = Options {
        memory: Some(1 << 20),
        ..Options::default()
    };
    assert_eq!(shuffle(&input, &options, "long").unwrap(), input);
}

#[test]
fn a_missing_file_is_named() {
    let error = shuffle_records(
        [Input::from_name("/nonexistent/knuffle")],
        &Options::default(),
        &mut Randomness::from_seed_text("m"),
        &mut Vec::new(),
    )
    .unwrap_err();
    match error {
        Error::File { name, .. } => assert_eq!(name, "/nonexistent/knuffle"),
        other => panic!("{other}"),
    }
}
