//! The layers of DESIGN.md, enforced: each module of `src/` names only itself and the modules
//! this table lets it use, so a lower layer never imports a higher one (the session never
//! learns the suite's types; the judge never calls a command).
//!
//! Every file is parsed (syn), and every path that reaches a module of the crate counts: `use`
//! trees with their groups, renames and globs; `crate::`, `memspec::` and `super::` paths in
//! types, expressions, patterns, attribute arguments and macro arguments, `super` resolved from
//! the module the file (or an inline `mod`) is. Only items under `#[cfg(test)]` are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Attribute, ForeignItem, ImplItem, Item, Meta, Token, TraitItem, UseTree};

/// Each top-level module of the library, with the modules it may use, from the bottom up as in
/// DESIGN.md's "Layout": spec; reference and transcript; backend; exec; suite; judge; the
/// engines (check, replay, fuzz); report; the TUI. The CLI, above all, is not in the table.
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
    // Knows nothing of cases or rules.
    ("exec", &["schema", "backend", "reference", "protocol"]),
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
    // The stream every engine emits into, and the race engine both check and fuzz run.
    ("events", &["judge"]),
    (
        "race",
        &[
            "events", "judge", "exec", "backend", "spec", "protocol", "rng",
        ],
    ),
    // The crash lane, which check runs: the reference in memspec's process says what each
    // write leaves.
    (
        "crash",
        &["judge", "exec", "backend", "spec", "protocol", "rng"],
    ),
    // The engines: below the one reporter, and fuzz beside check, not above it.
    (
        "check",
        &[
            "events",
            "race",
            "crash",
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
            "events",
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
            "events",
            "race",
            "replay",
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
    // The one reporter: renders the run of every engine, so it may name their types.
    (
        "report",
        &[
            "check",
            "replay",
            "fuzz",
            "events",
            "judge",
            "suite",
            "transcript",
            "spec",
            "protocol",
            "diff",
            "schema",
        ],
    ),
    // The schema files, made from the types of every layer up to the report.
    (
        "schema_files",
        &[
            "report", "judge", "suite", "exec", "spec", "protocol", "schema",
        ],
    ),
    // Every error's exit class: above the commands whose errors it classifies.
    ("exit", &["check", "replay", "fuzz"]),
    // Over replay's results, reading the report's model.
    (
        "tui",
        &[
            "report",
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

/// The breaks of the table that `main` still has: (from, to, why and where it goes). Each is
/// fixed by moving code, never by widening the table; the test fails once a pair is no longer
/// broken, so this list only shrinks.
const PENDING: &[(&str, &str, &str)] = &[];

/// The engines: they call the backends and observe, and grade only through the judge's door.
const ENGINES: &[&str] = &["check", "replay", "fuzz", "race", "crash"];

/// What of the judge an engine may name, as paths below `judge`: the door and what goes through
/// it, the finding it gives back and its parts, the data of a graded case (`grade`), the
/// reference's model of the store (`model`), and the witness's ways of reading a store.
const DOOR: &[&str] = &[
    "step",
    "Observation",
    "CaseCall",
    "CaseLedger",
    "Facts",
    "Race",
    "Crash",
    "Crossing",
    "Files",
    "KillPoint",
    "ReadAs",
    "Replayed",
    "ReplayLedger",
    "Witness",
    "Judgement",
    "Next",
    "Finding",
    "Check",
    "Fact",
    "Harm",
    "Pair",
    "Cause",
    "grade",
    "model",
    "compare::Answer",
    "facts::Stores",
    "disk::see",
    "witness::read_back",
    // How far a read-back may probe the bytes (a folder's disk needs none): the engine knows
    // what it runs on, the witness what a probe means.
    "witness::Probing",
    "witness::Seen",
    "witness::file_lines",
    // A view's lines where the witness knows its format (`None` for one it does not read).
    "witness::known_file_lines",
    // How a user id is spelled in every message (the judge's, the report's, an engine's error).
    "shown_user",
];

/// What of the judge an engine still names besides [`DOOR`]: (engine, path below `judge`, why
/// and where it goes). The test fails once one is no longer named, so this list only shrinks.
const PENDING_DOOR: &[(&str, &str, &str)] = &[];

/// What one file names of the crate.
#[derive(Debug, Default)]
struct Scan {
    /// Each crate path: its line, and the top-level module it reaches.
    names: Vec<(usize, String)>,
    /// Each crate path in full from the root (`judge`, `step`, ...): its line and segments.
    paths: Vec<(usize, Vec<String>)>,
    /// Modules declared as files under `#[cfg(test)]` (`#[cfg(test)] mod tests;`).
    test_only: Vec<Vec<String>>,
}

/// The module a file of `src/` is: `a/b.rs` and `a/b/mod.rs` are both `a::b`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut module: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(file) = module.pop() {
        let stem = file.strip_suffix(".rs").unwrap_or(&file);
        if stem != "mod" {
            module.push(stem.to_string());
        }
    }
    module
}

/// Every path of `source` that names a module of the crate, read as the module `module`.
fn scan(module: &[String], source: &str) -> syn::Result<Scan> {
    let file = syn::parse_file(source)?;
    let mut scanner = Scanner {
        module: module.to_vec(),
        scan: Scan::default(),
        aliases: BTreeMap::new(),
    };
    if !test_only(&file.attrs) {
        scanner.visit_file(&file);
    }
    Ok(scanner.scan)
}

struct Scanner {
    /// The module being read: the file's, then any inline `mod` inside it.
    module: Vec<String>,
    scan: Scan,
    /// Names a `use` brought in from the crate, with the path each stands for: after
    /// `use crate::judge;`, `judge::effects::judge(…)` reaches `judge::effects`.
    aliases: BTreeMap<String, Vec<String>>,
}

impl Scanner {
    /// The top-level module `names` reaches from the module being read, if it is a crate path:
    /// the root's own name (`crate`) or glob (`crate::*`) when it reaches the root and stops.
    fn reach(&self, names: &[String]) -> Option<String> {
        let path = self.resolve(names)?;
        Some(match path.first() {
            Some(name) if name == "*" => "crate::*".to_string(),
            Some(name) => name.clone(),
            None => "crate".to_string(),
        })
    }

    /// The path from the crate root that `names` stands for, if it is a crate path.
    fn resolve(&self, names: &[String]) -> Option<Vec<String>> {
        let first = names.first()?.as_str();
        let (mut base, mut rest) = match first {
            "crate" | "memspec" => (Vec::new(), &names[1..]),
            "self" => (self.module.clone(), &names[1..]),
            "super" => (self.module.clone(), names),
            _ => (self.aliases.get(first)?.clone(), &names[1..]),
        };
        while rest.first().is_some_and(|name| name == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, names: &[String], span: Span) {
        if let Some(path) = self.resolve(names) {
            let top = self.reach(names).unwrap_or_default();
            self.scan.names.push((span.start().line, top));
            self.scan.paths.push((span.start().line, path));
        }
    }

    /// Each name a `use` tree brings in, after `prefix`.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &UseTree) {
        let leaf = match tree {
            UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
                return;
            }
            UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
                return;
            }
            UseTree::Name(name) => (name.ident.to_string(), name.ident.span()),
            UseTree::Rename(rename) => (rename.ident.to_string(), rename.ident.span()),
            UseTree::Glob(glob) => ("*".to_string(), glob.star_token.spans[0]),
        };
        let alias = match tree {
            UseTree::Rename(rename) => Some(rename.rename.to_string()),
            UseTree::Name(_) if leaf.0 == "self" => prefix.last().cloned(),
            UseTree::Name(_) => Some(leaf.0.clone()),
            _ => None,
        };
        let full = if leaf.0 == "self" {
            self.record(prefix, leaf.1);
            self.resolve(prefix)
        } else {
            prefix.push(leaf.0);
            self.record(prefix, leaf.1);
            let full = self.resolve(prefix);
            prefix.pop();
            full
        };
        if let (Some(alias), Some(full)) = (alias, full) {
            self.aliases.insert(alias, full);
        }
    }

    /// The crate paths in tokens no parser reads: macro and attribute arguments (`$crate::x`,
    /// `format!("{}", crate::x::y())`, `pattern = crate::x::Y`).
    fn tokens(&mut self, stream: TokenStream) {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        let mut at = 0;
        while at < tokens.len() {
            if let TokenTree::Group(group) = &tokens[at] {
                self.tokens(group.stream());
            }
            let starts = matches!(&tokens[at], TokenTree::Ident(id)
                if ["crate", "memspec", "self", "super"].contains(&id.to_string().as_str()))
                && colons(&tokens, at + 1)
                && !(at >= 2 && colons(&tokens, at - 2));
            if !starts {
                at += 1;
                continue;
            }
            let span = tokens[at].span();
            let mut names = Vec::new();
            let mut ended = false;
            while let Some(TokenTree::Ident(id)) = tokens.get(at) {
                names.push(id.to_string());
                at += 1;
                if !colons(&tokens, at) {
                    ended = true;
                    break;
                }
                at += 2;
            }
            match tokens.get(at) {
                Some(TokenTree::Punct(star)) if !ended && star.as_char() == '*' => {
                    names.push("*".to_string());
                    at += 1;
                    self.record(&names, span);
                }
                Some(TokenTree::Group(group))
                    if !ended && group.delimiter() == Delimiter::Brace =>
                {
                    at += 1;
                    match Punctuated::<UseTree, Token![,]>::parse_terminated.parse2(group.stream())
                    {
                        Ok(trees) => {
                            for tree in &trees {
                                self.use_tree(&mut names, tree);
                            }
                        }
                        Err(_) => {
                            self.record(&names, span);
                            self.tokens(group.stream());
                        }
                    }
                }
                _ => self.record(&names, span),
            }
        }
    }
}

/// Whether `tokens[at..]` starts with `::`.
fn colons(tokens: &[TokenTree], at: usize) -> bool {
    matches!(
        (tokens.get(at), tokens.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Whether the attributes hold `#[cfg(test)]` (or `#[cfg(all(test, …))]`).
fn test_only(attrs: &[Attribute]) -> bool {
    fn means_test(meta: &Meta) -> bool {
        match meta {
            Meta::Path(path) => path.is_ident("test"),
            Meta::List(list) if list.path.is_ident("all") => list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .is_ok_and(|all| all.iter().any(means_test)),
            _ => false,
        }
    }
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && attr.parse_args::<Meta>().is_ok_and(|m| means_test(&m))
    })
}

/// An item's attributes (none for the tokens syn keeps verbatim).
fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Scanner {
    fn visit_item(&mut self, item: &'ast Item) {
        if !test_only(item_attrs(item)) {
            visit::visit_item(self, item);
        } else if let Item::Mod(declared) = item
            && declared.content.is_none()
        {
            let mut module = self.module.clone();
            module.push(declared.ident.to_string());
            self.scan.test_only.push(module);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        let attrs: &[Attribute] = match item {
            ImplItem::Const(i) => &i.attrs,
            ImplItem::Fn(i) => &i.attrs,
            ImplItem::Type(i) => &i.attrs,
            ImplItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        let attrs: &[Attribute] = match item {
            TraitItem::Const(i) => &i.attrs,
            TraitItem::Fn(i) => &i.attrs,
            TraitItem::Type(i) => &i.attrs,
            TraitItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_foreign_item(&mut self, item: &'ast ForeignItem) {
        let attrs: &[Attribute] = match item {
            ForeignItem::Fn(i) => &i.attrs,
            ForeignItem::Static(i) => &i.attrs,
            ForeignItem::Type(i) => &i.attrs,
            ForeignItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_foreign_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for attr in &item.attrs {
            self.visit_attribute(attr);
        }
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_item_extern_crate(&mut self, item: &'ast syn::ItemExternCrate) {
        // `extern crate self as name;` names the crate root.
        if item.ident == "self" {
            self.record(&["crate".to_string()], item.ident.span());
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = path.segments.first() {
            self.record(&names, first.ident.span());
        }
        visit::visit_path(self, path);
    }

    // `pub(crate)`, `pub(super)`, `pub(in …)` only name an ancestor, never another layer.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }

    fn visit_attribute(&mut self, attr: &'ast Attribute) {
        if let Meta::List(list) = &attr.meta {
            self.tokens(list.tokens.clone());
        }
        visit::visit_attribute(self, attr);
    }
}

/// One name a module may not use.
#[derive(Debug, PartialEq, Eq)]
struct Break {
    file: String,
    line: usize,
    from: String,
    to: String,
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: `{}` uses `{}`, a layer it may not use",
            self.file, self.line, self.from, self.to
        )
    }
}

/// The names of `scan` that the table does not let the file's top-level module use; `None`
/// for the files above every layer (the binary, the crate root, the CLI).
fn breaks_of(relative: &Path, scan: &Scan) -> Option<Result<Vec<Break>, String>> {
    let module = module_of(relative);
    let top = module.first()?.as_str();
    if ["main", "lib", "cli"].contains(&top) {
        return None;
    }
    let Some((_, may)) = ALLOWED.iter().find(|(name, _)| *name == top) else {
        return Some(Err(format!(
            "{}: module `{top}` is not in the table of layers (tests/it/layers.rs)",
            relative.display()
        )));
    };
    Some(Ok(scan
        .names
        .iter()
        .filter(|(_, name)| name != top && !may.contains(&name.as_str()))
        .map(|(line, name)| Break {
            file: relative.display().to_string(),
            line: *line,
            from: top.to_string(),
            to: name.clone(),
        })
        // One line per break: a group's names on one line reach one module once.
        .fold(Vec::new(), |mut breaks: Vec<Break>, b| {
            if breaks.last() != Some(&b) {
                breaks.push(b);
            }
            breaks
        })))
}

/// The breaks of one file `relative` to `src/`, as (line, name used).
fn check(relative: &str, source: &str) -> Vec<(usize, String)> {
    let relative = Path::new(relative);
    let scan = scan(&module_of(relative), source).expect("the source parses");
    breaks_of(relative, &scan)
        .expect("a module with layers")
        .expect("a module in the table")
        .into_iter()
        .map(|b| (b.line, b.to))
        .collect()
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
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
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut failures = Vec::new();
    let mut scans = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file).to_path_buf();
        let source = std::fs::read_to_string(file).unwrap_or_default();
        match scan(&module_of(&relative), &source) {
            Ok(scan) => scans.push((relative, scan)),
            Err(e) => failures.push(format!("{}: does not parse: {e}", relative.display())),
        }
    }
    let test_only: Vec<Vec<String>> = scans
        .iter()
        .flat_map(|(_, scan)| scan.test_only.clone())
        .collect();
    let pending: BTreeSet<(&str, &str)> = PENDING.iter().map(|&(from, to, _)| (from, to)).collect();
    let mut still_broken: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let (mut read, mut names) = (0, 0);
    for (relative, scan) in &scans {
        let module = module_of(relative);
        if test_only.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        match breaks_of(relative, scan) {
            None => continue,
            Some(Err(e)) => failures.push(e),
            Some(Ok(breaks)) => {
                for b in breaks {
                    if pending.contains(&(b.from.as_str(), b.to.as_str())) {
                        let pair = (b.from.clone(), b.to.clone());
                        still_broken.entry(pair).or_default().push(b.to_string());
                    } else {
                        failures.push(b.to_string());
                    }
                }
            }
        }
        read += 1;
        let top = &module[0];
        names += scan.names.iter().filter(|(_, name)| name != top).count();
    }
    for &(from, to, why) in PENDING {
        match still_broken.get(&(from.to_string(), to.to_string())) {
            Some(lines) => println!(
                "pending: `{from}` uses `{to}`: {why}\n  {}",
                lines.join("\n  ")
            ),
            None => failures.push(format!(
                "`{from}` no longer uses `{to}`: remove the pair from PENDING (tests/it/layers.rs)"
            )),
        }
    }
    assert!(read > 50, "too few source files read: {read}");
    assert!(names > 300, "too few names of other modules found: {names}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What an engine's file names of the judge beyond its door: (line, path below `judge`).
fn past_the_door(relative: &Path, scan: &Scan) -> Vec<(usize, String)> {
    let module = module_of(relative);
    if !module
        .first()
        .is_some_and(|top| ENGINES.contains(&top.as_str()))
    {
        return Vec::new();
    }
    let mut past: Vec<(usize, String)> = scan
        .paths
        .iter()
        .filter(|(_, path)| path.first().is_some_and(|top| top == "judge"))
        .filter_map(|(line, path)| {
            let below = path[1..].join("::");
            // `judge` itself, or a use of it as a name: what is named through it counts.
            let within = below.is_empty()
                || DOOR.iter().any(|door| {
                    below == *door
                        || below
                            .strip_prefix(door)
                            .is_some_and(|rest| rest.starts_with("::"))
                        // A group's prefix (`witness` of `witness::{self, Seen}`) names nothing
                        // by itself beyond what its leaves name.
                        || door.starts_with(&format!("{below}::"))
                });
            (!within).then_some((*line, below))
        })
        .collect();
    past.dedup();
    past
}

/// The paths of one engine file that pass the door, as (line, path below `judge`).
fn door_check(relative: &str, source: &str) -> Vec<(usize, String)> {
    let relative = Path::new(relative);
    let scan = scan(&module_of(relative), source).expect("the source parses");
    past_the_door(relative, &scan)
}

#[test]
fn engines_grade_only_through_the_judges_door() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut failures = Vec::new();
    let mut pending_seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut engine_files = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file).to_path_buf();
        let module = module_of(&relative);
        if !module
            .first()
            .is_some_and(|top| ENGINES.contains(&top.as_str()))
        {
            continue;
        }
        engine_files += 1;
        let source = std::fs::read_to_string(file).unwrap_or_default();
        let Ok(scan) = scan(&module, &source) else {
            failures.push(format!("{}: does not parse", relative.display()));
            continue;
        };
        for (line, path) in past_the_door(&relative, &scan) {
            let engine = module[0].as_str();
            let pending = PENDING_DOOR.iter().find(|(from, to, _)| {
                *from == engine
                    && (path == *to
                        || path
                            .strip_prefix(to)
                            .is_some_and(|rest| rest.starts_with("::")))
            });
            match pending {
                Some((from, to, _)) => {
                    pending_seen.insert((from.to_string(), to.to_string()));
                }
                None => failures.push(format!(
                    "{}:{line}: `{engine}` names `judge::{path}`: an engine grades only through `judge::step` (tests/it/layers.rs, DOOR)",
                    relative.display()
                )),
            }
        }
    }
    for (from, to, why) in PENDING_DOOR {
        if pending_seen.contains(&(from.to_string(), to.to_string())) {
            println!("pending: `{from}` names `judge::{to}`: {why}");
        } else {
            failures.push(format!(
                "`{from}` no longer names `judge::{to}`: remove it from PENDING_DOOR (tests/it/layers.rs)"
            ));
        }
    }
    assert!(
        engine_files > 20,
        "too few engine files read: {engine_files}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_grading_function_named_past_the_door_fails() {
    // Through a grouped use, through an alias of `judge`, and in full.
    let source = "\
use crate::judge::{self, CaseCall, effects::judge as grade};
fn f() {
    judge::answers::check_step();
    crate::judge::step(x);
    let s: judge::witness::Seen = judge::witness::read_back();
}
";
    assert_eq!(
        door_check("check/runner/calls.rs", source),
        [
            (1, "effects::judge".to_string()),
            (3, "answers::check_step".to_string()),
        ]
    );
    // Below the engines the judge's modules are the judge's own business.
    assert_eq!(door_check("report/human.rs", source), []);
}

#[test]
fn a_grouped_use_names_each_module() {
    assert_eq!(
        check(
            "exec/plant.rs",
            "use crate::{report::Report, judge::grade::Finding};\n"
        ),
        [(1, "report".to_string()), (1, "judge".to_string())]
    );
    let source = "\
use std::io;
use crate::{
    backend::{self, Backend},
    suite::{case::*, load},
    judge::{grade::Finding as F},
};
use crate::spec as rules;
use crate::{self as root};
use crate::*;
";
    assert_eq!(
        check("exec/plant.rs", source),
        [
            (4, "suite".to_string()),
            (5, "judge".to_string()),
            (7, "spec".to_string()),
            (8, "crate".to_string()),
            (9, "crate::*".to_string()),
        ]
    );
}

#[test]
fn super_is_resolved_from_the_module_of_the_file() {
    // `exec/fs/walk.rs` is `exec::fs::walk`: `super::super` is `exec` (rustc reads
    // `super::super::report` there as `exec::report`), one `super` more is the root.
    assert_eq!(
        check(
            "exec/fs/walk.rs",
            "use super::super::report::X;\nuse super::super::super::report::Y;\n"
        ),
        [(2, "report".to_string())]
    );
    // `exec/fs/mod.rs` is `exec::fs`, as `exec/fs.rs` would be.
    assert_eq!(
        check(
            "exec/fs/mod.rs",
            "use super::super::judge::X;\nuse super::Y;\n"
        ),
        [(1, "judge".to_string())]
    );
    // In `exec/mod.rs` (module `exec`), `super` is the root.
    assert_eq!(
        check(
            "exec/mod.rs",
            "use super::judge::X;\nfn f() { super::report::g(); }\n"
        ),
        [(1, "judge".to_string()), (2, "report".to_string())]
    );
    // An inline module is one level more.
    assert_eq!(
        check(
            "exec/mod.rs",
            "mod inner {\n    use super::super::judge::X;\n    use super::Y;\n}\n"
        ),
        [(2, "judge".to_string())]
    );
}

#[test]
fn paths_in_code_types_and_macros_count() {
    let source = "\
use std::fmt;
// crate::cli is named in a comment
/// And `crate::report::x` in a doc.
fn f(x: crate::report::Report) -> String {
    let y = memspec::suite::case::Level::Must;
    let _ = crate::judge::grade::step(&x);
    format!(\"{}\", crate::report::plural(1))
}
#[schemars(regex(pattern = crate::spec::SLUG))]
struct S;
macro_rules! m {
    () => { $crate::{suite::load, judge::Finding} };
}
pub(crate) fn g() {}
pub(super) fn h() {}
";
    assert_eq!(
        check("exec/plant.rs", source),
        [
            (4, "report".to_string()),
            (5, "suite".to_string()),
            (6, "judge".to_string()),
            (7, "report".to_string()),
            (9, "spec".to_string()),
            (12, "suite".to_string()),
            (12, "judge".to_string()),
        ]
    );
}

#[test]
fn only_items_under_cfg_test_are_left_out() {
    let source = "\
#[cfg(test)]
fn helper() { crate::report::x(); }
use crate::report::Report;
#[cfg(test)]
mod tests {
    use crate::report::X;
}
impl S {
    #[cfg(all(test, unix))]
    fn helper() { crate::judge::x(); }
    #[cfg(not(test))]
    fn real() { crate::judge::x(); }
}
use crate::judge::Y;
";
    assert_eq!(
        check("exec/plant.rs", source),
        [
            (3, "report".to_string()),
            (12, "judge".to_string()),
            (14, "judge".to_string())
        ]
    );
    // A test module in a file of its own is left out when the main test reads that file.
    let module = ["exec".to_string()];
    let scan = scan(&module, "#[cfg(test)]\nmod tests;\nmod real;\n").expect("parses");
    assert_eq!(scan.test_only, [["exec", "tests"]]);
}
