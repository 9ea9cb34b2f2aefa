//! `--python FILE.py:Class` and `--node FILE.mjs:export` run the adapters compiled into the
//! binary, with the same outcomes as the long `--backend '… memspec_adapter.py …'` form.

use std::path::Path;

use super::{memspec, repo, run, sdks_installed, verdict};

const DICT: &str = "adapters/python/examples/dict_backend.py:DictMemoryTool";
const MAP: &str = "adapters/node/examples/map-backend.mjs:makeTool";
const VENV_PYTHON: &str = ".ci/.venv/bin/python";

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn python_matches_the_long_backend_form() {
    if !sdks_installed() {
        return;
    }
    let common = ["--not-on-folder", "--area", "create", "--format", "json"];
    let long = format!("{VENV_PYTHON} adapters/python/memspec_adapter.py {DICT} --base {{base}}");
    let by_command = memspec(&[&["check", "--backend", &long][..], &common].concat());
    let by_flag = memspec(
        &[
            &["check", "--python", DICT, "--python-bin", VENV_PYTHON][..],
            &common,
        ]
        .concat(),
    );
    let (code, word, outcomes) = verdict(&by_flag);
    assert!(!outcomes.is_empty(), "{}", stderr(&by_flag));
    assert_eq!((code, word, outcomes), verdict(&by_command));
    // Reports and baselines name the documented command, not the temporary adapter path.
    let report: serde_json::Value = serde_json::from_slice(&by_flag.stdout).unwrap_or_default();
    assert_eq!(
        report["report"]["backend"],
        format!("{VENV_PYTHON} memspec_adapter.py {DICT} --base {{base}}")
    );
}

#[test]
fn node_matches_the_long_backend_form() {
    if !sdks_installed() {
        return;
    }
    let common = ["--not-on-folder", "--area", "rename", "--format", "json"];
    let long = format!("node adapters/node/memspec-adapter.mjs {MAP} --base {{base}}");
    let by_command = memspec(&[&["check", "--backend", &long][..], &common].concat());
    let by_flag = memspec(&[&["check", "--node", MAP][..], &common].concat());
    let (code, word, outcomes) = verdict(&by_flag);
    assert!(!outcomes.is_empty(), "{}", stderr(&by_flag));
    assert_eq!((code, word, outcomes), verdict(&by_command));
}

#[test]
fn the_active_venv_is_the_default_python_and_the_adapter_folder_goes_away() {
    if !sdks_installed() {
        return;
    }
    let Ok(tmp) = tempfile::tempdir() else {
        panic!("cannot make a temporary folder")
    };
    let venv = repo().join(".ci/.venv");
    let output = run(
        Path::new(env!("CARGO_BIN_EXE_memspec")),
        &[
            "check",
            "--python",
            DICT,
            "--not-on-folder",
            "--case",
            "create.*",
        ],
        &repo(),
        &[
            ("VIRTUAL_ENV", &venv.to_string_lossy()),
            ("TMPDIR", &tmp.path().to_string_lossy()),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // The adapter's folder (and every sandbox) lived in TMPDIR and is gone.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn bad_targets_and_interpreters_are_usage_errors_before_the_run() {
    for (args, says) in [
        (
            &["check", "--python", "no/such/backend.py:Tool"][..],
            "no such file",
        ),
        (
            &[
                "check",
                "--python",
                "adapters/python/examples/dict_backend.py:",
            ][..],
            "after the ':' comes a class or attribute name",
        ),
        (
            &[
                "check",
                "--node",
                "adapters/node/examples/map-backend.mjs:make.Tool",
            ][..],
            "after the ':' comes an export name",
        ),
        (
            &["check", "--python", DICT, "--python-bin", "/no/such/python"][..],
            "is not an executable file",
        ),
        (
            &["check", "--node", MAP, "--node-bin", "no-such-node-binary"][..],
            "is not on PATH",
        ),
        (
            &[
                "check",
                "--python",
                DICT,
                "--backend",
                "python3 x.py {base}",
            ][..],
            "cannot be used with",
        ),
        (
            &["matrix", "--python", DICT][..],
            "write NAME=FILE.py:CLASS",
        ),
        (
            &["matrix", "--node", "map=no-such.mjs:makeTool"][..],
            "no such file",
        ),
    ] {
        let output = memspec(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn matrix_takes_named_python_and_node_backends() {
    if !sdks_installed() {
        return;
    }
    let python = format!("dict={DICT}");
    let node = format!("map={MAP}");
    let output = memspec(&[
        "matrix",
        "--python",
        &python,
        "--python-bin",
        VENV_PYTHON,
        "--node",
        &node,
        "--case",
        "rename.*",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("\"dict\"") && text.contains("\"map\""),
        "{text}"
    );
}

#[test]
fn the_markdown_report_is_appended_beside_another_format() {
    let Ok(tmp) = tempfile::tempdir() else {
        panic!("cannot make a temporary folder")
    };
    let summary = tmp.path().join("summary.md");
    let junit = tmp.path().join("memspec.xml");
    assert!(std::fs::write(&summary, "earlier step\n").is_ok());
    let output = memspec(&[
        "check",
        "--case",
        "create.*",
        "--format",
        "junit",
        "-o",
        &junit.to_string_lossy(),
        "--append-markdown",
        &summary.to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let markdown = std::fs::read_to_string(&summary).unwrap_or_default();
    assert!(markdown.starts_with("earlier step\n"), "{markdown}");
    assert!(markdown.len() > "earlier step\n".len() + 100, "{markdown}");
    let xml = std::fs::read_to_string(&junit).unwrap_or_default();
    assert!(xml.contains("<testsuites"), "{xml}");
}
