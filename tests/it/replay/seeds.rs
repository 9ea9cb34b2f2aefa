//! Seeds: `--seed FILE.json` (files, empty folders, links out of the root, files outside the
//! root), folder seeds converted to descriptions, golden files that hold their seed and replay
//! from it, old golden files that only name a folder, the mode of golden files, bad seeds.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use memspec::transcript::{self, session::SessionSeed};
use serde_json::{Value, json};

use super::{bin, memspec, root, run};

/// A seed with a file, hex bytes, an empty folder, links out of the root (one to a file outside,
/// one to nothing yet) and a file outside.
fn hostile_seed() -> Value {
    json!({
        "memories": [
            {"path": "notes.txt", "text": "- likes tea\n"},
            {"path": "bin.dat", "bytes_hex": "ff fe"},
            {"path": "empty/", "dir": true},
            {"path": "link", "symlink": "../outside.txt"},
            {"path": "drop", "symlink": "../dropped.txt"}
        ],
        "outside": [{"path": "outside.txt", "text": "the outside file\n"}]
    })
}

/// The calls replayed on it: a listing, the file, the empty folder, then a link read through
/// and another written through.
const CALLS: &[&str] = &[
    r#"{"command": "view", "path": "/memories"}"#,
    r#"{"command": "view", "path": "/memories/notes.txt"}"#,
    r#"{"command": "view", "path": "/memories/empty"}"#,
    r#"{"command": "view", "path": "/memories/link"}"#,
    r#"{"command": "create", "path": "/memories/drop", "file_text": "dropped\n"}"#,
];

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        Files {
            dir: tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")),
        }
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        path.to_string_lossy().into_owned()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn inputs(&self, calls: &[&str]) -> String {
        self.write("inputs.jsonl", &(calls.join("\n") + "\n"))
    }

    fn seed(&self, name: &str, seed: &Value) -> String {
        self.write(name, &seed.to_string())
    }
}

fn header(golden: &Path) -> Value {
    let text = std::fs::read_to_string(golden).unwrap_or_default();
    serde_json::from_str(text.lines().next().unwrap_or("")).unwrap_or_default()
}

fn report(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn a_json_seed_is_planted_for_the_reference_and_a_backend_that_follows_the_link_is_caught() {
    let files = Files::new();
    let inputs = files.inputs(CALLS);
    let seed = files.seed("seed.json", &hostile_seed());

    // The reference in process: every step the same.
    let (code, stdout, stderr) = run(&[
        "replay", &inputs, "--seed", &seed, "--report", "--format", "json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let replayed = report(&stdout);
    let steps = replayed["steps"].as_array().cloned().unwrap_or_default();
    let text = |i: usize| steps[i]["backend"]["result"]["text"].as_str().unwrap_or("");
    assert!(text(0).contains("/memories/notes.txt"), "{}", text(0));
    assert!(text(0).contains("/memories/empty"), "{}", text(0));
    assert!(text(0).contains("/memories/bin.dat"), "{}", text(0));
    assert!(text(1).ends_with("     1\t- likes tea"), "{}", text(1));
    assert!(text(3).contains("symbolic link"), "{}", text(3));
    assert!(!text(3).contains("the outside file"), "{}", text(3));

    // The reference over the protocol, watched like any backend: nothing outside the root is
    // read, written or shown, so no step has a finding.
    let serve = format!("{} serve {{memories}}", bin());
    let (code, stdout, stderr) = run(&[
        "replay",
        &inputs,
        "--seed",
        &seed,
        "--report",
        "--backend",
        &serve,
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("outside the memories folder"), "{stdout}");

    // A backend that follows links shows the outside file (a canary: it carries the sandbox's
    // secret) and writes through the link (a change outside the root).
    let followed = format!(
        "python3 {} {{memories}} {}",
        root().join("tests/backends/symlink_followed.py").display(),
        bin()
    );
    let (code, stdout, stderr) = run(&[
        "replay",
        &inputs,
        "--seed",
        &seed,
        "--report",
        "--backend",
        &followed,
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "the output contains the content of a canary file outside the memories folder"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("something outside the memories folder was created, changed or deleted")
            && stdout.contains("dropped.txt created"),
        "{stdout}"
    );
}

#[test]
fn a_golden_file_holds_its_json_seed_and_check_replays_from_it() {
    let files = Files::new();
    let inputs = files.inputs(CALLS);
    let seed = files.seed("seed.json", &hostile_seed());
    let golden = files.path("golden.jsonl");
    let (code, _, stderr) = run(&[
        "record",
        &inputs,
        "--seed",
        &seed,
        "-o",
        &golden.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // The content, not the file's name: the seed file can go.
    let recorded = header(&golden);
    assert_eq!(
        recorded["seed"]["memories"][0],
        json!({"path": "notes.txt", "text": "- likes tea\n"})
    );
    assert_eq!(
        recorded["seed"]["memories"][2],
        json!({"path": "empty", "dir": true})
    );
    assert_eq!(
        recorded["seed"]["outside"][0],
        json!({"path": "outside.txt", "text": "the outside file\n"})
    );
    std::fs::remove_file(&seed).unwrap_or_else(|e| panic!("{e}"));

    // No --seed: the golden file's own. Without it, the listing and the file's view would
    // change (the 9 false changes of issue 12).
    let (code, stdout, stderr) = run(&["replay", &golden.to_string_lossy(), "--check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("verdict: unchanged"), "{stdout}");
    assert!(!stdout.contains("note: recorded with --seed"), "{stdout}");

    // A --seed given wins, with a note: an empty seed changes the answers.
    let empty = files.seed("empty.json", &json!({"memories": []}));
    let (code, stdout, stderr) = run(&[
        "replay",
        &golden.to_string_lossy(),
        "--check",
        "--seed",
        &empty,
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("note: --seed") && stderr.contains("replaces the seed recorded in"),
        "{stderr}"
    );

    // A golden file is a seed too: another recording starts from the same store.
    let again = files.path("again.jsonl");
    let (code, _, stderr) = run(&[
        "record",
        &inputs,
        "--seed",
        &golden.to_string_lossy(),
        "-o",
        &again.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(header(&again)["seed"], recorded["seed"]);
}

#[test]
fn a_folder_seed_is_recorded_as_its_description_links_kept_as_links() {
    let files = Files::new();
    let folder = files.path("seed");
    std::fs::create_dir_all(folder.join("notes/deep")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(folder.join("empty")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(folder.join("notes/deep/tea.md"), "- likes\ttea\n")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(folder.join("bin.dat"), [0xff, 0x00]).unwrap_or_else(|e| panic!("{e}"));
    // A link to a file that exists on this machine: it must be kept, never read.
    std::os::unix::fs::symlink("/etc/hostname", folder.join("host"))
        .unwrap_or_else(|e| panic!("{e}"));
    let inputs = files.inputs(&[
        r#"{"command": "view", "path": "/memories"}"#,
        r#"{"command": "view", "path": "/memories/notes/deep/tea.md"}"#,
        r#"{"command": "view", "path": "/memories/host"}"#,
        r#"{"command": "str_replace", "path": "/memories/notes/deep/tea.md", "old_str": "tea", "new_str": "coffee"}"#,
    ]);
    let golden = files.path("golden.jsonl");
    let (code, _, stderr) = run(&[
        "record",
        &inputs,
        "--seed",
        &folder.to_string_lossy(),
        "-o",
        &golden.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        header(&golden)["seed"],
        json!({"memories": [
            {"path": "bin.dat", "bytes_hex": "ff00"},
            {"path": "empty", "dir": true},
            {"path": "host", "symlink": "/etc/hostname"},
            {"path": "notes/deep/tea.md", "text": "- likes\ttea\n"}
        ]})
    );
    // The folder is only read.
    assert_eq!(
        std::fs::read_to_string(folder.join("notes/deep/tea.md")).unwrap_or_default(),
        "- likes\ttea\n"
    );
    // Moved away, the folder is not needed any more.
    std::fs::rename(&folder, files.path("gone")).unwrap_or_else(|e| panic!("{e}"));
    let (code, stdout, stderr) = run(&["replay", &golden.to_string_lossy(), "--check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("4 passed, 0 failed"), "{stdout}");
}

#[test]
fn an_old_golden_file_naming_its_seed_folder_still_reads() {
    let files = Files::new();
    let golden = files.write(
        "old.jsonl",
        concat!(
            r#"{"memspec_session":1,"backend":"reference (in process)","created":"2026-11-22T08:00:00Z","seed":"some/folder"}"#,
            "\n",
            r#"{"step":1,"input":{"command":"view","path":"/memories/nothing"},"result":{"text":"The path /memories/nothing does not exist. Please provide a valid path.","is_error":true}}"#,
            "\n",
        ),
    );
    let read = transcript::read(Path::new(&golden), None).unwrap_or_else(|e| panic!("{e}"));
    let seed = read
        .session
        .and_then(|h| h.seed)
        .unwrap_or_else(|| panic!("the header keeps its seed"));
    assert_eq!(*seed, SessionSeed::Folder("some/folder".to_string()));
    // Replayed from an empty folder, with the old note; the name is never followed.
    let (code, stdout, stderr) = run(&["replay", &golden, "--check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("note: recorded with --seed some/folder"),
        "{stdout}"
    );
    // Given as a seed, it says what to do instead.
    let inputs = files.inputs(&[r#"{"command": "view", "path": "/memories"}"#]);
    let (code, _, stderr) = run(&["replay", &inputs, "--seed", &golden, "--report"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("names its seed folder \"some/folder\"") && stderr.contains("--seed"),
        "{stderr}"
    );
}

/// `memspec record` run under `umask`; the golden file's mode.
fn record_under(umask: &str, golden: &Path, inputs: &str) -> u32 {
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$@\""))
        .arg("sh")
        .arg(bin())
        .args(["record", inputs, "-o"])
        .arg(golden)
        .current_dir(root())
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success());
    std::fs::metadata(golden)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn golden_files_get_the_mode_a_plain_create_would() {
    let files = Files::new();
    let inputs = files.inputs(&[r#"{"command": "view", "path": "/memories"}"#]);
    assert_eq!(record_under("022", &files.path("a.jsonl"), &inputs), 0o644);
    assert_eq!(record_under("077", &files.path("b.jsonl"), &inputs), 0o600);
    assert_eq!(record_under("002", &files.path("c.jsonl"), &inputs), 0o664);
    // Written again, a file keeps the mode it has.
    let kept = files.path("d.jsonl");
    std::fs::write(&kept, "").unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record_under("022", &kept, &inputs), 0o640);
    // No temporary file is left beside them.
    let left: Vec<String> = std::fs::read_dir(files.dir.path())
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".memspec-session-"))
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn bad_seeds_are_usage_errors_naming_the_entry() {
    let files = Files::new();
    let inputs = files.inputs(&[r#"{"command": "view", "path": "/memories"}"#]);
    let cases = [
        (
            json!({"memories": [{"path": "/etc/passwd", "text": "x"}]}),
            r#"memories[0] "/etc/passwd": the path is absolute"#,
        ),
        (
            json!({"memories": [{"path": "ok.md", "text": "x"}, {"path": "a/../../x", "text": "x"}]}),
            r#"memories[1] "a/../../x": the path holds `..`"#,
        ),
        (
            json!({"outside": [{"path": "../escape.txt", "text": "x"}]}),
            r#"outside[0] "../escape.txt": the path holds `..`"#,
        ),
        (
            json!({"memories": [{"path": "big.txt", "repeat": {"line": "x", "count": 40_000_000}}]}),
            r#"memories[0] "big.txt": brings the seed over 67108864 bytes"#,
        ),
        (
            json!({"memories": [{"path": "notes.txt", "file_text": "x"}]}),
            r#"memories[0] "notes.txt": unknown key "file_text""#,
        ),
        (
            json!({"outside": [{"path": "memories/x", "text": "x"}]}),
            r#"outside[0] "memories/x": is in the memories folder"#,
        ),
        (
            json!({"memories": [{"path": "x", "text": "1"}, {"path": "x", "text": "2"}]}),
            r#"memories[1] "x": a file already at memories/x"#,
        ),
    ];
    for (i, (seed, expected)) in cases.iter().enumerate() {
        let seed = files.seed(&format!("bad-{i}.json"), seed);
        for command in ["replay", "record"] {
            let output = memspec()
                .arg(command)
                .arg(&inputs)
                .args(["--seed", &seed])
                .args(if command == "replay" {
                    vec!["--report".to_string()]
                } else {
                    vec![
                        "-o".to_string(),
                        files.path("never.jsonl").to_string_lossy().into_owned(),
                    ]
                })
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{command} {seed}: {stderr}");
            assert!(
                stderr.contains(&format!("seed {seed}: {expected}")),
                "{command}: {stderr}"
            );
        }
    }
    assert!(!files.path("never.jsonl").exists());
    // Too many entries.
    let many: Vec<Value> = (0..10_001)
        .map(|i| json!({"path": format!("d{i}"), "dir": true}))
        .collect();
    let seed = files.seed("many.json", &json!({ "memories": many }));
    let (code, _, stderr) = run(&["replay", &inputs, "--seed", &seed, "--report"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("10001 entries, over the limit of 10000"),
        "{stderr}"
    );
}

#[test]
fn a_seed_is_planted_through_the_tool_in_a_store_kept_elsewhere() {
    let files = Files::new();
    let seed = files.seed(
        "seed.json",
        &json!({"memories": [
            {"path": "notes.txt", "text": "- likes tea\n"},
            {"path": "deep/", "dir": true},
            {"path": "deep/plan.md", "text": "step one\n"},
            {"path": "empty/", "dir": true},
            {"path": "bin.dat", "bytes_hex": "ff fe"},
            {"path": "link", "symlink": "../outside.txt"}
        ]}),
    );
    let inputs = files.inputs(&[
        r#"{"command": "view", "path": "/memories/notes.txt"}"#,
        r#"{"command": "view", "path": "/memories/deep/plan.md"}"#,
    ]);
    // A store of keys never reads the folder: without planting through the tool its views of
    // the seed's files would find nothing.
    let kv = format!(
        "python3 {} {{memories}}",
        root().join("tests/backends/kv/correct.py").display()
    );
    let (code, stdout, stderr) = run(&[
        "replay",
        &inputs,
        "--seed",
        &seed,
        "--report",
        "--not-on-folder",
        "--backend",
        &kv,
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for said in [
        "setup: seed planted through the tool (the backend keeps its memories elsewhere): 2 file(s) by `create`",
        "setup: /memories/empty: not planted, an empty folder, which no call makes",
        "setup: /memories/bin.dat: not planted, bytes that are not UTF-8 text",
        "setup: /memories/link: not planted, a symbolic link, which no call makes",
    ] {
        assert!(stdout.contains(said), "{said:?} not in:\n{stdout}");
    }
    assert!(!stdout.contains("/memories/deep: not planted"), "{stdout}");
    // The JSON report carries the same notes.
    let (_, stdout, _) = run(&[
        "replay",
        &inputs,
        "--seed",
        &seed,
        "--report",
        "--format",
        "json",
        "--not-on-folder",
        "--backend",
        &kv,
    ]);
    let planted = report(&stdout)["planted"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(planted.len(), 4, "{planted:?}");
}
