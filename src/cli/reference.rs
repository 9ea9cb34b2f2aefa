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
        return write_failed(&"the result", &e);
    }
    if result.is_error {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}
