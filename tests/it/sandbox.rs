//! Property test of the harness's own sandbox code (`memspec::exec`): random trees of links
//! (to a victim folder outside, to files, to themselves), FIFOs, deep folders, read-only folders
//! and changed modes are planted in a sandbox between the harness's operations, as a hostile
//! backend would. Whatever is planted, every operation ends (no open blocks on a FIFO, no
//! recursion), the victim folder outside is byte for byte unchanged, and the sandbox is gone
//! afterwards.

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use memspec::exec::Sandbox;
use memspec::exec::plant::{Fixture, FixtureKind};
use memspec::suite::case::EffectKind;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

/// One thing a backend may put somewhere in its sandbox.
#[derive(Debug, Clone)]
enum Plant {
    /// A link to the victim folder (or a file in it).
    LinkToVictim { file: bool },
    /// A link to itself.
    Loop,
    /// A named pipe.
    Fifo,
    /// A folder `depth` levels deep with a file at the bottom.
    Deep { depth: usize },
    /// A folder made unreadable and unwritable (chmod 000).
    Locked,
    /// A big sparse file.
    Sparse,
    /// The mode of an existing canary changed.
    Chmod,
}

fn plant() -> impl Strategy<Value = Plant> {
    prop_oneof![
        any::<bool>().prop_map(|file| Plant::LinkToVictim { file }),
        Just(Plant::Loop),
        Just(Plant::Fifo),
        (1usize..600).prop_map(|depth| Plant::Deep { depth }),
        Just(Plant::Locked),
        Just(Plant::Sparse),
        Just(Plant::Chmod),
    ]
}

/// Where: a name the harness uses (fixture names, canaries, `memories` itself) or a fresh one.
fn place() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "memories/notes.txt",
        "memories/sub",
        "memories/sub/x.txt",
        "memories/new",
        "canary.txt",
        "outside/secret.txt",
        "memoriesX",
        "memories",
        "fresh",
    ])
}

/// A harness operation run between plantings.
#[derive(Debug, Clone, Copy)]
enum Operation {
    Outside,
    Audit,
    Specials,
    Fixture,
    Effect,
    Clear,
}

fn operation() -> impl Strategy<Value = Operation> {
    prop::sample::select(vec![
        Operation::Outside,
        Operation::Audit,
        Operation::Specials,
        Operation::Fixture,
        Operation::Effect,
        Operation::Clear,
    ])
}

/// Names, kinds, modes, link targets and bytes of everything below `root`.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut seen = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(listing) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in listing.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let mode = meta.permissions().mode();
            let what = if meta.file_type().is_symlink() {
                format!("link {:?}", std::fs::read_link(&path).ok())
            } else if meta.is_dir() {
                stack.push(path.clone());
                format!("dir {mode:o}")
            } else {
                format!("file {mode:o} {:?}", std::fs::read(&path).ok())
            };
            seen.insert(path, what);
        }
    }
    seen
}

/// Plants `what` at `place` in the sandbox, replacing what is there, the way a backend would
/// (by path, following nothing it does not mean to).
fn do_plant(base: &Path, victim: &Path, place: &str, what: &Plant) {
    let at = base.join(place);
    // A backend writing through a link it planted itself changes the victim on its own: that
    // is not the harness's doing, so this planter never goes through one.
    let mut above = at.parent();
    while let Some(dir) = above.filter(|d| d.starts_with(base) && *d != base) {
        if std::fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return;
        }
        above = dir.parent();
    }
    if let Some(parent) = at.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let clear = |at: &Path| {
        if std::fs::symlink_metadata(at).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::set_permissions(at, std::fs::Permissions::from_mode(0o755));
            let _ = std::fs::remove_dir_all(at);
        } else {
            let _ = std::fs::remove_file(at);
        }
    };
    match what {
        Plant::LinkToVictim { file } => {
            clear(&at);
            let target = if *file {
                victim.join("precious.txt")
            } else {
                victim.to_path_buf()
            };
            let _ = symlink(target, &at);
        }
        Plant::Loop => {
            clear(&at);
            let _ = symlink(&at, &at);
        }
        Plant::Fifo => {
            clear(&at);
            let _ = rustix::fs::mknodat(
                rustix::fs::CWD,
                &at,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o644),
                0,
            );
        }
        Plant::Deep { depth } => {
            clear(&at);
            let mut path = at.clone();
            for _ in 0..*depth {
                path.push("d");
            }
            if std::fs::create_dir_all(&path).is_ok() {
                let _ = std::fs::write(path.join("bottom.txt"), "x");
            }
        }
        Plant::Locked => {
            clear(&at);
            if std::fs::create_dir(&at).is_ok() {
                let _ = std::fs::write(at.join("inside.txt"), "x");
                let _ = std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o000));
            }
        }
        Plant::Sparse => {
            clear(&at);
            if let Ok(file) = std::fs::File::create(&at) {
                let _ = file.set_len(1 << 30);
            }
        }
        Plant::Chmod => {
            // chmod follows links; the planter changes only what is really in the sandbox.
            if std::fs::symlink_metadata(&at).is_ok_and(|m| !m.file_type().is_symlink()) {
                let _ = std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o000));
            }
        }
    }
}

fn run_operation(sandbox: &Sandbox, operation: Operation) {
    match operation {
        Operation::Outside => {
            let _ = sandbox.outside();
        }
        Operation::Audit => {
            let _ = sandbox.audit();
        }
        Operation::Specials => {
            let _ = sandbox.specials_in_memories(8);
        }
        Operation::Fixture => {
            for (path, kind) in [
                ("notes.txt", FixtureKind::Text("hello\n".to_string())),
                ("sub/x.txt", FixtureKind::Text("x\n".to_string())),
                ("new", FixtureKind::Dir(true)),
            ] {
                let _ = sandbox.apply(&Fixture {
                    path: path.to_string(),
                    kind,
                });
            }
        }
        Operation::Effect => {
            for (path, expect) in [
                (
                    "/memories/notes.txt",
                    EffectKind::FileText("hello\n".to_string()),
                ),
                ("/memories/sub/x.txt", EffectKind::File(true)),
                ("/memories/sub", EffectKind::Dir(true)),
                ("/memories/new", EffectKind::Absent(true)),
            ] {
                let _ = memspec::judge::disk::see(sandbox, path, &expect);
            }
        }
        Operation::Clear => {
            let _ = sandbox.clear();
        }
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 48,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    })]

    #[test]
    fn nothing_planted_in_a_sandbox_reaches_outside_it(
        steps in prop::collection::vec((place(), plant(), operation()), 1..10),
    ) {
        let tmp = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let victim = tmp.path().join("victim");
        std::fs::create_dir_all(victim.join("folder"))
            .and_then(|()| std::fs::write(victim.join("precious.txt"), "precious\n"))
            .and_then(|()| std::fs::write(victim.join("folder/deep.txt"), "deep\n"))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let before = snapshot(&victim);
        let sandboxes = tmp.path().join("sandboxes");
        std::fs::create_dir(&sandboxes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let sandbox = Sandbox::new_in(&sandboxes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let base = sandbox.base().to_path_buf();
        for (place, what, operation) in &steps {
            do_plant(&base, &victim, place, what);
            run_operation(&sandbox, *operation);
        }
        let left = sandbox.remove();
        prop_assert_eq!(snapshot(&victim), before, "the victim outside the sandbox changed");
        prop_assert!(left.is_empty(), "left behind: {:?}", left);
        let remaining: Vec<_> = std::fs::read_dir(&sandboxes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .flatten()
            .map(|e| e.path())
            .collect();
        prop_assert!(remaining.is_empty(), "sandbox not removed: {:?}", remaining);
    }
}

/// The rules confinement findings are graded under in these tests.
fn confinement_rules() -> memspec::spec::Always {
    use memspec::spec::Level;
    use memspec::spec::known;
    use memspec::spec::{Always, Graded};
    Always {
        confinement: Graded {
            rule: known::CONFINEMENT,
            level: Level::Must,
        },
        host_paths: Graded {
            rule: known::NO_HOST_PATHS,
            level: Level::Should,
        },
        users: Graded {
            rule: known::USERS_ISOLATED,
            level: Level::Must,
        },
    }
}

fn timeouts() -> memspec::backend::Timeouts {
    memspec::backend::Timeouts {
        call: std::time::Duration::from_secs(10),
        startup: std::time::Duration::from_secs(10),
    }
}

#[test]
fn a_session_resets_checks_confinement_and_removes_its_sandbox() {
    use memspec::backend::BackendSpec;
    use memspec::exec::{Reset, Session};
    use memspec::judge::Check;
    use memspec::judge::confinement::findings;
    use serde_json::json;

    let rules = confinement_rules();
    let mut session = Session::start(
        &BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        timeouts(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let base = session.sandbox().base().to_path_buf();
    let create = json!({"command": "create", "path": "/memories/a.md", "file_text": "a\n"});
    let answer = session.call(&create).unwrap_or_else(|e| panic!("{e}"));
    assert!(!answer.is_error, "{answer:?}");
    assert!(session.check_answer(&create, &answer).is_empty());
    // An answer quoting a canary, or the host path the input did not spell: one finding each.
    let mut leaky = answer.clone();
    leaky.text = format!(
        "{} {}",
        base.display(),
        std::fs::read_to_string(base.join("canary.txt")).unwrap_or_default()
    );
    let breaches = session.check_answer(&create, &leaky);
    let checks: Vec<Check> = findings(breaches, &rules, Some(0), "now")
        .iter()
        .map(|f| f.check)
        .collect();
    assert_eq!(checks, [Check::HostPath, Check::Leak]);
    // Something new beside `memories/`: an outside finding, reported once.
    std::fs::write(base.join("stray.txt"), "x").unwrap_or_else(|e| panic!("{e}"));
    let confined = session.check_sandbox();
    assert!(confined.damaged);
    assert_eq!(
        findings(confined.breaches, &rules, None, "now")
            .iter()
            .map(|f| f.check)
            .collect::<Vec<_>>(),
        [Check::Outside]
    );
    assert!(session.check_sandbox().breaches.is_empty());
    // `reset` empties the memories and rebuilds the sandbox, whatever was left beside it.
    assert_eq!(session.reset(), Reset::Clean);
    assert!(!base.join("memories/a.md").exists());
    assert!(!base.join("stray.txt").exists());
    assert!(base.join("canary.txt").is_file());
    assert!(session.discard().is_empty());
    assert!(!base.exists());
}

#[test]
fn a_session_restarts_a_broken_backend_until_it_broke_three_times_in_a_row() {
    use memspec::backend::BackendSpec;
    use memspec::exec::{Fault, Session, session::RESTART_LIMIT};

    let sandbox = Sandbox::new().unwrap_or_else(|e| panic!("{e}"));
    let base = sandbox.base().to_path_buf();
    // Reads its request, says something on stderr and exits: a crash on every call.
    let spec = BackendSpec::command("read line; echo oops >&2; exit 1 # {memories}", None);
    let mut session = Session::on(sandbox, &spec, timeouts());
    let input = serde_json::json!({"command": "view", "path": "/memories"});
    for _ in 0..RESTART_LIMIT {
        match session.call(&input) {
            Err(Fault::Backend(broke)) => {
                assert!(broke.reason.contains("exited before answering"), "{broke}");
                assert!(broke.to_string().contains("stderr: oops"), "{broke}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        session.call(&input),
        Err(Fault::GaveUp {
            breaks: RESTART_LIMIT
        })
    );
    session.discard();
    assert!(!base.exists());
}
