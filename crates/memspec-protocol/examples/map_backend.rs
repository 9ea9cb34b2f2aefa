//! A complete backend of Claude's memory tool that keeps its memories in an in-memory map, served
//! over memspec's protocol v1 with `memspec-protocol`. It passes the whole suite with `--strict`:
//!
//! ```sh
//! cargo build -p memspec-protocol --example map_backend
//! memspec check --backend 'target/debug/examples/map_backend' --not-on-folder --strict
//! ```
//!
//! `--not-on-folder`: the memories live in this process, not in the folder memspec prepares, so
//! memspec reads them back through the backend's own `view`. `main` and the `MemoryHandler`
//! impl are all the protocol needs; the rest is the store.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use memspec_protocol::{MemoryHandler, ServeError, ToolResult, serve_stdio};
use serde_json::Value;

fn main() -> Result<(), ServeError> {
    serve_stdio(&mut MapStore::default())
}

impl MemoryHandler for MapStore {
    fn call(&mut self, input: &Value) -> ToolResult {
        self.handle(input).into()
    }

    fn reset(&mut self) -> Result<(), String> {
        *self = MapStore::default();
        Ok(())
    }

    fn name(&self) -> String {
        "map_backend (memspec-protocol example)".to_string()
    }
}

// ------------------------------------------------------------------------------------ the store

/// The memories: a tree of folders and text files below `/memories`.
#[derive(Default)]
struct MapStore {
    root: Folder,
}

type Folder = BTreeMap<String, Node>;

enum Node {
    File(String),
    Folder(Folder),
}

/// What a tool call answers: `Ok(text)` or `Err(text)` (`is_error: true`).
type Answer = Result<String, String>;

const ROOT: &str = "/memories";
const MAX_LINES: usize = 999_999;

impl MapStore {
    fn handle(&mut self, input: &Value) -> Answer {
        let Value::Object(fields) = input else {
            return Err(format!(
                "Error: The tool input must be a JSON object, got {}.",
                json_type(input)
            ));
        };
        let command = match fields.get("command") {
            Some(Value::String(command)) => command.as_str(),
            Some(other) => {
                return Err(format!(
                    "Error: Parameter `command` must be a string, got {}.",
                    json_type(other)
                ));
            }
            None => return Err("Error: Missing required parameter `command`.".to_string()),
        };
        let f = Fields { input, command };
        match command {
            "view" => self.view(&f.string("path")?, f.view_range()?),
            "create" => self.create(&f.string("path")?, &f.string("file_text")?),
            "str_replace" => {
                let new = f.optional_string("new_str")?.unwrap_or_default();
                self.str_replace(&f.string("path")?, &f.string("old_str")?, &new)
            }
            "insert" => {
                let line = f.integer("insert_line")?;
                self.insert(&f.string("path")?, line, &f.string("insert_text")?)
            }
            "delete" => self.delete(&f.string("path")?),
            "rename" => self.rename(&f.string("old_path")?, &f.string("new_path")?),
            other => Err(format!(
                "Error: Unknown command `{other}`. Valid commands are: view, create, str_replace, insert, delete, rename."
            )),
        }
    }

    fn view(&self, spelled: &str, range: Option<(i128, i128)>) -> Answer {
        let path = Path::parse(spelled)?;
        match self.find(&path) {
            None => Err(format!(
                "The path {spelled} does not exist. Please provide a valid path."
            )),
            Some(Entry::Folder(_)) if range.is_some() => Err(
                "Error: The `view_range` parameter is not allowed when `path` points to a directory."
                    .to_string(),
            ),
            Some(Entry::Folder(folder)) => Ok(listing(spelled, &path.canonical(), folder)),
            Some(Entry::File(text)) => view_file(spelled, text, range),
        }
    }

    fn create(&mut self, spelled: &str, text: &str) -> Answer {
        let path = Path::parse(spelled)?;
        let Some((name, parents)) = path.parts.split_last() else {
            return Err(format!("Error: File {spelled} already exists"));
        };
        if path.trailing {
            return Err(format!(
                "Error: The path {spelled} ends with a slash; create makes files, not folders."
            ));
        }
        let folder = self.folder_mut(parents, true).map_err(|at| {
            format!(
                "Error: Cannot create {spelled}: {} is not a folder.",
                path.prefix(at)
            )
        })?;
        if folder.contains_key(*name) {
            return Err(format!("Error: File {spelled} already exists"));
        }
        folder.insert(name.to_string(), Node::File(text.to_string()));
        Ok(format!("File created successfully at: {spelled}"))
    }

    fn str_replace(&mut self, spelled: &str, old: &str, new: &str) -> Answer {
        let path = Path::parse(spelled)?;
        let missing =
            format!("Error: The path {spelled} does not exist. Please provide a valid path.");
        let text = self.file_mut(&path).ok_or(missing)?;
        if old.is_empty() {
            return Err(format!(
                "Error: No replacement was performed on {spelled}: `old_str` must not be empty."
            ));
        }
        // Every occurrence, overlapping ones included.
        let mut found = Vec::new();
        let mut from = 0;
        while let Some(at) = text[from..].find(old).map(|i| from + i) {
            found.push(at);
            from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        }
        let at = match found.as_slice() {
            [] => {
                return Err(format!(
                    "No replacement was performed, old_str `{old}` did not appear verbatim in {spelled}."
                ));
            }
            [at] => *at,
            _ => {
                let mut lines: Vec<usize> = found.iter().map(|&at| line_of(text, at)).collect();
                lines.dedup();
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                return Err(format!(
                    "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {}. Please ensure it is unique",
                    lines.join(", ")
                ));
            }
        };
        text.replace_range(at..at + old.len(), new);
        let first = line_of(text, at);
        let last = first + new.matches('\n').count();
        let lines = lines(text);
        let (low, high) = (first.saturating_sub(4).max(1), (last + 4).min(lines.len()));
        let snippet = lines.get(low - 1..high).unwrap_or_default();
        Ok(format!(
            "The memory file has been edited.{}",
            numbered(snippet, low)
        ))
    }

    fn insert(&mut self, spelled: &str, line: i128, new: &str) -> Answer {
        let path = Path::parse(spelled)?;
        let missing = format!("Error: The path {spelled} does not exist");
        let text = self.file_mut(&path).ok_or(missing)?;
        let count = lines(text).len();
        let Some(line) = usize::try_from(line).ok().filter(|&l| l <= count) else {
            return Err(format!(
                "Error: Invalid `insert_line` parameter: {line}. It should be within the range of lines of the file: [0, {count}]"
            ));
        };
        // Whole lines go in after line `line`: the byte where line `line + 1` starts.
        let split = match line {
            0 => 0,
            _ => text
                .match_indices('\n')
                .nth(line - 1)
                .map_or(text.len(), |(i, _)| i + 1),
        };
        let mut added = String::new();
        if split > 0 && !text[..split].ends_with('\n') && !new.is_empty() {
            added.push('\n');
        }
        added.push_str(new);
        if !new.is_empty() && !new.ends_with('\n') && split < text.len() {
            added.push('\n');
        }
        text.insert_str(split, &added);
        Ok(format!("The file {spelled} has been edited."))
    }

    fn delete(&mut self, spelled: &str) -> Answer {
        let path = Path::parse(spelled)?;
        let Some((name, parents)) = path.parts.split_last() else {
            return Err("Error: Cannot delete the /memories directory itself".to_string());
        };
        if self.find(&path).is_none() {
            return Err(format!("Error: The path {spelled} does not exist"));
        }
        if let Ok(folder) = self.folder_mut(parents, false) {
            folder.remove(*name);
        }
        Ok(format!("Successfully deleted {spelled}"))
    }

    fn rename(&mut self, old_spelled: &str, new_spelled: &str) -> Answer {
        let (old, new) = (Path::parse(old_spelled)?, Path::parse(new_spelled)?);
        let Some((old_name, old_parents)) = old.parts.split_last() else {
            return Err("Error: Cannot rename the /memories directory itself".to_string());
        };
        let is_folder = match self.find(&old) {
            None => return Err(format!("Error: The path {old_spelled} does not exist")),
            Some(entry) => matches!(entry, Entry::Folder(_)),
        };
        let exists = format!("Error: The destination {new_spelled} already exists");
        let Some((new_name, new_parents)) = new.parts.split_last() else {
            return Err(exists);
        };
        if new.trailing && !is_folder {
            return Err(format!(
                "Error: Cannot rename {old_spelled} to {new_spelled}: the destination ends with a slash, which names a folder, and {old_spelled} is a file."
            ));
        }
        let not_a_folder = |at: usize| {
            format!(
                "Error: Cannot rename to {new_spelled}: {} is not a folder.",
                new.prefix(at)
            )
        };
        match self.walk(new_parents) {
            Walk::Folder(folder) if folder.contains_key(*new_name) => return Err(exists),
            Walk::NotAFolder(at) => return Err(not_a_folder(at)),
            _ => {}
        }
        if is_folder && new.parts.starts_with(&old.parts) {
            return Err(format!(
                "Error: Cannot move {old_spelled} into itself ({new_spelled})."
            ));
        }
        self.folder_mut(new_parents, true).map_err(not_a_folder)?;
        let node = self
            .folder_mut(old_parents, false)
            .ok()
            .and_then(|folder| folder.remove(*old_name));
        if let (Some(node), Ok(folder)) = (node, self.folder_mut(new_parents, false)) {
            folder.insert(new_name.to_string(), node);
        }
        Ok(format!(
            "Successfully renamed {old_spelled} to {new_spelled}"
        ))
    }

    /// What `path` names: a trailing slash names a folder only.
    fn find(&self, path: &Path) -> Option<Entry<'_>> {
        let Some((name, parents)) = path.parts.split_last() else {
            return Some(Entry::Folder(&self.root));
        };
        let Walk::Folder(folder) = self.walk(parents) else {
            return None;
        };
        match folder.get(*name)? {
            Node::File(text) if !path.trailing => Some(Entry::File(text)),
            Node::File(_) => None,
            Node::Folder(inner) => Some(Entry::Folder(inner)),
        }
    }

    /// The text of the file `path` names, to edit.
    fn file_mut(&mut self, path: &Path) -> Option<&mut String> {
        let (name, parents) = path.parts.split_last()?;
        match self.folder_mut(parents, false).ok()?.get_mut(*name)? {
            Node::File(text) if !path.trailing => Some(text),
            _ => None,
        }
    }

    fn walk(&self, parts: &[&str]) -> Walk<'_> {
        let mut folder = &self.root;
        for (i, part) in parts.iter().enumerate() {
            folder = match folder.get(*part) {
                Some(Node::Folder(inner)) => inner,
                Some(Node::File(_)) => return Walk::NotAFolder(i + 1),
                None => return Walk::Missing,
            };
        }
        Walk::Folder(folder)
    }

    /// The folder `parts` names, made with its parents when `make`; `Err(n)` when the first
    /// `n` parts name a file (or nothing, without `make`).
    fn folder_mut(&mut self, parts: &[&str], make: bool) -> Result<&mut Folder, usize> {
        let mut folder = &mut self.root;
        for (i, part) in parts.iter().enumerate() {
            if make && !folder.contains_key(*part) {
                folder.insert(part.to_string(), Node::Folder(Folder::new()));
            }
            folder = match folder.get_mut(*part) {
                Some(Node::Folder(inner)) => inner,
                _ => return Err(i + 1),
            };
        }
        Ok(folder)
    }
}

enum Entry<'a> {
    File(&'a str),
    Folder(&'a Folder),
}

enum Walk<'a> {
    Folder(&'a Folder),
    NotAFolder(usize),
    Missing,
}

// ------------------------------------------------------------------------------------- paths

/// A memory path, checked: `/memories` or below, without `.` or `..` segments (also spelled
/// with percent escapes), backslashes or control characters.
struct Path<'a> {
    parts: Vec<&'a str>,
    trailing: bool,
}

impl<'a> Path<'a> {
    fn parse(spelled: &'a str) -> Result<Path<'a>, String> {
        let invalid = |why: &str| {
            Err(format!(
                "Error: The path {} is not a valid memory path: {why}.",
                printable(spelled)
            ))
        };
        if spelled.chars().any(char::is_control) {
            return invalid("control characters such as NUL are not allowed");
        }
        if spelled.contains('\\') {
            return invalid("backslashes are not allowed");
        }
        if spelled.len() > 4096 {
            return invalid("it is longer than 4096 bytes");
        }
        let Some(rest) = spelled.strip_prefix(ROOT) else {
            return invalid("memory paths must be /memories or start with /memories/");
        };
        if !rest.is_empty() && !rest.starts_with('/') {
            return invalid("memory paths must be /memories or start with /memories/");
        }
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        for part in &parts {
            if matches!(*part, "." | "..") {
                return invalid("`.` and `..` segments are not allowed");
            }
            if part.len() > 255 {
                return invalid("a path segment is longer than 255 bytes");
            }
            if percent_decodes_to_traversal(part) {
                return invalid(
                    "percent-encoded dots, slashes, backslashes and NUL are not allowed",
                );
            }
        }
        Ok(Path {
            parts,
            trailing: rest.len() > 1 && rest.ends_with('/'),
        })
    }

    /// `/memories` and the first `n` parts.
    fn prefix(&self, n: usize) -> String {
        self.parts[..n.min(self.parts.len())]
            .iter()
            .fold(ROOT.to_string(), |path, part| format!("{path}/{part}"))
    }

    fn canonical(&self) -> String {
        self.prefix(self.parts.len())
    }
}

/// The path with its control characters escaped (`\n`, `\u{0}`), so that an answer never
/// carries them raw.
fn printable(spelled: &str) -> String {
    spelled
        .chars()
        .map(|c| match c {
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Whether decoding `%XX` escapes (up to three times: `%252e`) makes a `.`/`..` segment or a
/// slash, backslash or NUL.
fn percent_decodes_to_traversal(part: &str) -> bool {
    let mut bytes = part.as_bytes().to_vec();
    for _ in 0..3 {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex
                .filter(|_| bytes[i] == b'%')
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(byte) => {
                    out.push(byte);
                    i += 3;
                }
                None => {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
        }
        if out == bytes {
            return false;
        }
        if matches!(out.as_slice(), b"." | b"..")
            || out.iter().any(|b| matches!(b, b'/' | b'\\' | 0))
        {
            return true;
        }
        bytes = out;
    }
    false
}

// ------------------------------------------------------------------------------------ output

fn view_file(spelled: &str, text: &str, range: Option<(i128, i128)>) -> Answer {
    let lines = lines(text);
    let n = lines.len();
    if n > MAX_LINES {
        return Err(format!(
            "File {spelled} exceeds maximum line limit of 999,999 lines."
        ));
    }
    let (first, last) = match range {
        None => (1, n),
        Some((a, b)) => {
            let bad = |why: String| Err(format!("Error: Invalid `view_range`: [{a}, {b}]. {why}"));
            if a < 1 || a > n as i128 {
                return bad(format!(
                    "Its first element `{a}` should be within the range of lines of the file: [1, {n}]"
                ));
            }
            if b > n as i128 {
                return bad(format!(
                    "Its second element `{b}` should be smaller than the number of lines in the file: `{n}`"
                ));
            }
            if b != -1 && b < a {
                return bad(format!(
                    "Its second element `{b}` should be larger or equal than its first `{a}`"
                ));
            }
            (a as usize, if b == -1 { n } else { b as usize })
        }
    };
    let shown = lines.get(first.saturating_sub(1)..last).unwrap_or_default();
    Ok(format!(
        "Here's the content of {spelled} with line numbers:{}",
        numbered(shown, first)
    ))
}

/// The folder's listing, two levels deep, without hidden items and `node_modules`.
fn listing(spelled: &str, canonical: &str, folder: &Folder) -> String {
    let mut out = format!(
        "Here're the files and directories up to 2 levels deep in {spelled}, excluding hidden items and node_modules:\n{}\t{canonical}",
        human_size(size(folder))
    );
    for (name, node) in visible(folder) {
        match node {
            Node::File(text) => out += &format!("\n{}\t{canonical}/{name}", human_size(text.len())),
            Node::Folder(inner) => {
                out += &format!("\n{}\t{canonical}/{name}/", human_size(size(inner)));
                for (name2, node2) in visible(inner) {
                    let (bytes, mark) = match node2 {
                        Node::File(text) => (text.len(), ""),
                        Node::Folder(deeper) => (size(deeper), "/"),
                    };
                    out += &format!("\n{}\t{canonical}/{name}/{name2}{mark}", human_size(bytes));
                }
            }
        }
    }
    out
}

fn visible(folder: &Folder) -> impl Iterator<Item = (&String, &Node)> {
    folder
        .iter()
        .filter(|(name, _)| !name.starts_with('.') && name.as_str() != "node_modules")
}

/// The bytes of the visible files below a folder.
fn size(folder: &Folder) -> usize {
    visible(folder)
        .map(|(_, node)| match node {
            Node::File(text) => text.len(),
            Node::Folder(inner) => size(inner),
        })
        .sum()
}

/// `ls -h` style: `512B`, `1.5K`, `1.2M`.
fn human_size(bytes: usize) -> String {
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1023.95 && unit < 5 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1}{}", ["K", "M", "G", "T", "P", "E"][unit])
}

/// The file's lines: a final newline ends the last line, it does not start another.
fn lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect()
}

/// The line (from 1) the byte `at` is on.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// `\n{number:>6}\t{line}` for each line, numbered from `first`.
fn numbered(lines: &[&str], first: usize) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 8).sum());
    for (number, line) in (first..).zip(lines) {
        // Writing to a String cannot fail.
        let _ = write!(out, "\n{number:>6}\t{line}");
    }
    out
}

// ------------------------------------------------------------------------------------ inputs

/// The tool input's fields, read with the errors Claude needs to fix its call.
struct Fields<'a> {
    input: &'a Value,
    command: &'a str,
}

impl Fields<'_> {
    fn required(&self, name: &str) -> Result<&Value, String> {
        self.input.get(name).ok_or_else(|| {
            format!(
                "Error: Missing required parameter `{name}` for command `{}`.",
                self.command
            )
        })
    }

    fn string(&self, name: &str) -> Result<String, String> {
        match self.required(name)? {
            Value::String(text) => Ok(text.clone()),
            other => Err(wrong_type(name, "a string", other)),
        }
    }

    fn optional_string(&self, name: &str) -> Result<Option<String>, String> {
        match self.input.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(wrong_type(name, "a string", other)),
        }
    }

    fn integer(&self, name: &str) -> Result<i128, String> {
        let value = self.required(name)?;
        integer(value).ok_or_else(|| wrong_type(name, "an integer", value))
    }

    fn view_range(&self) -> Result<Option<(i128, i128)>, String> {
        match self.input.get("view_range") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(pair)) => match pair.as_slice() {
                [a, b] => match (integer(a), integer(b)) {
                    (Some(a), Some(b)) => Ok(Some((a, b))),
                    _ => Err(INVALID_RANGE.to_string()),
                },
                _ => Err(INVALID_RANGE.to_string()),
            },
            Some(_) => Err(INVALID_RANGE.to_string()),
        }
    }
}

const INVALID_RANGE: &str = "Error: Invalid `view_range`. It should be a list of two integers.";

fn integer(value: &Value) -> Option<i128> {
    value
        .as_i64()
        .map(i128::from)
        .or_else(|| value.as_u64().map(i128::from))
}

fn wrong_type(name: &str, expected: &str, got: &Value) -> String {
    format!(
        "Error: Parameter `{name}` must be {expected}, got {}.",
        json_type(got)
    )
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a non-integer number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
