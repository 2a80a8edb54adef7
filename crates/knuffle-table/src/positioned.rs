//! A Parquet file read by positioned reads (`pread`, `FileExt::read_at`):
//! the decoders of several row groups share the one descriptor its footer
//! was read from, without sharing a file offset, so every row group is
//! decoded from the same file as its footer (a path reopened by name could
//! meanwhile name another file).

use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use bytes::Bytes;
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};

/// An open file and its length, read only at given offsets.
#[derive(Clone)]
pub(crate) struct PositionedFile {
    file: Arc<File>,
    len: u64,
}

impl PositionedFile {
    /// `file`, of `len` bytes.
    pub(crate) fn new(file: File, len: u64) -> PositionedFile {
        PositionedFile {
            file: Arc::new(file),
            len,
        }
    }
}

impl Length for PositionedFile {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for PositionedFile {
    type T = BufReader<ReadFrom>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        Ok(BufReader::new(ReadFrom {
            file: self.file.clone(),
            at: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let mut buffer = vec![0u8; length];
        self.file
            .read_exact_at(&mut buffer, start)
            .map_err(|e| ParquetError::External(Box::new(e)))?;
        Ok(buffer.into())
    }
}

/// Sequential reads from an offset of a shared file.
pub(crate) struct ReadFrom {
    file: Arc<File>,
    at: u64,
}

impl Read for ReadFrom {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.file.read_at(buffer, self.at)?;
        self.at += read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_offsets_share_no_position() {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, b"0123456789").unwrap();
        let positioned = PositionedFile::new(file, 10);
        assert_eq!(positioned.get_bytes(3, 4).unwrap().as_ref(), b"3456");
        let mut a = positioned.get_read(8).unwrap();
        let mut b = positioned.get_read(1).unwrap();
        let (mut x, mut y) = (String::new(), [0u8; 2]);
        b.read_exact(&mut y).unwrap();
        a.read_to_string(&mut x).unwrap();
        assert_eq!((x.as_str(), &y), ("89", b"12"));
        assert!(positioned.get_bytes(9, 2).is_err());
    }
}
