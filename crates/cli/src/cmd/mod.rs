//! One file per subcommand.

pub(crate) mod build;
pub(crate) mod diff;
pub(crate) mod panel;
pub(crate) mod publish;
pub(crate) mod serve;
pub(crate) mod validate;

/// The exit code of a checking command (`validate`, `diff`): its own on success; on an error
/// (usage, a file that cannot be read), the error on one line and 2.
pub(crate) fn exit_code(result: anyhow::Result<std::process::ExitCode>) -> std::process::ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("eggcat: error: {}", crate::errors::one_line(&e));
        std::process::ExitCode::from(2)
    })
}
