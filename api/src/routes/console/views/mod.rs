//! The console's pages: markup only. Handlers gather the data and pick the status; these
//! functions turn it into HTML inside the shared frame (`crate::html::layout`).

mod bulk_sends;
mod document_list;
mod document_page;
mod field_placement;
mod frame;
mod settings;
mod sign_in;
mod templates;
mod verify;

pub(super) use bulk_sends::{
    BulkPreview, BulkProgress, Preview, bulk_columns, bulk_preview, bulk_progress,
};
pub(super) use document_list::{DocumentList, document_list};
pub(super) use document_page::{DocumentPage, cancel_page, document_page};
pub(super) use field_placement::{Editing, Placement, field_placement};
pub(super) use frame::{error_page, form_expired, page};
pub(super) use settings::{Flash, Settings, settings};
pub(super) use sign_in::sign_in;
pub(super) use templates::{TemplateList, TemplatePage, template_list, template_page};
pub(super) use verify::{Verdict, verify};
