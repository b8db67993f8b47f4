//! `cargo xtask test`: the one test command of the README and of `.ci/run`.

use crate::run_command;

/// Options of `cargo xtask test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Skip the formatting check (for a quick local run on work in progress).
    #[arg(long)]
    no_fmt: bool,
}

/// Run every check, stopping at the first failure.
pub fn run(args: &Args) -> Result<(), String> {
    if !args.no_fmt {
        run_command("cargo", &["fmt", "--all", "--", "--check"], &[])?;
    }
    run_command("cargo", &["test", "--workspace", "--locked"], &[])?;
    Ok(())
}
