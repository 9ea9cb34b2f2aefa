//! The recipes of `adapters/recipes/`: backends that are not plain classes (a LangChain
//! middleware, an inspect_ai tool, Redis and SQLite stores), each driven through `memspec check`.
//!
//! Each test runs the real binary with `--python adapters/recipes/…` and the interpreter of
//! `.ci/.venv-recipes` (made by `.ci/install-recipes`, which `.ci/run` runs), under the default
//! revision. The two stores must pass the whole suite with no failure, warning or error. The two
//! libraries' tools are what they are: each must match its checked-in baseline exactly (the very
//! failing and warning cases, no error) on the areas the baseline was written for, so a change in
//! the library, the recipe or those areas shows here, and a new area does not break them until
//! `adapters/recipes/write-baselines` adds it.
//!
//! Without the venv (or `redis-server`) the tests are skipped with the reason on stderr, on a
//! developer's machine; under CI (`CI` set) a missing install fails them.

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::check::{Run, memspec, root, run_command};

/// The recipes' interpreter, relative to the package root.
const PYTHON: &str = ".ci/.venv-recipes/bin/python";

/// Whether `.ci/install-recipes` has run; panics under CI when it has not.
fn installed() -> bool {
    let present = root().join(PYTHON).exists();
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "the recipes' venv is missing: run `bash .ci/install-recipes` (.ci/run does)"
        );
        eprintln!("skipped: the recipes' venv is missing; run `bash .ci/install-recipes`");
    }
    present
}

/// `redis-server` on PATH, if any; panics under CI when it is not there.
fn redis_server() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("redis-server"))
            .find(|path| path.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "redis-server is missing: run `bash .ci/install-recipes` (.ci/run does)"
        );
        eprintln!("skipped: redis-server is missing; run `bash .ci/install-recipes`");
    }
    found
}

/// `memspec check --format json` of one recipe target, with `args` and `env`.
///
/// `--no-recheck`: the recipes are deterministic, so running each failing case again alone
/// (what a flaky backend needs) would only double the time.
fn check(target: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = memspec();
    command
        .args(["check", "--format", "json", "--no-recheck", "-j", "2"])
        .args(["--python", target, "--python-bin", PYTHON])
        .args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    run_command(&mut command)
}

/// Case ids by outcome, from a JSON report.
fn with_outcome(run: &Run, outcome: &str) -> BTreeSet<String> {
    run.results()
        .iter()
        .filter(|r| r["outcome"] == outcome)
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect()
}

/// A store recipe: conformant, and not one failure, warning or error.
#[track_caller]
fn assert_clean(name: &str, run: &Run) {
    assert_eq!(run.code, 0, "{name}: {}", run.describe());
    for outcome in ["error", "fail", "warn"] {
        let cases = with_outcome(run, outcome);
        assert!(cases.is_empty(), "{name}: {outcome} in {cases:?}");
    }
    let passed = with_outcome(run, "pass").len();
    assert!(passed > 400, "{name}: only {passed} cases passed");
}

/// A library recipe against its baseline: the run matches it exactly (memspec's exit 0), no case
/// broke, and the failing cases are exactly the baseline's `fail` entries.
#[track_caller]
fn assert_matches_baseline(name: &str, baseline: &Path, run: &Run) {
    assert_eq!(
        run.code,
        0,
        "{name}: the run differs from {}: {:#}\n{}",
        baseline.display(),
        run.json()["report"]["baseline_problems"],
        run.stderr
    );
    let broke = with_outcome(run, "error");
    assert!(broke.is_empty(), "{name}: the backend broke in {broke:?}");
    let text = std::fs::read_to_string(baseline)
        .unwrap_or_else(|e| panic!("{name}: {}: {e}", baseline.display()));
    let accepted: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{name}: {}: {e}", baseline.display()));
    let expected: BTreeSet<String> = accepted["accepted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| entry["outcome"] == "fail")
        .filter_map(|entry| entry["case"].as_str().map(str::to_string))
        .collect();
    assert!(
        !expected.is_empty(),
        "{name}: the baseline lists no failure"
    );
    assert_eq!(with_outcome(run, "fail"), expected, "{name}: failing cases");
}

/// A free loopback port: bound, read and released (the server binds it right after).
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
    listener.local_addr().expect("the bound address").port()
}

/// A `redis-server` of the test's own, killed when dropped (so a failing assert stops it too).
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    fn start(server: &Path) -> Redis {
        let port = free_port();
        let child = Command::new(server)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            // No RDB snapshot, no append-only file: nothing is written to the working folder.
            .args(["--save", "", "--appendonly", "no"])
            .current_dir(std::env::temp_dir())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", server.display()));
        let mut redis = Redis { child, port };
        redis.wait_until_it_answers();
        redis
    }

    /// Until `PING` gets `+PONG` (at most 10 s).
    fn wait_until_it_answers(&mut self) {
        use std::io::{Read, Write};
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("redis-server on port {} exited: {status}", self.port);
            }
            if let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)) {
                let mut reply = [0u8; 7];
                let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
                if stream.write_all(b"PING\r\n").is_ok()
                    && stream.read_exact(&mut reply).is_ok()
                    && &reply == b"+PONG\r\n"
                {
                    return;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server on port {} did not answer within 10 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sqlite_store_passes_the_suite() {
    if !installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder for the databases");
    let db = dir.path().join("memories-{worker}.db");
    let run = check(
        "adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool",
        &["--not-on-folder"],
        &[(
            "MEMORY_SQLITE_PATH",
            db.to_str().expect("a UTF-8 temp path"),
        )],
    );
    assert_clean("sqlite", &run);
    // One database per worker, where the variable said, none in the memories folder.
    for worker in ["0", "1"] {
        let path = dir.path().join(format!("memories-{worker}.db"));
        assert!(path.is_file(), "no database {}", path.display());
    }
}

#[test]
fn redis_store_passes_the_suite() {
    if !installed() {
        return;
    }
    let Some(server) = redis_server() else {
        return;
    };
    let redis = Redis::start(&server);
    let run = check(
        "adapters/recipes/redis/redis_memory.py:RedisMemoryTool",
        &["--not-on-folder"],
        &[
            ("MEMORY_REDIS_URL", &redis.url()),
            ("MEMORY_REDIS_PREFIX", "memspec-test"),
        ],
    );
    assert_clean("redis", &run);
}

/// The users cases a naive mapping of each store gets wrong: `LIKE` ids (wildcards, case), a
/// key prefix without a separator (`u1`, `u10`), a glob of the id, two users on one path.
const USERS_CASES: [&str; 10] = [
    "--case",
    "users.apart",
    "--case",
    "users.prefix-ids",
    "--case",
    "users.like-underscore",
    "--case",
    "users.glob-star",
    "--case",
    "users.case-ids",
];

/// The SQLite and Redis recipes serve many users on one database (`--per-user`): every users
/// case above passes, and nothing is skipped.
#[test]
fn sqlite_and_redis_stores_keep_their_users_apart() {
    if !installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder for the databases");
    let db = dir.path().join("users-{worker}.db");
    let mut args = vec!["--not-on-folder", "--per-user"];
    args.extend(USERS_CASES);
    let run = check(
        "adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool",
        &args,
        &[(
            "MEMORY_SQLITE_PATH",
            db.to_str().expect("a UTF-8 temp path"),
        )],
    );
    assert_eq!(run.code, 0, "sqlite: {}", run.describe());
    assert_eq!(with_outcome(&run, "pass").len(), 5, "{}", run.describe());
    let Some(server) = redis_server() else {
        return;
    };
    let redis = Redis::start(&server);
    let run = check(
        "adapters/recipes/redis/redis_memory.py:RedisMemoryTool",
        &args,
        &[
            ("MEMORY_REDIS_URL", &redis.url()),
            ("MEMORY_REDIS_PREFIX", "memspec-users"),
        ],
    );
    assert_eq!(run.code, 0, "redis: {}", run.describe());
    assert_eq!(with_outcome(&run, "pass").len(), 5, "{}", run.describe());
}

#[test]
fn langchain_state_middleware_matches_its_baseline() {
    if !installed() {
        return;
    }
    let baseline = root().join("adapters/recipes/langchain/state-memory.baseline.json");
    let run = check(
        "adapters/recipes/langchain/langchain_memory.py:state_memory",
        &with_areas(
            &["--not-on-folder", "--baseline", path_arg(&baseline)],
            &SUITE_AREAS,
        ),
        &[],
    );
    assert_matches_baseline("langchain state_memory", &baseline, &run);
}

/// The Filesystem middleware on the command areas only: on a named pipe (the `errors` area) the
/// library blocks in `open` until memspec's timeout kills it, which a baseline records as an
/// error and which would cost the timeout each run.
#[test]
fn langchain_filesystem_middleware_matches_its_baseline() {
    if !installed() {
        return;
    }
    let baseline = root().join("adapters/recipes/langchain/filesystem-memory.baseline.json");
    let run = check(
        "adapters/recipes/langchain/langchain_memory.py:filesystem_memory",
        &with_areas(&["--baseline", path_arg(&baseline)], &FILESYSTEM_AREAS),
        &[],
    );
    assert_matches_baseline("langchain filesystem_memory", &baseline, &run);
}

/// The areas `langchain_filesystem_middleware_matches_its_baseline` runs (its baseline's too).
const FILESYSTEM_AREAS: [&str; 7] = [
    "create",
    "view-dir",
    "view-file",
    "str-replace",
    "insert",
    "delete",
    "rename",
];

#[test]
fn inspect_ai_memory_matches_its_baseline() {
    if !installed() {
        return;
    }
    let baseline = root().join("adapters/recipes/inspect_ai/inspect-memory.baseline.json");
    let run = check(
        "adapters/recipes/inspect_ai/inspect_memory.py:InspectMemoryTool",
        &with_areas(
            &["--not-on-folder", "--baseline", path_arg(&baseline)],
            &SUITE_AREAS,
        ),
        &[],
    );
    assert_matches_baseline("inspect_ai memory()", &baseline, &run);
}

/// The areas of the suite when the State middleware's and inspect_ai's baselines were written
/// (`adapters/recipes/write-baselines` has the same list): all of them, then.
const SUITE_AREAS: [&str; 15] = [
    "create",
    "delete",
    "encoding",
    "errors",
    "ga-views",
    "insert",
    "malformed",
    "paths",
    "rename",
    "scale",
    "str-replace",
    "symlinks",
    "view-dir",
    "view-file",
    "view-range",
];

/// `args` followed by `--area A` for each of `areas`.
fn with_areas<'a>(args: &[&'a str], areas: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    for area in areas {
        all.extend(["--area", area]);
    }
    all
}

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("the package root is a UTF-8 path")
}

/// A store that keeps its memories elsewhere (one SQLite file, kept between runs) starts clean
/// in every replay and every fuzz run: each command resets the backend before its first call,
/// so two runs in a row give the same result (before, the second replay's creates found the
/// first one's files, and fuzz found false divergences).
#[test]
fn a_persistent_store_gives_the_same_result_twice_in_a_row() {
    if !installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder for the database");
    let db = dir.path().join("kept.db");
    let db = db.to_str().expect("a UTF-8 temp path");
    let target = "adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool";
    let run = |args: &[&str]| {
        let mut command = memspec();
        command
            .args(args)
            .args(["--python", target, "--python-bin", PYTHON])
            .env("MEMORY_SQLITE_PATH", db);
        run_command(&mut command)
    };
    let replay = [
        "replay",
        "tests/fixtures/transcripts/messages.json",
        "--report",
        "--not-on-folder",
    ];
    // What is not timed: the lines with a rate, an elapsed time or a median left out.
    let timing = |stdout: &str| {
        stdout
            .lines()
            .filter(|l| {
                !l.contains(" steps/s") && !l.contains(" s,") && !l.contains(" µs per call")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = run(&replay);
    let second = run(&replay);
    assert_eq!(first.code, 0, "{}", first.describe());
    assert_eq!(
        (first.code, timing(&first.stdout)),
        (second.code, timing(&second.stdout)),
        "{}",
        second.describe()
    );
    let fuzz = ["fuzz", "--not-on-folder", "--seed", "3", "--steps", "300"];
    let first = run(&fuzz);
    let second = run(&fuzz);
    assert_eq!(first.code, 0, "{}", first.describe());
    assert_eq!(timing(&first.stdout), timing(&second.stdout));
}
