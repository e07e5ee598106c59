//! How many segments (billed messages) an SMS text takes.
//!
//! # Segments
//! [`segments`] counts as 3GPP TS 23.038 and 23.040 do. A text is GSM-7 when every char is in
//! the GSM 03.38 default alphabet, one septet each, or in its extension table, two septets each
//! (an escape and the char); otherwise it is UCS-2, one UTF-16 code unit a char and two for a
//! char outside the BMP (a surrogate pair). One segment holds 160 septets or 70 units; a longer
//! text is split into segments of 153 septets or 67 units (the rest is the concatenation
//! header), and an escape pair or a surrogate pair is never split: it moves whole to the next
//! segment. U+00C7 `Ç` is GSM-7 (the table's 0x09); U+00E7 `ç` is counted as UCS-2: the
//! standard's table shows the capital, and although many senders map `ç` to it, counting it as
//! UCS-2 can only overcount, never promise one segment and bill two.

/// Septets in one GSM-7 segment, and in each segment of a longer text.
const GSM7_SINGLE: usize = 160;
const GSM7_PART: usize = 153;
/// UTF-16 code units in one UCS-2 segment, and in each segment of a longer text.
const UCS2_SINGLE: usize = 70;
const UCS2_PART: usize = 67;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmsEncoding {
    Gsm7,
    Ucs2,
}

impl SmsEncoding {
    pub fn as_str(self) -> &'static str {
        match self {
            SmsEncoding::Gsm7 => "GSM-7",
            SmsEncoding::Ucs2 => "UCS-2",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segments {
    pub encoding: SmsEncoding,
    /// septets (GSM-7) or UTF-16 code units (UCS-2)
    pub units: usize,
    pub count: usize,
}

/// The encoding, size and segment count of `text` (see the module doc). An empty text is one
/// segment of 0 units.
pub fn segments(text: &str) -> Segments {
    if text.chars().all(|c| gsm7_septets(c).is_some()) {
        let units = text.chars().map(|c| gsm7_septets(c).unwrap_or(1));
        let (units, count) = pack(units, GSM7_SINGLE, GSM7_PART);
        Segments {
            encoding: SmsEncoding::Gsm7,
            units,
            count,
        }
    } else {
        let (units, count) = pack(text.chars().map(char::len_utf16), UCS2_SINGLE, UCS2_PART);
        Segments {
            encoding: SmsEncoding::Ucs2,
            units,
            count,
        }
    }
}

/// The total of `sizes` and the segments they take: one if the total is at most `single`, else
/// as many of `part` as it takes when no item is split across two.
fn pack(sizes: impl Iterator<Item = usize> + Clone, single: usize, part: usize) -> (usize, usize) {
    let total: usize = sizes.clone().sum();
    if total <= single {
        return (total, 1);
    }
    let (mut count, mut used) = (1, 0);
    for size in sizes {
        if used + size > part {
            count += 1;
            used = 0;
        }
        used += size;
    }
    (total, count)
}

/// Septets `c` takes in GSM-7: 1 in the default alphabet, 2 in its extension table (escape
/// and char), `None` when it is in neither.
fn gsm7_septets(c: char) -> Option<usize> {
    match c {
        'A'..='Z' | 'a'..='z' | '0'..='9' => Some(1),
        // 0x00–0x1F, less the escape 0x1B.
        '@' | '£' | '$' | '¥' | 'è' | 'é' | 'ù' | 'ì' | 'ò' | 'Ç' | '\n' | 'Ø' | 'ø' | '\r'
        | 'Å' | 'å' | 'Δ' | '_' | 'Φ' | 'Γ' | 'Λ' | 'Ω' | 'Π' | 'Ψ' | 'Σ' | 'Θ' | 'Ξ' | 'Æ'
        | 'æ' | 'ß' | 'É' => Some(1),
        // 0x20–0x3F, less the digits.
        ' ' | '!' | '"' | '#' | '¤' | '%' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | '-'
        | '.' | '/' | ':' | ';' | '<' | '=' | '>' | '?' => Some(1),
        // 0x40–0x7F, less the letters.
        '¡' | 'Ä' | 'Ö' | 'Ñ' | 'Ü' | '§' | '¿' | 'ä' | 'ö' | 'ñ' | 'ü' | 'à' => {
            Some(1)
        }
        // The extension table.
        '\u{C}' | '^' | '{' | '}' | '\\' | '[' | '~' | ']' | '|' | '€' => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use SmsEncoding::{Gsm7, Ucs2};

    fn seg(encoding: SmsEncoding, units: usize, count: usize) -> Segments {
        Segments {
            encoding,
            units,
            count,
        }
    }

    #[test]
    fn plain_ascii_is_one_segment_up_to_160_then_153_each() {
        assert_eq!(segments(&"a".repeat(160)), seg(Gsm7, 160, 1));
        // 153 + 8.
        assert_eq!(segments(&"a".repeat(161)), seg(Gsm7, 161, 2));
        assert_eq!(segments(&"a".repeat(306)), seg(Gsm7, 306, 2));
        assert_eq!(segments(&"a".repeat(307)), seg(Gsm7, 307, 3));
    }

    #[test]
    fn an_empty_text_is_one_segment_of_nothing() {
        assert_eq!(segments(""), seg(Gsm7, 0, 1));
    }

    #[test]
    fn extension_chars_take_two_septets() {
        for c in ['\u{C}', '^', '{', '}', '\\', '[', '~', ']', '|', '€'] {
            assert_eq!(segments(&c.to_string()), seg(Gsm7, 2, 1), "{c:?}");
        }
        assert_eq!(segments(&"€".repeat(80)), seg(Gsm7, 160, 1));
        assert_eq!(segments(&"€".repeat(81)), seg(Gsm7, 162, 2));
    }

    #[test]
    fn an_escape_pair_is_not_split_across_segments() {
        // 152 + 2 + 152 = 306 septets would fill two segments exactly, but the escape pair
        // cannot start in septet 153: it moves to the second segment, and the last char spills.
        let text = format!("{}€{}", "a".repeat(152), "a".repeat(152));
        assert_eq!(segments(&text), seg(Gsm7, 306, 3));
        // Where it does not straddle, the same septets fill two segments.
        let text = format!("{}€{}", "a".repeat(151), "a".repeat(153));
        assert_eq!(segments(&text), seg(Gsm7, 306, 2));
    }

    #[test]
    fn the_default_alphabet_has_127_chars_and_the_extension_table_10() {
        let all = || (0..=0x10FFFF_u32).filter_map(char::from_u32);
        assert_eq!(all().filter(|&c| gsm7_septets(c) == Some(1)).count(), 127);
        assert_eq!(all().filter(|&c| gsm7_septets(c) == Some(2)).count(), 10);
    }

    #[test]
    fn which_latin_letters_are_gsm7() {
        for text in [
            "é",
            "ß",
            "Ñ",
            "Ä",
            "Ç",
            "Ø",
            "å",
            "ü",
            "à",
            "¿¡",
            "£¥¤§",
            "ΔΦΓΛΩΠΨΣΘΞ",
        ] {
            assert_eq!(segments(text).encoding, Gsm7, "{text}");
        }
        // ç is not the table's 0x09 (Ç); ë, ł and the backtick are not in it at all.
        for text in ["ç", "ë", "Ł", "`", "á", "ó"] {
            assert_eq!(segments(text).encoding, Ucs2, "{text}");
        }
        assert_eq!(segments("Curaçao").encoding, Ucs2);
    }

    #[test]
    fn ucs2_is_one_segment_up_to_70_units_then_67_each() {
        assert_eq!(segments("王芳"), seg(Ucs2, 2, 1));
        assert_eq!(segments(&"王".repeat(70)), seg(Ucs2, 70, 1));
        assert_eq!(segments(&"王".repeat(71)), seg(Ucs2, 71, 2));
        assert_eq!(segments(&"Ж".repeat(134)), seg(Ucs2, 134, 2));
        assert_eq!(segments(&"Ж".repeat(135)), seg(Ucs2, 135, 3));
        // One non-GSM char makes the whole text UCS-2.
        assert_eq!(segments(&format!("{}ç", "a".repeat(69))), seg(Ucs2, 70, 1));
        assert_eq!(segments(&format!("{}ç", "a".repeat(70))), seg(Ucs2, 71, 2));
    }

    #[test]
    fn an_emoji_takes_two_units_and_its_surrogate_pair_is_not_split() {
        assert_eq!(segments("😀"), seg(Ucs2, 2, 1));
        assert_eq!(segments(&"😀".repeat(35)), seg(Ucs2, 70, 1));
        // 66 + 2 + 66 = 134 units would fill two segments exactly, but the pair cannot start in
        // unit 67: it moves to the second segment, and the last char spills.
        let text = format!("{}😀{}", "a".repeat(66), "a".repeat(66));
        assert_eq!(segments(&text), seg(Ucs2, 134, 3));
        let text = format!("{}😀{}", "a".repeat(65), "a".repeat(67));
        assert_eq!(segments(&text), seg(Ucs2, 134, 2));
    }

    #[test]
    fn encoding_names() {
        assert_eq!(Gsm7.as_str(), "GSM-7");
        assert_eq!(Ucs2.as_str(), "UCS-2");
    }
}
