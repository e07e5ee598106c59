//! The variables settings are read from, and the one error a bad one gives.

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, value::MapDeserializer};

#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {name}: {reason}")]
pub struct ConfigError {
    /// The variable at fault.
    pub name: String,
    pub reason: String,
}

impl ConfigError {
    pub(super) fn new(name: &str, reason: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            reason: reason.into(),
        }
    }
}

/// The variables settings are read from. Blank ones are left out, so that they take their
/// part's default as unset ones do; but an empty password is a password.
pub(super) struct Vars(BTreeMap<String, String>);

const KEPT_WHEN_BLANK: &[&str] = &["SEAL_PKCS12_PASSWORD"];

impl Vars {
    pub(super) fn new<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self(
            vars.into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .filter(|(name, value)| {
                    !value.trim().is_empty() || KEPT_WHEN_BLANK.contains(&name.as_str())
                })
                .collect(),
        )
    }

    /// One part, deserialized from every variable (each takes the ones it names); a value that
    /// does not deserialize is reported under its variable's name.
    pub(super) fn load<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        let vars = MapDeserializer::<_, serde::de::value::Error>::new(
            self.0
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
        );
        serde_path_to_error::deserialize(vars).map_err(|e| ConfigError {
            name: e.path().to_string(),
            reason: e.into_inner().to_string(),
        })
    }
}
