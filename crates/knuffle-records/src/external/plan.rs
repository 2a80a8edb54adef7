//! How a memory limit is split between the buffers of the two passes.
//!
//! Everything here is a function of the limit alone, so the shuffle's
//! output depends only on the seed, the memory limit and the input, never
//! on whether the input came from a file or a pipe, or on its size.

use crate::buffers::READ_BUFFERS;
use knuffle_io::MIN_LIMIT;

/// The most bucket files open at one level of the scatter.
pub const MAX_BUCKETS: usize = 256;

/// Bucket write buffers beyond one per bucket: full ones waiting for the
/// writer thread while parsing goes on.
pub const SPARE_BUFFERS: usize = 8;

/// The smallest write buffer per bucket worth having (smaller buffers mean
/// more, smaller writes).
const MIN_WRITE_BUFFER: u64 = 16 << 10;

/// The buffer sizes for a memory limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The memory limit in bytes.
    pub limit: u64,
    /// Size of each input read buffer (pass 1) and of the output buffer.
    pub io_buffer: usize,
    /// Number of buckets per scatter level: a power of two.
    pub buckets: usize,
    /// Write buffer per bucket (first level).
    pub write_buffer: usize,
    /// Memory for the bucket write buffers of one scatter.
    pub scatter_memory: u64,
    /// The most a bucket may take in pass 2 (its bytes plus its record
    /// index); two buckets are in memory at once (one loading, one being
    /// gathered into output blocks). A bigger bucket is scattered again.
    pub bucket_budget: u64,
}

impl Plan {
    /// The plan for `limit` bytes (raised to [`MIN_LIMIT`]).
    pub fn for_limit(limit: u64) -> Plan {
        let limit = limit.max(MIN_LIMIT);
        let io_buffer = (limit / 32).clamp(16 << 10, 2 << 20);
        // Pass 1: the read buffers, one output buffer (the header), the
        // bucket write buffers. Pass 2: two buckets, the output buffer and
        // the gatherer's three output blocks of half an I/O buffer each
        // (module `gather`), or, scattering a bucket again: one read
        // buffer, the bucket write buffers and the output buffer.
        let rest = limit - (READ_BUFFERS as u64 + 1) * io_buffer;
        let by_memory = (rest / MIN_WRITE_BUFFER).max(2);
        let buckets = (prev_power_of_two(by_memory) as usize).min(MAX_BUCKETS);
        let write_buffer = (rest / (buckets + SPARE_BUFFERS) as u64) as usize;
        Plan {
            limit,
            io_buffer: io_buffer as usize,
            buckets,
            write_buffer,
            scatter_memory: rest,
            bucket_budget: rest / 2,
        }
    }

    /// How many sub-buckets a bucket of `need` bytes (data and index)
    /// is scattered into again: about twice as many as the budget requires
    /// (a power of two, at most [`Plan::buckets`]), so that few files are
    /// created and their buffers are large.
    pub fn sub_buckets(&self, need: u64) -> usize {
        let wanted = need.div_ceil(self.bucket_budget).saturating_mul(2);
        (wanted.next_power_of_two().max(2) as usize).min(self.buckets)
    }

    /// The write buffer per bucket for a scatter into `buckets` buckets.
    pub fn write_buffer_for(&self, buckets: usize) -> usize {
        (self.scatter_memory / (buckets + SPARE_BUFFERS) as u64) as usize
    }
}

fn prev_power_of_two(x: u64) -> u64 {
    1 << (63 - x.leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_the_limit() {
        for limit in [0, 1 << 20, 3 << 20, 8 << 20, 100 << 20, 4 << 30, 1 << 40] {
            let plan = Plan::for_limit(limit);
            let limit = plan.limit;
            assert!(plan.buckets.is_power_of_two() && plan.buckets >= 2);
            assert!(plan.buckets <= MAX_BUCKETS);
            let pass1 = (READ_BUFFERS as u64 + 1) * plan.io_buffer as u64
                + ((plan.buckets + SPARE_BUFFERS) * plan.write_buffer) as u64;
            let pass2 =
                2 * plan.bucket_budget + plan.io_buffer as u64 + 3 * plan.io_buffer as u64 / 2;
            assert!(pass1 <= limit && pass2 <= limit, "{plan:?}");
            assert!(plan.write_buffer as u64 >= MIN_WRITE_BUFFER / 2);
        }
        let plan = Plan::for_limit(100 << 20);
        assert_eq!(plan.buckets, 256);
        assert_eq!(plan.write_buffer_for(256), plan.write_buffer);
        assert_eq!(plan.sub_buckets(plan.bucket_budget + 1), 4);
        assert_eq!(plan.sub_buckets(u64::MAX), 256);
    }
}
