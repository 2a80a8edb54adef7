//! The large-array (scatter) code path, forced onto tiny inputs with small
//! thresholds so that every branch runs (scatter, recursion, base case), and
//! checked with a full-permutation chi-square test for n <= 7, sequential
//! and parallel. A scatter with the classic mistake (bucket sizes fixed in
//! advance instead of multinomial) must fail the same test.

mod common;

use common::*;
use knuffle::rand_core::Rng;
use knuffle::{Seed, ShuffleConfig, below, shuffle_with_config};

/// Binary scatter all the way down: every node splits in two, recursion
/// until single elements.
const BINARY: ShuffleConfig = ShuffleConfig {
    direct_len: 0,
    base_len: 1,
    target_len: 1 / 16,
    max_bits: 1,
    block_len: 1,
    stripes: 3,
    max_blocks: usize::MAX,
};
/// Four buckets per level, Durstenfeld on buckets of at most 2.
const QUAD_BASE2: ShuffleConfig = ShuffleConfig {
    direct_len: 1,
    base_len: 2,
    target_len: 2 / 16,
    max_bits: 2,
    block_len: 2,
    stripes: 2,
    max_blocks: usize::MAX,
};
/// One wide level: up to 2^8 buckets, so most buckets are empty or single.
const WIDE: ShuffleConfig = ShuffleConfig {
    direct_len: 2,
    base_len: 1,
    target_len: 1 / 16,
    max_bits: 8,
    block_len: 1,
    stripes: 1,
    max_blocks: usize::MAX,
};

/// Nodes of more than two elements split by the walk, two-element nodes
/// distributed, single elements left: every level takes another branch.
const WALKED: ShuffleConfig = ShuffleConfig {
    direct_len: 0,
    base_len: 1,
    target_len: 1 / 16,
    max_bits: 2,
    block_len: 1,
    stripes: 2,
    max_blocks: 2,
};

fn trials_for(cells: usize, per_cell: usize) -> usize {
    (cells * per_cell).max(20_000)
}

fn check_uniform(name: &str, n: usize, per_cell: usize, mut shuffler: impl FnMut(&mut Vec<usize>)) {
    let counts = order_counts(n, trials_for(factorial(n), per_cell), &mut shuffler);
    let verdict = uniform_counts(&counts, PASS_P);
    assert!(verdict.passed(), "{name} n={n}: {verdict}");
    assert!(
        counts.iter().all(|&c| c > 0),
        "{name} n={n}: every order must occur"
    );
}

#[test]
fn scatter_path_is_uniform_for_n_2_to_7() {
    for (name, config) in [
        ("binary", BINARY),
        ("quad", QUAD_BASE2),
        ("wide", WIDE),
        ("walked", WALKED),
    ] {
        let top = if matches!(name, "binary" | "walked") {
            7
        } else {
            6
        };
        for n in 2..=top {
            let mut rng = Seed::from_text(&format!("large-chi2-{name}-{n}")).rng();
            let per_cell = if n == 7 { 60 } else { 150 };
            check_uniform(name, n, per_cell, |p| {
                shuffle_with_config(p, &mut rng, &config)
            });
        }
    }
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_scatter_path_is_uniform_for_n_3_to_5() {
    use knuffle::par_shuffle_with_config;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        for (name, config) in [("binary", BINARY), ("quad", QUAD_BASE2), ("walked", WALKED)] {
            for n in 3..=5 {
                let mut rng = Seed::from_text(&format!("large-par-chi2-{name}-{n}")).rng();
                check_uniform(name, n, 200, |p| {
                    par_shuffle_with_config(p, &mut rng, &config)
                });
            }
        }
    });
}

/// The mistake the exact multinomial avoids: bucket sizes fixed in advance
/// (here half and half), each element thrown into a random bucket until
/// that bucket is full, the rest going to the other one. Then each half is
/// shuffled correctly. The bucket contents are no longer an iid sample.
fn fixed_size_scatter<R: Rng>(v: &mut Vec<usize>, rng: &mut R) {
    let n = v.len();
    let capacity = [n.div_ceil(2), n / 2];
    let mut buckets: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for &x in v.iter() {
        let mut b = below(2, rng) as usize;
        if buckets[b].len() == capacity[b] {
            b = 1 - b;
        }
        buckets[b].push(x);
    }
    for bucket in &mut buckets {
        knuffle::shuffle(bucket, rng);
    }
    v.clear();
    v.extend(buckets.iter().flatten());
}

#[test]
fn the_chi_square_catches_fixed_bucket_sizes() {
    for n in 4..=6 {
        let mut rng = Seed::from_text(&format!("large-chi2-broken-{n}")).rng();
        let verdict = battery::full_permutation(n, trials_for(factorial(n), 150), FAIL_P, |p| {
            fixed_size_scatter(p, &mut rng)
        });
        assert!(
            !verdict.passed(),
            "the broken scatter passed at n={n}: {verdict}"
        );
    }
}

#[test]
fn scatter_path_output_is_a_permutation_for_many_shapes() {
    // Sizes around the thresholds of each configuration, odd sizes, and
    // element types of different size classes.
    for config in [
        BINARY,
        QUAD_BASE2,
        WIDE,
        WALKED,
        ShuffleConfig {
            direct_len: 0,
            base_len: 3,
            target_len: 3 / 16,
            max_bits: 8,
            block_len: 2,
            stripes: 3,
            max_blocks: 40,
        },
        ShuffleConfig {
            direct_len: 0,
            base_len: 5,
            target_len: 5 / 16,
            max_bits: 3,
            block_len: 4,
            stripes: 4,
            max_blocks: usize::MAX,
        },
    ] {
        let mut rng = Seed::from_text("large-shapes").rng();
        for n in [0, 1, 2, 3, 5, 8, 13, 100, 129, 1000, 4097] {
            let mut v: Vec<u32> = (0..n as u32).collect();
            shuffle_with_config(&mut v, &mut rng, &config);
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(
                sorted,
                (0..n as u32).collect::<Vec<_>>(),
                "{config:?} n={n}"
            );
            let mut w: Vec<(u8, String)> = (0..n).map(|i| (i as u8, i.to_string())).collect();
            shuffle_with_config(&mut w, &mut rng, &config);
            let mut names: Vec<usize> = w.iter().map(|(_, s)| s.parse().unwrap()).collect();
            names.sort_unstable();
            assert_eq!(names, (0..n).collect::<Vec<_>>());
        }
    }
}

#[test]
#[should_panic(expected = "base_len must be at least 1")]
fn a_zero_base_len_is_refused() {
    let mut rng = Seed::from_text("bad-config").rng();
    let config = ShuffleConfig {
        direct_len: 0,
        base_len: 0,
        target_len: 0,
        max_bits: 2,
        block_len: 2,
        stripes: 2,
        max_blocks: usize::MAX,
    };
    shuffle_with_config(&mut [1, 2, 3], &mut rng, &config);
}

#[test]
fn elements_above_a_kilobyte_never_take_the_scatter() {
    // Their buffers would grow with the element; Durstenfeld's loop it is.
    assert_eq!(
        ShuffleConfig::for_type::<[u8; 1025]>().direct_len,
        usize::MAX
    );
    assert_eq!(
        ShuffleConfig::for_type::<[u8; 1024]>().direct_len,
        16 * 1024
    );
    assert_eq!(ShuffleConfig::for_type::<u64>().block_len, 128);
}

#[test]
fn a_scatter_inside_a_destructor_during_unwinding_completes() {
    // The distribution's abort-on-unwind guard must only fire for a panic
    // inside the distribution, not because some other panic is unwinding.
    struct ShuffleOnDrop;
    impl Drop for ShuffleOnDrop {
        fn drop(&mut self) {
            let mut v: Vec<String> = (0..100).map(|i| i.to_string()).collect();
            let config = ShuffleConfig {
                direct_len: 0,
                base_len: 4,
                target_len: 4 / 16,
                max_bits: 2,
                block_len: 2,
                stripes: 2,
                max_blocks: usize::MAX,
            };
            shuffle_with_config(&mut v, &mut Seed::from_text("unwinding").rng(), &config);
            let mut numbers: Vec<usize> = v.iter().map(|s| s.parse().unwrap()).collect();
            numbers.sort_unstable();
            assert_eq!(numbers, (0..100).collect::<Vec<_>>());
        }
    }
    let caught = std::panic::catch_unwind(|| {
        let _guard = ShuffleOnDrop;
        panic!("an unrelated panic");
    });
    assert!(caught.is_err());
}

#[test]
fn a_block_longer_than_the_slice_is_harmless() {
    // Blocks are capped at the node's length: no oversized buffers, no
    // overflowing size arithmetic.
    let config = ShuffleConfig {
        direct_len: 0,
        base_len: 1,
        target_len: 1 / 16,
        max_bits: 1,
        block_len: 1 << 63,
        stripes: 1,
        max_blocks: usize::MAX,
    };
    let mut v: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    shuffle_with_config(&mut v, &mut Seed::from_text("long blocks").rng(), &config);
    let mut numbers: Vec<usize> = v.iter().map(|s| s.parse().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (0..1000).collect::<Vec<_>>());
}
