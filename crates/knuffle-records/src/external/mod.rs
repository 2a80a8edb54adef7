//! External mode: shuffle inputs larger than memory, in bounded memory.
//!
//! # The method: scatter, then shuffle each bucket
//!
//! **Pass 1 (scatter).** The input is read with bounded buffers; every
//! record gets an independent, uniformly random label among `B` buckets
//! (`B = 2^k`, a label is `k` fresh random bits, see `labels.rs`) and is
//! appended to that bucket's temporary file. **Pass 2 (gather).** Each
//! bucket in turn is read into memory, its records are put in uniformly
//! random order with `knuffle::shuffle` (Durstenfeld), and written out;
//! bucket 0 first, then bucket 1, and so on.
//!
//! **Why every order is exactly equally likely** (Rao 1961, Sandelius 1962;
//! the same argument as Sanders 1998 and Penschuck 2023 for in-memory
//! bucket shuffles). Take `n` records and any fixed output order `π`. Pass
//! 2 writes the buckets in order, so the output is `π` exactly when (a) the
//! labels are non-decreasing along `π`, i.e. the first `c_0` records of `π`
//! went to bucket 0, the next `c_1` to bucket 1, ..., for some bucket sizes
//! `c_0 + ... + c_{B-1} = n`, and (b) each bucket's shuffle put its records
//! in `π`'s order. For given sizes `c`, (a) has probability `B^-n` (the
//! labels are independent and uniform: exactly one labelling of `n`
//! records), and given (a), (b) has probability `1/(c_0! ... c_{B-1}!)`
//! (the shuffles are uniform and independent). So
//! `P(π) = Σ_c B^-n / (c_0! ... c_{B-1}!) = B^-n · B^n / n! = 1/n!`,
//! by the multinomial theorem (`Σ_c n!/(c_0!...c_{B-1}!) = B^n`). The sum
//! does not depend on `π`: every one of the `n!` orders has probability
//! exactly `1/n!`. Records arrive in pass 1 in input order, so the order
//! inside a bucket file is not random; pass 2's full shuffle makes that
//! irrelevant.
//!
//! **Buckets too big for memory.** A bucket whose bytes plus index exceed
//! the pass-2 budget is scattered again into `B` sub-buckets by the same
//! method; by the same argument (applied to that bucket) its records still
//! come out in uniform order. A bucket holding a single record is copied
//! out through a bounded buffer, which is how a record longer than the
//! memory limit passes through: nothing is lost or duplicated, and memory
//! stays bounded whatever the record lengths.
//!
//! # Bounds
//!
//! Memory: the plan (`plan.rs`) splits the limit between the read buffers, the
//! output buffer, `B` bucket write buffers (pass 1) and the two buckets in
//! flight in pass 2 (one mapped and shuffled, one being written, each
//! within its budget); inputs are read with `read(2)` into bounded buffers,
//! never memory-mapped (mapped pages count as resident). File descriptors:
//! at most `B <= 256` bucket files per scatter level, created on first use
//! (a bucket scattered again keeps its level's others open: the default
//! limit of 1024 allows three levels; the programs raise the soft limit,
//! and glibc's allocator is told to return freed buffers at once, by
//! `knuffle_io::process`, never here). Temporary files are nameless from
//! the start (see knuffle-io's `temp.rs`).
//!
//! # Reproducibility
//!
//! The output is a function of the generator's stream, the memory limit
//! (it fixes `B` and the pass-2 budget, see `plan.rs`) and the input bytes:
//! the same seed and the same `--memory` give the same order, whether the
//! input came from a file or a pipe. A different limit gives a different
//! (equally uniform) order, and so does in-memory mode.

mod gather;
mod input;
mod labels;
mod plan;
mod scatter;
mod sink;

use std::io::Write;
use std::path::PathBuf;

use rand_core::Rng;

pub use input::Input;
pub use knuffle_io::temp::temp_dir;
pub use plan::Plan;

use crate::error::Error;
use crate::progress::Progress;
use gather::gather;
use input::Feeder;
use knuffle_io::temp::TempSpace;
use scatter::Scatter;
use sink::Sink;

use crate::options::HeadCount;

/// The settings of an external shuffle.
#[derive(Clone, Debug)]
pub struct ExternalConfig {
    /// The memory limit in bytes (at least [`MIN_LIMIT`](knuffle_io::MIN_LIMIT) is used).
    pub memory: u64,
    /// Where the temporary bucket files go.
    pub temp_dir: PathBuf,
    /// The record delimiter: `b'\n'`, or `0` for `-z`.
    pub delimiter: u8,
    /// This many records at the start of the first input are written
    /// first, as they are (`--header N`).
    pub header: u64,
    /// Write at most this many records (`-n`).
    pub count: HeadCount,
}

/// What an external shuffle did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Records written (header lines not counted).
    pub records: u64,
    /// Buckets per scatter level.
    pub buckets: usize,
    /// Scatter levels used (1, or more when some bucket was scattered again).
    pub depth: usize,
}

/// Shuffles the records of `inputs` (concatenated; each input's last
/// record ends with a delimiter in the output even when the input did not)
/// and writes them to `out`, using about `config.memory` bytes of memory
/// and temporary files in `config.temp_dir`.
///
/// Bytes read and written are reported to `progress`.
pub fn shuffle_external<R: Rng + Send + ?Sized>(
    inputs: Vec<Input>,
    config: &ExternalConfig,
    rng: &mut R,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<Stats, Error> {
    shuffle_in_blocks(inputs, config, rng, out, progress, None)
}

/// [`shuffle_external`], with pass 2's output blocks of `block_bytes`
/// (`None`: half the plan's output buffer; tests use tiny blocks, which
/// must give the same bytes).
fn shuffle_in_blocks<R: Rng + Send + ?Sized>(
    inputs: Vec<Input>,
    config: &ExternalConfig,
    rng: &mut R,
    out: &mut dyn Write,
    progress: &dyn Progress,
    block_bytes: Option<usize>,
) -> Result<Stats, Error> {
    let plan = Plan::for_limit(config.memory);
    let block_bytes = block_bytes.unwrap_or(plan.io_buffer / 2);
    let temp = TempSpace::new(config.temp_dir.clone())?;
    let mut sink = Sink::new(out, plan.io_buffer, config.count.get(), progress, &temp);

    let buckets = Scatter::run(&plan, plan.buckets, &temp, config.delimiter, |scatter| {
        let mut feeder = Feeder {
            scatter,
            sink: &mut sink,
            progress,
            delimiter: config.delimiter,
            header_left: config.header,
            in_header: false,
            io_buffer: plan.io_buffer,
        };
        feeder.feed_all(inputs, rng)
    })?;
    sink.release()?;
    let depth = gather(
        buckets,
        &plan,
        &temp,
        config.delimiter,
        &mut sink,
        rng,
        block_bytes,
    )?;
    sink.finish()?;
    Ok(Stats {
        records: sink.records(),
        buckets: plan.buckets,
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shuffle(
        input: &[u8],
        memory: u64,
        delimiter: u8,
        header: u64,
        seed: &str,
    ) -> (Vec<u8>, Stats) {
        shuffle_with(input, memory, delimiter, header, None, seed, None)
    }

    /// Shuffles `input` with `-n count` and pass-2 blocks of `block_bytes`.
    fn shuffle_with(
        input: &[u8],
        memory: u64,
        delimiter: u8,
        header: u64,
        count: Option<u64>,
        seed: &str,
        block_bytes: Option<usize>,
    ) -> (Vec<u8>, Stats) {
        let config = ExternalConfig {
            memory,
            temp_dir: std::env::temp_dir(),
            delimiter,
            header,
            count: count.into(),
        };
        let mut out = Vec::new();
        let input = Input::reader(Box::new(std::io::Cursor::new(input.to_vec())));
        let stats = shuffle_in_blocks(
            vec![input],
            &config,
            &mut knuffle::Seed::from_text(seed).rng(),
            &mut out,
            &crate::NoProgress,
            block_bytes,
        )
        .unwrap();
        (out, stats)
    }

    #[test]
    fn the_output_blocks_never_change_the_bytes() {
        // Records of 0 to ~1,500 bytes (many longer than the small blocks,
        // so split across them) and three of 500 KB (longer than the
        // pass-2 budget at 1 MiB: a second scatter level, and single-record
        // buckets streamed in pieces), a header, with and without -n
        // (stopping inside a block). Blocks of 61 bytes and 4 KiB against
        // the default (half the output buffer).
        let mut input = Vec::new();
        for i in 0..2_000u32 {
            let len = match i {
                500 | 1_000 | 1_500 => 500_000,
                _ => (i.wrapping_mul(2_654_435_761) >> 20) as usize % 1_500,
            };
            input.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
            input.extend_from_slice(format!(" {i}\n").as_bytes());
        }
        for (memory, count, depth) in [
            (8 << 20, None, 1),
            (1 << 20, None, 2),
            (1 << 20, Some(1_777), 2),
        ] {
            let (expected, stats) = shuffle_with(&input, memory, b'\n', 2, count, "b", None);
            assert_eq!(stats.records, count.unwrap_or(1_998));
            assert!(stats.depth >= depth && (depth > 1) == (stats.depth > 1));
            assert_eq!(expected.len() < input.len(), count.is_some());
            for block in [61, 4 << 10] {
                let (out, _) = shuffle_with(&input, memory, b'\n', 2, count, "b", Some(block));
                assert!(out == expected, "{memory} {count:?} {block}");
            }
        }
    }

    fn sorted_records(bytes: &[u8], delimiter: u8) -> Vec<&[u8]> {
        let mut records: Vec<&[u8]> = bytes.split_inclusive(|&b| b == delimiter).collect();
        records.sort();
        records
    }

    #[test]
    fn output_is_a_permutation_and_reproducible() {
        let input: Vec<u8> = (0..100_000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let (out, stats) = shuffle(&input, 1 << 20, b'\n', 0, "p");
        assert_eq!(stats.records, 100_000);
        assert_ne!(out, input);
        assert_eq!(sorted_records(&out, b'\n'), sorted_records(&input, b'\n'));
        assert_eq!(shuffle(&input, 1 << 20, b'\n', 0, "p").0, out);
        assert_ne!(shuffle(&input, 1 << 20, b'\n', 0, "q").0, out);
    }

    #[test]
    fn long_records_and_missing_final_delimiter() {
        let mut input = Vec::new();
        for i in 0..40u8 {
            input.extend(std::iter::repeat_n(
                b'a' + i % 26,
                100_000 * (i as usize % 5),
            ));
            input.push(0);
        }
        input.extend_from_slice(b"\xff\xfe last");
        let (out, stats) = shuffle(&input, 1 << 20, 0, 0, "long");
        assert!(stats.depth >= 2, "{stats:?}");
        let mut expected = input.clone();
        expected.push(0);
        assert_eq!(sorted_records(&out, 0), sorted_records(&expected, 0));
    }

    /// Chi-square statistic of `counts` against equal expectations.
    fn chi_square(counts: &[u64]) -> f64 {
        let expected = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }

    /// The index of an order of the records `a`..`d` (Lehmer code).
    fn rank(order: &[u8]) -> usize {
        let mut rank = 0;
        for i in 0..order.len() {
            let smaller = order[i + 1..].iter().filter(|&&x| x < order[i]).count();
            rank = rank * (order.len() - i) + smaller;
        }
        rank
    }

    #[test]
    fn every_order_is_equally_likely_and_a_biased_variant_is_caught() {
        // 4 records, 32 buckets (1 MiB limit): 2,400 runs, 100 per order.
        // Critical value of chi-square with 23 degrees of freedom at
        // p = 0.001: 49.73. Fixed seeds: the outcome is deterministic.
        const RUNS: usize = 2_400;
        const CRITICAL: f64 = 49.73;
        let config = ExternalConfig {
            memory: 1 << 20,
            temp_dir: std::env::temp_dir(),
            delimiter: b'\n',
            header: 0,
            count: HeadCount::All,
        };
        let mut rng = knuffle::Seed::from_text("uniformity").rng();
        let mut counts = [0u64; 24];
        for _ in 0..RUNS {
            let input = Input::reader(Box::new(&b"a\nb\nc\nd\n"[..]));
            let mut out = Vec::new();
            shuffle_external(vec![input], &config, &mut rng, &mut out, &crate::NoProgress).unwrap();
            let order: Vec<u8> = out.iter().copied().filter(|&b| b != b'\n').collect();
            counts[rank(&order)] += 1;
        }
        let fair = chi_square(&counts);
        assert!(
            fair < CRITICAL,
            "external shuffle looks biased: {fair} {counts:?}"
        );

        // The classic wrong shuffle (swap each position with any
        // position: 4^4 = 256 equally likely paths onto 24 orders, so the
        // orders get 8 to 15 paths each) must be caught by the same test.
        let mut biased = [0u64; 24];
        for _ in 0..RUNS {
            let mut order = *b"abcd";
            for i in 0..4 {
                let j = knuffle::below(4, &mut rng) as usize;
                order.swap(i, j);
            }
            biased[rank(&order)] += 1;
        }
        let unfair = chi_square(&biased);
        eprintln!("chi-square: external {fair:.1}, biased variant {unfair:.1}");
        assert!(
            unfair > CRITICAL,
            "the biased variant was not caught: {unfair}"
        );
    }

    #[test]
    fn header_records_come_first() {
        let input = b"h1\nh2\na\nb\nc\nd\n";
        let (out, _) = shuffle(input, 1 << 20, b'\n', 2, "h");
        assert!(out.starts_with(b"h1\nh2\n"));
        assert_eq!(sorted_records(&out, b'\n'), sorted_records(input, b'\n'));
    }
}
