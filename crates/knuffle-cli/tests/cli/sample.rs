//! `knuffle sample`: each mode's law checked against exact values with
//! fixed seeds, and each check shown able to fail (a deliberately biased
//! stand-in, simulated here, fails the same check); input order, headers,
//! CSV records kept whole, endless input, and the errors.

use std::process::Command;

use crate::support::{TestCommand, code_and_text, knuffle_with_input, stdout};

mod replacement_and_keys;

/// The lines `knuffle sample ARGS --seed SEED` writes for `input`.
fn sample_lines(args: &[&str], seed: &str, input: &[u8]) -> Vec<String> {
    let output = TestCommand::knuffle()
        .arg("sample")
        .args(args)
        .args(["--seed", seed])
        .stdin(input)
        .output();
    let (code, out, err) = code_and_text(&output);
    assert_eq!(code, 0, "sample {args:?}: {err}");
    out.lines().map(str::to_owned).collect()
}

/// Largest deviation of `observed` frequencies from `exact` ones, in
/// standard errors of a frequency over `trials`.
fn worst_z(observed: &[f64], exact: &[f64], trials: usize) -> f64 {
    observed
        .iter()
        .zip(exact)
        .map(|(&o, &p)| {
            let se = (p * (1.0 - p) / trials as f64).sqrt();
            if se == 0.0 {
                if (o - p).abs() < 1e-12 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                (o - p).abs() / se
            }
        })
        .fold(0.0, f64::max)
}

/// The bound a correct sampler stays under (about 1 in 10^5 per value).
const Z_BOUND: f64 = 4.5;

/// A small generator for the biased stand-ins (SplitMix64, Steele et al.
/// 2014); only the stand-ins use it.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        // Fine for a stand-in: its bias is not what is under test.
        self.next() % n
    }
}

fn numbered(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn uniform_inclusion_is_k_over_n_and_an_off_by_one_reservoir_fails() {
    let (n, k, trials) = (5usize, 2usize, 700usize);
    let input = numbered(n);
    let mut included = vec![0usize; n];
    let mut first = vec![0usize; n];
    for t in 0..trials {
        let lines = sample_lines(&["-n", "2"], &format!("uniform {t}"), &input);
        assert_eq!(lines.len(), k);
        for (position, line) in lines.iter().enumerate() {
            let i: usize = line.parse().unwrap();
            included[i] += 1;
            if position == 0 {
                first[i] += 1;
            }
        }
    }
    let freq = |counts: &[usize]| -> Vec<f64> {
        counts.iter().map(|&c| c as f64 / trials as f64).collect()
    };
    let inclusion_exact = vec![k as f64 / n as f64; n];
    let first_exact = vec![1.0 / n as f64; n];
    let z = worst_z(&freq(&included), &inclusion_exact, trials);
    assert!(z < Z_BOUND, "inclusion {included:?} (z = {z})");
    let z = worst_z(&freq(&first), &first_exact, trials);
    assert!(z < Z_BOUND, "first position {first:?} (z = {z})");

    // Negative control: the classic off-by-one reservoir (record i replaces
    // a slot when j < k for j uniform in 0..i instead of 0..=i) fails.
    let mut rng = SplitMix(7);
    let mut biased = vec![0usize; n];
    for _ in 0..trials {
        let mut slots: Vec<usize> = (0..k).collect();
        for i in k..n {
            let j = rng.below(i as u64) as usize;
            if j < k {
                slots[j] = i;
            }
        }
        for i in slots {
            biased[i] += 1;
        }
    }
    let z = worst_z(&freq(&biased), &inclusion_exact, trials);
    assert!(z > Z_BOUND, "the stand-in passed: {biased:?} (z = {z})");
}

#[test]
fn inorder_keeps_input_order_and_seeds_replay() {
    let input = numbered(1000);
    for seed in ["a", "b", "c"] {
        let lines = sample_lines(&["-n", "50", "--inorder"], seed, &input);
        let numbers: Vec<u32> = lines.iter().map(|l| l.parse().unwrap()).collect();
        assert_eq!(numbers.len(), 50);
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    }
    let once = sample_lines(&["-n", "20"], "replay", &input);
    assert_eq!(once, sample_lines(&["-n", "20"], "replay", &input));
    assert_ne!(once, sample_lines(&["-n", "20"], "other", &input));
    let shuffled = sample_lines(&["-n", "20"], "replay", &input);
    assert!(
        shuffled
            .windows(2)
            .any(|w| w[0].parse::<u32>().unwrap() > w[1].parse().unwrap()),
        "random order without --inorder"
    );
}

#[test]
fn fewer_records_than_k_and_no_mode_give_a_permutation() {
    let input = numbered(10);
    for args in [&["-n", "100"][..], &[][..], &["-n", "10", "--inorder"][..]] {
        let mut lines = sample_lines(args, "perm", &input);
        lines.sort_by_key(|l| l.parse::<u32>().unwrap());
        let expected: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        assert_eq!(lines, expected, "{args:?}");
    }
    assert!(sample_lines(&["-n", "0"], "zero", &input).is_empty());
}

#[test]
fn the_header_stays_on_top_and_later_headers_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.tsv");
    let two = dir.path().join("two.tsv");
    std::fs::write(&one, "id\tw\na\t1\nb\t2\n").unwrap();
    std::fs::write(&two, "id\tw\nc\t3").unwrap();
    for mode in [&["-n", "2"][..], &["-p", "1"][..], &["-w", "w"][..]] {
        let output = TestCommand::knuffle()
            .args(["sample", "--header", "--seed", "h"])
            .args(mode)
            .arg(&one)
            .arg(&two)
            .output();
        let (code, out, err) = code_and_text(&output);
        assert_eq!(code, 0, "{mode:?}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "id\tw", "{mode:?}");
        assert!(!lines[1..].contains(&"id\tw"), "{mode:?}: {out}");
        assert!(
            out.ends_with('\n'),
            "a last record without newline gets one"
        );
    }
}

#[test]
fn bernoulli_counts_are_binomial_and_a_truncated_p_fails() {
    let n = 60_000usize;
    let input = numbered(n);
    let lines = sample_lines(&["-p", "1/3"], "bernoulli", &input);
    let numbers: Vec<usize> = lines.iter().map(|l| l.parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "input order");
    let p = 1.0 / 3.0;
    let z_of =
        |count: usize| (count as f64 - n as f64 * p).abs() / (n as f64 * p * (1.0 - p)).sqrt();
    assert!(z_of(numbers.len()) < Z_BOUND, "{} kept", numbers.len());
    // Both halves of the input are kept at the same rate.
    let early = numbers.iter().filter(|&&i| i < n / 2).count();
    let half_z =
        (early as f64 - n as f64 * p / 2.0).abs() / (n as f64 / 2.0 * p * (1.0 - p)).sqrt();
    assert!(half_z < Z_BOUND, "{early} in the first half");
    // The decimal form is the same exact law: 0.25 = 25/100.
    let quarter = sample_lines(&["-p", "0.25"], "quarter", &input).len();
    let z = (quarter as f64 - n as f64 / 4.0).abs() / (n as f64 * 0.25 * 0.75).sqrt();
    assert!(z < Z_BOUND, "{quarter} kept with 0.25");

    // Negative control: P = 1/3 truncated to 0.3 fails the same check.
    let mut rng = SplitMix(3);
    let truncated = (0..n).filter(|_| rng.uniform() < 0.3).count();
    assert!(
        z_of(truncated) > Z_BOUND,
        "the stand-in passed: {truncated}"
    );

    assert!(sample_lines(&["-p", "0"], "none", &input).is_empty());
    assert_eq!(sample_lines(&["-p", "1"], "all", &input).len(), n);
}

#[test]
fn endless_input_streams_in_bounded_memory() {
    // 600 MB of address space is far less than what holding the input
    // would take; `timeout` ends a run that never writes.
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 600000; yes | timeout 60 '{}' sample -p 0.001 --seed endless | head -n 5",
            crate::support::binary().display()
        ))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "y\ny\ny\ny\ny\n");
}

const WEIGHTS: [f64; 6] = [1.0, 2.0, 3.0, 4.0, 10.0, 0.5];

fn weighted_input() -> Vec<u8> {
    let mut text = String::from("item\tweight\n");
    for (i, w) in WEIGHTS.iter().enumerate() {
        text.push_str(&format!("{i}\t{w}\n"));
    }
    text.into_bytes()
}

#[test]
fn weighted_inclusion_is_successive_sampling_and_proportional_keys_fail() {
    let (k, trials) = (3usize, 700usize);
    let exact = knuffle_stats::laws::successive_inclusion(&WEIGHTS, k);
    let total: f64 = WEIGHTS.iter().sum();
    let first_exact: Vec<f64> = WEIGHTS.iter().map(|w| w / total).collect();
    let input = weighted_input();
    let mut included = vec![0usize; WEIGHTS.len()];
    let mut first = vec![0usize; WEIGHTS.len()];
    for t in 0..trials {
        let lines = sample_lines(
            &["--header", "-w", "weight", "-n", "3"],
            &format!("w {t}"),
            &input,
        );
        assert_eq!(lines[0], "item\tweight");
        assert_eq!(lines.len(), k + 1);
        for (position, line) in lines[1..].iter().enumerate() {
            let i: usize = line.split('\t').next().unwrap().parse().unwrap();
            included[i] += 1;
            if position == 0 {
                first[i] += 1;
            }
        }
    }
    let freq = |counts: &[usize]| -> Vec<f64> {
        counts.iter().map(|&c| c as f64 / trials as f64).collect()
    };
    let z = worst_z(&freq(&included), &exact, trials);
    assert!(z < Z_BOUND, "inclusion {included:?} vs {exact:?} (z = {z})");
    let z = worst_z(&freq(&first), &first_exact, trials);
    assert!(
        z < Z_BOUND,
        "first drawn {first:?} vs {first_exact:?} (z = {z})"
    );

    // Negative control: keys u * w (a common mistake for u^(1/w)) fail.
    let mut rng = SplitMix(11);
    let mut biased = vec![0usize; WEIGHTS.len()];
    for _ in 0..trials {
        let mut keyed: Vec<(f64, usize)> = WEIGHTS
            .iter()
            .enumerate()
            .map(|(i, w)| (rng.uniform() * w, i))
            .collect();
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
        for &(_, i) in &keyed[..k] {
            biased[i] += 1;
        }
    }
    let z = worst_z(&freq(&biased), &exact, trials);
    assert!(z > Z_BOUND, "the stand-in passed: {biased:?} (z = {z})");
}

#[test]
fn weighted_without_n_is_a_weighted_shuffle_of_everything() {
    let input = weighted_input();
    let lines = sample_lines(&["--header", "-w", "2"], "all", &input);
    assert_eq!(lines.len(), WEIGHTS.len() + 1);
    let mut items: Vec<usize> = lines[1..]
        .iter()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect();
    items.sort_unstable();
    assert_eq!(items, (0..WEIGHTS.len()).collect::<Vec<_>>());
    let in_order = sample_lines(
        &["--header", "-w", "2", "-n", "4", "--inorder"],
        "o",
        &input,
    );
    let numbers: Vec<usize> = in_order[1..]
        .iter()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
}

#[test]
fn csv_records_with_quoted_newlines_are_kept_whole() {
    let input = b"name,weight\r\n\"Smith, \"\"J\"\"\nline two\",2\r\nplain,1\r\n\"x\",\"3\"";
    let records = [
        "\"Smith, \"\"J\"\"\nline two\",2\r\n",
        "plain,1\r\n",
        "\"x\",\"3\"\n",
    ];
    for args in [
        &["--csv", "--header", "-n", "3"][..],
        &["--csv", "--header", "-w", "weight"][..],
        &["--csv", "--header", "-w", "2", "-n", "2"][..],
        &["--csv", "--header", "-p", "1"][..],
    ] {
        let output = TestCommand::knuffle()
            .arg("sample")
            .args(args)
            .args(["--seed", "csv"])
            .stdin(input)
            .output();
        let (code, out, err) = code_and_text(&output);
        assert_eq!(code, 0, "{args:?}: {err}");
        let body = out.strip_prefix("name,weight\r\n").expect("header first");
        let mut rest = body;
        let mut found = 0;
        while !rest.is_empty() {
            let record = records
                .iter()
                .find(|r| rest.starts_with(*r))
                .unwrap_or_else(|| panic!("{args:?}: not a whole record at {rest:?}"));
            rest = &rest[record.len()..];
            found += 1;
        }
        assert!(found >= 2, "{args:?}: {out:?}");
    }
}

#[test]
fn nul_records_with_z() {
    let output = knuffle_with_input(&["sample", "-z", "-n", "5", "--seed", "z"], b"a\nb\0c\0d");
    let mut records: Vec<&[u8]> = output.stdout.split_inclusive(|&b| b == 0).collect();
    records.sort();
    assert_eq!(records, [&b"a\nb\0"[..], b"c\0", b"d\0"]);
}

/// `knuffle sample ARGS` on `input`: status and standard error.
fn failure(args: &[&str], input: &[u8]) -> (i32, String) {
    let output = knuffle_with_input(&[&["sample", "--seed", "e"][..], args].concat(), input);
    let (code, out, err) = code_and_text(&output);
    assert!(code != 0 || out.is_empty() || !err.is_empty());
    (code, err)
}

#[test]
fn errors_are_clear_with_the_right_status() {
    let table = b"id\tweight\na\t1\nb\t0\nc\tx\nd\n";
    let (code, err) = failure(&["--header", "-w", "weight"], table);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("line 3 of standard input") && err.contains("field 2 ('weight') is '0'"),
        "{err}"
    );
    let (code, err) = failure(
        &["--header", "-w", "weight", "--skip-bad-weights"],
        b"id\tweight\na\t1\nb\t-2\nc\tnan\nd\tinf\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("3 records without a positive finite weight skipped"),
        "{err}"
    );
    let (code, err) = failure(&["--header", "-w", "2", "--skip-bad-weights"], table);
    assert_eq!(code, 1, "a missing field is an error even so");
    assert!(
        err.contains("line 5 of standard input has 1 field, so no field 2"),
        "{err}"
    );
    for (args, needle) in [
        (
            &["--header", "-w", "size"][..],
            "no field of that name in the header",
        ),
        (&["-w", "weight"][..], "field names need --header"),
        (&["-w", "0"][..], "fields are numbered from 1"),
        (&["-p", "1.5"][..], "greater than 1"),
        (&["-p", "2"][..], "greater than 1"),
        (&["-p", "-0.5"][..], "less than 0"),
        (&["-p", "4/3"][..], "greater than 1"),
        (&["-p", "abc"][..], "not a number"),
        (&["-n", "-1"][..], "-1"),
        (&["-d", "ab", "-n", "1"][..], "invalid delimiter"),
        // Conflicting options are named as typed.
        (
            &["-n", "10", "-p", "0.1"][..],
            "'-n <K>' cannot be used with '-p <P>'",
        ),
        (
            &["--count", "10", "-p", "0.1"][..],
            "'--count <K>' cannot be used with '-p <P>'",
        ),
    ] {
        let (code, err) = failure(args, table);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // CSV read with the TAB delimiter: the header is one field; the message
    // says so.
    let (code, err) = failure(&["--header", "-w", "weight"], b"id,weight\na,1\n");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("for comma-separated records, add --csv"),
        "{err}"
    );
    let output = TestCommand::knuffle()
        .args(["sample", "-n", "1", "/nonexistent/file"])
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 1);
    assert!(err.contains("cannot open '/nonexistent/file'"), "{err}");
}

#[test]
fn a_sample_larger_than_memory_is_an_error() {
    let big: Vec<u8> = (0..40_000)
        .map(|i| format!("{i:0100}\n"))
        .collect::<String>()
        .into_bytes();
    // A sample that is held (-n K) beyond the limit is an error; the
    // shuffle of every record is not held (sample_external).
    let (code, err) = failure(&["-n", "30000", "--memory", "1M"], &big);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("more than the memory limit"), "{err}");
    let output = knuffle_with_input(
        &["sample", "--memory", "1M", "-n", "10", "--seed", "m"],
        &big,
    );
    assert_eq!(stdout(&output).lines().count(), 10);
}

#[test]
fn a_reader_that_goes_away_ends_the_run_quietly() {
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "seq 300000 | '{}' sample -n 300000 --seed pipe | head -n 1",
            crate::support::binary().display()
        ))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 1);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn output_file_is_written_whole_and_may_be_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    std::fs::write(&data, numbered(100)).unwrap();
    let expected = sample_lines(&["-n", "5"], "file", &numbered(100));
    let output = TestCommand::knuffle()
        .args(["sample", "-n", "5", "--seed", "file", "-o"])
        .arg(&data)
        .arg(&data)
        .output();
    assert!(
        output.status.success(),
        "{}",
        crate::support::stderr(&output)
    );
    assert!(output.stdout.is_empty());
    let written = std::fs::read_to_string(&data).unwrap();
    assert_eq!(written.lines().collect::<Vec<_>>(), expected);
    let output = TestCommand::knuffle()
        .args(["sample", "-n", "1", "-o"])
        .arg(dir.path().join("missing/out.txt"))
        .arg(&data)
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 1);
    assert!(
        err.contains("missing") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn print_random_prefixes_each_records_value() {
    let input = weighted_input();
    let drawn = sample_lines(&["--header", "-w", "2", "--print-random"], "keys", &input);
    assert_eq!(drawn[0], "random_value\titem\tweight");
    let keys: Vec<f64> = drawn[1..]
        .iter()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(keys.len(), WEIGHTS.len());
    assert!(keys.iter().all(|&k| k > 0.0 && k < 1.0), "{keys:?}");
    assert!(
        keys.windows(2).all(|w| w[0] > w[1]),
        "selection order: {keys:?}"
    );
    // The same seed in input order: the same keys, each with its record.
    let in_order = sample_lines(
        &[
            "--header",
            "-w",
            "2",
            "-n",
            "6",
            "--inorder",
            "--print-random",
        ],
        "keys",
        &input,
    );
    let mut sorted_drawn = drawn[1..].to_vec();
    sorted_drawn.sort_by_key(|l| l.split('\t').nth(1).unwrap().to_owned());
    assert_eq!(sorted_drawn, in_order[1..]);

    let lines = sample_lines(&["-p", "0.3", "--print-random"], "draws", &numbered(2000));
    for line in &lines {
        let (value, _) = line.split_once('\t').unwrap();
        let (j, b) = value.split_once('/').unwrap();
        assert_eq!(b, "10");
        assert!(j.parse::<u64>().unwrap() < 3, "{line}");
    }
    let keyed = sample_lines(
        &["-k", "1", "-p", "1/2", "--print-random"],
        "draws",
        b"a\nb\na\nc\nd\n",
    );
    for line in &keyed {
        assert!(line.starts_with("0/2\t"), "{line}");
    }
    for args in [
        &["-n", "2"][..],
        &["-r", "-n", "2"][..],
        &["--per-key", "1", "-k", "1"][..],
    ] {
        let (code, err) = failure(&[args, &["--print-random"]].concat(), b"a\n");
        assert_eq!(code, 2, "{args:?}");
        assert!(!err.is_empty());
    }
}

/// The output of every mode for one seed, pinned (CHANGELOG's value
/// stability policy: a change here is a change of output for a seed).
#[test]
fn outputs_for_a_seed_are_pinned() {
    let input = b"id\tw\na\t1\nb\t2\nc\t3\nd\t4\ne\t5\nf\t6\n";
    for (args, expected) in [
        (&["-n", "3"][..], "b c f"),
        (&["-p", "1/2"][..], "a c e f"),
        (&["-w", "w", "-n", "3"][..], "f e d"),
        (&["-r", "-n", "4"][..], "a e b d"),
        (&["-r", "-w", "w", "-n", "4"][..], "c e d e"),
        (&["-k", "id", "-p", "1/2"][..], "a b f"),
    ] {
        let lines = sample_lines(&[&["--header"][..], args].concat(), "golden", input);
        let ids: Vec<&str> = lines[1..].iter().map(|l| &l[..1]).collect();
        assert_eq!(ids.join(" "), expected, "{args:?}");
    }
}

/// `-k FIELDS -p P` decides as docs/sample.md specifies: re-derived here
/// from SHA-256, knuffle's ChaCha20 generator and `below`.
#[test]
fn distinct_decisions_follow_the_documented_specification() {
    use sha2::{Digest, Sha256};
    let seed_text = "spec";
    let seed_key: [u8; 32] = Sha256::digest(seed_text.as_bytes()).into();
    let keys: Vec<String> = (0..200).map(|i| format!("user{i}")).collect();
    let input: String = keys.iter().map(|k| format!("{k}\tx\n")).collect();
    let kept = sample_lines(&["-k", "1", "-p", "3/7"], seed_text, input.as_bytes());
    let expected: Vec<String> = keys
        .iter()
        .filter(|key| {
            let mut hash = Sha256::new();
            hash.update(b"knuffle sample -k/1\0");
            hash.update(seed_key);
            hash.update((key.len() as u64).to_le_bytes());
            hash.update(key.as_bytes());
            let h: [u8; 32] = hash.finalize().into();
            knuffle::below(7, &mut knuffle::Seed::from_key(h).rng()) < 3
        })
        .map(|key| format!("{key}\tx"))
        .collect();
    assert_eq!(kept, expected);
    assert!(!expected.is_empty() && expected.len() < keys.len());
}

#[test]
fn gen_random_inorder_writes_every_record_with_the_value_it_got() {
    let input = numbered(500);
    let all = sample_lines(&["-p", "3/10", "--gen-random-inorder"], "all", &input);
    assert_eq!(all.len(), 500);
    let mut kept_by_value = Vec::new();
    for (i, line) in all.iter().enumerate() {
        let (value, record) = line.split_once('\t').unwrap();
        assert_eq!(record, i.to_string(), "input order");
        let (j, b) = value.split_once('/').unwrap();
        assert_eq!(b, "10");
        if j.parse::<u64>().unwrap() < 3 {
            kept_by_value.push(record.to_owned());
        }
    }
    // The records whose value is below P are the sample of the same seed.
    assert_eq!(kept_by_value, sample_lines(&["-p", "3/10"], "all", &input));

    let weighted = weighted_input();
    let every = sample_lines(
        &["--header", "-w", "2", "--gen-random-inorder"],
        "k",
        &weighted,
    );
    let printed = sample_lines(&["--header", "-w", "2", "--print-random"], "k", &weighted);
    assert_eq!(every[0], "random_value\titem\tweight");
    let mut by_key = every[1..].to_vec();
    by_key.sort_by(|a, b| {
        let key = |l: &String| l.split('\t').next().unwrap().parse::<f64>().unwrap();
        key(b).total_cmp(&key(a))
    });
    assert_eq!(by_key, printed[1..], "the same keys as --print-random");
    let (code, _) = failure(&["-n", "2", "--gen-random-inorder"], b"a\n");
    assert_eq!(code, 2);
}
