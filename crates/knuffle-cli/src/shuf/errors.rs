//! Errors of shuf mode, and GNU's ways of quoting names in messages.

use std::ffi::OsStr;
use std::io;

/// A failure: GNU's message (without the `program: ` prefix), and whether
/// "Try 'program --help' for more information." follows. Exit status 1.
#[derive(Debug)]
pub struct ShufError {
    /// The message, e.g. `invalid line count: ‘A’`.
    pub message: String,
    /// Whether the `--help` hint follows (usage errors).
    pub try_help: bool,
}

impl ShufError {
    /// An error without the usage hint.
    pub fn plain(message: impl Into<String>) -> Self {
        ShufError {
            message: message.into(),
            try_help: false,
        }
    }

    /// A usage error: the `--help` hint follows.
    pub fn usage(message: impl Into<String>) -> Self {
        ShufError {
            message: message.into(),
            try_help: true,
        }
    }

    /// `NAME: strerror` for a file that could not be opened or read, with
    /// the name quoted as GNU's `quotef` does.
    pub fn file(name: &OsStr, error: &io::Error) -> Self {
        ShufError::plain(format!("{}: {}", quotef(name), os_error_text(error)))
    }

    /// GNU's `read error: strerror`.
    pub fn read(error: &io::Error) -> Self {
        ShufError::plain(format!("read error: {}", os_error_text(error)))
    }

    /// GNU's `write error: strerror`.
    pub fn write(error: &io::Error) -> Self {
        ShufError::plain(format!("write error: {}", os_error_text(error)))
    }

    /// GNU's `memory exhausted`.
    pub fn memory() -> Self {
        ShufError::plain("memory exhausted")
    }
}

/// The C library's text for an error (`strerror`), without Rust's
/// ` (os error N)` suffix.
pub fn os_error_text(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) if error.raw_os_error().is_some() => text[..cut].to_string(),
        _ => text,
    }
}

/// Whether the locale's character set is UTF-8 (GNU then quotes with
/// ‘curly quotes’, otherwise with 'apostrophes').
fn utf8_locale() -> bool {
    let value = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|v| !v.is_empty())
        .unwrap_or_default()
        .to_ascii_lowercase();
    value.contains("utf-8") || value.contains("utf8")
}

/// GNU's `quote`: the text in locale quotes, with control characters
/// escaped (`\n`, `\t`, octal), as in "extra operand ‘x’".
pub fn quote(text: &OsStr) -> String {
    let (open, close) = if utf8_locale() {
        ("\u{2018}", "\u{2019}")
    } else {
        ("'", "'")
    };
    let mut out = String::from(open);
    for chunk in text.as_encoded_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    out.push_str(&format!("\\{:03o}", c as u32))
                }
                '\'' if open == "'" => out.push_str("\\'"),
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\{byte:03o}"));
        }
    }
    out.push_str(close);
    out
}

/// GNU's `quotef` (shell-escape quoting, colons quoted too): a file name
/// made of safe characters is shown as is, anything else in single quotes
/// (with `'\''` for an apostrophe and `$'\n'`-style escapes for control
/// characters), so the message can be pasted into a shell.
pub fn quotef(name: &OsStr) -> String {
    let bytes = name.as_encoded_bytes();
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"_./-+,%@=".contains(&b) || b >= 0x80;
    if !bytes.is_empty() && bytes.iter().all(|&b| safe(b)) && std::str::from_utf8(bytes).is_ok() {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut out = String::from("'");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\'' => out.push_str("'\\''"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    let escaped = match c {
                        '\n' => "\\n".to_string(),
                        '\t' => "\\t".to_string(),
                        '\r' => "\\r".to_string(),
                        c => format!("\\{:03o}", c as u32),
                    };
                    out.push_str(&format!("'$'{escaped}''"));
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("'$'\\{byte:03o}''"));
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotef_leaves_plain_names_alone() {
        assert_eq!(quotef(OsStr::new("dir/a-b_c.txt")), "dir/a-b_c.txt");
        assert_eq!(quotef(OsStr::new("a b")), "'a b'");
        assert_eq!(quotef(OsStr::new("it's")), "'it'\\''s'");
        assert_eq!(quotef(OsStr::new("a:b")), "'a:b'");
        assert_eq!(quotef(OsStr::new("a\nb")), "'a'$'\\n''b'");
    }

    #[test]
    fn strerror_text_has_no_rust_suffix() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(os_error_text(&e), "No such file or directory");
    }
}
