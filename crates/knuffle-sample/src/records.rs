//! The records a sample or split reads, one at a time, from its FILEs (or
//! standard input) in order: lines, or with `--csv` RFC 4180 records
//! ([`Framing`], in `framing`). A record is handed out byte for byte as it
//! was read, its terminator included; an input's last record without one
//! gets one (as shuf mode does); with `--csv`, an input that ends inside
//! quotes is an error naming the record. With `--header`, each input's first
//! record is its header: the first input's is kept
//! ([`RecordReader::header`]), the others' are dropped. A gzip or zstd
//! input is read decompressed, whatever its name (its first bytes say);
//! data that does not decompress is an error naming the input.
//!
//! Memory: one record at a time, at most the limit given (a longer record
//! is an error naming it), so endless input streams in constant memory.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

use crate::input_kind::InputKind;

use super::binary_input::refuse_binary;
use super::error::SampleError;
use knuffle_io::compressed::Decompressed;
use knuffle_io::describe;

mod framing;

use framing::Ending;
pub use framing::Framing;

/// Where a record handed to [`RecordReader::visit_records`] is, for
/// messages.
pub struct Place<'a> {
    noun: &'static str,
    number: u64,
    name: &'a str,
}

impl Place<'_> {
    /// `line 7 of 'data.tsv'`, as [`RecordReader::place`] says it.
    pub fn describe(&self) -> String {
        format!("{} {} of {}", self.noun, self.number, self.name)
    }
}

/// Reads the records of the inputs in turn.
pub struct RecordReader {
    pending: VecDeque<OsString>,
    current: Option<Box<dyn BufRead>>,
    /// The current input's name in messages.
    name: String,
    /// Records read from the current input (its header included).
    number: u64,
    framing: Framing,
    headers: bool,
    header: Option<Vec<u8>>,
    max_record: u64,
    /// Inputs as spooled to files, by name (`-`: standard input), each
    /// read from its start ([`RecordReader::open_spooled`], [`Spool`]).
    spooled: Vec<(OsString, File)>,
}

impl RecordReader {
    /// A reader of `files` (standard input when empty; `-` is standard
    /// input), with a header record per input when `headers`. Records
    /// longer than `max_record` bytes are errors. The first input's header
    /// is read at once.
    pub fn open(
        files: &[OsString],
        framing: Framing,
        headers: bool,
        max_record: u64,
    ) -> Result<RecordReader, SampleError> {
        RecordReader::open_spooled(files, framing, headers, max_record, None)
    }

    /// [`RecordReader::open`], with standard input read from `stdin` (a
    /// copy of it in a file, read from its start; named `standard input`
    /// in messages) when given, so that it can be read more than once.
    pub fn open_spooled(
        files: &[OsString],
        framing: Framing,
        headers: bool,
        max_record: u64,
        stdin: Option<&File>,
    ) -> Result<RecordReader, SampleError> {
        let spooled = match stdin {
            None => Vec::new(),
            Some(file) => vec![(OsString::from("-"), rewound(file)?)],
        };
        RecordReader::with_spooled(files, framing, headers, max_record, spooled)
    }

    /// [`RecordReader::open`], with the inputs that `spool` holds copies of
    /// (standard input, pipes, devices) read from those copies, so that
    /// every input can be read more than once.
    pub fn open_with_spool(
        files: &[OsString],
        framing: Framing,
        headers: bool,
        max_record: u64,
        spool: &Spool,
    ) -> Result<RecordReader, SampleError> {
        let spooled = spool
            .copies
            .iter()
            .map(|(name, file)| Ok((name.clone(), rewound(file)?)))
            .collect::<Result<_, SampleError>>()?;
        RecordReader::with_spooled(files, framing, headers, max_record, spooled)
    }

    fn with_spooled(
        files: &[OsString],
        framing: Framing,
        headers: bool,
        max_record: u64,
        spooled: Vec<(OsString, File)>,
    ) -> Result<RecordReader, SampleError> {
        let mut pending: VecDeque<OsString> = files.iter().cloned().collect();
        if pending.is_empty() {
            pending.push_back(OsString::from("-"));
        }
        let mut reader = RecordReader {
            pending,
            current: None,
            name: String::new(),
            number: 0,
            framing,
            headers,
            header: None,
            max_record,
            spooled,
        };
        if headers && reader.open_next()? {
            let mut first = Vec::new();
            if reader.read_one(&mut first)? {
                reader.header = Some(first);
            }
        }
        Ok(reader)
    }

    /// The first input's header record (with its terminator), if any.
    pub fn header(&self) -> Option<&[u8]> {
        self.header.as_deref()
    }

    /// Where the record last read is, for messages: `line 7 of data.tsv`.
    pub fn place(&self) -> String {
        format!("{} {} of {}", self.framing.noun(), self.number, self.name)
    }

    /// Reads the next data record into `record` (cleared first, terminator
    /// included); `false` at the end of the last input.
    pub fn next_record(&mut self, record: &mut Vec<u8>) -> Result<bool, SampleError> {
        loop {
            if self.current.is_none() {
                if !self.open_next()? {
                    return Ok(false);
                }
                if self.headers {
                    // A later input's header: dropped.
                    let mut dropped = Vec::new();
                    self.read_one(&mut dropped)?;
                }
            }
            if self.read_one(record)? {
                return Ok(true);
            }
            self.current = None;
        }
    }

    /// Hands every data record left, in order, to `visit` (terminator
    /// included) with its [`Place`], until `visit` returns `false` or the
    /// inputs end. A line that lies whole in the read buffer is handed out
    /// where it lies, not copied (the buffer's terminators found in one
    /// scan, `crate::scan`'s 64-byte block masks); anything else (a line
    /// across the buffer's end, a long line, the end of an input, a CSV
    /// record) is read as [`RecordReader::next_record`] reads it. The same
    /// records, and the same errors, as calling `next_record` until it
    /// returns `false`.
    pub fn visit_records<F>(&mut self, mut visit: F) -> Result<(), SampleError>
    where
        F: FnMut(&[u8], &Place<'_>) -> Result<bool, SampleError>,
    {
        let mut scratch = Vec::new();
        loop {
            if let (Framing::Lines(terminator), Some(input)) = (self.framing, self.current.as_mut())
            {
                let name = &self.name;
                let buffer = input
                    .fill_buf()
                    .map_err(|err| SampleError::read(name, &err))?;
                let mut place = Place {
                    noun: self.framing.noun(),
                    number: self.number,
                    name,
                };
                let max = self.max_record;
                // No line of a buffer within the limit can exceed it.
                let check = buffer.len() as u64 > max;
                let mut used = 0;
                let mut stopped = false;
                let mut failure = None;
                knuffle_io::scan::for_each_delimiter_while(
                    buffer,
                    terminator,
                    #[inline(always)]
                    |at| {
                        if check && (at + 1 - used) as u64 > max {
                            return false; // read as next_record does: the error
                        }
                        place.number += 1;
                        let line = &buffer[used..=at];
                        used = at + 1;
                        match visit(line, &place) {
                            Ok(true) => true,
                            Ok(false) => {
                                stopped = true;
                                false
                            }
                            Err(error) => {
                                failure = Some(error);
                                false
                            }
                        }
                    },
                );
                self.number = place.number;
                input.consume(used);
                if let Some(error) = failure {
                    return Err(error);
                }
                if stopped {
                    return Ok(());
                }
            }
            // The record at the buffer's end (or the next input's first).
            if !self.next_record(&mut scratch)? {
                return Ok(());
            }
            let place = Place {
                noun: self.framing.noun(),
                number: self.number,
                name: &self.name,
            };
            if !visit(&scratch, &place)? {
                return Ok(());
            }
        }
    }

    /// Passes over up to `count` data records; returns how many there were.
    pub fn skip_records(&mut self, count: u64, scratch: &mut Vec<u8>) -> Result<u64, SampleError> {
        if let Framing::Lines(terminator) = self.framing {
            return self.skip_lines(count, terminator);
        }
        let mut skipped = 0;
        while skipped < count && self.next_record(scratch)? {
            skipped += 1;
        }
        Ok(skipped)
    }

    /// [`RecordReader::skip_records`] for lines: their terminators are
    /// counted in the read buffer (memchr), nothing is copied. The same
    /// records are passed over, and a line longer than the limit is the
    /// same error, as when each is read.
    fn skip_lines(&mut self, count: u64, terminator: u8) -> Result<u64, SampleError> {
        let mut skipped = 0;
        while skipped < count {
            if self.current.is_none() {
                if !self.open_next()? {
                    break;
                }
                if self.headers {
                    // A later input's header: dropped.
                    let mut dropped = Vec::new();
                    self.read_one(&mut dropped)?;
                }
            }
            let passed = self.skip_in_current(count - skipped, terminator)?;
            skipped += passed.lines;
            self.number += passed.lines;
            if passed.too_long {
                self.number += 1;
                return Err(self.too_long());
            }
            if passed.ended {
                self.current = None;
            }
        }
        Ok(skipped)
    }

    /// Passes over up to `want` lines of the current input.
    fn skip_in_current(&mut self, want: u64, terminator: u8) -> Result<Passed, SampleError> {
        let max = self.max_record;
        let name = &self.name;
        let input = self.current.as_mut().expect("an open input");
        let mut passed = Passed::default();
        // Bytes of the line being passed over, read so far.
        let mut partial = 0u64;
        loop {
            let buffer = input
                .fill_buf()
                .map_err(|err| SampleError::read(name, &err))?;
            if buffer.is_empty() {
                // A last line without its terminator is a record too.
                passed.too_long = partial > max;
                passed.lines += u64::from(partial > 0 && !passed.too_long);
                passed.ended = true;
                return Ok(passed);
            }
            let mut used = 0;
            for at in memchr::memchr_iter(terminator, buffer) {
                if partial + (at + 1 - used) as u64 > max {
                    passed.too_long = true;
                    return Ok(passed);
                }
                passed.lines += 1;
                partial = 0;
                used = at + 1;
                if passed.lines == want {
                    input.consume(used);
                    return Ok(passed);
                }
            }
            partial += (buffer.len() - used) as u64;
            if partial > max {
                passed.too_long = true;
                return Ok(passed);
            }
            let length = buffer.len();
            input.consume(length);
        }
    }

    /// The error for the record last counted: longer than the limit.
    fn too_long(&self) -> SampleError {
        SampleError::memory(format!(
            "{} is longer than the memory limit ({} bytes)",
            self.place(),
            self.max_record
        ))
    }

    /// Opens the next input; `false` when there is none. (The header of
    /// the first input is read by [`RecordReader::open`].)
    fn open_next(&mut self) -> Result<bool, SampleError> {
        let Some(file) = self.pending.pop_front() else {
            return Ok(false);
        };
        self.number = 0;
        let spooled = self
            .spooled
            .iter()
            .position(|(name, _)| *name == file)
            .map(|at| self.spooled.swap_remove(at).1);
        self.name = if file == "-" {
            "standard input".to_string()
        } else {
            format!("'{}'", file.to_string_lossy())
        };
        let source: Box<dyn Read> = if let Some(copy) = spooled {
            Box::new(copy)
        } else if file == "-" {
            Box::new(std::io::stdin())
        } else {
            let opened = File::open(&file).map_err(|err| {
                SampleError::io(
                    &err,
                    format!("cannot open {}: {}", self.name, describe(&err)),
                )
            })?;
            Box::new(opened)
        };
        // A gzip or zstd input is read decompressed (its first bytes say).
        let name = &self.name;
        let mut reader =
            Decompressed::new(source, 1 << 16).map_err(|err| SampleError::read(name, &err))?;
        let head = reader
            .fill_buf()
            .map_err(|err| SampleError::read(name, &err))?;
        refuse_binary(name, head)?;
        self.current = Some(Box::new(reader));
        Ok(true)
    }

    /// Reads one record of the current input into `record`; `false` at
    /// its end.
    fn read_one(&mut self, record: &mut Vec<u8>) -> Result<bool, SampleError> {
        record.clear();
        let Some(input) = self.current.as_mut() else {
            return Ok(false);
        };
        let terminator = self.framing.terminator();
        if let Framing::Lines(_) = self.framing {
            // The common case first: a line that lies whole in the read
            // buffer is copied from it at once. Anything else (a line
            // across the buffer's end, a long line, the end of the input)
            // takes the general path below, from the same place.
            let name = &self.name;
            let buffer = input
                .fill_buf()
                .map_err(|err| SampleError::read(name, &err))?;
            if let Some(at) = memchr::memchr(terminator, buffer)
                && (at + 1) as u64 <= self.max_record
            {
                record.extend_from_slice(&buffer[..=at]);
                input.consume(at + 1);
                self.number += 1;
                return Ok(true);
            }
        }
        let ending =
            framing::read_record(input, record, self.framing, self.max_record, &self.name)?;
        if ending != Ending::End {
            self.number += 1;
        }
        match ending {
            Ending::Record => Ok(true),
            Ending::End => Ok(false),
            Ending::TooLong => Err(self.too_long()),
            Ending::OpenQuote => Err(SampleError::data(format!(
                "{} opens a quoted field that is never closed (the input ends inside quotes)",
                self.place()
            ))),
        }
    }
}

/// What [`RecordReader::skip_in_current`] passed over.
#[derive(Default)]
struct Passed {
    /// Whole lines.
    lines: u64,
    /// The input ended.
    ended: bool,
    /// The next line is longer than the limit.
    too_long: bool,
}

/// Copies standard input to a nameless temporary file in `dir` (`None`:
/// the system's temporary directory), for inputs read more than once
/// ([`RecordReader::open_spooled`]); the file has no name, so nothing is
/// left behind whatever way the process ends.
pub fn spool_stdin(dir: Option<&Path>) -> Result<File, SampleError> {
    spool(&mut std::io::stdin().lock(), "standard input", dir)
}

/// Copies of the inputs that cannot be read twice (standard input, a pipe
/// or FIFO, a device), for modes that read their inputs twice: each is
/// copied, once, to a nameless temporary file; regular files are read
/// where they are.
pub struct Spool {
    copies: Vec<(OsString, File)>,
}

impl Spool {
    /// No copies: every input read where it is.
    pub fn none() -> Spool {
        Spool { copies: Vec::new() }
    }

    /// Copies of the inputs `chosen` (indices into `inputs`, from
    /// [`crate::plan::copies`]), in `dir` (`None`: the system's temporary
    /// directory).
    pub fn of(
        inputs: &[(OsString, InputKind)],
        chosen: &[usize],
        dir: Option<&Path>,
    ) -> Result<Spool, SampleError> {
        let mut copies: Vec<(OsString, File)> = Vec::with_capacity(chosen.len());
        for &i in chosen {
            let (file, kind) = &inputs[i];
            if *kind == InputKind::Stdin {
                copies.push((file.clone(), spool_stdin(dir)?));
                continue;
            }
            let name = format!("'{}'", file.to_string_lossy());
            let mut source = File::open(file).map_err(|err| {
                SampleError::io(&err, format!("cannot open {name}: {}", describe(&err)))
            })?;
            copies.push((file.clone(), spool(&mut source, &name, dir)?));
        }
        Ok(Spool { copies })
    }
}

/// `file` (a spooled copy) cloned and read from its start.
fn rewound(file: &File) -> Result<File, SampleError> {
    let mut copy = file.try_clone().map_err(|err| spool_error(&err))?;
    copy.seek(SeekFrom::Start(0))
        .map_err(|err| spool_error(&err))?;
    Ok(copy)
}

/// Copies `source` (named `name` in messages) to a nameless temporary file
/// in `dir`.
fn spool(source: &mut impl Read, name: &str, dir: Option<&Path>) -> Result<File, SampleError> {
    let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let failed = |err: std::io::Error| {
        SampleError::io(
            &err,
            format!(
                "cannot copy {name} to a temporary file in '{}': {}",
                dir.display(),
                describe(&err)
            ),
        )
    };
    let mut file = tempfile::tempfile_in(&dir).map_err(failed)?;
    std::io::copy(source, &mut file).map_err(failed)?;
    Ok(file)
}

/// A failure to re-read the copy of standard input.
fn spool_error(err: &std::io::Error) -> SampleError {
    SampleError::io(
        err,
        format!("cannot read an input's spooled copy: {}", describe(err)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `files` written as `0`, `1`, ... in `dir`; their paths.
    pub(super) fn write_files(
        dir: &tempfile::TempDir,
        files: &[impl AsRef<[u8]>],
    ) -> Vec<OsString> {
        files
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                let path = dir.path().join(i.to_string());
                std::fs::write(&path, bytes).unwrap();
                path.into_os_string()
            })
            .collect()
    }

    pub(super) fn records_of(
        files: &[&[u8]],
        framing: Framing,
        headers: bool,
    ) -> (Option<Vec<u8>>, Vec<Vec<u8>>) {
        let dir = tempfile::tempdir().unwrap();
        let names = write_files(&dir, files);
        let mut reader = RecordReader::open(&names, framing, headers, 1 << 20).unwrap();
        let header = reader.header().map(<[u8]>::to_vec);
        let mut records = Vec::new();
        let mut record = Vec::new();
        while reader.next_record(&mut record).unwrap() {
            records.push(record.clone());
        }
        (header, records)
    }

    #[test]
    fn lines_get_a_terminator_and_long_ones_are_errors() {
        let (_, records) = records_of(&[b"a\0b", b"c"], Framing::Lines(0), false);
        assert_eq!(records, [b"a\0".to_vec(), b"b\0".to_vec(), b"c\0".to_vec()]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long");
        std::fs::write(&path, b"short\nmuch too long\n").unwrap();
        let mut reader =
            RecordReader::open(&[path.into_os_string()], Framing::Lines(b'\n'), false, 8).unwrap();
        let mut record = Vec::new();
        assert!(reader.next_record(&mut record).unwrap());
        let error = reader.next_record(&mut record).unwrap_err();
        assert!(error.message().contains("line 2 of"), "{}", error.message());
    }

    /// Reads `files` through a reader with a limit of `max` bytes, passing
    /// over `skips[i]` records before reading record i: the records read,
    /// or the error's text.
    fn skipping(
        files: &[Vec<u8>],
        headers: bool,
        max: u64,
        skips: &[u64],
    ) -> Result<Vec<(u64, Vec<u8>)>, String> {
        let dir = tempfile::tempdir().unwrap();
        let names = write_files(&dir, files);
        let mut reader = RecordReader::open(&names, Framing::Lines(b'\n'), headers, max)
            .map_err(|e| e.to_string())?;
        let (mut got, mut record, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        for &skip in skips {
            let passed = reader
                .skip_records(skip, &mut scratch)
                .map_err(|e| e.to_string())?;
            if !reader.next_record(&mut record).map_err(|e| e.to_string())? {
                break;
            }
            got.push((passed, record.clone()));
        }
        Ok(got)
    }

    #[test]
    fn skipping_lines_passes_over_exactly_what_reading_would() {
        // The reference: every line of every file in order (headers
        // marked), walked record by record. A header is read when the
        // walk reaches it (the first file's at once); a line longer than
        // the limit is an error when it is read or passed over.
        fn by_reading(
            files: &[Vec<u8>],
            headers: bool,
            max: u64,
            skips: &[u64],
        ) -> Result<Vec<(u64, Vec<u8>)>, String> {
            let mut all: Vec<(bool, Vec<u8>)> = Vec::new();
            for bytes in files {
                for (i, l) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
                    let mut l = l.to_vec();
                    if l.last() != Some(&b'\n') {
                        l.push(b'\n');
                    }
                    all.push((headers && i == 0, l));
                }
            }
            let long = |l: &Vec<u8>| l.len() as u64 > max;
            let mut at = 0usize;
            // The first file's header is read when the reader opens.
            if headers && all.first().is_some_and(|(h, l)| *h && long(l)) {
                return Err("long".into());
            }
            let next_data = |at: &mut usize| -> Result<Option<Vec<u8>>, String> {
                while let Some((header, line)) = all.get(*at) {
                    *at += 1;
                    if long(line) {
                        return Err("long".into());
                    }
                    if !header {
                        return Ok(Some(line.clone()));
                    }
                }
                Ok(None)
            };
            let mut got = Vec::new();
            'walk: for &skip in skips {
                let mut passed = 0;
                while passed < skip {
                    if next_data(&mut at)?.is_none() {
                        break 'walk;
                    }
                    passed += 1;
                }
                let Some(line) = next_data(&mut at)? else {
                    break;
                };
                got.push((passed, line));
            }
            Ok(got)
        }
        let mut next = crate::test_draws(0x1234_5678_9abc_def1u64);
        for case in 0..300 {
            let files: Vec<Vec<u8>> = (0..1 + next(3))
                .map(|_| {
                    (0..next(40))
                        .map(|_| {
                            if next(6) == 0 {
                                b'\n'
                            } else {
                                b'a' + next(3) as u8
                            }
                        })
                        .collect()
                })
                .collect();
            let headers = next(2) == 0;
            let max = [4, 9, 1 << 20][next(3) as usize];
            let skips: Vec<u64> = (0..next(12)).map(|_| next(5)).collect();
            let fast = skipping(&files, headers, max, &skips);
            let slow = by_reading(&files, headers, max, &skips);
            match (&fast, &slow) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "case {case}: {files:?} {skips:?}"),
                (Err(e), Err(_)) => assert!(e.contains("longer than the memory limit"), "{e}"),
                _ => panic!(
                    "case {case}: {fast:?} against {slow:?} ({files:?}, max {max}, {skips:?})"
                ),
            }
        }
    }

    /// Records with their places, or an error's text.
    type Visited = Result<Vec<(String, Vec<u8>)>, String>;

    /// The records (and their places) `visit_records` hands out, stopping
    /// after `stop` of them, or the error's text; and the same by
    /// `next_record`.
    fn visited(
        files: &[Vec<u8>],
        framing: Framing,
        headers: bool,
        max: u64,
        stop: usize,
    ) -> [Visited; 2] {
        let dir = tempfile::tempdir().unwrap();
        let names = write_files(&dir, files);
        let by_visit = (|| {
            let mut reader =
                RecordReader::open(&names, framing, headers, max).map_err(|e| e.to_string())?;
            let mut got = Vec::new();
            reader
                .visit_records(|record, place| {
                    got.push((place.describe(), record.to_vec()));
                    Ok(got.len() < stop)
                })
                .map_err(|e| e.to_string())?;
            Ok(got)
        })();
        let by_reading = (|| {
            let mut reader =
                RecordReader::open(&names, framing, headers, max).map_err(|e| e.to_string())?;
            let mut got = Vec::new();
            let mut record = Vec::new();
            while got.len() < stop && reader.next_record(&mut record).map_err(|e| e.to_string())? {
                got.push((reader.place(), record.clone()));
            }
            Ok(got)
        })();
        [by_visit, by_reading]
    }

    #[test]
    fn visiting_gives_exactly_the_records_and_errors_of_reading() {
        let mut next = crate::test_draws(0x0bad_5eed_1234_5678u64);
        for case in 0..300 {
            // Files of up to 200 KB (several read buffers), lines of 0 to
            // 300 bytes, some quoted for CSV.
            let files: Vec<Vec<u8>> = (0..1 + next(3))
                .map(|_| {
                    let length = [0, 50, 2000, 200_000][next(4) as usize];
                    (0..length)
                        .map(|_| match next(40) {
                            0 => b'\n',
                            1 => b'"',
                            2 => 0,
                            _ => b'a' + next(3) as u8,
                        })
                        .collect()
                })
                .collect();
            let framing =
                [Framing::Lines(b'\n'), Framing::Lines(0), Framing::Csv][next(3) as usize];
            let headers = next(2) == 0;
            let max = [30, 100, 1 << 20][next(3) as usize];
            let stop = [1, 7, 1000, usize::MAX][next(4) as usize];
            let [visit, read] = visited(&files, framing, headers, max, stop);
            assert_eq!(
                visit, read,
                "case {case}: {framing:?} headers {headers} max {max}"
            );
        }
    }

    #[test]
    fn lines_across_the_read_buffer_are_read_whole() {
        // 300 KB of lines of 1 to 700 bytes: many lie across the end of
        // the 64 KiB read buffer; the last has no terminator.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut bytes = Vec::new();
        while bytes.len() < 300_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let length = 1 + (state >> 40) as usize % 700;
            bytes.extend(std::iter::repeat_n(b'x', length));
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(b"last");
        let (_, records) = records_of(&[&bytes], Framing::Lines(b'\n'), false);
        let mut expected: Vec<Vec<u8>> = bytes
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        expected.last_mut().unwrap().push(b'\n');
        assert_eq!(records, expected);
    }
}
