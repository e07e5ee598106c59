//! The one hash the engine reports.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of `bytes`, as the engine reports every hash.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
