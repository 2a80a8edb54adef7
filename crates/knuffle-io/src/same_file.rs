//! Whether two output names are one file, whatever their spelling: the
//! check every command with several outputs makes before it writes (two
//! parts written over each other would lose rows).

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What an output name writes to: an existing file by its device and
/// inode (a hard link or a symbolic link to it is the same file), a file
/// not there yet by its directory's canonical path and its name, through
/// symbolic links that lead nowhere yet (the rule for written files
/// creates their target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputFile {
    /// An existing file: its device and inode.
    Existing(u64, u64),
    /// A file not there yet: where it will be.
    New(PathBuf),
}

impl OutputFile {
    /// The file the output name `path` writes to.
    pub fn of(path: &Path) -> OutputFile {
        if let Ok(metadata) = fs::metadata(path) {
            return OutputFile::Existing(metadata.dev(), metadata.ino());
        }
        let mut path = path.to_path_buf();
        // At most as many links as the kernel follows (ELOOP).
        for _ in 0..40 {
            match fs::read_link(&path) {
                Ok(target) => path = parent_of(&path).join(target),
                Err(_) => break,
            }
        }
        match (fs::canonicalize(parent_of(&path)), path.file_name()) {
            (Ok(dir), Some(name)) => OutputFile::New(dir.join(name)),
            _ => OutputFile::New(path),
        }
    }
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_spellings_of_one_file_are_one_output() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("a"), "x").unwrap();
        fs::hard_link(d.join("a"), d.join("hard")).unwrap();
        std::os::unix::fs::symlink("a", d.join("soft")).unwrap();
        std::os::unix::fs::symlink("new", d.join("dangling")).unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        let of = |name: &str| OutputFile::of(&d.join(name));
        assert_eq!(of("a"), of("hard"));
        assert_eq!(of("a"), of("soft"));
        assert_eq!(of("a"), of("sub/../a"));
        assert_eq!(of("new"), of("dangling"));
        assert_eq!(of("new"), of("sub/../new"));
        assert_ne!(of("a"), of("new"));
        assert_ne!(of("new"), of("other"));
    }
}
