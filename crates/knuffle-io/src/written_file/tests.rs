use super::*;
use std::os::unix::fs::FileTypeExt;

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Names in `dir` that look like temporary files.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".knuffle-") || n.starts_with(".tmp"))
        .collect()
}

#[test]
fn a_regular_file_is_replaced_keeping_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    fs::write(&path, "old content, longer than the new\n").unwrap();
    fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
    let before = fs::metadata(&path).unwrap().ino();
    write_file(&path, b"new\n").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new\n");
    assert_eq!(mode(&path), 0o640);
    assert_ne!(fs::metadata(&path).unwrap().ino(), before, "renamed over");
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn a_new_file_gets_the_umask_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new");
    write_file(&path, b"x").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"x");
    assert_eq!(mode(&path), new_file_mode());
}

#[test]
fn a_symlink_stays_and_its_target_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    let link = dir.path().join("link");
    fs::write(&target, "old\n").unwrap();
    fs::set_permissions(&target, Permissions::from_mode(0o604)).unwrap();
    std::os::unix::fs::symlink("target", &link).unwrap();
    write_file(&link, b"new\n").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"new\n");
    assert_eq!(mode(&target), 0o604);
}

#[test]
fn a_chain_of_symlinks_is_followed_and_a_dangling_one_creates_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    std::os::unix::fs::symlink("sub/final", dir.path().join("first")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("first"), dir.path().join("second")).unwrap();
    write_file(&dir.path().join("second"), b"made\n").unwrap();
    assert_eq!(fs::read(sub.join("final")).unwrap(), b"made\n");
    assert!(
        fs::symlink_metadata(dir.path().join("first"))
            .unwrap()
            .is_symlink()
    );
    assert!(
        fs::symlink_metadata(dir.path().join("second"))
            .unwrap()
            .is_symlink()
    );
    // A loop is an error, and creates nothing.
    std::os::unix::fs::symlink("loop-b", dir.path().join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", dir.path().join("loop-b")).unwrap();
    let error = write_file(&dir.path().join("loop-a"), b"x").unwrap_err();
    assert!(error.to_string().contains("loop-a: "), "{error}");
}

#[test]
fn a_hard_linked_file_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    fs::write(&one, "old content, longer than the new\n").unwrap();
    fs::hard_link(&one, &two).unwrap();
    write_file(&one, b"new\n").unwrap();
    assert_eq!(fs::metadata(&one).unwrap().nlink(), 2);
    assert_eq!(fs::read(&two).unwrap(), b"new\n", "cut to the new length");
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn a_fifo_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let c_fifo = CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_fifo.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    write_file(&fifo, b"through the pipe\n").unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe\n");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn checking_a_fifo_does_not_open_it() {
    // Opening the FIFO to check it would give a waiting reader the
    // end of its data before anything was written.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let c_fifo = CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_fifo.as_ptr(), 0o600) }, 0);
    check_writable(&fifo).unwrap(); // no reader: does not block
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    check_writable(&fifo).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!reader.is_finished(), "the reader saw an end of data");
    write_file(&fifo, b"after the check\n").unwrap();
    assert_eq!(reader.join().unwrap(), b"after the check\n");
}

#[test]
fn dev_null_stays_a_device() {
    write_file(Path::new("/dev/null"), b"gone\n").unwrap();
    let meta = fs::symlink_metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device());
}

#[test]
fn dev_full_is_an_error_and_stays_a_device() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let error = write_file(Path::new("/dev/full"), b"x\n").unwrap_err();
    assert_eq!(error.to_string(), "/dev/full: No space left on device");
    assert!(
        fs::symlink_metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn a_missing_directory_is_named_and_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let nodir = dir.path().join("nodir");
    let error = write_file(&nodir.join("x.json"), b"x").unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: directory {} does not exist",
            nodir.join("x.json").display(),
            nodir.display()
        )
    );
    assert!(!nodir.exists());
    // A file where a directory should be.
    let file = dir.path().join("file");
    fs::write(&file, "").unwrap();
    let error = write_file(&file.join("x"), b"x").unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with(&format!("{} is not a directory", file.display())),
        "{error}"
    );
    let error = check_writable(&nodir.join("x.json")).unwrap_err();
    assert!(error.to_string().ends_with("does not exist"), "{error}");
    assert!(fs::read_dir(dir.path()).unwrap().count() == 1);
}

#[test]
fn check_writable_creates_and_truncates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep");
    fs::write(&path, "kept\n").unwrap();
    check_writable(&path).unwrap();
    check_writable(&dir.path().join("new")).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"kept\n");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn an_unfinished_write_leaves_the_file_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    fs::write(&path, "old\n").unwrap();
    let mut file = WrittenFile::create(&path).unwrap();
    file.write_all(b"half of the new").unwrap();
    drop(file);
    assert_eq!(fs::read(&path).unwrap(), b"old\n");
    assert!(leftovers(dir.path()).is_empty());
    let fresh = dir.path().join("fresh");
    drop(WrittenFile::create(&fresh).unwrap());
    assert!(!fresh.exists());
}

#[test]
fn a_new_file_is_never_written_over_an_existing_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret");
    write_new_file(&path, b"first\n", 0o600).unwrap();
    assert_eq!(mode(&path), 0o600);
    let error = write_new_file(&path, b"second\n", 0o600).unwrap_err();
    assert_eq!(error.error.kind(), io::ErrorKind::AlreadyExists, "{error}");
    // Nor through a symlink; a dangling one creates its target.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("secret", &link).unwrap();
    assert!(write_new_file(&link, b"third\n", 0o600).is_err());
    assert_eq!(fs::read(&path).unwrap(), b"first\n");
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink("made", &dangling).unwrap();
    write_new_file(&dangling, b"made\n", 0o600).unwrap();
    assert_eq!(fs::read(dir.path().join("made")).unwrap(), b"made\n");
    assert_eq!(mode(&dir.path().join("made")), 0o600);
    assert!(leftovers(dir.path()).is_empty());
}
