//! The one-long-order audit's laws by simulation: over many exactly
//! uniform permutations (knuffle's Fisher-Yates, fixed seeds) every
//! statistic has the mean and variance its law says, every p-value is about
//! uniform (so each test's false-alarm rate is its level), and the
//! family-wise verdict keeps its alpha; a biased order fails.

use knuffle_lab::order_audit::{OrderAudit, OrderAuditInput, audit_order};
use knuffle_lab::order_laws::{block_sizes, same_part_moments};

const N: usize = 4096;
const RUNS: usize = 1000;

fn audits(seed: &str, with_previous: bool) -> Vec<OrderAudit> {
    let mut rng = knuffle::Seed::from_text(seed).rng();
    let shards: Vec<u32> = (0..N as u32).map(|r| r % 5).collect();
    (0..RUNS)
        .map(|_| {
            let order: Vec<u64> = knuffle::permutation(N, &mut rng)
                .into_iter()
                .map(|r| r as u64)
                .collect();
            let previous: Vec<u64> = knuffle::permutation(N, &mut rng)
                .into_iter()
                .map(|r| r as u64)
                .collect();
            let input = OrderAuditInput {
                shard_of: Some(&shards),
                previous: with_previous.then_some(&previous[..]),
                ..OrderAuditInput::new(&order, N as u64)
            };
            audit_order(&input).unwrap()
        })
        .collect()
}

fn mean_var(xs: &[f64]) -> (f64, f64) {
    let m = xs.iter().sum::<f64>() / xs.len() as f64;
    (
        m,
        xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64,
    )
}

#[test]
fn every_p_value_is_about_uniform_and_the_verdict_keeps_alpha() {
    let runs = audits("order laws", true);
    let names: Vec<String> = runs[0].tests.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names.len(), 9, "{names:?}");
    for (i, name) in names.iter().enumerate() {
        let p: Vec<f64> = runs.iter().map(|a| a.tests[i].p_value).collect();
        let below = |level: f64| p.iter().filter(|&&x| x < level).count() as f64 / RUNS as f64;
        let discrete = name.starts_with("consecutive")
            || name.starts_with("same position")
            || name.starts_with("pairs kept");
        if discrete {
            // Poisson(1) upper tails: P(X >= 1) = 0.632, P(X >= 3) = 0.080, conservative
            // elsewhere; the rate of p < level is at most level (within noise).
            assert!(below(0.1) < 0.1 + 0.03, "{name}: {}", below(0.1));
            let ones = p.iter().filter(|&&x| x == 1.0).count() as f64 / RUNS as f64;
            assert!(
                (ones - (-1f64).exp()).abs() < 0.05,
                "{name}: P(X = 0) {ones}"
            );
        } else {
            // Binomial(1000, 0.05): sd 0.0069; 0.2: sd 0.0126.
            assert!(
                (below(0.05) - 0.05).abs() < 0.025,
                "{name}: {}",
                below(0.05)
            );
            assert!((below(0.2) - 0.2).abs() < 0.045, "{name}: {}", below(0.2));
            assert!((below(0.5) - 0.5).abs() < 0.06, "{name}: {}", below(0.5));
        }
    }
    // Holm's family-wise error at 0.05 is at most 0.05 (within noise).
    let flagged = runs.iter().filter(|a| a.min_adjusted_p() < 0.05).count() as f64 / RUNS as f64;
    assert!(flagged < 0.05 + 0.02, "family-wise false alarms {flagged}");
    assert!(runs.iter().filter(|a| a.biased()).count() <= 4);
}

#[test]
fn the_statistics_have_the_moments_of_their_laws() {
    let runs = audits("order moments", false);
    let z = |name: &str| -> Vec<f64> {
        runs.iter()
            .map(|a| {
                a.tests
                    .iter()
                    .find(|t| t.name.starts_with(name))
                    .unwrap()
                    .statistic
            })
            .collect()
    };
    // z statistics: mean 0, variance 1 (sd of the mean 0.032, of the variance ~0.045).
    for name in [
        "rank correlation row",
        "neighbours in blocks of 512",
        "neighbours in the same shard",
    ] {
        let (m, v) = mean_var(&z(name));
        assert!(m.abs() < 0.12, "{name}: mean {m}");
        assert!((v - 1.0).abs() < 0.15, "{name}: variance {v}");
    }
    // Chi-square statistics: mean = degrees of freedom.
    for name in ["displacement", "row/position table"] {
        let dof = runs[0]
            .tests
            .iter()
            .find(|t| t.name.starts_with(name))
            .unwrap()
            .dof;
        let (m, v) = mean_var(&z(name));
        assert!((m - dof).abs() < 0.1 * dof, "{name}: mean {m} dof {dof}");
        assert!(
            (v - 2.0 * dof).abs() < 0.25 * 2.0 * dof,
            "{name}: variance {v} dof {dof}"
        );
    }
    // The raw count of same-block neighbours against its exact moments.
    let counts: Vec<f64> = runs
        .iter()
        .map(|a| a.counts.as_ref().unwrap().same_block[0] as f64)
        .collect();
    let (mean, var) = same_part_moments(N as u64, block_sizes(N as u64, 9));
    let (m, v) = mean_var(&counts);
    assert!(
        (m - mean).abs() < 4.0 * (var / RUNS as f64).sqrt(),
        "{m} vs {mean}"
    );
    assert!((v / var - 1.0).abs() < 0.15, "{v} vs {var}");
}

#[test]
fn biased_orders_fail() {
    // A swap of each row with a neighbour at distance < 64: the displacement
    // test and the rank correlation see it.
    let mut rng = knuffle::Seed::from_text("local").rng();
    let mut order: Vec<u64> = (0..N as u64).collect();
    for i in 0..N {
        let j = (i + knuffle::below(64, &mut rng) as usize).min(N - 1);
        order.swap(i, j);
    }
    let audit = audit_order(&OrderAuditInput::new(&order, N as u64)).unwrap();
    assert!(audit.biased(), "{}", audit.to_text());
    let failing: Vec<&str> = audit
        .tests
        .iter()
        .filter(|t| t.adjusted_p < audit.alpha)
        .map(|t| t.name.as_str())
        .collect();
    assert!(
        failing.iter().any(|n| n.starts_with("displacement")),
        "{failing:?}"
    );
    assert!(
        failing.iter().any(|n| n.starts_with("rank correlation")),
        "{failing:?}"
    );
}
