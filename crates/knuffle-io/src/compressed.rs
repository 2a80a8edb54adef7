//! Compressed files: gzip (RFC 1952) and zstd (RFC 8878) streams read by
//! their content and written by their name.
//!
//! - **Reading** ([`Decompressed`]): an input's first bytes say whether it
//!   is compressed (each format's magic number, from its specification),
//!   whatever its name; gzip and zstd are decompressed as they are read,
//!   in bounded memory (gzip: a 32 KiB window; zstd: the window its frames
//!   ask for, at most zstd's default limit of 128 MiB, a frame asking for
//!   more is an error). A gzip file of several members, a zstd file of
//!   several frames, is one stream (as `gzip -dc` and `zstd -dc` read
//!   them). Data that does not decompress (corrupt, or cut short) is an
//!   error that [`is_corrupt`] tells from a failure to read the file.
//!   bzip2, xz and zip are recognised ([`Compressed::is_read`] says no) so
//!   that callers can refuse them by name.
//! - **Writing** ([`CompressedWriter`]): a name ending in `.gz` or `.zst`
//!   ([`by_extension`]) is written compressed; its `finish` ends the
//!   stream, and its error must be checked before the file is kept.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Seek, Write};
use std::path::Path;

/// A compression format recognised by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compressed {
    /// gzip (RFC 1952): read and written.
    Gzip,
    /// zstd (RFC 8878): read and written.
    Zstd,
    /// bzip2: recognised only.
    Bzip2,
    /// xz: recognised only.
    Xz,
    /// A zip archive: recognised only.
    Zip,
}

impl Compressed {
    /// Its name in messages (`gzip`).
    pub fn name(self) -> &'static str {
        match self {
            Compressed::Gzip => "gzip",
            Compressed::Zstd => "zstd",
            Compressed::Bzip2 => "bzip2",
            Compressed::Xz => "xz",
            Compressed::Zip => "zip",
        }
    }

    /// The command that writes its text (`gzip -dc`), for messages.
    pub fn tool(self) -> &'static str {
        match self {
            Compressed::Gzip => "gzip -dc",
            Compressed::Zstd => "zstd -dc",
            Compressed::Bzip2 => "bzip2 -dc",
            Compressed::Xz => "xz -dc",
            Compressed::Zip => "unzip -p",
        }
    }

    /// Whether knuffle reads (and writes) it: gzip and zstd.
    pub fn is_read(self) -> bool {
        matches!(self, Compressed::Gzip | Compressed::Zstd)
    }
}

/// A format's magic number: its bytes, one of which may take any value of
/// a range.
struct Magic {
    format: Compressed,
    bytes: &'static [u8],
    /// The byte that varies: its index and its least and greatest values.
    varies: Option<(usize, u8, u8)>,
}

const MAGIC: [Magic; 6] = [
    Magic {
        format: Compressed::Gzip,
        bytes: b"\x1f\x8b",
        varies: None,
    },
    Magic {
        format: Compressed::Zstd,
        bytes: b"\x28\xb5\x2f\xfd",
        varies: None,
    },
    // A zstd skippable frame (magic 0x184D2A50 to 0x184D2A5F, little
    // endian), which `pzstd` writes first.
    Magic {
        format: Compressed::Zstd,
        bytes: b"\x50\x2a\x4d\x18",
        varies: Some((0, 0x50, 0x5f)),
    },
    Magic {
        format: Compressed::Xz,
        bytes: b"\xfd7zXZ\x00",
        varies: None,
    },
    Magic {
        format: Compressed::Zip,
        bytes: b"PK\x03\x04",
        varies: None,
    },
    // `BZh`, the block size digit, the first block's magic `1AY&SY`.
    Magic {
        format: Compressed::Bzip2,
        bytes: b"BZh91AY&SY",
        varies: Some((3, b'1', b'9')),
    },
];

/// The longest magic number.
const HEAD: usize = 10;

impl Magic {
    /// How many of `head`'s first bytes match this magic number in turn.
    fn matching(&self, head: &[u8]) -> usize {
        head.iter()
            .zip(self.bytes)
            .enumerate()
            .take_while(|&(index, (&byte, &expected))| match self.varies {
                Some((at, low, high)) if at == index => (low..=high).contains(&byte),
                _ => byte == expected,
            })
            .count()
    }
}

/// The compression format that `head` (a file's first bytes) starts with.
pub fn recognise(head: &[u8]) -> Option<Compressed> {
    MAGIC
        .iter()
        .find(|magic| magic.matching(head) == magic.bytes.len())
        .map(|magic| magic.format)
}

/// Whether more bytes could make `head` a magic number (it is the start
/// of one): an input is read until this is false, no further, so that a
/// stream's first line is not held back waiting for ten bytes.
fn undecided(head: &[u8]) -> bool {
    MAGIC
        .iter()
        .any(|magic| head.len() < magic.bytes.len() && magic.matching(head) == head.len())
}

/// The compression that `path`'s name ends in: `.gz`, `.zst` (or
/// `.zstd`), `.bz2`, `.xz`; a `.zip` archive is not a compressed file.
pub fn by_extension(path: &Path) -> Option<Compressed> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "gz" => Some(Compressed::Gzip),
        "zst" | "zstd" => Some(Compressed::Zstd),
        "bz2" => Some(Compressed::Bzip2),
        "xz" => Some(Compressed::Xz),
        _ => None,
    }
}

/// A failure of the reader under a decoder, carried through the decoder
/// so that it is told from the decoder's own errors (corrupt data).
#[derive(Debug)]
struct ReadFailure(io::Error);

impl fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ReadFailure {}

/// Compressed data that does not decompress.
#[derive(Debug)]
struct CorruptStream {
    format: Compressed,
    cause: String,
}

impl fmt::Display for CorruptStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} data is corrupt or truncated ({})",
            self.format.name(),
            self.cause
        )
    }
}

impl std::error::Error for CorruptStream {}

/// Whether `error` (from a [`Decompressed`]) is compressed data that does
/// not decompress, rather than a failure to read: invalid data, not I/O.
pub fn is_corrupt(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<CorruptStream>())
}

/// The input's bytes: its first bytes (read to recognise it) and then the
/// rest, with the input's errors marked as [`ReadFailure`]s.
struct Raw<R> {
    head: Vec<u8>,
    at: usize,
    inner: R,
}

impl<R: Read> Read for Raw<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if self.at < self.head.len() {
            let n = buffer.len().min(self.head.len() - self.at);
            buffer[..n].copy_from_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            if self.at == self.head.len() {
                // Served: its memory goes back.
                (self.head, self.at) = (Vec::new(), 0);
            }
            return Ok(n);
        }
        self.inner
            .read(buffer)
            .map_err(|e| io::Error::new(e.kind(), ReadFailure(e)))
    }
}

/// Bytes a decoder reads its compressed input in.
const COMPRESSED_BUFFER: usize = 1 << 16;

enum Reader<R: Read> {
    Plain(BufReader<Raw<R>>),
    Gzip(BufReader<flate2::bufread::MultiGzDecoder<BufReader<Raw<R>>>>),
    Zstd(BufReader<zstd::stream::read::Decoder<'static, BufReader<Raw<R>>>>),
}

/// An input's text: decompressed when its first bytes say gzip or zstd,
/// else its bytes as they are.
pub struct Decompressed<R: Read> {
    reader: Reader<R>,
    compressed: Option<Compressed>,
    capacity: usize,
}

impl<R: Read> Decompressed<R> {
    /// `input` read through a buffer of `capacity` bytes, decompressed when
    /// its first bytes are gzip's or zstd's. Reads its first bytes: one
    /// read of up to `capacity` bytes, as a buffered reader's first would
    /// (the first buffer of plain text is all of that read), and more only
    /// while fewer than a magic number's bytes came.
    pub fn new(mut input: R, capacity: usize) -> io::Result<Decompressed<R>> {
        let mut head = vec![0u8; capacity.max(HEAD)];
        let mut got = 0;
        while undecided(&head[..got]) {
            match input.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        head.truncate(got);
        let compressed = recognise(&head);
        let raw = Raw {
            head,
            at: 0,
            inner: input,
        };
        let reader = match compressed {
            Some(Compressed::Gzip) => Reader::Gzip(BufReader::with_capacity(
                capacity,
                flate2::bufread::MultiGzDecoder::new(BufReader::with_capacity(
                    COMPRESSED_BUFFER,
                    raw,
                )),
            )),
            Some(Compressed::Zstd) => Reader::Zstd(BufReader::with_capacity(
                capacity,
                zstd::stream::read::Decoder::with_buffer(BufReader::with_capacity(
                    COMPRESSED_BUFFER,
                    raw,
                ))?,
            )),
            _ => Reader::Plain(BufReader::with_capacity(capacity, raw)),
        };
        Ok(Decompressed {
            reader,
            compressed,
            capacity,
        })
    }

    /// The compression its first bytes say (also bzip2, xz or zip, which
    /// are read as they are: the caller refuses them).
    pub fn compressed(&self) -> Option<Compressed> {
        self.compressed
    }

    /// The same input read again from its start (a file, not a pipe).
    pub fn rewound(self) -> io::Result<Decompressed<R>>
    where
        R: Seek,
    {
        let raw = match self.reader {
            Reader::Plain(reader) => reader.into_inner(),
            Reader::Gzip(reader) => reader.into_inner().into_inner().into_inner(),
            Reader::Zstd(reader) => reader.into_inner().finish().into_inner(),
        };
        let mut input = raw.inner;
        input.rewind()?;
        Decompressed::new(input, self.capacity)
    }

    /// `error` of the reader or of its decoder as the caller sees it: the
    /// input's own error, or [`CorruptStream`].
    fn translate(compressed: Option<Compressed>, error: io::Error) -> io::Error {
        if error
            .get_ref()
            .is_some_and(|inner| inner.is::<ReadFailure>())
        {
            let inner = error.into_inner().expect("checked above");
            return match inner.downcast::<ReadFailure>() {
                Ok(failure) => failure.0,
                Err(other) => io::Error::other(other),
            };
        }
        match compressed {
            Some(format) if error.kind() != io::ErrorKind::Interrupted => io::Error::new(
                io::ErrorKind::InvalidData,
                CorruptStream {
                    format,
                    cause: error.to_string(),
                },
            ),
            _ => error,
        }
    }
}

impl<R: Read> Read for Decompressed<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let compressed = self.compressed;
        match &mut self.reader {
            Reader::Plain(reader) => reader.read(buffer),
            Reader::Gzip(reader) => reader.read(buffer),
            Reader::Zstd(reader) => reader.read(buffer),
        }
        .map_err(|e| Self::translate(compressed, e))
    }
}

impl<R: Read> BufRead for Decompressed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let compressed = self.compressed;
        match &mut self.reader {
            Reader::Plain(reader) => reader.fill_buf(),
            Reader::Gzip(reader) => reader.fill_buf(),
            Reader::Zstd(reader) => reader.fill_buf(),
        }
        .map_err(|e| Self::translate(compressed, e))
    }

    fn consume(&mut self, amount: usize) {
        match &mut self.reader {
            Reader::Plain(reader) => reader.consume(amount),
            Reader::Gzip(reader) => reader.consume(amount),
            Reader::Zstd(reader) => reader.consume(amount),
        }
    }
}

/// A file's bytes compressed as its name says ([`by_extension`]): gzip
/// (level 6, `gzip`'s default, no file name or time in the header, so the
/// same rows give the same bytes) or zstd (level 3, `zstd`'s default, with
/// each frame's checksum); else written as they are.
pub enum CompressedWriter<W: Write> {
    /// Not compressed.
    Plain(W),
    /// gzip.
    Gzip(flate2::write::GzEncoder<W>),
    /// zstd.
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> CompressedWriter<W> {
    /// A writer into `sink`, compressing with `compression` (gzip or zstd;
    /// any other is an error of kind `InvalidInput`).
    pub fn new(sink: W, compression: Option<Compressed>) -> io::Result<CompressedWriter<W>> {
        Ok(match compression {
            None => CompressedWriter::Plain(sink),
            Some(Compressed::Gzip) => CompressedWriter::Gzip(flate2::write::GzEncoder::new(
                sink,
                flate2::Compression::default(),
            )),
            Some(Compressed::Zstd) => {
                let mut encoder = zstd::stream::write::Encoder::new(sink, 3)?;
                encoder.include_checksum(true)?;
                CompressedWriter::Zstd(encoder)
            }
            Some(other) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("knuffle writes gzip and zstd, not {}", other.name()),
                ));
            }
        })
    }

    /// Ends the compressed stream (its last block, its checksum) and gives
    /// the sink back: a file is complete only once this returned `Ok`.
    pub fn finish(self) -> io::Result<W> {
        match self {
            CompressedWriter::Plain(sink) => Ok(sink),
            CompressedWriter::Gzip(encoder) => encoder.finish(),
            CompressedWriter::Zstd(encoder) => encoder.finish(),
        }
    }
}

impl<W: Write> Write for CompressedWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            CompressedWriter::Plain(sink) => sink.write(bytes),
            CompressedWriter::Gzip(encoder) => encoder.write(bytes),
            CompressedWriter::Zstd(encoder) => encoder.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            CompressedWriter::Plain(sink) => sink.flush(),
            CompressedWriter::Gzip(encoder) => encoder.flush(),
            CompressedWriter::Zstd(encoder) => encoder.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compress(compression: Compressed, text: &[u8]) -> Vec<u8> {
        let mut writer = CompressedWriter::new(Vec::new(), Some(compression)).unwrap();
        writer.write_all(text).unwrap();
        writer.finish().unwrap()
    }

    fn decompress(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        Decompressed::new(bytes, 64)?.read_to_end(&mut out)?;
        Ok(out)
    }

    fn text() -> Vec<u8> {
        (0..3000u32)
            .flat_map(|i| format!("{i},{}\n", i.wrapping_mul(2_654_435_761)).into_bytes())
            .collect()
    }

    #[test]
    fn magic_numbers_are_recognised() {
        assert_eq!(recognise(b"\x1f\x8b\x08\x00"), Some(Compressed::Gzip));
        assert_eq!(recognise(b"\x28\xb5\x2f\xfd\x04"), Some(Compressed::Zstd));
        assert_eq!(recognise(b"\x5e\x2a\x4d\x18\x04"), Some(Compressed::Zstd));
        assert_eq!(recognise(b"BZh91AY&SY\x01"), Some(Compressed::Bzip2));
        assert_eq!(recognise(b"\xfd7zXZ\x00\x00"), Some(Compressed::Xz));
        assert_eq!(recognise(b"PK\x03\x04\x14\x00"), Some(Compressed::Zip));
        for text in [&b"id,name\n"[..], b"BZh9 is not bzip2\n", b"\x1f", b""] {
            assert_eq!(recognise(text), None);
        }
        assert!(undecided(b""));
        assert!(undecided(b"BZh"));
        assert!(!undecided(b"a"), "a line's first byte decides");
    }

    #[test]
    fn both_formats_come_back_as_written_and_plain_text_as_it_is() {
        let text = text();
        for format in [Compressed::Gzip, Compressed::Zstd] {
            let packed = compress(format, &text);
            assert_eq!(recognise(&packed), Some(format));
            assert_eq!(decompress(&packed).unwrap(), text, "{format:?}");
        }
        assert_eq!(decompress(&text).unwrap(), text);
        assert_eq!(decompress(b"a").unwrap(), b"a");
        assert_eq!(decompress(b"").unwrap(), b"");
    }

    #[test]
    fn members_and_frames_one_after_another_are_one_stream() {
        for format in [Compressed::Gzip, Compressed::Zstd] {
            let mut both = compress(format, b"a\nb\n");
            both.extend(compress(format, b"c\n"));
            assert_eq!(decompress(&both).unwrap(), b"a\nb\nc\n", "{format:?}");
        }
    }

    #[test]
    fn every_cut_or_flipped_byte_is_an_error_of_its_own() {
        let text = text();
        for format in [Compressed::Gzip, Compressed::Zstd] {
            let packed = compress(format, &text);
            // Cut anywhere after the magic number (a cut inside it is
            // plain text, read as it is).
            for cut in 4..packed.len() {
                let error = decompress(&packed[..cut]).unwrap_err();
                assert!(is_corrupt(&error), "{format:?} cut at {cut}: {error}");
                assert!(
                    error.to_string().contains(format.name()),
                    "{format:?}: {error}"
                );
            }
            // A flipped byte in the body or the checksum.
            for at in [packed.len() / 2, packed.len() - 2] {
                let mut flipped = packed.clone();
                flipped[at] ^= 0x55;
                let error = decompress(&flipped).unwrap_err();
                assert!(is_corrupt(&error), "{format:?} flipped at {at}: {error}");
            }
        }
    }

    #[test]
    fn a_failure_to_read_stays_one() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::from_raw_os_error(libc::EIO));
                }
                let packed = compress(Compressed::Gzip, b"abc\n");
                let n = self.0.min(buffer.len()).min(packed.len());
                buffer[..n].copy_from_slice(&packed[..n]);
                self.0 = 0;
                Ok(n)
            }
        }
        let mut out = Vec::new();
        let error = Decompressed::new(Failing(4), 64)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap_err();
        assert!(!is_corrupt(&error), "{error}");
        assert_eq!(error.raw_os_error(), Some(libc::EIO));
    }

    #[test]
    fn a_rewound_input_is_read_again_from_its_start() {
        let packed = compress(Compressed::Zstd, b"a\nb\n");
        let mut input = Decompressed::new(io::Cursor::new(packed), 64).unwrap();
        let mut first = String::new();
        input.read_line(&mut first).unwrap();
        let mut again = Vec::new();
        input.rewound().unwrap().read_to_end(&mut again).unwrap();
        assert_eq!((first.as_str(), &again[..]), ("a\n", &b"a\nb\n"[..]));
    }

    #[test]
    fn names_say_the_compression_of_an_output() {
        let of = |name: &str| by_extension(Path::new(name));
        assert_eq!(of("t.csv.gz"), Some(Compressed::Gzip));
        assert_eq!(of("t.jsonl.ZST"), Some(Compressed::Zstd));
        assert_eq!(of("t.csv.bz2"), Some(Compressed::Bzip2));
        assert_eq!(of("t.csv"), None);
        assert_eq!(of("t.zip"), None);
    }
}
