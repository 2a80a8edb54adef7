//! Golden vectors: the value-stability promise. The same seed text must give
//! these exact outputs on every platform and every release of the same major
//! version. If one of these fails, the change broke reproducibility for every
//! user who recorded a seed: do not "update the numbers" without a major
//! version bump.

use knuffle::rand_core::{Rng, SeedableRng};
use knuffle::{
    DefaultRng, Reservoir, Seed, partial_shuffle, permutation, sample_indices, sattolo, shuffle,
    shuffled,
};

#[test]
fn seed_text_is_sha256_of_the_text() {
    // echo -n knuffle | sha256sum
    assert_eq!(
        format!("{:?}", Seed::from_text("knuffle")),
        "Seed(e80371676a54a0eb9d473a19dbf17e9dadb9db3d8718abaeb010351c6bea6951)"
    );
}

#[test]
fn default_rng_is_standard_chacha20() {
    // RFC 8439 / DJB ChaCha20 keystream for the all-zero key and nonce starts
    // 76 b8 e0 ad a0 f1 3d 90, read as a little-endian u64.
    let mut rng = DefaultRng::from_seed([0u8; 32]);
    assert_eq!(rng.next_u64(), 0x903d_f1a0_ade0_b876);
    assert_eq!(
        Seed::from_text("knuffle").rng().next_u64(),
        0x080a_6f4e_2f37_db7d
    );
}

#[test]
fn shuffle_of_10() {
    let mut rng = Seed::from_text("golden-10").rng();
    assert_eq!(permutation(10, &mut rng), [8, 2, 1, 7, 9, 3, 5, 4, 6, 0]);
    let mut rng = Seed::from_text("golden-10").rng();
    let mut v: Vec<usize> = (0..10).collect();
    shuffle(&mut v, &mut rng);
    assert_eq!(v, [8, 2, 1, 7, 9, 3, 5, 4, 6, 0]);
}

#[test]
fn shuffle_of_52() {
    let mut rng = Seed::from_text("golden-52").rng();
    assert_eq!(
        permutation(52, &mut rng),
        [
            23, 17, 20, 31, 29, 4, 9, 28, 2, 21, 6, 48, 10, 8, 40, 15, 16, 50, 14, 25, 27, 7, 12,
            19, 24, 1, 13, 18, 0, 36, 37, 34, 26, 44, 43, 39, 11, 51, 3, 38, 30, 33, 45, 35, 5, 41,
            46, 49, 42, 47, 22, 32
        ]
    );
}

#[test]
fn shuffle_of_1000() {
    let mut rng = Seed::from_text("golden-1000").rng();
    let p = permutation(1000, &mut rng);
    assert_eq!(p[..10], [959, 819, 22, 484, 568, 611, 985, 443, 114, 195]);
    // FNV-1a over the whole permutation.
    let hash = p.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x0100_0000_01b3)
    });
    assert_eq!(hash, 0xa07d_97b1_1d34_e5d7);
}

#[test]
fn other_algorithms() {
    let mut rng = Seed::from_text("golden-deal").rng();
    let mut deck: Vec<u8> = (0..52).collect();
    let (hand, _) = partial_shuffle(&mut deck, 5, &mut rng);
    assert_eq!(hand, [50, 21, 37, 47, 12]);

    let mut rng = Seed::from_text("golden-sattolo").rng();
    let mut v: Vec<u8> = (0..10).collect();
    sattolo(&mut v, &mut rng);
    assert_eq!(v, [6, 8, 0, 4, 9, 1, 5, 3, 7, 2]);

    let mut rng = Seed::from_text("golden-shuffled").rng();
    let input: Vec<u8> = (0..10).collect();
    assert_eq!(shuffled(&input, &mut rng), [0, 8, 1, 3, 4, 5, 6, 7, 9, 2]);

    let mut rng = Seed::from_text("golden-sample").rng();
    assert_eq!(
        sample_indices(u64::MAX, 4, &mut rng),
        [
            740678940764233422,
            938627950797860951,
            3922471464721987918,
            7930939255662933524
        ]
    );

    let mut rng = Seed::from_text("golden-reservoir").rng();
    let mut reservoir = Reservoir::new(4);
    reservoir.extend(0..100_000u32, &mut rng);
    assert_eq!(
        reservoir.into_shuffled(&mut rng),
        [70906, 73334, 66766, 70678]
    );
}

/// The large-array (scatter) path: 2^22 `u32` with the default
/// configuration (16 MiB of size class: the scatter's root, then buckets
/// of about 2^15), 2^20 `u32` with 4 MiB buckets (the scatter forced: by
/// default it starts past 16 MiB), a forced four-level scatter, and the
/// same with walks. FNV-1a over the whole output; the caller's generator
/// only gives a 256-bit key (4 words).
#[test]
fn large_array_path() {
    let fnv = |values: &mut dyn Iterator<Item = u64>| {
        values.fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
            (h ^ x).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let mut rng = Seed::from_text("golden-large-default").rng();
    let mut v: Vec<u32> = (0..(1 << 22) + 1).collect();
    knuffle::shuffle(&mut v, &mut rng);
    assert_eq!(
        v[..8],
        [
            3400286, 2435798, 1299677, 409146, 4125370, 3192617, 2911637, 1204075
        ]
    );
    assert_eq!(
        fnv(&mut v.iter().map(|&x| u64::from(x))),
        0x3c21_cd6b_05c3_4745
    );

    let mut rng = Seed::from_text("golden-large").rng();
    let mut v: Vec<u32> = (0..1 << 20).collect();
    let config = knuffle::ShuffleConfig {
        direct_len: 0,
        base_len: 1 << 19,
        ..knuffle::ShuffleConfig::for_type::<u32>()
    };
    knuffle::shuffle_with_config(&mut v, &mut rng, &config);
    assert_eq!(
        v[..8],
        [402413, 94596, 31303, 662900, 319660, 218982, 576568, 297069]
    );
    assert_eq!(
        fnv(&mut v.iter().map(|&x| u64::from(x))),
        0xd7ec_3a97_cdff_587b
    );
    assert_eq!(rng.next_u64(), 0x49df_ba7d_7899_419b);

    let config = knuffle::ShuffleConfig {
        direct_len: 0,
        base_len: 1000,
        target_len: 1000 / 16,
        max_bits: 4,
        block_len: 8,
        stripes: 3,
        max_blocks: usize::MAX,
    };
    // 10^5 `u64`: its first eight and the hash of all.
    let check = |seed: &str, config: &knuffle::ShuffleConfig, first: [u64; 8], hash: u64| {
        let mut v: Vec<u64> = (0..100_000).collect();
        knuffle::shuffle_with_config(&mut v, &mut Seed::from_text(seed).rng(), config);
        assert_eq!(v[..8], first, "{seed}");
        assert_eq!(fnv(&mut v.iter().copied()), hash, "{seed}");
    };
    check(
        "golden-large-deep",
        &config,
        [54963, 11156, 80684, 24435, 21639, 8526, 1994, 96555],
        0x6cce_6ad5_128a_aa8b,
    );
    // Nodes above 500 blocks split by the walk first (twice here).
    let walked = knuffle::ShuffleConfig {
        max_blocks: 500,
        ..config
    };
    check(
        "golden-large-walk",
        &walked,
        [10381, 86541, 79705, 43263, 42832, 43715, 39949, 85586],
        0xec4f_bcdc_9422_26ab,
    );
}

#[cfg(feature = "text")]
#[test]
fn text_shuffle() {
    let mut rng = Seed::from_text("golden-text").rng();
    assert_eq!(
        knuffle::text::shuffle_graphemes("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", &mut rng),
        "5KVSNWIQCX8GAY4PODTHFZ0UEL9BJR13M267"
    );
}
