//! Numbers as PDF content streams write them, shared by everything that draws.

/// A number as written in a content stream: at most three decimals, no exponent.
pub(crate) fn number_text(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => "0".to_owned(),
        text => text.to_owned(),
    }
}

pub(crate) fn numbers(values: &[f64]) -> String {
    values
        .iter()
        .map(|&value| number_text(value))
        .collect::<Vec<_>>()
        .join(" ")
}
