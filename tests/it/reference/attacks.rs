//! The attack set: hostile paths and symlink layouts against every command, plus a race that
//! swaps a folder for a symlink while the reference works in it.
//!
//! Every call is checked for: no panic; nothing outside `memories/` changed (bytes, mtimes,
//! inodes, new or vanished entries, compared over a recursive listing of the sandbox); no secret
//! or outside-only name in the output; no host path in the output unless the input spelled it;
//! no temp file left behind; and the expected `is_error`. A refused call must also leave
//! `memories/` itself unchanged.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Node, Sandbox, create, delete, insert, rename, str_replace, temp_files, tree, view};

/// Unique tokens that exist only outside `memories/`; no output may ever contain them.
pub const SECRET: &str = "7f3a9c0e-outside-secret";
pub const CANARY: &str = "c4n4ry-base-b81d";
pub const CANARY_X: &str = "c4n4ry-memoriesX-5e02";
/// A file name that exists only outside; a listing that shows it has escaped.
pub const OUTSIDE_ONLY: &str = "outside-only-91ab.txt";
/// Text present in every target file, so that a write that got through would find something.
pub const BAIT: &str = "do-not-leak";

/// The sandbox of the attack set:
///
/// ```text
/// base/canary.txt                 base/outside/secret.txt      base/memoriesX/canary.txt
/// base/outside/outside-only-….txt base/outside/deeper/x.txt
/// base/memories/notes.txt         base/memories/sub/file.txt   base/memories/sub/deep_link -> ../../outside
/// base/memories/link_out -> ../outside            link_file_out -> ../outside/secret.txt
/// base/memories/link_abs -> <base>/outside        link_in -> notes.txt   link_dir_in -> sub
/// base/memories/link_base -> ..   link_root -> /   loop -> loop   loop_a <-> loop_b
/// base/memories/dangling -> ../outside/created-through-dangling.txt
/// base/memories/dangling_dir -> ../outside/newdir  base/memories/fifo (a FIFO)
/// ```
pub fn arena() -> Sandbox {
    let sb = Sandbox::new();
    let b = &sb.base;
    std::fs::write(b.join("canary.txt"), format!("{CANARY} {BAIT}\n")).unwrap();
    std::fs::create_dir_all(b.join("outside/deeper")).unwrap();
    std::fs::write(
        b.join("outside/secret.txt"),
        format!("{SECRET}\nsecond line {BAIT}\n"),
    )
    .unwrap();
    std::fs::write(b.join("outside").join(OUTSIDE_ONLY), format!("{SECRET}\n")).unwrap();
    std::fs::write(b.join("outside/deeper/x.txt"), format!("{SECRET} {BAIT}\n")).unwrap();
    std::fs::create_dir(b.join("memoriesX")).unwrap();
    std::fs::write(
        b.join("memoriesX/canary.txt"),
        format!("{CANARY_X} {BAIT}\n"),
    )
    .unwrap();

    sb.write("notes.txt", format!("inside notes {BAIT}\n"));
    sb.write("sub/file.txt", format!("inside sub file {BAIT}\n"));
    sb.write("sub/secret.txt", format!("inside copy {BAIT}\n"));
    sb.symlink("../../outside", "sub/deep_link");
    sb.symlink("../outside", "link_out");
    sb.symlink("../outside/secret.txt", "link_file_out");
    sb.symlink(b.join("outside"), "link_abs");
    sb.symlink("notes.txt", "link_in");
    sb.symlink("sub", "link_dir_in");
    sb.symlink("..", "link_base");
    sb.symlink("/", "link_root");
    sb.symlink("loop", "loop");
    sb.symlink("loop_b", "loop_a");
    sb.symlink("loop_a", "loop_b");
    sb.symlink("../outside/created-through-dangling.txt", "dangling");
    sb.symlink("../outside/newdir", "dangling_dir");
    sb.fifo("fifo");
    sb
}

/// Everything in the sandbox except `memories/`.
pub fn outside(sb: &Sandbox) -> BTreeMap<String, Node> {
    tree(&sb.base, Some("memories"))
}

/// Everything in `memories/` except folder mtimes (a refused create still makes and removes its
/// temp file, which touches the folder).
fn contents(sb: &Sandbox) -> BTreeMap<String, Node> {
    let mut nodes = tree(&sb.mem, None);
    for node in nodes.values_mut() {
        if let Node::Dir { mtime } = node {
            *mtime = (0, 0);
        }
    }
    nodes
}

/// Asserts that `text` (the answer to `input`) leaks nothing.
#[track_caller]
pub fn assert_no_leak(sb: &Sandbox, input: &Value, text: &str) {
    for token in [SECRET, CANARY, CANARY_X, OUTSIDE_ONLY] {
        assert!(!text.contains(token), "{input} leaked {token:?}: {text:?}");
    }
    let base = sb.base.to_string_lossy();
    if !input.to_string().contains(base.as_ref()) {
        assert!(
            !text.contains(base.as_ref()),
            "{input} revealed the host path: {text:?}"
        );
    }
}

/// The hostile paths. `removable` marks a leaf that is itself a symlink or special file inside
/// the root: `delete` removes it and `rename` moves it (never its target), so those two succeed;
/// everything else about every path must be refused.
fn hostile_paths(base: &str) -> Vec<(String, bool)> {
    let mut paths: Vec<(String, bool)> = [
        // `..` in every spelling.
        "/memories/..",
        "/memories/../",
        "/memories/../canary.txt",
        "/memories/../outside/secret.txt",
        "/memories/../outside/new.txt",
        "/memories/a/../../canary.txt",
        "/memories/sub/../../canary.txt",
        "/memories/./../canary.txt",
        "/memories/./notes.txt",
        "/memories/.",
        "/memories/sub/..",
        "/memories//..//canary.txt",
        "/memories/../memoriesX/canary.txt",
        "/memories/..\\canary.txt",
        "/memories\\..\\canary.txt",
        "\\memories\\..\\canary.txt",
        "/memories/sub\\..\\..\\canary.txt",
        "..\\canary.txt",
        "../canary.txt",
        // Absolute paths elsewhere and prefix tricks.
        "/etc/passwd",
        "/tmp/x",
        "/",
        "",
        "//memories",
        "//memories/notes.txt",
        "/memoriesX/canary.txt",
        "/memoriesX",
        "/memories../canary.txt",
        "/memories.bak/x",
        "memories/notes.txt",
        "memories",
        "./memories/notes.txt",
        " /memories/notes.txt",
        "/Memories/notes.txt",
        "~/memories/notes.txt",
        "file:///memories/notes.txt",
        // Trailing slashes on a file.
        "/memories/notes.txt/",
        "/memories/notes.txt//",
        // NUL and other control characters.
        "/memories/notes.txt\0",
        "/memories/a\0b",
        "/memories/notes.txt\0.jpg",
        "/memories\0/../canary.txt",
        "/memories/\n/../canary.txt",
        // Percent-encoding, single and repeated.
        "/memories/%2e%2e/canary.txt",
        "/memories/%2E%2E/canary.txt",
        "/memories/%2e%2e%2fcanary.txt",
        "/memories/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/memories/..%2fcanary.txt",
        "/memories/%2e%2e",
        "/memories/%2e",
        "/memories/%252e%252e%252fcanary.txt",
        "/memories/%25252e%25252e/canary.txt",
        "/memories/a%2fb",
        "/memories/%2fetc%2fpasswd",
        "/memories/%5c..%5ccanary.txt",
        "/memories/..%5ccanary.txt",
        "/memories/%00",
        "/memories/notes.txt%00.md",
        // Unicode look-alikes of dots, slashes and backslashes.
        "/memories/\u{FF0E}\u{FF0E}\u{FF0F}canary.txt",
        "/memories/\u{FF0E}\u{FF0E}/canary.txt",
        "/memories/\u{2025}/canary.txt",
        "/memories/\u{2024}\u{2024}/canary.txt",
        "/memories/\u{FE30}/canary.txt",
        "/memories/\u{FE52}\u{FE52}/canary.txt",
        "/memories/..\u{2215}canary.txt",
        "/memories/..\u{FF0F}canary.txt",
        "/memories/..\u{2044}canary.txt",
        "/memories/..\u{FF3C}canary.txt",
        "/memories/..\u{2216}canary.txt",
        "/memories\u{2215}..\u{2215}canary.txt",
        // Through symlinks: intermediate components.
        "/memories/link_out/secret.txt",
        "/memories/link_out/new.txt",
        "/memories/link_out/deeper/x.txt",
        "/memories/link_out/newdir/new.txt",
        "/memories/link_abs/secret.txt",
        "/memories/link_abs/new.txt",
        "/memories/link_base/canary.txt",
        "/memories/link_base/outside/secret.txt",
        "/memories/link_root/etc/passwd",
        "/memories/link_root/tmp/memspec-attack.txt",
        "/memories/link_dir_in/file.txt",
        "/memories/link_dir_in/new.txt",
        "/memories/sub/deep_link/secret.txt",
        "/memories/sub/deep_link/new.txt",
        "/memories//sub//deep_link//secret.txt",
        "/memories/loop/x",
        "/memories/loop_a/x",
        "/memories/dangling_dir/new.txt",
        "/memories/dangling/x",
    ]
    .into_iter()
    .map(|p| (p.to_string(), false))
    .collect();
    // Leaf symlinks and special files: reads and writes refused, delete/rename act on the link
    // itself (unless spelled `link/`).
    for leaf in [
        "/memories/link_out",
        "/memories//link_out",
        // With a trailing slash, `link/` asks for the target: refused like any path through it.
        "/memories/link_out/",
        "/memories/link_file_out/",
        "/memories/link_file_out",
        "/memories/link_abs",
        "/memories/link_in",
        "/memories/link_dir_in",
        "/memories/link_base",
        "/memories/link_root",
        "/memories/sub/deep_link",
        "/memories/loop",
        "/memories/loop_a",
        "/memories/dangling",
        "/memories/dangling_dir",
        "/memories/fifo",
    ] {
        paths.push((leaf.to_string(), !leaf.ends_with('/')));
    }
    // Host paths of the sandbox.
    for host in [
        base.to_string(),
        format!("{base}/canary.txt"),
        format!("{base}/outside/secret.txt"),
        format!("{base}/memories"),
        format!("{base}/memories/notes.txt"),
        format!("/memories/../{}", &base[1..]),
    ] {
        paths.push((host, false));
    }
    // Overlong.
    paths.push((format!("/memories/{}", "a".repeat(4087)), false));
    paths.push((format!("/memories/{}", "../".repeat(1400)), false));
    paths.push((format!("/memories/{}", "n".repeat(256)), false));
    paths.push((format!("/memories/link_out/{}", "s".repeat(256)), false));
    paths
}

#[derive(Debug, Clone, Copy)]
enum Op {
    View,
    Create,
    StrReplace,
    Insert,
    Delete,
    RenameFrom,
    RenameTo,
}

fn input_for(op: Op, path: &str) -> Value {
    match op {
        Op::View => view(path),
        Op::Create => create(path, &format!("ATTACK {BAIT}\n")),
        Op::StrReplace => str_replace(path, BAIT, "PWNED"),
        Op::Insert => insert(path, 0, "ATTACK\n"),
        Op::Delete => delete(path),
        Op::RenameFrom => rename(path, "/memories/moved"),
        Op::RenameTo => rename("/memories/notes.txt", path),
    }
}

/// Runs `input` in `sb` and checks every invariant; returns the result's text and flag.
#[track_caller]
pub fn hostile_call(
    sb: &Sandbox,
    input: &Value,
    before_outside: &BTreeMap<String, Node>,
) -> (String, bool) {
    let result = sb.call(input);
    assert_eq!(
        &outside(sb),
        before_outside,
        "{input} changed something outside memories/"
    );
    assert_no_leak(sb, input, &result.text);
    assert!(sb.mem.is_dir(), "{input} removed the memories folder");
    let leftovers = temp_files(&sb.mem);
    assert!(
        leftovers.is_empty(),
        "{input} left temp files: {leftovers:?}"
    );
    (result.text, result.is_error)
}

fn run_attacks(op: Op) -> usize {
    let probe = Sandbox::new();
    let base = probe.base.to_string_lossy().into_owned();
    drop(probe);
    let mut count = 0;
    for (i, (path, removable)) in hostile_paths(&base).into_iter().enumerate() {
        // A fresh sandbox per call: its base differs, so re-spell host paths for it.
        let sb = arena();
        let path = path.replace(&base, &sb.base.to_string_lossy());
        let input = input_for(op, &path);
        let before_outside = outside(&sb);
        let before_inside = contents(&sb);
        let (text, is_error) = hostile_call(&sb, &input, &before_outside);
        let may_succeed = removable && matches!(op, Op::Delete | Op::RenameFrom);
        if may_succeed {
            assert!(
                !is_error,
                "#{i} {input}: expected the link itself to be acted on, got {text:?}"
            );
        } else {
            assert!(is_error, "#{i} {input}: hostile call succeeded: {text:?}");
            assert_eq!(
                contents(&sb),
                before_inside,
                "#{i} {input}: a refused call changed memories/ ({text:?})"
            );
        }
        count += 1;
    }
    count
}

#[test]
fn attack_paths_are_enough() {
    let n = hostile_paths("/tmp/base").len();
    assert!(n >= 60, "only {n} hostile paths");
}

#[test]
fn attacks_view() {
    run_attacks(Op::View);
}

#[test]
fn attacks_create() {
    run_attacks(Op::Create);
}

#[test]
fn attacks_str_replace() {
    run_attacks(Op::StrReplace);
}

#[test]
fn attacks_insert() {
    run_attacks(Op::Insert);
}

#[test]
fn attacks_delete() {
    run_attacks(Op::Delete);
}

#[test]
fn attacks_rename_old_path() {
    run_attacks(Op::RenameFrom);
}

#[test]
fn attacks_rename_new_path() {
    run_attacks(Op::RenameTo);
}

#[test]
fn listings_never_show_or_follow_links() {
    let sb = arena();
    let before = outside(&sb);
    for p in ["/memories", "/memories/", "/memories/sub", "/memories/sub/"] {
        let (text, is_error) = hostile_call(&sb, &view(p), &before);
        assert!(!is_error, "{p}: {text}");
        for hidden in [
            "link_",
            "loop",
            "dangling",
            "deep_link",
            "fifo",
            "secret.txt\n",
        ] {
            assert!(!text.contains(hidden), "{p} listed {hidden:?}: {text}");
        }
    }
}

#[test]
fn the_root_can_be_neither_deleted_nor_renamed() {
    let sb = arena();
    let before = outside(&sb);
    let inside = contents(&sb);
    for root in ["/memories", "/memories/", "/memories//", "/memories///"] {
        let (text, is_error) = hostile_call(&sb, &delete(root), &before);
        assert!(is_error);
        assert_eq!(text, "Error: Cannot delete the /memories directory itself");
        for target in ["/memories/renamed", "/memories/sub/root", "/memories"] {
            let (text, is_error) = hostile_call(&sb, &rename(root, target), &before);
            assert!(is_error);
            assert_eq!(text, "Error: Cannot rename the /memories directory itself");
        }
    }
    assert_eq!(contents(&sb), inside);
}

#[test]
fn moving_a_link_out_inside_keeps_it_a_link() {
    let sb = arena();
    let before = outside(&sb);
    let (text, is_error) = hostile_call(
        &sb,
        &rename("/memories/link_out", "/memories/sub/moved_link"),
        &before,
    );
    assert!(!is_error, "{text}");
    assert!(
        std::fs::symlink_metadata(sb.path("sub/moved_link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    for input in [
        view("/memories/sub/moved_link"),
        view("/memories/sub/moved_link/secret.txt"),
        create("/memories/sub/moved_link/new.txt", "x"),
    ] {
        let (_, is_error) = hostile_call(&sb, &input, &before);
        assert!(is_error, "{input}");
    }
    // An absolute link keeps pointing outside wherever it goes; it is still never followed.
    let (_, is_error) = hostile_call(
        &sb,
        &rename("/memories/link_abs", "/memories/sub/abs"),
        &before,
    );
    assert!(!is_error);
    let (_, is_error) = hostile_call(&sb, &view("/memories/sub/abs/secret.txt"), &before);
    assert!(is_error);
    // Deleting the folder that now holds the links removes the links, not their targets.
    let (text, is_error) = hostile_call(&sb, &delete("/memories/sub"), &before);
    assert_eq!(
        (text.as_str(), is_error),
        ("Successfully deleted /memories/sub", false)
    );
    assert!(!sb.exists("sub"));
}

#[test]
fn inside_files_cannot_be_renamed_out() {
    let sb = arena();
    let before = outside(&sb);
    let base = sb.base.to_string_lossy().into_owned();
    let targets = [
        "/memories/../stolen.txt".to_string(),
        "/memories/../outside/stolen.txt".to_string(),
        "/memories/link_out/stolen.txt".to_string(),
        "/memories/link_abs/stolen.txt".to_string(),
        "/memories/link_base/stolen.txt".to_string(),
        "/memories/sub/deep_link/stolen.txt".to_string(),
        "/memories/dangling".to_string(),
        "/memories/dangling_dir/stolen.txt".to_string(),
        format!("{base}/stolen.txt"),
        "/tmp/stolen.txt".to_string(),
    ];
    for source in ["/memories/notes.txt", "/memories/sub", "/memories/link_in"] {
        for target in &targets {
            let (text, is_error) = hostile_call(&sb, &rename(source, target), &before);
            assert!(is_error, "{source} -> {target}: {text}");
        }
    }
    assert!(sb.exists("notes.txt") && sb.exists("sub/file.txt") && sb.exists("link_in"));
}

#[test]
fn hard_links_are_neither_read_nor_edited_but_can_be_moved_and_deleted() {
    // A hard link is the same file under another name, possibly outside: reading it would read
    // outside content (decide.hard-links). Rename and delete only touch the name inside.
    let sb = arena();
    std::fs::write(sb.base.join("outside/hard.txt"), format!("shared {BAIT}\n")).unwrap();
    std::fs::hard_link(sb.base.join("outside/hard.txt"), sb.path("hard.txt")).unwrap();
    let before = outside(&sb);
    for input in [
        view("/memories/hard.txt"),
        str_replace("/memories/hard.txt", BAIT, "edited"),
        insert("/memories/hard.txt", 0, "inserted\n"),
    ] {
        let (text, is_error) = hostile_call(&sb, &input, &before);
        assert!(is_error, "{input}: {text}");
        assert_eq!(
            text,
            "Error: The file /memories/hard.txt has other hard links, which may lie outside /memories; the memory tool does not read or edit it."
        );
    }
    for input in [
        rename("/memories/hard.txt", "/memories/hard2.txt"),
        delete("/memories/hard2.txt"),
    ] {
        let (text, is_error) = hostile_call(&sb, &input, &before);
        assert!(!is_error, "{input}: {text}");
    }
}

#[test]
fn special_files_never_block_or_leak() {
    let sb = arena();
    let before = outside(&sb);
    let started = Instant::now();
    for input in [
        view("/memories/fifo"),
        str_replace("/memories/fifo", "a", "b"),
        insert("/memories/fifo", 0, "x"),
        create("/memories/fifo", "x"),
    ] {
        let (text, is_error) = hostile_call(&sb, &input, &before);
        assert!(is_error, "{input}: {text}");
    }
    assert!(started.elapsed() < Duration::from_secs(5), "a FIFO blocked");
}

/// Swaps `memories/sub` between a real folder and a symlink to `../outside` as fast as it can
/// while the main thread hammers paths below `/memories/sub`.
#[test]
fn swapping_a_folder_for_a_symlink_never_escapes() {
    let sb = arena();
    let before = outside(&sb);
    let sub = sb.path("sub");
    let spare = sb.path(".swap");
    std::os::unix::fs::symlink("../outside", &spare).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let (sub, spare) = (sub.clone(), spare.clone());
        std::thread::spawn(move || {
            let cwd = rustix::fs::CWD;
            while !stop.load(Ordering::Relaxed) {
                let exchanged = rustix::fs::renameat_with(
                    cwd,
                    &sub,
                    cwd,
                    &spare,
                    rustix::fs::RenameFlags::EXCHANGE,
                );
                let swapped = exchanged.is_ok() || {
                    // No RENAME_EXCHANGE on this filesystem: swap in three renames instead.
                    let hold = sub.with_file_name(".swap-hold");
                    std::fs::rename(&sub, &hold).is_ok()
                        && std::fs::rename(&spare, &sub).is_ok()
                        && std::fs::rename(&hold, &spare).is_ok()
                };
                if swapped {
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    // At least 1.2 s of hammering, and on a loaded machine longer (up to 20 s) until both
    // threads did enough work and both states were met.
    let started = Instant::now();
    let (mut calls, mut saw_link, mut saw_dir) = (0usize, 0usize, 0usize);
    let mut i = 0usize;
    loop {
        let enough = started.elapsed() > Duration::from_millis(1200)
            && calls > 100
            && swaps.load(Ordering::Relaxed) > 100
            && saw_link > 0
            && saw_dir > 0;
        if enough || started.elapsed() > Duration::from_secs(20) {
            break;
        }
        i += 1;
        let new = format!("/memories/sub/new-{i}.txt");
        for input in [
            view("/memories/sub"),
            view("/memories"),
            view("/memories/sub/secret.txt"),
            view("/memories/sub/deep_link/secret.txt"),
            create(&new, &format!("made {i}\n")),
            str_replace("/memories/sub/secret.txt", BAIT, "PWNED"),
            str_replace("/memories/sub/secret.txt", "PWNED", BAIT),
            insert("/memories/sub/secret.txt", 0, "ATTACK\n"),
            view("/memories/sub/file.txt"),
            rename("/memories/sub/file.txt", "/memories/sub/file2.txt"),
            rename("/memories/sub/file2.txt", "/memories/sub/file.txt"),
            delete(&new),
            delete("/memories/sub/secret.txt"),
            create("/memories/sub/secret.txt", &format!("inside copy {BAIT}\n")),
            create("/memories/sub/deeper/nested.txt", "n\n"),
            delete("/memories/sub/deeper"),
        ] {
            let result = sb.call(&input);
            assert_no_leak(&sb, &input, &result.text);
            if result
                .text
                .contains("goes through the symbolic link /memories/sub;")
            {
                saw_link += 1;
            } else if !result.is_error {
                saw_dir += 1;
            }
            calls += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        swaps.load(Ordering::Relaxed) > 100,
        "the swapper barely ran"
    );
    assert!(calls > 100, "the hammer barely ran");
    // Both states were met: the race was real.
    assert!(
        saw_link > 0 && saw_dir > 0,
        "link {saw_link}, folder {saw_dir}"
    );
    assert_eq!(outside(&sb), before, "the race reached outside memories/");
    assert!(temp_files(&sb.mem).is_empty());
    // Whatever is left at sub and .swap, the outside folder is still where it was.
    assert_eq!(
        std::fs::read_to_string(sb.base.join("outside/secret.txt")).unwrap(),
        format!("{SECRET}\nsecond line {BAIT}\n")
    );
}

/// Each rename can stack one deep nesting onto another, so folders can be nested far deeper
/// than one path can spell. A listing must still answer (it used to recurse once per level and
/// overflowed the stack, aborting the process), and delete must answer without crashing.
#[test]
fn nesting_built_by_renames_is_listed_without_overflowing_the_stack() {
    let sb = Sandbox::new();
    let chain = "/d".repeat(2000);
    sb.expect_ok(
        &create(&format!("/memories/x{chain}/f.txt"), "12345"),
        &format!("File created successfully at: /memories/x{chain}/f.txt"),
    );
    for _ in 0..2 {
        sb.ok(&rename("/memories/x", &format!("/memories/y{chain}/x")));
        sb.ok(&rename("/memories/y", "/memories/x"));
    }
    // About 6,000 levels: far more than a test thread's stack holds one frame per level.
    let listing = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn({
            let mem = sb.mem.clone();
            move || {
                let reference = memspec::reference::Reference::open(&mem).unwrap();
                reference.call(&view("/memories"))
            }
        })
        .unwrap()
        .join()
        .expect("the listing thread crashed");
    assert_eq!(
        listing.text,
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n\
         5B\t/memories\n5B\t/memories/x/\n5B\t/memories/x/d/"
    );
    assert!(!listing.is_error);
    let gone = sb.call(&delete("/memories/x"));
    assert!(
        gone.text == "Successfully deleted /memories/x"
            || gone
                .text
                .starts_with("Error: The delete of /memories/x failed: "),
        "{gone:?}"
    );
    // Clean up with a tool that does not recurse on the stack either.
    let status = std::process::Command::new("rm")
        .arg("-rf")
        .arg(&sb.mem)
        .status()
        .unwrap();
    assert!(status.success());
}
