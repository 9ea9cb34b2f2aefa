//! The generator: random sequences of the six commands, biased toward the collisions real
//! stores get wrong (look-alike siblings, pattern characters, case and Unicode twins, trailing
//! spaces and dots, 255-byte names, wide and deep folders, long contents), with reads after
//! writes. It runs every call it makes on an [`Oracle`] as it goes, to aim at what exists and to
//! leave out calls whose answer the spec leaves open.

use serde_json::{Value, json};

use super::action::Action;
use crate::judge::model::{Expected, Model, Oracle, ROOT, lines_of};
use crate::rng::Rng;
use crate::spec::Level;
use crate::spec::{Revision, Spec};

/// A view of a longer file is cut under `ga-2026` (`decide.long-views`): such files are read in
/// windows of lines.
pub const LONG_VIEW: usize = 16_000;

/// Lines per window when a long file is read in parts.
const WINDOW: usize = 60;

/// Names that real stores confuse with one another.
const NAMES: &[&str] = &[
    "a",
    "ab",
    "a_b",
    "a.b",
    "A",
    "b",
    "notes",
    "\u{e9}",
    "e\u{301}",
    "\u{65e5}\u{672c}",
    "*",
    "%",
    "a%b",
    "a*",
    "x?",
    "[a]",
    "a ",
    "a.",
    "_",
];

/// Folder names: fewer, so that paths meet.
const FOLDERS: &[&str] = &["a", "ab", "a_b", "A", "d", "e\u{301}", "\u{e9}"];

const EXTENSIONS: &[&str] = &["", ".txt", ".md", ".txt", ".md"];

/// Lines contents are made of: tabs, trailing whitespace, CRLF, non-ASCII, an empty line.
const LINES: &[&str] = &[
    "alpha",
    "beta beta",
    "tab\there",
    "trailing  ",
    "crlf\r",
    "\u{fc}n\u{ef}c\u{f6}d\u{e9}",
    "\u{65e5}\u{672c}\u{8a9e}",
    "",
    "x",
    "%_*?",
];

/// Mixed into the seed for the stream of [`Generator::forms`].
const FORMS_STREAM: u64 = 0x5eed_f0e5_5ea5_0001;

/// Mixed into the seed for the stream of [`Generator::users`].
const USERS_STREAM: u64 = 0x5eed_0005_e500_0002;

/// Percent of the steps of a sequence of several users made by a user drawn anew (else by the
/// last step's user, whose reads follow their writes).
const SWITCH_USER: u64 = 45;

/// Percent of the steps of a sequence of several users aimed at a user drawn anew (often
/// another) rather than at the step's own user's store.
const AIM_AT_OTHER: u64 = 30;

/// Percent of the reads after a write, in a sequence of several users, made by a user drawn
/// anew (often another).
const READ_BY_OTHER: u64 = 50;

/// Files each user of a sequence of several users views at its end (after the listing of
/// their `/memories`).
const FINAL_READS: usize = 4;

/// Percent of the calls on a folder sent with a trailing slash.
const SLASHED: u64 = 12;

/// Percent of the file views sent as a range to the end of the file.
const TO_THE_END: u64 = 15;

/// Percent of the look-alikes made as a name a store of keys may merge with an existing one
/// (see [`merged_twin`]).
const MERGED: u64 = 30;

/// The generator of one run.
#[derive(Debug)]
pub struct Generator {
    rng: Rng,
    /// The forms the suite sends that real stores get wrong (a folder's path with a trailing
    /// slash, a view from line n to the end), drawn from a stream of their own so that the
    /// sequences a seed made before them stay as they were.
    forms: Rng,
    revision: Revision,
    /// Which user makes the next step, in a sequence of several users: a stream of its own,
    /// so that sequences of one store stay as a seed made them.
    users: Rng,
    /// Folders made by fills so far (each fill gets a new one).
    fills: usize,
}

impl Generator {
    /// A generator for `revision` from `seed`.
    pub fn new(seed: u64, revision: Revision) -> Generator {
        Generator {
            rng: Rng::new(seed),
            forms: Rng::new(seed ^ FORMS_STREAM),
            users: Rng::new(seed ^ USERS_STREAM),
            revision,
            fills: 0,
        }
    }

    /// A sequence of about `length` steps, each run on `oracle` as it is made, with what the
    /// reference answered to each of its calls and the store after it (what a trial of the
    /// sequence expects). A call whose answer follows a decision rather than the spec (INFO) is
    /// left out: any answer would do there, so it proves nothing and would make the stores
    /// differ for no fault.
    pub fn sequence(
        &mut self,
        oracle: &mut Oracle,
        spec: &Spec,
        length: usize,
    ) -> (Vec<Action>, Vec<Expected>) {
        self.sequence_of_users(std::slice::from_mut(oracle), spec, length)
    }

    /// As [`Generator::sequence`], for as many users of one store as there are `oracles` (one
    /// per user, each user's own store): each step is made as one of them ([`Action::As`]),
    /// aimed at what that user's store holds, and the paths the users name are drawn from the
    /// same few names, so that they meet. With one oracle, the steps are plain and the same a
    /// seed always made.
    pub fn sequence_of_users(
        &mut self,
        oracles: &mut [Oracle],
        spec: &Spec,
        length: usize,
    ) -> (Vec<Action>, Vec<Expected>) {
        let mut actions = Vec::with_capacity(length);
        let mut expected = Vec::with_capacity(length);
        let open = |step: &Expected| {
            step.answer.result.is_error && spec.level(&step.answer.rule) == Level::Info
        };
        let many = oracles.len() > 1;
        let mut user = 0;
        let mut attempts = 0;
        while actions.len() < length && attempts < length * 4 {
            attempts += 1;
            if many && self.users.chance(SWITCH_USER) {
                user = self.users.below(oracles.len());
            }
            // Now and then aimed at what another user holds: a view, edit, delete or rename of
            // a neighbour's path, which a store that merges the two serves.
            let aim = match many && self.users.chance(AIM_AT_OTHER) {
                true => self.users.below(oracles.len()),
                false => user,
            };
            let Some(aimed) = oracles.get(aim) else {
                break;
            };
            let action = self.action(aimed.model());
            let Some(oracle) = oracles.get_mut(user) else {
                break;
            };
            let made_as = |user: usize, action: Action| match many {
                true => Action::As {
                    user,
                    action: Box::new(action),
                },
                false => action,
            };
            if let Action::Call(input) = &action {
                // An error the reference gives under a decision changes nothing: leave it out.
                let step = oracle.step(input.clone());
                if open(&step) {
                    continue;
                }
                expected.push(step);
            } else {
                expected.extend(action.calls().into_iter().map(|input| oracle.step(input)));
            }
            let read = self.read_after(&action, oracle.model());
            actions.push(made_as(user, action));
            // The read of what was written, now and then by a user drawn anew: a neighbour's
            // read of a path just written is where a merged store shows it.
            let reader = match many && self.users.chance(READ_BY_OTHER) {
                true => self.users.below(oracles.len()),
                false => user,
            };
            if let Some(read) = read
                && let Some(oracle) = oracles.get_mut(reader)
            {
                let step = oracle.step(read.clone());
                if !open(&step) {
                    actions.push(made_as(reader, Action::Call(read)));
                    expected.push(step);
                }
            }
        }
        if many {
            // Each user reads their store at the end: what another user's calls moved into it
            // or out of it shows there, if no step looked.
            for (user, oracle) in oracles.iter_mut().enumerate() {
                let model = oracle.model();
                let mut reads = vec![json!({"command": "view", "path": ROOT})];
                reads.extend(
                    (model.files.keys().take(FINAL_READS))
                        .map(|path| json!({"command": "view", "path": path})),
                );
                for read in reads {
                    let step = oracle.step(read.clone());
                    if !open(&step) {
                        actions.push(Action::As {
                            user,
                            action: Box::new(Action::Call(read)),
                        });
                        expected.push(step);
                    }
                }
            }
        }
        (actions, expected)
    }

    fn action(&mut self, model: &Model) -> Action {
        // create, view, listing, str_replace, insert, delete, rename, fill
        let action = match self.rng.weighted(&[26, 14, 12, 10, 8, 10, 10, 2]) {
            0 => self.create(model),
            1 => self.view_file(model),
            2 => Action::Call(self.listing(model)),
            3 => self.str_replace(model),
            4 => self.insert(model),
            5 => self.delete(model),
            6 => self.rename(model),
            _ => self.fill(),
        };
        match action {
            Action::Call(input) => Action::Call(self.slashed(input, model)),
            other => other,
        }
    }

    /// Now and then a folder's path with a trailing slash, as Claude writes one (`view
    /// /memories/sub/`, `rename /memories/sub → /memories/e/`): a store that keeps the slash in
    /// its keys loses what it moves.
    fn slashed(&mut self, mut input: Value, model: &Model) -> Value {
        if !self.forms.chance(SLASHED) {
            return input;
        }
        let folder = |field: &str, input: &Value| {
            input
                .get(field)
                .and_then(Value::as_str)
                .is_some_and(|path| {
                    path != ROOT && model.is_dir(&crate::judge::model::normal(path))
                })
        };
        let field = match input.get("command").and_then(Value::as_str) {
            Some("view" | "delete") if folder("path", &input) => "path",
            Some("rename") if folder("old_path", &input) => {
                // The destination of a moved folder, slashed too half of the time.
                if self.forms.chance(50)
                    && let Some(Value::String(new)) = input.get_mut("new_path")
                    && !new.ends_with('/')
                {
                    new.push('/');
                }
                "old_path"
            }
            _ => return input,
        };
        if let Some(Value::String(path)) = input.get_mut(field)
            && !path.ends_with('/')
        {
            path.push('/');
        }
        input
    }

    /// A read of what a write touched, half of the time: the file, or its folder's listing.
    fn read_after(&mut self, action: &Action, model: &Model) -> Option<Value> {
        let input = match action {
            // A fill is always listed: that is where a store cuts what it lists.
            Action::Fill { folder, .. } => {
                return Some(json!({"command": "view", "path": folder}));
            }
            Action::Call(input) => input,
            Action::As { action, .. } => return self.read_after(action, model),
        };
        let command = input.get("command").and_then(Value::as_str)?;
        if command == "view" || !self.rng.chance(60) {
            return None;
        }
        // After a delete or a rename, the path that is gone (a cache may still answer for
        // it) as often as what is there now.
        let field = match command {
            "rename" if self.rng.chance(40) => "old_path",
            "rename" => "new_path",
            _ => "path",
        };
        let path = crate::judge::model::normal(input.get(field).and_then(Value::as_str)?);
        if (command == "delete" || field == "old_path") && self.rng.chance(50) {
            return Some(json!({"command": "view", "path": path}));
        }
        // A moved folder: one of the files deepest below it.
        if command == "rename"
            && model.is_dir(&path)
            && let Some(deep) = model
                .files
                .keys()
                .filter(|f| f.starts_with(&format!("{path}/")))
                .max_by_key(|f| f.matches('/').count())
        {
            return Some(self.read_file(model, &deep.clone()));
        }
        if model.is_file(&path) && self.rng.chance(60) {
            return Some(self.read_file(model, &path));
        }
        let parent = path.rsplit_once('/').map_or(ROOT, |(p, _)| p);
        let folder = if parent.is_empty() || !model.is_dir(parent) {
            ROOT
        } else {
            parent
        };
        Some(json!({"command": "view", "path": folder}))
    }

    /// A path for a new entry: one to three levels, look-alike names, now and then a name of
    /// exactly 255 bytes.
    fn new_path(&mut self, model: &Model) -> String {
        let mut path = match self.rng.weighted(&[40, 35, 25]) {
            0 => ROOT.to_string(),
            1 => self.folder(model),
            _ => format!("{}/{}", self.folder(model), self.pick(FOLDERS)),
        };
        path.push('/');
        if self.rng.chance(3) {
            // 255 bytes: ASCII, or two-byte characters and an extension.
            if self.rng.chance(50) {
                path.push_str(&"n".repeat(251));
                path.push_str(".txt");
            } else {
                path.push_str(&"\u{e9}".repeat(126));
                path.push_str(".md");
            }
        } else {
            path.push_str(self.pick(NAMES));
            path.push_str(self.pick(EXTENSIONS));
        }
        path
    }

    /// A folder to put things in: an existing one or a new name.
    fn folder(&mut self, model: &Model) -> String {
        if !model.dirs.is_empty() && self.rng.chance(50) {
            let dirs: Vec<&String> = model.dirs.iter().filter(|d| d.len() < 200).collect();
            if let Some(dir) = self.rng.pick(&dirs) {
                return (*dir).clone();
            }
        }
        format!("{ROOT}/{}", self.pick(FOLDERS))
    }

    fn pick(&mut self, items: &[&'static str]) -> &'static str {
        self.rng.pick(items).copied().unwrap_or("a")
    }

    /// An existing file, or `None`.
    fn existing_file(&mut self, model: &Model) -> Option<String> {
        let files: Vec<&String> = model.files.keys().collect();
        self.rng.pick(&files).map(|f| (*f).clone())
    }

    /// An existing path, file or folder, or `None`.
    fn existing(&mut self, model: &Model) -> Option<String> {
        let all: Vec<&String> = model.files.keys().chain(model.dirs.iter()).collect();
        self.rng.pick(&all).map(|p| (*p).clone())
    }

    /// A path near an existing one: a sibling that shares a prefix or differs in case or
    /// normalization, or a pattern that would match it.
    fn look_alike(&mut self, model: &Model) -> String {
        let Some(path) = self.existing(model) else {
            return self.new_path(model);
        };
        // From the forms' stream, so that the main one (and every seed's sequence) stays.
        if self.forms.chance(MERGED) {
            let twins = merged_twins(&path);
            if !twins.is_empty() {
                let pick = self.forms.below(twins.len());
                return twins[pick].clone();
            }
        }
        let (parent, name) = path.rsplit_once('/').unwrap_or((ROOT, "a"));
        let parent = if parent.is_empty() { ROOT } else { parent };
        let twin = match self.rng.below(8) {
            0 => format!("{name}b"),
            1 => name.chars().take(1).collect::<String>(),
            2 => name.to_uppercase(),
            3 => "*".to_string(),
            4 => format!("{}*", name.chars().take(1).collect::<String>()),
            5 => name.replace('.', "_"),
            6 => "%".to_string(),
            _ => format!("{name} "),
        };
        format!("{parent}/{twin}")
    }

    fn content(&mut self) -> String {
        match self.rng.weighted(&[80, 12, 8]) {
            0 => {
                let count = self.rng.between(1, 5);
                let mut text: Vec<&str> = (0..count).map(|_| self.pick(LINES)).collect();
                // The same line twice now and then, so that str_replace meets two occurrences.
                if self.rng.chance(15)
                    && let Some(first) = text.first().copied()
                {
                    text.push(first);
                }
                let mut text = text.join("\n");
                if self.rng.chance(85) {
                    text.push('\n');
                }
                text
            }
            // Past 16,000 characters (cut in GA views), or past 64 KiB.
            1 => long_text(self.rng.between(250, 300)),
            _ => long_text(self.rng.between(1_000, 1_100)),
        }
    }

    fn create(&mut self, model: &Model) -> Action {
        let path = match self.rng.weighted(&[60, 30, 10]) {
            0 => self.new_path(model),
            1 => self.look_alike(model),
            // Onto an existing file: refused under beta-2025; under ga-2026 an overwrite is
            // allowed, so the answer would be open (and the call is not made).
            _ if self.revision == Revision::Beta2025 => self
                .existing_file(model)
                .unwrap_or_else(|| self.new_path(model)),
            _ => self.new_path(model),
        };
        if self.revision == Revision::Ga2026 && model.is_file(&crate::judge::model::normal(&path)) {
            return Action::Call(self.listing(model));
        }
        let text = self.content();
        Action::Call(json!({"command": "create", "path": path, "file_text": text}))
    }

    fn view_file(&mut self, model: &Model) -> Action {
        match self.existing_file(model) {
            Some(path) if self.rng.chance(85) => Action::Call(self.read_file(model, &path)),
            _ => Action::Call(json!({"command": "view", "path": self.look_alike(model)})),
        }
    }

    /// A view of `path`, a file of the model: whole, or under `ga-2026` a window of lines when
    /// it is too long to be shown whole.
    fn read_file(&mut self, model: &Model, path: &str) -> Value {
        let content = model.files.get(path).map_or("", String::as_str);
        let lines = lines_of(content).len();
        // Now and then from a line to the end (`[n, -1]`), as Claude reads the rest of a file.
        if lines > 1 && self.forms.chance(TO_THE_END) {
            let start = self.forms.between(1, lines);
            return json!({"command": "view", "path": path, "view_range": [start, -1]});
        }
        if self.revision == Revision::Beta2025 || content.chars().count() <= LONG_VIEW {
            return json!({"command": "view", "path": path});
        }
        // Most often the end of the file, where a cut store loses lines.
        let start = if self.rng.chance(60) {
            lines.saturating_sub(WINDOW) + 1
        } else {
            self.rng.between(1, lines.saturating_sub(WINDOW).max(1))
        };
        let end = (start + WINDOW - 1).min(lines);
        json!({"command": "view", "path": path, "view_range": [start, end]})
    }

    fn listing(&mut self, model: &Model) -> Value {
        let path = match self.rng.weighted(&[40, 45, 15]) {
            0 => ROOT.to_string(),
            1 => {
                let dirs: Vec<&String> = model.dirs.iter().collect();
                self.rng
                    .pick(&dirs)
                    .map_or(ROOT.to_string(), |d| (*d).clone())
            }
            _ => self.look_alike(model),
        };
        json!({"command": "view", "path": path})
    }

    fn str_replace(&mut self, model: &Model) -> Action {
        let Some(path) = self.existing_file(model) else {
            return self.create(model);
        };
        let content = model.files.get(&path).cloned().unwrap_or_default();
        let lines = lines_of(&content);
        let old = match self.rng.pick(&lines) {
            Some(line) if !line.is_empty() && self.rng.chance(85) => (*line).to_string(),
            _ => self.pick(LINES).to_string(),
        };
        let new = format!("{} {}", self.pick(LINES), self.rng.below(100));
        Action::Call(
            json!({"command": "str_replace", "path": path, "old_str": old, "new_str": new}),
        )
    }

    fn insert(&mut self, model: &Model) -> Action {
        // Where insert puts text after a last line without `\n` is a decision
        // (decide.insert-lines): only files that end with one, and whole lines.
        let files: Vec<&String> = model
            .files
            .iter()
            .filter(|(_, c)| c.is_empty() || c.ends_with('\n'))
            .map(|(p, _)| p)
            .collect();
        let Some(path) = self.rng.pick(&files).map(|p| (*p).clone()) else {
            return self.create(model);
        };
        let lines = model.files.get(&path).map_or(0, |c| lines_of(c).len());
        let line = if self.rng.chance(40) {
            lines
        } else {
            self.rng.between(0, lines)
        };
        let text = format!("{}\n", self.pick(LINES));
        Action::Call(
            json!({"command": "insert", "path": path, "insert_line": line, "insert_text": text}),
        )
    }

    fn delete(&mut self, model: &Model) -> Action {
        let path = match self.rng.weighted(&[65, 35]) {
            0 => self
                .existing(model)
                .unwrap_or_else(|| self.look_alike(model)),
            _ => self.look_alike(model),
        };
        Action::Call(json!({"command": "delete", "path": path}))
    }

    fn rename(&mut self, model: &Model) -> Action {
        // Folders half of the time: moving a tree is where stores lose its deeper parts.
        let dirs: Vec<&String> = model.dirs.iter().collect();
        let folder = if self.rng.chance(50) {
            self.rng.pick(&dirs).map(|d| (*d).clone())
        } else {
            None
        };
        let Some(old) = folder.or_else(|| self.existing(model)) else {
            return self.create(model);
        };
        let new = match self.rng.weighted(&[55, 25, 20]) {
            0 => self.new_path(model),
            1 => self.look_alike(model),
            _ => self.existing(model).unwrap_or_else(|| self.new_path(model)),
        };
        Action::Call(json!({"command": "rename", "old_path": old, "new_path": new}))
    }

    /// A wide folder: past 100 entries, or now and then past 1,000.
    fn fill(&mut self) -> Action {
        self.fills += 1;
        let count = if self.rng.chance(20) {
            self.rng.between(1_001, 1_020)
        } else {
            self.rng.between(101, 120)
        };
        Action::Fill {
            folder: format!("{ROOT}/w{}", self.fills),
            count,
        }
    }
}

/// A text of `lines` numbered lines of about 70 characters each.
pub fn long_text(lines: usize) -> String {
    let mut text = String::with_capacity(lines * 72);
    for i in 1..=lines {
        text.push_str(&format!(
            "line {i:>5} {}\n",
            "lorem ipsum dolor sit amet ".repeat(2)
        ));
    }
    text
}

/// The paths a store of keys may take for `path` itself (issue 29's merged keys): the last `/`
/// made `_` (`/memories/a/b.txt` and `/memories/a_b.txt`), the name in the other Unicode
/// normalisation (`é` and `e` + U+0301), with a trailing dot or space. Each is a memory of its
/// own to the reference.
fn merged_twins(path: &str) -> Vec<String> {
    let Some((parent, name)) = path.rsplit_once('/') else {
        return Vec::new();
    };
    let mut twins = Vec::new();
    if parent != ROOT
        && let Some((grandparent, folder)) = parent.rsplit_once('/')
    {
        twins.push(format!("{grandparent}/{folder}_{name}"));
    }
    if name.contains('\u{e9}') {
        twins.push(format!("{parent}/{}", name.replace('\u{e9}', "e\u{301}")));
    } else if name.contains("e\u{301}") {
        twins.push(format!("{parent}/{}", name.replace("e\u{301}", "\u{e9}")));
    }
    if !name.ends_with(['.', ' ']) {
        twins.push(format!("{parent}/{name}."));
        twins.push(format!("{parent}/{name} "));
    }
    twins
}
