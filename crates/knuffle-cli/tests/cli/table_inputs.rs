//! `knuffle table` on inputs of several files: Hive partition directories
//! read as columns, columns matched by name and promoted without loss, and
//! an output name whose extension is no table format; the real binary,
//! every row checked, the order that of the same rows in one flat file,
//! and the errors' exit status and message.

use std::fs;
use std::path::Path;

use crate::support::table_in as table;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A CSV of `id` (from `ids`) and `v` (`v` and the id), or with the columns
/// the other way round.
fn csv(ids: std::ops::Range<u64>, swapped: bool) -> String {
    let mut out = if swapped { "v,id\n" } else { "id,v\n" }.to_owned();
    for i in ids {
        out += &if swapped {
            format!("v{i},{i}\n")
        } else {
            format!("{i},v{i}\n")
        };
    }
    out
}

/// The header and the records of a CSV without quoted fields.
fn records(path: &Path) -> (String, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_owned();
    let rows = lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    (header, rows)
}

#[test]
fn hive_directories_are_columns_and_the_order_is_the_flat_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    // The files in the order knuffle reads them (byte order of the paths:
    // '0' < '1' < '_'), with the ids numbered in that order.
    write(&d.join("label=0/s=plain/a.csv"), &csv(0..30, false));
    write(&d.join("label=0/s=plain/b.csv"), &csv(30..50, true));
    write(&d.join("label=1/s=x%2Fy/part.csv"), &csv(50..90, false));
    write(
        &d.join("label=__HIVE_DEFAULT_PARTITION__/s=z/c.csv"),
        &csv(90..100, false),
    );
    write(&d.join("label=0/s=plain/_SUCCESS"), "");
    write(&d.join("label=0/.a.csv.crc"), "junk");
    let (code, stderr) = table(dir.path(), &["d", "-o", "out.csv", "--seed", "hive"]);
    assert_eq!(code, 0, "{stderr}");
    let (header, rows) = records(&dir.path().join("out.csv"));
    assert_eq!(header, "id,v,label,s");
    let ids: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(ids, knuffle_table::table_order("hive", 100));
    for row in &rows {
        let id: u64 = row[0].parse().unwrap();
        let (label, s) = match id {
            0..50 => ("0", "plain"),
            50..90 => ("1", "x/y"),
            _ => ("", "z"),
        };
        assert_eq!(
            row[1..],
            [format!("v{id}"), label.into(), s.into()],
            "{row:?}"
        );
    }
    // The same rows in one flat file, in the same sequence: the same output.
    let mut flat = "id,v,label,s\n".to_owned();
    for i in 0..100u64 {
        let (label, s) = match i {
            0..50 => ("0", "plain"),
            50..90 => ("1", "x/y"),
            _ => ("", "z"),
        };
        flat += &format!("{i},v{i},{label},{s}\n");
    }
    write(&dir.path().join("flat.csv"), &flat);
    let (code, stderr) = table(
        dir.path(),
        &["flat.csv", "-o", "flat-out.csv", "--seed", "hive"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fs::read(dir.path().join("flat-out.csv")).unwrap(),
        fs::read(dir.path().join("out.csv")).unwrap()
    );
}

#[test]
fn columns_are_matched_by_name_and_a_null_column_takes_the_other_type() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a.csv"), &csv(0..10, false));
    write(&dir.path().join("b.csv"), &csv(10..25, true));
    let (code, stderr) = table(
        dir.path(),
        &["a.csv", "b.csv", "-o", "out.csv", "--seed", "names"],
    );
    assert_eq!(code, 0, "{stderr}");
    let (header, rows) = records(&dir.path().join("out.csv"));
    assert_eq!(header, "id,v");
    let ids: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(ids, knuffle_table::table_order("names", 25));
    assert!(rows.iter().all(|r| r[1] == format!("v{}", r[0])));

    // A JSON Lines key that is always null is an Arrow column of the Null
    // type; in another file the same key holds integers.
    write(
        &dir.path().join("n.jsonl"),
        "{\"id\": 0, \"x\": null}\n{\"id\": 1, \"x\": null}\n",
    );
    write(
        &dir.path().join("i.jsonl"),
        "{\"x\": 7, \"id\": 2}\n{\"x\": -9007199254740993, \"id\": 3}\n",
    );
    for name in ["n", "i"] {
        let (code, stderr) = table(
            dir.path(),
            &[&format!("{name}.jsonl"), "-o", &format!("{name}.arrow")],
        );
        assert_eq!(code, 0, "{stderr}");
    }
    let (code, stderr) = table(
        dir.path(),
        &["n.arrow", "i.arrow", "-o", "out.jsonl", "--seed", "null"],
    );
    assert_eq!(code, 0, "{stderr}");
    let mut lines: Vec<String> = fs::read_to_string(dir.path().join("out.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    // (A null is written as a missing key.)
    assert_eq!(
        lines,
        [
            "{\"id\":0}",
            "{\"id\":1}",
            "{\"id\":2,\"x\":7}",
            "{\"id\":3,\"x\":-9007199254740993}"
        ]
    );
}

#[test]
fn inconsistent_inputs_and_unknown_output_extensions_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("e1/k=1/a.csv"), &csv(0..3, false));
    write(&p.join("e1/b.csv"), &csv(3..5, false));
    write(&p.join("e2/a=1/b=2/x.csv"), &csv(0..3, false));
    write(&p.join("e2/b=3/a=4/y.csv"), &csv(3..5, false));
    write(&p.join("e3/id=1/x.csv"), &csv(0..3, false));
    write(&p.join("m1.csv"), "id,v\n1,a\n");
    write(&p.join("m2.csv"), "id\n2\n");
    write(&p.join("m3.csv"), "id,v,w\n3,b,c\n");
    let cases: &[(&[&str], &str)] = &[
        (&["e1"], "every file needs the same key=value directories"),
        (&["e2"], "every file needs the same key=value directories"),
        (
            &["e3"],
            "x.csv: the file has a column 'id' and lies in the partition directory id=1",
        ),
        (&["m1.csv", "m2.csv"], "m2.csv has no column 'v'"),
        (&["m1.csv", "m3.csv"], "m3.csv has a column 'w' that"),
    ];
    for (args, message) in cases {
        let (code, stderr) = table(p, &[args, &["-o", "out.csv"][..]].concat());
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!p.join("out.csv").exists(), "{args:?}");
    }
    // An output named .txt is not written as the input's format under
    // that name, unless --output-format says which.
    let (code, stderr) = table(p, &["m1.csv", "-o", "out.txt"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("out.txt: '.txt' is not the extension of a table format"),
        "{stderr}"
    );
    assert!(stderr.contains("--output-format"), "{stderr}");
    assert!(!p.join("out.txt").exists());
    let (code, stderr) = table(p, &["m1.csv", "-o", "out.txt", "--output-format", "csv"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fs::read_to_string(p.join("out.txt")).unwrap(),
        "id,v\n1,a\n"
    );
}
