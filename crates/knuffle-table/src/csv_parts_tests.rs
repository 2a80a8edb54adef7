//! The parts of a text are the text, cut at record ends only (as a reader
//! of one byte at a time finds them), at the same places however the input
//! hands it over, and the last part says whether the text ends inside
//! quotes.

use proptest::prelude::*;

use super::*;

/// The record ends of `text` (the position after each CR or LF outside
/// quotes), and whether it ends inside quotes: the rule of the module's
/// notes, one byte at a time.
fn reference(text: &[u8], delimiter: Option<u8>) -> (Vec<usize>, bool) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let mut state = State::FieldStart;
    let mut ends = Vec::new();
    for (i, &b) in text.iter().enumerate().skip(start) {
        state = match (state, b, delimiter) {
            (_, b'\n' | b'\r', None) => {
                ends.push(i + 1);
                State::FieldStart
            }
            (_, _, None) => State::Unquoted,
            (State::Quoted, b'"', _) => State::QuoteInQuoted,
            (State::Quoted, _, _) => State::Quoted,
            (State::QuoteInQuoted | State::FieldStart, b'"', _) => State::Quoted,
            (_, b'\n' | b'\r', _) => {
                ends.push(i + 1);
                State::FieldStart
            }
            (_, b, Some(d)) if b == d => State::FieldStart,
            _ => State::Unquoted,
        };
    }
    (ends, state == State::Quoted)
}

fn size(memory: usize, field_bytes: usize) -> PartSize {
    PartSize {
        memory,
        field_bytes,
        most: usize::MAX,
    }
}

fn parts(
    text: &[u8],
    delimiter: Option<u8>,
    size: PartSize,
    max_record: usize,
    buffer: usize,
) -> Vec<Part> {
    let input = io::BufReader::with_capacity(buffer, text);
    RecordParts::new(input, delimiter, size, max_record)
        .map(|part| part.unwrap())
        .collect()
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => Just(&b"x"[..]),
        2 => Just(&b","[..]),
        2 => Just(&b"\""[..]),
        1 => Just(&b"\"\""[..]),
        2 => Just(&b"\n"[..]),
        1 => Just(&b"\r\n"[..]),
        1 => Just(&b"\r"[..]),
        1 => Just(&b"\t"[..]),
        1 => Just(BOM),
        1 => Just(&b"yyyyyyyyyyyy"[..]),
    ];
    (any::<bool>(), prop::collection::vec(piece, 0..60)).prop_map(|(bom, pieces)| {
        let mut text = if bom { BOM.to_vec() } else { Vec::new() };
        for piece in pieces {
            text.extend_from_slice(piece);
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parts_are_the_text_cut_at_record_ends(
        text in text(),
        tsv in any::<bool>(),
        memory in 1usize..40,
        field_bytes in 0usize..3,
        buffer in 1usize..20,
    ) {
        let delimiter = (!tsv).then_some(b',');
        let (ends, in_quotes) = reference(&text, delimiter);
        let got = parts(&text, delimiter, size(memory, field_bytes), usize::MAX, buffer);
        let joined: Vec<u8> = got.iter().flat_map(|p| p.text.iter().copied()).collect();
        prop_assert_eq!(&joined, &text);
        // A part's target: where its text first takes `memory` (a byte
        // one, a delimiter or line end `field_bytes` more).
        let field = delimiter.unwrap_or(b'\t');
        let target_of = |rest: &[u8]| {
            let mut cost = 0;
            rest.iter().position(|&b| {
                cost += 1 + if b == field || b == b'\n' || b == b'\r' { field_bytes } else { 0 };
                cost >= memory
            }).map(|p| p + 1)
        };
        let mut at = 0;
        for (index, part) in got.iter().enumerate() {
            prop_assert!(!part.text.is_empty());
            let from = at;
            at += part.text.len();
            if index + 1 < got.len() {
                prop_assert_eq!(part.end, PartEnd::Record);
                prop_assert!(ends.contains(&at), "cut at {} is no record end", at);
                // The last record end within the target, else the first
                // after it.
                let target = target_of(&text[from..]);
                prop_assert!(target.is_some());
                let target = from + target.unwrap();
                let within = ends.iter().filter(|&&e| e > from && e <= target).max();
                let after = ends.iter().filter(|&&e| e > target).min();
                prop_assert_eq!(Some(&at), within.or(after));
            } else if part.end == PartEnd::Record {
                // The text ended where a part was cut.
                prop_assert!(ends.contains(&at) && !in_quotes);
            } else {
                prop_assert_eq!(part.end, PartEnd::Input { in_quotes });
            }
        }
        // The same cuts, whatever the input's buffer.
        let again = parts(&text, delimiter, size(memory, field_bytes), usize::MAX, 64);
        let lengths = |p: &[Part]| p.iter().map(|p| p.text.len()).collect::<Vec<_>>();
        prop_assert_eq!(lengths(&got), lengths(&again));
    }
}

#[test]
fn a_quote_inside_a_field_is_text_and_a_quoted_line_end_no_record_end() {
    // `a"b` holds a quote as text; `"c\nd"` a line end inside quotes.
    let text = b"a\"b,\"c\nd\"\nz\n";
    let got = parts(text, Some(b','), size(1, 0), usize::MAX, 3);
    let texts: Vec<&[u8]> = got.iter().map(|p| &p.text[..]).collect();
    assert_eq!(texts, [&b"a\"b,\"c\nd\"\n"[..], b"z\n"]);
}

#[test]
fn a_record_longer_than_the_most_ends_the_parts() {
    let mut text = b"a\n\"".to_vec();
    text.extend(std::iter::repeat_n(b'x', 100));
    text.extend(b"\"\nb\n");
    let got = parts(&text, Some(b','), size(2, 0), 50, 7);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].text, b"a\n");
    assert_eq!(got[1].end, PartEnd::TooLong);
    assert!(got[1].text.len() > 50 && !got[1].text.ends_with(b"b\n"));
}

#[test]
fn an_input_error_comes_after_the_whole_records_before_it() {
    struct Failing<'a>(&'a [u8]);
    impl io::Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("disk"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let input = io::BufReader::with_capacity(4, Failing(b"a,b\nc,d\ne,"));
    let got: Vec<io::Result<Part>> =
        RecordParts::new(input, Some(b','), size(100, 0), 1000).collect();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].as_ref().unwrap().text, b"a,b\nc,d\n");
    assert_eq!(got[1].as_ref().unwrap_err().to_string(), "disk");
}

#[test]
fn a_part_of_short_fields_is_shorter_and_holds_what_its_fields_allow() {
    // 1,000 records of empty fields then 1,000 of one long field: with 16
    // bytes a field, a part of each takes about `memory` in all.
    let mut text = Vec::new();
    for _ in 0..1000 {
        text.extend_from_slice(b",,,\n");
    }
    for _ in 0..1000 {
        text.extend_from_slice(&[b'x'; 63]);
        text.push(b'\n');
    }
    let memory = 4096;
    let got = parts(&text, Some(b','), size(memory, 16), usize::MAX, 1000);
    for part in &got[..got.len() - 1] {
        let fields = part
            .text
            .iter()
            .filter(|&&b| b == b',' || b == b'\n')
            .count();
        let cost = part.text.len() + 16 * fields;
        assert!(cost <= memory, "{cost}");
        assert!(cost > memory - 100, "{cost}");
    }
}

#[test]
fn what_is_held_stays_about_a_part_however_small() {
    // Parts of one short record from a large buffer: what is held is cut
    // before more is read.
    let text = b"a\n".repeat(100_000);
    let mut input = io::BufReader::with_capacity(1 << 20, &text[..]);
    let mut parts = RecordParts::new(&mut input, Some(b','), size(2, 0), usize::MAX);
    let mut count = 0;
    while let Some(part) = parts.next_part() {
        assert_eq!(part.unwrap().text, b"a\n");
        assert!(
            parts.carry.capacity() < 200 << 10,
            "{}",
            parts.carry.capacity()
        );
        count += 1;
    }
    assert_eq!(count, 100_000);
}
