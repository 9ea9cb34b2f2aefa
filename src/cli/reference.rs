//! `call`: one tool input against the reference, for quick manual use (`serve` is in the
//! dispatch, it needs nothing but the library).

use std::io::{self, Write};
use std::process::ExitCode;

use super::{EXIT_INTERNAL, EXIT_NOT_CONFORMANT, EXIT_USAGE, fail, write_failed};

pub(crate) fn call(
    input: &str,
    memories: &std::path::Path,
    json: bool,
    revision: memspec::spec::Revision,
) -> ExitCode {
    let value: serde_json::Value = match serde_json::from_str(input) {
        Ok(value) => value,
        Err(e) => return fail(EXIT_USAGE, &format!("the input is not valid JSON: {e}")),
    };
    let reference = match memspec::reference::Reference::open_as(memories, revision) {
        Ok(reference) => reference,
        Err(e) => return fail(EXIT_INTERNAL, &e),
    };
    let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let written = if json {
        let result = reference.call(&value);
        let reply = serde_json::json!({"content": result.text, "is_error": result.is_error});
        writeln!(out, "{reply}").map(|()| result.is_error)
    } else {
        // Written as it is made: a 999,999-line view is never one 48 MB string.
        reference
            .call_to(&value, &mut out)
            .and_then(|is_error| out.write_all(b"\n").map(|()| is_error))
    };
    let is_error = match written.and_then(|is_error| out.flush().map(|()| is_error)) {
        Ok(is_error) => is_error,
        Err(e) => return write_failed(&"the result", &e),
    };
    if is_error {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}
