//! Small batches held together merged as a binary counter merges: the last
//! two while the earlier is no longer than the later (and the two are
//! within a cap), so few batches are held, each row copied a logarithmic
//! number of times. Every batch costs an array per column and its
//! bookkeeping, whatever its rows: a wide table's rows, read or sampled a
//! few at a time, would otherwise take far more memory than the rows.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::Error;

/// Batches held before the small ones are merged.
pub(crate) const HELD_BATCHES: usize = 8;

/// Merges the last batches of `batches` (rows of `schema`) while the
/// earlier of the last two has no more rows than the later and both have
/// at most `cap_rows` rows together.
pub(crate) fn merge_small_tail(
    schema: &SchemaRef,
    batches: &mut Vec<RecordBatch>,
    cap_rows: usize,
) -> Result<(), Error> {
    while let [.., earlier, later] = batches.as_slice() {
        let rows = earlier.num_rows() + later.num_rows();
        if earlier.num_rows() > later.num_rows() || rows > cap_rows {
            break;
        }
        let merged = arrow::compute::concat_batches(schema, [earlier, later])
            .map_err(|e| Error::invalid(format!("internal: merging batches: {e}")))?;
        batches.truncate(batches.len() - 2);
        batches.push(merged);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Array, Int64Array};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn batch(schema: &SchemaRef, from: i64, rows: i64) -> RecordBatch {
        let values = Int64Array::from_iter_values(from..from + rows);
        RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap()
    }

    #[test]
    fn batches_merge_in_order_as_a_binary_counter_within_the_cap() {
        let schema: SchemaRef =
            Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
        let mut held = Vec::new();
        for i in 0..13 {
            held.push(batch(&schema, i, 1));
            merge_small_tail(&schema, &mut held, usize::MAX).unwrap();
        }
        // 13 = 8 + 4 + 1.
        let sizes: Vec<usize> = held.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [8, 4, 1]);
        let values: Vec<i64> = held
            .iter()
            .flat_map(|b| {
                let column = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                column.values().to_vec()
            })
            .collect();
        assert_eq!(values, (0..13).collect::<Vec<_>>());
        let mut capped = Vec::new();
        for i in 0..13 {
            capped.push(batch(&schema, i, 1));
            merge_small_tail(&schema, &mut capped, 4).unwrap();
        }
        let sizes: Vec<usize> = capped.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [4, 4, 4, 1]);
        assert!(capped.iter().all(|b| b.column(0).len() == b.num_rows()));
    }
}
