//! The writes the crash lane kills: each write command, on a small file and on a large one
//! (large enough that a plain write of it is several system calls), beside a memory the command
//! must not touch.

use serde_json::{Value, json};

/// One write to kill at each point of its work.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// `crash.<id>` in reports.
    pub id: &'static str,
    /// What it does, for the report.
    pub title: &'static str,
    /// The memories before the command, created through the tool: (path, text).
    pub setup: Vec<(&'static str, String)>,
    /// The command killed.
    pub command: Value,
    /// Whether its files are large: read back from the disk only (a view of them is cut).
    pub large: bool,
}

/// A memory every scenario holds and no command touches: still there, byte for byte, or the
/// crash cost more than the command's own file.
pub const BYSTANDER: &str = "/memories/context.md";

fn bystander() -> (&'static str, String) {
    (
        BYSTANDER,
        "# Context\n- the user prefers short answers\n".to_string(),
    )
}

fn small() -> String {
    (1..=5).map(|i| format!("note {i}: keep\n")).collect()
}

/// About 256 KiB in 2,000 lines: written in place, it takes several `write` calls in most
/// runtimes' buffered I/O.
fn large() -> String {
    (1..=2000)
        .map(|i| format!("line {i:04}: {}\n", "x".repeat(120)))
        .collect()
}

/// Every scenario, in report order.
pub fn all() -> Vec<Scenario> {
    let notes = "/memories/notes.md";
    let mut scenarios = Vec::new();
    for large_file in [false, true] {
        let text = if large_file { large() } else { small() };
        let edited = |id, title, command: Value| Scenario {
            id,
            title,
            setup: vec![bystander(), (notes, text.clone())],
            command,
            large: large_file,
        };
        let (create_new, create_onto, replace, insert) = if large_file {
            (
                "create.new-large",
                "create.onto-existing-large",
                "str-replace.large",
                "insert.large",
            )
        } else {
            (
                "create.new-small",
                "create.onto-existing-small",
                "str-replace.small",
                "insert.small",
            )
        };
        scenarios.push(Scenario {
            id: create_new,
            title: if large_file {
                "create a new large file"
            } else {
                "create a new small file"
            },
            setup: vec![bystander()],
            command: json!({"command": "create", "path": notes, "file_text": text}),
            large: large_file,
        });
        scenarios.push(edited(
            create_onto,
            if large_file {
                "create onto an existing large file"
            } else {
                "create onto an existing small file"
            },
            json!({"command": "create", "path": notes, "file_text": text.replace("keep", "kept").replace(": x", ": y")}),
        ));
        scenarios.push(edited(
            replace,
            if large_file {
                "str_replace in a large file"
            } else {
                "str_replace in a small file"
            },
            if large_file {
                json!({"command": "str_replace", "path": notes, "old_str": "line 1000:", "new_str": "line 1000 (edited):"})
            } else {
                json!({"command": "str_replace", "path": notes, "old_str": "note 3: keep", "new_str": "note 3: edited"})
            },
        ));
        scenarios.push(edited(
            insert,
            if large_file {
                "insert into a large file"
            } else {
                "insert into a small file"
            },
            json!({"command": "insert", "path": notes, "insert_line": 2, "insert_text": "inserted line\n"}),
        ));
    }
    let folder = || {
        vec![
            bystander(),
            ("/memories/projects/a.md", "project a\n".to_string()),
            ("/memories/projects/b.md", "project b\n".to_string()),
            (
                "/memories/projects/c/d.md",
                "project c, part d\n".to_string(),
            ),
        ]
    };
    scenarios.push(Scenario {
        id: "delete.file",
        title: "delete a file",
        setup: vec![bystander(), (notes, small())],
        command: json!({"command": "delete", "path": notes}),
        large: false,
    });
    scenarios.push(Scenario {
        id: "delete.folder",
        title: "delete a folder of three files",
        setup: folder(),
        command: json!({"command": "delete", "path": "/memories/projects"}),
        large: false,
    });
    scenarios.push(Scenario {
        id: "rename.file",
        title: "rename a file",
        setup: vec![bystander(), (notes, small())],
        command: json!({"command": "rename", "old_path": notes, "new_path": "/memories/archive.md"}),
        large: false,
    });
    scenarios.push(Scenario {
        id: "rename.folder",
        title: "rename a folder of three files",
        setup: folder(),
        command: json!({"command": "rename", "old_path": "/memories/projects", "new_path": "/memories/done"}),
        large: false,
    });
    scenarios
}

/// Every memory path either state of `scenario` can hold: its setup's files, the command's
/// paths, and a renamed folder's files at their new paths.
pub fn watched(scenario: &Scenario) -> Vec<String> {
    let mut paths: Vec<String> = scenario
        .setup
        .iter()
        .map(|(p, _)| (*p).to_string())
        .collect();
    let field = |name: &str| scenario.command.get(name).and_then(Value::as_str);
    if let Some(path) = field("path") {
        paths.push(path.to_string());
    }
    if let (Some(old), Some(new)) = (field("old_path"), field("new_path")) {
        paths.push(new.to_string());
        for (path, _) in &scenario.setup {
            if let Some(rest) = path.strip_prefix(old).filter(|r| r.starts_with('/')) {
                paths.push(format!("{new}{rest}"));
            }
        }
    }
    paths.sort();
    paths.dedup();
    // A folder is no file to read back: its files are.
    let folders: Vec<String> = paths
        .iter()
        .filter(|p| paths.iter().any(|q| q.starts_with(&format!("{p}/"))))
        .cloned()
        .collect();
    paths.retain(|p| !folders.contains(p));
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_folder_is_watched_at_both_paths() {
        let rename = all()
            .into_iter()
            .find(|s| s.id == "rename.folder")
            .expect("the scenario exists");
        let paths = watched(&rename);
        assert!(paths.contains(&"/memories/done/c/d.md".to_string()));
        assert!(paths.contains(&"/memories/projects/a.md".to_string()));
        assert!(!paths.contains(&"/memories/projects".to_string()));
    }
}
