// The catalogues are compiled in by `static_loader!`, which Cargo cannot see reading them: a
// changed or added .ftl file must rebuild this crate.
fn main() {
    println!("cargo:rerun-if-changed=locales");
    for language in std::fs::read_dir("locales").expect("i18n/locales") {
        let language = language.expect("a locale directory").path();
        println!("cargo:rerun-if-changed={}", language.display());
        for file in std::fs::read_dir(&language).expect("a locale directory") {
            println!(
                "cargo:rerun-if-changed={}",
                file.expect("a catalogue").path().display()
            );
        }
    }
}
