//! The refusals the documented routes share, each described once; a route lists the ones it
//! can answer (`responses(..., Unauthenticated, DocumentNotFound, RateLimited)`). They only
//! describe: no handler builds them (`ApiError` makes the responses), so their body is unread.

#![allow(dead_code)]

use crate::envelope::{Empty, Envelope};

/// 401, code UNAUTHENTICATED: no key, or not an active one.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 401,
    description = "API key is missing or invalid / Invalid API key"
)]
pub struct Unauthenticated(Envelope<Empty>);

#[derive(utoipa::IntoResponses)]
#[response(status = 404, description = "Document not found")]
pub struct DocumentNotFound(Envelope<Empty>);

#[derive(utoipa::IntoResponses)]
#[response(status = 413, description = "Request body too large")]
pub struct BodyTooLarge(Envelope<Empty>);

#[derive(utoipa::IntoResponses)]
#[response(status = 429, description = "API rate limit exceeded")]
pub struct RateLimited(Envelope<Empty>);

/// A PDF upload's route: the usage limit, or the upload gates full (docs/security.md).
#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    description = "API rate limit exceeded / Too many uploads at once. Try again in a moment. (see Retry-After)"
)]
pub struct RateLimitedOrUploadsBusy(Envelope<Empty>);

/// A bulk send: the usage limit, or the row checks' gates full (docs/security.md).
#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    description = "API rate limit exceeded / Too many bulk sends are being checked at once. Try again in a moment. (see Retry-After)"
)]
pub struct RateLimitedOrChecksBusy(Envelope<Empty>);
