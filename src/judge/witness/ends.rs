//! A file too long to probe whole, whose view did not show it whole: its two ends probed
//! instead. A store that keeps the start of what it acknowledged and drops the rest (a column
//! of fixed size, a marker in place of the tail) has the first bytes and not the last; a view
//! budget that only shows the start has both. The probe is the one of `read_back` (a
//! `str_replace` of bytes onto themselves, which changes nothing), on a piece of each end that
//! occurs once in the text, as `str_replace` wants.

use serde_json::{Value, json};

use super::Seen;
use super::read_back::probe_found;
use crate::protocol::ToolResult;

/// The sizes of end pieces tried, in bytes, the shortest first: the shortest piece that occurs
/// once in the text is probed (a repeated text has none, and is left as its view showed it).
const PIECES: [usize; 3] = [256, 1_024, 4_096];

/// Which end of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Head,
    Tail,
}

/// The shortest piece at `end` of `text`, of one of [`PIECES`]' sizes (cut at a character
/// boundary), that occurs exactly once in `text`.
fn unique_piece(text: &str, end: End) -> Option<&str> {
    PIECES.iter().find_map(|&size| {
        if size * 2 > text.len() {
            return None;
        }
        let piece = match end {
            End::Head => {
                let cut = (0..=size).rev().find(|&i| text.is_char_boundary(i))?;
                &text[..cut]
            }
            End::Tail => {
                let start = (text.len() - size..text.len()).find(|&i| text.is_char_boundary(i))?;
                &text[start..]
            }
        };
        (!piece.is_empty() && text.matches(piece).nth(1).is_none()).then_some(piece)
    })
}

/// Probes the ends of `text` in the file at `path` after its view showed `seen` (other lines,
/// or a view that could not be read whole): [`Seen::Cut`] when the start is stored and the end
/// is not; `seen` as it was otherwise (both ends stored: the view's budget; neither: other
/// bytes, as the view said; an answer that reads as neither found nor not found).
pub(super) fn probe_ends<E>(
    path: &str,
    text: &str,
    seen: Seen,
    mut ask: impl FnMut(&Value) -> Result<ToolResult, E>,
) -> Result<Seen, E> {
    let (Some(head), Some(tail)) = (unique_piece(text, End::Head), unique_piece(text, End::Tail))
    else {
        return Ok(seen);
    };
    let mut found = |piece: &str| -> Result<Option<bool>, E> {
        let answer = ask(
            &json!({"command": "str_replace", "path": path, "old_str": piece, "new_str": piece}),
        )?;
        Ok(probe_found(path, &answer))
    };
    if found(tail)? != Some(false) {
        return Ok(seen);
    }
    if found(head)? != Some(true) {
        return Ok(seen);
    }
    Ok(Seen::Cut(format!(
        "it holds the start of its text but not its end: a str_replace of its last {} characters onto themselves found nothing, one of its first {} found them; the store kept a cut copy of what it acknowledged{}",
        tail.chars().count(),
        head.chars().count(),
        match &seen {
            Seen::Differs(what) | Seen::Unverified(what) => format!("; its view: {what}"),
            _ => String::new(),
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(kept: String) -> impl FnMut(&Value) -> Result<ToolResult, ()> {
        move |input| {
            let old = input["old_str"].as_str().unwrap_or_default();
            Ok(if kept.contains(old) {
                ToolResult::ok("The memory file has been edited.")
            } else {
                ToolResult::error(format!(
                    "No replacement was performed, old_str `{old}` did not appear verbatim in /memories/big.txt."
                ))
            })
        }
    }

    fn text() -> String {
        (0..2_000).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn a_copy_cut_when_stored_is_told_from_a_view_budget() {
        let text = text();
        let unread = Seen::Unverified("its view says it was cut".to_string());
        let cut = format!("{}[... truncated]\n", &text[..15_000]);
        let seen = probe_ends("/memories/big.txt", &text, unread.clone(), store(cut));
        assert!(matches!(seen, Ok(Seen::Cut(_))), "{seen:?}");
        // The whole text stored, only its view cut: the view's reading stands.
        let seen = probe_ends(
            "/memories/big.txt",
            &text,
            unread.clone(),
            store(text.clone()),
        );
        assert_eq!(seen, Ok(unread.clone()));
        // Other bytes altogether: not a cut copy.
        let other = probe_ends(
            "/memories/big.txt",
            &text,
            unread.clone(),
            store("x".repeat(20_000)),
        );
        assert_eq!(other, Ok(unread));
    }

    #[test]
    fn a_text_with_no_unique_end_is_not_probed() {
        let text = "w".repeat(40_000);
        assert_eq!(unique_piece(&text, End::Tail), None);
        let mut asked = 0;
        let seen = probe_ends("/memories/w.txt", &text, Seen::Holds, |_| {
            asked += 1;
            Ok::<_, ()>(ToolResult::ok(""))
        });
        assert_eq!((seen, asked), (Ok(Seen::Holds), 0));
    }

    #[test]
    fn pieces_end_at_character_boundaries() {
        let text = format!(
            "{}{}",
            "é".repeat(5_000),
            (0..500).map(|i| format!("{i}\n")).collect::<String>()
        );
        let head = unique_piece(&text, End::Head);
        assert!(head.is_none_or(|head| text.starts_with(head)));
        let tail = unique_piece(&text, End::Tail);
        assert!(tail.is_some_and(|tail| text.ends_with(tail)));
    }
}
