//! Every string the reference returns, byte for byte, driven through `Reference::call` with real
//! inputs. Each assertion compares the full text and the `is_error` flag.

use serde_json::json;

use super::{Sandbox, create, delete, insert, rename, str_replace, view, view_range};

const LINK_NOTE: &str = "the memory tool does not follow symbolic links.";

// ---- create -------------------------------------------------------------------------------

#[test]
fn create_reports_success_and_writes_exact_bytes() {
    let sb = Sandbox::new();
    sb.expect_ok(
        &create("/memories/a.txt", "one\ntwo"),
        "File created successfully at: /memories/a.txt",
    );
    assert_eq!(sb.read("a.txt"), "one\ntwo");
    // Missing folders are made on the way; the path is echoed as spelled.
    sb.expect_ok(
        &create("/memories//x/y/z.md", ""),
        "File created successfully at: /memories//x/y/z.md",
    );
    assert_eq!(sb.read("x/y/z.md"), "");
}

#[test]
fn create_never_overwrites() {
    let sb = Sandbox::new();
    sb.write("a.txt", "original");
    sb.mkdir("dir");
    sb.symlink("../nowhere.txt", "dangling");
    sb.expect_err(
        &create("/memories/a.txt", "new"),
        "Error: File /memories/a.txt already exists",
    );
    assert_eq!(sb.read("a.txt"), "original");
    sb.expect_err(
        &create("/memories/dir", "x"),
        "Error: File /memories/dir already exists",
    );
    sb.expect_err(
        &create("/memories/dangling", "x"),
        "Error: File /memories/dangling already exists",
    );
    assert!(!sb.base.join("nowhere.txt").exists());
    for root in ["/memories", "/memories/", "/memories//"] {
        sb.expect_err(
            &create(root, "x"),
            &format!("Error: File {root} already exists"),
        );
    }
}

#[test]
fn create_decided_errors() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x");
    sb.expect_err(
        &create("/memories/new/", "x"),
        "Error: The path /memories/new/ ends with a slash; create makes files, not folders.",
    );
    assert!(!sb.exists("new"));
    sb.expect_err(
        &create("/memories/a.txt/b.txt", "x"),
        "Error: Cannot create /memories/a.txt/b.txt: /memories/a.txt is not a folder.",
    );
    sb.expect_err(
        &create("/memories/a.txt/c/d.txt", "x"),
        "Error: Cannot create /memories/a.txt/c/d.txt: /memories/a.txt is not a folder.",
    );
    sb.mkdir("real");
    sb.symlink("real", "link");
    sb.expect_err(
        &create("/memories/link/new.txt", "x"),
        &format!(
            "Error: The path /memories/link/new.txt goes through the symbolic link /memories/link; {LINK_NOTE}"
        ),
    );
    assert!(!sb.exists("real/new.txt"));
}

// ---- view: files --------------------------------------------------------------------------

#[test]
fn view_file_header_and_numbering() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "Hello World\nThis is line two\n");
    sb.expect_ok(
        &view("/memories/notes.txt"),
        "Here's the content of /memories/notes.txt with line numbers:\n     1\tHello World\n     2\tThis is line two",
    );
    // The header echoes the path as spelled.
    sb.expect_ok(
        &view("/memories//notes.txt"),
        "Here's the content of /memories//notes.txt with line numbers:\n     1\tHello World\n     2\tThis is line two",
    );
}

#[test]
fn view_numbers_are_six_wide_right_aligned_then_tab() {
    let sb = Sandbox::new();
    let body: String = (1..=12).map(|i| format!("L{i}\n")).collect();
    sb.write("n.txt", &body);
    let mut want = String::from("Here's the content of /memories/n.txt with line numbers:");
    for i in 1..=9 {
        want.push_str(&format!("\n     {i}\tL{i}"));
    }
    for i in 10..=12 {
        want.push_str(&format!("\n    {i}\tL{i}"));
    }
    sb.expect_ok(&view("/memories/n.txt"), &want);
}

#[test]
fn view_final_newline_crlf_empty_and_unicode() {
    let sb = Sandbox::new();
    let header = |p: &str| format!("Here's the content of /memories/{p} with line numbers:");
    let cases: [(&str, &str, &str); 8] = [
        ("empty.txt", "", ""),
        ("nl.txt", "\n", "\n     1\t"),
        ("two-nl.txt", "\n\n", "\n     1\t\n     2\t"),
        ("final.txt", "a\nb\n", "\n     1\ta\n     2\tb"),
        ("nofinal.txt", "a\nb", "\n     1\ta\n     2\tb"),
        ("blank-last.txt", "a\n\n", "\n     1\ta\n     2\t"),
        ("crlf.txt", "a\r\nb\r\n", "\n     1\ta\r\n     2\tb\r"),
        (
            "uni.txt",
            "café ☕\n日本語\t\u{1F600}\n",
            "\n     1\tcafé ☕\n     2\t日本語\t\u{1F600}",
        ),
    ];
    for (name, content, lines) in cases {
        sb.write(name, content);
        sb.expect_ok(
            &view(&format!("/memories/{name}")),
            &format!("{}{lines}", header(name)),
        );
    }
}

#[test]
fn view_missing_has_no_error_prefix_but_is_an_error() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    for p in [
        "/memories/nope.txt",
        "/memories/nope/deeper.txt",
        "/memories/a.txt/",
        "/memories/a.txt/child",
    ] {
        sb.expect_err(
            &view(p),
            &format!("The path {p} does not exist. Please provide a valid path."),
        );
    }
}

#[test]
fn view_line_limit_is_999_999_lines() {
    // Whole views: the beta page's reference never cuts them (under ga-2026 a view of this
    // file is cut at 16,000 characters; tests/it/reference/ga.rs pages through it).
    let sb = Sandbox::as_of(memspec::spec::Revision::Beta2025);
    let exact = "x\n".repeat(999_999);
    sb.write("exact.txt", &exact);
    sb.write("exact-nofinal.txt", &exact[..exact.len() - 1]);
    for name in ["exact.txt", "exact-nofinal.txt"] {
        let text = sb.ok(&view(&format!("/memories/{name}")));
        assert!(text.starts_with(&format!(
            "Here's the content of /memories/{name} with line numbers:\n     1\tx\n     2\tx\n"
        )));
        assert!(text.ends_with("\n999998\tx\n999999\tx"), "{name}");
        assert_eq!(
            text.lines().count(),
            1_000_000,
            "{name}: header + 999,999 lines"
        );
        // Numbers stay 6 wide up to 999,999: the width only matters below it.
        sb.expect_ok(
            &view_range(&format!("/memories/{name}"), 99_999, 100_001),
            &format!(
                "Here's the content of /memories/{name} with line numbers:\n 99999\tx\n100000\tx\n100001\tx"
            ),
        );
    }
    let over = format!("{exact}x\n");
    sb.write("over.txt", &over);
    sb.expect_err(
        &view("/memories/over.txt"),
        "File /memories/over.txt exceeds maximum line limit of 999,999 lines.",
    );
    // A final newline ends the last line; one more newline starts line 1,000,000.
    sb.write("over-blank.txt", format!("{exact}\n"));
    sb.expect_err(
        &view("/memories/over-blank.txt"),
        "File /memories/over-blank.txt exceeds maximum line limit of 999,999 lines.",
    );
    // The limit applies to ranged views too.
    sb.expect_err(
        &view_range("/memories/over.txt", 1, 1),
        "File /memories/over.txt exceeds maximum line limit of 999,999 lines.",
    );
}

#[test]
fn view_line_limit_applies_to_created_files() {
    let sb = Sandbox::new();
    let over = "y\n".repeat(1_000_000);
    sb.expect_ok(
        &create("/memories/big.txt", &over),
        "File created successfully at: /memories/big.txt",
    );
    sb.expect_err(
        &view("/memories/big.txt"),
        "File /memories/big.txt exceeds maximum line limit of 999,999 lines.",
    );
}

#[test]
fn view_range_selects_inclusive_lines() {
    let sb = Sandbox::new();
    sb.write("r.txt", "l1\nl2\nl3\nl4\nl5\n");
    let h = "Here's the content of /memories/r.txt with line numbers:";
    let cases: [(i64, i64, &str); 7] = [
        (
            1,
            5,
            "\n     1\tl1\n     2\tl2\n     3\tl3\n     4\tl4\n     5\tl5",
        ),
        (
            1,
            -1,
            "\n     1\tl1\n     2\tl2\n     3\tl3\n     4\tl4\n     5\tl5",
        ),
        (2, 3, "\n     2\tl2\n     3\tl3"),
        (3, 3, "\n     3\tl3"),
        (5, 5, "\n     5\tl5"),
        (5, -1, "\n     5\tl5"),
        (4, -1, "\n     4\tl4\n     5\tl5"),
    ];
    for (start, end, lines) in cases {
        sb.expect_ok(
            &view_range("/memories/r.txt", start, end),
            &format!("{h}{lines}"),
        );
    }
    // An explicit null is the same as no range.
    sb.expect_ok(
        &json!({"command": "view", "path": "/memories/r.txt", "view_range": null}),
        &format!("{h}\n     1\tl1\n     2\tl2\n     3\tl3\n     4\tl4\n     5\tl5"),
    );
}

#[test]
fn view_range_errors() {
    let sb = Sandbox::new();
    sb.write("r.txt", "l1\nl2\nl3\n");
    sb.write("empty.txt", "");
    sb.mkdir("dir");
    let bad_start = |s: &str, e: &str, n: usize| {
        format!(
            "Error: Invalid `view_range`: [{s}, {e}]. Its first element `{s}` should be within the range of lines of the file: [1, {n}]"
        )
    };
    let bad_end = |s: &str, e: &str, n: usize| {
        format!(
            "Error: Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be smaller than the number of lines in the file: `{n}`"
        )
    };
    let reversed = |s: &str, e: &str| {
        format!(
            "Error: Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be larger or equal than its first `{s}`"
        )
    };
    let r = "/memories/r.txt";
    sb.expect_err(&view_range(r, 0, 2), &bad_start("0", "2", 3));
    sb.expect_err(&view_range(r, 4, 4), &bad_start("4", "4", 3));
    sb.expect_err(&view_range(r, -1, -1), &bad_start("-1", "-1", 3));
    sb.expect_err(
        &view_range(r, i64::MIN, 1),
        &bad_start("-9223372036854775808", "1", 3),
    );
    sb.expect_err(&view_range(r, 1, 4), &bad_end("1", "4", 3));
    sb.expect_err(
        &view_range(r, 1, u64::MAX),
        &bad_end("1", "18446744073709551615", 3),
    );
    sb.expect_err(&view_range(r, 3, 2), &reversed("3", "2"));
    sb.expect_err(&view_range(r, 2, 0), &reversed("2", "0"));
    sb.expect_err(&view_range(r, 2, -2), &reversed("2", "-2"));
    // Start is checked before end.
    sb.expect_err(&view_range(r, 9, 1), &bad_start("9", "1", 3));
    // An empty file has no line 1.
    sb.expect_err(
        &view_range("/memories/empty.txt", 1, -1),
        &bad_start("1", "-1", 0),
    );
    for dir in ["/memories", "/memories/", "/memories/dir"] {
        sb.expect_err(
            &view_range(dir, 1, 2),
            "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
        );
    }
    let malformed = "Error: Invalid `view_range`. It should be a list of two integers.";
    for range in [
        json!([1]),
        json!([1, 2, 3]),
        json!([]),
        json!(["1", 2]),
        json!([1, 2.5]),
        json!([1.0, 2]),
        json!([null, 1]),
        json!("1-2"),
        json!(3),
        json!({"start": 1, "end": 2}),
        json!(true),
    ] {
        sb.expect_err(
            &json!({"command": "view", "path": r, "view_range": range}),
            malformed,
        );
    }
}

#[test]
fn view_decided_refusals() {
    let sb = Sandbox::new();
    sb.write("target.txt", "inside\n");
    sb.mkdir("real");
    sb.write("real/f.txt", "f\n");
    sb.symlink("target.txt", "link");
    sb.symlink("real", "dirlink");
    sb.write("bin.dat", [0xff, 0xfe, 0x00, 0x41]);
    sb.expect_err(
        &view("/memories/link"),
        &format!(
            "Error: The path /memories/link goes through the symbolic link /memories/link; {LINK_NOTE}"
        ),
    );
    sb.expect_err(
        &view("/memories/dirlink"),
        &format!(
            "Error: The path /memories/dirlink goes through the symbolic link /memories/dirlink; {LINK_NOTE}"
        ),
    );
    // The link is named in its canonical spelling; the path as spelled.
    sb.expect_err(
        &view("/memories//dirlink//f.txt"),
        &format!(
            "Error: The path /memories//dirlink//f.txt goes through the symbolic link /memories/dirlink; {LINK_NOTE}"
        ),
    );
    sb.expect_err(
        &view("/memories/bin.dat"),
        "Error: The file /memories/bin.dat is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.",
    );
    sb.fifo("fifo");
    let _socket = std::os::unix::net::UnixListener::bind(sb.path("sock")).expect("socket");
    for special in ["fifo", "sock"] {
        sb.expect_err(
            &view(&format!("/memories/{special}")),
            &format!("Error: The path /memories/{special} is not a regular file or folder."),
        );
    }
}

#[test]
fn invalid_paths_name_their_reason() {
    let sb = Sandbox::new();
    let long_segment = format!("/memories/{}", "a".repeat(256));
    let too_long = format!("/memories/{}", "abcdefgh/".repeat(455));
    assert!(too_long.len() > 4096);
    let cases: Vec<(String, String, &str)> = vec![
        (
            "".into(),
            "".into(),
            "memory paths must be /memories or start with /memories/",
        ),
        (
            "/".into(),
            "/".into(),
            "memory paths must be /memories or start with /memories/",
        ),
        (
            "/etc/passwd".into(),
            "/etc/passwd".into(),
            "memory paths must be /memories or start with /memories/",
        ),
        (
            "/memoriesX/a".into(),
            "/memoriesX/a".into(),
            "memory paths must be /memories or start with /memories/",
        ),
        (
            "memories/a".into(),
            "memories/a".into(),
            "memory paths must be /memories or start with /memories/",
        ),
        (
            "/memories/../a".into(),
            "/memories/../a".into(),
            "`.` and `..` segments are not allowed",
        ),
        (
            "/memories/./a".into(),
            "/memories/./a".into(),
            "`.` and `..` segments are not allowed",
        ),
        (
            "/memories/a/..".into(),
            "/memories/a/..".into(),
            "`.` and `..` segments are not allowed",
        ),
        (
            "/memories/..\\a".into(),
            "/memories/..\\a".into(),
            "backslashes are not allowed",
        ),
        (
            "/memories/a\0b".into(),
            "/memories/a\\u{0}b".into(),
            "control characters such as NUL are not allowed",
        ),
        (
            "/memories/a\tb\n".into(),
            "/memories/a\\tb\\n".into(),
            "control characters such as NUL are not allowed",
        ),
        (
            "/memories/%2e%2e".into(),
            "/memories/%2e%2e".into(),
            "percent-encoded dots, slashes, backslashes and NUL are not allowed",
        ),
        (
            "/memories/a%2Fb".into(),
            "/memories/a%2Fb".into(),
            "percent-encoded dots, slashes, backslashes and NUL are not allowed",
        ),
        (
            "/memories/%252e%252e".into(),
            "/memories/%252e%252e".into(),
            "percent-encoded dots, slashes, backslashes and NUL are not allowed",
        ),
        (
            "/memories/\u{FF0E}\u{FF0E}".into(),
            "/memories/\u{FF0E}\u{FF0E}".into(),
            "characters that look like dots, slashes or backslashes are not allowed",
        ),
        (
            "/memories/a\u{2215}b".into(),
            "/memories/a\u{2215}b".into(),
            "characters that look like dots, slashes or backslashes are not allowed",
        ),
        (
            long_segment.clone(),
            long_segment,
            "a path segment is longer than 255 bytes",
        ),
        (too_long.clone(), too_long, "it is longer than 4096 bytes"),
    ];
    for (spelled, shown, reason) in cases {
        sb.expect_err(
            &view(&spelled),
            &format!("Error: The path {shown} is not a valid memory path: {reason}."),
        );
    }
    // A 255-byte segment is fine.
    let longest = format!("/memories/{}", "b".repeat(255));
    sb.expect_ok(
        &create(&longest, "x"),
        &format!("File created successfully at: {longest}"),
    );
}

#[test]
fn invalid_paths_are_refused_by_every_command() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    let msg = "Error: The path /memories/../a.txt is not a valid memory path: `.` and `..` segments are not allowed.";
    let bad = "/memories/../a.txt";
    sb.expect_err(&view(bad), msg);
    sb.expect_err(&create(bad, "x"), msg);
    sb.expect_err(&str_replace(bad, "x", "y"), msg);
    sb.expect_err(&insert(bad, 0, "x"), msg);
    sb.expect_err(&delete(bad), msg);
    sb.expect_err(&rename(bad, "/memories/b.txt"), msg);
    sb.expect_err(&rename("/memories/a.txt", bad), msg);
    assert_eq!(sb.read("a.txt"), "x\n");
}

// ---- view: folders ------------------------------------------------------------------------

#[test]
fn view_empty_root_lists_itself() {
    let sb = Sandbox::new();
    let h = "Here're the files and directories up to 2 levels deep in";
    let tail = "excluding hidden items and node_modules:";
    sb.expect_ok(
        &view("/memories"),
        &format!("{h} /memories, {tail}\n0B\t/memories"),
    );
    // The header echoes the spelling, the entries are canonical.
    sb.expect_ok(
        &view("/memories/"),
        &format!("{h} /memories/, {tail}\n0B\t/memories"),
    );
    sb.expect_ok(
        &view("/memories//"),
        &format!("{h} /memories//, {tail}\n0B\t/memories"),
    );
}

#[test]
fn view_folder_lists_two_levels_with_sizes_and_markers() {
    let sb = Sandbox::new();
    sb.write("a.txt", "12345");
    sb.write("d/b.txt", "x".repeat(1536));
    sb.write("d/e/deep.txt", "y".repeat(1000)); // depth 3: counted, not listed
    sb.write("d/.hidden", "zzzz");
    sb.write(".hidden_top", "zzzz");
    sb.write("node_modules/pkg/index.js", "zzzz");
    sb.write("d/node_modules/m.js", "zzzz");
    sb.symlink("a.txt", "link");
    sb.mkdir("empty");
    let h = "Here're the files and directories up to 2 levels deep in";
    let tail = "excluding hidden items and node_modules:";
    sb.expect_ok(
        &view("/memories"),
        &format!(
            "{h} /memories, {tail}\n\
             2.5K\t/memories\n\
             5B\t/memories/a.txt\n\
             2.5K\t/memories/d/\n\
             1.5K\t/memories/d/b.txt\n\
             1000B\t/memories/d/e/\n\
             0B\t/memories/empty/"
        ),
    );
    sb.expect_ok(
        &view("/memories/d/"),
        &format!(
            "{h} /memories/d/, {tail}\n\
             2.5K\t/memories/d\n\
             1.5K\t/memories/d/b.txt\n\
             1000B\t/memories/d/e/\n\
             1000B\t/memories/d/e/deep.txt"
        ),
    );
}

#[test]
fn view_listing_skips_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    sb.write("ok.txt", "ab");
    std::fs::write(
        sb.mem.join(std::ffi::OsStr::from_bytes(b"bad\xff.txt")),
        "zz",
    )
    .unwrap();
    sb.expect_ok(
        &view("/memories"),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n2B\t/memories\n2B\t/memories/ok.txt",
    );
}

// ---- str_replace --------------------------------------------------------------------------

fn numbered(from: usize, lines: &[&str]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("\n{:>6}\t{l}", from + i))
        .collect()
}

#[test]
fn str_replace_success_shows_a_snippet() {
    let sb = Sandbox::new();
    let body: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    sb.write("s.txt", &body);
    // Middle: four lines of context either side.
    sb.expect_ok(
        &str_replace("/memories/s.txt", "line 6", "six"),
        &format!(
            "The memory file has been edited.{}",
            numbered(
                2,
                &[
                    "line 2", "line 3", "line 4", "line 5", "six", "line 7", "line 8", "line 9",
                    "line 10"
                ]
            )
        ),
    );
    // Start of the file.
    sb.expect_ok(
        &str_replace("/memories/s.txt", "line 1\n", "one\n"),
        &format!(
            "The memory file has been edited.{}",
            // A final newline in new_str widens the snippet by one line, as in the text
            // editor tool (`new_str.count("\n")`).
            numbered(1, &["one", "line 2", "line 3", "line 4", "line 5", "six"])
        ),
    );
    // End of the file, with a multi-line replacement widening the snippet.
    sb.expect_ok(
        &str_replace("/memories/s.txt", "line 12", "twelve\nthirteen"),
        &format!(
            "The memory file has been edited.{}",
            numbered(
                8,
                &[
                    "line 8", "line 9", "line 10", "line 11", "twelve", "thirteen"
                ]
            )
        ),
    );
    let want: String = body
        .replace("line 6\n", "six\n")
        .replace("line 1\n", "one\n")
        .replace("line 12", "twelve\nthirteen");
    assert_eq!(sb.read("s.txt"), want);
}

#[test]
fn str_replace_can_empty_a_file() {
    let sb = Sandbox::new();
    sb.write("s.txt", "only");
    sb.expect_ok(
        &str_replace("/memories/s.txt", "only", ""),
        "The memory file has been edited.",
    );
    assert_eq!(sb.read("s.txt"), "");
}

#[test]
fn str_replace_preserves_crlf_and_unicode() {
    let sb = Sandbox::new();
    sb.write("w.txt", "héllo\r\nwörld\r\n");
    sb.expect_ok(
        &str_replace("/memories/w.txt", "wörld", "мир"),
        "The memory file has been edited.\n     1\théllo\r\n     2\tмир\r",
    );
    assert_eq!(sb.read("w.txt"), "héllo\r\nмир\r\n");
}

#[test]
fn str_replace_missing_or_folder() {
    let sb = Sandbox::new();
    sb.mkdir("dir");
    for p in [
        "/memories/nope.txt",
        "/memories/no/such.txt",
        "/memories/dir",
        "/memories/dir/",
        "/memories",
        "/memories/",
    ] {
        sb.expect_err(
            &str_replace(p, "a", "b"),
            &format!("Error: The path {p} does not exist. Please provide a valid path."),
        );
    }
}

#[test]
fn str_replace_not_found_and_multiple() {
    let sb = Sandbox::new();
    let original = "apple\nbanana apple\ncherry\napple pie\n";
    sb.write("f.txt", original);
    let f = "/memories/f.txt";
    sb.expect_err(
        &str_replace(f, "durian", "x"),
        "No replacement was performed, old_str `durian` did not appear verbatim in /memories/f.txt.",
    );
    // Case and whitespace matter.
    sb.expect_err(
        &str_replace(f, "Apple", "x"),
        "No replacement was performed, old_str `Apple` did not appear verbatim in /memories/f.txt.",
    );
    sb.expect_err(
        &str_replace(f, "apple", "x"),
        "No replacement was performed. Multiple occurrences of old_str `apple` in lines: 1, 2, 4. Please ensure it is unique",
    );
    // Multi-line old_str: lines where each occurrence starts.
    sb.expect_err(
        &str_replace(f, "e\n", "x"),
        "No replacement was performed. Multiple occurrences of old_str `e\n` in lines: 1, 2, 4. Please ensure it is unique",
    );
    sb.write("g.txt", "ab ab\nab\n");
    sb.expect_err(
        &str_replace("/memories/g.txt", "ab", "x"),
        "No replacement was performed. Multiple occurrences of old_str `ab` in lines: 1, 2. Please ensure it is unique",
    );
    // Two occurrences on one line: the line is named once.
    sb.write("h.txt", "x x\n");
    sb.expect_err(
        &str_replace("/memories/h.txt", "x", "y"),
        "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1. Please ensure it is unique",
    );
    // Overlapping occurrences count (decide.str-replace-occurrences).
    sb.write("o.txt", "aaa\n");
    sb.expect_err(
        &str_replace("/memories/o.txt", "aa", "b"),
        "No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1. Please ensure it is unique",
    );
    sb.expect_err(
        &str_replace(f, "", "x"),
        "Error: No replacement was performed on /memories/f.txt: `old_str` must not be empty.",
    );
    assert_eq!(sb.read("f.txt"), original);
    assert_eq!(sb.read("o.txt"), "aaa\n");
}

#[test]
fn str_replace_refuses_links_specials_and_non_utf8() {
    let sb = Sandbox::new();
    sb.write("t.txt", "target\n");
    sb.symlink("t.txt", "link");
    sb.write("bin.dat", [0xc3, 0x28, b'a']);
    sb.expect_err(
        &str_replace("/memories/link", "target", "changed"),
        &format!(
            "Error: The path /memories/link goes through the symbolic link /memories/link; {LINK_NOTE}"
        ),
    );
    assert_eq!(sb.read("t.txt"), "target\n");
    sb.expect_err(
        &str_replace("/memories/bin.dat", "a", "b"),
        "Error: The file /memories/bin.dat is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.",
    );
    assert_eq!(
        std::fs::read(sb.path("bin.dat")).unwrap(),
        [0xc3, 0x28, b'a']
    );
    sb.fifo("fifo");
    sb.expect_err(
        &str_replace("/memories/fifo", "a", "b"),
        "Error: The path /memories/fifo is not a regular file or folder.",
    );
    sb.expect_err(
        &insert("/memories/fifo", 0, "a"),
        "Error: The path /memories/fifo is not a regular file or folder.",
    );
}

// ---- insert -------------------------------------------------------------------------------

#[test]
fn insert_success_and_placement() {
    let sb = Sandbox::new();
    sb.write("t.txt", "a\nb\n");
    let t = "/memories/t.txt";
    let ok = "The file /memories/t.txt has been edited.";
    sb.expect_ok(&insert(t, 0, "top\n"), ok);
    assert_eq!(sb.read("t.txt"), "top\na\nb\n");
    sb.expect_ok(&insert(t, 2, "mid"), ok);
    assert_eq!(sb.read("t.txt"), "top\na\nmid\nb\n");
    sb.expect_ok(&insert(t, 4, "end\n"), ok);
    assert_eq!(sb.read("t.txt"), "top\na\nmid\nb\nend\n");
    // Inserted text becomes whole lines even without a final newline (decide.insert-lines).
    sb.write("n.txt", "x\ny");
    sb.expect_ok(
        &insert("/memories/n.txt", 2, "z"),
        "The file /memories/n.txt has been edited.",
    );
    assert_eq!(sb.read("n.txt"), "x\ny\nz");
    sb.expect_ok(
        &insert("/memories/n.txt", 0, "w"),
        "The file /memories/n.txt has been edited.",
    );
    assert_eq!(sb.read("n.txt"), "w\nx\ny\nz");
    sb.write("e.txt", "");
    sb.expect_ok(
        &insert("/memories/e.txt", 0, "first"),
        "The file /memories/e.txt has been edited.",
    );
    assert_eq!(sb.read("e.txt"), "first");
    // Multi-line text keeps its own line breaks.
    sb.write("m.txt", "1\n2\n");
    sb.expect_ok(
        &insert("/memories/m.txt", 1, "a\nb\n"),
        "The file /memories/m.txt has been edited.",
    );
    assert_eq!(sb.read("m.txt"), "1\na\nb\n2\n");
    // Empty text changes nothing.
    sb.expect_ok(
        &insert("/memories/m.txt", 1, ""),
        "The file /memories/m.txt has been edited.",
    );
    assert_eq!(sb.read("m.txt"), "1\na\nb\n2\n");
}

#[test]
fn insert_missing_or_folder() {
    let sb = Sandbox::new();
    sb.mkdir("dir");
    for p in [
        "/memories/nope.txt",
        "/memories/x/y.txt",
        "/memories/dir",
        "/memories",
    ] {
        sb.expect_err(
            &insert(p, 0, "x"),
            &format!("Error: The path {p} does not exist"),
        );
    }
}

#[test]
fn insert_line_must_be_within_zero_and_n() {
    let sb = Sandbox::new();
    sb.write("t.txt", "a\nb\n");
    sb.write("e.txt", "");
    let t = "/memories/t.txt";
    let invalid = |line: &str, n: usize| {
        format!(
            "Error: Invalid `insert_line` parameter: {line}. It should be within the range of lines of the file: [0, {n}]"
        )
    };
    sb.expect_err(&insert(t, 3, "x"), &invalid("3", 2));
    sb.expect_err(&insert(t, -1, "x"), &invalid("-1", 2));
    sb.expect_err(
        &insert(t, i64::MIN, "x"),
        &invalid("-9223372036854775808", 2),
    );
    sb.expect_err(
        &insert(t, u64::MAX, "x"),
        &invalid("18446744073709551615", 2),
    );
    sb.expect_err(&insert("/memories/e.txt", 1, "x"), &invalid("1", 0));
    assert_eq!(sb.read("t.txt"), "a\nb\n");
    // Without a final newline the last line still counts once.
    sb.write("n.txt", "a\nb");
    sb.expect_err(&insert("/memories/n.txt", 3, "x"), &invalid("3", 2));
}

// ---- delete -------------------------------------------------------------------------------

#[test]
fn delete_files_folders_and_links() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x");
    sb.write("d/e/f.txt", "x");
    sb.write("t.txt", "kept");
    sb.symlink("t.txt", "link");
    sb.expect_ok(
        &delete("/memories/a.txt"),
        "Successfully deleted /memories/a.txt",
    );
    assert!(!sb.exists("a.txt"));
    sb.expect_ok(&delete("/memories/d/"), "Successfully deleted /memories/d/");
    assert!(!sb.exists("d"));
    // A link is removed, never followed.
    sb.expect_ok(
        &delete("/memories/link"),
        "Successfully deleted /memories/link",
    );
    assert!(!sb.exists("link"));
    assert_eq!(sb.read("t.txt"), "kept");
}

#[test]
fn delete_missing_and_root() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x");
    for p in [
        "/memories/nope",
        "/memories/x/y",
        "/memories/a.txt/",
        "/memories/a.txt/z",
    ] {
        sb.expect_err(&delete(p), &format!("Error: The path {p} does not exist"));
    }
    for root in ["/memories", "/memories/", "/memories//", "/memories///"] {
        sb.expect_err(
            &delete(root),
            "Error: Cannot delete the /memories directory itself",
        );
    }
    assert!(sb.mem.is_dir());
    assert_eq!(sb.read("a.txt"), "x");
}

// ---- rename -------------------------------------------------------------------------------

#[test]
fn rename_success_moves_files_and_folders() {
    let sb = Sandbox::new();
    sb.write("draft.txt", "d");
    sb.write("dir/inner.txt", "i");
    sb.expect_ok(
        &rename("/memories/draft.txt", "/memories/final.txt"),
        "Successfully renamed /memories/draft.txt to /memories/final.txt",
    );
    assert!(!sb.exists("draft.txt"));
    assert_eq!(sb.read("final.txt"), "d");
    // Missing destination folders are made.
    sb.expect_ok(
        &rename("/memories/final.txt", "/memories/archive/2025/final.txt"),
        "Successfully renamed /memories/final.txt to /memories/archive/2025/final.txt",
    );
    assert_eq!(sb.read("archive/2025/final.txt"), "d");
    sb.expect_ok(
        &rename("/memories/dir", "/memories/archive/dir"),
        "Successfully renamed /memories/dir to /memories/archive/dir",
    );
    assert_eq!(sb.read("archive/dir/inner.txt"), "i");
}

#[test]
fn rename_errors() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a");
    sb.write("b.txt", "b");
    sb.write("d/x.txt", "x");
    sb.mkdir("real");
    sb.symlink("real", "dirlink");
    sb.expect_err(
        &rename("/memories/nope.txt", "/memories/c.txt"),
        "Error: The path /memories/nope.txt does not exist",
    );
    sb.expect_err(
        &rename("/memories/a.txt/", "/memories/c.txt"),
        "Error: The path /memories/a.txt/ does not exist",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/b.txt"),
        "Error: The destination /memories/b.txt already exists",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/d"),
        "Error: The destination /memories/d already exists",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/a.txt"),
        "Error: The destination /memories/a.txt already exists",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/dirlink"),
        "Error: The destination /memories/dirlink already exists",
    );
    for root in ["/memories", "/memories/"] {
        sb.expect_err(
            &rename("/memories/a.txt", root),
            &format!("Error: The destination {root} already exists"),
        );
    }
    for root in ["/memories", "/memories/", "/memories//"] {
        sb.expect_err(
            &rename(root, "/memories/elsewhere"),
            "Error: Cannot rename the /memories directory itself",
        );
    }
    sb.expect_err(
        &rename("/memories/d", "/memories/d/sub"),
        "Error: Cannot move /memories/d into itself (/memories/d/sub).",
    );
    sb.expect_err(
        &rename("/memories/d/", "/memories/d/sub/deeper"),
        "Error: Cannot move /memories/d/ into itself (/memories/d/sub/deeper).",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/b.txt/c.txt"),
        "Error: Cannot rename to /memories/b.txt/c.txt: /memories/b.txt is not a folder.",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/b.txt/x/c.txt"),
        "Error: Cannot rename to /memories/b.txt/x/c.txt: /memories/b.txt is not a folder.",
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/dirlink/a.txt"),
        &format!(
            "Error: The path /memories/dirlink/a.txt goes through the symbolic link /memories/dirlink; {LINK_NOTE}"
        ),
    );
    sb.expect_err(
        &rename("/memories/dirlink/x", "/memories/c.txt"),
        &format!(
            "Error: The path /memories/dirlink/x goes through the symbolic link /memories/dirlink; {LINK_NOTE}"
        ),
    );
    sb.expect_err(
        &rename("/memories/a.txt", "/tmp/a.txt"),
        "Error: The path /tmp/a.txt is not a valid memory path: memory paths must be /memories or start with /memories/.",
    );
    // Nothing moved.
    assert_eq!(sb.read("a.txt"), "a");
    assert_eq!(sb.read("b.txt"), "b");
    assert_eq!(sb.read("d/x.txt"), "x");
    assert!(!sb.exists("d/sub"));
    assert!(!sb.exists("real/a.txt"));
}

// ---- is_error on every path ---------------------------------------------------------------

#[test]
fn every_success_is_not_an_error() {
    let sb = Sandbox::new();
    for input in [
        view("/memories"),
        create("/memories/a.txt", "1\n2\n"),
        view("/memories/a.txt"),
        view_range("/memories/a.txt", 1, 1),
        str_replace("/memories/a.txt", "1", "one"),
        insert("/memories/a.txt", 2, "3"),
        rename("/memories/a.txt", "/memories/b.txt"),
        view("/memories"),
        delete("/memories/b.txt"),
    ] {
        sb.ok(&input);
    }
}

// ---- decided behaviours around the strings ------------------------------------------------

#[test]
fn str_replace_without_new_str_deletes_old_str() {
    let sb = Sandbox::new();
    sb.write("a.txt", "keep drop keep\n");
    sb.expect_ok(
        &json!({"command": "str_replace", "path": "/memories/a.txt", "old_str": " drop"}),
        "The memory file has been edited.\n     1\tkeep keep",
    );
    sb.expect_ok(
        &json!({"command": "str_replace", "path": "/memories/a.txt", "old_str": " keep", "new_str": null}),
        "The memory file has been edited.\n     1\tkeep",
    );
    assert_eq!(sb.read("a.txt"), "keep\n");
    sb.expect_err(
        &json!({"command": "str_replace", "path": "/memories/a.txt", "old_str": "keep", "new_str": 1}),
        "Error: Parameter `new_str` must be a string, got an integer.",
    );
}

#[test]
fn rename_new_path_trailing_slash_names_a_folder() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a");
    sb.expect_err(
        &rename("/memories/a.txt", "/memories/b/"),
        "Error: Cannot rename /memories/a.txt to /memories/b/: the destination ends with a slash, which names a folder, and /memories/a.txt is a file.",
    );
    assert_eq!(sb.read("a.txt"), "a");
    sb.write("d/x.txt", "x");
    sb.expect_ok(
        &rename("/memories/d", "/memories/e/"),
        "Successfully renamed /memories/d to /memories/e/",
    );
    assert_eq!(sb.read("e/x.txt"), "x");
}

#[test]
fn failed_renames_leave_no_new_folders() {
    let sb = Sandbox::new();
    sb.write("d/x.txt", "x");
    sb.write("b.txt", "b");
    sb.expect_err(
        &rename("/memories/nope", "/memories/p/q/r"),
        "Error: The path /memories/nope does not exist",
    );
    sb.expect_err(
        &rename("/memories/d", "/memories/d/new/x"),
        "Error: Cannot move /memories/d into itself (/memories/d/new/x).",
    );
    assert!(!sb.exists("p"));
    assert!(!sb.exists("d/new"));
}

#[test]
fn hidden_names_and_node_modules_are_reachable_directly() {
    let sb = Sandbox::new();
    sb.expect_ok(
        &create("/memories/.notes", "secret-ish\n"),
        "File created successfully at: /memories/.notes",
    );
    sb.expect_ok(
        &create("/memories/node_modules/x.js", "1\n"),
        "File created successfully at: /memories/node_modules/x.js",
    );
    sb.expect_ok(
        &view("/memories/.notes"),
        "Here's the content of /memories/.notes with line numbers:\n     1\tsecret-ish",
    );
    sb.expect_ok(
        &view("/memories/node_modules"),
        "Here're the files and directories up to 2 levels deep in /memories/node_modules, excluding hidden items and node_modules:\n2B\t/memories/node_modules\n2B\t/memories/node_modules/x.js",
    );
    sb.expect_ok(
        &view("/memories"),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
    sb.expect_ok(
        &rename("/memories/.notes", "/memories/notes"),
        "Successfully renamed /memories/.notes to /memories/notes",
    );
    sb.expect_ok(
        &delete("/memories/node_modules"),
        "Successfully deleted /memories/node_modules",
    );
}

#[test]
fn listing_order_is_by_bytes_depth_first() {
    let sb = Sandbox::new();
    for name in ["é.txt", "a.txt", "B.txt", "Z/z.txt", "Z/A.txt", "b"] {
        sb.write(name, "");
    }
    sb.expect_ok(
        &view("/memories"),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n\
         0B\t/memories\n0B\t/memories/B.txt\n0B\t/memories/Z/\n0B\t/memories/Z/A.txt\n0B\t/memories/Z/z.txt\n\
         0B\t/memories/a.txt\n0B\t/memories/b\n0B\t/memories/é.txt",
    );
}

#[test]
fn non_utf8_files_and_special_files_can_be_deleted_and_renamed() {
    let sb = Sandbox::new();
    sb.write("bin.dat", [0xff, 0x00, 0xfe]);
    sb.fifo("fifo");
    // A FIFO is not listed; a non-UTF-8 file is, with its size.
    sb.expect_ok(
        &view("/memories"),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n3B\t/memories\n3B\t/memories/bin.dat",
    );
    sb.expect_ok(
        &rename("/memories/bin.dat", "/memories/moved.dat"),
        "Successfully renamed /memories/bin.dat to /memories/moved.dat",
    );
    assert_eq!(
        std::fs::read(sb.path("moved.dat")).unwrap(),
        [0xff, 0x00, 0xfe]
    );
    sb.expect_ok(
        &delete("/memories/moved.dat"),
        "Successfully deleted /memories/moved.dat",
    );
    sb.expect_ok(
        &rename("/memories/fifo", "/memories/fifo2"),
        "Successfully renamed /memories/fifo to /memories/fifo2",
    );
    sb.expect_ok(
        &delete("/memories/fifo2"),
        "Successfully deleted /memories/fifo2",
    );
    assert_eq!(std::fs::read_dir(&sb.mem).unwrap().count(), 0);
}

// ---- the catalogue ------------------------------------------------------------------------

/// `memspec spec strings --json`, as an author of a backend runs it: every entry's text, with
/// its placeholders filled, is what the reference answers in that situation, flag included.
#[test]
fn the_strings_catalogue_is_what_the_reference_answers() {
    let out = crate::check::memspec()
        .args(["spec", "strings", "--json"])
        .output()
        .expect("memspec runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entries: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("the catalogue is JSON");
    let text_of = |command: &str, when: &str| -> (String, bool) {
        let entry = entries
            .iter()
            .find(|e| {
                e["command"] == command && e["when"].as_str().is_some_and(|w| w.starts_with(when))
            })
            .unwrap_or_else(|| panic!("no {command} entry for {when:?}"));
        (
            entry["text"].as_str().unwrap_or_default().to_string(),
            entry["is_error"].as_bool().unwrap_or_default(),
        )
    };
    let sb = Sandbox::new();
    sb.write("a.txt", "x\ny\n");
    let checks = [
        (
            "create",
            "success",
            create("/memories/b.txt", "b"),
            "/memories/b.txt",
        ),
        (
            "create",
            "the path exists",
            create("/memories/a.txt", "c"),
            "/memories/a.txt",
        ),
        (
            "view",
            "a path that does not exist",
            view("/memories/no.txt"),
            "/memories/no.txt",
        ),
        (
            "str_replace",
            "`old_str` does not occur",
            str_replace("/memories/a.txt", "q", "r"),
            "/memories/a.txt",
        ),
        (
            "insert",
            "the path does not exist",
            insert("/memories/no.txt", 0, "t"),
            "/memories/no.txt",
        ),
        (
            "delete",
            "the path does not exist",
            delete("/memories/no.txt"),
            "/memories/no.txt",
        ),
        (
            "rename",
            "`new_path` exists",
            rename("/memories/b.txt", "/memories/a.txt"),
            "/memories/a.txt",
        ),
    ];
    for (command, when, input, path) in checks {
        let (template, is_error) = text_of(command, when);
        let want = template
            .replace("{path}", path)
            .replace("{new_path}", path)
            .replace("{old_str}", "q");
        let got = sb.call(&input);
        assert_eq!(
            (got.text.as_str(), got.is_error),
            (want.as_str(), is_error),
            "{command}: {when}"
        );
    }
}
