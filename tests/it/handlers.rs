//! Every shape of handler, one flag away: plain functions taking the tool input (sync and
//! async) and functions taking a `tool_use` block, in Python (`--python`) and Node (`--node`),
//! served by the adapters compiled into the binary. Each example passes the suite with
//! `--strict`; with its planted bug switched on (`MEMSPEC_EXAMPLE_BUG`) it fails under the rule
//! of that bug.

use crate::check::{memspec, root, run_command};

/// (flag, example, planted bug, the rule its root cause must name).
const EXAMPLES: &[(&str, &str, &str, &str)] = &[
    (
        "--python",
        "adapters/python/examples/handle_input.py:handle",
        "replace-all",
        "str-replace.exactly-one",
    ),
    (
        "--python",
        "adapters/python/examples/handle_async.py:handle",
        "view-range-off-by-one",
        "view.view-range",
    ),
    (
        "--python",
        "adapters/python/examples/handle_tool_use.py:handle",
        "delete-root",
        "delete.not-root",
    ),
    (
        "--node",
        "adapters/node/examples/handle-input.mjs:handle",
        "create-appends-newline",
        "create.writes-file-text",
    ),
    (
        "--node",
        "adapters/node/examples/handle-async.mjs:handle",
        "rename-overwrites",
        "rename.no-overwrite",
    ),
    (
        "--node",
        "adapters/node/examples/handle-tool-use.mjs:handle",
        "replace-expands-dollar",
        "str-replace.replaces",
    ),
];

#[test]
fn each_handler_shape_passes_strict_through_its_flag() {
    for (flag, target, _, _) in EXAMPLES {
        let target = root().join(target);
        let mut command = memspec();
        command
            .args(["check", "--strict", flag])
            .arg(&target)
            .env_remove("MEMSPEC_EXAMPLE_BUG");
        let run = run_command(&mut command);
        assert_eq!(
            run.code,
            0,
            "{flag} {}: {}",
            target.display(),
            run.describe()
        );
        assert!(
            run.stdout.contains(" 0 failed, 0 warned,")
                && run.stdout.contains("verdict: conformant"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn each_planted_bug_is_a_root_cause_under_its_own_rule() {
    for (flag, target, bug, rule) in EXAMPLES {
        let target = root().join(target);
        let mut command = memspec();
        command
            .args(["check", "--format", "json", "--rule", rule, flag])
            .arg(&target)
            .env("MEMSPEC_EXAMPLE_BUG", bug);
        let run = run_command(&mut command);
        assert_eq!(run.code, 1, "{bug}: {}", run.describe());
        let report = run.json();
        let first = &report["root_causes"][0];
        assert_eq!(first["rule"], *rule, "{bug}: {first}");
        assert_eq!(first["level"], "MUST", "{bug}: {first}");
    }
}
