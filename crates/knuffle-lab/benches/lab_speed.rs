//! The lab's sampling speed: Durstenfeld shuffles of 4 items per second,
//! counted and ranked, on all cores (target: at least 100 million per
//! second on 2 cores; the .NET harness of "Shuffle things in .Net" (2009) did 10 million in 3.6 s).
//!
//! Anchors, side by side in this process: a plain single-thread loop of
//! `knuffle::shuffle` with the library's ChaCha20 generator (no counting),
//! and the .NET harness's figure. Medians of 5 runs.
//!
//! Run: `cargo bench -p knuffle-lab --bench lab_speed`

use std::time::Instant;

use knuffle_lab::sample::sample;
use knuffle_lab::zoo::Algorithm;

const TRIALS: u64 = 20_000_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn rate<F: FnMut()>(trials: u64, mut f: F) -> f64 {
    median(
        (0..5)
            .map(|_| {
                let start = Instant::now();
                f();
                trials as f64 / start.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn main() {
    let threads = rayon::current_num_threads();
    let lab = rate(TRIALS, || {
        let t = sample(Algorithm::FisherYates, 4, TRIALS, "bench", &|_| {});
        assert_eq!(t.trials(), TRIALS);
    });
    let naive = rate(TRIALS, || {
        let t = sample(Algorithm::NaiveSwap, 4, TRIALS, "bench", &|_| {});
        assert_eq!(t.trials(), TRIALS);
    });
    let plain_trials = TRIALS / 4;
    let plain = rate(plain_trials, || {
        let mut rng = knuffle::Seed::from_text("bench").rng();
        let mut deck = [0u8, 1, 2, 3];
        let mut sink = 0u64;
        for _ in 0..plain_trials {
            knuffle::shuffle(&mut deck, &mut rng);
            sink = sink.wrapping_add(u64::from(deck[0]));
        }
        std::hint::black_box(sink);
    });
    let seed_003 = 10_000_000.0 / 3.564;
    println!(
        "lab sampler, fisher-yates n=4 ({threads} threads): {:>7.1} M shuffles/s (median of 5)",
        lab / 1e6
    );
    println!(
        "lab sampler, naive-swap n=4   ({threads} threads): {:>7.1} M shuffles/s",
        naive / 1e6
    );
    println!(
        "anchor: knuffle::shuffle loop, ChaCha20, 1 thread: {:>7.1} M shuffles/s (ratio lab/anchor {:.2})",
        plain / 1e6,
        lab / plain
    );
    println!(
        "anchor: .NET harness (10M in 3.564 s):             {:>7.1} M shuffles/s (ratio lab/.NET {:.1})",
        seed_003 / 1e6,
        lab / seed_003
    );
    println!(
        "target: 100 M shuffles/s on 2 cores: {}",
        if lab >= 100e6 {
            "met"
        } else {
            "NOT met on this run"
        }
    );
}
