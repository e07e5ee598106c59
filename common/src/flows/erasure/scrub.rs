//! Where, in one document's rows, the erased person's identifiers stand as theirs
//! (docs/retention.md, "Only the erased person"). A text loses their name, addresses and phone
//! numbers where each stands whole and is not part of another recipient's identifier; a
//! structured body loses the personal values of the objects that are theirs by recipient id
//! and leaves every other recipient's object as it was. Nothing a signer chose (a user agent,
//! a decline reason) is ever looked for here: such values are taken only from the chooser's
//! own entries, by their place (`effects::without_signer_choices`).

use std::{borrow::Cow, collections::HashSet};

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::{model::RecipientId, store::audit::TOMBSTONE};

/// The keys of a recipient's object in a stored body (the document detail's `recipients`, a
/// delivery failure's `delivery`, a lock's `authentication`) whose values are that recipient's
/// personal data.
const PERSONAL_KEYS: [&str; 5] = ["name", "email", "reason", "deliveryError", "smsError"];

/// The columns of a bulk send's row that hold a role's person, after the role and a dot.
const IDENTITY_COLUMNS: [&str; 3] = ["name", "email", "phoneNumber"];

/// A recipient and their identifiers.
pub(super) type Identified<'a> = (RecipientId, Vec<(Kind, &'a str)>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Name,
    Address,
    Phone,
}

/// One identifier of one recipient, found in any case.
struct Identifier {
    kind: Kind,
    pattern: Regex,
    starts_word: bool,
    ends_word: bool,
}

impl Identifier {
    /// `None` for a value that could not name anyone: shorter than two characters, or a
    /// tombstone.
    fn new(kind: Kind, value: &str) -> Option<Self> {
        let value = value.trim();
        if value.chars().count() < 2 || value.contains(TOMBSTONE) {
            return None;
        }
        let pattern = RegexBuilder::new(&regex::escape(value))
            .case_insensitive(true)
            .build()
            .expect("an escaped value is a pattern");
        let word = |c: Option<char>| c.is_some_and(is_word);
        Some(Self {
            kind,
            pattern,
            starts_word: word(value.chars().next()),
            ends_word: word(value.chars().last()),
        })
    }

    /// Adds the places where the identifier stands whole in `text`.
    fn find(&self, text: &str, owner: Owner, into: &mut Vec<Span>) {
        let mut from = 0;
        while let Some(found) = self.pattern.find_at(text, from) {
            if self.stands_whole(text, found.start(), found.end()) {
                into.push(Span {
                    start: found.start(),
                    end: found.end(),
                    owner,
                });
            }
            // On from the next character: an occurrence may overlap a refused one.
            from = found.start()
                + text[found.start()..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
        }
    }

    /// Whether the characters around a match leave it whole: a name is not a part of a word
    /// ("Ann" in "Annual"), an address not a part of a longer address ("ann@example.com" in
    /// "jo.ann@example.com" or "ann@example.com.au"), a number not a part of a longer number.
    fn stands_whole(&self, text: &str, start: usize, end: usize) -> bool {
        let before = text[..start].chars().next_back();
        let mut rest = text[end..].chars();
        let after = rest.next();
        match self.kind {
            Kind::Name => {
                !(self.starts_word && before.is_some_and(is_word)
                    || self.ends_word && after.is_some_and(is_word))
            }
            Kind::Address => {
                let in_local_part = |c: char| is_word(c) || ".!#$%&'*+/=?^`{|}~-".contains(c);
                let in_domain = |c: char| is_word(c) || c == '-' || c == '@';
                let longer_before = before.is_some_and(in_local_part);
                let longer_after = match after {
                    // A full stop ends a sentence unless the domain goes on after it.
                    Some('.') => rest.next().is_some_and(in_domain),
                    Some(c) => in_domain(c),
                    None => false,
                };
                !longer_before && !longer_after
            }
            Kind::Phone => {
                !before.is_some_and(|c| c.is_ascii_digit() || c == '+')
                    && !after.is_some_and(|c| c.is_ascii_digit())
            }
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Erased,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    owner: Owner,
}

/// The recipients of one document as an erasure sees them: the erased person's identifiers,
/// and every other recipient's, which are never taken.
pub(super) struct Identities {
    erased_ids: HashSet<RecipientId>,
    erased_addresses: Vec<String>,
    erased: Vec<Identifier>,
    others: Vec<Identifier>,
}

impl Identities {
    /// `erased`: the person's recipients of the document and their identifiers (a recipient
    /// id with its name, addresses and numbers); `others`: every other recipient's.
    pub(super) fn new<'a>(
        erased: impl IntoIterator<Item = Identified<'a>>,
        others: impl IntoIterator<Item = (Kind, &'a str)>,
    ) -> Self {
        let mut erased_ids = HashSet::new();
        let mut erased_addresses = Vec::new();
        let mut identifiers = Vec::new();
        for (id, values) in erased {
            erased_ids.insert(id);
            for (kind, value) in values {
                if kind == Kind::Address {
                    erased_addresses.push(value.trim().to_lowercase());
                }
                identifiers.extend(Identifier::new(kind, value));
            }
        }
        Self {
            erased_ids,
            erased_addresses,
            erased: identifiers,
            others: others
                .into_iter()
                .filter_map(|(kind, value)| Identifier::new(kind, value))
                .collect(),
        }
    }

    /// `text` with the erased person's identifiers replaced where they stand as theirs. Where
    /// one of theirs and another recipient's overlap, the longer one is the one the text means
    /// (an address is taken whole before a name inside it); another recipient's is never
    /// taken.
    pub(super) fn scrub<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut spans = Vec::new();
        for identifier in &self.erased {
            identifier.find(text, Owner::Erased, &mut spans);
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        for identifier in &self.others {
            identifier.find(text, Owner::Other, &mut spans);
        }
        spans.sort_by_key(|s| (std::cmp::Reverse(s.end - s.start), s.start));
        let mut chosen: Vec<Span> = Vec::new();
        for span in spans {
            if chosen
                .iter()
                .all(|c| span.end <= c.start || c.end <= span.start)
            {
                chosen.push(span);
            }
        }
        chosen.retain(|s| s.owner == Owner::Erased);
        if chosen.is_empty() {
            return Cow::Borrowed(text);
        }
        chosen.sort_by_key(|s| s.start);
        let mut scrubbed = String::with_capacity(text.len());
        let mut at = 0;
        for span in chosen {
            scrubbed.push_str(&text[at..span.start]);
            scrubbed.push_str(TOMBSTONE);
            at = span.end;
        }
        scrubbed.push_str(&text[at..]);
        Cow::Owned(scrubbed)
    }

    /// Scrubs a stored JSON body in place; whether anything changed. An object that is a
    /// recipient's (it has a `recipientId`, or an `id` and an `email`) is the erased person's
    /// or another's by that id: the erased person's loses its personal values whole, another's
    /// is left as it is. Every other string is scrubbed as a text.
    pub(super) fn scrub_json(&self, value: &mut Value) -> bool {
        match value {
            Value::String(text) => self.scrub_in_place(text),
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| self.scrub_json(item) | changed),
            Value::Object(map) => {
                let owner = map
                    .get("recipientId")
                    .or_else(|| map.get("id").filter(|_| map.contains_key("email")))
                    .and_then(Value::as_str)
                    .and_then(|id| id.parse::<uuid::Uuid>().ok())
                    .map(RecipientId);
                match owner {
                    Some(id) if self.erased_ids.contains(&id) => {
                        map.iter_mut().fold(false, |changed, (key, item)| {
                            let tombstoned = PERSONAL_KEYS.contains(&key.as_str())
                                && item.as_str().is_some_and(|s| s != TOMBSTONE);
                            if tombstoned {
                                *item = Value::String(TOMBSTONE.to_owned());
                            }
                            (tombstoned || self.scrub_json(item)) | changed
                        })
                    }
                    Some(_) => false,
                    None => map
                        .values_mut()
                        .fold(false, |changed, item| self.scrub_json(item) | changed),
                }
            }
            _ => false,
        }
    }

    /// Scrubs a bulk send's row (`{"<Role>.email": …, "<label>": …}`) in place; whether
    /// anything changed. The role whose address is the erased person's loses its name,
    /// address and number whole; another role's person columns are left as they are; every
    /// other value (a prefilled field) is scrubbed as a text.
    pub(super) fn scrub_bulk_row(&self, input: &mut Value) -> bool {
        let Some(columns) = input.as_object_mut() else {
            return self.scrub_json(input);
        };
        let roles: Vec<(String, bool)> = columns
            .iter()
            .filter_map(|(column, value)| {
                let role = column.strip_suffix(".email")?;
                let theirs = value.as_str().is_some_and(|a| self.is_erased_address(a));
                Some((role.to_owned(), theirs))
            })
            .collect();
        let mut changed = false;
        for (column, value) in columns.iter_mut() {
            let role = column.rsplit_once('.').and_then(|(role, part)| {
                crate::flows::bulk_sends::PERSON_COLUMNS
                    .contains(&part)
                    .then(|| roles.iter().find(|(r, _)| r == role))
                    .flatten()
                    .map(|(_, theirs)| (*theirs, part))
            });
            match role {
                Some((true, part)) => {
                    let tombstoned = IDENTITY_COLUMNS.contains(&part)
                        && value
                            .as_str()
                            .is_some_and(|s| !s.trim().is_empty() && s != TOMBSTONE);
                    if tombstoned {
                        *value = Value::String(TOMBSTONE.to_owned());
                        changed = true;
                    }
                }
                Some((false, _)) => {}
                None => changed |= self.scrub_json(value),
            }
        }
        changed
    }

    fn scrub_in_place(&self, text: &mut String) -> bool {
        match self.scrub(text) {
            Cow::Borrowed(_) => false,
            Cow::Owned(scrubbed) => {
                *text = scrubbed;
                true
            }
        }
    }

    fn is_erased_address(&self, address: &str) -> bool {
        let address = address.trim().to_lowercase();
        self.erased_addresses.contains(&address)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use uuid::Uuid;

    use super::*;

    fn ann_and_bea() -> (Identities, RecipientId, RecipientId) {
        let ann = RecipientId(Uuid::now_v7());
        let bea = RecipientId(Uuid::now_v7());
        let identities = Identities::new(
            [(
                ann,
                vec![
                    (Kind::Name, "Ann Lee"),
                    (Kind::Address, "ann@example.com"),
                    (Kind::Phone, "+447911123456"),
                    (Kind::Phone, "7911 123456"),
                ],
            )],
            [
                (Kind::Name, "Ann Lee-Smith"),
                (Kind::Address, "jo.ann@example.com"),
            ],
        );
        (identities, ann, bea)
    }

    #[test]
    fn the_erased_persons_identifiers_go_where_they_stand_as_theirs() {
        let (identities, _, _) = ann_and_bea();
        assert_eq!(
            identities.scrub("Recipients added: ANN@example.com, jo.ann@example.com"),
            "Recipients added: [erased], jo.ann@example.com"
        );
        assert_eq!(
            identities.scrub("Ann Lee, Ann Lee-Smith and ann@example.com.au; +447911123456"),
            "[erased], Ann Lee-Smith and ann@example.com.au; [erased]"
        );
        assert_eq!(
            identities.scrub("Annual report signed by x-ann@example.com, +4479111234567"),
            "Annual report signed by x-ann@example.com, +4479111234567"
        );
        assert_eq!(
            identities.scrub("The invitation e-mail to ann@example.com. Bounced"),
            "The invitation e-mail to [erased]. Bounced"
        );
        assert!(matches!(identities.scrub("by signed"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_body_loses_the_erased_persons_object_and_keeps_everyone_elses() {
        let (identities, ann, bea) = ann_and_bea();
        let mut body = json!({
            "type": "document.declined",
            "data": {
                "title": "Lease for Ann Lee",
                "recipients": [
                    {"id": ann.0, "name": "Ann Lee", "email": "ann@example.com", "deliveryError": null,
                     "fields": [{"id": Uuid::nil(), "label": "Ann Lee's initials"}]},
                    {"id": bea.0, "name": "Ann Lee-Smith", "email": "jo.ann@example.com", "deliveryError": "Ann Lee"},
                ],
            },
            "delivery": {"recipientId": ann.0, "email": "ann@example.com", "reason": "550 mailbox full"},
        });
        assert!(identities.scrub_json(&mut body));
        assert_eq!(
            body,
            json!({
                "type": "document.declined",
                "data": {
                    "title": "Lease for [erased]",
                    "recipients": [
                        {"id": ann.0, "name": "[erased]", "email": "[erased]", "deliveryError": null,
                         "fields": [{"id": Uuid::nil(), "label": "[erased]'s initials"}]},
                        {"id": bea.0, "name": "Ann Lee-Smith", "email": "jo.ann@example.com", "deliveryError": "Ann Lee"},
                    ],
                },
                "delivery": {"recipientId": ann.0, "email": "[erased]", "reason": "[erased]"},
            })
        );
        assert!(!identities.scrub_json(&mut body));
    }

    #[test]
    fn a_bulk_row_loses_the_erased_persons_role_and_keeps_the_others() {
        let (identities, _, _) = ann_and_bea();
        let mut row = json!({
            "Tenant.name": "Ann Lee", "Tenant.email": " Ann@Example.com ", "Tenant.phoneNumber": "7911 123456",
            "Tenant.countryCode": "+44", "Guarantor.name": "Ann Lee", "Guarantor.email": "jo.ann@example.com",
            "Note": "call Ann Lee",
        });
        assert!(identities.scrub_bulk_row(&mut row));
        assert_eq!(
            row,
            json!({
                "Tenant.name": "[erased]", "Tenant.email": "[erased]", "Tenant.phoneNumber": "[erased]",
                "Tenant.countryCode": "+44", "Guarantor.name": "Ann Lee", "Guarantor.email": "jo.ann@example.com",
                "Note": "call [erased]",
            })
        );
    }
}
