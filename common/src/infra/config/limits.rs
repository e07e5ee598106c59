//! Bounds on the work untrusted input can cause; each is described in docs/security.md.

use std::{path::PathBuf, time::Duration};

use serde::Deserialize;

use super::{
    de,
    vars::{ConfigError, Vars},
};

/// Bounds on the work untrusted input can cause; each is described in docs/security.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// PDF_MAX_INFLATED_MIB and PDF_MAX_INSPECT_SECS.
    pub pdf: signet_pdf::Limits,
    /// UPLOAD_CONCURRENCY: PDF uploads read and inspected at once, over all accounts.
    pub upload_concurrency: usize,
    /// UPLOAD_CONCURRENCY_PER_ACCOUNT.
    pub upload_concurrency_per_account: usize,
    /// ROW_CHECK_CONCURRENCY: bulk sends' rows read and checked at once, over all accounts
    /// (one per account); also the threads they are checked on.
    pub row_check_concurrency: usize,
    /// SIGN_IN_HASH_CONCURRENCY: password hashes computed at once (default: the CPU count).
    pub sign_in_hash_concurrency: usize,
    /// SIGN_IN_HASH_QUEUE: sign-ins that may wait for a hashing slot; more are refused.
    pub sign_in_hash_queue: usize,
    /// SIGN_IN_FREE_FAILURES: failed sign-ins for one e-mail address from one source before
    /// each further attempt must wait.
    pub sign_in_free_failures: i32,
    /// SIGN_IN_SOURCE_FREE_FAILURES: failed sign-ins from one source, whatever the address.
    pub sign_in_source_free_failures: i32,
    /// SIGN_IN_FIRST_DELAY_SECS: the first wait once the free failures are used up; it doubles
    /// with each further failure, up to 15 minutes.
    pub sign_in_first_delay_secs: i32,
    /// The child processes untrusted PDFs are parsed in.
    pub pdf_sandbox: SandboxSettings,
    /// The public `/verify` page's own admission.
    pub verify: VerifyLimits,
    /// ATTACHMENT_MAX_MIB: the largest file a signer may attach to an ATTACHMENT field.
    pub attachment_max_bytes: usize,
}

/// The PDF sandbox (`infra::pdf_sandbox`): its children's limits, set by the OS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// PDF_SANDBOX_PROGRAM: the binary started as a child (default: the running one).
    pub program: Option<PathBuf>,
    /// PDF_SANDBOX_MEMORY_MIB: each child's address space (RLIMIT_AS).
    pub memory_mib: u64,
    /// PDF_SANDBOX_CHILDREN: children at once per process.
    pub children: usize,
    /// PDF_SANDBOX_RENDER_SECS: the deadline of a final PDF's rendering (reading an upload or
    /// a file to verify has PDF_MAX_INSPECT_SECS).
    pub render_time: Duration,
}

/// `/verify` takes files from anyone: how many it checks at once and from one client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyLimits {
    /// VERIFY_CONCURRENCY: files checked at once, over all clients; none wait.
    pub concurrency: usize,
    /// VERIFY_PER_CLIENT_PER_MINUTE: checks one client (IP address, or the /64 of an IPv6
    /// one) may start per minute.
    pub per_client_per_minute: u32,
    /// VERIFY_MAX_MIB: the largest file it takes.
    pub max_bytes: usize,
}

/// The variables as set; values past a bound are taken as the bound when the limits are built.
#[derive(Deserialize)]
#[serde(default)]
struct LimitVars {
    #[serde(rename = "PDF_MAX_INFLATED_MIB", deserialize_with = "de::positive")]
    pdf_max_inflated_mib: u64,
    #[serde(
        rename = "PDF_MAX_INSPECT_SECS",
        deserialize_with = "de::positive_secs"
    )]
    pdf_max_inspect: Duration,
    #[serde(rename = "UPLOAD_CONCURRENCY", deserialize_with = "de::positive_usize")]
    upload_concurrency: usize,
    #[serde(
        rename = "UPLOAD_CONCURRENCY_PER_ACCOUNT",
        deserialize_with = "de::positive_usize"
    )]
    upload_concurrency_per_account: usize,
    #[serde(
        rename = "ROW_CHECK_CONCURRENCY",
        deserialize_with = "de::positive_usize"
    )]
    row_check_concurrency: usize,
    #[serde(
        rename = "SIGN_IN_HASH_CONCURRENCY",
        deserialize_with = "de::positive_usize"
    )]
    sign_in_hash_concurrency: usize,
    #[serde(rename = "SIGN_IN_HASH_QUEUE", deserialize_with = "de::parsed")]
    sign_in_hash_queue: usize,
    #[serde(rename = "SIGN_IN_FREE_FAILURES", deserialize_with = "de::positive")]
    sign_in_free_failures: u64,
    #[serde(
        rename = "SIGN_IN_SOURCE_FREE_FAILURES",
        deserialize_with = "de::positive"
    )]
    sign_in_source_free_failures: u64,
    #[serde(rename = "SIGN_IN_FIRST_DELAY_SECS", deserialize_with = "de::positive")]
    sign_in_first_delay_secs: u64,
    #[serde(rename = "PDF_SANDBOX_PROGRAM", deserialize_with = "de::some")]
    sandbox_program: Option<PathBuf>,
    #[serde(rename = "PDF_SANDBOX_MEMORY_MIB", deserialize_with = "de::positive")]
    sandbox_memory_mib: u64,
    #[serde(
        rename = "PDF_SANDBOX_CHILDREN",
        deserialize_with = "de::positive_usize"
    )]
    sandbox_children: usize,
    #[serde(
        rename = "PDF_SANDBOX_RENDER_SECS",
        deserialize_with = "de::positive_secs"
    )]
    sandbox_render_time: Duration,
    #[serde(rename = "VERIFY_CONCURRENCY", deserialize_with = "de::positive_usize")]
    verify_concurrency: usize,
    #[serde(
        rename = "VERIFY_PER_CLIENT_PER_MINUTE",
        deserialize_with = "de::positive_u32"
    )]
    verify_per_client_per_minute: u32,
    #[serde(rename = "VERIFY_MAX_MIB", deserialize_with = "de::positive")]
    verify_max_mib: u64,
    #[serde(rename = "ATTACHMENT_MAX_MIB", deserialize_with = "de::positive")]
    attachment_max_mib: u64,
}

impl Default for LimitVars {
    fn default() -> Self {
        Self {
            pdf_max_inflated_mib: 64,
            pdf_max_inspect: Duration::from_secs(10),
            upload_concurrency: 2,
            upload_concurrency_per_account: 1,
            row_check_concurrency: 2,
            sign_in_hash_concurrency: std::thread::available_parallelism().map_or(2, usize::from),
            sign_in_hash_queue: 16,
            sign_in_free_failures: 5,
            sign_in_source_free_failures: 20,
            sign_in_first_delay_secs: 1,
            sandbox_program: None,
            sandbox_memory_mib: 1024,
            sandbox_children: 2,
            sandbox_render_time: Duration::from_secs(120),
            verify_concurrency: 2,
            verify_per_client_per_minute: 10,
            verify_max_mib: 25,
            attachment_max_mib: 10,
        }
    }
}

const MIB: usize = 1024 * 1024;

impl Limits {
    pub(super) fn load(vars: &Vars) -> Result<Self, ConfigError> {
        let v: LimitVars = vars.load()?;
        Ok(Self {
            pdf: signet_pdf::Limits {
                max_inflated_bytes: v.pdf_max_inflated_mib.min(4096) as usize * MIB,
                max_time: v.pdf_max_inspect,
            },
            upload_concurrency: v.upload_concurrency,
            upload_concurrency_per_account: v.upload_concurrency_per_account,
            row_check_concurrency: v.row_check_concurrency.min(64),
            sign_in_hash_concurrency: v.sign_in_hash_concurrency,
            sign_in_hash_queue: v.sign_in_hash_queue,
            sign_in_free_failures: v.sign_in_free_failures.min(1000) as i32,
            sign_in_source_free_failures: v.sign_in_source_free_failures.min(1_000_000) as i32,
            sign_in_first_delay_secs: v.sign_in_first_delay_secs.min(900) as i32,
            pdf_sandbox: SandboxSettings {
                program: v.sandbox_program,
                // Less than that and a child cannot even map the binary and its heap.
                memory_mib: v.sandbox_memory_mib.clamp(256, 64 * 1024),
                children: v.sandbox_children,
                render_time: v.sandbox_render_time,
            },
            verify: VerifyLimits {
                concurrency: v.verify_concurrency,
                per_client_per_minute: v.verify_per_client_per_minute,
                max_bytes: v
                    .verify_max_mib
                    .min((signet_pdf::sandbox::MAX_PAYLOAD_BYTES / MIB) as u64)
                    as usize
                    * MIB,
            },
            // A document's attachments together travel to the rendering within its bound.
            attachment_max_bytes: v
                .attachment_max_mib
                .min((signet_pdf::sandbox::MAX_ATTACHMENT_BYTES / MIB) as u64)
                as usize
                * MIB,
        })
    }
}
