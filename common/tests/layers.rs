//! The layers of `signet_common`, from the bottom: the domain's vocabulary (`model`, `error`),
//! the process's infrastructure (`infra`), the shapes on the wire (`wire`), the SQL (`store`),
//! the outbox's decisions (`delivery`), the side effects of a change (`effects`) and the use
//! cases (`flows`). A module may use its own layer and those below it, never one above: an
//! import that runs back up fails here (docs/architecture.md, "Layers", says why this is a
//! test and not a crate boundary).

use std::path::{Path, PathBuf};

/// Each top-level module of the crate (and each name the crate's root re-exports) with its
/// layer's height.
const LAYERS: &[(&str, u8)] = &[
    ("model", 0),
    ("error", 0),
    ("version", 0),
    ("VERSION", 0),
    ("Error", 0),
    ("AuthRefusal", 0),
    ("Conflict", 0),
    ("Problem", 0),
    ("Rule", 0),
    ("infra", 1),
    ("Config", 1),
    // The `read!` macro of `infra::db`.
    ("read", 1),
    ("wire", 2),
    ("store", 3),
    ("delivery", 4),
    ("effects", 5),
    ("flows", 6),
];

fn height(name: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

/// The top-level names a source uses through `crate::`, outside comments and test modules.
fn uses(source: &str) -> Vec<String> {
    let code = match source.find("#[cfg(test)]\nmod tests {") {
        Some(tests) => &source[..tests],
        None => source,
    };
    let code: String = code
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let preceded = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // `signet_common::crate::` never occurs; `$crate::` in macros does.
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.push(first_segment(&item));
        } else {
            names.push(first_segment(rest));
        }
    }
    names.retain(|n| !n.is_empty() && n != "self");
    names
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().unwrap() != "tests" {
                sources(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().unwrap() != "tests.rs"
        {
            found.push(path);
        }
    }
}

/// The layer a source file belongs to: its top-level module.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative.components().next().unwrap().as_os_str();
    first.to_str().unwrap().trim_end_matches(".rs").to_owned()
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut upward = Vec::new();
    let mut unplaced = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" {
            continue;
        }
        let Some(own) = height(&module) else {
            unplaced.push(module);
            continue;
        };
        for name in uses(&std::fs::read_to_string(file).unwrap()) {
            match height(&name) {
                Some(used) if used > own => upward.push(format!(
                    "{} uses crate::{name}",
                    file.strip_prefix(&src).unwrap().display()
                )),
                Some(_) => {}
                None => unplaced.push(name),
            }
        }
    }
    unplaced.sort();
    unplaced.dedup();
    assert!(
        unplaced.is_empty(),
        "modules or root names with no layer in LAYERS: {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports that run up a layer:\n{}",
        upward.join("\n")
    );
    assert!(
        files.len() > 100,
        "the walk found the sources: {}",
        files.len()
    );
}

#[test]
fn the_check_sees_every_form_of_import() {
    let source = "use crate::{\n    error::Result,\n    store::{self, documents},\n};\n\
                  use crate::flows::signing;\n\
                  // crate::effects in a comment is not an import\n\
                  fn f() { crate::infra::files::x(); }\n\
                  #[cfg(test)]\nmod tests {\n    use crate::wire;\n}\n";
    assert_eq!(uses(source), ["error", "store", "flows", "infra"]);
}
