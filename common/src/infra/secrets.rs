//! Random secrets, keyed hashes and the short codes the service hands out.

use base64::Engine;
use hmac::{Hmac, Mac};
use rand::{Rng, distr::Alphanumeric};
use sha2::{Digest, Sha256};

use crate::model::{RecipientId, ReminderLinkId};

pub fn random_bytes(len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    rand::rng().fill(bytes.as_mut_slice());
    bytes
}

/// `len` characters drawn uniformly from `[A-Za-z0-9]` (≈5.95 bits each).
pub fn random_base62(len: usize) -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// Crockford base32 without the ambiguous I, L, O, U.
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

pub fn random_crockford(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| CROCKFORD[rng.random_range(0..32)] as char)
        .collect()
}

/// A signer's clear signing-link token (32 bytes, base64url): it goes only into the message
/// that carries the link, and the database keeps its [`hash`](Self::hash) in its place. Its
/// `Debug` does not print it, and it has no `Display`: [`reveal`](Self::reveal) says where it
/// is written out. It reads (`Deserialize`) as a signing link's path gives it: any text (an
/// unknown token finds no signer).
#[derive(Clone, PartialEq, Eq, sqlx::Type, serde::Deserialize)]
#[sqlx(transparent)]
#[serde(transparent)]
pub struct SigningToken(String);

impl SigningToken {
    /// A new random token.
    pub fn generate() -> Self {
        Self(base64url(&random_bytes(32)))
    }

    /// The token as a signing link gives it.
    pub fn from_link(token: String) -> Self {
        Self(token)
    }

    /// The SHA-256 that is stored, and looked up, in the token's place.
    pub fn hash(&self) -> [u8; 32] {
        sha256(self.0.as_bytes())
    }

    /// The clear token, for the link that carries it.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for SigningToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningToken(..)")
    }
}

/// A secret of an embedded signing session: the ticket its URL carries, or the cookie of the
/// browser that used the ticket. Random, stored as its SHA-256 only.
#[derive(Clone, PartialEq, Eq)]
pub struct EmbedSecret(String);

impl EmbedSecret {
    pub fn generate() -> Self {
        Self(base64url(&random_bytes(32)))
    }

    /// The secret as a URL or cookie gives it (any text: an unknown one finds nothing).
    pub fn given(text: String) -> Self {
        Self(text)
    }

    pub fn hash(&self) -> [u8; 32] {
        sha256(self.0.as_bytes())
    }

    /// The clear secret, for the URL or cookie that carries it.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for EmbedSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EmbedSecret(..)")
    }
}

/// The key of recipients' reminder links, derived from FILE_URL_SECRET (which every process that
/// reminds has) for this one use. A reminder link's clear token is re-derived from it at each
/// reminder instead of being stored (docs/security.md, "Reminders").
#[derive(Clone)]
pub struct ReminderLinkKey([u8; 32]);

impl ReminderLinkKey {
    pub fn from_file_url_secret(secret: &[u8]) -> Self {
        Self(hmac_sha256(secret, b"signet reminder links v1"))
    }

    /// The token of the reminder link `link_id` of `recipient_id`. Same shape as a
    /// [`SigningToken::generate`]d one: 32 bytes, base64url.
    pub fn token(&self, recipient_id: RecipientId, link_id: ReminderLinkId) -> SigningToken {
        let message = [recipient_id.0.as_bytes().as_slice(), link_id.0.as_bytes()].concat();
        SigningToken(base64url(&hmac_sha256(&self.0, &message)))
    }
}

impl std::fmt::Debug for ReminderLinkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReminderLinkKey(..)")
    }
}

/// The key of the event feed's cursors, derived from FILE_URL_SECRET (which every API process
/// has, the same on each) for this one use. A cursor carries a MAC under it over its format,
/// account and place, so that the feed takes back only its own cursors, for the account it
/// gave them to, unchanged (docs/api.md, "Event feed").
#[derive(Clone)]
pub struct FeedCursorKey([u8; 32]);

impl FeedCursorKey {
    /// The bytes of a cursor's MAC: HMAC-SHA256 truncated to 128 bits (RFC 2104's allowance),
    /// which no one without the key can find by trying.
    pub const TAG_BYTES: usize = 16;

    pub fn from_file_url_secret(secret: &[u8]) -> Self {
        Self(hmac_sha256(secret, b"signet event feed cursors v1"))
    }

    /// The MAC of `message`, [`Self::TAG_BYTES`] long.
    pub fn tag(&self, message: &[u8]) -> [u8; Self::TAG_BYTES] {
        let mut tag = [0; Self::TAG_BYTES];
        tag.copy_from_slice(&hmac_sha256(&self.0, message)[..Self::TAG_BYTES]);
        tag
    }

    /// Whether `tag` is the MAC of `message`, compared in constant time.
    pub fn verify(&self, message: &[u8], tag: &[u8]) -> bool {
        constant_time_eq(&self.tag(message), tag)
    }
}

impl std::fmt::Debug for FeedCursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FeedCursorKey(..)")
    }
}

pub fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(sha256(bytes))
}

pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC accepts keys of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// Constant-time check of an HMAC-SHA256 tag.
pub fn hmac_sha256_verify(key: &[u8], message: &[u8], tag: &[u8]) -> bool {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC accepts keys of any length");
    mac.update(message);
    mac.verify_slice(tag).is_ok()
}

/// Equality that takes the same time wherever the inputs differ (for tokens).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_use_their_alphabets_and_lengths() {
        let code = random_crockford(8);
        assert_eq!(code.len(), 8);
        assert!(code.bytes().all(|b| CROCKFORD.contains(&b)));
        let key = random_base62(43);
        assert_eq!(key.len(), 43);
        assert!(key.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(random_base62(43), key);
    }

    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"a"));
    }

    #[test]
    fn reminder_link_tokens_are_stable_per_link_and_differ_between_links_and_keys() {
        let key = ReminderLinkKey::from_file_url_secret(b"0123456789abcdef0123456789abcdef");
        let (recipient, link) = (RecipientId::new(), ReminderLinkId::random());
        let token = key.token(recipient, link);
        assert_eq!(key.token(recipient, link), token);
        assert_eq!(token.hash(), sha256(token.reveal().as_bytes()));
        assert_eq!(
            token.reveal().len(),
            SigningToken::generate().reveal().len()
        );
        assert_ne!(key.token(recipient, ReminderLinkId::random()), token);
        assert_ne!(key.token(RecipientId::new(), link), token);
        let other = ReminderLinkKey::from_file_url_secret(b"another secret of at least 32 bytes");
        assert_ne!(other.token(recipient, link), token);
    }

    #[test]
    fn a_signing_token_is_not_printed_by_debug() {
        let token = SigningToken::generate();
        let printed = format!("{token:?} {:?}", Some(&token));
        assert!(!printed.contains(token.reveal()), "{printed}");
        assert_eq!(printed, "SigningToken(..) Some(SigningToken(..))");
    }

    #[test]
    fn hmac_verifies_only_its_own_tag() {
        let tag = hmac_sha256(b"k", b"m");
        assert!(hmac_sha256_verify(b"k", b"m", &tag));
        assert!(!hmac_sha256_verify(b"k", b"m2", &tag));
        assert!(!hmac_sha256_verify(b"k2", b"m", &tag));
    }
}
