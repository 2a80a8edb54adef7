//! `knuffle lab` as a user runs it.

fn knuffle(args: &[&str]) -> (i32, String, String) {
    crate::support::code_and_text(&crate::support::knuffle(args))
}

#[test]
fn exact_naive_swap_matches_the_known_values() {
    let (code, out, _) = knuffle(&["lab", "--algorithm", "naive-swap", "--exact", "-n", "3"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("least likely: 4/27; most likely: 5/27"),
        "{out}"
    );
    assert!(out.contains("NOT uniform"));
    let (code, out, _) = knuffle(&["lab", "-a", "naive-swap", "--exact", "-n", "4"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("least likely: 8/256 (= 1/32); most likely: 15/256"),
        "{out}"
    );
    let (_, out, _) = knuffle(&["lab", "-a", "fisher-yates", "--exact", "-n", "4"]);
    assert!(out.contains("exactly uniform"), "{out}");
}

#[test]
fn exact_summary_for_every_algorithm_explains_the_unenumerable() {
    let (code, out, err) = knuffle(&[
        "lab",
        "--exact",
        "-n",
        "3",
        "-a",
        "pick-unused,naive-swap,sort-comparator,sort-keys",
    ]);
    assert_eq!(code, 0, "{err}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .to_string()
    };
    assert!(line("pick-unused").ends_with("yes"), "{out}");
    assert!(line("naive-swap").contains("4/27") && line("naive-swap").ends_with("NO"));
    assert!(line("sort-comparator").ends_with("NO"));
    assert!(
        err.contains("not enumerated: sort-keys: exact mode is not available"),
        "{err}"
    );
    let (code, out, err) = knuffle(&[
        "lab",
        "-a",
        "naive-swap",
        "--exact",
        "-n",
        "9",
        "--path-limit",
        "1000",
    ]);
    assert_eq!(code, 2, "nothing computed: {out}");
    assert!(
        err.contains("--exact computed nothing") && err.contains("more than 1000 paths"),
        "{err}"
    );
}

#[test]
fn exact_mode_that_computes_nothing_exits_2_with_the_reason() {
    for (args, reason) in [
        (
            vec!["-a", "fisher-yates", "-n", "20"],
            "n = 20 is above the limit of 9",
        ),
        (vec!["-a", "sort-keys", "-n", "3"], "not available"),
    ] {
        let mut all = vec!["lab", "--exact"];
        all.extend(args.iter().copied());
        let (code, out, err) = knuffle(&all);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("--exact computed nothing") && err.contains(reason),
            "{err}"
        );
    }
    let (code, _, err) = knuffle(&["lab", "--exact", "-n", "3", "--path-limit", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--path-limit"), "{err}");
}

#[test]
fn items_is_the_long_name_of_n() {
    let (code, out, err) = knuffle(&["lab", "-a", "naive-swap", "--exact", "--items", "3"]);
    assert_eq!(code, 0, "{err}");
    let (_, old, _) = knuffle(&["lab", "-a", "naive-swap", "--exact", "-n", "3"]);
    assert_eq!(out, old);
    let (_, help, _) = knuffle(&["lab", "--help"]);
    assert!(help.contains("--items <N>"), "{help}");
}

#[test]
fn sampling_table_flags_biased_and_passes_fair() {
    let (code, out, err) = knuffle(&[
        "lab",
        "-a",
        "fisher-yates,naive-swap,sattolo",
        "--trials",
        "300000",
        "--seed",
        "cli",
    ]);
    assert_eq!(code, 0, "{err}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .to_string()
    };
    assert!(line("fisher-yates").contains(" fair "), "{out}");
    assert!(line("naive-swap").contains("BIASED"), "{out}");
    assert!(line("sattolo").contains("BIASED"), "{out}");
    assert!(!out.contains("UNEXPECTED"));
    assert!(
        err.is_empty(),
        "no progress bar when stderr is not a terminal: {err}"
    );
}

#[test]
fn list_shows_every_algorithm_with_its_source() {
    let (code, out, _) = knuffle(&["lab", "--list"]);
    assert_eq!(code, 0);
    for name in [
        "fisher-yates",
        "inside-out",
        "sattolo",
        "naive-swap",
        "pick-unused",
        "sort-keys",
        "sort-comparator",
        "key-collisions",
        "string-method",
        "deck-method",
        "basic-jj",
    ] {
        assert!(out.contains(name), "{name}");
    }
    assert!(out.contains("source: 'How not to shuffle #2' in \"Shuffle things in .Net\""));
    assert!(
        !out.contains("seed 00"),
        "internal names never reach users:\n{out}"
    );
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    let (code, _, err) = knuffle(&["lab", "-a", "bogo-sort"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown algorithm \"bogo-sort\""), "{err}");
    let (code, _, err) = knuffle(&["lab", "-n", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("--items (-n) must be at least 2"), "{err}");
    let (code, _, _) = knuffle(&["lab", "--trials", "lots"]);
    assert_eq!(code, 2);
    let (code, out, _) = knuffle(&["lab", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Examples:"));
}

#[test]
fn report_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("report");
    let (code, out, err) = knuffle(&[
        "lab",
        "-a",
        "naive-swap",
        "--trials",
        "100000",
        "--report",
        target.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("report: "));
    let html = std::fs::read_to_string(target.join("index.html")).unwrap();
    assert!(html.contains("naive-swap-positions.svg"));
    assert!(target.join("naive-swap-histogram.png").exists());
}

#[test]
fn too_few_shuffles_are_not_called_fair() {
    // 10 shuffles of 4 items cannot clear anything: the verdict says so.
    let (code, out, _) = knuffle(&["lab", "-a", "fisher-yates", "--trials", "10"]);
    assert_eq!(code, 0);
    assert!(out.contains(" fair? "), "{out}");
    assert!(
        out.contains("fair? = no bias found, but 10 shuffles are too few to tell"),
        "{out}"
    );
    // With enough shuffles the same algorithm is plainly fair.
    let (_, out, _) = knuffle(&["lab", "-a", "fisher-yates", "--trials", "200000"]);
    assert!(out.contains(" fair "), "{out}");
    assert!(!out.contains("fair?"), "{out}");
}
