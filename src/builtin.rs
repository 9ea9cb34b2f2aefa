//! The spec and the suite as they were when this binary was built, compiled in, so that an
//! installed `memspec` runs anywhere, with or without its source tree; `--spec` and `--cases`
//! folders replace them.

use std::fmt;
use std::path::{Path, PathBuf};

/// `spec/rules.json`.
pub const RULES: &str = include_str!("../spec/rules.json");

/// `spec/decisions.json`.
pub const DECISIONS: &str = include_str!("../spec/decisions.json");

/// `spec/lineages.json`: the known lineages of backends, named by reports (never a grade).
pub const LINEAGES: &str = include_str!("../spec/lineages.json");

/// Every `cases/*.json`, by file name, in name order (a test checks the list is complete).
pub const CASES: &[(&str, &str)] = &[
    ("create.json", include_str!("../cases/create.json")),
    ("delete.json", include_str!("../cases/delete.json")),
    ("encoding.json", include_str!("../cases/encoding.json")),
    ("errors.json", include_str!("../cases/errors.json")),
    ("ga-views.json", include_str!("../cases/ga-views.json")),
    ("injection.json", include_str!("../cases/injection.json")),
    ("insert.json", include_str!("../cases/insert.json")),
    ("lookalike.json", include_str!("../cases/lookalike.json")),
    ("malformed.json", include_str!("../cases/malformed.json")),
    ("paths.json", include_str!("../cases/paths.json")),
    ("rename.json", include_str!("../cases/rename.json")),
    ("restart.json", include_str!("../cases/restart.json")),
    ("scale.json", include_str!("../cases/scale.json")),
    (
        "str-replace.json",
        include_str!("../cases/str-replace.json"),
    ),
    ("symlinks.json", include_str!("../cases/symlinks.json")),
    ("users.json", include_str!("../cases/users.json")),
    ("view-dir.json", include_str!("../cases/view-dir.json")),
    ("view-file.json", include_str!("../cases/view-file.json")),
    ("view-range.json", include_str!("../cases/view-range.json")),
];

/// Where the spec or the suite is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The copy compiled into this binary.
    Builtin,
    /// A folder on disk (`spec/` or `cases/`).
    Dir(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Builtin => f.write_str("the built-in copy"),
            Source::Dir(dir) => write!(f, "{}", dir.display()),
        }
    }
}

/// The default sources of the spec and the suite: `./spec` and `./cases` when the current folder
/// has both (a clone of memspec, where edited cases should run at once), else the built-in copy.
pub fn default_sources() -> (Source, Source) {
    let here = Path::new(".");
    if here.join("spec/rules.json").is_file() && here.join("cases").is_dir() {
        (
            Source::Dir(here.join("spec")),
            Source::Dir(here.join("cases")),
        )
    } else {
        (Source::Builtin, Source::Builtin)
    }
}

/// `adapters/python/memspec_adapter.py`: serves a Python memory-tool backend over protocol v1
/// (`memspec check --python`, [`crate::backend::embedded`]).
pub const PYTHON_ADAPTER: &str = include_str!("../adapters/python/memspec_adapter.py");

/// `adapters/node/memspec-adapter.mjs`: serves a JavaScript or TypeScript memory-tool backend
/// over protocol v1 (`memspec check --node`, [`crate::backend::embedded`]).
pub const NODE_ADAPTER: &str = include_str!("../adapters/node/memspec-adapter.mjs");
