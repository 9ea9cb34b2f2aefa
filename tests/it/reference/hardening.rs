//! Hostile input found by the red team: bytes that are not UTF-8 and endless lines sent to
//! `serve`, a root swapped for a symlink before `reset`, a quadratic `str_replace`, trees deeper
//! than the descriptor limit, NFKC look-alikes of `/`, and trailing slashes on things that are not
//! folders.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

use memspec::serve::MAX_REQUEST_LINE;
use serde_json::{Value, json};

use super::{Sandbox, create, delete, insert, rename, str_replace, view};

fn memspec() -> Command {
    Command::new(env!("CARGO_BIN_EXE_memspec"))
}

/// `memspec serve` kept alive, one request at a time.
struct Serve {
    child: std::process::Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Serve {
    fn start(memories: &Path) -> Serve {
        let mut child = memspec()
            .arg("serve")
            .arg(memories)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn memspec serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Serve {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("write request");
        stdin.flush().expect("flush request");
    }

    fn reply(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read reply");
        assert!(line.ends_with('\n'), "serve stopped answering: {line:?}");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    fn call(&mut self, request: &Value) -> Value {
        self.send(format!("{request}\n").as_bytes());
        self.reply()
    }

    /// Peak resident memory so far, in bytes (`VmHWM`).
    fn peak_memory(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc status");
        let kib = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .expect("VmHWM in /proc status");
        kib * 1024
    }

    /// Closes stdin and returns the exit code and whatever was left on stdout.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout
            .read_to_string(&mut rest)
            .expect("read the rest");
        let status = self.child.wait().expect("wait for serve");
        (status.code(), rest)
    }
}

fn assert_protocol_error(reply: &Value, about: &str) {
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(reply["is_error"], json!(true), "{reply}");
    let content = reply["content"].as_str().unwrap_or_default();
    assert!(
        content.starts_with("Error: malformed protocol request: ") && content.contains(about),
        "{reply}"
    );
}

#[test]
fn serve_answers_a_line_that_is_not_utf8_and_keeps_serving() {
    let sb = Sandbox::new();
    let mut serve = Serve::start(&sb.mem);
    assert_eq!(
        serve.call(&json!({"id": 1, "control": "hello"}))["ok"],
        json!(true)
    );
    serve.send(
        b"{\"id\": 2, \"input\": {\"command\": \"view\", \"path\": \"/memories/\xff\xfe\"}}\n",
    );
    assert_protocol_error(&serve.reply(), "not valid UTF-8");
    serve.send(b"\xc3\n");
    assert_protocol_error(&serve.reply(), "not valid UTF-8");
    let reply = serve.call(&json!({"id": 3, "input": create("/memories/a.txt", "after\n")}));
    assert_eq!(
        reply,
        json!({"id": 3, "content": "File created successfully at: /memories/a.txt", "is_error": false})
    );
    let (code, rest) = serve.finish();
    assert_eq!((code, rest.as_str()), (Some(0), ""));
    assert_eq!(sb.read("a.txt"), "after\n");
}

#[test]
fn serve_skips_a_line_over_the_limit_without_keeping_it() {
    let sb = Sandbox::new();
    let mut serve = Serve::start(&sb.mem);
    // 100 MiB of file_text: over the 64 MiB limit, and what the old reader buffered whole.
    let over = MAX_REQUEST_LINE + (36 << 20);
    let head =
        br#"{"id": 1, "input": {"command": "create", "path": "/memories/big.txt", "file_text": ""#;
    let mut stdin = serve.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        stdin.write_all(head).expect("write head");
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..over >> 20 {
            stdin.write_all(&chunk).expect("write chunk");
        }
        stdin.write_all(b"\"}}\n").expect("write tail");
        stdin
    });
    assert_protocol_error(&serve.reply(), "longer than 67108864 bytes");
    serve.stdin = Some(writer.join().expect("writer"));
    let reply = serve.call(&json!({"id": 2, "input": view("/memories")}));
    assert_eq!(reply["id"], json!(2));
    assert_eq!(reply["is_error"], json!(false), "{reply}");
    let peak = serve.peak_memory();
    assert!(
        peak < (MAX_REQUEST_LINE + (24 << 20)) as u64,
        "serve held {peak} bytes for a {over}-byte line"
    );
    let (code, _) = serve.finish();
    assert_eq!(code, Some(0));
    assert!(!sb.exists("big.txt"));
}

/// Moves the memories folder to `moved` and puts a symlink to `outside` (holding `keep.txt`) in
/// its place.
fn swap_root_for_a_link(sb: &Sandbox) {
    std::fs::create_dir(sb.base.join("outside")).expect("outside");
    std::fs::write(sb.base.join("outside/keep.txt"), "keep").expect("keep.txt");
    std::fs::rename(&sb.mem, sb.base.join("moved")).expect("move the root away");
    std::os::unix::fs::symlink("outside", &sb.mem).expect("symlink in its place");
}

#[test]
fn serve_reset_empties_the_folder_it_opened_not_a_link_swapped_in() {
    let sb = Sandbox::new();
    let mut serve = Serve::start(&sb.mem);
    let reply = serve.call(&json!({"id": 1, "input": create("/memories/d/a.txt", "a\n")}));
    assert_eq!(reply["is_error"], json!(false), "{reply}");
    swap_root_for_a_link(&sb);
    assert_eq!(
        serve.call(&json!({"id": 2, "control": "reset"})),
        json!({"id": 2, "ok": true})
    );
    let (code, _) = serve.finish();
    assert_eq!(code, Some(0));
    assert_eq!(
        std::fs::read_to_string(sb.base.join("outside/keep.txt")).expect("keep.txt survives"),
        "keep"
    );
    let moved = std::fs::read_dir(sb.base.join("moved")).expect("moved root");
    assert_eq!(moved.count(), 0, "reset emptied the folder serve opened");
}

#[test]
fn in_process_reset_and_wipe_never_go_through_a_swapped_root() {
    let sb = Sandbox::new();
    sb.ok(&create("/memories/d/e/a.txt", "a\n"));
    swap_root_for_a_link(&sb);
    sb.reference.reset().expect("reset");
    assert_eq!(std::fs::read_dir(sb.base.join("moved")).unwrap().count(), 0);
    // The path-based wipe refuses the link rather than emptying its target.
    assert!(memspec::serve::wipe(&sb.mem).is_err());
    assert_eq!(
        std::fs::read_to_string(sb.base.join("outside/keep.txt")).unwrap(),
        "keep"
    );
}

/// The occurrence search is linear: these took tens of seconds when each hit restarted the
/// search one byte later. The timing itself is a benchmark (`benches/str_replace.py`); this
/// checks the answers.
#[test]
fn str_replace_with_a_long_repetitive_old_str() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a".repeat(400_000));
    let old = "a".repeat(20_000);
    sb.expect_err(
        &str_replace("/memories/a.txt", &old, "b"),
        &format!(
            "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: 1. Please ensure it is unique"
        ),
    );
    // Overlapping occurrences that start on every line.
    sb.write("lines.txt", "a\n".repeat(200_000));
    let old = "a\n".repeat(5_000);
    let lines: Vec<String> = (1..=195_001).map(|n| n.to_string()).collect();
    sb.expect_err(
        &str_replace("/memories/lines.txt", &old, "b"),
        &format!(
            "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {}. Please ensure it is unique",
            lines.join(", ")
        ),
    );
    // A unique long old_str is still replaced.
    let text = format!("{}b{}", "a".repeat(200_000), "a".repeat(200_000));
    sb.write("one.txt", &text);
    let old = format!("{}b", "a".repeat(20_000));
    sb.ok(&str_replace("/memories/one.txt", &old, "c"));
    assert_eq!(
        sb.read("one.txt"),
        format!("{}c{}", "a".repeat(180_000), "a".repeat(200_000))
    );
}

/// `/memories/a/a/…/a` (`levels` folders) then `name`.
fn deep(levels: usize, name: &str) -> String {
    format!("/memories/{}{name}", "a/".repeat(levels))
}

/// Runs `memspec call input` with at most `fds` open descriptors (`ulimit -n`).
fn call_with_few_descriptors(memories: &Path, input: &Value, fds: u32) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n {fds} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_memspec"))
        .arg("call")
        .arg(input.to_string())
        .arg("--memories")
        .arg(memories)
        .output()
        .expect("run memspec call");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A tree 2,040 folders deep, built by tool calls, with a side folder every 20 levels: deeper
/// than the descriptor limit if a walk holds one descriptor per level.
fn deep_tree(sb: &Sandbox) {
    sb.ok(&create(&deep(2040, "x.txt"), "deepest\n"));
    for level in (20..2040).step_by(20) {
        sb.ok(&create(&deep(level, "b/side.txt"), "side\n"));
    }
}

#[test]
fn trees_deeper_than_the_descriptor_limit_are_listed_deleted_and_reset() {
    let sb = Sandbox::new();
    deep_tree(&sb);
    let (code, listing) = call_with_few_descriptors(&sb.mem, &view("/memories"), 64);
    assert_eq!(code, Some(0), "{listing}");
    // 8 bytes at the bottom and 101 side files of 5: a folder that failed to open would be
    // counted as empty.
    assert!(
        listing.contains("\n513B\t/memories/a/\n"),
        "every file is counted: {listing}"
    );
    let (code, out) = call_with_few_descriptors(&sb.mem, &delete("/memories/a"), 64);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "Successfully deleted /memories/a\n")
    );
    assert_eq!(std::fs::read_dir(&sb.mem).unwrap().count(), 0);

    deep_tree(&sb);
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 64 && exec \"$0\" serve \"$1\"")
        .arg(env!("CARGO_BIN_EXE_memspec"))
        .arg(&sb.mem)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(b"{\"id\": 1, \"control\": \"reset\"}\n")?;
            drop(stdin);
            child.wait_with_output()
        })
        .expect("run memspec serve");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"id\":1,\"ok\":true}\n"
    );
    assert_eq!(std::fs::read_dir(&sb.mem).unwrap().count(), 0);
}

#[test]
fn deleting_a_deep_tree_never_follows_links_in_it() {
    let sb = Sandbox::new();
    std::fs::create_dir(sb.base.join("outside")).unwrap();
    std::fs::write(sb.base.join("outside/keep.txt"), "keep").unwrap();
    sb.ok(&create(&deep(300, "x.txt"), "x\n"));
    let level = sb.mem.join("a/".repeat(150));
    std::os::unix::fs::symlink(sb.base.join("outside"), level.join("link_out")).unwrap();
    sb.expect_ok(&delete("/memories/a/"), "Successfully deleted /memories/a/");
    assert!(!sb.exists("a"));
    assert_eq!(
        std::fs::read_to_string(sb.base.join("outside/keep.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn components_whose_nfkc_form_holds_a_separator_are_refused() {
    let sb = Sandbox::new();
    let note = "characters that look like dots, slashes or backslashes are not allowed";
    for name in [
        "\u{2100}",
        "\u{2101}",
        "x\u{2105}y",
        "\u{2106}",
        "\u{FF0F}",
        "\u{FE68}",
    ] {
        let path = format!("/memories/{name}");
        let want = format!("Error: The path {path} is not a valid memory path: {note}.");
        sb.expect_err(&create(&path, "x"), &want);
        sb.expect_err(
            &view(&format!("{path}/")),
            &format!("Error: The path {path}/ is not a valid memory path: {note}."),
        );
    }
    assert_eq!(std::fs::read_dir(&sb.mem).unwrap().count(), 0);
}

#[test]
fn a_trailing_slash_on_anything_but_a_folder_finds_nothing() {
    let sb = Sandbox::new();
    sb.write("file.txt", "f\n");
    sb.fifo("fifo");
    let _socket = std::os::unix::net::UnixListener::bind(sb.path("sock")).expect("socket");
    let mut leaves = vec!["file.txt", "fifo", "sock"];
    // A device needs CAP_MKNOD: covered where the tests run as root.
    let device = rustix::fs::mknodat(
        rustix::fs::CWD,
        sb.path("null"),
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o600),
        rustix::fs::makedev(1, 3),
    );
    if device.is_ok() {
        leaves.push("null");
    }
    for leaf in leaves {
        for slash in ["/", "//"] {
            let path = format!("/memories/{leaf}{slash}");
            sb.expect_err(
                &delete(&path),
                &format!("Error: The path {path} does not exist"),
            );
            sb.expect_err(
                &rename(&path, "/memories/moved"),
                &format!("Error: The path {path} does not exist"),
            );
            sb.expect_err(
                &view(&path),
                &format!("The path {path} does not exist. Please provide a valid path."),
            );
            sb.expect_err(
                &str_replace(&path, "f", "g"),
                &format!("Error: The path {path} does not exist. Please provide a valid path."),
            );
            sb.expect_err(
                &insert(&path, 0, "g"),
                &format!("Error: The path {path} does not exist"),
            );
        }
        assert!(sb.exists(leaf), "{leaf} is still there");
    }
    assert!(!sb.exists("moved"));
    // A link with a trailing slash asks for its target: refused as a link, not followed.
    sb.symlink("file.txt", "link");
    sb.expect_err(
        &delete("/memories/link/"),
        "Error: The path /memories/link/ goes through the symbolic link /memories/link; the memory tool does not follow symbolic links.",
    );
    assert!(sb.exists("link"));
    assert_eq!(sb.read("file.txt"), "f\n");
}
