//! `cargo xtask`: project chores. The bench suite arrives with its issue.
fn main() {
    eprintln!("cargo xtask: no subcommands yet");
    std::process::exit(2);
}
