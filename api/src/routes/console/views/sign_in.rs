//! The sign-in form.

use maud::{Markup, html};

/// `csrf` is the double-submit token of the form (there is no session yet).
pub(in crate::routes::console) fn sign_in(csrf: &str, error: Option<&str>) -> Markup {
    html! {
        h1 { "Sign in to Signet" }
        form.card method="post" action="/app/sign-in" {
            input type="hidden" name="csrf" value=(csrf);
            label for="email" { "E-mail" }
            input type="email" id="email" name="email" required autocomplete="username";
            label for="password" { "Password" }
            input type="password" id="password" name="password" required autocomplete="current-password";
            button.primary type="submit" { "Sign in" }
            @if let Some(error) = error { p.error role="alert" { (error) } }
        }
    }
}
