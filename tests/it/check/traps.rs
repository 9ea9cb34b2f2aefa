//! The traps a first-time backend author hit (issue 11, item 4): each test here failed before
//! its fix.

use super::{memspec, root, run_command};

const VENV_PYTHON: &str = ".ci/.venv/bin/python";

/// Whether the official SDKs the adapters need are installed (`.ci/install-sdks`).
fn sdks() -> bool {
    root().join(VENV_PYTHON).exists()
        && root()
            .join("adapters/node/node_modules/@anthropic-ai/sdk")
            .exists()
}

/// The README's first Node example exported a ready-made `betaMemoryTool({...})`: its store
/// survived `reset` and cases failed on the files of earlier ones. The adapter now says no, and
/// the run gives the factory's verdicts, one process per case, saying why once.
#[test]
fn a_ready_made_node_tool_runs_one_process_per_case_and_says_why() {
    if !sdks() {
        return;
    }
    let check = |export: &str| {
        run_command(memspec().args([
            "check",
            "--format",
            "json",
            "--not-on-folder",
            "--area",
            "create",
            "-j",
            "2",
            "--node",
            &format!("adapters/node/examples/map-backend.mjs:{export}"),
        ]))
    };
    let ready = check("tool");
    let factory = check("makeTool");
    assert!(!ready.outcomes().is_empty(), "{}", ready.describe());
    assert_eq!(ready.outcomes(), factory.outcomes(), "{}", ready.describe());
    let notes = ready.json()["report"]["notes"].to_string();
    assert!(
        notes.contains("the backend cannot reset its store (")
            && notes.contains("ready-made")
            && notes.contains("one process per case"),
        "{}",
        ready.describe()
    );
    assert!(
        factory.json()["report"]["notes"].is_null(),
        "{}",
        factory.describe()
    );
}

/// The same through the Python adapter, and the human summary says it once.
#[test]
fn a_ready_made_python_tool_says_no_to_reset_and_the_summary_says_why() {
    if !sdks() {
        return;
    }
    let run = run_command(memspec().args([
        "check",
        "--not-on-folder",
        "--area",
        "create",
        "-j",
        "2",
        "--python-bin",
        VENV_PYTHON,
        "--python",
        "tests/backends/ready_made_dict.py:tool",
    ]));
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(
        all.matches("note: the backend cannot reset its store (")
            .count(),
        1,
        "{}",
        run.describe()
    );
    assert!(all.contains("clear_all_memory()"), "{}", run.describe());
    // No case fails on an earlier case's memories: the class gives the same verdict.
    let class = run_command(memspec().args([
        "check",
        "--not-on-folder",
        "--area",
        "create",
        "--python-bin",
        VENV_PYTHON,
        "--python",
        "adapters/python/examples/dict_backend.py:DictMemoryTool",
    ]));
    assert_eq!(
        run.code,
        class.code,
        "{}\n{}",
        run.describe(),
        class.describe()
    );
}
