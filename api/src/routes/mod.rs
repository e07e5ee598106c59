pub mod assets;
pub mod console;
pub mod documents;
pub mod files;
pub mod health;
pub mod openapi;
mod refusals;
pub mod signing;
pub mod sms;
