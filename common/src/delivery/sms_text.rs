//! The short texts Signet sends by SMS, and how many segments (billed messages) a text takes.
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
//!
//! # Texts
//! [`invitation`], [`declined`] and [`expired`] compose the text from the sender's name and the
//! document's title, in the reader's language: the messages of `sms.ftl` in the `signet-i18n`
//! catalogues (`sms-invitation`, `sms-declined`, `sms-expired`, each with an `-untitled`
//! form), whose words are the catalogue's and whose arguments are placed as they are. Both are
//! first sanitised: control and format characters
//! (Cc, Cf: line breaks, tabs, bidi controls, zero-width chars, the BOM…) and the invisible
//! Hangul fillers become spaces, runs of whitespace collapse to one space, and the ends are
//! trimmed. An empty sender becomes `Signet`; an empty title is left out (`… asks you to sign a
//! document: …`, `A document from … was declined…`, and the `-untitled` message in every
//! language). Right-to-left names and titles are kept as they are: no bidi marks are added. The
//! link is never shortened or altered, and ends the invitation in every language.
//!
//! # Shortening
//! A text takes the fewest segments that shortening can bring it to, and among those it is the
//! one shortened least, taking the first that reaches that count of: the whole text; the title
//! cut, longest first, down to [`TITLE_MIN_CHARS`]; then with the title at that minimum, the
//! sender cut, longest first, down to [`SENDER_MIN_CHARS`] (a space left at the end of a cut is
//! dropped). A cut part ends in `...` when the text is GSM-7 with it and in `…` when the text is
//! UCS-2 anyway (cutting a Cyrillic title cannot make the text GSM-7; cutting off a Latin
//! title's only `ł` can).
//!
//! So a text that fits one segment is sent whole; one that shortening can bring to one segment
//! is shortened just enough; one that cannot fit one segment even at the minimums is sent whole
//! if it takes no more segments than the most shortened one would, and otherwise shortened just
//! enough to reach that count. The cuts only touch the sender and the title, wherever the
//! language's words place them. With a signing link of 73 chars
//! (`https://sign.example.com/sign/` and a 43-char token) an English invitation in Latin script
//! (GSM-7) always fits one segment; one in another script (UCS-2) takes two: 70 units cannot
//! hold the link and the words. So does a text in a language whose words are not all GSM-7
//! (Polish `ł`, Turkish `ı`, Russian, Japanese…); in every language every text fits two
//! segments once cut (a test checks each).
//!
//! Cuts fall between chars, so never inside a surrogate pair, and not between a char and the
//! combining marks, variation selectors or emoji modifiers after it (a cheap check of the
//! common ranges, not full grapheme segmentation).

use signet_i18n::{FluentValue, Language};

/// Septets in one GSM-7 segment, and in each segment of a longer text.
const GSM7_SINGLE: usize = 160;
const GSM7_PART: usize = 153;
/// UTF-16 code units in one UCS-2 segment, and in each segment of a longer text.
const UCS2_SINGLE: usize = 70;
const UCS2_PART: usize = 67;

/// A title is never cut to fewer chars than this (the ellipsis comes on top).
pub const TITLE_MIN_CHARS: usize = 12;
/// A sender's name is never cut to fewer chars than this (the ellipsis comes on top).
pub const SENDER_MIN_CHARS: usize = 8;

/// Who is named when the sender's name is empty.
const FALLBACK_SENDER: &str = "Signet";
const GSM7_ELLIPSIS: &str = "...";
const UCS2_ELLIPSIS: &str = "…";

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmsText {
    pub body: String,
    pub segments: Segments,
}

/// The invitation, in `language`: who asks, what, and the signing link, which ends the text.
/// In English `{sender} asks you to sign "{title}": {link}`; with no title,
/// `{sender} asks you to sign a document: {link}`; with no sender, `Signet` asks. `sender`
/// and `title` are sanitised and may be cut (module doc); `link` is kept as it is.
pub fn invitation(language: Language, sender: &str, title: &str, link: &str) -> SmsText {
    compose(language, Kind::Invitation(link), sender, title)
}

/// To a signer who had not signed yet, in `language`: the document was declined by someone;
/// their link no longer works. In English `"{title}" from {sender} was declined, so it will not be completed. Your
/// signing link no longer works.` With no title it begins `A document from {sender}`; with no
/// sender, the document is from `Signet`. Sanitised and cut as the module doc says.
pub fn declined(language: Language, sender: &str, title: &str) -> SmsText {
    compose(language, Kind::Declined, sender, title)
}

/// To a signer who had not signed yet, in `language`: the document expired; their link no
/// longer works. In English `"{title}" from {sender} expired before everyone signed. Your signing link no longer works.`
/// With no title it begins `A document from {sender}`; with no sender, the document is from
/// `Signet`. Sanitised and cut as the module doc says.
pub fn expired(language: Language, sender: &str, title: &str) -> SmsText {
    compose(language, Kind::Expired, sender, title)
}

/// A one-time code for a signing link that asks for one (SMS_OTP), in `language`: the code,
/// the sender, and nothing of the document. In English `{code} is your code to open the
/// document {sender} sent you. It works once, for 10 minutes. Do not share it.` `sender` is
/// sanitised and may be cut.
pub fn code(language: Language, sender: &str, code: &str) -> SmsText {
    compose(language, Kind::Code(code), sender, "")
}

#[derive(Debug, Clone, Copy)]
enum Kind<'a> {
    Invitation(&'a str),
    Declined,
    Expired,
    Code(&'a str),
}

/// The text of `kind` in `language`; `title` is `None` when there is none to name.
fn render(language: Language, kind: Kind, sender: &str, title: Option<&str>) -> String {
    let id = match (kind, title.is_some()) {
        (Kind::Invitation(_), true) => "sms-invitation",
        (Kind::Invitation(_), false) => "sms-invitation-untitled",
        (Kind::Declined, true) => "sms-declined",
        (Kind::Declined, false) => "sms-declined-untitled",
        (Kind::Expired, true) => "sms-expired",
        (Kind::Expired, false) => "sms-expired-untitled",
        (Kind::Code(_), _) => "sms-code",
    };
    let mut args = vec![("sender", FluentValue::from(sender))];
    if let Some(title) = title {
        args.push(("title", FluentValue::from(title)));
    }
    match kind {
        Kind::Invitation(link) => args.push(("link", FluentValue::from(link))),
        Kind::Code(code) => {
            args.push(("code", FluentValue::from(code)));
            let minutes = crate::model::CODE_VALID_MINUTES;
            args.push(("minutes", FluentValue::from(minutes)));
        }
        Kind::Declined | Kind::Expired => {}
    }
    language.format(id, &args)
}

/// The text of `kind`, shortened per the module doc.
fn compose(language: Language, kind: Kind, sender: &str, title: &str) -> SmsText {
    let sender = match sanitise(sender) {
        s if s.is_empty() => FALLBACK_SENDER.to_string(),
        s => s,
    };
    let title = Some(sanitise(title)).filter(|t| !t.is_empty());

    // `None` keeps a part whole; `Some(n)` cuts it to `n` chars and an ellipsis.
    let build = |title_keep: Option<usize>, sender_keep: Option<usize>| {
        let with = |ellipsis: &str| {
            let title = title.as_deref().map(|t| match title_keep {
                Some(keep) => shortened(t, keep, TITLE_MIN_CHARS, ellipsis),
                None => t.to_string(),
            });
            let sender = match sender_keep {
                Some(keep) => shortened(&sender, keep, SENDER_MIN_CHARS, ellipsis),
                None => sender.clone(),
            };
            let body = render(language, kind, &sender, title.as_deref());
            SmsText {
                segments: segments(&body),
                body,
            }
        };
        let text = with(GSM7_ELLIPSIS);
        let cut = title_keep.is_some() || sender_keep.is_some();
        if cut && text.segments.encoding == SmsEncoding::Ucs2 {
            with(UCS2_ELLIPSIS)
        } else {
            text
        }
    };

    let whole = build(None, None);
    if whole.segments.count == 1 {
        return whole;
    }
    let title_chars = title.as_deref().map_or(0, |t| t.chars().count());
    let sender_chars = sender.chars().count();
    let title_min = (title_chars > TITLE_MIN_CHARS).then_some(TITLE_MIN_CHARS);
    let sender_min = (sender_chars > SENDER_MIN_CHARS).then_some(SENDER_MIN_CHARS);

    // The fewest segments reachable are those of the most shortened texts (cuts only make a
    // text shorter). A text in `target` segments has at most `most_chars` chars, whatever its
    // encoding, so no cut that keeps more is tried.
    let target = [build(title_min, None), build(title_min, sender_min)]
        .iter()
        .map(|text| text.segments.count)
        .fold(whole.segments.count, usize::min);
    let most_chars = (GSM7_PART * target).max(GSM7_SINGLE);
    let cuts = |chars: usize, min: usize| (min..chars.min(most_chars + 1)).rev();
    let candidates = cuts(title_chars, TITLE_MIN_CHARS)
        .map(|keep| (Some(keep), None))
        .chain(cuts(sender_chars, SENDER_MIN_CHARS).map(|keep| (title_min, Some(keep))));

    let mut best = whole;
    for (title_keep, sender_keep) in candidates {
        let text = build(title_keep, sender_keep);
        if text.segments.count < best.segments.count {
            best = text;
            if best.segments.count <= target {
                break;
            }
        }
    }
    best
}

/// `text` with every control or format char made a space, whitespace runs collapsed to one
/// space and the ends trimmed.
fn sanitise(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if is_hidden(c) { ' ' } else { c })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Control chars (Cc), format chars (Cf: bidi controls, zero-width chars, the BOM, soft hyphen,
/// tags…) and the Hangul fillers, which show as blanks.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{AD}'
                | '\u{600}'..='\u{605}'
                | '\u{61C}'
                | '\u{6DD}'
                | '\u{70F}'
                | '\u{890}'..='\u{891}'
                | '\u{8E2}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0001}'
                | '\u{E0020}'..='\u{E007F}'
                // Hangul fillers.
                | '\u{115F}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{FFA0}'
        )
}

/// The first `keep` chars of `text`, fewer if the cut would part a char from a combining mark
/// after it (but not fewer than `min`), without trailing whitespace, then `ellipsis`.
fn shortened(text: &str, keep: usize, min: usize, ellipsis: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut keep = keep.min(chars.len());
    while keep > min && chars.get(keep).is_some_and(|&(_, c)| is_combining(c)) {
        keep -= 1;
    }
    let end = chars.get(keep).map_or(text.len(), |&(at, _)| at);
    let mut cut = text[..end].trim_end().to_string();
    cut.push_str(ellipsis);
    cut
}

/// Whether `c` belongs with the char before it: combining marks of the common scripts,
/// variation selectors, emoji modifiers and the zero-width joiner. Not the whole of Unicode's
/// Mn/Mc/Me: a rarer mark may be cut from its base, but a char is never split.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{300}'..='\u{36F}'
            | '\u{483}'..='\u{489}'
            | '\u{591}'..='\u{5BD}'
            | '\u{5BF}'
            | '\u{5C1}'..='\u{5C2}'
            | '\u{5C4}'..='\u{5C5}'
            | '\u{5C7}'
            | '\u{610}'..='\u{61A}'
            | '\u{64B}'..='\u{65F}'
            | '\u{670}'
            | '\u{6D6}'..='\u{6DC}'
            | '\u{6DF}'..='\u{6E4}'
            | '\u{6E7}'..='\u{6E8}'
            | '\u{6EA}'..='\u{6ED}'
            | '\u{900}'..='\u{903}'
            | '\u{93A}'..='\u{93C}'
            | '\u{93E}'..='\u{94F}'
            | '\u{951}'..='\u{957}'
            | '\u{962}'..='\u{963}'
            | '\u{E31}'
            | '\u{E34}'..='\u{E3A}'
            | '\u{E47}'..='\u{E4E}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{200D}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{302A}'..='\u{302F}'
            | '\u{3099}'..='\u{309A}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FE20}'..='\u{FE2F}'
            | '\u{1F3FB}'..='\u{1F3FF}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use Language::English;
    use SmsEncoding::{Gsm7, Ucs2};

    fn seg(encoding: SmsEncoding, units: usize, count: usize) -> Segments {
        Segments {
            encoding,
            units,
            count,
        }
    }

    /// A signing link as Signet makes them: the public URL, `/sign/` and a 43-char token (32
    /// random bytes in unpadded base64url), 73 chars.
    const LINK: &str = "https://sign.example.com/sign/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE";
    /// A shorter one, 60 chars, on a shorter public URL.
    const SHORT_LINK: &str = "https://sgn.example/sign/AbCdEfGhIjKlMnOpQrStUvWxYz012345678";

    #[test]
    fn the_links_are_as_long_as_they_say() {
        assert_eq!(LINK.len(), 73);
        assert_eq!(LINK.rsplit('/').next().map(str::len), Some(43));
        assert_eq!(SHORT_LINK.len(), 60);
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

    /// What every text must be: its segments are its body's, and it has no hidden chars.
    fn check(text: &SmsText) {
        assert_eq!(text.segments, segments(&text.body), "{}", text.body);
        assert!(!text.body.chars().any(is_hidden), "{:?}", text.body);
    }

    /// The title an invitation names, between `sign "` and `": `.
    fn title_of(body: &str) -> &str {
        let start = body.find("sign \"").unwrap() + "sign \"".len();
        let end = body.rfind("\": ").unwrap();
        &body[start..end]
    }

    #[test]
    fn a_short_invitation_is_sent_whole() {
        let text = invitation(English, "O'Brien, \"Bob\"", "NDA 2024", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("O'Brien, \"Bob\" asks you to sign \"NDA 2024\": {LINK}")
        );
        assert_eq!(text.segments.encoding, Gsm7);
        assert_eq!(text.segments.count, 1);
    }

    #[test]
    fn invitations_in_many_scripts_end_with_the_whole_link() {
        let senders = [
            "O'Brien, \"Bob\"",
            "Åsa Østergård",
            "Zoë Ærøskøbing-Łukasiewicz",
            "王芳",
            "Юлия Соколова",
            "محمد الأحمد",
            "Ana 🌸👩🏽‍💻",
            "",
        ];
        let titles = [
            "NDA",
            "Lease agreement for 12 Rue de la Paix",
            &"Contract ".repeat(25),
        ];
        for (sender, title, link) in senders
            .into_iter()
            .flat_map(|sender| titles.map(|title| (sender, title)))
            .flat_map(|(sender, title)| [LINK, SHORT_LINK].map(|link| (sender, title, link)))
        {
            let text = invitation(English, sender, title, link);
            check(&text);
            assert!(text.body.ends_with(&format!(": {link}")), "{}", text.body);
            assert_eq!(text.body.matches(link).count(), 1);
            // Latin script fits one segment whatever the title; any other script takes
            // two, and never more.
            let expected = if segments(sender).encoding == Gsm7 {
                1
            } else {
                2
            };
            assert_eq!(text.segments.count, expected, "{}", text.body);
        }
    }

    #[test]
    fn a_long_latin_title_is_cut_to_fit_one_segment() {
        let title = "Master services agreement ".repeat(8);
        assert!(title.chars().count() >= 200);
        let text = invitation(English, "O'Brien, \"Bob\"", &title, LINK);
        check(&text);
        assert_eq!(text.segments.encoding, Gsm7);
        assert_eq!(text.segments.count, 1);
        let shown = title_of(&text.body);
        assert!(shown.ends_with("..."), "{shown}");
        assert!(title.starts_with(shown.trim_end_matches("...")));
        // Cut no more than needed: three more chars would not fit.
        assert!(text.segments.units > GSM7_SINGLE - 3, "{}", text.body);
        assert!(
            text.body
                .starts_with("O'Brien, \"Bob\" asks you to sign \"")
        );
    }

    #[test]
    fn a_long_title_with_a_cyrillic_sender_is_cut_to_two_segments_no_further() {
        let title = "Договор аренды квартиры на улице Ленина, дом 5, с приложениями";
        let sender = "Юлия Соколова";
        let whole = segments(&format!("{sender} asks you to sign \"{title}\": {LINK}"));
        assert_eq!((whole.encoding, whole.count), (Ucs2, 3));
        let text = invitation(English, sender, title, LINK);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
        assert!(text.body.starts_with("Юлия Соколова asks you to sign \""));
        let shown = title_of(&text.body);
        let kept = shown.strip_suffix('…').unwrap();
        assert!(title.starts_with(kept));
        assert!(kept.chars().count() >= TITLE_MIN_CHARS);
        // Cut no more than needed: one more char of the title would take a third segment.
        let kept_chars = kept.chars().count();
        let longer = (kept_chars + 1..)
            .map(|n| {
                title
                    .chars()
                    .take(n)
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .find(|longer| longer.chars().count() > kept_chars)
            .unwrap();
        let longer = format!("{sender} asks you to sign \"{longer}…\": {LINK}");
        assert_eq!(segments(&longer).count, 3);
    }

    #[test]
    fn ucs2_text_with_room_in_two_segments_is_left_whole() {
        let text = invitation(English, "Zoë Ærøskøbing-Łukasiewicz", "Umowa najmu", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("Zoë Ærøskøbing-Łukasiewicz asks you to sign \"Umowa najmu\": {LINK}")
        );
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
    }

    #[test]
    fn the_title_is_cut_to_its_minimum_before_the_sender_is_cut() {
        let sender = "Bartholomew Fitzgerald-Montgomery of the Worshipful Company of Scriveners";
        let title = "Annual maintenance contract for the east wing of the building";
        let text = invitation(English, sender, title, LINK);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Gsm7, 1));
        assert_eq!(title_of(&text.body), "Annual maint...");
        let shown_sender = text.body.split(" asks you to sign ").next().unwrap();
        let kept = shown_sender.strip_suffix("...").unwrap();
        assert!(sender.starts_with(kept));
        assert!(kept.chars().count() >= SENDER_MIN_CHARS);
        assert!(text.segments.units > GSM7_SINGLE - 3, "{}", text.body);
    }

    #[test]
    fn cutting_off_the_only_non_gsm_char_makes_the_text_gsm7() {
        let title = format!("{} ç", "Terms and conditions ".repeat(5));
        let whole = format!("Bob asks you to sign \"{title}\": {LINK}");
        assert_eq!(segments(&whole).encoding, Ucs2);
        let text = invitation(English, "Bob", &title, LINK);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Gsm7, 1));
        assert!(title_of(&text.body).ends_with("..."));
    }

    #[test]
    fn when_one_segment_is_out_of_reach_a_text_that_needs_no_cut_is_sent_whole() {
        // A link so long that no invitation fits one segment.
        let link = format!("https://sign.example.com/sign/{}", "x".repeat(110));
        let title = "Statement of work for the spring campaign";
        let text = invitation(English, "Bob", title, &link);
        check(&text);
        assert_eq!(
            text.body,
            format!("Bob asks you to sign \"{title}\": {link}")
        );
        assert_eq!(text.segments.count, 2);
        // But a title that would take a third segment is cut to keep it to two.
        let title = "Statement of work ".repeat(10);
        let text = invitation(English, "Bob", &title, &link);
        check(&text);
        assert_eq!(text.segments.count, 2);
        assert!(text.body.ends_with(&link));
        assert!(title_of(&text.body).ends_with("..."));
    }

    #[test]
    fn names_lose_their_control_and_bidi_chars() {
        let text = invitation(
            English,
            "  Eve\n\tMallory\r\u{202E}fdp.exe\u{200B}\u{FEFF}\u{2066}x\u{2069}  ",
            "Pay\nnow\u{0}!",
            LINK,
        );
        check(&text);
        assert_eq!(
            text.body,
            format!("Eve Mallory fdp.exe x asks you to sign \"Pay now !\": {LINK}")
        );
    }

    #[test]
    fn empty_names_fall_back() {
        let text = invitation(English, " \n\u{200B} ", "\t", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("Signet asks you to sign a document: {LINK}")
        );
        let text = declined(English, "", "");
        check(&text);
        assert_eq!(
            text.body,
            "A document from Signet was declined, so it will not be completed. Your signing link \
             no longer works."
        );
        let text = expired(English, "Bob", "");
        check(&text);
        assert_eq!(
            text.body,
            "A document from Bob expired before everyone signed. Your signing link no longer works."
        );
    }

    #[test]
    fn right_to_left_text_is_kept_without_bidi_marks() {
        let text = invitation(English, "محمد الأحمد", "חוזה שכירות", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("محمد الأحمد asks you to sign \"חוזה שכירות\": {LINK}")
        );
    }

    #[test]
    fn declined_and_expired_notices() {
        let text = declined(English, "Bob", "NDA");
        check(&text);
        assert_eq!(
            text.body,
            "\"NDA\" from Bob was declined, so it will not be completed. Your signing link no \
             longer works."
        );
        assert_eq!(text.segments.count, 1);
        let text = expired(English, "Bob", "NDA");
        check(&text);
        assert_eq!(
            text.body,
            "\"NDA\" from Bob expired before everyone signed. Your signing link no longer works."
        );

        let title = "Master services agreement ".repeat(8);
        for text in [
            declined(English, "O'Brien", &title),
            expired(English, "O'Brien", &title),
        ] {
            check(&text);
            assert_eq!((text.segments.encoding, text.segments.count), (Gsm7, 1));
            assert!(text.body.contains("...\" from O'Brien "), "{}", text.body);
        }
        // In Cyrillic the fixed words alone take most of a UCS-2 segment: two, and no more.
        for text in [
            declined(English, "Юлия Соколова", &title),
            expired(English, "Юлия Соколова", &title),
        ] {
            check(&text);
            assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
            assert!(
                text.body.contains("…\" from Юлия Соколова "),
                "{}",
                text.body
            );
        }
    }

    #[test]
    fn a_cut_keeps_a_char_with_its_combining_marks() {
        // Cutting at 13 would keep the e and drop its acute accent: the e goes too.
        let title = "abcdefghijkle\u{301}xyz";
        assert_eq!(shortened(title, 13, 12, "..."), "abcdefghijkl...");
        assert_eq!(shortened(title, 14, 12, "..."), "abcdefghijkle\u{301}...");
        // A skin-tone modifier stays with its emoji.
        assert_eq!(shortened("ab👍🏽cd", 3, 1, "…"), "ab…");
        // Never below the minimum, and no space before the ellipsis.
        assert_eq!(shortened("abc\u{301}\u{302}d", 4, 3, "..."), "abc...");
        assert_eq!(shortened("Lease for the flat", 10, 8, "…"), "Lease for…");
    }

    /// A title and a sender long enough to be cut, in the script of each language.
    fn long_names(language: Language) -> (&'static str, &'static str) {
        match language {
            Language::ChineseSimplified => (
                "北京市朝阳区建国路八十八号办公楼租赁合同及其全部附件",
                "北京某某科技有限公司法务部",
            ),
            Language::Japanese => (
                "東京都千代田区丸の内一丁目オフィス賃貸借契約書および付属書類",
                "株式会社サンプル法務部契約管理課",
            ),
            Language::Korean => (
                "서울특별시 강남구 테헤란로 사무실 임대차 계약서 및 부속 서류",
                "주식회사 샘플 법무팀 계약 관리 담당",
            ),
            Language::Arabic => (
                "عقد إيجار مكتب في شارع الملك فهد مع جميع الملاحق والجداول",
                "شركة المثال للتجارة والمقاولات العامة",
            ),
            Language::Hebrew => (
                "חוזה שכירות למשרד ברחוב רוטשילד בתל אביב כולל כל הנספחים",
                "חברת הדוגמה לסחר ושירותים בע״מ",
            ),
            Language::Russian => (
                "Договор аренды офиса на Тверской улице со всеми приложениями",
                "ООО «Пример Торговая Компания»",
            ),
            _ => (
                "Master services agreement for the spring campaign, with all its annexes",
                "Bartholomew Fitzgerald-Montgomery & Partners",
            ),
        }
    }

    #[test]
    fn every_language_has_its_own_words_and_ends_an_invitation_with_the_whole_link() {
        for language in Language::ALL {
            let (title, sender) = long_names(language);
            for link in [LINK, SHORT_LINK] {
                for (title, sender) in [("NDA", "Bob"), (title, sender), ("", "")] {
                    let text = invitation(language, sender, title, link);
                    check(&text);
                    assert!(text.body.ends_with(link), "{language}: {}", text.body);
                    assert_eq!(text.body.matches(link).count(), 1, "{}", text.body);
                    assert!(text.segments.count <= 2, "{language}: {}", text.body);
                    if language != English {
                        assert!(!text.body.contains("asks you"), "{language}: {}", text.body);
                    }
                }
            }
            for text in [
                declined(language, "Bob", "NDA"),
                expired(language, "Bob", "NDA"),
                declined(language, sender, title),
                expired(language, sender, title),
                declined(language, "", ""),
                expired(language, "", ""),
            ] {
                check(&text);
                assert!(text.segments.count <= 2, "{language}: {}", text.body);
                assert!(!text.body.contains("https://"), "{}", text.body);
                if language != English {
                    assert!(
                        !text.body.contains("no longer works"),
                        "{language}: {}",
                        text.body
                    );
                }
            }
            // Each names the sender (Signet when there is none).
            assert!(
                declined(language, "", "").body.contains("Signet"),
                "{language}"
            );
        }
    }

    #[test]
    fn a_latin_language_whose_words_are_gsm7_stays_gsm7() {
        let text = invitation(Language::German, "Bob", "Mietvertrag", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("Bob bittet Sie, \"Mietvertrag\" zu unterschreiben: {LINK}")
        );
        assert_eq!((text.segments.encoding, text.segments.count), (Gsm7, 1));
        let text = invitation(Language::Polish, "Bob", "Umowa najmu", LINK);
        assert_eq!(
            text.body,
            format!("Bob prosi o podpisanie dokumentu \"Umowa najmu\": {LINK}")
        );
        assert_eq!((text.segments.encoding, text.segments.count), (Gsm7, 1));
        // A long title is cut to keep it to one segment, with the GSM ellipsis.
        let title = "Umowa najmu lokalu mieszkalnego ".repeat(5);
        let text = invitation(Language::Polish, "Bob", &title, LINK);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Gsm7, 1));
        assert!(text.body.contains("...\": https://"), "{}", text.body);
        // Polish notices have `ł`: UCS-2, two segments.
        let text = declined(Language::Polish, "Bob", "Umowa najmu");
        check(&text);
        assert_eq!(
            text.body,
            "Dokument \"Umowa najmu\" od Bob został odrzucony i nie zostanie ukończony. Link do \
             podpisu już nie działa."
        );
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
    }

    #[test]
    fn russian_and_japanese_texts_are_ucs2_and_cut_to_two_segments() {
        let (title, _) = long_names(Language::Russian);
        let sender = "Юлия Соколова";
        let text = invitation(Language::Russian, sender, title, LINK);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
        assert!(
            text.body
                .starts_with(&format!("{sender} просит вас подписать «"))
        );
        let shown = text
            .body
            .split('«')
            .nth(1)
            .unwrap()
            .split('»')
            .next()
            .unwrap();
        let kept = shown.strip_suffix('…').unwrap();
        assert!(title.starts_with(kept) && kept.chars().count() >= TITLE_MIN_CHARS);

        let text = invitation(Language::Japanese, "山田太郎", "賃貸借契約書", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("山田太郎 から「賃貸借契約書」への署名依頼が届いています。 {LINK}")
        );
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
        // A long title is cut to keep the invitation to two segments; a notice, with no link,
        // has room for it whole.
        let (title, sender) = long_names(Language::Japanese);
        let text = invitation(Language::Japanese, sender, title, LINK);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
        assert!(text.body.contains("…」への署名依頼"), "{}", text.body);
        let text = expired(Language::Japanese, sender, title);
        check(&text);
        assert_eq!((text.segments.encoding, text.segments.count), (Ucs2, 2));
        assert!(
            text.body.contains(&format!("「{title}」は、全員の署名")),
            "{}",
            text.body
        );
    }

    #[test]
    fn hebrew_texts_begin_in_hebrew_and_carry_no_bidi_marks() {
        let text = invitation(Language::Hebrew, "Acme Ltd", "Lease", LINK);
        check(&text);
        assert_eq!(
            text.body,
            format!("בקשה לחתימה על „Lease” מאת Acme Ltd: {LINK}")
        );
        let text = declined(Language::Hebrew, "Acme Ltd", "Lease");
        check(&text);
        assert!(text.body.starts_with("המסמך „Lease”"), "{}", text.body);
    }
}
