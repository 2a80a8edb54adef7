//! GNU's quoting of names and values in messages, byte for byte.
//!
//! coreutils prints operands with gnulib's `quotearg` (quotearg.c,
//! `quotearg_buffer_restyled`), in two styles:
//!
//! - [`quote`]: `locale_quoting_style` ("extra operand ‘x’", "invalid line
//!   count: ‘A’"): always in the locale's quotes (‘ ’ under UTF-8, ' '
//!   otherwise), with C escapes (`\n`, `\t`, `\\`, `\0`, octal for other
//!   unprintable bytes) and a backslash before a closing quote inside.
//! - [`quotef`]: `shell_escape_quoting_style` with `:` also quoted (file
//!   names before `: strerror`): shown as is when the shell would read it
//!   back unchanged; otherwise in single quotes, unprintable bytes as
//!   `'$'\n''`-style ANSI-C segments, an apostrophe as `'\''`, or, when the
//!   only special characters are apostrophes and spaces, in double quotes
//!   (`"a'b"`).
//!
//! Printability follows the locale as `mbrtowc`/`iswprint` do: under UTF-8,
//! a valid character is printable unless it is a C0 or C1 control, DEL, a
//! line or paragraph separator (U+2028, U+2029) or a noncharacter (U+FDD0
//! to U+FDEF, U+xFFFE, U+xFFFF); invalid bytes are not. (glibc also counts
//! code points unassigned in its Unicode version as unprintable; knuffle
//! has no such table.)
//! In any other locale only printable ASCII is (every byte over 0x7F is
//! escaped in octal).

use std::ffi::OsStr;

/// One piece of the text: a byte GNU looks at on its own, a printable
/// multibyte character, or bytes that are not printable (escaped in octal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit<'a> {
    Ascii(u8),
    Wide(&'a [u8]),
    Unprintable(&'a [u8]),
}

/// Splits `bytes` as GNU's loop does under a UTF-8 (or single-byte) locale.
fn units(bytes: &[u8], utf8: bool) -> Vec<Unit<'_>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            out.push(if is_printable_ascii(b) || is_named_escape(b) || b == 0 {
                Unit::Ascii(b)
            } else {
                Unit::Unprintable(&bytes[i..=i])
            });
            i += 1;
            continue;
        }
        if !utf8 {
            out.push(Unit::Unprintable(&bytes[i..=i]));
            i += 1;
            continue;
        }
        let len = utf8_len(&bytes[i..]);
        match len {
            Some(n) => {
                let piece = &bytes[i..i + n];
                let c = std::str::from_utf8(piece)
                    .ok()
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\u{fffd}');
                out.push(if is_printable_wide(c) {
                    Unit::Wide(piece)
                } else {
                    Unit::Unprintable(piece)
                });
                i += n;
            }
            None => {
                out.push(Unit::Unprintable(&bytes[i..=i]));
                i += 1;
            }
        }
    }
    out
}

/// The length of the valid UTF-8 character at the start of `bytes`, if any.
fn utf8_len(bytes: &[u8]) -> Option<usize> {
    let want = match bytes[0] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let piece = bytes.get(..want)?;
    std::str::from_utf8(piece).ok().map(|_| want)
}

fn is_printable_ascii(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// `\a \b \f \n \r \t \v`: the control characters with a letter escape.
fn is_named_escape(b: u8) -> bool {
    matches!(b, 0x07 | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b)
}

fn is_printable_wide(c: char) -> bool {
    let noncharacter = matches!(c, '\u{fdd0}'..='\u{fdef}') || (c as u32) & 0xfffe == 0xfffe;
    !noncharacter && !matches!(c, '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
}

fn letter_escape(b: u8) -> Option<u8> {
    Some(match b {
        0 => b'0',
        0x07 => b'a',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x0b => b'v',
        _ => return None,
    })
}

fn octal(out: &mut String, b: u8) {
    out.push('\\');
    out.push(char::from(b'0' + (b >> 6)));
    out.push(char::from(b'0' + ((b >> 3) & 7)));
    out.push(char::from(b'0' + (b & 7)));
}

/// Whether the locale's character set is UTF-8 (`LC_ALL`, `LC_CTYPE`,
/// `LANG`, the first one set wins, as in `setlocale`).
pub fn utf8_locale() -> bool {
    let value = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|v| !v.is_empty())
        .unwrap_or_default()
        .to_ascii_lowercase();
    value.contains("utf-8") || value.contains("utf8")
}

/// GNU's `quote`: `text` in the locale's quotes with C escapes.
pub fn quote(text: &OsStr) -> String {
    quote_in(text.as_encoded_bytes(), utf8_locale())
}

/// [`quote`] for a given locale kind.
pub fn quote_in(bytes: &[u8], utf8: bool) -> String {
    let (open, close) = if utf8 {
        ("\u{2018}", "\u{2019}")
    } else {
        ("'", "'")
    };
    let mut out = String::from(open);
    let pieces = units(bytes, utf8);
    let mut offset = 0;
    for unit in pieces {
        match unit {
            Unit::Ascii(0) => {
                // `\0`, or `\000` when a digit follows (so it stays one escape).
                let next_is_digit = bytes.get(offset + 1).is_some_and(u8::is_ascii_digit);
                out.push_str(if next_is_digit { "\\000" } else { "\\0" });
                offset += 1;
            }
            Unit::Ascii(b) => {
                if let Some(letter) = letter_escape(b) {
                    out.push('\\');
                    out.push(char::from(letter));
                } else if b == b'\\' {
                    out.push_str("\\\\");
                } else {
                    if close == "'" && b == b'\'' {
                        out.push('\\');
                    }
                    out.push(char::from(b));
                }
                offset += 1;
            }
            Unit::Wide(piece) => {
                let text = std::str::from_utf8(piece).unwrap_or_default();
                if text == close {
                    out.push('\\');
                }
                out.push_str(text);
                offset += piece.len();
            }
            Unit::Unprintable(piece) => {
                for &b in piece {
                    octal(&mut out, b);
                }
                offset += piece.len();
            }
        }
    }
    out.push_str(close);
    out
}

/// GNU's `quotef` (`quotearg_n_style_colon` with `shell_escape_quoting_style`).
pub fn quotef(name: &OsStr) -> String {
    quotef_in(name.as_encoded_bytes(), utf8_locale())
}

/// Whether `unit` at `index` of a `len`-byte text makes GNU quote the text
/// (the elided-quotes pass that gives up with `force_outer_quoting_style`).
fn forces_quotes(unit: Unit<'_>, index: usize, len: usize) -> bool {
    match unit {
        Unit::Unprintable(_) => true,
        Unit::Wide(_) => false,
        Unit::Ascii(b) => match b {
            b'{' | b'}' => len == 1,
            b'#' | b'~' => index == 0,
            b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b']' | b'_' | b'@' => false,
            b if b.is_ascii_alphanumeric() => false,
            // `:` is quoted by the `_colon` variant; everything else left
            // (controls, NUL, space, ! " $ & ' ( ) * ; < = > ? [ \ ^ ` |)
            // is special to the shell.
            _ => true,
        },
    }
}

/// Whether GNU counts `unit` as safe inside double quotes too
/// (`c_and_shell_quote_compat`); a quoted text with an apostrophe whose
/// every unit is, is shown in double quotes.
fn double_quote_safe(unit: Unit<'_>, index: usize, len: usize) -> bool {
    match unit {
        Unit::Unprintable(_) => false,
        Unit::Wide(_) => true,
        Unit::Ascii(b) => match b {
            b'{' | b'}' => len == 1,
            b'#' | b'~' => index == 0,
            b' ' | b'\'' | b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b':' | b']' | b'_' | b'@' => {
                true
            }
            b => b.is_ascii_alphanumeric(),
        },
    }
}

/// [`quotef`] for a given locale kind.
pub fn quotef_in(bytes: &[u8], utf8: bool) -> String {
    let pieces = units(bytes, utf8);
    let mut needs_quotes = bytes.is_empty();
    let mut all_double_safe = true;
    let mut apostrophe = false;
    let mut offset = 0;
    for &unit in &pieces {
        let at = offset;
        offset += match unit {
            Unit::Ascii(_) => 1,
            Unit::Wide(p) | Unit::Unprintable(p) => p.len(),
        };
        needs_quotes |= forces_quotes(unit, at, bytes.len());
        all_double_safe &= double_quote_safe(unit, at, bytes.len());
        apostrophe |= unit == Unit::Ascii(b'\'');
    }
    if !needs_quotes {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    if apostrophe && all_double_safe {
        return format!("\"{}\"", String::from_utf8_lossy(bytes));
    }
    // shell_escape_always: '...' with '$'\..'' segments for the unprintable.
    let (_, ends_in_escape) = single_quoted(&pieces, false);
    // GNU renders a text with an apostrophe twice (a first pass looks for
    // the double-quoted form) without resetting its "inside $'...'" state:
    // the second pass starts in the state the first one ended in.
    let carried = apostrophe && ends_in_escape;
    single_quoted(&pieces, carried).0
}

/// The `shell_escape_always` rendering of `pieces`, starting inside an
/// unfinished `$'...'` segment when `in_escape`; also returns whether it
/// ends inside one.
fn single_quoted(pieces: &[Unit<'_>], mut in_escape: bool) -> (String, bool) {
    let mut out = String::from("'");
    let start_escape = |out: &mut String, in_escape: &mut bool| {
        if !*in_escape {
            out.push_str("'$'");
            *in_escape = true;
        }
    };
    for &unit in pieces {
        match unit {
            Unit::Ascii(b'\'') => {
                out.push_str("'\\''");
                in_escape = false;
            }
            Unit::Ascii(b) if letter_escape(b).is_some() => {
                start_escape(&mut out, &mut in_escape);
                out.push('\\');
                out.push(char::from(letter_escape(b).unwrap_or(b'0')));
            }
            Unit::Unprintable(piece) => {
                start_escape(&mut out, &mut in_escape);
                for &b in piece {
                    octal(&mut out, b);
                }
            }
            plain => {
                if in_escape {
                    out.push_str("''");
                    in_escape = false;
                }
                match plain {
                    Unit::Ascii(b) => out.push(char::from(b)),
                    Unit::Wide(p) => out.push_str(std::str::from_utf8(p).unwrap_or_default()),
                    Unit::Unprintable(_) => {}
                }
            }
        }
    }
    out.push('\'');
    (out, in_escape)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and what GNU shuf 9.1 prints for them under C.UTF-8
    /// (`shuf NAME` on a missing file: "shuf: SHOWN: No such file ...").
    const QUOTEF_UTF8: &[(&[u8], &str)] = &[
        (b"plain.txt", "plain.txt"),
        (b"dir/a-b_c.txt", "dir/a-b_c.txt"),
        (b"a=b", "'a=b'"),
        (b"--input-range=20-29", "'--input-range=20-29'"),
        (b"a'b", "\"a'b\""),
        (b"it's a b", "\"it's a b\""),
        (b"a'b=c", "'a'\\''b=c'"),
        (b"a#", "a#"),
        (b"#a", "'#a'"),
        (b"a~", "a~"),
        (b"~a", "'~a'"),
        (b"x]", "x]"),
        (b"[x", "'[x'"),
        (b"a{b}", "a{b}"),
        (b"{", "'{'"),
        (b"a@b", "a@b"),
        (b"a:b", "'a:b'"),
        (b"-n", "-n"),
        (b"a b", "'a b'"),
        (b"a\tb", "'a'$'\\t''b'"),
        (b"a\nb", "'a'$'\\n''b'"),
        (b"a\n\tb", "'a'$'\\n\\t''b'"),
        (b"\n", "''$'\\n'"),
        (b"\xff", "''$'\\377'"),
        (b"a\xffb", "'a'$'\\377''b'"),
        (b"\x01x", "''$'\\001''x'"),
        (b"\x7f", "''$'\\177'"),
        (b"caf\xc3\xa9", "caf\u{e9}"),
        (b"caf\xc3\xa9 x", "'caf\u{e9} x'"),
        (b"\xc2\x85", "''$'\\302\\205'"),
        (b"", "''"),
        (b"a?", "'a?'"),
        (b"a\\b", "'a\\b'"),
        (b"$HOME", "'$HOME'"),
        (b"\n'", r"''$'\n'\'''"),
        (b"'\n", r"''\'''$'\n'"),
        (b"a'\xff", r"'''a'\'''$'\377'"),
        (b"\xe2\x80\xa8", r"''$'\342\200\250'"),
        (b"\xf0\x9f\x98\x80", "\u{1f600}"),
        (b"\xee\x80\x80", "\u{e000}"),
        (b"}", "'}'"),
        (b"\xef\xbf\xbe", r"''$'\357\277\276'"),
        (b"\xf4\x8f\xbf\xbf", r"''$'\364\217\277\277'"),
        (b"\xef\xb7\x90", r"''$'\357\267\220'"),
        (b"\xc2\xad\xe2\x80\x8b", "\u{ad}\u{200b}"),
    ];

    #[test]
    fn quotef_matches_gnu_under_utf8() {
        for (name, shown) in QUOTEF_UTF8 {
            assert_eq!(
                quotef_in(name, true),
                *shown,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
    }

    #[test]
    fn quotef_escapes_every_non_ascii_byte_outside_utf8() {
        assert_eq!(quotef_in(b"caf\xc3\xa9", false), "'caf'$'\\303\\251'");
        assert_eq!(quotef_in(b"a'b", false), "\"a'b\"");
        assert_eq!(quotef_in(b"a'b\x01", false), r"'''a'\''b'$'\001'");
    }

    #[test]
    fn quote_matches_gnu() {
        assert_eq!(quote_in(b"x", true), "\u{2018}x\u{2019}");
        assert_eq!(quote_in(b"x", false), "'x'");
        assert_eq!(quote_in(b"a'b", false), "'a\\'b'");
        assert_eq!(quote_in(b"a'b", true), "\u{2018}a'b\u{2019}");
        assert_eq!(quote_in(b"a\rb\x01", true), "\u{2018}a\\rb\\001\u{2019}");
        assert_eq!(quote_in(b"\\", true), "\u{2018}\\\\\u{2019}");
        assert_eq!(
            quote_in(b"a\xe2\x80\x99b", true),
            "\u{2018}a\\\u{2019}b\u{2019}"
        );
        assert_eq!(quote_in(b"\xff", true), "\u{2018}\\377\u{2019}");
        assert_eq!(quote_in(b"\x001", true), "\u{2018}\\0001\u{2019}");
        assert_eq!(quote_in(b"\x00a", true), "\u{2018}\\0a\u{2019}");
    }
}
