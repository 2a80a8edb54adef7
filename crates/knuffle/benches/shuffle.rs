//! Side-by-side shuffle benchmark: knuffle against rand 0.9 and rip_shuffle
//! 0.2, all with the same generator algorithm (Pcg64Mcg from each crate's
//! matching rand_pcg; ChaCha20 for the 52-card deck), medians in one process.
//!
//! ```text
//! cargo bench -p knuffle --bench shuffle              # full run (n up to 10^8)
//! cargo bench -p knuffle --bench shuffle -- --quick   # n up to 10^7, fewer repetitions
//! cargo bench -p knuffle --bench shuffle -- --only 100000000
//! cargo bench -p knuffle --bench shuffle -- --rip-bias   # rip_shuffle's first-position bias
//! ```
//!
//! Each line gives the median time per element over the repetitions and
//! the speed-up of knuffle over each anchor (anchor time / knuffle time).
//! A streaming copy of the same array is printed as the memory yardstick.

use std::hint::black_box;
use std::time::Instant;

use rand_pcg::rand_core::SeedableRng as _;

const SEED: u64 = 0x5eed_cafe_f00d_d00d;

struct Options {
    quick: bool,
    only: Option<usize>,
    rip_bias: bool,
}

fn options() -> Options {
    let mut quick = false;
    let mut only = None;
    let mut rip_bias = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
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
        only,
        rip_bias,
    }
}

/// Median of `reps` timings of `run`, in nanoseconds per element. Small
/// arrays are shuffled repeatedly inside one timing (at least 10^6
/// elements' worth) so that the clock's resolution does not matter.
fn median_ns_per_element(n: usize, reps: usize, mut run: impl FnMut()) -> f64 {
    let inner = (1_000_000 / n).max(1);
    run(); // warm-up: page faults, caches, thread pool
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..inner {
                run();
            }
            start.elapsed().as_secs_f64() * 1e9 / (n * inner) as f64
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}

/// For tiny inputs: time batches of `batch` shuffles.
fn median_ns_per_call(reps: usize, batch: usize, mut run: impl FnMut()) -> f64 {
    for _ in 0..batch {
        run();
    }
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                run();
            }
            start.elapsed().as_secs_f64() * 1e9 / batch as f64
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
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

fn print_row(label: &str, ns: f64, ours: f64) {
    println!(
        "  {label:<34} {ns:>9.2} ns/elem   knuffle speed-up {:>6.2}x",
        ns / ours
    );
}

/// One array size: knuffle sequential and parallel (1 and 2 threads)
/// against rand 0.9 and rip_shuffle.
fn bench_array<T: Send + Sync + Copy + Default>(
    name: &str,
    n: usize,
    reps: usize,
    make: impl Fn(usize) -> T,
) {
    use rand09::seq::SliceRandom as _;
    use rip_shuffle::{RipShuffleParallel as _, RipShuffleSequential as _};

    let mut data: Vec<T> = (0..n).map(&make).collect();
    let mut copy_target: Vec<T> = vec![T::default(); n];
    println!(
        "n = {n} {name} ({} bytes each), median of {reps}",
        size_of::<T>()
    );

    let mut rng = knuffle_rng();
    let ours = median_ns_per_element(n, reps, || knuffle::shuffle(black_box(&mut data), &mut rng));
    println!("  {:<34} {ours:>9.2} ns/elem", "knuffle::shuffle");
    let mut ours_par = Vec::new();
    for threads in [1, 2] {
        let pool = pool(threads);
        let mut rng = knuffle_rng();
        let ns = pool.install(|| {
            median_ns_per_element(n, reps, || {
                knuffle::par_shuffle(black_box(&mut data), &mut rng)
            })
        });
        println!(
            "  {:<34} {ns:>9.2} ns/elem",
            format!("knuffle::par_shuffle, {threads} thread(s)")
        );
        ours_par.push(ns);
    }

    let mut rng = rand09_rng();
    let ns = median_ns_per_element(n, reps, || black_box(&mut data[..]).shuffle(&mut rng));
    print_row("rand 0.9 shuffle (vs knuffle seq)", ns, ours);
    print_row("rand 0.9 shuffle (vs knuffle par 2)", ns, ours_par[1]);

    let mut rng = rip_rng();
    let ns = median_ns_per_element(n, reps, || black_box(&mut data[..]).seq_shuffle(&mut rng));
    print_row("rip_shuffle seq_shuffle (vs seq)", ns, ours);
    let mut rng = rip_rng();
    let ns = median_ns_per_element(n, reps, || black_box(&mut data[..]).seq_shuffle(&mut rng));
    print_row("rip_shuffle seq_shuffle (vs par 1)", ns, ours_par[0]);
    let pool2 = pool(2);
    let mut rng = rip_rng();
    let ns = pool2.install(|| {
        median_ns_per_element(n, reps, || black_box(&mut data[..]).par_shuffle(&mut rng))
    });
    print_row("rip_shuffle par_shuffle, 2 threads", ns, ours_par[1]);

    let ns = median_ns_per_element(n, reps, || copy_target.copy_from_slice(black_box(&data)));
    println!(
        "  {:<34} {ns:>9.2} ns/elem   (memory yardstick)",
        "streaming copy"
    );
    black_box(&copy_target);
}

/// The 52-card deck: knuffle's default ChaCha20 against rand 0.9 with
/// rand_chacha 0.9's ChaCha20 (and both with Pcg64Mcg).
fn bench_deck(reps: usize) {
    use rand09::seq::SliceRandom as _;
    let batch = 20_000;
    println!("n = 52 u32 (one deck), median of {reps} batches of {batch}");
    let mut deck: Vec<u32> = (0..52).collect();

    let mut rng = knuffle::Seed::from_text("bench").rng();
    let ours = median_ns_per_call(reps, batch, || {
        knuffle::shuffle(black_box(&mut deck), &mut rng)
    });
    println!(
        "  {:<34} {ours:>9.1} ns/deck",
        "knuffle::shuffle, DefaultRng"
    );
    let mut rng = {
        use rand_chacha09::rand_core::SeedableRng;
        rand_chacha09::ChaCha20Rng::seed_from_u64(SEED)
    };
    let ns = median_ns_per_call(reps, batch, || black_box(&mut deck[..]).shuffle(&mut rng));
    println!(
        "  {:<34} {ns:>9.1} ns/deck   knuffle speed-up {:>6.2}x",
        "rand 0.9 shuffle, ChaCha20Rng",
        ns / ours
    );

    let mut rng = knuffle_rng();
    let ours = median_ns_per_call(reps, batch, || {
        knuffle::shuffle(black_box(&mut deck), &mut rng)
    });
    println!("  {:<34} {ours:>9.1} ns/deck", "knuffle::shuffle, Pcg64Mcg");
    let mut rng = rand09_rng();
    let ns = median_ns_per_call(reps, batch, || black_box(&mut deck[..]).shuffle(&mut rng));
    println!(
        "  {:<34} {ns:>9.1} ns/deck   knuffle speed-up {:>6.2}x",
        "rand 0.9 shuffle, Pcg64Mcg",
        ns / ours
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
    let sizes: &[usize] = if options.quick {
        &[1_000, 100_000, 1_000_000, 10_000_000]
    } else {
        &[1_000, 100_000, 1_000_000, 10_000_000, 100_000_000]
    };
    let reps_for = |n: usize| -> usize {
        let base = if n >= 100_000_000 {
            5
        } else if n >= 10_000_000 {
            9
        } else {
            31
        };
        if options.quick { base.min(5) } else { base }
    };
    let started = Instant::now();
    if options.only.is_none() || options.only == Some(52) {
        bench_deck(if options.quick { 11 } else { 31 });
    }
    for &n in sizes {
        if options.only.is_some_and(|only| only != n) {
            continue;
        }
        let reps = reps_for(n);
        bench_array::<u64>("u64", n, reps, |i| i as u64);
    }
    if options.only.is_none() || options.only == Some(10_000_000) {
        bench_array::<[u64; 4]>("[u64; 4]", 10_000_000, reps_for(10_000_000), |i| {
            [i as u64; 4]
        });
    }
    println!("total {:.1?}", started.elapsed());
}
