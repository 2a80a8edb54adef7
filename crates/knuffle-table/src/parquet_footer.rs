//! A Parquet footer checked before the `parquet` crate decodes it, against
//! what its decoder would otherwise allocate or recurse on:
//! - the footer's length against the file's size and the memory limit (a
//!   decoded footer takes several times its bytes);
//! - the nesting of its Thrift structures (at most [`MAX_DEPTH`] deep);
//! - the schema's `num_children`: each at most the number of schema
//!   elements, the tree at most [`MAX_SCHEMA_DEPTH`] deep. The crate
//!   reserves room for `num_children` children before it reads them
//!   (parquet 60.1, `schema_from_array_helper`): a 38 KB file whose root
//!   claims 2^31-1 children asked for 17 GB.
//!
//! The footer is the FileMetaData struct of the Parquet format
//! (parquet.thrift), in the Thrift compact protocol (the Apache Thrift
//! repository's doc/specs/thrift-compact-protocol.md): a struct is a series
//! of field headers (a byte: the field id's delta in the high nibble, the type in the low
//! nibble; delta 0 is followed by the id as a zigzag varint) ending with a
//! zero byte; integers are zigzag varints; a list's header byte holds its
//! size (15: a varint follows) and its element type.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::Error;

/// Bytes a decoded footer takes per byte of the file's footer, at most (a
/// row group's column chunk of about 30 bytes becomes about 600 bytes of
/// metadata in memory).
pub(crate) const FOOTER_EXPANSION: u64 = 24;

/// Thrift structures nested deeper than this are refused.
const MAX_DEPTH: u32 = 64;

/// Schemas nested deeper than this are refused (the crate builds the
/// schema tree recursively).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 128;

const STRUCT: u8 = 12;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const I32: u8 = 5;

/// Checks the footer of the Parquet file `file` (`path` for messages):
/// `memory` is the memory limit. Returns the footer's length.
pub(crate) fn check(path: &Path, file: &mut File, memory: u64) -> Result<u64, Error> {
    let invalid = |text: String| Error::invalid(format!("{}: {text}", path.display()));
    let size = file.metadata().map_err(|e| Error::io_at(path, &e))?.len();
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(invalid(
            "a Parquet file is read from its end (its footer): it must be a regular file, \
             not a pipe or device"
                .into(),
        ));
    }
    if size < 12 {
        return Err(invalid(format!(
            "not a Parquet file: {size} bytes (too short)"
        )));
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::Start(size - 8))
        .and_then(|_| file.read_exact(&mut tail))
        .map_err(|e| Error::io_at(path, &e))?;
    if &tail[4..] != b"PAR1" {
        return Err(invalid(if &tail[4..] == b"PARE" {
            "an encrypted Parquet file (not supported)".into()
        } else {
            "not a Parquet file (no PAR1 at its end; truncated?)".into()
        }));
    }
    let length = u64::from(u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")));
    if length > size - 12 {
        return Err(invalid(format!(
            "its footer claims {length} bytes of a {size}-byte file (truncated or corrupt)"
        )));
    }
    check_memory(path, length, memory)?;
    let mut footer = vec![0u8; length as usize];
    file.seek(SeekFrom::Start(size - 8 - length))
        .and_then(|_| file.read_exact(&mut footer))
        .map_err(|e| Error::io_at(path, &e))?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io_at(path, &e))?;
    check_metadata(&footer).map_err(|text| invalid(format!("corrupt Parquet footer: {text}")))?;
    Ok(length)
}

/// A footer of `length` bytes (of the file `path`) must fit in `memory`,
/// the memory limit, decoded.
pub(crate) fn check_memory(path: &Path, length: u64, memory: u64) -> Result<(), Error> {
    let needed = length.saturating_mul(FOOTER_EXPANSION);
    if needed > memory {
        return Err(Error::invalid(format!(
            "{}: its footer ({} KiB) needs about {} MiB to read, more than the memory limit; \
             raise the memory limit (--memory)",
            path.display(),
            length >> 10,
            needed >> 20
        )));
    }
    Ok(())
}

/// Checks the FileMetaData struct `bytes` (see the module's notes).
pub fn check_metadata(bytes: &[u8]) -> Result<(), String> {
    let mut walk = Walk { bytes, at: 0 };
    let mut children: Vec<i64> = Vec::new();
    walk.read_struct(0, &mut |walk, id, kind| {
        if id != 2 || kind != LIST {
            return Ok(false);
        }
        // The schema: a list of SchemaElement, field 5 num_children.
        let (size, element) = walk.list_header()?;
        if element != STRUCT {
            return Err("the schema is not a list of structs".into());
        }
        for _ in 0..size {
            let mut count = 0i64;
            walk.read_struct(1, &mut |walk, id, kind| {
                if id == 5 && kind == I32 {
                    count = walk.varint_signed()?;
                    return Ok(true);
                }
                Ok(false)
            })?;
            children.push(count);
        }
        Ok(true)
    })?;
    check_schema_tree(&children)
}

/// The schema elements' `num_children`, in order, form a tree of at most
/// [`MAX_SCHEMA_DEPTH`] levels whose counts fit in the list.
fn check_schema_tree(children: &[i64]) -> Result<(), String> {
    let elements = children.len() as i64;
    let mut open: Vec<i64> = Vec::new();
    for (index, &count) in children.iter().enumerate() {
        if !(0..elements).contains(&count) {
            return Err(format!(
                "schema element {index} claims {count} children of {elements} elements"
            ));
        }
        if index > 0 {
            while open.last() == Some(&0) {
                open.pop();
            }
            match open.last_mut() {
                Some(left) => *left -= 1,
                None => return Err(format!("schema element {index} is outside the tree")),
            }
        }
        if count > 0 || index == 0 {
            open.push(count);
            if open.len() > MAX_SCHEMA_DEPTH {
                return Err(format!(
                    "the schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
                ));
            }
        }
    }
    let missing: i64 = open.iter().sum();
    if missing > 0 {
        return Err(format!(
            "the schema lacks {missing} of the children it claims"
        ));
    }
    Ok(())
}

/// A cursor over Thrift compact bytes.
struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

type Visit<'v, 'a> = dyn FnMut(&mut Walk<'a>, i16, u8) -> Result<bool, String> + 'v;

impl<'a> Walk<'a> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.bytes.get(self.at).ok_or("it ends early")?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err("an integer overflows".into());
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("an integer overflows".into())
    }

    fn varint_signed(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn skip(&mut self, n: u64) -> Result<(), String> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err("a value runs past its end".into());
        }
        self.at += n as usize;
        Ok(())
    }

    /// A list's or set's size and element type; the size is at most the
    /// bytes left (every element takes one at least).
    fn list_header(&mut self) -> Result<(u64, u8), String> {
        let header = self.byte()?;
        let size = match header >> 4 {
            15 => self.varint()?,
            short => u64::from(short),
        };
        if size > (self.bytes.len() - self.at) as u64 {
            return Err(format!("a list of {size} elements in fewer bytes"));
        }
        Ok((size, header & 0x0f))
    }

    /// Reads a struct's fields, handing each to `visit` (which reads it
    /// and says true, or says false to have it skipped).
    fn read_struct(&mut self, depth: u32, visit: &mut Visit<'_, 'a>) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("structures nest deeper than {MAX_DEPTH} levels"));
        }
        let mut id: i16 = 0;
        loop {
            let header = self.byte()?;
            if header == 0 {
                return Ok(());
            }
            let kind = header & 0x0f;
            id = match header >> 4 {
                0 => i16::try_from(self.varint_signed()?).map_err(|_| "a field id overflows")?,
                delta => id.wrapping_add(i16::from(delta)),
            };
            if !visit(self, id, kind)? {
                self.skip_value(kind, depth + 1)?;
            }
        }
    }

    fn skip_value(&mut self, kind: u8, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("structures nest deeper than {MAX_DEPTH} levels"));
        }
        match kind {
            1 | 2 => Ok(()),
            3 => self.skip(1),
            4..=6 => self.varint().map(drop),
            7 => self.skip(8),
            8 => {
                let n = self.varint()?;
                self.skip(n)
            }
            LIST | SET => {
                let (size, element) = self.list_header()?;
                for _ in 0..size {
                    // Booleans in a list are a byte each.
                    if matches!(element, 1 | 2) {
                        self.skip(1)?;
                    } else {
                        self.skip_value(element, depth + 1)?;
                    }
                }
                Ok(())
            }
            MAP => {
                let size = self.varint()?;
                if size == 0 {
                    return Ok(());
                }
                if size > (self.bytes.len() - self.at) as u64 {
                    return Err(format!("a map of {size} entries in fewer bytes"));
                }
                let types = self.byte()?;
                for _ in 0..size {
                    for element in [types >> 4, types & 0x0f] {
                        if matches!(element, 1 | 2) {
                            self.skip(1)?;
                        } else {
                            self.skip_value(element, depth + 1)?;
                        }
                    }
                }
                Ok(())
            }
            STRUCT => self.read_struct(depth, &mut |_, _, _| Ok(false)),
            other => Err(format!("unknown Thrift type {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_trees_are_checked() {
        assert!(check_schema_tree(&[2, 0, 0]).is_ok());
        assert!(check_schema_tree(&[1, 1, 0]).is_ok());
        assert!(check_schema_tree(&[i32::MAX as i64, 0]).is_err());
        assert!(check_schema_tree(&[2, 0]).is_err());
        assert!(check_schema_tree(&[1, 0, 0]).is_err());
        assert!(check_schema_tree(&[-1]).is_err());
        let deep: Vec<i64> = (0..200).map(|i| if i < 199 { 1 } else { 0 }).collect();
        assert!(check_schema_tree(&deep).unwrap_err().contains("deeper"));
    }

    #[test]
    fn walks_stop_at_the_end_and_at_depth() {
        // A struct whose field 1 is a struct, nested 100 deep.
        let mut bytes = vec![0x1c; 100];
        bytes.extend(vec![0; 101]);
        assert!(check_metadata(&bytes).unwrap_err().contains("deeper"));
        assert!(check_metadata(&[0x19, 0xf8, 0xff, 0xff, 0xff, 0x0f]).is_err());
        assert!(check_metadata(&[]).is_err());
    }
}
