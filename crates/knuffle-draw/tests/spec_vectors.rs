//! The worked vectors of docs/verifiable-draws.md, byte for byte (the
//! Python reference verifier derives the same values independently).

use knuffle_draw::encode::to_hex;
use knuffle_draw::{Mode, Population, Sha256Stream, Source, commitment, derive_key, draw_indices};
use rand_core::Rng;

fn population() -> Population {
    Population::Items(["a", "b", "c", "d", "e"].map(String::from).to_vec())
}

#[test]
fn population_digest_key_and_stream() {
    let p = population().digest();
    assert_eq!(
        to_hex(&p),
        "89136153918a3e407c90b58f91ee31dbb0c9a3fa774d10a9adea17d3190bac55"
    );
    let sources = [Source::Text("3 1 4".into())];
    let key = derive_key(Mode::Perm, &p, &sources);
    assert_eq!(
        to_hex(&key),
        "2868cb7c9ebf1666a379f14e7bbb03618a67eb95e70c1f9793c2096ccf11b528"
    );
    let mut stream = Sha256Stream::new(key);
    let words: Vec<u64> = (0..4).map(|_| stream.next_u64()).collect();
    assert_eq!(
        words,
        [
            0xd779_1261_e4dc_03a9,
            0xa998_64b9_9403_9c1d,
            0xf42d_ad8b_1eaf_5a33,
            0x13e7_406d_3033_df0c
        ]
    );
    assert_eq!(
        draw_indices(key, Mode::Perm, 5, 5).unwrap(),
        [4, 3, 0, 1, 2]
    );
    assert_eq!(draw_indices(key, Mode::Perm, 5, 2).unwrap(), [4, 3]);
    let replace_key = derive_key(Mode::Replace, &p, &sources);
    assert_eq!(
        to_hex(&replace_key),
        "2c0581c1c7ee579c339177966e0d3006c175a26ac9eefa9fafb2e2f92c198a75"
    );
    assert_eq!(
        draw_indices(replace_key, Mode::Replace, 5, 6).unwrap(),
        [3, 1, 4, 0, 1, 1]
    );
}

#[test]
fn commitment_vector() {
    let c = commitment(
        Mode::Perm,
        &population().digest(),
        "s3cret",
        "drand:8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce:5000000",
    );
    assert_eq!(
        to_hex(&c),
        "7c8444a089f69d105e1069ba7d0a467b328efaf084361a5a2c87256233710245"
    );
}
