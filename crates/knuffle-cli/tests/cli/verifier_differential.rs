//! `knuffle verify` against the independent reference verifier
//! (docs/verifiable/reference_verifier.py, run with `python3`) on one corpus
//! of hostile transcripts, made by this test from valid transcripts that
//! `knuffle draw` and `knuffle deal --reveal` write: bit flips and
//! truncations at many positions, numbers out of range or of the wrong kind,
//! wrong types at every field, unknown, missing and duplicate fields, deep
//! nesting, bytes that are not UTF-8, and files beyond the size limit.
//!
//! For every file both verifiers must exit with the same status (0 verified,
//! 1 does not verify, 2 trouble), within a time limit, and the reference
//! verifier without a Python traceback. Each entry also says what its change
//! means ([`Expect`]): a change of a value or of the structure of a valid
//! transcript must never verify; a change that keeps the meaning the format
//! defines (whitespace, key order, hex digits in the other case, a string
//! escape for the same character) must verify; a few encodings that the
//! format leaves to serde's rules (a record as an array of its values, an
//! optional field given as `null`) only have to be treated alike.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{binary, heavy, python3, python3_works, reference_verifier_script};

/// The longest either verifier may take on one corpus file.
const TIME_LIMIT: Duration = Duration::from_secs(30);

mod corpus;

use corpus::*;

/// Hand-made entries on the beacon transcript: numbers at the limits,
/// nesting, encodings, strings with brackets, semantics.
fn special_entries(lottery: &Base, names: &Base, out: &mut Vec<Entry>) {
    use Expect::{Agree, NotVerified, Verified};
    let t = &lottery.value;
    let mut add = |name: &str, bytes: Vec<u8>, expect: Expect| {
        out.push(Entry::new(name, bytes, expect));
    };
    let nest = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let objects = |depth: usize| format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));

    // Ranges at and beyond what a verifier hashes: more than 10^9 items,
    // a count that overflows, hi below lo.
    for (name, lo, hi) in [
        ("range-limit+1", "1", "1000000001"),
        ("range-0-to-max", "0", "18446744073709551615"),
        ("range-1-to-max", "1", "18446744073709551615"),
        ("range-reversed", "500", "1"),
        ("range-10^15", "1", "1000000000000000"),
    ] {
        let v = with_raw(
            t,
            "/population/range",
            &format!("{{\"lo\": {lo}, \"hi\": {hi}}}"),
        );
        add(name, v, NotVerified);
    }
    // Nesting: 200 and 100000 levels in a field and at the top, just
    // below and at serde_json's limit (127 / 128 levels), unclosed.
    for depth in [127, 128, 200, 100_000] {
        add(
            &format!("k-nested-{depth}"),
            with_raw(t, "/k", &nest(depth)),
            NotVerified,
        );
        add(
            &format!("top-nested-{depth}"),
            nest(depth).into_bytes(),
            NotVerified,
        );
        add(
            &format!("top-objects-{depth}"),
            objects(depth).into_bytes(),
            NotVerified,
        );
    }
    add(
        "format-then-nested-100000",
        format!("{{\"format\": \"knuffle-vd/1\", \"x\": {}}}", nest(100_000)).into_bytes(),
        NotVerified,
    );
    add(
        "unclosed-100000",
        "[{\"a\":".repeat(100_000).into_bytes(),
        NotVerified,
    );
    // Brackets inside strings are not nesting: a seed of 100000 '[' (and
    // an escaped quote before them) is a valid string, another seed.
    let brackets = format!("\"\\\"{}\"", "[".repeat(100_000));
    add(
        "seed-of-brackets",
        with_raw(t, "/sources/0/value", &brackets),
        NotVerified,
    );
    // Strings: a lone surrogate escape, a pair, a raw control character.
    add(
        "lone-surrogate",
        with_raw(t, "/sources/0/value", "\"\\ud800 3 6 1\""),
        NotVerified,
    );
    add(
        "lone-low-surrogate",
        with_raw(t, "/sources/0/value", "\"\\udc00\""),
        NotVerified,
    );
    add(
        "surrogate-pair",
        with_raw(t, "/sources/0/value", "\"\\ud83c\\udccf\""),
        NotVerified,
    );
    add(
        "control-character",
        with_raw(t, "/sources/0/value", "\"3\t6\""),
        NotVerified,
    );
    add(
        "escaped-seed",
        with_raw(
            t,
            "/sources/0/value",
            &escaped(t["sources"][0]["value"].as_str().unwrap()),
        ),
        Verified,
    );
    // JSON that is not JSON.
    for (name, raw) in [
        ("nan", "NaN"),
        ("infinity", "Infinity"),
        ("minus-infinity", "-Infinity"),
        ("plus-sign", "+5"),
        ("leading-zero", "05"),
        ("hex-number", "0x5"),
        ("huge-exponent", "1e400"),
        ("long-integer", &"9".repeat(5000)),
        ("single-quotes", "'5'"),
        ("comment", "5 /* k */"),
        ("trailing-comma", "5,"),
    ] {
        add(&format!("k-{name}"), with_raw(t, "/k", raw), NotVerified);
    }
    // Bytes that are not UTF-8 or not JSON around a valid transcript.
    let bytes = &lottery.bytes;
    let seed_at = find(bytes, b"3 6 1 4");
    for (name, insert) in [
        ("byte-ff", &b"\xff"[..]),
        ("broken-sequence", b"\xc3\x28"),
        ("overlong-slash", b"\xc0\xaf"),
        ("encoded-surrogate", b"\xed\xa0\x80"),
        ("nul", b"\x00"),
    ] {
        let mut v = bytes.clone();
        v.splice(seed_at..seed_at, insert.iter().copied());
        add(&format!("seed-{name}"), v, NotVerified);
    }
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(bytes);
    add("byte-order-mark", bom, NotVerified);
    let mut two = bytes.clone();
    two.extend_from_slice(bytes);
    add("twice", two, NotVerified);
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(b"x");
    add("trailing-garbage", trailing, NotVerified);
    for (name, text) in [
        ("empty", ""),
        ("spaces", "   \n"),
        ("null", "null"),
        ("array", "[]"),
        ("format-string", "\"knuffle-vd/1\""),
        ("format-array", "[\"knuffle-vd/1\"]"),
        ("empty-object", "{}"),
        ("format-only", "{\"format\": \"knuffle-vd/1\"}"),
        ("format-v2", "{\"format\": \"knuffle-vd/2\"}"),
        ("format-null", "{\"format\": null}"),
        ("format-number", "{\"format\": 1}"),
    ] {
        add(name, text.as_bytes().to_vec(), NotVerified);
    }
    // Values of the right type with another meaning.
    for (name, pointer, raw) in [
        ("mode-replace", "/mode", "\"replace\""),
        ("mode-capitals", "/mode", "\"PERM\""),
        ("mode-empty", "/mode", "\"\""),
        ("kind-beacon", "/sources/1/kind", "\"beacon\""),
        ("kind-capital", "/sources/0/kind", "\"Text\""),
        ("kind-number", "/sources/0/kind", "0"),
        ("key-odd-length", "/key", "\"0\""),
        ("key-not-hex", "/key", &format!("\"{}\"", "g".repeat(64))),
        (
            "key-spaced-hex",
            "/key",
            &format!("\"{}\"", "ab ".repeat(21)),
        ),
        (
            "digest-31-bytes",
            "/population/digest",
            &format!("\"{}\"", "0".repeat(62)),
        ),
        (
            "randomness-33-bytes",
            "/sources/1/randomness",
            &format!("\"{}\"", "0".repeat(66)),
        ),
        ("signature-empty", "/sources/1/signature", "\"\""),
        ("signature-odd", "/sources/1/signature", "\"abc\""),
        (
            "previous-signature-not-hex",
            "/sources/1/previous_signature",
            "\"zz\"",
        ),
        (
            "chain-capitals",
            "/sources/1/chain",
            &format!(
                "\"{}\"",
                t["sources"][1]["chain"].as_str().unwrap().to_uppercase()
            ),
        ),
        ("k-count+1", "/k", "501"),
        ("k-0", "/k", "0"),
        ("count-0", "/population/count", "0"),
        ("no-sources", "/sources", "[]"),
        (
            "indices-extra",
            "/result/indices",
            "[95, 264, 133, 490, 464, 1]",
        ),
        ("index-beyond-population", "/result/indices/0", "500"),
    ] {
        let bytes = if pointer == "/sources/1/previous_signature" {
            let mut v = t.clone();
            object_at(&mut v, "/sources/1").insert("previous_signature".into(), Value::Null);
            with_raw(&v, pointer, raw)
        } else {
            with_raw(t, pointer, raw)
        };
        add(name, bytes, NotVerified);
    }
    // Encodings the format leaves to serde's rules: an optional field as
    // null, a record as the array of its values in field order.
    let mut v = t.clone();
    object_at(&mut v, "/sources/1").insert("previous_signature".into(), Value::Null);
    add("previous-signature-null", pretty(&v), Agree);
    let mut v = t.clone();
    object_at(&mut v, "/population").insert("items".into(), Value::Null);
    add("items-null", pretty(&v), Agree);
    add(
        "range-as-array",
        with_raw(t, "/population/range", "[1, 500]"),
        Agree,
    );
    add(
        "range-as-reversed-array",
        with_raw(t, "/population/range", "[500, 1]"),
        NotVerified,
    );
    add(
        "range-as-long-array",
        with_raw(t, "/population/range", "[1, 500, 7]"),
        NotVerified,
    );
    let text_source = serde_json::to_string(&t["sources"][0]["value"]).unwrap();
    add(
        "source-as-array",
        with_raw(t, "/sources/0", &format!("[\"text\", {text_source}]")),
        Agree,
    );
    add(
        "source-as-array-without-kind",
        with_raw(t, "/sources/0", &format!("[{text_source}]")),
        NotVerified,
    );
    let result = &t["result"];
    add(
        "result-as-array",
        with_raw(
            t,
            "/result",
            &format!("[{}, {}]", result["indices"], result["items"]),
        ),
        Agree,
    );
    add(
        "result-as-swapped-array",
        with_raw(
            t,
            "/result",
            &format!("[{}, {}]", result["items"], result["indices"]),
        ),
        NotVerified,
    );
    // k far beyond the recorded result, with replacement: refused without
    // drawing 10^15 items.
    let n = &names.value;
    for k in ["1000000000000000", "18446744073709551615"] {
        let mut v = n.clone();
        v["mode"] = "replace".into();
        add(
            &format!("replace-k-{k}"),
            with_raw(&v, "/k", k),
            NotVerified,
        );
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the needle is there")
}

/// The exit status of `command` (`None`: killed by a signal), its standard
/// error, and whether it ran out of time.
fn run_limited(mut command: Command, stderr_path: &Path) -> (Option<i32>, String, bool) {
    let mut tries = 0;
    let mut child = loop {
        let stderr = std::fs::File::create(stderr_path).unwrap();
        match command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
        {
            Ok(child) => break child,
            // The copy of the binary was open for writing when another
            // test's thread forked: its child holds the descriptor until it
            // execs (ETXTBSY, "Text file busy"). It goes within moments.
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 100 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("spawn {:?}: {e}", command.get_program()),
        }
    };
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (status, false);
        }
        if start.elapsed() > TIME_LIMIT {
            child.kill().unwrap();
            break (child.wait().unwrap(), true);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let text = String::from_utf8_lossy(&std::fs::read(stderr_path).unwrap()).into_owned();
    (status.code(), text, timed_out)
}

/// Runs both verifiers on every entry (two at a time) and returns what
/// went wrong, one line per entry.
fn check_entries(entries: &[Entry], dir: &Path) -> Vec<String> {
    // A copy of the binary: the same one for the whole corpus, even when a
    // build replaces the original meanwhile.
    let knuffle = dir.join("knuffle-under-test");
    std::fs::copy(binary(), &knuffle).unwrap();
    let next = AtomicUsize::new(0);
    let problems = Mutex::new(Vec::new());
    let counts = Mutex::new([0usize; 3]);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(i) else { break };
                    if let Some(problem) = check_entry(i, entry, dir, &knuffle, &counts) {
                        problems.lock().unwrap().push(problem);
                    }
                }
            });
        }
    });
    let counts = counts.into_inner().unwrap();
    let mut problems = problems.into_inner().unwrap();
    if entries.len() > 20 && counts.contains(&0) {
        problems.push(format!(
            "the corpus does not reach every exit status (0, 1, 2: {counts:?} entries)"
        ));
    }
    problems
}

fn check_entry(
    i: usize,
    entry: &Entry,
    dir: &Path,
    knuffle: &Path,
    counts: &Mutex<[usize; 3]>,
) -> Option<String> {
    let transcript: PathBuf = match &entry.transcript {
        Input::Bytes(bytes) => {
            let path = dir.join(format!("{i:03}.json"));
            std::fs::write(&path, bytes).unwrap();
            path
        }
        Input::Path(path) => path.clone(),
    };
    let mut args: Vec<OsString> = entry.options.iter().map(OsString::from).collect();
    args.push(transcript.into_os_string());
    if let Some(population) = &entry.population {
        args.push(population.clone().into_os_string());
    }
    let mut rust = Command::new(knuffle);
    rust.arg("verify").args(&args);
    let (rust_code, rust_err, rust_slow) = run_limited(rust, &dir.join(format!("{i:03}.rust")));
    // -S: without site packages (the script needs the standard library
    // only), which halves the start-up time of a few hundred runs.
    let mut python = Command::new(python3().expect("python3 runs"));
    python
        .arg("-S")
        .arg(reference_verifier_script())
        .args(&args);
    let (py_code, py_err, py_slow) = run_limited(python, &dir.join(format!("{i:03}.python")));

    let name = &entry.name;
    let first_line = |text: &str| {
        text.lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect::<String>()
    };
    let mut wrong = Vec::new();
    if rust_slow || py_slow {
        wrong.push(format!(
            "ran out of time ({TIME_LIMIT:?}; knuffle {rust_slow}, reference {py_slow})"
        ));
    }
    if rust_code != py_code {
        wrong.push("the verifiers disagree".to_owned());
    }
    if py_err.contains("Traceback") {
        wrong.push("the reference verifier printed a traceback".to_owned());
    }
    for code in [rust_code, py_code] {
        match code {
            Some(c @ 0..=2) => {
                counts.lock().unwrap()[c as usize] += 1;
            }
            _ => wrong.push(format!("exit status {code:?} is not 0, 1 or 2")),
        }
    }
    match entry.expect {
        Expect::NotVerified if rust_code == Some(0) || py_code == Some(0) => {
            wrong.push("a changed transcript verified".to_owned())
        }
        Expect::Verified if rust_code != Some(0) || py_code != Some(0) => {
            wrong.push("the same transcript, spelled otherwise, did not verify".to_owned())
        }
        _ => {}
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "{name} (file {i:03}, {:?}): {}; knuffle {rust_code:?} {:?}, reference {py_code:?} {:?}",
            entry.expect,
            wrong.join(", "),
            first_line(&rust_err),
            first_line(&py_err)
        )
    })
}

fn assert_no_problems(problems: &[String], entries: usize) {
    assert!(
        problems.is_empty(),
        "{} of {entries} corpus entries went wrong:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn both_verifiers_give_the_same_status_on_a_hostile_corpus() {
    if !python3_works() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bases = bases(dir.path());
    let mut entries = Vec::new();
    for base in &bases {
        let mut entry = Entry::new(
            format!("{}-as-written", base.name),
            base.bytes.clone(),
            Expect::Verified,
        );
        entry.population = base.population.clone();
        entries.push(entry);
        mutations_of(base, &mut entries);
    }
    let lottery = bases.iter().find(|b| b.name == "lottery").unwrap();
    let names = bases.iter().find(|b| b.name == "names").unwrap();
    special_entries(lottery, names, &mut entries);
    file_entries(&bases, dir.path(), &mut entries);

    let started = Instant::now();
    let problems = check_entries(&entries, dir.path());
    eprintln!(
        "{} corpus entries through both verifiers in {:.1?}",
        entries.len(),
        started.elapsed()
    );
    assert!(entries.len() >= 250, "only {} entries", entries.len());
    assert_no_problems(&problems, entries.len());
}

/// Entries about files: population files, paths that are not files, the
/// size limit and its option.
fn file_entries(bases: &[Base], dir: &Path, out: &mut Vec<Entry>) {
    use Expect::{NotVerified, Verified};
    let ballots = bases.iter().find(|b| b.name == "ballots").unwrap();
    let with = |name: &str, population: Option<PathBuf>, options: &[&str], expect: Expect| Entry {
        name: name.to_owned(),
        transcript: Input::Bytes(ballots.bytes.clone()),
        options: options.iter().map(|s| (*s).to_owned()).collect(),
        population,
        expect,
    };
    let edited = dir.join("ballots-edited.txt");
    let text = std::fs::read_to_string(ballots.population.as_ref().unwrap()).unwrap();
    std::fs::write(&edited, text.replacen("ballot 00", "ballot 0O", 1)).unwrap();
    let not_utf8 = dir.join("ballots-not-utf8.txt");
    let mut bytes = text.clone().into_bytes();
    bytes.extend_from_slice(b"ballot \xff\n");
    std::fs::write(&not_utf8, bytes).unwrap();
    // --max-size applies to each file: at the larger one's size both are
    // read, one byte less refuses the larger.
    let size = text.len().max(ballots.bytes.len());
    let population = ballots.population.clone();
    out.extend([
        with("ballots-edited-population", Some(edited), &[], NotVerified),
        with(
            "ballots-population-not-utf8",
            Some(not_utf8),
            &[],
            NotVerified,
        ),
        with(
            "ballots-population-missing",
            Some(dir.join("absent.txt")),
            &[],
            NotVerified,
        ),
        with(
            "ballots-population-directory",
            Some(dir.to_path_buf()),
            &[],
            NotVerified,
        ),
        with("ballots-no-population", None, &[], NotVerified),
        with(
            "ballots-population-dev-zero",
            Some(PathBuf::from("/dev/zero")),
            &["--max-size", "1M"],
            NotVerified,
        ),
        // --max-size: the population file at the limit, one byte beyond.
        with(
            "ballots-max-size-exact",
            population.clone(),
            &["--max-size", &size.to_string()],
            Verified,
        ),
        with(
            "ballots-max-size-short",
            population.clone(),
            &["--max-size", &(size - 1).to_string()],
            NotVerified,
        ),
        with(
            "ballots-max-size-4K",
            population.clone(),
            &["--max-size=4K"],
            Verified,
        ),
        with(
            "ballots-max-size-bad",
            population.clone(),
            &["--max-size", "1.5K"],
            NotVerified,
        ),
        with(
            "ballots-max-size-unit",
            population.clone(),
            &["--max-size", "1X"],
            NotVerified,
        ),
    ]);
    let lottery = bases.iter().find(|b| b.name == "lottery").unwrap();
    let len = lottery.bytes.len().to_string();
    let short = (lottery.bytes.len() - 1).to_string();
    for (name, options, expect) in [
        (
            "lottery-max-size-exact",
            vec!["--max-size", len.as_str()],
            Verified,
        ),
        (
            "lottery-max-size-short",
            vec!["--max-size", short.as_str()],
            NotVerified,
        ),
        ("lottery-max-size-0", vec!["--max-size", "0"], NotVerified),
    ] {
        let mut entry = Entry::new(name, lottery.bytes.clone(), expect);
        entry.options = options.into_iter().map(str::to_owned).collect();
        out.push(entry);
    }
    for (name, path) in [
        ("transcript-directory", dir.to_path_buf()),
        ("transcript-missing", dir.join("absent.json")),
    ] {
        out.push(Entry {
            name: name.to_owned(),
            transcript: Input::Path(path),
            options: Vec::new(),
            population: None,
            expect: NotVerified,
        });
    }
}

/// Files beyond the default size limit (64 MiB): a valid transcript
/// followed by 70 MB of spaces (verified once `--max-size` allows it), 70 MB
/// of NUL bytes, and `/dev/zero`, which neither verifier reads to its end.
#[test]
fn both_verifiers_refuse_files_beyond_the_size_limit() {
    if !python3_works() {
        return;
    }
    let _heavy = heavy();
    let dir = tempfile::tempdir().unwrap();
    let bases = bases(dir.path());
    let lottery = bases.iter().find(|b| b.name == "lottery").unwrap();
    let mut padded = lottery.bytes.clone();
    padded.resize(padded.len() + 70_000_000, b' ');
    let padded_path = dir.path().join("padded.json");
    std::fs::write(&padded_path, &padded).unwrap();
    drop(padded);
    let zeros_path = dir.path().join("zeros.json");
    std::fs::write(&zeros_path, vec![0u8; 70_000_000]).unwrap();
    let entry = |name: &str, path: &Path, options: &[&str], expect: Expect| Entry {
        name: name.to_owned(),
        transcript: Input::Path(path.to_path_buf()),
        options: options.iter().map(|s| (*s).to_owned()).collect(),
        population: None,
        expect,
    };
    let entries = [
        entry("padded-70MB", &padded_path, &[], Expect::NotVerified),
        entry(
            "padded-70MB-max-size-100M",
            &padded_path,
            &["--max-size", "100M"],
            Expect::Verified,
        ),
        entry("zeros-70MB", &zeros_path, &[], Expect::NotVerified),
        entry(
            "zeros-70MB-max-size-100M",
            &zeros_path,
            &["--max-size", "100M"],
            Expect::NotVerified,
        ),
        entry("dev-zero", Path::new("/dev/zero"), &[], Expect::NotVerified),
        entry(
            "dev-zero-max-size-1M",
            Path::new("/dev/zero"),
            &["--max-size", "1M"],
            Expect::NotVerified,
        ),
    ];
    let problems = check_entries(&entries, dir.path());
    assert_no_problems(&problems, entries.len());
}
