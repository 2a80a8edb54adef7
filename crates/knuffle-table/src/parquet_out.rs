//! A Parquet writer that encodes the columns of each batch in parallel
//! (the `parquet` crate's `ArrowColumnWriter`s, one per leaf column, on
//! rayon's threads), with the same schema, metadata and layout as the
//! crate's `ArrowWriter`: row groups of a fixed number of rows, ended
//! early only on request.

use std::io::Write;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{
    ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory, compute_leaves,
};
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedFileWriter;
use rayon::prelude::*;

use crate::layout::ParquetLayout;

type Result<T> = std::result::Result<T, ParquetError>;

/// A Parquet file being written, its columns encoded in parallel.
pub struct ParallelParquet<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    columns: Vec<ArrowColumnWriter>,
    schema: SchemaRef,
    group: usize,
    rows_in_group: usize,
    group_rows: usize,
}

impl<W: Write + Send> ParallelParquet<W> {
    /// A writer of `schema` into `sink` with `layout`'s compression, row
    /// groups and metadata.
    pub fn try_new(sink: W, schema: &SchemaRef, layout: &ParquetLayout) -> Result<Self> {
        // ArrowWriter sets up the file (the Arrow schema in the metadata,
        // the writer properties); its column writers are then ours.
        let (writer, factory) =
            ArrowWriter::try_new(sink, schema.clone(), Some(layout.properties()))?
                .into_serialized_writer()?;
        let columns = factory.create_column_writers(0)?;
        Ok(ParallelParquet {
            writer,
            factory,
            columns,
            schema: schema.clone(),
            group: 0,
            rows_in_group: 0,
            group_rows: layout.row_group_rows.max(1),
        })
    }

    /// Writes `batch`, ending row groups at their size.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let take = (self.group_rows - self.rows_in_group).min(batch.num_rows() - offset);
            self.encode(&batch.slice(offset, take))?;
            self.rows_in_group += take;
            offset += take;
            if self.rows_in_group == self.group_rows {
                self.end_row_group()?;
            }
        }
        Ok(())
    }

    fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut leaves: Vec<ArrowLeafColumn> = Vec::with_capacity(self.columns.len());
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            leaves.extend(compute_leaves(field, column)?);
        }
        self.columns
            .par_iter_mut()
            .zip(leaves.par_iter())
            .try_for_each(|(writer, leaf)| writer.write(leaf))
    }

    /// Bytes the row group in progress holds in memory.
    pub fn memory_size(&self) -> usize {
        self.columns
            .iter()
            .map(ArrowColumnWriter::memory_size)
            .sum()
    }

    /// Ends the row group in progress (if it has rows).
    pub fn end_row_group(&mut self) -> Result<()> {
        if self.rows_in_group == 0 {
            return Ok(());
        }
        self.group += 1;
        let next = self.factory.create_column_writers(self.group)?;
        let done = std::mem::replace(&mut self.columns, next);
        let chunks = done
            .into_par_iter()
            .map(ArrowColumnWriter::close)
            .collect::<Result<Vec<_>>>()?;
        let mut group = self.writer.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.rows_in_group = 0;
        Ok(())
    }

    /// Ends the last row group, writes the footer and gives the sink back.
    pub fn into_inner(mut self) -> Result<W> {
        self.end_row_group()?;
        self.writer.into_inner()
    }
}
