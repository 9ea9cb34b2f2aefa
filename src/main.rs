//! The `memspec` command. Everything it does is in the library; `cli` parses the command line,
//! prints, and maps outcomes to the exit codes documented in the README and in `cli`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
