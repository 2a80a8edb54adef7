//! Exact laws of samplers, computed by enumeration, for tests to hold a
//! sampler's frequencies against.

/// The inclusion probability of each item in `k` successive draws from
/// `weights` without replacement, each draw picking one of the items left
/// with probability proportional to its weight (numpy's
/// `choice(replace=False, p=)`, pandas' `sample(weights=)`): every ordered
/// draw enumerated, so for small cases only (`n! / (n-k)!` paths).
///
/// ```
/// let p = knuffle_stats::laws::successive_inclusion(&[1.0, 1.0, 2.0], 1);
/// assert_eq!(p, [0.25, 0.25, 0.5]);
/// ```
pub fn successive_inclusion(weights: &[f64], k: usize) -> Vec<f64> {
    fn walk(weights: &[f64], taken: &mut Vec<usize>, p: f64, k: usize, out: &mut [f64]) {
        if taken.len() == k {
            for &i in taken.iter() {
                out[i] += p;
            }
            return;
        }
        let left: f64 = (0..weights.len())
            .filter(|i| !taken.contains(i))
            .map(|i| weights[i])
            .sum();
        for i in 0..weights.len() {
            if !taken.contains(&i) {
                taken.push(i);
                walk(weights, taken, p * weights[i] / left, k, out);
                taken.pop();
            }
        }
    }
    let mut out = vec![0.0; weights.len()];
    walk(
        weights,
        &mut Vec::new(),
        1.0,
        k.min(weights.len()),
        &mut out,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_weights_give_k_over_n_and_all_items_give_one() {
        for p in successive_inclusion(&[3.0; 5], 2) {
            assert!((p - 0.4).abs() < 1e-12);
        }
        assert_eq!(successive_inclusion(&[1.0, 2.0, 3.0], 3), [1.0, 1.0, 1.0]);
        // Two draws from weights 1, 3: the light one is in with
        // probability 1; a third item of weight 0 never.
        let p = successive_inclusion(&[1.0, 3.0, 0.0], 2);
        assert!((p[0] - 1.0).abs() < 1e-12 && (p[1] - 1.0).abs() < 1e-12 && p[2] == 0.0);
    }
}
