//! `par_shuffle` gives exactly the permutation of `shuffle` for the same
//! generator state, whatever the number of threads, and leaves the
//! generator in the same state.
#![cfg(feature = "parallel")]

use knuffle::rand_core::Rng;
use knuffle::{
    Seed, ShuffleConfig, par_shuffle, par_shuffle_with_config, shuffle, shuffle_with_config,
};

fn in_pool<T: Send>(threads: usize, job: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
        .install(job)
}

#[test]
fn par_shuffle_equals_shuffle_at_default_thresholds() {
    let direct = ShuffleConfig::for_type::<u32>().direct_len;
    // Around the direct/scatter switch (16 MiB: 2 Mi elements of size
    // class 8), and past it.
    for n in [0, 1, 52, direct - 1, direct, direct + 1, direct + 3_000_017] {
        let seed = Seed::from_text(&format!("par-eq-{n}"));
        let mut expected: Vec<u32> = (0..n as u32).collect();
        let mut rng = seed.rng();
        shuffle(&mut expected, &mut rng);
        let after = rng.next_u64();
        for threads in [1, 2, 3, 8] {
            let mut got: Vec<u32> = (0..n as u32).collect();
            let mut rng = seed.rng();
            in_pool(threads, || par_shuffle(&mut got, &mut rng));
            assert!(
                got == expected,
                "n={n} threads={threads}: par_shuffle differs from shuffle"
            );
            assert_eq!(
                rng.next_u64(),
                after,
                "n={n} threads={threads}: generator state differs"
            );
        }
    }
}

#[test]
fn par_shuffle_equals_shuffle_with_deep_recursion() {
    let configs = [
        ShuffleConfig {
            direct_len: 0,
            base_len: 1,
            target_len: 1 / 16,
            max_bits: 1,
            block_len: 1,
            stripes: 3,
            max_blocks: usize::MAX,
        },
        ShuffleConfig {
            direct_len: 10,
            base_len: 7,
            target_len: 7 / 16,
            max_bits: 3,
            block_len: 2,
            stripes: 5,
            max_blocks: usize::MAX,
        },
        ShuffleConfig {
            direct_len: 100,
            base_len: 64,
            target_len: 64 / 16,
            max_bits: 8,
            block_len: 4,
            stripes: 8,
            max_blocks: usize::MAX,
        },
        // Walks above 64 blocks of 4, then distributions.
        ShuffleConfig {
            direct_len: 0,
            base_len: 16,
            target_len: 16 / 16,
            max_bits: 4,
            block_len: 4,
            stripes: 3,
            max_blocks: 64,
        },
    ];
    for config in configs {
        for n in [2, 11, 101, 1000, 65_537] {
            let seed = Seed::from_text(&format!("par-eq-deep-{n}"));
            let mut expected: Vec<u32> = (0..n as u32).collect();
            shuffle_with_config(&mut expected, &mut seed.rng(), &config);
            for threads in [1, 2, 3, 8] {
                let mut got: Vec<u32> = (0..n as u32).collect();
                let mut rng = seed.rng();
                in_pool(threads, || {
                    par_shuffle_with_config(&mut got, &mut rng, &config)
                });
                assert!(got == expected, "{config:?} n={n} threads={threads}");
            }
        }
    }
}

#[test]
fn par_shuffle_equals_shuffle_through_a_walk_counted_in_pieces() {
    // Past 2^22 positions the parallel count of the walk's labels runs in
    // several pieces: their sums must be the sequential count. 65 552
    // blocks of 64 against at most 4096: a walk into 64 buckets, each
    // distributed.
    let config = ShuffleConfig {
        direct_len: 0,
        base_len: 4096,
        target_len: 4096 / 16,
        max_bits: 8,
        block_len: 64,
        stripes: 8,
        max_blocks: 4096,
    };
    let n = (1 << 22) + 1000;
    let seed = Seed::from_text("par-eq-walk-pieces");
    let mut expected: Vec<u32> = (0..n as u32).collect();
    shuffle_with_config(&mut expected, &mut seed.rng(), &config);
    for threads in [2, 3] {
        let mut got: Vec<u32> = (0..n as u32).collect();
        let mut rng = seed.rng();
        in_pool(threads, || {
            par_shuffle_with_config(&mut got, &mut rng, &config)
        });
        assert!(got == expected, "threads={threads}");
    }
    expected.sort_unstable();
    assert!(expected.iter().enumerate().all(|(i, &x)| x == i as u32));
}

#[test]
fn large_elements_and_non_copy_types() {
    let n = 200_000; // 32-byte strings: well past the direct threshold
    let original: Vec<String> = (0..n).map(|i| format!("item-{i:08}")).collect();
    let mut a = original.clone();
    let mut b = original.clone();
    shuffle(&mut a, &mut Seed::from_text("strings").rng());
    in_pool(2, || {
        par_shuffle(&mut b, &mut Seed::from_text("strings").rng())
    });
    assert_eq!(a, b);
    assert_ne!(a, original);
    a.sort();
    assert_eq!(a, original);
}
