//! The PDF sandbox: every untrusted PDF is parsed in a child process that the OS bounds.
//!
//! lopdf can be made to spend ~100 bytes of heap per byte of a file's inflated content, to
//! recurse, or to loop; in-process budgets (signet_pdf's inflation, value and time budgets)
//! are a first line, but a bug or an amplification they do not foresee would still take the
//! whole API or worker down. So uploads, `/verify` and completion hand the file to a child: the
//! running binary again (or `PDF_SANDBOX_PROGRAM`), started with [`CHILD_ARG`], which first
//! limits its own address space (`RLIMIT_AS`, `PDF_SANDBOX_MEMORY_MIB`) and CPU time
//! (`RLIMIT_CPU`), then reads one task from stdin and answers on stdout
//! (`signet_pdf::sandbox`). The parent kills it at its deadline and always waits for it, so a
//! child's slot is given back only once the child is gone, never while it still runs; at most
//! `PDF_SANDBOX_CHILDREN` run at once per process. The child gets no environment (no secrets)
//! and no file descriptors but its three pipes.

use std::{
    path::PathBuf,
    process::{ExitCode, ExitStatus, Stdio},
    sync::Arc,
    time::Duration,
};

use chrono::{DateTime, Utc};
use signet_pdf::sandbox::{self as protocol, Answer, Rendered, Task};
use signet_pdf::{
    Certificate, EmbeddedFile, FormError, ImageError, ImageKind, ImageSize, InspectedPdf, PdfError,
    StampField, TakenTags, TextBox,
    seal::{SealReport, Unverified, ValidationData},
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    sync::Semaphore,
};
use tracing::Instrument;

use crate::infra::config::SandboxSettings;

/// The first argument that makes a Signet binary a sandbox child: `<program> CHILD_ARG
/// <memory MiB> <CPU seconds>`.
pub const CHILD_ARG: &str = "__signet-pdf-sandbox";

/// How much of a child's complaint is kept for the log.
const MAX_STDERR_BYTES: u64 = 4096;
/// A child's wall-clock deadline, in multiples of its CPU-time limit.
const WALL_CLOCK_FACTOR: u64 = 2;

/// If this process was started as a sandbox child, does the child's work and says how it
/// ended; otherwise `None`.
fn child_if_asked() -> Option<ExitCode> {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() != Some(CHILD_ARG) {
        return None;
    }
    let mut number = || args.next().and_then(|arg| arg.parse::<u64>().ok());
    let (Some(memory_mib), Some(cpu_secs)) = (number(), number()) else {
        eprintln!("usage: {CHILD_ARG} <memory MiB> <CPU seconds>");
        return Some(ExitCode::from(64));
    };
    if let Err(e) = confine(memory_mib, cpu_secs) {
        eprintln!("the sandbox's limits cannot be set: {e}");
        return Some(ExitCode::from(71));
    }
    let served = protocol::serve(std::io::stdin().lock(), std::io::stdout().lock());
    Some(match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("the sandbox's pipes failed: {e}");
            ExitCode::FAILURE
        }
    })
}

/// A binary's `main`: the sandbox child's work if it was started as one, else `run` on a new
/// async runtime. The child needs no runtime and never reads the configuration.
pub fn main_unless_child<F: std::future::Future<Output = ExitCode>>(
    run: impl FnOnce() -> F,
) -> ExitCode {
    if let Some(exit) = child_if_asked() {
        return exit;
    }
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The limits a child sets on itself before it reads anything.
fn confine(memory_mib: u64, cpu_secs: u64) -> nix::Result<()> {
    use nix::sys::resource::{Resource, setrlimit};
    let memory = memory_mib * 1024 * 1024;
    setrlimit(Resource::RLIMIT_AS, memory, memory)?;
    // SIGXCPU at the soft limit, SIGKILL a second later.
    setrlimit(Resource::RLIMIT_CPU, cpu_secs, cpu_secs + 1)?;
    // It writes to its pipes only, and leaves no core file of its address space.
    setrlimit(Resource::RLIMIT_FSIZE, 0, 0)?;
    setrlimit(Resource::RLIMIT_CORE, 0, 0)?;
    setrlimit(Resource::RLIMIT_NOFILE, 16, 16)?;
    Ok(())
}

/// Starts sandbox children for one process's PDF work.
#[derive(Debug, Clone)]
pub struct PdfSandbox {
    program: PathBuf,
    memory_mib: u64,
    render_time: Duration,
    limits: signet_pdf::Limits,
    children: Arc<Semaphore>,
}

/// Why a child gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the PDF takes longer than {0} seconds to read")]
    TooSlow(u64),
    #[error("the PDF needs more than {0} MiB of memory to read")]
    TooMuchMemory(u64),
    #[error("the PDF parser failed on it")]
    Crashed,
    #[error("the PDF sandbox could not be run: {0}")]
    Unavailable(String),
}

impl From<SandboxError> for PdfError {
    fn from(error: SandboxError) -> Self {
        match error {
            SandboxError::TooSlow(secs) => PdfError::TooSlow(secs),
            SandboxError::TooMuchMemory(mib) => PdfError::TooMuchMemory(mib as usize),
            SandboxError::Crashed => PdfError::Corrupt("the PDF parser failed on it".into()),
            // Not the file's fault; but the file could not be checked, so it is not taken.
            SandboxError::Unavailable(reason) => PdfError::Corrupt(reason),
        }
    }
}

impl PdfSandbox {
    pub fn new(settings: &SandboxSettings, limits: signet_pdf::Limits) -> std::io::Result<Self> {
        let program = match &settings.program {
            Some(program) => program.clone(),
            None => std::env::current_exe()?,
        };
        Ok(Self {
            program,
            memory_mib: settings.memory_mib,
            render_time: settings.render_time,
            limits,
            children: Arc::new(Semaphore::new(settings.children.max(1))),
        })
    }

    /// The upload's checks ([`signet_pdf::inspect_with`]) in a child. `hold` is kept until the
    /// child is gone, even if the caller stops waiting.
    pub async fn inspect(
        &self,
        pdf: &[u8],
        hold: impl Send + 'static,
    ) -> Result<InspectedPdf, PdfError> {
        let task = Task::Inspect {
            limits: self.limits,
        };
        match self.run(task, pdf, self.limits.max_time, hold).await? {
            (Answer::Inspected(inspected), _) => inspected,
            (other, _) => Err(unexpected(other).into()),
        }
    }

    /// The upload's checks and the seal's ([`signet_pdf::seal::check_file`]) in a child.
    pub async fn verify(
        &self,
        pdf: &[u8],
        anchors_pem: String,
        hold: impl Send + 'static,
    ) -> Result<SealReport, Unverified> {
        let task = Task::Verify {
            limits: self.limits,
            anchors_pem,
        };
        match self.run(task, pdf, self.limits.max_time, hold).await {
            Ok((Answer::Verified(report), _)) => report,
            Ok((other, _)) => Err(Unverified::Unreadable(unexpected(other).into())),
            Err(e) => Err(Unverified::Unreadable(e.into())),
        }
    }

    /// Where each of `needles` is shown in `pdf` ([`signet_pdf::find_text`]), in a child.
    pub async fn find_text(
        &self,
        pdf: &[u8],
        needles: Vec<String>,
    ) -> Result<Vec<Vec<TextBox>>, PdfError> {
        let task = Task::FindText {
            limits: self.limits,
            needles,
        };
        match self.run(task, pdf, self.limits.max_time, ()).await? {
            (Answer::FoundText(found), _) => found,
            (other, _) => Err(unexpected(other).into()),
        }
    }

    /// The text tags of `pdf` and, when it has any, the file without them
    /// ([`signet_pdf::take_tags`]), in a child.
    pub async fn take_tags(
        &self,
        pdf: &[u8],
        hold: impl Send + 'static,
    ) -> Result<(TakenTags, Option<Vec<u8>>), PdfError> {
        let task = Task::TakeTags {
            limits: self.limits,
        };
        match self.run(task, pdf, self.limits.max_time, hold).await? {
            (Answer::TookTags(taken), cleaned) => {
                let taken = taken?;
                let cleaned = (!taken.tags.is_empty()).then_some(cleaned);
                Ok((taken, cleaned))
            }
            (other, _) => Err(unexpected(other).into()),
        }
    }

    /// A signer's attached image decoded whole ([`signet_pdf::check_attachment_image`]) in a
    /// child: it is a file someone else made, and decoding one of 40 megapixels takes more
    /// memory than the API keeps for a request. The outer error is the child's (out of time or
    /// memory), the inner the image's.
    pub async fn check_image(
        &self,
        image: &[u8],
        kind: ImageKind,
    ) -> Result<Result<ImageSize, ImageError>, SandboxError> {
        match self
            .run(Task::CheckImage { kind }, image, self.limits.max_time, ())
            .await?
        {
            (Answer::CheckedImage(checked), _) => Ok(checked),
            (other, _) => Err(unexpected(other)),
        }
    }

    /// The final PDF made from `original`, with `attachments` embedded, its seal's place
    /// empty, and what it records.
    pub async fn render(
        &self,
        original: &[u8],
        stamps: Vec<StampField>,
        attachments: Vec<(EmbeddedFile, bytes::Bytes)>,
        certificate: Certificate,
        reason: String,
        signing_time: DateTime<Utc>,
    ) -> Result<(Rendered, Vec<u8>), String> {
        let mut payload = original.to_vec();
        let mut files = Vec::with_capacity(attachments.len());
        for (mut file, bytes) in attachments {
            payload.extend_from_slice(&bytes);
            file.size = bytes.len();
            files.push(file);
        }
        let task = Task::Render {
            limits: self.limits,
            stamps,
            attachments: files,
            certificate,
            reason,
            signing_time,
        };
        match self.run(task, &payload, self.render_time, ()).await {
            Ok((Answer::Rendered(Ok(rendered)), bytes)) => Ok((rendered, bytes)),
            Ok((Answer::Rendered(Err(reason)), _)) => Err(reason),
            Ok((other, _)) => Err(unexpected(other).to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The PDF's own form fields, each as the JSON of a `FieldInput`
    /// ([`signet_pdf::import_form`]), read in a child.
    pub async fn import_form(&self, pdf: &[u8]) -> Result<Vec<serde_json::Value>, FormError> {
        let task = Task::ImportForm {
            limits: self.limits,
        };
        match self.run(task, pdf, self.limits.max_time, ()).await {
            Ok((Answer::FormImported(fields), _)) => fields,
            Ok((other, _)) => Err(FormError::Unreadable(unexpected(other).to_string())),
            Err(e) => Err(FormError::Unreadable(PdfError::from(e).to_string())),
        }
    }

    /// `sealed` with its long-term validation data.
    pub async fn embed(&self, sealed: &[u8], data: ValidationData) -> Result<Vec<u8>, String> {
        let task = Task::EmbedValidationData {
            limits: self.limits,
            data,
        };
        match self.run(task, sealed, self.render_time, ()).await {
            Ok((Answer::Embedded(Ok(())), bytes)) => Ok(bytes),
            Ok((Answer::Embedded(Err(reason)), _)) => Err(reason),
            Ok((other, _)) => Err(unexpected(other).to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Runs one task in a child of its own, on a task of its own: the child's slot (and
    /// `hold`) go back when the child has exited and been waited for, whether or not anyone
    /// still waits for the answer.
    async fn run(
        &self,
        task: Task,
        payload: &[u8],
        deadline: Duration,
        hold: impl Send + 'static,
    ) -> Result<(Answer, Vec<u8>), SandboxError> {
        let mut message = Vec::with_capacity(payload.len() + 1024);
        protocol::write_message(&mut message, &task, payload)
            .map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let sandbox = self.clone();
        let running = tokio::spawn(
            async move {
            let _hold = hold;
            let _slot = sandbox
                .children
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| SandboxError::Unavailable("the sandbox is closed".into()))?;
            let outcome = sandbox.child(message, deadline).await;
            metrics::counter!("signet_pdf_sandbox_children_total", "outcome" => outcome_label(&outcome))
                .increment(1);
            record_peak_rss();
            outcome
        }
            .instrument(tracing::Span::current()),
        );
        running
            .await
            .map_err(|e| SandboxError::Unavailable(format!("the sandbox's task failed: {e}")))?
    }

    async fn child(
        &self,
        message: Vec<u8>,
        deadline: Duration,
    ) -> Result<(Answer, Vec<u8>), SandboxError> {
        // The limit is the child's CPU time, which a busy machine does not stretch: a file is
        // refused for what reading it costs, not for the load beside it. The wall-clock
        // deadline, twice as long, is the backstop for a child that waits instead of working.
        let cpu_secs = deadline.as_secs().max(1);
        let backstop = Duration::from_secs(cpu_secs * WALL_CLOCK_FACTOR);
        let mut child = tokio::process::Command::new(&self.program)
            .arg(CHILD_ARG)
            .arg(self.memory_mib.to_string())
            .arg(cpu_secs.to_string())
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                SandboxError::Unavailable(format!("cannot start {}: {e}", self.program.display()))
            })?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SandboxError::Unavailable("the child has no pipes".into()));
        };
        let exchange = async {
            let write = async {
                // A child that dies early closes its end: what it says on exit tells why.
                let _ = stdin.write_all(&message).await;
                drop(stdin);
            };
            let mut answer = Vec::new();
            let mut stdout = stdout.take(8 + 64 * 1024 * 1024 + protocol::MAX_PAYLOAD_BYTES as u64);
            let read = stdout.read_to_end(&mut answer);
            let mut complaint = Vec::new();
            let mut stderr = stderr.take(MAX_STDERR_BYTES);
            let read_err = async {
                let _ = stderr.read_to_end(&mut complaint).await;
                // The rest is not kept, but read: a child blocked on a full pipe never ends.
                let _ = tokio::io::copy(&mut stderr.into_inner(), &mut tokio::io::sink()).await;
            };
            let (_, read, _) = tokio::join!(write, read, read_err);
            let status = child.wait().await;
            (read.map(|_| answer), complaint, status)
        };
        let (answer, complaint, status) = match tokio::time::timeout(backstop, exchange).await {
            Ok(finished) => finished,
            Err(_) => {
                // Killed, then waited for: its memory is free before its slot is.
                let _ = child.start_kill();
                let _ = child.wait().await;
                return Err(SandboxError::TooSlow(cpu_secs));
            }
        };
        let status = status.map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let complaint = String::from_utf8_lossy(&complaint);
        if !status.success() {
            return Err(self.failure(status, &complaint, cpu_secs));
        }
        let answer = answer.map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let (answer, made) = protocol::split_message::<Answer>(&answer)
            .map_err(|e| SandboxError::Unavailable(format!("the child's answer: {e}")))?;
        Ok((answer, made.to_vec()))
    }

    fn failure(&self, status: ExitStatus, complaint: &str, cpu_secs: u64) -> SandboxError {
        use std::os::unix::process::ExitStatusExt;
        let signal = status.signal();
        let error = if matches!(signal, Some(9) | Some(24)) {
            // SIGKILL or SIGXCPU: its CPU time ran out.
            SandboxError::TooSlow(cpu_secs)
        } else if complaint.contains("memory allocation") {
            SandboxError::TooMuchMemory(self.memory_mib)
        } else {
            SandboxError::Crashed
        };
        tracing::warn!(
            ?status,
            complaint = complaint.trim(),
            error = %error,
            "a PDF sandbox child failed"
        );
        error
    }
}

fn unexpected(answer: Answer) -> SandboxError {
    SandboxError::Unavailable(match answer {
        Answer::Refused(reason) => format!("the child refused the task: {reason}"),
        _ => "the child answered another task".into(),
    })
}

/// Every value `outcome_label` gives, for registering the counter at start.
pub const OUTCOME_LABELS: [&str; 5] = [
    "answered",
    "too_slow",
    "too_much_memory",
    "crashed",
    "unavailable",
];

fn outcome_label(outcome: &Result<(Answer, Vec<u8>), SandboxError>) -> &'static str {
    match outcome {
        Ok(_) => "answered",
        Err(SandboxError::TooSlow(_)) => "too_slow",
        Err(SandboxError::TooMuchMemory(_)) => "too_much_memory",
        Err(SandboxError::Crashed) => "crashed",
        Err(SandboxError::Unavailable(_)) => "unavailable",
    }
}

/// The largest resident size any child of this process has reached, as the kernel counts it
/// for waited-for children: `signet_pdf_sandbox_child_peak_rss_bytes`.
pub(crate) fn record_peak_rss() {
    use nix::sys::resource::{UsageWho, getrusage};
    if let Ok(usage) = getrusage(UsageWho::RUSAGE_CHILDREN) {
        // ru_maxrss is in KiB on Linux.
        metrics::gauge!("signet_pdf_sandbox_child_peak_rss_bytes")
            .set(usage.max_rss() as f64 * 1024.0);
    }
}
