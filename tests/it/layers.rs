//! The layers of DESIGN.md, enforced: each module of `src/` names only itself and the modules
//! this table lets it use, so a lower layer never imports a higher one (the session never
//! learns the suite's types; the judge never calls a command).

use std::collections::BTreeMap;
use std::path::Path;

/// Each top-level module of the library, with the modules it may use.
const ALLOWED: &[(&str, &[&str])] = &[
    // The building blocks of the JSON Schemas, named by the types of every layer.
    ("schema", &[]),
    ("protocol", &["schema"]),
    ("diff", &[]),
    ("rng", &[]),
    ("builtin", &[]),
    ("spec", &["schema", "builtin"]),
    ("reference", &["schema", "spec", "protocol", "diff"]),
    ("transcript", &["schema", "spec", "protocol"]),
    (
        "backend",
        &["schema", "reference", "spec", "protocol", "builtin"],
    ),
    (
        "serve",
        &["schema", "backend", "reference", "spec", "protocol"],
    ),
    (
        "exec",
        &["schema", "backend", "reference", "spec", "protocol"],
    ),
    ("suite", &["schema", "exec", "spec", "protocol", "builtin"]),
    (
        "judge",
        &[
            "suite",
            "exec",
            "reference",
            "spec",
            "protocol",
            "builtin",
            "diff",
            "schema",
        ],
    ),
    (
        "report",
        &["judge", "suite", "spec", "protocol", "diff", "schema"],
    ),
    // The schema files, made from the types of every layer below the commands.
    (
        "schemas",
        &[
            "report", "judge", "suite", "exec", "spec", "protocol", "schema",
        ],
    ),
    (
        "check",
        &[
            "report",
            "judge",
            "suite",
            "exec",
            "backend",
            "reference",
            "spec",
            "protocol",
            "builtin",
            "rng",
        ],
    ),
    (
        "replay",
        &[
            "report",
            "judge",
            "suite",
            "exec",
            "backend",
            "reference",
            "transcript",
            "spec",
            "protocol",
            "diff",
        ],
    ),
    (
        "fuzz",
        &[
            "check",
            "replay",
            "report",
            "judge",
            "suite",
            "exec",
            "backend",
            "reference",
            "transcript",
            "spec",
            "protocol",
            "builtin",
            "rng",
        ],
    ),
    // Every error's exit class: above the commands whose errors it classifies.
    ("exit", &["check", "replay", "fuzz"]),
    (
        "tui",
        &[
            "replay",
            "judge",
            "exec",
            "transcript",
            "spec",
            "protocol",
            "diff",
        ],
    ),
];

/// `crate::x` and `memspec::x` names in `source`, outside comments, with their line numbers.
fn uses(source: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        for prefix in ["crate::", "memspec::"] {
            for (at, _) in line.match_indices(prefix) {
                let name: String = line[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push((number + 1, name));
                }
            }
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut broken = Vec::new();
    let mut seen_modules = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file);
        let top = relative
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        // The binary and the crate root wire everything; the CLI sits on top of everything.
        if ["main", "lib", "cli"].contains(&top.as_str()) {
            continue;
        }
        let Some(may) = allowed.get(top.as_str()) else {
            broken.push(format!(
                "{}: module `{top}` is not in the table of layers (tests/it/layers.rs)",
                relative.display()
            ));
            continue;
        };
        seen_modules += 1;
        let source = std::fs::read_to_string(file).unwrap_or_default();
        for (line, name) in uses(&source) {
            if name != top && !may.contains(&name.as_str()) {
                broken.push(format!(
                    "{}:{line}: `{top}` uses `{name}`, a layer it may not use",
                    relative.display()
                ));
            }
        }
    }
    assert!(
        seen_modules > 50,
        "too few source files read: {seen_modules}"
    );
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_scan_sees_a_use_and_skips_comments() {
    let found = uses(
        "use crate::judge::grade;\n// crate::cli is named here\nlet x = memspec::suite::case::Level::Must; // crate::tui\n",
    );
    assert_eq!(found, [(1, "judge".to_string()), (3, "suite".to_string())]);
}
