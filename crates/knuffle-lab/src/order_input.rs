//! Reading one long order (or a column of shard numbers): a text file with
//! one non-negative integer a line, or a `.npy` file holding a 1-D array of
//! integers (recognised by its magic bytes, whatever the name). Values are
//! kept as `u32` (rows are numbered below 2^32), so an order of `n` rows
//! takes `4 n` bytes; a text file's lines can be counted first
//! ([`count_lines`]) so that the vector is allocated once.
//!
//! ```
//! use knuffle_lab::order_input::{read_numbers, Format};
//! let (rows, format) = read_numbers("2\n0\n1\n".as_bytes(), 3).unwrap();
//! assert_eq!((rows, format), (vec![2, 0, 1], Format::Text));
//! let error = read_numbers("2\nx\n".as_bytes(), 0).unwrap_err();
//! assert_eq!(error.to_string(), "line 2: not a number (found 'x'; one non-negative integer a line)");
//! ```

use std::fmt;
use std::io::{ErrorKind, Read};

/// The input's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One number a line.
    Text,
    /// A numpy `.npy` array.
    Npy,
}

impl Format {
    /// Where the value at `index` is, for messages: `line 4`, `element 3`.
    pub fn place(self, index: usize) -> String {
        match self {
            Format::Text => format!("line {}", index + 1),
            Format::Npy => format!("element {index}"),
        }
    }
}

/// Why the input could not be read.
#[derive(Debug)]
pub enum InputError {
    /// A value at a place ([`Format::place`]) is wrong.
    At(String, String),
    /// Something about the whole input.
    Input(String),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::At(place, message) => write!(f, "{place}: {message}"),
            InputError::Input(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for InputError {}

const NPY_MAGIC: &[u8] = b"\x93NUMPY";
const BUFFER: usize = 1 << 20;

fn read_error(e: std::io::Error) -> InputError {
    InputError::Input(format!("read error: {e}"))
}

/// Reads exactly `buf.len()` bytes, or fewer at the end; the count read.
fn fill(input: &mut impl Read, buf: &mut [u8]) -> Result<usize, InputError> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(read_error(e)),
        }
    }
    Ok(filled)
}

/// The number of lines of a text input (newlines, plus a last line
/// without one), to size the vector; reads the input once.
pub fn count_lines(mut input: impl Read) -> Result<usize, InputError> {
    let mut buf = vec![0u8; BUFFER];
    let (mut lines, mut last) = (0usize, b'\n');
    loop {
        let k = fill(&mut input, &mut buf)?;
        if k == 0 {
            break;
        }
        lines += buf[..k].iter().filter(|&&b| b == b'\n').count();
        last = buf[k - 1];
    }
    Ok(lines + usize::from(last != b'\n'))
}

/// Reads the numbers of `input` (text or `.npy`); `capacity` is how many to
/// expect (0 when unknown). An empty input is an error.
pub fn read_numbers(
    mut input: impl Read,
    capacity: usize,
) -> Result<(Vec<u32>, Format), InputError> {
    let mut head = [0u8; 6];
    let got = fill(&mut input, &mut head)?;
    if got == 0 {
        return Err(InputError::Input("empty: no rows".into()));
    }
    if &head[..got] == NPY_MAGIC {
        return Ok((read_npy(input)?, Format::Npy));
    }
    let mut values = Vec::with_capacity(capacity);
    let mut parser = TextParser::default();
    parser.feed(&head[..got], &mut values)?;
    let mut buf = vec![0u8; BUFFER];
    loop {
        let k = fill(&mut input, &mut buf)?;
        if k == 0 {
            break;
        }
        parser.feed(&buf[..k], &mut values)?;
    }
    parser.finish(&mut values)?;
    if values.is_empty() {
        return Err(InputError::Input("empty: no rows".into()));
    }
    Ok((values, Format::Text))
}

/// The state of the text parser between buffers.
#[derive(Default)]
struct TextParser {
    /// Lines finished so far.
    line: usize,
    value: u64,
    digits: usize,
    /// Whitespace after the digits.
    trailing: bool,
}

impl TextParser {
    fn at(&self, message: impl Into<String>) -> InputError {
        InputError::At(format!("line {}", self.line + 1), message.into())
    }

    fn feed(&mut self, bytes: &[u8], values: &mut Vec<u32>) -> Result<(), InputError> {
        for &b in bytes {
            match b {
                b'0'..=b'9' => {
                    if self.trailing {
                        return Err(
                            self.at("more than one number (one non-negative integer a line)")
                        );
                    }
                    self.value = self.value * 10 + u64::from(b - b'0');
                    self.digits += 1;
                    if self.value > u64::from(u32::MAX) {
                        return Err(self.at(
                            "the number is too large (rows are numbered below 2^32 = 4294967296)",
                        ));
                    }
                }
                b'\n' => self.end_line(values)?,
                b' ' | b'\t' | b'\r' => self.trailing = self.digits > 0,
                other => {
                    let shown = if other.is_ascii_graphic() {
                        format!("'{}'", other as char)
                    } else {
                        format!("byte 0x{other:02x}")
                    };
                    return Err(self.at(format!(
                        "not a number (found {shown}; one non-negative integer a line)"
                    )));
                }
            }
        }
        Ok(())
    }

    fn end_line(&mut self, values: &mut Vec<u32>) -> Result<(), InputError> {
        if self.digits == 0 {
            return Err(self.at("empty line (one non-negative integer a line)"));
        }
        values.push(self.value as u32);
        self.line += 1;
        self.value = 0;
        self.digits = 0;
        self.trailing = false;
        Ok(())
    }

    /// The last line, when it has no newline.
    fn finish(&mut self, values: &mut Vec<u32>) -> Result<(), InputError> {
        if self.digits > 0 || self.trailing {
            self.end_line(values)?;
        }
        Ok(())
    }
}

/// The element types read from `.npy` files: (descr, bytes, signed).
const NPY_TYPES: [(&str, usize, bool); 8] = [
    ("<i8", 8, true),
    ("<u8", 8, false),
    ("<i4", 4, true),
    ("<u4", 4, false),
    ("<i2", 2, true),
    ("<u2", 2, false),
    ("|i1", 1, true),
    ("|u1", 1, false),
];

/// The value of `key` in a `.npy` header dict, as text up to the next
/// comma outside parentheses.
fn header_field<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let start = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[start..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(rest[..end].trim())
}

/// Reads a `.npy` file after its magic: version, header, then the 1-D data
/// (format: numpy's `numpy.lib.format` documentation).
fn read_npy(mut input: impl Read) -> Result<Vec<u32>, InputError> {
    let bad = |m: String| InputError::Input(format!("not a valid .npy file: {m}"));
    let mut version = [0u8; 2];
    if fill(&mut input, &mut version)? < 2 {
        return Err(bad("truncated header".into()));
    }
    let header_len = if version[0] == 1 {
        let mut len = [0u8; 2];
        if fill(&mut input, &mut len)? < 2 {
            return Err(bad("truncated header".into()));
        }
        usize::from(u16::from_le_bytes(len))
    } else {
        let mut len = [0u8; 4];
        if fill(&mut input, &mut len)? < 4 {
            return Err(bad("truncated header".into()));
        }
        u32::from_le_bytes(len) as usize
    };
    if header_len > 1 << 20 {
        return Err(bad(format!("a header of {header_len} bytes")));
    }
    let mut header = vec![0u8; header_len];
    if fill(&mut input, &mut header)? < header_len {
        return Err(bad("truncated header".into()));
    }
    let header = String::from_utf8_lossy(&header);
    let descr = header_field(&header, "descr")
        .unwrap_or("")
        .trim_matches(['\'', '"']);
    let Some(&(_, width, signed)) = NPY_TYPES.iter().find(|t| t.0 == descr) else {
        return Err(InputError::Input(format!(
            "the .npy array holds {descr:?}: integers are needed (int64, int32, int16, int8 or unsigned, little-endian)"
        )));
    };
    if header_field(&header, "fortran_order") == Some("True") {
        return Err(bad("Fortran order".into()));
    }
    let shape = header_field(&header, "shape").unwrap_or("");
    let dims: Vec<&str> = shape
        .trim_matches(['(', ')'])
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    let length: usize = match dims.as_slice() {
        [one] => one.parse().map_err(|_| bad(format!("shape {shape}")))?,
        _ => {
            return Err(InputError::Input(format!(
                "the .npy array has shape {shape}: one dimension is needed (one row number an element)"
            )));
        }
    };
    if length == 0 {
        return Err(InputError::Input("empty: no rows".into()));
    }
    if length as u64 > 1 << 32 {
        return Err(InputError::Input(format!(
            "the .npy array has {length} elements: at most 2^32 rows"
        )));
    }
    let mut values = Vec::with_capacity(length);
    let mut buf = vec![0u8; BUFFER - BUFFER % 8];
    while values.len() < length {
        let want = ((length - values.len()) * width).min(buf.len());
        let got = fill(&mut input, &mut buf[..want])?;
        if got < want {
            return Err(bad(format!(
                "the data ends after {} of {length} elements",
                values.len() + got / width
            )));
        }
        for chunk in buf[..want].chunks_exact(width) {
            let mut bytes = [0u8; 8];
            bytes[..width].copy_from_slice(chunk);
            let negative = signed && chunk[width - 1] & 0x80 != 0;
            let raw = u64::from_le_bytes(bytes);
            if negative {
                // Sign extension of the `width`-byte two's complement.
                let shift = 64 - 8 * width as u32;
                let value = ((raw << shift) as i64) >> shift;
                return Err(InputError::At(
                    Format::Npy.place(values.len()),
                    format!("{value} is negative"),
                ));
            }
            let value = u32::try_from(raw).map_err(|_| {
                InputError::At(
                    Format::Npy.place(values.len()),
                    format!("{raw} is too large (rows are numbered below 2^32 = 4294967296)"),
                )
            })?;
            values.push(value);
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = NPY_MAGIC.to_vec();
        out.extend([1, 0]);
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    fn text_error(text: &str) -> String {
        read_numbers(text.as_bytes(), 0).unwrap_err().to_string()
    }

    #[test]
    fn text_lines_are_read_and_bad_ones_named() {
        let (v, _) = read_numbers(" 3\r\n1\t\n2".as_bytes(), 0).unwrap();
        assert_eq!(v, [3, 1, 2]);
        assert_eq!(text_error(""), "empty: no rows");
        assert_eq!(
            text_error("1\n\n2\n"),
            "line 2: empty line (one non-negative integer a line)"
        );
        assert_eq!(
            text_error("1\n-2\n"),
            "line 2: not a number (found '-'; one non-negative integer a line)"
        );
        assert_eq!(
            text_error("1 2\n"),
            "line 1: more than one number (one non-negative integer a line)"
        );
        assert!(text_error("0\n4294967296\n").starts_with("line 2: the number is too large"));
        assert!(text_error("0\n\x00\n").contains("byte 0x00"));
        // Across the reader's buffers.
        let long: String = (0..300_000).map(|i| format!("{i}\n")).collect();
        let (v, format) =
            read_numbers(long.as_bytes(), count_lines(long.as_bytes()).unwrap()).unwrap();
        assert_eq!(
            (v.len(), v[299_999], format),
            (300_000, 299_999, Format::Text)
        );
        assert_eq!(count_lines("1\n2".as_bytes()).unwrap(), 2);
    }

    #[test]
    fn npy_arrays_of_every_integer_type_are_read() {
        let (v, format) = read_numbers(
            &npy(
                "<i8",
                "(3,)",
                &[
                    2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                ],
            )[..],
            0,
        )
        .unwrap();
        assert_eq!((v, format), (vec![2, 0, 1], Format::Npy));
        let (v, _) = read_numbers(&npy("<u4", "(2,)", &[1, 0, 0, 0, 0, 0, 0, 0])[..], 0).unwrap();
        assert_eq!(v, [1, 0]);
        let (v, _) = read_numbers(&npy("|u1", "(2,)", &[1, 0])[..], 0).unwrap();
        assert_eq!(v, [1, 0]);
        let e = read_numbers(
            &npy("<i4", "(2,)", &[1, 0, 0, 0, 0xfd, 0xff, 0xff, 0xff])[..],
            0,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "element 1: -3 is negative");
        let e = read_numbers(&npy("<i8", "(1,)", &[0xff; 8])[..], 0).unwrap_err();
        assert_eq!(e.to_string(), "element 0: -1 is negative");
        let e = read_numbers(&npy("<f8", "(1,)", &[0; 8])[..], 0).unwrap_err();
        assert!(
            e.to_string().contains("holds \"<f8\": integers are needed"),
            "{e}"
        );
        let e = read_numbers(&npy("<i8", "(2, 2)", &[0; 32])[..], 0).unwrap_err();
        assert!(e.to_string().contains("one dimension is needed"), "{e}");
        let e = read_numbers(&npy("<i8", "(3,)", &[0; 16])[..], 0).unwrap_err();
        assert!(e.to_string().contains("ends after 2 of 3"), "{e}");
        let e = read_numbers(&npy("<i8", "(0,)", &[])[..], 0).unwrap_err();
        assert_eq!(e.to_string(), "empty: no rows");
    }
}
