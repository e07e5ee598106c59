//! Files a signer attached (ATTACHMENT fields), embedded in the final PDF: each an embedded
//! file stream (`/Type /EmbeddedFile`, with its size and MD5 `/CheckSum` as the PDF format
//! defines them) behind a file specification, listed in the catalog's `/Names /EmbeddedFiles`
//! name tree, so that readers show them in their attachments panel (`pdfdetach -list`).

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, StringFormat, dictionary};
use serde::{Deserialize, Serialize};

use crate::stamp_error::StampError;

/// A file to embed. Its bytes travel apart from this description (see `sandbox`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EmbeddedFile {
    /// The file's name as the signer gave it.
    pub name: String,
    /// Its media type: `application/pdf`, `image/png` or `image/jpeg`.
    pub media_type: String,
    /// Lowercase hex SHA-256 of its bytes, recorded in the file specification's description.
    pub sha256: String,
    /// What the certificate calls the field it answers: "Attachment (Proof of address)".
    pub description: String,
    /// How many bytes it has: where its bytes end in the sandbox's payload.
    pub size: usize,
}

/// Adds `files` (each with its bytes) to the document's embedded files. An original that
/// already has embedded files keeps them: the existing tree becomes a kid of the new root.
pub(crate) fn embed(doc: &mut Document, files: &[(EmbeddedFile, &[u8])]) -> Result<(), StampError> {
    if files.is_empty() {
        return Ok(());
    }
    let mut names: Vec<(String, ObjectId)> = Vec::with_capacity(files.len());
    for (file, bytes) in files {
        let key = unique_key(&file.name, &names);
        let spec = add_file(doc, file, bytes);
        names.push((key, spec));
    }
    names.sort_by_key(|(key, _)| utf16_text(key));
    let leaf: Vec<Object> = names
        .iter()
        .flat_map(|(key, spec)| [text_string(key), Object::Reference(*spec)])
        .collect();
    let catalog_id = doc
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(|_| StampError::Read("the catalog is not an indirect object".into()))?;
    let names_dict = catalog_names(doc, catalog_id)?;
    let existing = names_dict.get(b"EmbeddedFiles").ok().cloned();
    let tree = match existing {
        None => dictionary! { "Names" => leaf },
        Some(old) => {
            // Both as kids, each with its /Limits, as a name tree's intermediate node wants.
            let first = text_string(names.first().map_or("", |n| n.0.as_str()));
            let last = text_string(names.last().map_or("", |n| n.0.as_str()));
            let ours = doc.add_object(dictionary! {
                "Names" => leaf,
                "Limits" => vec![first, last],
            });
            dictionary! { "Kids" => vec![old, Object::Reference(ours)] }
        }
    };
    let tree = doc.add_object(tree);
    let mut names_dict = names_dict;
    names_dict.set("EmbeddedFiles", tree);
    let names_id = doc.add_object(names_dict);
    let catalog = doc
        .get_object_mut(catalog_id)
        .and_then(Object::as_dict_mut)
        .map_err(|e| StampError::Read(format!("the catalog: {e}")))?;
    catalog.set("Names", names_id);
    Ok(())
}

/// A copy of the catalog's `/Names` dictionary (direct or referred to), or a new one.
fn catalog_names(doc: &Document, catalog_id: ObjectId) -> Result<Dictionary, StampError> {
    let catalog = doc
        .get_dictionary(catalog_id)
        .map_err(|e| StampError::Read(format!("the catalog: {e}")))?;
    Ok(match catalog.get(b"Names") {
        Ok(Object::Dictionary(names)) => names.clone(),
        Ok(Object::Reference(id)) => doc.get_dictionary(*id).cloned().unwrap_or_default(),
        _ => Dictionary::new(),
    })
}

fn add_file(doc: &mut Document, file: &EmbeddedFile, bytes: &[u8]) -> ObjectId {
    use md5::Digest as _;
    let checksum = md5::Md5::digest(bytes).to_vec();
    let mut stream = Stream::new(
        dictionary! {
            "Type" => "EmbeddedFile",
            "Subtype" => Object::Name(file.media_type.clone().into_bytes()),
            "Params" => dictionary! {
                "Size" => bytes.len() as i64,
                "CheckSum" => Object::String(checksum, StringFormat::Hexadecimal),
            },
        },
        bytes.to_vec(),
    );
    // Already compressed formats (PDF, PNG, JPEG): stored as they are.
    stream.allows_compression = false;
    let stream = doc.add_object(stream);
    doc.add_object(dictionary! {
        "Type" => "Filespec",
        "F" => Object::string_literal(ascii_name(&file.name)),
        "UF" => text_string(&file.name),
        "Desc" => text_string(&format!("{} — SHA-256 {}", file.description, file.sha256)),
        "EF" => dictionary! { "F" => stream, "UF" => stream },
        "AFRelationship" => "Supplement",
    })
}

/// The name tree's key for `name`: the name, or "name (2)" when an earlier file has it.
fn unique_key(name: &str, taken: &[(String, ObjectId)]) -> String {
    let free = |key: &str| !taken.iter().any(|(k, _)| k == key);
    if free(name) {
        return name.to_owned();
    }
    (2..)
        .map(|n| format!("{name} ({n})"))
        .find(|key| free(key))
        .unwrap_or_default()
}

/// A text string in UTF-16BE with its byte order mark: any script survives.
fn text_string(text: &str) -> Object {
    Object::String(utf16_text(text), StringFormat::Hexadecimal)
}

fn utf16_text(text: &str) -> Vec<u8> {
    let mut bytes = vec![0xFE, 0xFF];
    bytes.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
    bytes
}

/// The file name for readers that only know `/F`: ASCII, other characters as `_`.
fn ascii_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> EmbeddedFile {
        EmbeddedFile {
            name: name.into(),
            media_type: "image/png".into(),
            sha256: "ab".repeat(32),
            description: "Attachment".into(),
            size: 0,
        }
    }

    fn names_of(doc: &Document) -> Vec<Vec<u8>> {
        let catalog = doc.catalog().unwrap();
        let names = match catalog.get(b"Names").unwrap() {
            Object::Reference(id) => doc.get_dictionary(*id).unwrap(),
            other => other.as_dict().unwrap(),
        };
        let tree = doc
            .get_dictionary(names.get(b"EmbeddedFiles").unwrap().as_reference().unwrap())
            .unwrap();
        tree.get(b"Names")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .step_by(2)
            .map(|key| key.as_str().unwrap().to_vec())
            .collect()
    }

    #[test]
    fn files_are_listed_under_the_catalogs_names_sorted_and_unique() {
        let mut doc = Document::with_version("1.7");
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog" });
        doc.trailer.set("Root", catalog);
        embed(
            &mut doc,
            &[
                (file("b.png"), b"one".as_slice()),
                (file("a.png"), b"two"),
                (file("a.png"), b"three"),
            ],
        )
        .unwrap();
        assert_eq!(
            names_of(&doc),
            vec![
                utf16_text("a.png"),
                utf16_text("a.png (2)"),
                utf16_text("b.png")
            ]
        );
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        assert!(bytes.windows(13).any(|w| w == b"/EmbeddedFile"));
    }
}
