//! Property tests: every function returns a permutation of its input
//! (the multiset is preserved), for small and random lengths and contents.

use knuffle::{
    Knuffle, Reservoir, Seed, partial_shuffle, permutation, sample_indices, sattolo, shuffle,
    shuffled,
};
use proptest::prelude::*;

fn sorted<T: Ord + Clone>(items: &[T]) -> Vec<T> {
    let mut v = items.to_vec();
    v.sort();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn shuffle_preserves_the_multiset(items in prop::collection::vec(0u8..8, 0..300), seed in ".*") {
        let mut rng = Seed::from_text(&seed).rng();
        let mut v = items.clone();
        shuffle(&mut v, &mut rng);
        prop_assert_eq!(sorted(&v), sorted(&items));
    }

    #[test]
    fn partial_shuffle_preserves_the_multiset(items in prop::collection::vec(any::<u16>(), 0..300), k in 0usize..400, seed in any::<u64>()) {
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let mut v = items.clone();
        let (dealt, rest) = partial_shuffle(&mut v, k, &mut rng);
        prop_assert_eq!(dealt.len(), k.min(items.len()));
        prop_assert_eq!(rest.len(), items.len() - k.min(items.len()));
        prop_assert_eq!(sorted(&v), sorted(&items));
    }

    #[test]
    fn shuffled_leaves_input_and_preserves_the_multiset(items in prop::collection::vec(".{0,3}", 0..200), seed in any::<u64>()) {
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let before = items.clone();
        let out = shuffled(&items, &mut rng);
        prop_assert_eq!(&items, &before);
        prop_assert_eq!(sorted(&out), sorted(&items));
    }

    #[test]
    fn sattolo_gives_one_cycle(n in 0usize..300, seed in any::<u64>()) {
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let mut v: Vec<usize> = (0..n).collect();
        sattolo(&mut v, &mut rng);
        prop_assert_eq!(sorted(&v), (0..n).collect::<Vec<_>>());
        if n >= 2 {
            // Follow the cycle from 0: it must visit all n positions.
            let mut at = v[0];
            let mut length = 1;
            while at != 0 { at = v[at]; length += 1; }
            prop_assert_eq!(length, n);
        }
    }

    #[test]
    fn permutation_is_a_permutation(n in 0usize..2000, seed in any::<u64>()) {
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let p = permutation(n, &mut rng);
        prop_assert_eq!(sorted(&p), (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn sample_indices_are_distinct_and_in_range(n in 0u64..5000, k_frac in 0.0f64..=1.0, huge in any::<bool>(), seed in any::<u64>()) {
        let n = if huge { u64::MAX - n } else { n };
        let k = ((n.min(3000) as f64) * k_frac) as usize;
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let s = sample_indices(n, k, &mut rng);
        prop_assert_eq!(s.len(), k);
        prop_assert!(s.iter().all(|&x| x < n));
        let mut d = s.clone();
        d.sort();
        d.dedup();
        prop_assert_eq!(d.len(), k);
    }

    #[test]
    fn reservoir_keeps_distinct_stream_items(len in 0u32..5000, k in 0usize..50, seed in any::<u64>()) {
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let mut r = Reservoir::new(k);
        r.extend(0..len, &mut rng);
        prop_assert_eq!(r.seen(), u64::from(len));
        let sample = r.into_shuffled(&mut rng);
        prop_assert_eq!(sample.len(), k.min(len as usize));
        let mut d = sample.clone();
        d.sort();
        d.dedup();
        prop_assert_eq!(d.len(), sample.len());
        prop_assert!(sample.iter().all(|&x| x < len));
    }

    #[test]
    fn methods_mirror_the_functions(items in prop::collection::vec(any::<u32>(), 0..100), seed in any::<u64>()) {
        let text = seed.to_string();
        let mut a = items.clone();
        let mut b = items.clone();
        shuffle(&mut a, &mut Seed::from_text(&text).rng());
        b.shuffle(&mut Seed::from_text(&text).rng());
        prop_assert_eq!(a, b);
    }

    #[cfg(feature = "text")]
    #[test]
    fn text_shuffles_keep_every_char(s in "\\PC{0,40}", seed in any::<u64>()) {
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        for out in [knuffle::text::shuffle_graphemes(&s, &mut rng), knuffle::text::shuffle_chars(&s, &mut rng)] {
            prop_assert_eq!(sorted(&out.chars().collect::<Vec<_>>()), sorted(&s.chars().collect::<Vec<_>>()));
        }
    }

    #[cfg(feature = "text")]
    #[test]
    fn grapheme_shuffle_never_splits_a_cluster(picks in prop::collection::vec(0usize..6, 0..40), seed in any::<u64>()) {
        use unicode_segmentation::UnicodeSegmentation;
        // Clusters that stay clusters wherever they are placed.
        const CLUSTERS: [&str; 6] = ["a", "e\u{301}", "🇳🇱", "👨\u{200d}👩\u{200d}👧", "Z", "n\u{303}"];
        let text: String = picks.iter().map(|&i| CLUSTERS[i]).collect();
        let mut rng = Seed::from_text(&seed.to_string()).rng();
        let out = knuffle::text::shuffle_graphemes(&text, &mut rng);
        let expected: Vec<&str> = picks.iter().map(|&i| CLUSTERS[i]).collect();
        prop_assert_eq!(sorted(&out.graphemes(true).collect::<Vec<_>>()), sorted(&expected));
    }
}

#[test]
fn reservoir_inclusion_is_uniform() {
    // Each of 20 stream items should be kept with probability 5/20.
    let mut rng = Seed::from_text("reservoir-uniform").rng();
    let mut counts = [0u64; 20];
    let trials = 40_000;
    for _ in 0..trials {
        let mut r = Reservoir::new(5);
        r.extend(0..20usize, &mut rng);
        for &x in r.items() {
            counts[x] += 1;
        }
    }
    assert_eq!(counts.iter().sum::<u64>(), trials * 5);
    // Inclusion indicators are negatively correlated (fixed sample size), so
    // X2 is conservative here; a p-value below 1e-3 still means bias.
    let verdict = knuffle_stats::battery::uniform_counts(&counts, 1e-3);
    assert!(
        verdict.passed(),
        "reservoir inclusion counts {counts:?}: {verdict}"
    );
}
