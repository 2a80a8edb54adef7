//! Every file knuffle writes follows one rule (ARCHITECTURE.md, "Files knuffle
//! writes"), checked here for each writer: `draw --transcript`, `deal
//! --reveal --transcript`, `deal --commit --secret-file`, `lab --report`
//! (its page, `DIR/index.html`) and shuf mode's `-o`. A regular file is
//! replaced and keeps its permissions; a symlink stays and its target is
//! written; a hard-linked file keeps its links; a FIFO or device is written
//! in place and stays what it is; a missing directory is an error naming
//! it, creating nothing and naming no temporary file. `deal --commit`
//! never overwrites an existing file (a secret is never lost), through a
//! link either.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{TestCommand, draw_data as data, require_or_skip, stderr};

/// One of knuffle's writers: how to make it write the file `path`, and
/// what its content looks like.
struct Writer {
    name: &'static str,
    /// Runs knuffle so that it writes `path`.
    run: fn(&Path) -> Output,
    /// Whether `bytes` is what this writer writes.
    looks_right: fn(&[u8]) -> bool,
    /// Whether an existing regular file is replaced (`deal --commit`
    /// refuses it).
    replaces: bool,
}

fn draw(path: &Path) -> Output {
    TestCommand::knuffle()
        .args(["draw", "-i", "1-100", "-n", "3", "--seed", "written files"])
        .arg("--transcript")
        .arg(path)
        .output()
}

const DEAL: [&str; 7] = ["deal", "--players", "2", "--cards", "2", "--board", "5"];

fn deal_transcript(path: &Path) -> Output {
    TestCommand::knuffle()
        .args(DEAL)
        .args(["--reveal", &data("deal-committed.secret")])
        .args([
            "--client-seed",
            "lucky 7",
            "--beacon",
            &data("beacon-5000000.json"),
        ])
        .arg("--transcript")
        .arg(path)
        .output()
}

fn deal_commit(path: &Path) -> Output {
    TestCommand::knuffle()
        .args(DEAL)
        .args(["--commit", "--beacon-round", "5000000", "--secret-file"])
        .arg(path)
        .output()
}

/// `lab --report DIR` for `path` = `DIR/index.html`.
fn lab(path: &Path) -> Output {
    TestCommand::knuffle()
        .args(["lab", "-a", "naive-swap", "--trials", "2000", "--report"])
        .arg(path.parent().expect("DIR/index.html"))
        .output()
}

fn shuf(path: &Path) -> Output {
    TestCommand::knuffle()
        .arg("-o")
        .arg(path)
        .stdin(b"a\nb\nc\n")
        .output()
}

fn is_transcript(bytes: &[u8]) -> bool {
    bytes.starts_with(b"{") && bytes.ends_with(b"}\n") && contains(bytes, "\"knuffle-vd/1\"")
}

fn is_secret(bytes: &[u8]) -> bool {
    contains(bytes, "\"knuffle-vd/1 secret\"")
}

fn is_page(bytes: &[u8]) -> bool {
    bytes.starts_with(b"<!DOCTYPE html>") && contains(bytes, "naive-swap")
}

fn is_shuffled_abc(bytes: &[u8]) -> bool {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.sort();
    lines == [&b""[..], b"a", b"b", b"c"]
}

fn contains(bytes: &[u8], text: &str) -> bool {
    String::from_utf8_lossy(bytes).contains(text)
}

fn writers() -> [Writer; 5] {
    [
        Writer {
            name: "draw --transcript",
            run: draw,
            looks_right: is_transcript,
            replaces: true,
        },
        Writer {
            name: "deal --transcript",
            run: deal_transcript,
            looks_right: is_transcript,
            replaces: true,
        },
        Writer {
            name: "deal --commit",
            run: deal_commit,
            looks_right: is_secret,
            replaces: false,
        },
        Writer {
            name: "lab --report",
            run: lab,
            looks_right: is_page,
            replaces: true,
        },
        Writer {
            name: "shuf -o",
            run: shuf,
            looks_right: is_shuffled_abc,
            replaces: true,
        },
    ]
}

/// A temporary directory whose own name holds no `.tmp` (messages are
/// checked for temporary names).
fn root() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("written-files-")
        .tempdir()
        .unwrap()
}

/// A fresh directory `dir/NAME` for one writer's case, with the file to
/// write inside it (`index.html` for the lab, whose report directory it
/// is).
fn case_dir(root: &Path, writer: &Writer) -> PathBuf {
    let dir = root.join(writer.name.replace([' ', '-'], "_"));
    fs::create_dir(&dir).unwrap();
    dir
}

fn file_in(dir: &Path) -> PathBuf {
    dir.join("index.html")
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).unwrap()
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Temporary-looking names left in `dir`.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with(".knuffle-") || n.starts_with(".tmp") || n.contains("tmp-knuffle")
        })
        .collect()
}

fn assert_success(writer: &Writer, out: &Output) {
    assert!(
        out.status.success(),
        "{}: {:?} {}",
        writer.name,
        out.status,
        stderr(out)
    );
}

fn assert_refused_as_existing(writer: &Writer, out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}: {}",
        writer.name,
        stderr(out)
    );
    assert!(stderr(out).contains("already exists"), "{}", stderr(out));
}

#[test]
fn a_fifo_gets_the_bytes_in_place_and_stays_a_fifo() {
    let root = root();
    for writer in writers() {
        let fifo = file_in(&case_dir(root.path(), &writer));
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path(&fifo).as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        let out = (writer.run)(&fifo);
        // A writer that never opened the FIFO leaves the reader waiting in
        // open(): a writer of ours that comes and goes releases it.
        let _ = fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
        let read = reader.join().unwrap();
        assert_success(&writer, &out);
        assert!(
            (writer.looks_right)(&read),
            "{}: read {:?}",
            writer.name,
            String::from_utf8_lossy(&read)
        );
        assert!(
            fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
            "{}: no longer a FIFO",
            writer.name
        );
    }
}

#[test]
fn a_symlink_stays_and_its_target_gets_the_content() {
    let root = root();
    for writer in writers() {
        let dir = case_dir(root.path(), &writer);
        let elsewhere = dir.join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let target = elsewhere.join("real");
        fs::write(&target, "old\n").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let link = file_in(&dir);
        std::os::unix::fs::symlink("elsewhere/real", &link).unwrap();
        let out = (writer.run)(&link);
        assert!(
            fs::symlink_metadata(&link).unwrap().is_symlink(),
            "{}",
            writer.name
        );
        if writer.replaces {
            assert_success(&writer, &out);
            assert!(
                (writer.looks_right)(&fs::read(&target).unwrap()),
                "{}",
                writer.name
            );
            assert_eq!(mode(&target), 0o640, "{}", writer.name);
        } else {
            assert_refused_as_existing(&writer, &out);
            assert_eq!(fs::read(&target).unwrap(), b"old\n");
        }
        assert!(leftovers(&dir).is_empty() && leftovers(&elsewhere).is_empty());
    }
}

#[test]
fn a_dangling_symlink_creates_its_target() {
    let root = root();
    for writer in writers() {
        let dir = case_dir(root.path(), &writer);
        let link = file_in(&dir);
        std::os::unix::fs::symlink("made", &link).unwrap();
        let out = (writer.run)(&link);
        assert_success(&writer, &out);
        assert!(
            fs::symlink_metadata(&link).unwrap().is_symlink(),
            "{}",
            writer.name
        );
        let made = dir.join("made");
        assert!(
            (writer.looks_right)(&fs::read(&made).unwrap()),
            "{}",
            writer.name
        );
        if !writer.replaces {
            assert_eq!(mode(&made), 0o600, "a secret is readable only by its owner");
        }
    }
}

#[test]
fn a_hard_linked_file_keeps_its_links() {
    let root = root();
    for writer in writers() {
        let dir = case_dir(root.path(), &writer);
        let path = file_in(&dir);
        let other = dir.join("other-name");
        fs::write(
            &path,
            "old content, longer than some of the new content\n".repeat(20),
        )
        .unwrap();
        fs::hard_link(&path, &other).unwrap();
        let out = (writer.run)(&path);
        assert_eq!(fs::metadata(&path).unwrap().nlink(), 2, "{}", writer.name);
        assert_eq!(
            fs::metadata(&path).unwrap().ino(),
            fs::metadata(&other).unwrap().ino(),
            "{}",
            writer.name
        );
        if writer.replaces {
            assert_success(&writer, &out);
            let content = fs::read(&other).unwrap();
            assert!(
                (writer.looks_right)(&content),
                "{}: {content:?}",
                writer.name
            );
            assert_eq!(fs::read(&path).unwrap(), content);
        } else {
            assert_refused_as_existing(&writer, &out);
            assert!(fs::read(&other).unwrap().starts_with(b"old content"));
        }
        assert!(leftovers(&dir).is_empty(), "{}", writer.name);
    }
}

#[test]
fn a_regular_file_is_replaced_and_keeps_its_mode() {
    let root = root();
    for writer in writers() {
        let dir = case_dir(root.path(), &writer);
        let path = file_in(&dir);
        fs::write(&path, "old\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o604)).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();
        let out = (writer.run)(&path);
        if writer.replaces {
            assert_success(&writer, &out);
            assert!(
                (writer.looks_right)(&fs::read(&path).unwrap()),
                "{}",
                writer.name
            );
            assert_eq!(mode(&path), 0o604, "{}", writer.name);
            assert_ne!(
                fs::metadata(&path).unwrap().ino(),
                inode,
                "{}: renamed over",
                writer.name
            );
        } else {
            assert_refused_as_existing(&writer, &out);
            assert_eq!(fs::read(&path).unwrap(), b"old\n");
        }
        assert!(leftovers(&dir).is_empty(), "{}", writer.name);
    }
}

#[test]
fn a_missing_directory_is_named_and_nothing_is_created() {
    let root = root();
    for writer in writers() {
        let dir = case_dir(root.path(), &writer);
        let nodir = dir.join("nodir");
        // For the lab, DIR is nodir/report: its parent is missing.
        let path = nodir.join("report").join("index.html");
        let out = (writer.run)(&path);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{}: {message}", writer.name);
        assert!(
            !message.contains(".tmp") && !message.contains(".knuffle-"),
            "{}: {message}",
            writer.name
        );
        if writer.name != "shuf -o" {
            // shuf mode keeps GNU's wording: `FILE: No such file or directory`.
            let wanted = format!(
                "directory {} does not exist",
                path.parent().unwrap().display()
            );
            let wanted_lab = format!("directory {} does not exist", nodir.display());
            assert!(
                message.contains(&wanted)
                    || (writer.name == "lab --report" && message.contains(&wanted_lab)),
                "{}: {message}",
                writer.name
            );
        }
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            0,
            "{}: created something",
            writer.name
        );
    }
}

#[test]
fn lab_report_under_a_missing_parent_creates_nothing() {
    let parent = Path::new("/nonexistent-parent-of-knuffle-lab");
    assert!(!parent.exists());
    let out = lab(&parent.join("dir").join("index.html"));
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("directory /nonexistent-parent-of-knuffle-lab does not exist"),
        "{message}"
    );
    assert!(out.stdout.is_empty(), "stopped before the computation");
    assert!(!parent.exists());
}

#[test]
fn dev_null_stays_a_device() {
    let root = root();
    for writer in writers() {
        // The lab's page through a symlink to /dev/null (DIR is a directory).
        let path = if writer.name == "lab --report" {
            let page = file_in(&case_dir(root.path(), &writer));
            std::os::unix::fs::symlink("/dev/null", &page).unwrap();
            page
        } else {
            PathBuf::from("/dev/null")
        };
        let out = (writer.run)(&path);
        assert_success(&writer, &out);
        let meta = fs::symlink_metadata("/dev/null").unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "{}: /dev/null replaced",
            writer.name
        );
    }
}

#[test]
fn a_full_device_is_an_error_and_stays_a_device() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        require_or_skip("root, to make a device node with mknod");
        return;
    }
    let root = root();
    for writer in writers() {
        let node = file_in(&case_dir(root.path(), &writer));
        // SAFETY: a valid NUL-terminated path; 1,7 is the full device.
        let made = unsafe {
            libc::mknod(
                c_path(&node).as_ptr(),
                libc::S_IFCHR | 0o666,
                libc::makedev(1, 7),
            )
        };
        if made != 0 {
            require_or_skip(&format!("mknod: {}", std::io::Error::last_os_error()));
            return;
        }
        if let Err(e) = fs::OpenOptions::new().write(true).open(&node) {
            // A file system mounted nodev.
            require_or_skip(&format!(
                "opening a device node in {}: {e}",
                root.path().display()
            ));
            return;
        }
        let out = (writer.run)(&node);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{}: {message}", writer.name);
        assert!(
            message.contains("No space left on device"),
            "{}: {message}",
            writer.name
        );
        assert!(
            fs::symlink_metadata(&node)
                .unwrap()
                .file_type()
                .is_char_device(),
            "{}: the device was replaced",
            writer.name
        );
    }
}
