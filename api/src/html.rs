//! The frame every server-rendered page shares, and how its pages show times and counts.

use chrono::{DateTime, Utc};
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// A time as the console shows it: day, month, year and minute, in UTC, said so
/// (`23 Nov 2026, 18:40 UTC`). The console is in English; the signing page and the e-mails
/// write times the same way in their reader's language (`signet_i18n::Language::time`).
pub fn time(t: DateTime<Utc>) -> String {
    format!("{} UTC", signet_i18n::Language::English.time(t))
}

/// An audit entry's time: to the second, so that entries of one minute can be told apart, with
/// the full RFC 3339 time on hover and in `datetime`, kept on one line.
pub fn time_to_the_second(t: DateTime<Utc>) -> Markup {
    let full = t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    html! {
        time.when datetime=(full) title=(full) {
            (t.format("%-d %b %Y, %H:%M:%S UTC"))
        }
    }
}

/// A count with its noun in the right number: `count(1, "document", "documents")` is
/// `1 document`, 0 and 2 take the plural; thousands are grouped (`1,000 requests`).
pub fn count(n: impl Into<i64>, one: &str, many: &str) -> String {
    let n = n.into();
    let digits = n.unsigned_abs().to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        grouped.push('-');
    }
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{grouped} {}", if n == 1 { one } else { many })
}

/// Text someone wrote (a title, a name, a value, a reason, a user agent, a server's error), for
/// a page: escaped inside a `<bdi>`, so that it is laid out in its own direction and neither it
/// nor a bidi control in it can reorder the page's words around it
/// (`signet_i18n::bidi::html`; docs/security.md, "Text drawn from user input").
pub fn isolated(value: &str) -> Markup {
    PreEscaped(signet_i18n::bidi::html(value))
}

/// [`isolated`] where markup is not allowed (`<title>`, `<option>`): Unicode isolates around the
/// value where it could reorder the text around it (`signet_i18n::bidi::in_text`).
pub fn isolated_text(value: &str, right_to_left: bool) -> String {
    signet_i18n::bidi::in_text(value, right_to_left).into_owned()
}

/// What the console's and signing links' pages may load: their own scripts, styles (inline
/// `style` attributes too), images, fonts and pdf.js's worker, nothing else; and who may frame
/// them: no one (`'none'`, `frame_ancestors` empty), or an embedded signing page's allowed
/// origins, each checked to be a bare origin (`wire::embedding::parse_origin`).
pub fn page_csp(frame_ancestors: &[String]) -> String {
    let ancestors = match frame_ancestors {
        [] => "'none'".to_owned(),
        origins => origins.join(" "),
    };
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; \
         worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors {ancestors}"
    )
}

pub fn layout(title: &str, body: Markup) -> Markup {
    layout_in(signet_i18n::Language::English, title, body)
}

/// [`layout`] for a page in `language`: its `lang`, and its direction (Arabic and Hebrew mirror).
pub fn layout_in(language: signet_i18n::Language, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(language.tag()) dir=(language.direction()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                // No favicon: without this browsers request /favicon.ico and log its 404.
                link rel="icon" href="data:,";
                title { (isolated_text(title, language.is_right_to_left())) " · Signet" }
                style { (PreEscaped(STYLE)) }
            }
            body { main { (body) } }
        }
    }
}

/// The console's style (the signing page adds its own). Made for any width from a 360 px phone
/// up (docs/console.md, "On a phone"): long words and addresses wrap instead of widening the
/// page, controls never grow wider than their box, tables become one card per row below 640 px
/// (`table.stack`, each cell named by its `data-label`), and the controls a person taps are at
/// least 24 × 24 px (WCAG 2.2's minimum target size).
pub const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}\
main{max-width:960px;margin:0 auto;padding:16px;overflow-wrap:break-word}\
.card{background:#fff;border-radius:8px;padding:16px;margin:12px 0;box-shadow:0 1px 2px #0002}\
iframe{width:100%;height:70vh;border:1px solid #ccd;border-radius:4px;background:#fff}\
label{display:block;margin:10px 0 4px;font-weight:600}\
input,textarea{width:100%;box-sizing:border-box;padding:8px;font-size:16px;border:1px solid #aab;border-radius:4px}\
button{padding:10px 18px;font-size:16px;border:0;border-radius:4px;cursor:pointer;margin-top:12px}\
.primary{background:#1f4fd1;color:#fff}.danger{background:#fff;color:#b3261e;border:1px solid #b3261e}\
.banner{padding:12px;border-radius:6px;background:#e8f0fe}.error{color:#b3261e;white-space:pre-wrap}.when{white-space:nowrap}\
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}\
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:6px;border-bottom:1px solid #e3e5ea;font-size:14px}\
code{background:#eef;padding:2px 4px;border-radius:3px;word-break:break-all}nav{display:flex;gap:12px;align-items:center}\
nav.top{flex-wrap:wrap}nav.top a,#paging a{padding:10px 0}nav.top form{margin:0}nav.top button{margin:0}\
p>a:not(.button),td>a{display:inline-block;padding:5px 0}td>a{overflow-wrap:anywhere}\
select{padding:8px;font-size:16px;max-width:100%}.page{position:relative;margin:12px auto;box-shadow:0 1px 3px #0003;background:#fff}\
.page canvas{display:block}canvas.pad{display:block;width:100%;max-width:600px;aspect-ratio:4/1;border:1px dashed #aab;border-radius:4px;background:#fff;touch-action:none;margin-top:6px}\
#pages{width:100%}button.field{font-size:11px;color:#1d2330;margin:0}.field{position:absolute;border:2px solid;box-sizing:border-box;font-size:12px;padding:2px;cursor:move;user-select:none;touch-action:none}\
.field .resize{position:absolute;right:-5px;bottom:-5px;width:10px;height:10px;cursor:nwse-resize;touch-action:none}\
.field .remove{position:absolute;right:-8px;top:-8px;width:16px;height:16px;margin:0;padding:0;border:1px solid #1d2330;border-radius:50%;background:#fff;color:#1d2330;font-size:12px;line-height:14px}\
@media (pointer:coarse){.field .resize{right:-12px;bottom:-12px;width:24px;height:24px;border-radius:50%}.field .remove{right:-12px;top:-12px;width:24px;height:24px;font-size:16px;line-height:22px}}\
a.button{display:inline-block;padding:10px 18px;border-radius:4px;text-decoration:none;margin-top:12px}\
.secondary{background:#fff;color:#1f4fd1;border:1px solid #1f4fd1}fieldset{border:1px solid #ccd;border-radius:4px;margin:12px 0 0;min-width:0}\
label.inline{display:inline;font-weight:400}label.inline input{width:auto;min-width:24px;min-height:24px;vertical-align:middle}\
@media (max-width:640px){main{padding:12px}.card{padding:12px}\
table.stack thead{display:none}table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}\
table.stack tr{border:1px solid #e3e5ea;border-radius:6px;padding:6px 10px;margin:8px 0;background:#fff}\
table.stack td{border:0;padding:2px 0}table.stack td[data-label]::before{content:attr(data-label) \": \";font-weight:600}}";

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn times_are_read_in_utc_to_the_minute() {
        let t = Utc.with_ymd_and_hms(2026, 11, 3, 8, 5, 59).unwrap();
        assert_eq!(time(t), "3 Nov 2026, 08:05 UTC");
    }

    #[test]
    fn audit_times_are_to_the_second_with_the_full_time_on_hover() {
        let t = Utc.with_ymd_and_hms(2026, 11, 3, 8, 5, 59).unwrap();
        assert_eq!(
            time_to_the_second(t).into_string(),
            "<time class=\"when\" datetime=\"2026-11-03T08:05:59.000Z\" title=\"2026-11-03T08:05:59.000Z\">3 Nov 2026, 08:05:59 UTC</time>"
        );
    }

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(0, "document", "documents"), "0 documents");
        assert_eq!(count(1, "document", "documents"), "1 document");
        assert_eq!(count(2, "page", "pages"), "2 pages");
        assert_eq!(count(1000, "request", "requests"), "1,000 requests");
        assert_eq!(
            count(1_234_567, "request", "requests"),
            "1,234,567 requests"
        );
        assert_eq!(count(-1, "second", "seconds"), "-1 seconds");
    }
}
