//! An e-mail address the mail layer can send to, parsed once where it enters (a recipient added
//! or corrected, an account created) and carried as such.

use std::fmt;

pub const MAX_EMAIL_CHARS: usize = 254;

/// Why an address is refused, other than for its characters.
pub const INVALID_EMAIL: &str = "not a valid e-mail address";

/// Why internationalised addresses are refused.
pub const NON_ASCII_EMAIL: &str = "internationalised (non-ASCII) e-mail addresses are not supported: \
     many mail servers cannot deliver them (SMTPUTF8); use the address's ASCII form (a domain's \
     xn-- form works)";

/// Why an address holding a character that reorders text or draws nothing (bidi controls and
/// marks such as U+202E, zero-width spaces, the byte order mark:
/// `signet_i18n::bidi::is_hidden`) is refused: no address needs one, and a reader would be
/// misled.
pub const HIDDEN_CHARS: &str =
    "must not contain invisible or direction-changing characters (such as U+202E or U+200B)";

/// The one check of an e-mail address, made by the API before accepting a recipient and by the
/// worker when it addresses the message, so that an address the worker cannot use is refused up
/// front. It must pass lettre's own parser (which builds the SMTP envelope and the `To:` header)
/// and these stricter rules: ASCII only (see [`NON_ASCII_EMAIL`]), at most
/// [`MAX_EMAIL_CHARS`] characters, a dot-atom local part of at most 64 characters, and a domain
/// of at least two labels whose last is not all digits.
///
/// Rows read from the database keep their address as a `String`: an address stored before a
/// rule changed must not make a query fail; what needs to send to it parses it then.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress(lettre::Address);

impl EmailAddress {
    /// The address, exactly as given, or why it is refused (the reason the API returns).
    pub fn parse(email: &str) -> Result<Self, &'static str> {
        if signet_i18n::bidi::first_hidden(email).is_some() {
            return Err(HIDDEN_CHARS);
        }
        if !email.is_ascii() {
            return Err(NON_ASCII_EMAIL);
        }
        if !is_plain_email(email) {
            return Err(INVALID_EMAIL);
        }
        email.parse().map(Self).map_err(|_| INVALID_EMAIL)
    }

    pub fn as_str(&self) -> &str {
        self.0.as_ref()
    }

    /// Whether `other` is this address as a document's recipients are compared: ignoring ASCII
    /// case.
    pub fn matches(&self, other: &str) -> bool {
        self.as_str().eq_ignore_ascii_case(other)
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for EmailAddress {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// What the mail layer addresses a message with (the SMTP envelope, the `To:` mailbox).
impl From<EmailAddress> for lettre::Address {
    fn from(email: EmailAddress) -> Self {
        email.0
    }
}

fn is_plain_email(email: &str) -> bool {
    if email.chars().count() > MAX_EMAIL_CHARS {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local.chars().all(|c| {
            c.is_alphanumeric() || (c.is_ascii_punctuation() && !"@\"(),:;<>[\\]".contains(c))
        });
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|tld| !tld.chars().all(|c| c.is_ascii_digit()));
    local_ok && domain_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_valid(email: &str) -> bool {
        EmailAddress::parse(email).is_ok()
    }

    #[test]
    fn addresses_the_mail_layer_can_use() {
        for ok in [
            "a@b.co",
            "first.last+tag@sub.example.org",
            "o'brien@xn--bcher-kva.example",
        ] {
            let parsed = EmailAddress::parse(ok).unwrap();
            assert_eq!(parsed.as_str(), ok);
            assert_eq!(parsed.to_string(), ok);
            assert_eq!(lettre::Address::from(parsed).to_string(), ok);
        }
    }

    #[test]
    fn refused_addresses_say_why() {
        for international in ["ünï@exämple.de", "josé@bücher.example", "用户@例子.广告"]
        {
            assert_eq!(EmailAddress::parse(international), Err(NON_ASCII_EMAIL));
        }
        for hidden in [
            "ann\u{202E}@b.co",
            "\u{200B}ann@b.co",
            "ann@b.co\u{FEFF}",
            "ann@\u{2066}b.co\u{2069}",
            "ann\u{200F}@b.co",
        ] {
            assert_eq!(EmailAddress::parse(hidden), Err(HIDDEN_CHARS), "{hidden:?}");
        }
        for bad in [
            "",
            "a",
            "a@",
            "@b.co",
            "a@b",
            "a b@c.de",
            "a@@b.co",
            "a@b..co",
            ".a@b.co",
            "a.@b.co",
            "a@-b.co",
            "a@b.123",
            "\"a\"@b.co",
            "a@b.co ",
        ] {
            assert_eq!(EmailAddress::parse(bad), Err(INVALID_EMAIL), "{bad:?}");
        }
        assert!(!is_valid(&format!("{}@b.co", "a".repeat(65))));
        assert!(is_valid(&format!("{}@b.co", "a".repeat(64))));
        assert!(!is_valid(&format!("a@{}.co", "b".repeat(64))));
        let domain = format!("{0}.{0}.{0}.{1}", "b".repeat(63), "c".repeat(60));
        let longest = format!("a@{domain}");
        assert_eq!(longest.len(), MAX_EMAIL_CHARS);
        assert!(is_valid(&longest));
        assert_eq!(
            EmailAddress::parse(&format!("aa@{domain}")),
            Err(INVALID_EMAIL)
        );
    }

    #[test]
    fn addresses_are_matched_ignoring_case() {
        let ann = EmailAddress::parse("Ann@B.co").unwrap();
        assert!(ann.matches("ann@b.co"));
        assert!(!ann.matches("anne@b.co"));
    }
}
