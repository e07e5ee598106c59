//! The signing page's markup: the page a signer opens from the e-mail, the words its script
//! shows, and the page for a link that leads nowhere.

use chrono::Utc;
use maud::{Markup, PreEscaped, html};
use serde::Serialize;
use signet_common::{
    flows::{embedding::Embedding, signer_auth::Challenge, signing::SigningSession},
    model::{AuthMethod, DocumentStatus, Field, FieldType, RecipientRole, RecipientStatus},
    wire::views::FieldView,
};
use signet_i18n::Language;

use crate::{html::layout_in, routes::assets};

/// The page for a signing link that leads nowhere (unknown, or its document deleted).
pub(super) fn not_found(language: Language) -> Markup {
    layout_in(
        language,
        &language.text("sign-not-found-title"),
        html! {
            h1 { (language.text("sign-not-found-heading")) }
            p { (language.text("sign-not-found-text")) }
        },
    )
}

/// Why an embedded session's page cannot be shown (`signet:error`'s `reason`).
#[derive(Debug, Clone, Copy)]
pub(super) enum EmbedRefusal {
    /// The session's URL was opened before, or was not opened in time.
    UrlUsed,
    /// This browser holds no unexpired session: it ended, or the browser did not keep the
    /// session's cookie (third-party cookies blocked in a frame).
    SessionEnded,
}

impl EmbedRefusal {
    fn reason(self) -> &'static str {
        match self {
            Self::UrlUsed => "url_used_or_expired",
            Self::SessionEnded => "session_unavailable",
        }
    }
}

/// The page of an embedded session that cannot be used here: said in words, and told to the
/// frame's parent as `signet:error`.
pub(super) fn embed_refused(
    language: Language,
    refusal: EmbedRefusal,
    embedding: &Embedding,
) -> Markup {
    let (heading, text) = match refusal {
        EmbedRefusal::UrlUsed => ("sign-embed-used-heading", "sign-embed-used-text"),
        EmbedRefusal::SessionEnded => ("sign-embed-ended-heading", "sign-embed-ended-text"),
    };
    let announce = serde_json::json!({"type": "signet:error", "reason": refusal.reason()});
    layout_in(
        language,
        &language.text(heading),
        html! {
            h1 { (language.text(heading)) }
            p { (language.text(text)) }
            (embed_script(embedding, Some(announce)))
        },
    )
}

/// What `embedded.mjs` needs to tell the page that frames this one what happens: the origins
/// it may tell, the ids, the `returnUrl`, and what to tell at once on a page without the
/// signing script (`announce`).
fn embed_script(embedding: &Embedding, announce: Option<serde_json::Value>) -> Markup {
    let data = serde_json::json!({
        "origins": embedding.frame_origins,
        "documentId": embedding.document_id,
        "recipientId": embedding.recipient_id,
        "returnUrl": embedding.return_url,
        "announce": announce,
    });
    // Inside a <script> element: no "</" may end it early.
    let data = data.to_string().replace('<', "\\u003c");
    html! {
        script #embed-data type="application/json" { (PreEscaped(data)) }
        script type="module" src=(format!("{}/embedded.mjs", assets::BASE)) {}
    }
}

/// The page's own style. CJK text is drawn with the final PDF's CJK face ("Signet CJK"), listed
/// before the device's fonts: Chromium draws Han text that it laid out while that font was still
/// loading in the device's fallback, boxes where the device has no CJK font, and does not draw it
/// again once the font has come. Text in another script the device has no font for (Arabic,
/// Devanagari) falls back to the final PDF's Noto fonts ("Signet Text"). Typed signatures are
/// ink blue in the final PDF's fonts, as it stamps them.
const SIGNING_STYLE: &str = "\
[hidden]{display:none!important}\
body{font-family:\"Signet CJK\",system-ui,\"Signet Text\",sans-serif}\
.typed{font-family:\"Signet CJK\",\"Signet Text\",sans-serif;color:#0d2673;unicode-bidi:plaintext}\
.typed-preview{font-size:1.6rem;min-height:2.2rem;margin-top:4px}\
#pages{direction:ltr}\
.field{display:flex;align-items:center;justify-content:center;overflow:hidden;white-space:nowrap;\
text-overflow:ellipsis;font-size:11px;color:#1d2330;padding:0 2px;margin:0;border-radius:3px;cursor:pointer}\
.field img{max-width:100%;max-height:100%}.field .typed{font-size:inherit}\
.field.filled{border-style:solid}.field.todo{border-style:dashed}\
.field:focus-visible{outline:3px solid #1d2330;outline-offset:2px}\
.field.current{box-shadow:0 0 0 3px #1d2330}\
.field.date,.field.fixed{cursor:default}\
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}\
.toolbar{position:sticky;bottom:0;z-index:2;display:flex;flex-wrap:wrap;gap:8px;align-items:center;\
background:#fff;padding:10px 16px;box-shadow:0 -1px 3px #0003;border-radius:8px 8px 0 0}\
.toolbar button{margin:0}.toolbar .progress{flex:1 1 100%;font-weight:600}\
.secondary{background:#fff;color:#1f4fd1;border:1px solid #1f4fd1}\
dialog{border:0;border-radius:8px;padding:16px;width:min(600px,calc(100vw - 32px));box-sizing:border-box}\
dialog::backdrop{background:#0007}\
.languages{font-size:14px;margin:0 0 4px}.languages summary{cursor:pointer;color:#1f4fd1;width:max-content}\
.languages nav{display:flex;flex-wrap:wrap;gap:4px 12px;padding:6px 0}.languages a{color:#1f4fd1}\
.languages a[aria-current]{color:#1d2330;font-weight:600;text-decoration:none}\
label.check{display:flex;gap:8px;align-items:flex-start;font-weight:600}label.check input{width:auto;margin-top:4px}\
fieldset{border:0;padding:0;margin:0 0 8px}legend{font-weight:600;margin-bottom:6px}.field.checkbox{cursor:default;padding:0}.field.checkbox input{width:auto;margin:0;min-width:18px;min-height:18px}a{color:#1f4fd1}";

/// The states a signing link can be in once its recipient cannot act, as the page words them.
fn state_message(session: &SigningSession, language: Language) -> Option<String> {
    let text = |id: &str| Some(language.text(id));
    match (session.document.status, session.recipient.status) {
        (DocumentStatus::Completed, _) => text("sign-state-completed"),
        (DocumentStatus::Declined, RecipientStatus::Declined) => text("sign-state-you-declined"),
        (DocumentStatus::Declined, _) => text("sign-state-declined"),
        (DocumentStatus::Expired, _) => text("sign-state-expired"),
        (DocumentStatus::Cancelled, _) => match &session.document.cancel_reason {
            // Isolated (as `<bdi>` does), so that a reason in another direction keeps its order
            // and cannot reorder the sentence.
            Some(reason) => Some(language.format(
                "sign-state-cancelled-reason",
                &[("reason", signet_i18n::bidi::isolate(reason).into())],
            )),
            None => text("sign-state-cancelled"),
        },
        (_, RecipientStatus::Signed) if session.others_to_sign == 0 => {
            text("sign-state-all-signed")
        }
        (_, RecipientStatus::Signed) => Some(language.format(
            "sign-state-waiting",
            &[("count", session.others_to_sign.into())],
        )),
        _ if !session.can_act() && session.recipient.role == RecipientRole::Viewer => {
            text("sign-state-viewer")
        }
        _ if !session.can_act() => text("sign-state-closed"),
        _ => None,
    }
}

/// A field as the page's script places and names it: the detail's field (its box, `readOnly`,
/// `required` and its kind's rules: options, bounds, length, pattern) and its words.
#[derive(Serialize)]
struct PageField {
    #[serde(flatten)]
    field: FieldView,
    /// A value prefilled by the sender (or a NAME field's recipient's name): read-only, or
    /// shown for the signer to keep or change.
    value: Option<String>,
    /// "Signature": what its box shows while empty.
    kind: String,
    /// "Signature, page 2", "Text (Company), page 1 (optional)": what screen readers and error
    /// messages call it.
    name: String,
    /// The message when it is left empty.
    empty: String,
}

pub(super) struct SigningPage<'a> {
    /// The path the page was served under, where its script sends its requests.
    pub base: String,
    pub session: &'a SigningSession,
    pub file_url: Option<&'a str>,
    pub language: Language,
    pub consent_text: String,
    /// ATTACHMENT_MAX_MIB, which the file input's label states.
    pub attachment_max_mib: usize,
    /// The embedded session the page is shown in, if any.
    pub embedding: Option<&'a Embedding>,
}

impl SigningPage<'_> {
    fn kind(&self, field_type: FieldType) -> String {
        self.language.text(match field_type {
            FieldType::Signature => "sign-field-signature",
            FieldType::Initials => "sign-field-initials",
            FieldType::Text => "sign-field-text",
            FieldType::Date => "sign-field-date",
            FieldType::Checkbox => "sign-kind-checkbox",
            FieldType::Radio => "sign-kind-radio",
            FieldType::Dropdown => "sign-kind-dropdown",
            FieldType::Number => "sign-kind-number",
            FieldType::Email => "sign-kind-email",
            FieldType::Name => "sign-kind-name",
            FieldType::Company => "sign-kind-company",
            FieldType::Attachment => "sign-kind-attachment",
        })
    }

    /// The recipient's fields in reading order: by page, then top to bottom, then in the
    /// page's writing direction.
    fn fields(&self) -> Vec<PageField> {
        let mut fields: Vec<&Field> = self.session.fields.iter().collect();
        fields.sort_by(|a, b| {
            (a.page, a.y, a.x)
                .partial_cmp(&(b.page, b.y, b.x))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        fields
            .into_iter()
            .map(|f| {
                // A labelled field is called by its kind and label; its box shows the kind, which
                // its name starts with (WCAG 2.5.3).
                let kind = self.kind(f.field_type);
                let called = match &f.label {
                    Some(label) => format!("{kind} ({label})"),
                    None => kind.clone(),
                };
                let mut name = self.language.format(
                    "sign-field-name",
                    &[("kind", called.into()), ("page", f.page.into())],
                );
                if !f.required {
                    name = self
                        .language
                        .format("sign-field-optional", &[("field", name.into())]);
                }
                PageField {
                    field: FieldView::from(f),
                    value: f
                        .field_type
                        .takes_prefill()
                        .then(|| f.value.clone())
                        .flatten(),
                    kind,
                    empty: self
                        .language
                        .format("sign-error-empty", &[("field", name.clone().into())]),
                    name,
                }
            })
            .collect()
    }

    /// What the page's script needs: the fields, the words it shows in this language (the
    /// progress line for every count, since plural rules differ by language) and where to post.
    fn script_data(&self) -> String {
        let fields = self.fields();
        let to_fill = fields
            .iter()
            .filter(|f| {
                f.field.field_type != FieldType::Date && !f.field.read_only && f.field.required
            })
            .count();
        let l = self.language;
        let words: serde_json::Map<String, serde_json::Value> = [
            "sign-field-to-fill",
            "sign-field-filled",
            "sign-field-date-auto",
            "sign-field-read-only",
            "sign-error-heading",
            "sign-error-dialog-empty",
            "sign-error-network",
            "sign-consent-missing",
            "sign-decline-confirm",
            "sign-dialog-text",
            "sign-dialog-type",
            "sign-field-optional-empty",
            "sign-dialog-choose",
            "sign-dialog-uploading",
            "sign-error-dialog-choose",
            "sign-error-dialog-file",
        ]
        .into_iter()
        .map(|id| (id.to_owned(), l.text(id).into()))
        .chain(
            [FieldType::Signature, FieldType::Initials]
                .into_iter()
                .map(|t| {
                    (
                        format!("pad-{}", t.as_str()),
                        l.format("sign-dialog-pad", &[("kind", self.kind(t).into())])
                            .into(),
                    )
                }),
        )
        .collect();
        let progress: Vec<String> = (0..=to_fill)
            .map(|done| {
                l.format(
                    "sign-progress",
                    &[("done", done.into()), ("total", to_fill.into())],
                )
            })
            .collect();
        let data = serde_json::json!({
            "base": self.base,
            "language": l.tag(),
            "color": self.session.recipient.color_code,
            "canAct": self.session.can_act(),
            "consented": self.session.recipient.consented_at.is_some(),
            // The date the server will set, shown in DATE fields; it is set again, by the
            // database's clock, when the signature is recorded.
            "today": Utc::now().format("%Y-%m-%d").to_string(),
            "fields": fields,
            "words": words,
            "progress": progress,
        });
        // Inside a <script> element: no "</" may end it early.
        data.to_string().replace('<', "\\u003c")
    }

    pub fn render(&self) -> Markup {
        let l = self.language;
        let session = self.session;
        let document = &session.document;
        let recipient = &session.recipient;
        let can_act = session.can_act();
        let consented = recipient.consented_at.is_some();
        layout_in(
            l,
            &document.title,
            html! {
                (language_links(l))
                h1 dir="auto" { (document.title) }
                p { (PreEscaped(l.format_html("sign-for", &[("name", &recipient.name)]))) }
                p #sender { (PreEscaped(l.format_html("sign-from", &[("sender", &session.sender)]))) }
                @if let Some(note) = state_message(session, l) { p.banner id="state" role="status" { (note) } }
                @if let Some(message) = document.send_message.as_deref().filter(|m| !m.is_empty()) {
                    div.card dir="auto" { p { (message) } @if let Some(d) = document.send_description.as_deref().filter(|d| !d.is_empty()) { p { (d) } } }
                }
                @if can_act {
                    section.card #consent hidden[consented] aria-labelledby="consent-heading" {
                        h2 #consent-heading { (l.text("sign-consent-heading")) }
                        p #consent-text dir="auto" { (self.consent_text) }
                        label.check for="consent-agree" {
                            input #consent-agree type="checkbox";
                            span { (l.text("sign-consent-agree")) }
                        }
                        button.primary #consent-continue type="button" { (l.text("sign-consent-continue")) }
                        p.error #consent-error role="alert" {}
                    }
                }
                @if let Some(file_url) = self.file_url {
                    div #pages
                        data-pdfjs-url=(format!("{}/pdf.min.mjs", assets::BASE))
                        data-worker-url=(format!("{}/pdf.worker.min.mjs", assets::BASE))
                        data-file-url=(file_url)
                        data-failed-text=(l.text("sign-pages-failed")) {}
                    p { a href=(file_url) { (l.text("sign-download")) } }
                }
                @if can_act {
                    div.toolbar #toolbar hidden[!consented] {
                        p.progress #progress aria-live="polite" {}
                        button.secondary #next-field type="button" { (l.text("sign-next-field")) }
                        button.primary #sign type="button" { (l.text("sign-submit")) }
                        div.error #sign-error role="alert" tabindex="-1" {}
                    }
                    dialog #field-dialog aria-labelledby="dialog-title" {
                        h2 #dialog-title {}
                        div #dialog-typed {
                            label #dialog-input-label for="dialog-input" { (l.text("sign-dialog-type")) }
                            input #dialog-input type="text" autocomplete="off";
                            div.typed.typed-preview #dialog-preview dir="auto" aria-hidden="true" {}
                        }
                        fieldset #dialog-choices hidden {
                            legend #dialog-choices-legend {}
                            div #dialog-choices-list {}
                        }
                        div #dialog-select-box hidden {
                            label #dialog-select-label for="dialog-select" {}
                            select #dialog-select {}
                        }
                        div #dialog-file-box hidden {
                            label for="dialog-file" { (l.format("sign-dialog-file", &[("size", self.attachment_max_mib.into())])) }
                            input #dialog-file type="file" accept="application/pdf,image/png,image/jpeg,.pdf,.png,.jpg,.jpeg";
                            p #dialog-file-status aria-live="polite" dir="auto" {}
                        }
                        div #dialog-drawn {
                            p #dialog-draw-label { (l.text("sign-dialog-draw")) }
                            canvas.pad #dialog-pad width="1200" height="300" role="img" aria-labelledby="dialog-draw-label" {}
                            button.secondary #dialog-clear type="button" { (l.text("sign-dialog-clear")) }
                        }
                        p.error #dialog-error role="alert" {}
                        div {
                            button.primary #dialog-apply type="button" { (l.text("sign-dialog-apply")) }
                            " "
                            button.secondary #dialog-cancel type="button" { (l.text("sign-dialog-cancel")) }
                        }
                    }
                    details.card #decline {
                        summary { (l.text("sign-decline-heading")) }
                        label for="reason" { (l.text("sign-decline-reason")) }
                        textarea #reason name="reason" rows="2" dir="auto" {}
                        button.danger #decline-submit type="button" { (l.text("sign-decline-submit")) }
                        p.error #decline-error role="alert" {}
                    }
                }
                @if let Some(expiry) = document.expiry_date {
                    p { small { (l.format("sign-valid-until", &[("time", signet_i18n::bidi::isolate(&l.time(expiry)).into())])) } }
                }
                style { (PreEscaped(format!("{}{SIGNING_STYLE}", assets::font_faces()))) }
                @if self.file_url.is_some() {
                    script #signing-data type="application/json" { (PreEscaped(self.script_data())) }
                    script type="module" src=(format!("{}/sign-page.mjs", assets::BASE)) {}
                }
                @if let Some(embedding) = self.embedding {
                    // The signing script says when it is ready; a page without it, at once.
                    (embed_script(embedding, self.file_url.is_none().then(|| serde_json::json!({"type": "signet:ready"}))))
                }
            },
        )
    }
}

/// The page of a link that asks for a code the browser has not given (issue #34): the code
/// form, or that the link is locked. Nothing of the document: no title, pages, message or
/// file link; its `<title>` is the form's heading.
pub(super) struct AuthPage<'a> {
    /// Where the form's script sends the code: the path the page was served under (a link's
    /// `/sign/{token}` or an embedded session's `/embedded/{session}`).
    pub base: String,
    pub challenge: &'a Challenge,
    pub language: Language,
    /// The embedded session the form is shown in, if it is.
    pub embedding: Option<&'a Embedding>,
}

impl AuthPage<'_> {
    /// What an embedded code form tells the frame's parent at once: that it is shown, naming
    /// the method the signer is asked for (`signet:ready`, `authentication`), or, locked, that
    /// it cannot be used (`signet:error`, `authentication_locked`).
    fn announce(&self) -> serde_json::Value {
        match self.challenge.locked {
            true => serde_json::json!({"type": "signet:error", "reason": "authentication_locked"}),
            false => {
                serde_json::json!({"type": "signet:ready", "authentication": self.challenge.method})
            }
        }
    }

    fn script_data(&self) -> String {
        let l = self.language;
        let words: serde_json::Map<String, serde_json::Value> = [
            "sign-auth-sent-email",
            "sign-auth-sent-sms",
            "sign-auth-too-soon",
            "sign-auth-wrong",
            "sign-auth-expired",
            "sign-auth-empty",
            "sign-error-network",
        ]
        .into_iter()
        .map(|id| (id.to_owned(), l.text(id).into()))
        .collect();
        let data = serde_json::json!({
            "base": self.base,
            "method": self.challenge.method,
            // A code sent lately still works: the page does not ask for another by itself.
            "codeLive": self.challenge.code_live,
            "words": words,
        });
        data.to_string().replace('<', "\\u003c")
    }

    pub fn render(&self) -> Markup {
        let l = self.language;
        let method = self.challenge.method;
        let heading = l.text("sign-auth-heading");
        let explained = match method {
            AuthMethod::AccessCode => "sign-auth-access-code",
            AuthMethod::EmailOtp => "sign-auth-email",
            AuthMethod::SmsOtp => "sign-auth-sms",
        };
        layout_in(
            l,
            &heading,
            html! {
                (language_links(l))
                h1 { (heading) }
                @if self.challenge.locked {
                    p.banner #state role="status" { (l.text("sign-auth-locked")) }
                } @else {
                    section.card {
                        p #auth-explained { (l.text(explained)) }
                        form #auth-form novalidate {
                            label for="auth-code" { (l.text("sign-auth-code-label")) }
                            @if method.is_one_time() {
                                input #auth-code name="code" type="text" inputmode="numeric"
                                    autocomplete="one-time-code" maxlength="6" pattern="[0-9]{6}"
                                    aria-describedby="auth-explained auth-error" required;
                            } @else {
                                input #auth-code name="code" type="password" autocomplete="off"
                                    maxlength="64" aria-describedby="auth-explained auth-error" required;
                            }
                            p.error #auth-error role="alert" {}
                            button.primary #auth-submit type="submit" { (l.text("sign-auth-submit")) }
                        }
                        @if method.is_one_time() {
                            p #auth-status role="status" aria-live="polite" {}
                            button.secondary #auth-resend type="button" { (l.text("sign-auth-resend")) }
                        }
                    }
                    script #auth-data type="application/json" { (PreEscaped(self.script_data())) }
                    script type="module" src=(format!("{}/sign-auth.mjs", assets::BASE)) {}
                }
                style { (PreEscaped(format!("{}{SIGNING_STYLE}", assets::font_faces()))) }
                @if let Some(embedding) = self.embedding {
                    (embed_script(embedding, Some(self.announce())))
                }
            },
        )
    }
}

/// The links to the same page in every language Signet speaks, each named in itself, folded
/// under the current language's name: one line of a phone's screen until it is opened. A
/// `<details>` needs no script.
fn language_links(current: Language) -> Markup {
    let label = current.text("sign-languages");
    html! {
        details.languages {
            summary aria-label=(format!("{label}: {}", current.name())) { (current.name()) }
            nav.languages aria-label=(label) {
                @for other in Language::ALL {
                    a href=(format!("?lang={}", other.tag())) lang=(other.tag()) hreflang=(other.tag())
                        aria-current=[(other == current).then_some("true")] { (other.name()) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's own CJK words draw from the small page font, with no fetch of the whole CJK
    /// face: a change of CJK signing strings or language names needs `scripts/web-fonts.sh` run
    /// again.
    #[test]
    fn page_font_covers_the_page_words() {
        let locales = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../i18n/locales");
        let strings: String = std::fs::read_dir(locales)
            .unwrap()
            .map(|locale| std::fs::read_to_string(locale.unwrap().path().join("signing.ftl")))
            .collect::<Result<_, _>>()
            .unwrap();
        let names: String = Language::ALL.into_iter().map(Language::name).collect();
        let cjk =
            |c: &char| matches!(u32::from(*c), 0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFFEF);
        let missing: String = strings
            .chars()
            .chain(names.chars())
            .filter(cjk)
            .filter(|c| !assets::page_font_has(*c))
            .collect();
        assert_eq!(missing, "", "run scripts/web-fonts.sh");
    }
}
