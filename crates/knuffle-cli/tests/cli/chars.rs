//! `knuffle chars` through the real binary: golden outputs under fixed
//! seeds, standard input line by line, graphemes kept whole, short strings.
//!
//! Regenerate the golden files after an intended change with
//! `KNUFFLE_BLESS=1 cargo test -p knuffle-cli --test cli chars::`.

use crate::support::{golden, golden_with_input, knuffle, knuffle_with_input, stderr, stdout};

fn sorted_graphemes(text: &str) -> Vec<String> {
    use unicode_segmentation::UnicodeSegmentation;
    let mut clusters: Vec<String> = text.graphemes(true).map(str::to_owned).collect();
    clusters.sort();
    clusters
}

const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

#[test]
fn golden_outputs_under_fixed_seeds() {
    golden(
        "chars-seed000.txt",
        &["chars", "--seed", "golden", ALPHABET],
    );
    golden(
        "chars-count.txt",
        &["chars", "--count", "3", "--seed", "golden", ALPHABET],
    );
    golden(
        "chars-words.txt",
        &[
            "chars",
            "--words",
            "--seed",
            "golden",
            "the quick  brown\tfox jumps",
        ],
    );
    golden_with_input(
        "chars-stdin.txt",
        &["chars", "--seed", "golden"],
        "hello\r\nworld\n\nCrème brûlée".as_bytes(),
    );
}

#[test]
fn the_output_is_the_library_shuffle_for_the_same_seed() {
    let output = knuffle(&["chars", "--seed", "lib", ALPHABET]);
    let mut rng = knuffle::Seed::from_text("lib").rng();
    let expected = knuffle::text::shuffle_graphemes(ALPHABET, &mut rng);
    assert_eq!(stdout(&output), format!("{expected}\n"));
}

#[test]
fn count_prints_distinct_shuffles_of_the_same_characters() {
    let output = knuffle(&["chars", "--count", "5", ALPHABET]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5);
    for line in &lines {
        assert_eq!(sorted_graphemes(line), sorted_graphemes(ALPHABET));
    }
    let distinct: std::collections::BTreeSet<&&str> = lines.iter().collect();
    assert_eq!(distinct.len(), 5, "36! orders: five draws do not repeat");
}

#[test]
fn grapheme_clusters_stay_whole() {
    let input = "e\u{301}🇳🇱🇩🇪👨‍👩‍👧ab";
    for _ in 0..10 {
        let output = knuffle(&["chars", input]);
        let text = stdout(&output);
        let line = text.strip_suffix('\n').unwrap();
        assert!(line.contains("e\u{301}") && line.contains("🇳🇱") && line.contains("🇩🇪"));
        assert!(line.contains("👨‍👩‍👧"));
        assert_eq!(sorted_graphemes(line), sorted_graphemes(input));
    }
}

#[test]
fn code_points_mode_shuffles_chars() {
    let output = knuffle(&["chars", "--chars", "--seed", "cp", "e\u{301}x"]);
    let mut got: Vec<char> = stdout(&output).trim_end().chars().collect();
    got.sort();
    let mut want: Vec<char> = "e\u{301}x".chars().collect();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn standard_input_keeps_every_line_and_its_ending() {
    let input = b"abc\r\n\nxyz 123\nlast line without newline";
    let output = knuffle_with_input(&["chars", "--seed", "lines"], input);
    assert!(output.status.success());
    let text = stdout(&output);
    let original = String::from_utf8(input.to_vec()).unwrap();
    let got: Vec<&str> = text.split('\n').collect();
    let want: Vec<&str> = original.split('\n').collect();
    assert_eq!(got.len(), want.len());
    assert!(got[0].ends_with('\r'), "CRLF kept: {got:?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(sorted_graphemes(g), sorted_graphemes(w));
    }
    assert!(!text.ends_with('\n'), "no newline added to the last line");
}

#[test]
fn short_strings_come_back_unchanged_and_verbose_says_so() {
    let quiet = knuffle(&["chars", "x", ""]);
    assert!(quiet.status.success());
    assert_eq!(stdout(&quiet), "x\n\n");
    assert!(quiet.stderr.is_empty());
    let verbose = knuffle(&["chars", "--verbose", "--seed", "s", "x"]);
    assert_eq!(stdout(&verbose), "x\n");
    let notes = stderr(&verbose);
    assert!(notes.contains("seed: s"), "{notes}");
    assert!(
        notes.contains("argument 1 has 1 character: printed unchanged"),
        "{notes}"
    );
}

#[test]
fn words_mode_moves_words_and_keeps_whitespace() {
    let output = knuffle(&["chars", "--words", "  alpha beta\tgamma  "]);
    let line = stdout(&output);
    let line = line.strip_suffix('\n').unwrap();
    assert!(line.starts_with("  ") && line.ends_with("  "));
    assert_eq!(line.matches('\t').count(), 1);
    let mut words: Vec<&str> = line.split_whitespace().collect();
    words.sort();
    assert_eq!(words, ["alpha", "beta", "gamma"]);
}

#[test]
fn input_that_is_not_utf8_stops_the_run_after_the_lines_before_it() {
    let output = knuffle_with_input(&["chars", "--seed", "u"], b"fine\nbad \xff line\nnever\n");
    assert_eq!(output.status.code(), Some(1));
    let printed = stdout(&output);
    assert_eq!(printed.len(), "fine\n".len(), "{printed:?}");
    assert_eq!(
        sorted_graphemes(printed.trim_end()),
        sorted_graphemes("fine")
    );
    assert!(stderr(&output).contains("line 2 of standard input is not valid UTF-8"));
}

/// Standard input is shuffled line by line: the first output line arrives
/// while standard input is still open (the child would otherwise wait for
/// its end forever, and the read below would never return).
#[test]
fn each_line_is_printed_before_the_next_is_read() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    // Under `timeout`: a knuffle that waited for the end of its input
    // would be killed, and the first read below would find nothing.
    let mut child = Command::new("timeout")
        .arg("60")
        .arg(crate::support::binary())
        .args(["chars", "--seed", "stream"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn knuffle chars");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    for (i, line) in ["hello", "world", "Crème brûlée"].iter().enumerate() {
        writeln!(input, "{line}").expect("the child reads");
        input.flush().expect("flush");
        let mut got = String::new();
        output.read_line(&mut got).expect("a line comes back");
        assert_eq!(
            sorted_graphemes(got.trim_end()),
            sorted_graphemes(line),
            "line {i}"
        );
    }
    drop(input);
    assert!(child.wait().expect("the child ends").success());
}

/// `yes | knuffle chars | head -1`: an endless input is no reason to wait.
#[test]
fn an_endless_input_piped_to_head_ends_at_once() {
    use std::process::{Command, Stdio};
    let output = Command::new("sh")
        .arg("-c")
        // Memory capped: a knuffle that read all of its input first would
        // fail here instead of exhausting the machine.
        .arg(format!(
            "ulimit -v 1000000; yes | timeout 60 '{}' chars | head -1",
            crate::support::binary().display()
        ))
        .stdout(Stdio::piped())
        .output()
        .expect("sh runs");
    assert_eq!(output.stdout, b"y\n");
}

#[test]
fn a_line_above_max_line_is_an_error_after_the_lines_before_it() {
    let mut input = b"short\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', 2000));
    input.extend(b"\nafter\n");
    let output = knuffle_with_input(&["chars", "--max-line", "1K"], &input);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(output.stdout.len(), "short\n".len());
    assert!(
        stderr(&output)
            .contains("line 2 of standard input is longer than --max-line (1024 bytes = 1 KiB)"),
        "{}",
        stderr(&output)
    );
    // Exactly at the cap is fine, with either line ending.
    let mut exact = vec![b'y'; 1024];
    exact.extend(b"\r\n");
    exact.extend(vec![b'z'; 1024]);
    let output = knuffle_with_input(&["chars", "--max-line", "1K"], &exact);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(output.stdout, exact);
    let bad = knuffle(&["chars", "--max-line", "lots", "x"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `knuffle chars < /dev/zero`: one endless line, stopped at the cap in
/// bounded memory.
#[test]
fn dev_zero_stops_at_the_cap_in_bounded_memory() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::support::binary())
        .args(["chars", "--max-line", "4M"])
        .stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let (status, peak) = crate::support::external::wait_with_peak_memory(&mut child);
    assert_eq!(status.code(), Some(1));
    assert!(peak < 40 << 20, "peak {peak} bytes for a 4 MiB cap");
    let default_cap = Command::new(crate::support::binary())
        .arg("chars")
        .stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"))
        .output()
        .expect("runs");
    assert_eq!(default_cap.status.code(), Some(1));
    assert!(stderr(&default_cap).contains("longer than --max-line (67108864 bytes = 64 MiB)"));
}

/// A single long line is shuffled as a whole (graphemes intact), in memory
/// linear in its length.
#[test]
fn a_long_line_is_shuffled_in_linear_memory() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let line: String = "é🇳🇱ab".repeat(1 << 18);
    let mut child = Command::new(crate::support::binary())
        .args(["chars", "--seed", "long"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().unwrap();
    let text = line.clone();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || crate::support::external::read_all(out));
    let (status, peak) = crate::support::external::wait_with_peak_memory(&mut child);
    writer.join().unwrap().unwrap();
    let printed = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(status.success());
    assert_eq!(sorted_graphemes(&printed), sorted_graphemes(&line));
    // 1 Mi clusters in 2.75 MiB: 8 bytes per cluster, plus the line, its
    // copy and the output buffer; a String per cluster would be far more.
    assert!(peak < 40 << 20, "peak {peak} bytes");
}

#[test]
fn a_64_bit_seed_on_36_characters_is_flagged() {
    let output = knuffle(&["chars", "--seed", "42", ALPHABET]);
    assert!(output.status.success());
    assert!(stderr(&output).contains("log2(36!)"), "{}", stderr(&output));
    let short = knuffle(&[
        "chars",
        "--seed",
        "90210473018274",
        "--strict",
        "ABCDEFGHIJ",
    ]);
    assert!(short.status.success(), "10! < 2^64: every order reachable");
    let strict = knuffle(&["chars", "--seed", "42", "--strict", ALPHABET]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(strict.stdout.is_empty());
}

#[test]
fn help_has_examples() {
    let help = stdout(&knuffle(&["chars", "--help"]));
    assert!(help.contains("Usage: knuffle chars"));
    assert!(help.contains("knuffle chars --count 5"));
}
