//! Writes the hostile PDF corpus (`signet_tests::hostile`) into a directory, for a probe by
//! hand: `cargo run -p signet-tests --bin hostile-pdfs -- DIR`.

use std::{path::PathBuf, process::ExitCode};

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: hostile-pdfs DIR");
        return ExitCode::from(64);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for file in signet_tests::hostile::corpus(&signet_tests::hostile::sealed_sample()) {
        let path = dir.join(format!("{}.pdf", file.name));
        if let Err(e) = std::fs::write(&path, &file.bytes) {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!(
            "{}\t{} bytes\t{}",
            path.display(),
            file.bytes.len(),
            file.what
        );
    }
    ExitCode::SUCCESS
}
