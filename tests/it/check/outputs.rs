//! One reporter for every command: several report files from one run (`--report-json`,
//! `--report-junit`, `--report-tap`, `--report-markdown`, `--report-html`) for `check`, `fuzz`
//! and `replay --report`; what a backend sends escaped in every format; the HTML report opened
//! in a real headless browser, failures first and its filters working.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{backend, memspec, root, run_command};

const FORMATS: [(&str, &str); 5] = [
    ("--report-json", "report.json"),
    ("--report-junit", "report.xml"),
    ("--report-tap", "report.tap"),
    ("--report-markdown", "report.md"),
    ("--report-html", "report.html"),
];

/// Every report file flag, pointing into `dir`.
fn report_args(dir: &Path) -> Vec<String> {
    FORMATS
        .iter()
        .flat_map(|(flag, name)| [flag.to_string(), dir.join(name).display().to_string()])
        .collect()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Each report file: there, and in its format.
fn assert_reports(dir: &Path) {
    let json: serde_json::Value =
        serde_json::from_str(&read(dir, "report.json")).unwrap_or_else(|e| panic!("json: {e}"));
    assert!(json["report"]["results"].is_array(), "{json}");
    assert!(read(dir, "report.xml").contains("<testsuites"));
    assert!(read(dir, "report.tap").starts_with("TAP version 14"));
    assert!(read(dir, "report.md").starts_with("## memspec"));
    let html = read(dir, "report.html");
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("id=\"verdict\""));
    // Self-contained: nothing is fetched.
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "html loads something"
    );
}

#[test]
fn one_check_run_writes_every_format_at_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut command = memspec();
    command
        .args(["check", "--no-recheck", "--area", "delete", "--backend"])
        .arg(backend("delete_root"))
        .args(report_args(dir.path()));
    let run = run_command(&mut command);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_reports(dir.path());
    assert!(read(dir.path(), "report.md").contains("delete.not-root"));
}

#[test]
fn fuzz_and_replay_write_the_same_formats() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let kv = format!(
        "python3 {} {{memories}}",
        root().join("tests/backends/kv/prefix_delete.py").display()
    );
    let mut command = memspec();
    command
        .args([
            "fuzz",
            "--not-on-folder",
            "--seed",
            "1",
            "--steps",
            "60000",
            "--backend",
        ])
        .arg(&kv)
        .args(report_args(dir.path()));
    let run = run_command(&mut command);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_reports(dir.path());

    let replayed = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let transcript = replayed.path().join("calls.jsonl");
    std::fs::write(
        &transcript,
        concat!(
            r#"{"command":"create","path":"/memories/a","file_text":"x\n"}"#,
            "\n",
            r#"{"command":"create","path":"/memories/ab.txt","file_text":"y\n"}"#,
            "\n",
            r#"{"command":"delete","path":"/memories/a"}"#,
            "\n",
            r#"{"command":"view","path":"/memories/ab.txt"}"#,
            "\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut command = memspec();
    command
        .args(["replay", "--report", "--not-on-folder", "--backend", &kv])
        .arg(&transcript)
        .args(report_args(replayed.path()));
    let run = run_command(&mut command);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_reports(replayed.path());
    // The file lost by the prefix delete is the replay's root cause, as check would say.
    assert!(read(replayed.path(), "report.md").contains("delete.removes"));
}

#[test]
fn what_a_backend_sends_is_escaped_in_every_format() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut outputs: Vec<(String, String)> = Vec::new();
    for format in ["human", "json", "junit", "tap", "markdown", "html"] {
        let mut command = memspec();
        command
            .args([
                "check",
                "--no-recheck",
                "--area",
                "view-file",
                "--format",
                format,
            ])
            .args(["--backend", &backend("bidi_echo")]);
        let run = run_command(&mut command);
        assert_eq!(run.code, 1, "{format}: {}", run.describe());
        outputs.push((format!("check --format {format}"), run.stdout));
    }
    let transcript = dir.path().join("calls.jsonl");
    std::fs::write(
        &transcript,
        "{\"command\":\"view\",\"path\":\"/memories/missing.txt\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for format in ["text", "json"] {
        let mut command = memspec();
        command
            .args([
                "replay",
                "--report",
                "--format",
                format,
                "--backend",
                &backend("bidi_echo"),
            ])
            .arg(&transcript);
        let run = run_command(&mut command);
        outputs.push((format!("replay --format {format}"), run.stdout));
    }
    for (what, text) in &outputs {
        // TAP lists what passed or warned without its texts.
        if what.ends_with("tap") {
            assert!(!text.contains('\u{202e}'), "{what}");
            continue;
        }
        assert!(
            text.contains("txt.exe"),
            "{what}: the message is not there:\n{text}"
        );
        for c in ['\u{202e}', '\u{200b}', '\u{2068}'] {
            assert!(
                !text.contains(c),
                "{what}: U+{:04X} reached the output raw",
                u32::from(c)
            );
        }
        assert!(
            text.contains("\\u{202e}") || text.contains("\\u202e"),
            "{what}: U+202E is not shown escaped"
        );
    }
}

/// The browser the HTML report is opened in: `MEMSPEC_BROWSER`, else `chromium` on PATH. `.ci/run`
/// installs Chromium and sets the variable, so CI never skips; elsewhere a missing browser skips
/// with a note.
fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MEMSPEC_BROWSER") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|path| path.is_file())
    })
}

/// The page's DOM after its script ran, in headless Chromium.
fn dump_dom(browser: &Path, url: &str) -> String {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            "--dump-dom",
            url,
        ])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", browser.display()));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_html_report_opens_in_a_browser_failures_first_and_filters_work() {
    let Some(browser) = browser() else {
        eprintln!("no chromium on PATH and no MEMSPEC_BROWSER: the browser test is skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let page = dir.path().join("report.html");
    let mut command = memspec();
    command
        .args([
            "check",
            "--no-recheck",
            "--area",
            "delete",
            "--area",
            "view-range",
        ])
        .arg("--backend")
        .arg(backend("delete_root"))
        .arg("--report-html")
        .arg(&page);
    let run = run_command(&mut command);
    assert_eq!(run.code, 1, "{}", run.describe());
    let url = format!("file://{}", page.display());

    let dom = dump_dom(&browser, &url);
    // Opened: the script ran and counted what it shows, by default the failures only.
    assert!(
        dom.contains("id=\"shown\">3 of "),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    // The verdict and the root cause come before any case, and the first case is a failure.
    let verdict = dom.find("id=\"verdict\"").unwrap_or(usize::MAX);
    let cause = dom.find("delete.not-root").unwrap_or(usize::MAX);
    let first_case = dom.find("<details class=\"case").unwrap_or(usize::MAX);
    assert!(
        verdict < cause && cause < first_case,
        "{verdict} {cause} {first_case}"
    );
    assert!(dom[first_case..].starts_with("<details class=\"case o-fail\""));

    // A filter from the address: the passes of one area.
    let dom = dump_dom(&browser, &format!("{url}#outcome=pass&area=view-range"));
    // The opening tags of the cases the script left visible.
    let shown = dom
        .split("<details ")
        .skip(1)
        .filter_map(|case| case.split('>').next())
        .filter(|tag| tag.starts_with("class=\"case") && !tag.contains("hidden"))
        .count();
    let counted = dom
        .split("id=\"shown\">")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    assert!(counted > 10, "view-range passes shown: {counted}");
    assert_eq!(shown, counted);
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let run_with = |color: &str, no_color: bool| {
        let mut command = memspec();
        command.args([
            "check",
            "--no-recheck",
            "--case",
            "delete.root",
            "--color",
            color,
        ]);
        command.args(["--backend", &backend("delete_root")]);
        if no_color {
            command.env("NO_COLOR", "1");
        }
        run_command(&mut command).stdout
    };
    let always = run_with("always", true);
    assert!(
        always.contains("\u{1b}[1m\u{1b}[31mverdict: NOT conformant"),
        "{always}"
    );
    // A pipe, `never`, or NO_COLOR: plain text, whatever else is asked.
    for (color, no_color) in [("auto", false), ("never", false), ("auto", true)] {
        let text = run_with(color, no_color);
        assert!(text.starts_with("verdict: NOT conformant"), "{text}");
        assert!(
            !text.contains('\u{1b}'),
            "--color {color}, NO_COLOR {no_color}"
        );
    }
}

#[test]
fn the_matrix_is_an_html_table_with_differences_first() {
    let mut command = memspec();
    command
        .args([
            "matrix",
            "--case",
            "delete.file",
            "--case",
            "delete.root",
            "--format",
            "html",
        ])
        .arg("--backend")
        .arg(format!("broken={}", backend("delete_root")));
    // A matrix shows, it does not judge: it exits 0 whatever the backends do.
    let run = run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    let html = &run.stdout;
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    let first = html.find("<code>delete.root</code>").unwrap_or(usize::MAX);
    let second = html.find("<code>delete.file</code>").unwrap_or(0);
    assert!(
        first < second,
        "the case where the backends differ comes first"
    );
    assert!(html.contains("<td class=\"o-fail\">fail</td>"));
}
