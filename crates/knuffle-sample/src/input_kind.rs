//! What an input is, as its metadata tells (nothing read): the one fact
//! about the inputs the plan of a sample or a split needs.

use std::ffi::OsString;

/// An input, as its metadata tells (nothing read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InputKind {
    /// A regular file, or a directory (refused when read): read where
    /// it is, as often as needed.
    Regular,
    /// Standard input (`-`, or no input at all).
    Stdin,
    /// A pipe, FIFO or device: read once only.
    Stream,
    /// Not found, or not allowed: reported when it is read.
    Unopenable,
}

/// The inputs' names (`-` when there are none) with their kinds.
pub(crate) fn kinds_of(files: &[OsString]) -> Vec<(OsString, InputKind)> {
    let stdin = [OsString::from("-")];
    let files = if files.is_empty() { &stdin[..] } else { files };
    files
        .iter()
        .map(|file| {
            let kind = if file == "-" {
                InputKind::Stdin
            } else {
                match std::fs::metadata(file) {
                    Ok(m) if m.is_file() || m.is_dir() => InputKind::Regular,
                    Ok(_) => InputKind::Stream,
                    Err(_) => InputKind::Unopenable,
                }
            };
            (file.clone(), kind)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_metadata_and_no_input_is_standard_input() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x\n").unwrap();
        let kinds = kinds_of(&[
            file.clone().into(),
            dir.path().into(),
            "/dev/null".into(),
            dir.path().join("missing").into(),
        ]);
        let kinds: Vec<InputKind> = kinds.into_iter().map(|(_, k)| k).collect();
        assert_eq!(
            kinds,
            [
                InputKind::Regular,
                InputKind::Regular,
                InputKind::Stream,
                InputKind::Unopenable
            ]
        );
        assert_eq!(kinds_of(&[]), [(OsString::from("-"), InputKind::Stdin)]);
    }
}
