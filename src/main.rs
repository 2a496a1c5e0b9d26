//! The `roundup` command line.

mod cli;

fn main() {
    // Stop quietly when the reader of the output goes away (`roundup summary | head`), as
    // Unix tools do: Rust ignores SIGPIPE, and printing to a closed pipe would then panic.
    #[cfg(unix)]
    // SAFETY: restores a signal's default disposition at start-up, before any other thread
    // exists; no handler is installed.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(cli::main());
}
