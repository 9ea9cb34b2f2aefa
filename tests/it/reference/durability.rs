//! Two real `memspec serve` processes writing one file at the same time: the root lock must keep
//! every read-modify-write whole, and the atomic temp-file-then-rename must never show a
//! half-written file or a temp file to a reader.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use memspec::reference::Reference;
use serde_json::{Value, json};

use super::{Sandbox, insert, str_replace, temp_files, view};

const N: usize = 200;

fn spawn_serve(memories: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_memspec"))
        .arg("serve")
        .arg(memories)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn memspec serve")
}

/// Sends `inputs` to a fresh `serve` process (writing and reading on separate threads so that
/// neither pipe can fill up) and returns the replies in order.
fn drive(memories: &Path, inputs: Vec<Value>) -> JoinHandle<Vec<Value>> {
    let mut child = spawn_serve(memories);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let writer = std::thread::spawn(move || {
        for (id, input) in inputs.into_iter().enumerate() {
            let line = json!({"id": id, "input": input});
            writeln!(stdin, "{line}").expect("write request");
        }
        // Dropping stdin sends EOF: the server exits after the last reply.
    });
    std::thread::spawn(move || {
        let replies: Vec<Value> = BufReader::new(stdout)
            .lines()
            .map(|l| serde_json::from_str(&l.expect("read reply")).expect("reply is JSON"))
            .collect();
        writer.join().unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "serve exited with {status}");
        replies
    })
}

fn assert_all_ok(replies: &[Value], n: usize) {
    assert_eq!(replies.len(), n, "one reply per request");
    for (id, reply) in replies.iter().enumerate() {
        assert_eq!(reply["id"], json!(id), "{reply}");
        assert_eq!(reply["is_error"], json!(false), "{reply}");
    }
}

/// Watches the memories folder while writers run: every listing is free of temp files and
/// every view of `file` sees a whole file whose line count never goes down.
fn watcher(memories: &Path, file: &'static str, stop: Arc<AtomicBool>) -> JoinHandle<usize> {
    let memories = memories.to_path_buf();
    std::thread::spawn(move || {
        let reference = Reference::open(&memories).unwrap();
        let (mut looks, mut last_lines) = (0, 0);
        while !stop.load(Ordering::Relaxed) {
            let listing = reference.call(&view("/memories"));
            assert!(!listing.is_error, "{}", listing.text);
            assert!(!listing.text.contains(".memspec-tmp"), "{}", listing.text);
            let seen = reference.call(&view(file));
            assert!(!seen.is_error, "a reader saw no file: {}", seen.text);
            let lines = seen.text.lines().count() - 1;
            assert!(
                lines >= last_lines,
                "the file shrank from {last_lines} to {lines} lines"
            );
            last_lines = lines;
            looks += 1;
        }
        looks
    })
}

#[test]
fn concurrent_inserts_from_two_processes_lose_nothing() {
    let sb = Sandbox::new();
    sb.write("log.txt", "original 1\noriginal 2\noriginal 3\n");
    let stop = Arc::new(AtomicBool::new(false));
    let watch = watcher(&sb.mem, "/memories/log.txt", stop.clone());
    let batch = |who: &str| -> Vec<Value> {
        (0..N)
            .map(|i| insert("/memories/log.txt", 0, &format!("{who} {i}\n")))
            .collect()
    };
    let a = drive(&sb.mem, batch("A"));
    let b = drive(&sb.mem, batch("B"));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    stop.store(true, Ordering::Relaxed);
    let looks = watch.join().unwrap();
    assert_all_ok(&a, N);
    assert_all_ok(&b, N);
    assert!(looks > 0);
    let content = sb.read("log.txt");
    let lines: Vec<&str> = content.lines().collect();
    assert_eq!(lines.len(), 2 * N + 3, "an update was lost");
    for who in ["A", "B"] {
        // Each writer inserts at the top, so its own lines appear in reverse order.
        let mine: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.starts_with(who))
            .collect();
        let want: Vec<String> = (0..N).rev().map(|i| format!("{who} {i}")).collect();
        assert_eq!(mine, want);
    }
    assert_eq!(&lines[2 * N..], ["original 1", "original 2", "original 3"]);
    assert!(temp_files(&sb.mem).is_empty(), "{:?}", temp_files(&sb.mem));
}

#[test]
fn concurrent_str_replace_chains_from_two_processes_lose_nothing() {
    let sb = Sandbox::new();
    sb.write("counters.txt", "A: 0\nB: 0\n");
    let stop = Arc::new(AtomicBool::new(false));
    let watch = watcher(&sb.mem, "/memories/counters.txt", stop.clone());
    // Each step only finds its old_str if every earlier step of the same writer survived.
    let chain = |who: &str| -> Vec<Value> {
        (0..N)
            .map(|k| {
                str_replace(
                    "/memories/counters.txt",
                    &format!("{who}: {k}\n"),
                    &format!("{who}: {}\n", k + 1),
                )
            })
            .collect()
    };
    let a = drive(&sb.mem, chain("A"));
    let b = drive(&sb.mem, chain("B"));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    stop.store(true, Ordering::Relaxed);
    watch.join().unwrap();
    assert_all_ok(&a, N);
    assert_all_ok(&b, N);
    assert_eq!(sb.read("counters.txt"), format!("A: {N}\nB: {N}\n"));
    assert!(temp_files(&sb.mem).is_empty());
}

#[test]
fn concurrent_creates_of_one_name_make_exactly_one_winner() {
    let sb = Sandbox::new();
    let inputs = |who: &str| -> Vec<Value> {
        (0..50)
            .map(|i| super::create(&format!("/memories/race/{i}.txt"), &format!("{who}\n")))
            .collect()
    };
    let a = drive(&sb.mem, inputs("A"));
    let b = drive(&sb.mem, inputs("B"));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    for i in 0..50 {
        let wins = [&a[i], &b[i]]
            .iter()
            .filter(|r| r["is_error"] == json!(false))
            .count();
        assert_eq!(wins, 1, "create {i}: {} / {}", a[i], b[i]);
        let content = sb.read(&format!("race/{i}.txt"));
        assert!(content == "A\n" || content == "B\n", "{content:?}");
    }
    assert!(temp_files(&sb.mem).is_empty());
}
