pub mod assets;
pub mod console;
pub mod console_documents;
pub mod documents;
pub mod files;
pub mod health;
pub mod openapi;
pub mod signing;
