//! Side-by-side shuffle benchmark: knuffle against rand 0.9 and rip_shuffle
//! 0.2, all with the same generator algorithm (Pcg64Mcg from each crate's
//! matching rand_pcg; ChaCha20 for the 52-card deck), medians in one process.
//!
//! ```text
//! cargo bench -p knuffle-benches --bench shuffle              # full run (n up to 10^8)
//! cargo bench -p knuffle-benches --bench shuffle -- --quick   # n up to 10^7, fewer repetitions
//! cargo bench -p knuffle-benches --bench shuffle -- --only 100000000
//! cargo bench -p knuffle-benches --bench shuffle -- --only 300000000  # any n (u64)
//! cargo bench -p knuffle-benches --bench shuffle -- --only 1000000000 --u32  # any n of u32
//! cargo bench -p knuffle-benches --bench shuffle -- --rip-bias   # rip_shuffle's first-position bias
//! ```
//!
//! The contestants take turns, round after round, on the same array (a
//! slow spell of the shared machine then hits all of them alike). Each line
//! gives a contestant's median time per element over the rounds; the
//! speed-ups are anchor median / knuffle median. A streaming copy of the
//! same array is the memory yardstick.

use std::hint::black_box;
use std::time::Instant;

use rand_pcg::rand_core::SeedableRng as _;

const SEED: u64 = 0x5eed_cafe_f00d_d00d;

struct Options {
    quick: bool,
    /// `--u32`: the `--only` size with u32 elements instead of u64.
    u32: bool,
    only: Option<usize>,
    rip_bias: bool,
}

fn options() -> Options {
    let mut quick = false;
    let mut u32 = false;
    let mut only = None;
    let mut rip_bias = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--u32" => u32 = true,
            "--rip-bias" => rip_bias = true,
            "--only" => {
                let value = args.next().expect("--only needs a size");
                only = Some(value.parse().expect("--only needs a number"));
            }
            "--bench" => {}
            other => eprintln!("ignoring argument {other:?}"),
        }
    }
    Options {
        quick,
        u32,
        only,
        rip_bias,
    }
}

/// One contestant: a name and a function that shuffles the shared data
/// the given number of times (inside one thread-pool entry, for the
/// parallel ones).
type Contestant<'a, T> = (String, Box<dyn FnMut(&mut [T], usize) + 'a>);

/// A contestant that calls `run` once per repetition.
fn contestant<'a, T>(name: &str, mut run: impl FnMut(&mut [T]) + 'a) -> Contestant<'a, T> {
    (
        name.to_string(),
        Box::new(move |data: &mut [T], times: usize| {
            for _ in 0..times {
                run(black_box(&mut *data));
            }
        }),
    )
}

/// A contestant that runs on `pool`, entered once per timing.
fn pooled<'a, T: Send>(
    name: &str,
    pool: &'a rayon::ThreadPool,
    mut run: impl FnMut(&mut [T]) + Send + 'a,
) -> Contestant<'a, T> {
    (
        name.to_string(),
        Box::new(move |data: &mut [T], times: usize| {
            pool.install(|| {
                for _ in 0..times {
                    run(black_box(&mut *data));
                }
            })
        }),
    )
}

/// Runs the contestants in turn, `rounds` times (after one warm-up round;
/// round `r` starts with contestant `r mod count`),
/// every timing `inner` calls long, and returns each one's median time per
/// `unit` (element or call), in nanoseconds. Taking turns matters on a
/// shared machine: a slow spell hits every contestant alike instead of
/// whichever happened to run during it.
fn race<T>(
    data: &mut [T],
    rounds: usize,
    inner: usize,
    units: usize,
    contestants: &mut [Contestant<'_, T>],
) -> Vec<f64> {
    for (_, run) in contestants.iter_mut() {
        run(data, 1); // warm-up: page faults, caches, thread pools
    }
    let mut times = vec![Vec::with_capacity(rounds); contestants.len()];
    let count = contestants.len();
    for round in 0..rounds {
        // Each round starts with the next contestant, so that no one always
        // runs right after the streaming copy (which leaves the caches cold).
        for turn in 0..count {
            let which = (round + turn) % count;
            let start = Instant::now();
            (contestants[which].1)(data, inner);
            times[which].push(start.elapsed().as_secs_f64() * 1e9 / (inner * units) as f64);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

fn knuffle_rng() -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(SEED)
}
fn rand09_rng() -> rand_pcg09::Pcg64Mcg {
    use rand_pcg09::rand_core::SeedableRng;
    rand_pcg09::Pcg64Mcg::seed_from_u64(SEED)
}
fn rip_rng() -> rand_pcg03::Pcg64Mcg {
    use rand08::SeedableRng;
    rand_pcg03::Pcg64Mcg::seed_from_u64(SEED)
}

/// One array size: knuffle sequential and parallel (1 and 2 threads)
/// against rand 0.9 and rip_shuffle, and a streaming copy, taking turns.
fn bench_array<T: Send + Sync + Copy + Default>(
    name: &str,
    n: usize,
    rounds: usize,
    make: impl Fn(usize) -> T,
) {
    use rand09::seq::SliceRandom as _;
    use rip_shuffle::{RipShuffleParallel as _, RipShuffleSequential as _};

    let mut data: Vec<T> = (0..n).map(&make).collect();
    let mut copy_target: Vec<T> = vec![T::default(); n];
    println!(
        "n = {n} {name} ({} bytes each), median of {rounds} rounds",
        size_of::<T>()
    );
    let (pool1, pool2) = (pool(1), pool(2));
    let (mut ours, mut ours1, mut ours2) = (knuffle_rng(), knuffle_rng(), knuffle_rng());
    let mut rand = rand09_rng();
    let (mut rip_seq, mut rip_par) = (rip_rng(), rip_rng());
    let mut contestants: Vec<Contestant<'_, T>> = vec![
        contestant("knuffle::shuffle", |d| knuffle::shuffle(d, &mut ours)),
        pooled("knuffle::par_shuffle, 1 thread", &pool1, |d| {
            knuffle::par_shuffle(d, &mut ours1)
        }),
        pooled("knuffle::par_shuffle, 2 threads", &pool2, |d| {
            knuffle::par_shuffle(d, &mut ours2)
        }),
        contestant("rand 0.9 shuffle", |d| d.shuffle(&mut rand)),
        contestant("rip_shuffle seq_shuffle", |d| d.seq_shuffle(&mut rip_seq)),
        pooled("rip_shuffle par_shuffle, 2 threads", &pool2, |d| {
            d.par_shuffle(&mut rip_par)
        }),
        contestant("streaming copy (yardstick)", |d| {
            copy_target.copy_from_slice(d)
        }),
    ];
    let inner = (1_000_000 / n).max(1);
    let ns = race(&mut data, rounds, inner, n, &mut contestants);
    for ((name, _), ns) in contestants.iter().zip(&ns) {
        println!("  {name:<36} {ns:>8.2} ns/elem");
    }
    let (seq, par1, par2, rand, rip_seq, rip_par) = (ns[0], ns[1], ns[2], ns[3], ns[4], ns[5]);
    println!(
        "  speed-up (anchor / knuffle): vs rand 0.9 {:.2}x (seq), {:.2}x (2 threads); \
         vs rip_shuffle {:.2}x (seq / seq), {:.2}x (par 1 thread / seq), {:.2}x (2 threads / 2 threads)",
        rand / seq,
        rand / par2,
        rip_seq / seq,
        rip_seq / par1,
        rip_par / par2
    );
}

/// The 52-card deck: knuffle's default ChaCha20 against rand 0.9 with
/// rand_chacha 0.9's ChaCha20, and both with Pcg64Mcg, taking turns.
fn bench_deck(rounds: usize) {
    use rand09::seq::SliceRandom as _;
    let batch = 20_000;
    println!("n = 52 u32 (one deck), median of {rounds} rounds of {batch} shuffles");
    let mut deck: Vec<u32> = (0..52).collect();
    let mut ours_chacha = knuffle::Seed::from_text("bench").rng();
    let mut rand_chacha = {
        use rand_chacha09::rand_core::SeedableRng;
        rand_chacha09::ChaCha20Rng::seed_from_u64(SEED)
    };
    let mut ours_pcg = knuffle_rng();
    let mut rand_pcg = rand09_rng();
    let mut contestants: Vec<Contestant<'_, u32>> = vec![
        contestant("knuffle::shuffle, DefaultRng (ChaCha20)", |d| {
            knuffle::shuffle(d, &mut ours_chacha)
        }),
        contestant("rand 0.9 shuffle, ChaCha20Rng", |d| {
            d.shuffle(&mut rand_chacha)
        }),
        contestant("knuffle::shuffle, Pcg64Mcg", |d| {
            knuffle::shuffle(d, &mut ours_pcg)
        }),
        contestant("rand 0.9 shuffle, Pcg64Mcg", |d| d.shuffle(&mut rand_pcg)),
    ];
    let ns = race(&mut deck, rounds, batch, 1, &mut contestants);
    for ((name, _), ns) in contestants.iter().zip(&ns) {
        println!("  {name:<40} {ns:>8.1} ns/deck");
    }
    println!(
        "  speed-up (rand 0.9 / knuffle): ChaCha20 {:.2}x, Pcg64Mcg {:.2}x",
        ns[1] / ns[0],
        ns[3] / ns[2]
    );
}

/// How often output[0] comes from the first 1/128 of the input, at
/// n = 2^20, for rip_shuffle and knuffle (expected 1/128 = 0.78%).
fn first_position_bias(trials: usize) {
    use rip_shuffle::{RipShuffleParallel as _, RipShuffleSequential as _};
    let n = 1usize << 20;
    let block = (n / 128) as u32;
    let mut data: Vec<u32> = Vec::with_capacity(n);
    let mut count = |shuffle: &mut dyn FnMut(&mut [u32])| {
        let mut hits = 0;
        for _ in 0..trials {
            data.clear();
            data.extend(0..n as u32);
            shuffle(&mut data);
            hits += usize::from(data[0] < block);
        }
        100.0 * hits as f64 / trials as f64
    };
    println!(
        "output[0] from the first 1/128 of the input, n = 2^20, {trials} trials (expected 0.78%):"
    );
    let mut rng = rip_rng();
    println!(
        "  rip_shuffle seq_shuffle  {:>6.2}%",
        count(&mut |d| d.seq_shuffle(&mut rng))
    );
    let mut rng = rip_rng();
    println!(
        "  rip_shuffle par_shuffle  {:>6.2}%",
        count(&mut |d| d.par_shuffle(&mut rng))
    );
    let mut rng = knuffle_rng();
    println!(
        "  knuffle::shuffle         {:>6.2}%",
        count(&mut |d| knuffle::shuffle(d, &mut rng))
    );
    let mut rng = knuffle_rng();
    println!(
        "  knuffle::par_shuffle     {:>6.2}%",
        count(&mut |d| knuffle::par_shuffle(d, &mut rng))
    );
}

fn main() {
    let options = options();
    if options.rip_bias {
        first_position_bias(if options.quick { 500 } else { 2000 });
        return;
    }
    let mut sizes: &[usize] = if options.quick {
        &[1_000, 100_000, 1_000_000, 10_000_000]
    } else {
        &[1_000, 100_000, 1_000_000, 10_000_000, 100_000_000]
    };
    // `--only` another size: that size alone (e.g. 3 x 10^8, where the
    // scatter is one level of 256 buckets of up to 16 MiB).
    let other;
    if let Some(only) = options.only.filter(|n| *n != 52 && !sizes.contains(n)) {
        other = [only];
        sizes = &other;
    }
    let reps_for = |n: usize| -> usize {
        let base = if n >= 500_000_000 {
            3
        } else if n >= 100_000_000 {
            7
        } else if n >= 10_000_000 {
            11
        } else {
            31
        };
        if options.quick { base.min(5) } else { base }
    };
    let started = Instant::now();
    if options.only.is_none() || options.only == Some(52) {
        bench_deck(if options.quick { 11 } else { 51 });
    }
    for &n in sizes {
        if options.only.is_some_and(|only| only != n) {
            continue;
        }
        let reps = reps_for(n);
        if options.u32 {
            bench_array::<u32>("u32", n, reps, |i| i as u32);
        } else {
            bench_array::<u64>("u64", n, reps, |i| i as u64);
        }
    }
    if options.only.is_none() || options.only == Some(10_000_000) {
        bench_array::<[u64; 4]>("[u64; 4]", 10_000_000, reps_for(10_000_000), |i| {
            [i as u64; 4]
        });
    }
    println!("total {:.1?}", started.elapsed());
}
