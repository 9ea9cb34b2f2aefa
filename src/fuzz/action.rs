//! One step of a fuzz sequence ([`Action`]): a tool call, a fill of a wide folder, or either made
//! as one of several users of a store; and how a step reads in a report.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One step of a sequence: what shrinking removes or simplifies as a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// One tool call.
    Call(Value),
    /// A wide folder in one step: `count` creates of `{folder}/f{i}.txt`, each holding `{i}\n`.
    Fill {
        /// The folder (`/memories/w1`).
        folder: String,
        /// How many files.
        count: usize,
    },
    /// A step made as one of several users of one store (`fuzz --users`): the index of its
    /// user among the run's ids.
    As {
        /// The user (0-based).
        user: usize,
        /// The step.
        action: Box<Action>,
    },
}

impl Action {
    /// The tool inputs the step sends, in order.
    pub fn calls(&self) -> Vec<Value> {
        match self {
            Action::Call(input) => vec![input.clone()],
            Action::Fill { folder, count } => (1..=*count).map(|i| fill_call(folder, i)).collect(),
            Action::As { action, .. } => action.calls(),
        }
    }

    /// How many tool calls it makes.
    pub fn len(&self) -> usize {
        match self {
            Action::Call(_) => 1,
            Action::Fill { count, .. } => *count,
            Action::As { action, .. } => action.len(),
        }
    }

    /// The user it is made as (0-based; the only one, for a step of one store).
    pub fn user(&self) -> usize {
        match self {
            Action::As { user, .. } => *user,
            _ => 0,
        }
    }

    /// The step itself, whoever makes it.
    pub fn inner(&self) -> &Action {
        match self {
            Action::As { action, .. } => action.inner(),
            action => action,
        }
    }

    /// `self`'s step made as `user` (the same, for a step of one store).
    pub fn made_as(&self, action: Action) -> Action {
        match self {
            Action::As { user, .. } => Action::As {
                user: *user,
                action: Box::new(action),
            },
            _ => action,
        }
    }

    /// Whether it makes no call (never: a fill has at least one file).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One line for reports: the command with every argument, texts quoted and cut at
    /// [`SHOWN_TEXT`] characters, so that a kept sequence can be read and retyped.
    pub fn describe(&self) -> String {
        self.described_as(&[])
    }

    /// As [`Action::describe`], a step made as a user prefixed with that user's id from
    /// `users` (`as user "u10": view /memories`).
    pub fn described_as(&self, users: &[String]) -> String {
        match self {
            Action::Call(input) => described_call(input),
            Action::Fill { folder, count } => format!("fill {folder} with {count} files"),
            Action::As { user, action } => {
                let id = users.get(*user).map_or_else(
                    || format!("#{}", user + 1),
                    |id| crate::judge::shown_user(id),
                );
                format!("as user {id}: {}", action.described_as(users))
            }
        }
    }
}

/// For each tool call `actions` make, in order: the action (0-based) it belongs to and the user
/// it is made as (a fill is many calls of one action).
pub fn owners(actions: &[Action]) -> Vec<(usize, usize)> {
    actions
        .iter()
        .enumerate()
        .flat_map(|(i, action)| std::iter::repeat_n((i, action.user()), action.len()))
        .collect()
}

/// The most characters of a text argument a step's description shows.
pub const SHOWN_TEXT: usize = 40;

/// A text argument, quoted with its escapes (`"a\r\n"`), cut at [`SHOWN_TEXT`] characters with
/// its length when longer.
fn quoted(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_TEXT {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(SHOWN_TEXT).collect();
    format!("{head:?}… ({count} characters)")
}

/// A tool input in one line: `insert /memories/a.txt at line 0: "x\n"`.
fn described_call(input: &Value) -> String {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let path = text("path").unwrap_or("?");
    match text("command").unwrap_or("?") {
        "view" => match input.get("view_range") {
            Some(range) => format!("view {path} {range}"),
            None => format!("view {path}"),
        },
        "create" => format!("create {path} {}", quoted(text("file_text").unwrap_or(""))),
        "str_replace" => format!(
            "str_replace {path} {} → {}",
            quoted(text("old_str").unwrap_or("")),
            quoted(text("new_str").unwrap_or(""))
        ),
        "insert" => format!(
            "insert {path} at line {}: {}",
            input
                .get("insert_line")
                .map_or_else(|| "?".to_string(), Value::to_string),
            quoted(text("insert_text").unwrap_or(""))
        ),
        "rename" => format!(
            "rename {} → {}",
            text("old_path").unwrap_or("?"),
            text("new_path").unwrap_or("?")
        ),
        command => format!("{command} {path}"),
    }
}

/// The `i`th create of a fill.
pub fn fill_call(folder: &str, i: usize) -> Value {
    json!({"command": "create", "path": format!("{folder}/f{i}.txt"), "file_text": format!("{i}\n")})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_described_with_its_arguments() {
        let call = |input: Value| Action::Call(input).describe();
        assert_eq!(
            call(
                json!({"command": "insert", "path": "/memories/n1/n2", "insert_line": 0, "insert_text": "x\r\n"})
            ),
            r#"insert /memories/n1/n2 at line 0: "x\r\n""#
        );
        assert_eq!(
            call(json!({"command": "view", "path": "/memories/a", "view_range": [2, -1]})),
            "view /memories/a [2,-1]"
        );
        assert_eq!(
            call(
                json!({"command": "str_replace", "path": "/memories/a", "old_str": "b", "new_str": ""})
            ),
            r#"str_replace /memories/a "b" → """#
        );
        assert_eq!(
            call(
                json!({"command": "rename", "old_path": "/memories/a/", "new_path": "/memories/e/"})
            ),
            "rename /memories/a/ → /memories/e/"
        );
        let long =
            call(json!({"command": "create", "path": "/memories/l", "file_text": "é".repeat(100)}));
        assert_eq!(
            long,
            format!(
                "create /memories/l \"{}\"… (100 characters)",
                "é".repeat(SHOWN_TEXT)
            )
        );
        assert_eq!(
            Action::Fill {
                folder: "/memories/w".to_string(),
                count: 3
            }
            .describe(),
            "fill /memories/w with 3 files"
        );
    }
}
