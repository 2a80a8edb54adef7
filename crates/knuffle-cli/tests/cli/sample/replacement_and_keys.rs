//! `-r` (with replacement, uniform and by weight, endless, read twice
//! beyond memory) and the modes by key (`-k -p`: keys in or out together;
//! `--per-key`: exact counts per group, each uniform).

use super::*;

/// How often each first field (an index below `n`) appears in `lines`.
fn counts_of_first_field(lines: &[String], n: usize) -> Vec<usize> {
    let mut counts = vec![0usize; n];
    for line in lines {
        let i: usize = line.split('\t').next().unwrap().parse().unwrap();
        counts[i] += 1;
    }
    counts
}

#[test]
fn with_replacement_each_draw_is_uniform_and_rounding_fails() {
    let draws = 30_000usize;
    let lines = sample_lines(&["-r", "-n", &draws.to_string()], "replace", &numbered(3));
    assert_eq!(lines.len(), draws);
    let freq = |counts: &[usize]| -> Vec<f64> {
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    };
    let exact = vec![1.0 / 3.0; 3];
    let z = worst_z(&freq(&counts_of_first_field(&lines, 3)), &exact, draws);
    assert!(z < Z_BOUND, "z = {z}");
    // Two draws in a row are independent: pairs are uniform over 9.
    let mut pairs = vec![0usize; 9];
    for pair in lines.chunks_exact(2) {
        let a: usize = pair[0].parse().unwrap();
        let b: usize = pair[1].parse().unwrap();
        pairs[3 * a + b] += 1;
    }
    let pair_freq: Vec<f64> = pairs
        .iter()
        .map(|&c| c as f64 / (draws / 2) as f64)
        .collect();
    let z = worst_z(&pair_freq, &[1.0 / 9.0; 9], draws / 2);
    assert!(z < Z_BOUND, "pairs {pairs:?} (z = {z})");

    // Negative control: `round(u * (n - 1))` (ends drawn half as often).
    let mut rng = SplitMix(5);
    let mut rounded = vec![0usize; 3];
    for _ in 0..draws {
        rounded[(rng.uniform() * 2.0).round() as usize] += 1;
    }
    let z = worst_z(&freq(&rounded), &exact, draws);
    assert!(z > Z_BOUND, "the stand-in passed: {rounded:?} (z = {z})");
}

#[test]
fn with_replacement_by_weight_is_exact_and_truncated_weights_fail() {
    let draws = 30_000usize;
    for (weights, seed) in [
        (&["1", "2", "3", "10"][..], "integer weights"),
        (&["0.5", "1.5", "2", "4.25"][..], "binary fractions"),
    ] {
        let mut text = String::new();
        for (i, w) in weights.iter().enumerate() {
            text.push_str(&format!("{i}\t{w}\n"));
        }
        let args = ["-r", "-w", "2", "-n", &draws.to_string()];
        let lines = sample_lines(&args, seed, text.as_bytes());
        let values: Vec<f64> = weights.iter().map(|w| w.parse().unwrap()).collect();
        let total: f64 = values.iter().sum();
        let exact: Vec<f64> = values.iter().map(|w| w / total).collect();
        let counts = counts_of_first_field(&lines, weights.len());
        let freq: Vec<f64> = counts.iter().map(|&c| c as f64 / draws as f64).collect();
        let z = worst_z(&freq, &exact, draws);
        assert!(z < Z_BOUND, "{seed}: {counts:?} vs {exact:?} (z = {z})");
        if seed == "binary fractions" {
            // Negative control: weights read as integers (0, 1, 2, 4).
            let truncated = [0.0, 1.0, 2.0, 4.0];
            let mut rng = SplitMix(9);
            let mut biased = vec![0usize; 4];
            for _ in 0..draws {
                let mut u = rng.uniform() * 7.0;
                let mut i = 0;
                while u >= truncated[i] {
                    u -= truncated[i];
                    i += 1;
                }
                biased[i] += 1;
            }
            let freq: Vec<f64> = biased.iter().map(|&c| c as f64 / draws as f64).collect();
            let z = worst_z(&freq, &exact, draws);
            assert!(z > Z_BOUND, "the stand-in passed: {biased:?} (z = {z})");
        }
    }
}

#[test]
fn with_replacement_without_n_is_endless_and_limits_are_errors() {
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf 'a\\nb\\n' | timeout 60 '{}' sample -r --seed endless | head -n 1000 | wc -l",
            crate::support::binary().display()
        ))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "1000");
    let (code, err) = failure(&["-r", "-w", "1", "-n", "1"], b"18446744073709551615\n1\n");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("add up to more than 2^64 - 1"), "{err}");
    let big: Vec<u8> = (0..40_000)
        .map(|i| format!("{i:0100}\n"))
        .collect::<String>()
        .into_bytes();
    let (code, err) = failure(&["-r", "--memory", "1M"], &big);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("without -n holds every record"), "{err}");
    let (code, err) = failure(&["-r", "-p", "0.5"], b"a\n");
    assert_eq!(code, 2, "{err}");
}

#[test]
fn with_replacement_files_larger_than_memory_are_read_twice_to_the_same_sample() {
    // 40,000 records of 4 MB in all: above --memory 1M. Weights 1..=7 in
    // field 1; every 1000th weight is bad (for --skip-bad-weights).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.tsv");
    let mut text = String::new();
    for i in 0..40_000u32 {
        let weight = if i % 1000 == 999 {
            "x".to_owned()
        } else {
            (1 + i % 7).to_string()
        };
        text.push_str(&format!("{weight}\t{i:096}\n"));
    }
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    for mode in [
        &["-r", "-n", "3000"][..],
        &["-r", "-w", "1", "--skip-bad-weights", "-n", "3000"],
        &["-r", "-n", "1"],
    ] {
        let run = |memory: &str| {
            let mut args = vec!["sample", "--seed", "twice", "--memory", memory];
            args.extend_from_slice(mode);
            args.push(file);
            let output = TestCommand::knuffle().args(&args).output();
            assert!(
                output.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            output.stdout
        };
        let held = run("1G");
        let twice = run("1M");
        assert!(!held.is_empty());
        assert!(
            held == twice,
            "{mode:?}: the two-pass sample differs from the held one"
        );
    }
    // Too many draws for the limit is a clear error.
    let (code, err) = failure(&["-r", "-n", "1000000", "--memory", "1M", file], b"");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("1000000 draws"), "{err}");
}

/// A log of `users` users, `per_user` lines each, interleaved, with a
/// header; `tag` marks the file.
fn user_log(users: usize, per_user: usize, tag: &str) -> String {
    let mut text = String::from("user\tline\n");
    for line in 0..per_user {
        for user in 0..users {
            text.push_str(&format!("user{user}\t{tag}{line}\n"));
        }
    }
    text
}

/// The users of a sample's lines (header skipped).
fn users_of(out: &str) -> std::collections::BTreeMap<String, usize> {
    let mut users = std::collections::BTreeMap::new();
    for line in out.lines().skip(1) {
        *users
            .entry(line.split('\t').next().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    users
}

#[test]
fn distinct_keys_are_in_or_out_together_in_every_run_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tsv");
    let b = dir.path().join("b.tsv");
    std::fs::write(&a, user_log(3000, 3, "a")).unwrap();
    // The second file has other lines and only every other user.
    let text_b: String = user_log(3000, 2, "b")
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || l[4..l.find('\t').unwrap()].parse::<u32>().unwrap() % 2 == 0)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    std::fs::write(&b, text_b).unwrap();
    let run = |file: &std::path::Path, seed: &str| -> String {
        let output = TestCommand::knuffle()
            .args([
                "sample", "--header", "-k", "user", "-p", "1/4", "--seed", seed,
            ])
            .arg(file)
            .output();
        let (code, out, err) = code_and_text(&output);
        assert_eq!(code, 0, "{err}");
        out
    };
    let first = run(&a, "users");
    assert_eq!(first, run(&a, "users"), "the same run twice");
    let kept_a = users_of(&first);
    assert!(kept_a.values().all(|&n| n == 3), "all lines of a kept user");
    let kept_b = users_of(&run(&b, "users"));
    assert!(kept_b.values().all(|&n| n == 2));
    let even_in_a: Vec<&String> = kept_a
        .keys()
        .filter(|u| u[4..].parse::<u32>().unwrap() % 2 == 0)
        .collect();
    assert_eq!(
        even_in_a,
        kept_b.keys().collect::<Vec<_>>(),
        "same users in both files"
    );
    // Binomial(3000, 1/4): mean 750, sd 23.7.
    let z = |kept: usize| (kept as f64 - 750.0).abs() / (3000.0f64 * 0.25 * 0.75).sqrt();
    assert!(z(kept_a.len()) < Z_BOUND, "{} users kept", kept_a.len());
    assert_ne!(kept_a, users_of(&run(&a, "another seed")));

    // Negative controls: a decision per line (not per key) splits users,
    // and P truncated to 0.2 fails the count.
    let mut rng = SplitMix(13);
    let split_users = (0..3000)
        .filter(|_| {
            let kept = (0..3).filter(|_| rng.uniform() < 0.25).count();
            kept != 0 && kept != 3
        })
        .count();
    assert!(split_users > 0, "the per-line stand-in keeps users whole");
    let truncated = (0..3000).filter(|_| rng.uniform() < 0.2).count();
    assert!(z(truncated) > Z_BOUND, "the stand-in passed: {truncated}");
}

#[test]
fn stratified_counts_are_exact_and_each_group_is_uniform() {
    // Groups of 1, 3 and 10 records, interleaved.
    let mut text = String::new();
    let mut sizes = [1usize, 3, 10];
    let mut number = 0;
    while sizes.iter().any(|&s| s > 0) {
        for (group, left) in sizes.iter_mut().enumerate() {
            if *left > 0 {
                text.push_str(&format!("g{group},{number}\n"));
                number += 1;
                *left -= 1;
            }
        }
    }
    let trials = 400usize;
    let mut included = std::collections::BTreeMap::<String, usize>::new();
    let mut big_group: Vec<String> = Vec::new();
    for t in 0..trials {
        let lines = sample_lines(
            &["--per-key", "2", "-k", "1", "-d", ","],
            &format!("strata {t}"),
            text.as_bytes(),
        );
        let groups: Vec<&str> = lines.iter().map(|l| &l[..2]).collect();
        for (group, expected) in [("g0", 1), ("g1", 2), ("g2", 2)] {
            assert_eq!(groups.iter().filter(|&&g| g == group).count(), expected);
        }
        let numbers: Vec<u32> = lines.iter().map(|l| l[3..].parse().unwrap()).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "input order");
        for line in lines.iter().filter(|l| l.starts_with("g2")) {
            *included.entry(line.clone()).or_insert(0) += 1;
        }
        if t == 0 {
            big_group = text
                .lines()
                .filter(|l| l.starts_with("g2"))
                .map(str::to_owned)
                .collect();
        }
    }
    let freq: Vec<f64> = big_group
        .iter()
        .map(|l| *included.get(l).unwrap_or(&0) as f64 / trials as f64)
        .collect();
    let exact = vec![0.2; 10];
    let z = worst_z(&freq, &exact, trials);
    assert!(z < Z_BOUND, "{freq:?} (z = {z})");
    // Negative control: the first two records of each group.
    let first_two: Vec<f64> = (0..10).map(|i| if i < 2 { 1.0 } else { 0.0 }).collect();
    assert!(worst_z(&first_two, &exact, trials) > Z_BOUND);

    let (code, err) = failure(&["-k", "1"], b"a\n");
    assert_eq!(code, 2);
    assert!(err.contains("-k needs -p P"), "{err}");
    let (code, err) = failure(&["--per-key", "1", "-k", "3"], b"a\tb\n");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("line 1 of standard input has 2 fields, so no field 3"),
        "{err}"
    );
}
