//! `knuffle audit` on real files: GNU shuf passes, the naive swap is caught,
//! bad input exits 2 with the line number.

use std::path::Path;
use std::process::Command;

use knuffle_lab::zoo::{Algorithm, NoObserver};

fn audit(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let output = crate::support::TestCommand::knuffle()
        .arg("audit")
        .args(args)
        .stdin(stdin.unwrap_or("").as_bytes())
        .output();
    crate::support::code_and_text(&output)
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/audit")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn gnu_shuf_with_a_real_random_source_passes() {
    // 100,000 outputs of `shuf -i 1-5 --random-source=/dev/urandom`
    // (data/audit/make_gnu_shuf_fixtures.sh).
    let (code, out, err) = audit(&[&fixture("gnu_shuf_1-5_urandom.txt")], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("100000 shuffles of n = 5"), "{out}");
    assert!(out.contains("1-based (detected)"));
    assert!(out.contains("orders (120 cells)"));
    assert!(out.contains("verdict: no bias found"));
    assert!(out.contains("power:"));
}

#[test]
fn gnu_shuf_runs_seeded_with_16_bits_are_caught() {
    // 100,000 separate runs of plain `shuf -i 1-5` (data/audit/make_gnu_shuf_fixtures.sh).
    // GNU shuf 9.1 seeds its ISAAC generator with only as many bytes of
    // getrandom as the permutation needs (2 bytes for 5! = 120 orders; see
    // `strace -e getrandom shuf -i 1-5`), so across runs each order has
    // probability k/65536 for a k that varies by about 4% from order to
    // order. The counts' standard deviation is 45 instead of the 28.7 of a
    // uniform shuffle, and the full-permutation test sees it.
    let (code, out, err) = audit(&[&fixture("gnu_shuf_1-5.txt")], None);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("verdict: BIASED"), "{out}");
    let orders = out
        .lines()
        .find(|l| l.starts_with("orders (120 cells)"))
        .unwrap();
    assert!(orders.contains("e-"), "tiny p-value expected: {orders}");
}

fn naive_file(dir: &Path, lines: usize, separator: &str) -> String {
    let mut rng = knuffle::Seed::from_text("naive audit").rng();
    let mut text = String::new();
    for _ in 0..lines {
        let mut v: Vec<usize> = (1..=5).collect();
        Algorithm::NaiveSwap.run(&mut v, &mut rng, &mut NoObserver);
        let words: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        text.push_str(&words.join(separator));
        text.push('\n');
    }
    let path = dir.join("naive.txt");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn naive_swap_outputs_are_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let path = naive_file(dir.path(), 20_000, ", ");
    let (code, out, _) = audit(&[&path], None);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: BIASED"));
    let (_, out, _) = audit(&[&path, "--effect", "0.01"], None);
    assert!(
        out.contains("a bias of effect size w = 0.01 needs about"),
        "{out}"
    );
    // The same data through standard input.
    let text = std::fs::read_to_string(&path).unwrap();
    let (code, _, _) = audit(&[], Some(&text));
    assert_eq!(code, 1);
}

#[test]
fn card_deals_are_audited_by_position() {
    let mut rng = knuffle::Seed::from_text("cards").rng();
    let mut text = String::new();
    let names = |i: usize| knuffle_lab::cards::card_name(i);
    for _ in 0..3000 {
        let mut deck: Vec<usize> = (0..52).collect();
        knuffle::shuffle(&mut deck, &mut rng);
        let hand: Vec<String> = deck[..5].iter().map(|&c| names(c)).collect();
        text.push_str(&hand.join(" "));
        text.push('\n');
    }
    let (code, out, err) = audit(&[], Some(&text));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3000 deals of 5 from n = 52"), "{out}");
    assert!(out.contains("deal positions"));
}

#[test]
fn trouble_exits_2_with_line_numbers() {
    let (code, _, err) = audit(&[], Some("1 2 3\n3 2 1\n2 x 1\n"));
    assert_eq!(code, 2);
    assert!(
        err.contains("line 3: \"x\" is not a non-negative integer"),
        "{err}"
    );
    let (code, _, err) = audit(&[], Some("1 2 3\n3 3 1\n"));
    assert_eq!(code, 2);
    assert!(err.contains("line 2: 3 appears more than once"), "{err}");
    let (code, _, err) = audit(&[], Some("1 2 3\n1 2\n"));
    assert_eq!(code, 2);
    assert!(err.contains("line 2: has 2 items"), "{err}");
    let (code, _, err) = audit(&["/nonexistent/shuffles.txt"], None);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/shuffles.txt"), "{err}");
    let (code, _, err) = audit(&[], Some(""));
    assert_eq!(code, 2);
    assert!(err.contains("no shuffles"), "{err}");
    let (code, _, _) = audit(&["--base", "2"], Some("1 2\n"));
    assert_eq!(code, 2);
}

#[test]
fn dev_zero_is_refused_at_once_in_bounded_memory() {
    let mut child = Command::new(crate::support::binary())
        .args(["audit", "/dev/zero"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let (status, peak) = crate::support::external::wait_with_peak_memory(&mut child);
    assert_eq!(status.code(), Some(2));
    assert!(peak < 32 << 20, "peak {peak} bytes");
    let (code, _, err) = audit(&["/dev/zero"], None);
    assert_eq!(code, 2);
    assert!(err.contains("line 1: holds a NUL byte"), "{err}");
}

#[test]
fn too_few_shuffles_are_inconclusive_never_fair() {
    for input in ["3 1 2\n", "2 1\n", "1 2\n2 1\n1 2\n"] {
        let (code, out, err) = audit(&[], Some(input));
        assert_eq!(code, 0, "{input:?}: {out}{err}");
        if input.lines().count() == 1 {
            assert!(out.contains("verdict: inconclusive (1 shuffle:"), "{out}");
            assert!(out.contains("\n1 shuffle of n = "), "{out}");
            assert!(!out.contains("1 shuffles"), "{out}");
        }
        assert!(!out.contains("no bias found"), "{input:?}: {out}");
    }
}

#[test]
fn verdicts_count_tests_in_the_right_number() {
    // Deals: only the position test runs.
    let mut text = String::new();
    let mut rng = knuffle::Seed::from_text("plural").rng();
    for _ in 0..400 {
        let p = knuffle::permutation(6, &mut rng);
        text.push_str(&format!("{} {}\n", p[0], p[1]));
    }
    let (code, out, err) = audit(&["--n", "6"], Some(&text));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("over 1 test)"), "{out}");
    let (_, out, _) = audit(&["--n", "6"], Some(&format!("\n{text}")));
    assert!(out.contains(", 1 blank line skipped\n"), "{out}");
}

#[test]
fn partial_deals_without_n_hint_at_n() {
    let (code, _, err) = audit(&[], Some("3 9 14\n20 1 7\n"));
    assert_eq!(code, 2);
    assert!(err.contains("give its size with --deck-size"), "{err}");
}

/// 20 permutations of 100,000 items: the exact laws of the statistics are
/// no longer quadratic in n (this ran for over a minute before).
#[test]
fn large_permutations_are_audited() {
    let mut text = String::new();
    let mut rng = knuffle::Seed::from_text("large").rng();
    for _ in 0..20 {
        let p = knuffle::permutation(100_000, &mut rng);
        let line: Vec<String> = p.iter().map(usize::to_string).collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    let (code, out, err) = audit(&[], Some(&text));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("20 shuffles of n = 100000"), "{out}");
}

#[test]
fn deck_size_is_the_long_name_and_n_still_works() {
    let input = "3,1\n0,2\n1,0\n";
    let new = audit(&["--deck-size", "4"], Some(input));
    let old = audit(&["--n", "4"], Some(input));
    assert_eq!(new, old);
    assert!(new.1.contains("deals of 2 from n = 4"), "{}", new.1);
}
