//! Writing a command's output.

/// Writes one line to stdout. Unlike `println!` it does not panic when the reader has gone
/// (`signet-api … | head`): the caller decides, and stops quietly as Unix tools do.
pub fn print_line(line: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    stdout.flush()
}
