//! The catalogues are compiled in (`include_str!` per file, by `static_loader!`): a file added
//! to or removed from `locales/` must rebuild the crate too, not only an edited one.
fn main() {
    println!("cargo:rerun-if-changed=locales");
}
