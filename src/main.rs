//! The `memspec` command: parses arguments, calls the library, maps the outcome to an exit code.
//!
//! Exit codes (also in the README):
//! 0 success / conformant, 1 not conformant (or `call` returned an error result),
//! 2 usage error or invalid input files, 3 the backend broke, 4 internal error of the harness.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Conformance harness for backends of Claude's memory tool (memory_20250818).
#[derive(Debug, Parser)]
#[command(name = "memspec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the reference backend over protocol v1 (JSON Lines on stdin/stdout).
    Serve {
        /// Folder that /memories maps to (created if missing).
        memories: PathBuf,
    },
    /// Run one tool input against the reference backend and print the result.
    Call {
        /// The tool input as JSON, e.g. '{"command":"view","path":"/memories"}'.
        input: String,
        /// Folder that /memories maps to (created if missing).
        #[arg(long, default_value = "memories")]
        memories: PathBuf,
        /// Print the result as a protocol reply object instead of its text.
        #[arg(long)]
        json: bool,
    },
}

const EXIT_NOT_CONFORMANT: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INTERNAL: u8 = 4;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { memories } => {
            let stdin = io::stdin().lock();
            let stdout = io::BufWriter::new(io::stdout().lock());
            match memspec::serve::serve(&memories, stdin, stdout) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(EXIT_INTERNAL, &e),
            }
        }
        Command::Call {
            input,
            memories,
            json,
        } => call(&input, &memories, json),
    }
}

fn call(input: &str, memories: &std::path::Path, json: bool) -> ExitCode {
    let value: serde_json::Value = match serde_json::from_str(input) {
        Ok(value) => value,
        Err(e) => return fail(EXIT_USAGE, &format!("the input is not valid JSON: {e}")),
    };
    let reference = match memspec::reference::Reference::open(memories) {
        Ok(reference) => reference,
        Err(e) => return fail(EXIT_INTERNAL, &e),
    };
    let result = reference.call(&value);
    let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let written = if json {
        let reply = serde_json::json!({"content": result.text, "is_error": result.is_error});
        writeln!(out, "{reply}")
    } else {
        out.write_all(result.text.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return fail(EXIT_INTERNAL, &e);
    }
    if result.is_error {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}

fn fail(code: u8, error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("memspec: {error}");
    ExitCode::from(code)
}
