//! Reading an Arrow IPC file or stream, message by message, each checked
//! before Arrow's decoders (`arrow::ipc::reader::read_record_batch`,
//! `read_dictionary`) see it.
//!
//! Both formats are a series of encapsulated messages (the Arrow columnar
//! format, "IPC Streaming Format": a continuation marker 0xFFFFFFFF, the
//! metadata's length, a `Message` flatbuffer, the body), ended by a zero
//! length; the file format has the 8 bytes `ARROW1\0\0` before them and a
//! footer after them, which is not needed to read the messages in order.
//! Before a message is decoded:
//! - its metadata and body must be complete (a truncated file is invalid
//!   data) and each at most the memory limit (and, in a file, its size);
//! - a batch's buffers must lie within its body;
//! - a compressed batch's buffers (LZ4 or ZSTD, as pyarrow's Feather files
//!   are by default) say their uncompressed lengths in their first 8 bytes:
//!   their sum must be within the memory limit. Arrow's decompression
//!   reserves that length before it decompresses (arrow-ipc 60.1,
//!   `decompress_lz4` and `decompress_zstd`), so 8 hostile bytes could ask
//!   for any amount.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::ArrayRef;
use arrow::buffer::Buffer;
use arrow::datatypes::SchemaRef;
use arrow::ipc::MessageHeader;
use arrow::ipc::reader::{read_dictionary, read_record_batch};
use arrow::record_batch::RecordBatch;

use crate::error::Error;

const CONTINUATION: [u8; 4] = [0xff; 4];

/// What a reader of IPC messages may take.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IpcLimits {
    /// Bytes one message (its metadata, body and decompressed buffers) may
    /// take at most.
    pub memory: u64,
}

/// An Arrow IPC file's or stream's batches.
pub(crate) struct IpcBatches {
    path: PathBuf,
    input: BufReader<File>,
    /// Bytes of the file not yet read (a pipe: none known).
    left: Option<u64>,
    schema: Option<SchemaRef>,
    dictionaries: HashMap<i64, ArrayRef>,
    limits: IpcLimits,
    done: bool,
}

/// Opens an Arrow IPC file (`file_format`) or stream: its schema (the
/// first message) and its batches.
pub(crate) fn open(
    path: PathBuf,
    file: File,
    file_format: bool,
    limits: IpcLimits,
) -> Result<(SchemaRef, IpcBatches), Error> {
    let left = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut batches = IpcBatches {
        path,
        input: BufReader::with_capacity(1 << 16, file),
        left,
        schema: None,
        dictionaries: HashMap::new(),
        limits,
        done: false,
    };
    if file_format {
        let mut magic = [0u8; 8];
        batches.read_exact(&mut magic)?;
        if &magic[..6] != b"ARROW1" {
            return Err(batches.invalid("not an Arrow IPC file (no ARROW1 at its start)"));
        }
        // The magic is padded to the writer's alignment (8 bytes by the
        // format, 64 by arrow-rs): zero words before the first message.
        for _ in 0..14 {
            let buffer = batches
                .input
                .fill_buf()
                .map_err(|e| Error::io_at(&batches.path, &e))?;
            if buffer.len() < 4 || buffer[..4] != [0; 4] {
                break;
            }
            batches.input.consume(4);
            if let Some(left) = &mut batches.left {
                *left = left.saturating_sub(4);
            }
        }
    }
    // The first message is the schema.
    match batches.next_message()? {
        Some(None) if batches.schema.is_some() => {}
        _ => return Err(batches.invalid("no schema first (not an Arrow IPC input?)")),
    }
    let schema = batches.schema.clone().expect("read above");
    Ok((schema, batches))
}

impl IpcBatches {
    fn invalid(&self, text: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {text}", self.path.display()))
    }

    fn truncated(&self) -> Error {
        self.invalid("not a complete Arrow IPC file or stream (truncated?)")
    }

    /// Reads exactly `buffer`'s length; an early end is a truncated input.
    fn read_exact(&mut self, buffer: &mut [u8]) -> Result<(), Error> {
        match self.input.read_exact(buffer) {
            Ok(()) => {
                if let Some(left) = &mut self.left {
                    *left = left.saturating_sub(buffer.len() as u64);
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(self.truncated()),
            Err(e) => Err(Error::io_at(&self.path, &e)),
        }
    }

    /// A length of `what` that must fit in the memory limit and in what is
    /// left of the file.
    fn check_length(&self, length: u64, what: &str) -> Result<(), Error> {
        if self.left.is_some_and(|left| length > left) {
            return Err(self.truncated());
        }
        if length > self.limits.memory {
            return Err(self.invalid(format!(
                "{what} of {} MiB is larger than the memory limit; raise the memory limit \
                 (--memory)",
                length >> 20
            )));
        }
        Ok(())
    }

    /// Reads the next message and decodes it: a batch, or none for a
    /// schema or dictionary; `Ok(None)` at the end (`done`).
    fn next_message(&mut self) -> Result<Option<Option<RecordBatch>>, Error> {
        if self.done {
            return Ok(None);
        }
        let mut word = [0u8; 4];
        match self.input.read(&mut word[..1]) {
            Ok(0) => {
                // A stream may end without its end marker.
                self.done = true;
                return Ok(None);
            }
            Ok(_) => self.read_exact(&mut word[1..])?,
            Err(e) => return Err(Error::io_at(&self.path, &e)),
        }
        if word == CONTINUATION {
            self.read_exact(&mut word)?;
        }
        let size = u32::from_le_bytes(word);
        if size == 0 {
            self.done = true;
            return Ok(None);
        }
        if size > i32::MAX as u32 {
            return Err(self.invalid(format!("a message's metadata claims {size} bytes")));
        }
        self.check_length(u64::from(size), "a message's metadata")?;
        let mut meta = vec![0u8; size as usize];
        self.read_exact(&mut meta)?;
        let message = arrow::ipc::root_as_message(&meta)
            .map_err(|e| self.invalid(format!("a corrupt message: {e}")))?;
        let body_length = u64::try_from(message.bodyLength()).map_err(|_| {
            self.invalid(format!("a message body of {} bytes", message.bodyLength()))
        })?;
        self.check_length(body_length, "a message body")?;
        let mut body = vec![0u8; body_length as usize];
        self.read_exact(&mut body)?;
        self.check_body(&message, &body)?;
        let body = Buffer::from(body);
        let version = message.version();
        // The bytes are read: any error of the decoders (an I/O error of
        // an LZ4 decompression too) is one of the data.
        let path = self.path.clone();
        let failed =
            |e: arrow::error::ArrowError| Error::invalid(format!("{}: {e}", path.display()));
        match message.header_type() {
            MessageHeader::Schema => {
                if self.schema.is_some() {
                    return Err(self.invalid("a second schema"));
                }
                let schema = message.header_as_schema().expect("a schema message");
                let schema = arrow::ipc::convert::try_fb_to_schema(schema).map_err(failed)?;
                self.schema = Some(Arc::new(schema));
                Ok(Some(None))
            }
            MessageHeader::RecordBatch => {
                let schema = self
                    .schema
                    .clone()
                    .ok_or_else(|| self.invalid("a batch before the schema"))?;
                let batch = message.header_as_record_batch().expect("a batch message");
                let batch =
                    read_record_batch(&body, batch, schema, &self.dictionaries, None, &version)
                        .map_err(failed)?;
                Ok(Some(Some(batch)))
            }
            MessageHeader::DictionaryBatch => {
                let schema = self
                    .schema
                    .clone()
                    .ok_or_else(|| self.invalid("a dictionary before the schema"))?;
                let dictionary = message
                    .header_as_dictionary_batch()
                    .expect("a dictionary message");
                read_dictionary(&body, dictionary, &schema, &mut self.dictionaries, &version)
                    .map_err(failed)?;
                Ok(Some(None))
            }
            MessageHeader::NONE => Ok(Some(None)),
            other => Err(self.invalid(format!("an unsupported message ({other:?})"))),
        }
    }

    /// A batch's buffers lie in its body, and its decompressed buffers fit
    /// in the memory limit.
    fn check_body(&self, message: &arrow::ipc::Message<'_>, body: &[u8]) -> Result<(), Error> {
        let batch = message
            .header_as_record_batch()
            .or_else(|| message.header_as_dictionary_batch().and_then(|d| d.data()));
        let Some(batch) = batch else {
            return Ok(());
        };
        let compressed = batch.compression().is_some();
        let mut decompressed = 0u64;
        for buffer in batch.buffers().into_iter().flatten() {
            let (offset, length) = (buffer.offset(), buffer.length());
            let end = offset.checked_add(length);
            if offset < 0 || length < 0 || end.is_none_or(|end| end as u64 > body.len() as u64) {
                return Err(self.invalid(format!(
                    "a buffer at {offset} of {length} bytes lies outside its message's body \
                     of {} bytes",
                    body.len()
                )));
            }
            if compressed && length >= 8 {
                let at = offset as usize;
                let prefix = i64::from_le_bytes(body[at..at + 8].try_into().expect("8 bytes"));
                if prefix > 0 {
                    decompressed = decompressed.saturating_add(prefix as u64);
                }
            }
        }
        if decompressed > self.limits.memory {
            return Err(self.invalid(format!(
                "a compressed batch claims {} MiB uncompressed, more than the memory limit; \
                 raise the memory limit (--memory)",
                decompressed >> 20
            )));
        }
        Ok(())
    }
}

impl Iterator for IpcBatches {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_message() {
                Ok(Some(Some(batch))) => return Some(Ok(batch)),
                Ok(Some(None)) => {}
                Ok(None) => return None,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
