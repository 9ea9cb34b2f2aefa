//! The one keymap table. Key dispatch, the hint bar and the help overlay are all generated
//! from [`KEYMAP`], so they cannot disagree.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

/// A key as the table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable character (case matters: `n` and `N` differ).
    Char(char),
    /// Control plus a letter.
    Ctrl(char),
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Home.
    Home,
    /// End.
    End,
    /// Enter.
    Enter,
    /// Escape.
    Esc,
    /// Tab.
    Tab,
    /// Backspace.
    Backspace,
    /// A function key.
    F(u8),
}

impl Key {
    /// The key of a terminal key event.
    pub fn from_event(event: KeyEvent) -> Option<Key> {
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        Some(match event.code {
            KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
            KeyCode::Char(c) => Key::Char(c),
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            KeyCode::PageUp => Key::PageUp,
            KeyCode::PageDown => Key::PageDown,
            KeyCode::Home => Key::Home,
            KeyCode::End => Key::End,
            KeyCode::Enter => Key::Enter,
            KeyCode::Esc => Key::Esc,
            KeyCode::Tab => Key::Tab,
            KeyCode::Backspace => Key::Backspace,
            KeyCode::F(n) => Key::F(n),
            _ => return None,
        })
    }

    /// How the key is written in hints and help.
    pub fn label(self) -> String {
        match self {
            Key::Char(' ') => "Space".to_string(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("Ctrl-{c}"),
            Key::Up => "↑".to_string(),
            Key::Down => "↓".to_string(),
            Key::Left => "←".to_string(),
            Key::Right => "→".to_string(),
            Key::PageUp => "PgUp".to_string(),
            Key::PageDown => "PgDn".to_string(),
            Key::Home => "Home".to_string(),
            Key::End => "End".to_string(),
            Key::Enter => "Enter".to_string(),
            Key::Esc => "Esc".to_string(),
            Key::Tab => "Tab".to_string(),
            Key::Backspace => "Bksp".to_string(),
            Key::F(n) => format!("F{n}"),
        }
    }
}

/// When a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Browsing, whatever else holds.
    Always,
    /// Browsing with no search active (so `n` moves between divergences).
    NoSearch,
    /// Browsing with a search active (so `n` moves between matches).
    Searching,
    /// Browsing a golden file with changes to review.
    Review,
    /// Browsing in the compact layout, where the detail pane shows one tab at a time.
    Compact,
    /// Typing in the search prompt.
    Prompt,
    /// The help overlay is open.
    Help,
}

/// The state bindings are chosen by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Context {
    /// A search is active.
    pub searching: bool,
    /// Review mode.
    pub review: bool,
    /// The compact layout is on screen.
    pub compact: bool,
    /// The prompt is open.
    pub prompt: bool,
    /// The help overlay is open.
    pub help: bool,
}

impl When {
    fn holds(self, ctx: Context) -> bool {
        let browsing = !ctx.prompt && !ctx.help;
        match self {
            When::Always => browsing,
            When::NoSearch => browsing && !ctx.searching,
            When::Searching => browsing && ctx.searching,
            When::Review => browsing && ctx.review,
            When::Compact => browsing && ctx.compact,
            When::Prompt => ctx.prompt,
            When::Help => ctx.help && !ctx.prompt,
        }
    }
}

/// One binding: keys, what they do, when, and how hints and help name it.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys (the first is the one hints show).
    pub keys: &'static [Key],
    /// The action.
    pub action: Action,
    /// When it applies.
    pub when: When,
    /// Help section.
    pub group: &'static str,
    /// Word in the hint bar, for the few bindings that deserve a place there.
    pub hint: Option<&'static str>,
    /// Line in the help overlay.
    pub help: &'static str,
}

const fn bind(
    keys: &'static [Key],
    action: Action,
    when: When,
    group: &'static str,
    hint: Option<&'static str>,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        action,
        when,
        group,
        hint,
        help,
    }
}

use Key::{Char, Ctrl, Enter, Esc};

/// Every binding, in help order (the hint bar follows it too, keeping help and quit last).
#[rustfmt::skip]
pub const KEYMAP: &[Binding] = &[
    // Divergences and search first: they are what the hint bar must never drop.
    bind(&[Char('n'), Char('}')], Action::NextDivergence, When::NoSearch, "Divergences", Some("next diff"), "next step that diverges"),
    bind(&[Char('N'), Char('{')], Action::PrevDivergence, When::NoSearch, "Divergences", Some("prev"), "previous step that diverges"),
    bind(&[Char('}')], Action::NextDivergence, When::Searching, "Divergences", None, "next step that diverges"),
    bind(&[Char('{')], Action::PrevDivergence, When::Searching, "Divergences", None, "previous step that diverges"),
    bind(&[Char('f')], Action::FirstDivergence, When::Always, "Divergences", Some("first"), "first step that diverges"),
    bind(&[Char('c')], Action::ToggleConsequences, When::Always, "Divergences", None, "n/N stop at consequences (↳N: follows step N) too, or not"),
    // The diff pane.
    bind(&[Char(']')], Action::NextChange, When::Always, "Diff", Some("change"), "next change in the diff (a step opens on its first)"),
    bind(&[Char('[')], Action::PrevChange, When::Always, "Diff", None, "previous change in the diff"),
    bind(&[Enter], Action::ToggleFold, When::Always, "Diff", None, "expand the folded lines in view (⋯), or fold them back"),
    bind(&[Char('z')], Action::ToggleZoom, When::Always, "Diff", None, "zoom: the detail pane fills the screen, or gives it back"),
    bind(&[Char('n')], Action::NextMatch, When::Searching, "Search", Some("next match"), "next step matching the search"),
    bind(&[Char('N')], Action::PrevMatch, When::Searching, "Search", Some("prev"), "previous step matching the search"),
    bind(&[Esc], Action::ClearSearch, When::Searching, "Search", Some("clear"), "forget the search (n/N go back to divergences)"),
    bind(&[Char('/')], Action::StartSearch, When::Always, "Search", Some("search"), "search inputs and results (smart case)"),
    bind(&[Enter], Action::SubmitSearch, When::Prompt, "Search", Some("search"), "run the search"),
    bind(&[Esc], Action::CancelSearch, When::Prompt, "Search", Some("cancel"), "close the prompt"),
    bind(&[Key::Backspace], Action::SearchBackspace, When::Prompt, "Search", None, "delete a character"),
    // Review of a golden file.
    bind(&[Char('a')], Action::Accept, When::Review, "Review (golden file)", Some("accept"), "accept the backend's new answer into the golden file"),
    bind(&[Char('r')], Action::Reject, When::Review, "Review (golden file)", Some("reject"), "keep the recorded answer"),
    bind(&[Char('s')], Action::Skip, When::Review, "Review (golden file)", Some("skip"), "decide later"),
    bind(&[Char('A')], Action::AcceptAll, When::Review, "Review (golden file)", None, "accept every change not yet decided"),
    bind(&[Char('w')], Action::Save, When::Review, "Review (golden file)", Some("write"), "write accepted changes to the golden file now (also on quit)"),
    // Views.
    bind(&[Char('v')], Action::ToggleLayout, When::Always, "View", Some("layout"), "unified ⇄ side-by-side diff"),
    bind(&[Char('p')], Action::CyclePair, When::Always, "View", Some("compare"), "compare another pair (backend/reference, recorded/reference, recorded/backend) or a file the folders disagree on"),
    bind(&[Char('1')], Action::ShowDiff, When::Compact, "View", None, "diff tab"),
    bind(&[Char('2')], Action::ShowResults, When::Compact, "View", None, "results tab (recorded, backend, reference)"),
    bind(&[Char('3')], Action::ShowTree, When::Compact, "View", None, "memory folder tab"),
    bind(&[Char('4')], Action::ShowInput, When::Compact, "View", None, "input tab"),
    bind(&[Key::Tab], Action::NextTab, When::Compact, "View", Some("tab"), "next tab"),
    // Moving.
    bind(&[Char('j'), Key::Down], Action::NextStep, When::Always, "Move", None, "next step"),
    bind(&[Char('k'), Key::Up], Action::PrevStep, When::Always, "Move", None, "previous step"),
    bind(&[Ctrl('f')], Action::PageSteps, When::Always, "Move", None, "a page of steps down"),
    bind(&[Ctrl('b')], Action::PageStepsBack, When::Always, "Move", None, "a page of steps up"),
    bind(&[Char('g'), Key::Home], Action::FirstStep, When::Always, "Move", None, "first step"),
    bind(&[Char('G'), Key::End], Action::LastStep, When::Always, "Move", None, "last step"),
    bind(&[Key::PageDown, Ctrl('d')], Action::PageDown, When::Always, "Scroll", None, "scroll the detail pane down a page"),
    bind(&[Key::PageUp, Ctrl('u')], Action::PageUp, When::Always, "Scroll", None, "scroll the detail pane up a page"),
    bind(&[Char('J')], Action::ScrollDown, When::Always, "Scroll", None, "scroll the detail pane down a line"),
    bind(&[Char('K')], Action::ScrollUp, When::Always, "Scroll", None, "scroll the detail pane up a line"),
    bind(&[Char('h'), Key::Left], Action::ScrollLeft, When::Always, "Scroll", None, "scroll left"),
    bind(&[Char('l'), Key::Right], Action::ScrollRight, When::Always, "Scroll", None, "scroll right"),
    // General.
    bind(&[Char('m')], Action::ToggleMouse, When::Always, "General", None, "mouse capture on/off (off: the terminal selects text)"),
    bind(&[Char('?'), Key::F(1)], Action::ToggleHelp, When::Always, "General", Some("help"), "this help"),
    bind(&[Char('q'), Ctrl('c')], Action::Quit, When::Always, "General", Some("quit"), "quit (writes accepted golden changes)"),
    bind(&[Esc, Char('?'), Char('q'), Key::F(1)], Action::ToggleHelp, When::Help, "General", Some("close help"), "close this help"),
    bind(&[Char('j'), Key::Down], Action::ScrollDown, When::Help, "General", Some("scroll"), "scroll this help"),
    bind(&[Char('k'), Key::Up], Action::ScrollUp, When::Help, "General", None, "scroll this help back"),
    bind(&[Ctrl('c')], Action::Quit, When::Prompt, "General", None, "quit"),
    bind(&[Ctrl('c')], Action::Quit, When::Help, "General", None, "quit"),
];

/// The action of `key` in `ctx`: the first binding that names the key and applies.
pub fn action_for(key: Key, ctx: Context) -> Option<Action> {
    KEYMAP
        .iter()
        .find(|b| b.when.holds(ctx) && b.keys.contains(&key))
        .map(|b| b.action)
}

/// The hint bar's entries in `ctx`: (first key, word), in table order, one per action.
pub fn hints(ctx: Context) -> Vec<(String, &'static str)> {
    let mut seen: Vec<Action> = Vec::new();
    let mut out = Vec::new();
    // What only the current mode offers (review, search, prompt, help) comes first.
    let specific = |b: &&Binding| {
        matches!(
            b.when,
            When::Review | When::Searching | When::Prompt | When::Help
        )
    };
    let ordered = KEYMAP
        .iter()
        .filter(specific)
        .chain(KEYMAP.iter().filter(|b| !specific(b)));
    for binding in ordered {
        let Some(hint) = binding.hint else { continue };
        if !binding.when.holds(ctx) || seen.contains(&binding.action) {
            continue;
        }
        seen.push(binding.action);
        out.push((binding.keys[0].label(), hint));
    }
    out
}

/// The help overlay's sections: group name and (keys, description) lines, in table order;
/// bindings for the prompt and the overlay itself are left out.
pub fn help() -> Vec<(&'static str, Vec<(String, &'static str)>)> {
    let mut groups: Vec<(&'static str, Vec<(String, &'static str)>)> = Vec::new();
    let mut listed: Vec<(Action, Key)> = Vec::new();
    for binding in KEYMAP {
        if matches!(binding.when, When::Prompt | When::Help) {
            continue;
        }
        // A key already listed for the same action (in another context) says nothing new.
        let fresh: Vec<Key> = binding
            .keys
            .iter()
            .copied()
            .filter(|k| !listed.contains(&(binding.action, *k)))
            .collect();
        if fresh.is_empty() {
            continue;
        }
        listed.extend(fresh.iter().map(|k| (binding.action, *k)));
        let keys = fresh
            .iter()
            .map(|k| k.label())
            .collect::<Vec<_>>()
            .join(" ");
        let line = (keys, binding.help);
        match groups.iter_mut().find(|(g, _)| *g == binding.group) {
            Some((_, lines)) => lines.push(line),
            None => groups.push((binding.group, vec![line])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_is_context_aware() {
        let browsing = Context::default();
        let searching = Context {
            searching: true,
            ..Context::default()
        };
        assert_eq!(
            action_for(Char('n'), browsing),
            Some(Action::NextDivergence)
        );
        assert_eq!(action_for(Char('n'), searching), Some(Action::NextMatch));
        assert_eq!(
            action_for(Char('}'), searching),
            Some(Action::NextDivergence)
        );
        assert_eq!(action_for(Char('a'), browsing), None);
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        let contexts = [
            Context::default(),
            Context {
                searching: true,
                review: true,
                compact: true,
                ..Context::default()
            },
            Context {
                prompt: true,
                ..Context::default()
            },
            Context {
                help: true,
                ..Context::default()
            },
        ];
        for ctx in contexts {
            let mut seen: Vec<Key> = Vec::new();
            for binding in KEYMAP.iter().filter(|b| b.when.holds(ctx)) {
                for key in binding.keys {
                    assert!(!seen.contains(key), "{key:?} bound twice in {ctx:?}");
                    seen.push(*key);
                }
            }
        }
    }
}
