//! `knuffle table --parts`: a table split into train/validation/test files
//! by the real binary. The parts, read in order, are the table order (the
//! same rows as one output), of the exact sizes of the largest remainder
//! method; mistakes are exit 2 before anything is written.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use knuffle_io::compressed::Decompressed;

use crate::support::{TestCommand, code_and_text};

/// A CSV of ids `0..n`.
fn input(dir: &Path, n: usize) -> PathBuf {
    let mut text = b"id,name\n".to_vec();
    for i in 0..n {
        writeln!(text, "{i},row {i}").unwrap();
    }
    let path = dir.join("in.csv");
    fs::write(&path, text).unwrap();
    path
}

/// The ids of a CSV written by knuffle (one record a line here).
fn ids(path: &Path) -> Vec<u64> {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("id,name"), "{}", path.display());
    lines
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

/// `knuffle table ARGS`: status and standard error.
fn table<P: AsRef<Path>>(args: &[&str], outputs: &[P]) -> (i32, String) {
    let mut command = TestCommand::knuffle().arg("table").args(args);
    for output in outputs {
        command = command.arg("-o").arg(output.as_ref());
    }
    let (code, _, err) = code_and_text(&command.output());
    (code, err)
}

#[test]
fn the_parts_in_order_are_the_table_order_in_exact_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let source = input(dir.path(), 1003);
    let source = source.to_str().unwrap();
    let (train, valid, test) = (
        dir.path().join("train.csv"),
        dir.path().join("valid.csv"),
        dir.path().join("test.csv"),
    );
    let (code, err) = table(
        &[source, "--seed", "parts", "--parts", "80,10,10"],
        &[&train, &valid, &test],
    );
    assert_eq!(code, 0, "{err}");
    let parts = [ids(&train), ids(&valid), ids(&test)];
    // 1003 x 0.8 = 802.4, 100.3, 100.3: 802, 100, 100 and the one row left
    // to the largest remainder (the first part's .4).
    assert_eq!(
        parts.iter().map(Vec::len).collect::<Vec<_>>(),
        [803, 100, 100]
    );
    let order = knuffle_table::table_order("parts", 1003);
    assert_eq!(parts.concat(), order);
    // The same as one output cut by hand, and decimals are the same split.
    let (one, two) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    let (code, err) = table(
        &[source, "--seed", "parts", "--parts", "0.5,.5"],
        &[&one, &two],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids(&one), order[..502]);
    assert_eq!(ids(&two), order[502..]);
}

#[test]
fn a_sample_is_split_and_empty_parts_are_empty_tables() {
    let dir = tempfile::tempdir().unwrap();
    let source = input(dir.path(), 50);
    let source = source.to_str().unwrap();
    let outs: Vec<PathBuf> = (0..3)
        .map(|i| dir.path().join(format!("p{i}.csv")))
        .collect();
    let refs: Vec<&Path> = outs.iter().map(PathBuf::as_path).collect();
    let (code, err) = table(
        &[source, "--seed", "few", "-n", "7", "--parts", "1,0,1"],
        &refs,
    );
    assert_eq!(code, 0, "{err}");
    let order = knuffle_table::table_order("few", 50);
    assert_eq!(ids(&outs[0]), order[..4]);
    assert_eq!(ids(&outs[1]), Vec::<u64>::new());
    assert_eq!(ids(&outs[2]), order[4..7]);
}

#[test]
fn mistakes_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let source = input(dir.path(), 20);
    let source = source.to_str().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    let parquet = dir.path().join("b.parquet");
    let missing = dir.path().join("no/such/dir/c.csv");
    let same_a = dir.path().join(".").join("a.csv");
    let text = dir.path().join("b.txt");
    for (args, outputs, needle) in [
        (
            &["--parts", "80,10,10"][..],
            &[&a, &b][..],
            "--parts has 3 shares but 2 outputs",
        ),
        (
            &[][..],
            &[&a, &b][..],
            "2 outputs (-o) given: one, or one per part",
        ),
        (&["--parts", "1,1"][..], &[&a, &a][..], "named twice"),
        (&["--parts", "1,1"][..], &[&a, &same_a][..], "named twice"),
        (
            &["--parts", "1,1"][..],
            &[&a, &text][..],
            "'.txt' is not the extension of a table format",
        ),
        (
            &["--parts", "1,1"][..],
            &[&a, &parquet][..],
            "the parts are written as CSV",
        ),
        (&["--parts", "1,-1"][..], &[&a, &b][..], "invalid parts"),
        (
            &["--parts", "1,1", "--shards", "2"][..],
            &[&a, &b][..],
            "cannot be used with",
        ),
        (
            &["--parts", "1,1"][..],
            &[&a, &missing][..],
            "does not exist",
        ),
    ] {
        let mut all = vec![source];
        all.extend_from_slice(args);
        let (code, err) = table(&all, outputs);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            !a.exists() && !b.exists() && !parquet.exists() && !text.exists(),
            "{args:?}"
        );
    }
    // Nothing but the input in the directory: no temporary file either.
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["in.csv"]);
}

#[test]
fn parts_named_gz_or_zst_are_written_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let source = input(dir.path(), 300);
    let source = source.to_str().unwrap();
    let (gz, zst, plain) = (
        dir.path().join("a.csv.gz"),
        dir.path().join("b.csv.zst"),
        dir.path().join("c.csv"),
    );
    let (code, err) = table(
        &[source, "--seed", "packed", "--parts", "1,1,1"],
        &[&gz, &zst, &plain],
    );
    assert_eq!(code, 0, "{err}");
    let mut parts = Vec::new();
    for packed in [&gz, &zst] {
        let bytes = fs::read(packed).unwrap();
        assert!(
            !bytes.starts_with(b"id,name"),
            "{} is compressed",
            packed.display()
        );
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut Decompressed::new(&bytes[..], 1 << 16).unwrap(),
            &mut text,
        )
        .unwrap();
        let unpacked = dir.path().join("unpacked.csv");
        fs::write(&unpacked, text).unwrap();
        parts.push(ids(&unpacked));
    }
    parts.push(ids(&plain));
    assert_eq!(parts.concat(), knuffle_table::table_order("packed", 300));
}
