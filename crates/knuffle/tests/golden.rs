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
            12, 10, 20, 31, 17, 18, 40, 23, 0, 25, 7, 29, 37, 2, 15, 28, 14, 24, 8, 48, 16, 9, 4,
            1, 19, 36, 13, 34, 21, 50, 6, 27, 26, 44, 43, 39, 11, 51, 3, 38, 30, 33, 45, 35, 5, 41,
            46, 49, 42, 47, 22, 32
        ]
    );
}

#[test]
fn shuffle_of_1000() {
    let mut rng = Seed::from_text("golden-1000").rng();
    let p = permutation(1000, &mut rng);
    assert_eq!(p[..10], [658, 340, 388, 370, 502, 435, 378, 517, 635, 364]);
    // FNV-1a over the whole permutation.
    let hash = p.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x0100_0000_01b3)
    });
    assert_eq!(hash, 0x75de_3343_011d_4c21);
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

/// The large-array (scatter) path: 2^20 `u32` with the default bucket
/// sizes (the scatter forced: by default it starts past 16 MiB), and a
/// forced four-level scatter. FNV-1a over the whole output; the caller's
/// generator only gives a 256-bit key (4 words).
#[test]
fn large_array_path() {
    let fnv = |values: &mut dyn Iterator<Item = u64>| {
        values.fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
            (h ^ x).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let mut rng = Seed::from_text("golden-large").rng();
    let mut v: Vec<u32> = (0..1 << 20).collect();
    let config = knuffle::ShuffleConfig {
        direct_len: 0,
        ..knuffle::ShuffleConfig::for_type::<u32>()
    };
    knuffle::shuffle_with_config(&mut v, &mut rng, &config);
    assert_eq!(
        v[..8],
        [967450, 487760, 696296, 669985, 40606, 635249, 393686, 85274]
    );
    assert_eq!(
        fnv(&mut v.iter().map(|&x| u64::from(x))),
        0xc8dc_e959_054c_afdb
    );
    assert_eq!(rng.next_u64(), 0x49df_ba7d_7899_419b);

    let mut rng = Seed::from_text("golden-large-deep").rng();
    let config = knuffle::ShuffleConfig {
        direct_len: 0,
        base_len: 1000,
        max_bits: 4,
        block_len: 8,
        stripes: 3,
    };
    let mut v: Vec<u64> = (0..100_000).collect();
    knuffle::shuffle_with_config(&mut v, &mut rng, &config);
    assert_eq!(
        v[..8],
        [78408, 19092, 99771, 56906, 18159, 45312, 94281, 97234]
    );
    assert_eq!(fnv(&mut v.iter().copied()), 0xbe59_5e9a_6bd6_a637);
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
