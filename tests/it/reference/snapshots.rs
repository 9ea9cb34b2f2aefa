//! insta snapshots of what the reference answers over a realistic memories folder.
//!
//! Each snapshot is a session: every input, its `is_error` flag and its text. insta ignores
//! trailing whitespace and `\r\n` vs `\n`, so the text is shown with `\r` as `␍` and each
//! answer closes with a `■` line; the exact bytes are pinned by `strings.rs`.

use serde_json::{Value, json};

use super::{Sandbox, create, delete, insert, rename, str_replace, view, view_range};

/// Runs `inputs` in order and renders the session.
fn session(sb: &Sandbox, inputs: &[Value]) -> String {
    let mut out = String::new();
    for input in inputs {
        let result = sb.call(input);
        out.push_str(&format!(
            "▶ {input}\n◀ is_error: {}\n{}\n■\n",
            result.is_error,
            result.text.replace('\r', "␍")
        ));
    }
    out
}

fn snap(name: &str, value: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(format!("reference__{name}").as_str(), value));
}

/// A memories folder like one Claude builds over a few conversations, with the things a listing
/// must leave out (hidden files, node_modules, symlinks) and a file in every text shape.
fn realistic() -> Sandbox {
    let sb = Sandbox::new();
    std::fs::create_dir(sb.base.join("outside")).unwrap();
    std::fs::write(sb.base.join("outside/secret.txt"), "outside secret\n").unwrap();
    sb.write(
        "customer_service_guidelines.xml",
        "<guidelines>\n<addressing_customers>\n- Always address customers by their first name\n- Use empathetic language\n</addressing_customers>\n</guidelines>\n",
    );
    sb.write(
        "refund_policies.xml",
        "<refunds>\n".to_string()
            + &"  <rule>30 days, receipt required</rule>\n".repeat(40)
            + "</refunds>\n",
    );
    sb.write(
        "user_preferences.md",
        "# Préférences\n- Langue : français\n- Café ☕ sans sucre\n- 日本語 OK\n",
    );
    sb.write(
        "crlf_notes.txt",
        "first line\r\nsecond line\r\n\r\nfourth line\r\n",
    );
    sb.write("no_final_newline.txt", "alpha\nbeta\ngamma");
    sb.write("empty.txt", "");
    sb.write(
        "projects/alpha/status.md",
        "Status: in progress\nOwner: Dana\nNext: write tests\n",
    );
    sb.write(
        "projects/alpha/archive/2024-q4.md",
        "old notes that are three levels deep\n",
    );
    sb.write("projects/beta.md", "beta project\n");
    sb.write("projects/.scratch", "hidden inside a folder\n");
    sb.write(
        "projects/node_modules/left-pad/index.js",
        "module.exports = 1;\n",
    );
    sb.write("node_modules/pkg/index.js", "module.exports = {};\n");
    sb.write(".git/HEAD", "ref: refs/heads/main\n");
    sb.write(".DS_Store", "\0\0\0\x01Bud1");
    sb.mkdir("journal");
    sb.write("journal/2025-01-06.md", "Met with the team.\n");
    sb.write("journal/2025-01-07.md", "Shipped the fix.\n");
    sb.mkdir("empty_folder");
    // A large file (sparse: the listing only reads its size).
    let big = std::fs::File::create(sb.path("projects/dataset.csv")).unwrap();
    big.set_len(1_258_291).unwrap();
    sb.symlink("../outside", "link_out");
    sb.symlink("user_preferences.md", "link_in");
    sb
}

#[test]
fn listings() {
    let sb = realistic();
    snap(
        "listings",
        &session(
            &sb,
            &[
                view("/memories"),
                view("/memories/"),
                view("/memories/projects"),
                view("/memories/projects/alpha/"),
                view("/memories/empty_folder"),
                view("/memories/journal"),
            ],
        ),
    );
}

#[test]
fn file_views() {
    let sb = realistic();
    snap(
        "file_views",
        &session(
            &sb,
            &[
                view("/memories/customer_service_guidelines.xml"),
                view("/memories/crlf_notes.txt"),
                view("/memories/no_final_newline.txt"),
                view("/memories/empty.txt"),
                view("/memories/user_preferences.md"),
                view_range("/memories/refund_policies.xml", 38, -1),
                view_range("/memories/refund_policies.xml", 9, 11),
                view("/memories/link_in"),
                view("/memories/link_out/secret.txt"),
                view("/memories/missing.md"),
            ],
        ),
    );
}

#[test]
fn str_replace_snippets() {
    let sb = realistic();
    let body: String = (1..=20)
        .map(|i| format!("fact {i:02}: value {i}\n"))
        .collect();
    sb.write("facts.md", &body);
    snap(
        "str_replace_snippets",
        &session(
            &sb,
            &[
                str_replace(
                    "/memories/facts.md",
                    "fact 01: value 1\n",
                    "fact 01: CHANGED\n",
                ),
                str_replace("/memories/facts.md", "value 10", "ten"),
                str_replace(
                    "/memories/facts.md",
                    "value 20",
                    "twenty\nfact 21: appended",
                ),
                str_replace(
                    "/memories/facts.md",
                    "fact 05: value 5\nfact 06: value 6\n",
                    "",
                ),
                str_replace("/memories/crlf_notes.txt", "second line", "2nd line"),
                str_replace("/memories/facts.md", "fact", "x"),
                str_replace("/memories/facts.md", "not there", "x"),
                view("/memories/facts.md"),
            ],
        ),
    );
}

#[test]
fn inserts() {
    let sb = realistic();
    let todo = "/memories/todo.md";
    snap(
        "inserts",
        &session(
            &sb,
            &[
                create(todo, "- one\n- two\n- three\n"),
                insert(todo, 0, "# TODO\n"),
                view(todo),
                insert(todo, 2, "- one and a half"),
                view(todo),
                insert(todo, 5, "- four\n"),
                view(todo),
                insert(todo, 7, "- past the end\n"),
                insert("/memories/no_final_newline.txt", 3, "delta"),
                view("/memories/no_final_newline.txt"),
                insert("/memories/empty.txt", 0, "now not empty\n"),
                view("/memories/empty.txt"),
            ],
        ),
    );
}

#[test]
fn manage() {
    let sb = realistic();
    snap(
        "manage",
        &session(
            &sb,
            &[
                rename("/memories/journal", "/memories/archive/journal"),
                rename(
                    "/memories/projects/beta.md",
                    "/memories/projects/alpha/beta.md",
                ),
                rename("/memories/link_out", "/memories/archive/link_out"),
                delete("/memories/projects/alpha/archive"),
                delete("/memories/archive/link_out"),
                delete("/memories/.DS_Store"),
                view("/memories"),
                delete("/memories/"),
                rename("/memories", "/memories/x"),
            ],
        ),
    );
    assert_eq!(
        std::fs::read_to_string(sb.base.join("outside/secret.txt")).unwrap(),
        "outside secret\n"
    );
}

#[test]
fn malformed_inputs() {
    let sb = realistic();
    let inputs = [
        json!("view /memories"),
        json!(null),
        json!(42),
        json!(true),
        json!([{"command": "view", "path": "/memories"}]),
        json!({}),
        json!({"path": "/memories"}),
        json!({"command": null, "path": "/memories"}),
        json!({"command": 1, "path": "/memories"}),
        json!({"command": ["view"], "path": "/memories"}),
        json!({"command": "bogus", "path": "/memories"}),
        json!({"command": "View", "path": "/memories"}),
        json!({"command": "", "path": "/memories"}),
        json!({"command": "view"}),
        json!({"command": "view", "path": null}),
        json!({"command": "view", "path": 5}),
        json!({"command": "view", "path": ["/memories"]}),
        json!({"command": "view", "path": {"p": "/memories"}}),
        json!({"command": "view", "path": "/memories/empty.txt", "extra": 1}),
        json!({"command": "create", "path": "/memories/n.txt"}),
        json!({"command": "create", "path": "/memories/n.txt", "file_text": null}),
        json!({"command": "create", "path": "/memories/n.txt", "file_text": 12}),
        json!({"command": "create", "file_text": "x"}),
        json!({"command": "str_replace", "path": "/memories/empty.txt", "new_str": "x"}),
        json!({"command": "str_replace", "path": "/memories/empty.txt", "old_str": "x"}),
        json!({"command": "str_replace", "path": "/memories/empty.txt", "old_str": 1, "new_str": "x"}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_text": "x"}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_line": 0}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_line": "0", "insert_text": "x"}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_line": 0.0, "insert_text": "x"}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_line": 1e30, "insert_text": "x"}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_line": null, "insert_text": "x"}),
        json!({"command": "insert", "path": "/memories/empty.txt", "insert_line": true, "insert_text": "x"}),
        json!({"command": "delete"}),
        json!({"command": "delete", "path": false}),
        json!({"command": "rename", "new_path": "/memories/b"}),
        json!({"command": "rename", "old_path": "/memories/empty.txt"}),
        json!({"command": "rename", "old_path": "/memories/empty.txt", "new_path": 7}),
        json!({"command": "view", "path": "/memories", "view_range": [1, 2]}),
        json!({"command": "view", "path": "/memories/empty.txt", "view_range": "all"}),
    ];
    let mut out = session(&sb, &inputs);
    // Integers beyond u64 are not representable in serde_json::Value without arbitrary
    // precision; send them as raw JSON text the way a harness would receive them.
    let huge: Value = serde_json::from_str(
        r#"{"command": "insert", "path": "/memories/empty.txt", "insert_line": 99999999999999999999, "insert_text": "x"}"#,
    )
    .unwrap();
    out.push_str(&session(&sb, &[huge]));
    snap("malformed_inputs", &out);
    // None of them changed anything.
    assert_eq!(sb.read("empty.txt"), "");
    assert!(!sb.exists("n.txt"));
}
