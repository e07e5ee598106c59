//! What sending e-mails and posting webhooks decides, apart from the sending itself (which is
//! the worker's transport): when to try again ([`retry`]), what an attempt came to and what to
//! write for it ([`emails`], [`webhooks`]), how a webhook is signed, and what an SMS says and
//! how many segments it takes ([`sms_text`]). Pure functions: the worker's jobs load with
//! `store`, act through their transport, and record what these say.

pub mod emails;
pub mod retry;
pub mod sms;
pub mod sms_text;
pub mod webhooks;
