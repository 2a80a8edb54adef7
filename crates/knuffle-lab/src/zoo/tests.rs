use super::*;

struct Replay(Vec<usize>, Vec<String>);
impl Observer for Replay {
    fn swap(&mut self, i: usize, j: usize) {
        self.0.swap(i, j);
    }
    fn note(&mut self, text: &str) {
        self.1.push(text.to_string());
    }
}

#[test]
fn the_table_is_consistent() {
    let mut names = std::collections::BTreeSet::new();
    for &algorithm in ALL {
        let name = algorithm.name();
        assert!(names.insert(name), "{name} appears twice");
        assert_eq!(Algorithm::from_name(name), Some(algorithm));
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{name}"
        );
        assert!(!algorithm.description().is_empty(), "{name}");
        // Users see the write-ups' names, never the internal ones.
        assert!(!algorithm.source().contains("seed 0"), "{name}");
        assert!(!algorithm.description().contains("seed"), "{name}");
        // Exact support: a refusal names the algorithm; a path count
        // is known for small n.
        match algorithm.exact() {
            Exact::Unavailable(why) => assert!(why.starts_with(name), "{name}"),
            Exact::Paths(count) => assert!(count(3).is_some(), "{name}"),
            Exact::Walk => {}
        }
    }
    assert_eq!(names.len(), 18);
}

#[test]
fn every_algorithm_outputs_a_permutation_and_reports_it_through_swaps() {
    let mut rng = knuffle::Seed::from_text("zoo test").rng();
    for &algorithm in ALL {
        for n in [0usize, 1, 2, 5, 33, 70] {
            let mut items: Vec<usize> = (0..n).collect();
            let mut replay = Replay(items.clone(), Vec::new());
            algorithm.run(&mut items, &mut rng, &mut replay);
            assert_eq!(items, replay.0, "{algorithm} n={n}");
            let mut quiet: Vec<usize> = (0..n).collect();
            let mut sorted = items.clone();
            sorted.sort();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "{algorithm} n={n}");
            algorithm.run(&mut quiet, &mut rng, &mut NoObserver);
            quiet.sort();
            assert_eq!(quiet, sorted);
        }
    }
}

#[test]
fn zoo_fisher_yates_family_matches_the_library_word_for_word() {
    for n in [1usize, 2, 4, 13, 52, 300] {
        let mut a: Vec<usize> = (0..n).collect();
        let mut b = a.clone();
        Algorithm::FisherYates.run(
            &mut a,
            &mut knuffle::Seed::from_text("s").rng(),
            &mut NoObserver,
        );
        knuffle::shuffle(&mut b, &mut knuffle::Seed::from_text("s").rng());
        assert_eq!(a, b);
        let mut c: Vec<usize> = (0..n).collect();
        let mut d = c.clone();
        Algorithm::Sattolo.run(
            &mut c,
            &mut knuffle::Seed::from_text("t").rng(),
            &mut NoObserver,
        );
        knuffle::sattolo(&mut d, &mut knuffle::Seed::from_text("t").rng());
        assert_eq!(c, d);
        let input: Vec<usize> = (0..n).collect();
        let mut e = input.clone();
        Algorithm::InsideOut.run(
            &mut e,
            &mut knuffle::Seed::from_text("u").rng(),
            &mut NoObserver,
        );
        assert_eq!(
            e,
            knuffle::shuffled(&input, &mut knuffle::Seed::from_text("u").rng())
        );
    }
}

#[test]
fn short_range_never_moves_the_last_item_and_sattolo_moves_everything() {
    let mut rng = knuffle::Seed::from_text("short").rng();
    for _ in 0..200 {
        let mut v: Vec<usize> = (0..6).collect();
        Algorithm::BasicJjShortRange.run(&mut v, &mut rng, &mut NoObserver);
        assert_eq!(v[5], 5);
        let mut w: Vec<usize> = (0..6).collect();
        Algorithm::Sattolo.run(&mut w, &mut rng, &mut NoObserver);
        assert!(w.iter().enumerate().all(|(i, &x)| i != x));
    }
}

#[test]
fn pick_unused_notes_its_redraws() {
    let mut rng = knuffle::Seed::from_text("notes").rng();
    let mut replay = Replay((0..8).collect(), Vec::new());
    let mut items: Vec<usize> = (0..8).collect();
    Algorithm::PickUnused.run(&mut items, &mut rng, &mut replay);
    assert!(replay.1.iter().any(|t| t.contains("already used")));
}

#[test]
fn double_order_ties_nans_and_zeros_and_orders_the_rest() {
    assert_eq!(
        double_order(f64::NAN.to_bits()),
        double_order(0x7FF8_0000_0000_0001)
    );
    assert_eq!(
        double_order(0.0f64.to_bits()),
        double_order((-0.0f64).to_bits())
    );
    assert!(double_order((-1.0f64).to_bits()) < double_order(0.5f64.to_bits()));
    assert!(double_order((-2.0f64).to_bits()) < double_order((-1.0f64).to_bits()));
    assert!(double_order(1.0f64.to_bits()) < double_order(f64::INFINITY.to_bits()));
    assert!(double_order(f64::NAN.to_bits()) < double_order(f64::NEG_INFINITY.to_bits()));
}

#[test]
fn reduced_partners_follow_the_reduction_module() {
    use crate::reduction::Split;
    for reduction in [Reduction::Modulo, Reduction::FloatScaling] {
        let algorithm = Algorithm::from_name(reduction.zoo_name()).unwrap();
        assert!(matches!(algorithm.exact(), Exact::Paths(_)));
        assert_eq!(reduction_paths(4), Some(1 << 24));
        assert_eq!(reduction_paths(1), Some(1));
        assert_eq!(reduction_paths(17), None);
        // Every line of the report points at the zoo entry.
        let lines = Split::new(reduction, 52, 32)
            .unwrap()
            .describe("card", &|j| j.to_string());
        assert!(lines.last().unwrap().contains(algorithm.name()));
        // The trace notes each word and the partner it became.
        let mut rng = knuffle::Seed::from_text("reduce").rng();
        let mut replay = Replay((0..5).collect(), Vec::new());
        let mut items: Vec<usize> = (0..5).collect();
        algorithm.run(&mut items, &mut rng, &mut replay);
        assert_eq!(items, replay.0);
        assert_eq!(replay.1.len(), 4, "{:?}", replay.1);
        assert!(
            replay.1[0].starts_with("word for position 4: 0x"),
            "{:?}",
            replay.1
        );
    }
}

#[test]
fn names_are_unique_and_round_trip() {
    for &a in ALL {
        assert_eq!(Algorithm::from_name(a.name()), Some(a));
    }
    assert_eq!(Algorithm::from_name("bogo"), None);
}
