//! What the reference does for the GA page's view expectations (A4) and `new_str` (A5): long
//! views cut at 16,000 characters with a notice naming the next range (`decide.long-views`),
//! image files answered as image blocks (`decide.image-view`), and a missing `new_str`.

use std::io::Write;
use std::process::{Command, Stdio};

use memspec::backend::wire;
use memspec::protocol::{Image, base64};
use memspec::reference::Reference;
use memspec::spec::Revision;
use serde_json::{Value, json};

use super::{Sandbox, view, view_range};

/// A 1x1 PNG: the signature, then IHDR, IDAT and IEND chunks.
const PNG: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489\
                   0000000d49444154789c63f80f000001010100b0b3d8f90000000049454e44ae426082";

fn png() -> Vec<u8> {
    (0..PNG.len() / 2)
        .map(|i| u8::from_str_radix(&PNG[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// The numbered lines of a view, as (number, content), and what follows them.
fn numbered(text: &str) -> (Vec<(usize, String)>, String) {
    let mut lines = Vec::new();
    let mut rest = String::new();
    for (i, line) in text.split('\n').enumerate().skip(1) {
        let parsed = line.split_once('\t').and_then(|(n, content)| {
            let n = n.trim_start().parse::<usize>().ok()?;
            Some((n, content.to_string()))
        });
        match parsed {
            Some(pair) if rest.is_empty() => lines.push(pair),
            _ => {
                rest = text.split('\n').skip(i).collect::<Vec<_>>().join("\n");
                break;
            }
        }
    }
    (lines, rest)
}

/// The `[start, end]` pairs named in a notice, in order.
fn ranges(notice: &str) -> Vec<(i64, i64)> {
    let mut found = Vec::new();
    for part in notice.split('[').skip(1) {
        let Some((inside, _)) = part.split_once(']') else {
            continue;
        };
        if let Some((a, b)) = inside.split_once(", ")
            && let (Ok(a), Ok(b)) = (a.parse(), b.parse())
        {
            found.push((a, b));
        }
    }
    found
}

/// A file whose lines are 40 characters each with their newline, but 79 bytes (`é` is two):
/// a cut counted in bytes would stop near line 200, one counted in characters at line 400.
fn accented_lines(n: usize) -> String {
    (0..n)
        .map(|i| format!("{i:>6} {}\n", "é".repeat(32)))
        .collect()
}

#[test]
fn long_view_is_cut_at_16000_characters_and_its_ranges_read_every_line_once() {
    let sb = Sandbox::new();
    let text = accented_lines(1000);
    let all: Vec<&str> = text.lines().collect();
    sb.write("long.txt", &text);
    let first = sb.ok(&view("/memories/long.txt"));
    let (shown, notice) = numbered(&first);
    assert_eq!(shown.len(), 400, "16,000 characters of 40-character lines");
    let shown_chars: usize = shown.iter().map(|(_, l)| l.chars().count() + 1).sum();
    assert_eq!(shown_chars, 16_000);
    assert!(
        notice.starts_with("\n[Truncated: the file has 1000 lines"),
        "{notice:?}"
    );
    let named = ranges(&notice);
    assert_eq!(named, [(401, 800), (401, -1)], "{notice}");

    // Follow the first named range, then read on with ranges of the same size, as Claude would.
    let mut seen = shown.clone();
    let (mut start, mut end) = named[0];
    loop {
        let page = sb.ok(&view_range("/memories/long.txt", start, end));
        let (lines, after) = numbered(&page);
        assert!(after.is_empty(), "a ranged view is never cut: {after:?}");
        seen.extend(lines);
        if end == -1 || end as usize >= all.len() {
            break;
        }
        start = end + 1;
        end = (end + 400).min(all.len() as i64);
    }
    let numbers: Vec<usize> = seen.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers,
        (1..=1000).collect::<Vec<_>>(),
        "every line once, in order"
    );
    for (n, line) in &seen {
        assert_eq!(line, all[n - 1], "line {n}");
    }

    // The everything-to-the-end range reads the rest in one view.
    let rest = sb.ok(&view_range("/memories/long.txt", named[1].0, named[1].1));
    let (lines, after) = numbered(&rest);
    assert!(after.is_empty());
    assert_eq!(lines.first().map(|l| l.0), Some(401));
    assert_eq!(lines.last().map(|l| l.0), Some(1000));
}

#[test]
fn a_line_longer_than_the_budget_is_named_alone() {
    let sb = Sandbox::new();
    sb.write("wide.txt", format!("{}\nshort\n", "w".repeat(20_000)));
    let text = sb.ok(&view("/memories/wide.txt"));
    let (shown, notice) = numbered(&text);
    assert!(shown.is_empty());
    assert_eq!(ranges(&notice), [(1, 1), (1, -1)], "{notice}");
    let line = sb.ok(&view_range("/memories/wide.txt", 1, 1));
    assert_eq!(numbered(&line).0, [(1, "w".repeat(20_000))]);
}

#[test]
fn files_of_at_most_16000_characters_and_beta_views_are_never_cut() {
    let sb = Sandbox::new();
    // 16,000 characters but 31,600 bytes: not cut.
    sb.write("exact.txt", accented_lines(400));
    let (lines, after) = numbered(&sb.ok(&view("/memories/exact.txt")));
    assert_eq!((lines.len(), after.as_str()), (400, ""));

    sb.write("long.txt", accented_lines(1000));
    let beta = Reference::open_as(&sb.mem, Revision::Beta2025).expect("open beta");
    assert_eq!(beta.revision(), Revision::Beta2025);
    let answer = beta.answer(&view("/memories/long.txt"));
    assert!(!answer.result.is_error);
    assert_eq!(answer.rule, "view.file.header");
    let (lines, after) = numbered(&answer.result.text);
    assert_eq!((lines.len(), after.as_str()), (1000, ""));
    let ga = sb.reference.answer(&view("/memories/long.txt"));
    assert_eq!(ga.rule, "decide.long-views");
    assert_eq!(sb.reference.revision(), Revision::Ga2026);
}

#[test]
fn truncation_notice_as_claude_reads_it() {
    let sb = Sandbox::new();
    let text: String = (1..=1200)
        .map(|i| format!("note {i:04}: keep the {i}th idea\n"))
        .collect();
    sb.write("ideas.md", &text);
    let answer = sb.ok(&view("/memories/ideas.md"));
    let tail: Vec<&str> = answer.lines().collect();
    let shown = tail[tail.len().saturating_sub(4)..].join("\n");
    let head = tail[..3].join("\n");
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("reference__ga_truncation_notice", format!("{head}\n…\n{shown}"));
    });
}

#[test]
fn new_str_may_be_omitted_in_both_revisions() {
    for revision in Revision::ALL {
        let sb = Sandbox::new();
        sb.write("n.txt", "keep\ndrop me\nkeep too\n");
        let reference = Reference::open_as(&sb.mem, revision).expect("open");
        let result = reference.call(&json!({
            "command": "str_replace", "path": "/memories/n.txt", "old_str": "drop me\n"
        }));
        assert!(!result.is_error, "{revision}: {}", result.text);
        assert_eq!(
            result.text,
            "The memory file has been edited.\n     1\tkeep\n     2\tkeep too"
        );
        assert_eq!(sb.read("n.txt"), "keep\nkeep too\n", "{revision}");
    }
}

#[test]
fn image_files_are_answered_as_images() {
    let sb = Sandbox::new();
    let bytes = png();
    sb.write("pixel.png", &bytes);
    sb.write("Photo.JPG", b"\xff\xd8\xff\xe0rest");
    sb.write("fake.jpeg", "just text\n");
    let reply = sb.reference.reply(&view("/memories/pixel.png"));
    assert_eq!(
        reply.answer.result.text,
        format!("[image/png, {} bytes]", bytes.len())
    );
    assert!(!reply.answer.result.is_error);
    assert_eq!(reply.answer.rule, "decide.image-view");
    assert_eq!(
        reply.image,
        Some(Image {
            media_type: "image/png".to_string(),
            data: bytes.clone(),
        })
    );
    let jpeg = sb.reference.reply(&view("/memories/Photo.JPG"));
    assert_eq!(jpeg.answer.result.text, "[image/jpeg, 8 bytes]");
    // A name is not an image: text under an image name is viewed as text.
    let fake = sb.reference.reply(&view("/memories/fake.jpeg"));
    assert_eq!(fake.image, None);
    assert_eq!(
        fake.answer.result.text,
        "Here's the content of /memories/fake.jpeg with line numbers:\n     1\tjust text"
    );
    // With a range, an image is text, and its bytes are not UTF-8.
    let ranged = sb.reference.reply(&view_range("/memories/pixel.png", 1, 1));
    assert!(ranged.answer.result.is_error);
    assert_eq!(ranged.image, None);
    // Both revisions show images.
    let beta = Reference::open_as(&sb.mem, Revision::Beta2025).expect("open beta");
    assert_eq!(
        beta.reply(&view("/memories/pixel.png"))
            .image
            .map(|i| i.data),
        Some(bytes)
    );
}

#[test]
fn images_above_the_api_limit_are_refused_and_the_limit_itself_is_shown() {
    let sb = Sandbox::new();
    const LIMIT: usize = 3_932_160;
    let mut big = b"\x89PNG\r\n\x1a\n".to_vec();
    big.resize(LIMIT, 0);
    sb.write("limit.png", &big);
    big.push(0);
    sb.write("over.png", &big);
    let at = sb.reference.reply(&view("/memories/limit.png"));
    assert_eq!(at.answer.result.text, "[image/png, 3932160 bytes]");
    // Its base64 is exactly the API's 5 MiB.
    assert_eq!(
        at.image.map(|i| base64::encode(&i.data).len()),
        Some(5 << 20)
    );
    sb.expect_err(
        &view("/memories/over.png"),
        "Error: The image /memories/over.png is 3,932,161 bytes; the memory tool shows images of at most 3,932,160 bytes (3.75 MiB), since a larger one exceeds the 5 MB image limit of the Messages API once encoded.",
    );
}

#[test]
fn a_symlinked_image_is_not_followed() {
    let sb = Sandbox::new();
    sb.write("secret.png", png());
    sb.symlink(sb.base.join("secret.png"), "link.png");
    let reply = sb.reference.reply(&view("/memories/link.png"));
    assert!(reply.answer.result.is_error);
    assert_eq!(reply.image, None);
    assert_eq!(
        reply.answer.result.text,
        "Error: The path /memories/link.png goes through the symbolic link /memories/link.png; the memory tool does not follow symbolic links."
    );
}

#[test]
fn serve_sends_an_image_block_over_protocol_v1() {
    let sb = Sandbox::new();
    let bytes = png();
    sb.write("pixel.png", &bytes);
    let mut child = Command::new(env!("CARGO_BIN_EXE_memspec"))
        .arg("serve")
        .arg(&sb.mem)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start memspec serve");
    let requests = concat!(
        r#"{"id": 1, "input": {"command": "view", "path": "/memories/pixel.png"}}"#,
        "\n",
        r#"{"id": 2, "input": {"command": "view", "path": "/memories/pixel.png", "view_range": [1, 1]}}"#,
        "\n"
    );
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(requests.as_bytes())
        .expect("write requests");
    let out = child.wait_with_output().expect("serve output");
    assert_eq!(out.status.code(), Some(0));
    let replies: Vec<Value> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON reply"))
        .collect();
    assert_eq!(
        replies[0],
        json!({"id": 1, "is_error": false, "content": [{
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": base64::encode(&bytes)}
        }]})
    );
    assert_eq!(replies[1]["is_error"], json!(true));
    // What the harness reads from such a reply: the image kept, its description as the text.
    let read = wire::content(&replies[0]["content"]).expect("image content");
    assert_eq!(read.text, format!("[image/png, {} bytes]", bytes.len()));
    assert_eq!(read.images.len(), 1);
    assert_eq!(read.images[0].data, bytes);
    assert_eq!(
        wire::content_text(&replies[0]["content"]),
        Ok(sb.reference.call(&view("/memories/pixel.png")).text),
        "a backend sending the image block compares equal to the in-process reference"
    );
}
