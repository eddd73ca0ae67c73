//! Free text a player sends (a device's name) as the server keeps it and shows it to others.

/// `s` without control characters, bidirectional overrides and isolates, or zero-width
/// characters, its whitespace runs made one space, trimmed, and cut to `max_chars` characters.
///
/// Why: the text is echoed to other devices and players, where a right-to-left override can
/// turn what follows it around (a name that reads as another) and a NUL or escape can break
/// a terminal or a log line.
pub fn clean_text(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if c.is_control() || is_invisible_format(c) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    out.chars()
        .take(max_chars)
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// Bidirectional formatting (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), zero-width
/// characters (U+200B–U+200D, U+2060, U+FEFF) and the soft hyphen.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_go_whitespace_folds_and_the_length_is_bounded() {
        assert_eq!(clean_text("  My\tphone\n ", 60), "My phone");
        assert_eq!(clean_text("a\u{0}b\u{1b}[31mc", 60), "ab[31mc");
        assert_eq!(clean_text("evil\u{202E}gnp.exe", 60), "evilgnp.exe");
        assert_eq!(clean_text("\u{2066}x\u{2069}\u{200B}y\u{FEFF}", 60), "xy");
        assert_eq!(clean_text("小米 手机", 60), "小米 手机");
        assert_eq!(clean_text("一二三四五", 3), "一二三");
        assert_eq!(clean_text("ab  cd", 3), "ab");
        assert_eq!(clean_text("\u{202E}\u{0}", 60), "");
    }
}
