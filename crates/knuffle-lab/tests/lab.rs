//! The lab end to end: every algorithm gets the verdict its fairness
//! predicts, reproducibly; the report has the expected structure.

use knuffle_lab::audit::audit_shuffler;
use knuffle_lab::experiment::{self, DEFAULT_SEED};
use knuffle_lab::report;
use knuffle_lab::stats::DEFAULT_ALPHA;
use knuffle_lab::zoo::{ALL, Algorithm, Fairness};

/// Enough shuffles of 4 for the subtlest biases in the zoo (8-bit key
/// collisions; 8-bit words reduced by modulo or scaling, where one partner
/// of 0..3 gets 86 words of 256 instead of 85: Holm p about 3e-7 and 2e-5)
/// to be caught, with the default seed.
const TRIALS: u64 = 2_000_000;

#[test]
fn every_algorithm_gets_the_verdict_its_fairness_predicts() {
    for &algorithm in ALL {
        let run = experiment::run(algorithm, 4, TRIALS, DEFAULT_SEED, DEFAULT_ALPHA, &|_| {});
        assert!(run.as_expected(), "{algorithm}: {}", run.analysis.to_text());
        let biased = run.analysis.biased();
        assert_eq!(
            biased,
            !algorithm.fairness().is_fair_shuffle(),
            "{algorithm}"
        );
        if algorithm.fairness() == Fairness::UniformOverCycles {
            assert_eq!(
                run.analysis.orders_seen,
                Some(6),
                "Sattolo reaches (n-1)! orders"
            );
        }
    }
}

#[test]
fn runs_are_reproducible_and_seeds_matter() {
    let a = experiment::run(
        Algorithm::NaiveSwap,
        5,
        300_000,
        "repro",
        DEFAULT_ALPHA,
        &|_| {},
    );
    let b = experiment::run(
        Algorithm::NaiveSwap,
        5,
        300_000,
        "repro",
        DEFAULT_ALPHA,
        &|_| {},
    );
    let c = experiment::run(
        Algorithm::NaiveSwap,
        5,
        300_000,
        "other",
        DEFAULT_ALPHA,
        &|_| {},
    );
    assert_eq!(a.tally, b.tally);
    assert_ne!(a.tally, c.tally);
}

#[test]
fn large_n_uses_the_binned_position_matrix_and_other_statistics() {
    let fair = experiment::run(
        Algorithm::FisherYates,
        60,
        40_000,
        "big",
        DEFAULT_ALPHA,
        &|_| {},
    );
    assert!(!fair.analysis.biased(), "{}", fair.analysis.to_text());
    assert!(fair.analysis.order_test().is_none());
    assert_eq!(fair.analysis.tests.len(), 5);
    let naive = experiment::run(
        Algorithm::NaiveSwap,
        60,
        40_000,
        "big",
        DEFAULT_ALPHA,
        &|_| {},
    );
    assert!(naive.analysis.biased());
    // Sattolo has no fixed points at all: that test alone is damning.
    let cyclic = experiment::run(
        Algorithm::Sattolo,
        60,
        40_000,
        "big",
        DEFAULT_ALPHA,
        &|_| {},
    );
    let fixed = cyclic
        .analysis
        .tests
        .iter()
        .find(|t| t.name == "fixed points")
        .unwrap();
    assert!(fixed.adjusted_p < 1e-100);
}

#[test]
fn audit_a_closure_directly() {
    let mut rng = knuffle::Seed::from_text("closure").rng();
    let fair = audit_shuffler(6, 50_000, |v| knuffle::shuffle(v, &mut rng), DEFAULT_ALPHA).unwrap();
    assert!(!fair.biased(), "{}", fair.to_text());
    assert!(fair.power.iter().any(|p| p.contains("naive swap")));
    let mut rng = knuffle::Seed::from_text("closure").rng();
    let naive = audit_shuffler(
        6,
        50_000,
        |v| Algorithm::NaiveSwap.run(v, &mut rng, &mut knuffle_lab::zoo::NoObserver),
        DEFAULT_ALPHA,
    )
    .unwrap();
    assert!(naive.biased());
    let broken = audit_shuffler(3, 10, |v| v[0] = v[1], DEFAULT_ALPHA).unwrap_err();
    assert!(broken.to_string().contains("not a permutation"), "{broken}");
}

#[test]
fn report_has_pages_images_and_labelled_axes() {
    let runs: Vec<_> = [Algorithm::FisherYates, Algorithm::NaiveSwap]
        .iter()
        .map(|&a| experiment::run(a, 4, 100_000, "report", DEFAULT_ALPHA, &|_| {}))
        .collect();
    let built = report::build_report(&runs).unwrap();
    let text = |name: &str| {
        String::from_utf8(
            built
                .file(name)
                .unwrap_or_else(|| panic!("{name}"))
                .to_vec(),
        )
        .unwrap()
    };
    // Two charts per algorithm, each as SVG and PNG, then the page.
    assert_eq!(built.files.len(), 9);
    assert_eq!(built.files.last().unwrap().name, report::INDEX);
    let html = text(report::INDEX);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "self-contained"
    );
    for name in ["fisher-yates", "naive-swap"] {
        for kind in ["histogram", "positions"] {
            let svg_name = format!("{name}-{kind}.svg");
            let png_name = format!("{name}-{kind}.png");
            assert!(html.contains(&format!("href=\"{svg_name}\"")), "{svg_name}");
            assert!(html.contains(&format!("href=\"{png_name}\"")), "{png_name}");
            let svg = text(&svg_name);
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            let png = built.file(&png_name).unwrap();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
            if kind == "positions" {
                assert!(svg.contains("final position (to)"));
                assert!(svg.contains("original position (from)"));
                assert!(
                    svg.matches("<rect").count() >= 16,
                    "one cell per position pair"
                );
            } else {
                assert!(svg.contains("expected m/n!"));
                assert!(svg.contains("1234") && svg.contains("4321"));
            }
        }
    }
    assert!(html.contains("BIASED") && html.contains("no bias found"));
    // Self-contained: every chart inline, nothing loaded from another file.
    assert!(
        !html.contains("<img") && !html.contains("src="),
        "no external images"
    );
    assert_eq!(
        html.matches("<svg").count(),
        4,
        "two charts per algorithm, inline"
    );
    assert!(html.contains("final position (to)") && html.contains("expected m/n!"));
    // The verdict table comes first, biased algorithms first, linking to sections.
    let table = html
        .find("<table class=\"verdicts\">")
        .expect("verdict table");
    assert!(table < html.find("<section").unwrap());
    let naive_row = html
        .find("<a href=\"#naive-swap\">")
        .expect("link to naive-swap");
    let fair_row = html
        .find("<a href=\"#fisher-yates\">")
        .expect("link to fisher-yates");
    assert!(naive_row < fair_row, "biased first");
    assert!(html.contains("<tr class=\"biased\">") && html.contains("<section id=\"naive-swap\">"));
}
