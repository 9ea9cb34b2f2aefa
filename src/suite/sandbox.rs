//! The folder a case runs in: `memories/` (what `/memories` maps to) and canaries beside it.
//!
//! Canaries carry a secret unique to the sandbox. After a case, the runner checks that they are
//! unchanged, that nothing new appeared outside `memories/`, and that the secret never showed up
//! in any output: a backend that answers with the right error but still wrote outside fails.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use tempfile::TempDir;

use super::case::{EffectKind, Fixture, FixtureKind};

/// A fresh sandbox, removed when dropped.
#[derive(Debug)]
pub struct Sandbox {
    dir: TempDir,
    memories: PathBuf,
    secret: String,
}

/// What one entry outside `memories/` looked like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A file and its bytes.
    File(Vec<u8>),
    /// A folder.
    Dir,
    /// A link and its target.
    Link(PathBuf),
    /// Something else.
    Other,
}

impl Sandbox {
    /// Makes `base/`, `base/memories/` and the canaries in the system's temporary folder.
    pub fn new() -> io::Result<Sandbox> {
        Sandbox::with_dir(tempfile::Builder::new().prefix("memspec-").tempdir()?)
    }

    /// Like [`Sandbox::new`], on a RAM file system (`/dev/shm`) when there is a writable one:
    /// for replays, where fsync costs milliseconds on a disk and nothing needs to survive.
    pub fn new_in_memory() -> io::Result<Sandbox> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("memspec-");
        match builder.tempdir_in("/dev/shm") {
            Ok(dir) => Sandbox::with_dir(dir),
            Err(_) => Sandbox::with_dir(builder.tempdir()?),
        }
    }

    fn with_dir(dir: TempDir) -> io::Result<Sandbox> {
        let base = dir.path();
        let memories = base.join("memories");
        fs::create_dir(&memories)?;
        let secret = unique_secret();
        plant_canaries(base, &secret)?;
        Ok(Sandbox {
            dir,
            memories,
            secret,
        })
    }

    /// Brings a used sandbox back to its fresh state for the next case: `memories/` emptied
    /// (links removed, never followed), everything else replaced by fresh canaries.
    pub fn restore(&self) -> io::Result<()> {
        for dir in [self.base(), self.memories()] {
            for entry in fs::read_dir(dir)? {
                let entry = entry?;
                let path = entry.path();
                if path == self.memories {
                    continue;
                }
                if entry.file_type()?.is_dir() {
                    fs::remove_dir_all(&path)?;
                } else {
                    fs::remove_file(&path)?;
                }
            }
        }
        plant_canaries(self.base(), &self.secret)
    }

    /// The folder holding `memories/` and the canaries.
    pub fn base(&self) -> &Path {
        self.dir.path()
    }

    /// The folder `/memories` maps to.
    pub fn memories(&self) -> &Path {
        &self.memories
    }

    /// The secret every canary contains; it must never appear in an output.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// Replaces `{base}` and `{memories}` with this sandbox's absolute paths.
    pub fn expand(&self, text: &str) -> String {
        text.replace("{base}", &self.base().to_string_lossy())
            .replace("{memories}", &self.memories.to_string_lossy())
    }

    /// Makes a fixture inside `memories/`.
    pub fn apply(&self, fixture: &Fixture) -> io::Result<()> {
        let relative = Path::new(&fixture.path);
        if relative.is_absolute()
            || relative
                .components()
                .any(|c| c == std::path::Component::ParentDir)
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "fixture path {:?} must be relative and stay inside memories/",
                    fixture.path
                ),
            ));
        }
        let path = self.memories.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        match &fixture.kind {
            FixtureKind::Text(text) => fs::write(&path, text),
            FixtureKind::BytesHex(hex) => fs::write(&path, decode_hex(hex)?),
            FixtureKind::Repeat {
                line,
                count,
                final_newline,
            } => {
                let mut content = String::with_capacity((line.len() + 1) * count);
                for _ in 0..*count {
                    content.push_str(line);
                    content.push('\n');
                }
                if !final_newline {
                    content.pop();
                }
                fs::write(&path, content)
            }
            FixtureKind::Dir(_) => fs::create_dir_all(&path),
            FixtureKind::Symlink(target) => symlink(self.expand(target), &path),
            FixtureKind::Hardlink(target) => fs::hard_link(self.expand(target), &path),
            FixtureKind::Fifo(_) => rustix::fs::mknodat(
                rustix::fs::CWD,
                &path,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o644),
                0,
            )
            .map_err(io::Error::from),
        }
    }

    /// Everything in the sandbox outside `memories/`, with content.
    pub fn outside(&self) -> BTreeMap<PathBuf, Seen> {
        let mut seen = BTreeMap::new();
        walk(self.base(), self.base(), &self.memories, &mut seen);
        seen
    }

    /// What changed between two [`Sandbox::outside`] snapshots, in words; `None` when nothing.
    pub fn describe_changes(
        before: &BTreeMap<PathBuf, Seen>,
        after: &BTreeMap<PathBuf, Seen>,
    ) -> Option<String> {
        if before == after {
            return None;
        }
        let mut changes = Vec::new();
        for (path, was) in before {
            match after.get(path) {
                None => changes.push(format!("{} deleted", path.display())),
                Some(now) if now != was => changes.push(format!("{} changed", path.display())),
                Some(_) => {}
            }
        }
        for path in after.keys().filter(|p| !before.contains_key(*p)) {
            changes.push(format!("{} created", path.display()));
        }
        Some(changes.join(", "))
    }

    /// Maps `/memories/...` to the host path inside the sandbox, refusing anything else.
    pub fn host_path(&self, memory_path: &str) -> Option<PathBuf> {
        let rest = memory_path.strip_prefix("/memories")?;
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        let relative = rest.trim_start_matches('/');
        if Path::new(relative)
            .components()
            .any(|c| c == std::path::Component::ParentDir)
        {
            return None;
        }
        Some(self.memories.join(relative))
    }

    /// Checks one effect; `Err` describes what is there instead.
    pub fn check_effect(&self, memory_path: &str, expect: &EffectKind) -> Result<(), String> {
        let path = self
            .host_path(memory_path)
            .ok_or_else(|| format!("effect path {memory_path:?} is not below /memories"))?;
        let meta = fs::symlink_metadata(&path);
        let found = describe(&path, meta.as_ref().ok());
        let ok = match (expect, &meta) {
            (EffectKind::Absent(_), Err(_)) => true,
            (EffectKind::Absent(_), Ok(_)) => false,
            (_, Err(_)) => false,
            (EffectKind::File(_), Ok(m)) => m.file_type().is_file(),
            (EffectKind::Dir(_), Ok(m)) => m.file_type().is_dir(),
            (EffectKind::FileBytesHex(hex), Ok(m)) => {
                m.file_type().is_file() && decode_hex(hex).ok() == fs::read(&path).ok()
            }
            (EffectKind::FileText(text), Ok(m)) => {
                m.file_type().is_file() && fs::read(&path).ok().as_deref() == Some(text.as_bytes())
            }
            (EffectKind::Symlink(target), Ok(m)) => {
                m.file_type().is_symlink()
                    && fs::read_link(&path).ok() == Some(PathBuf::from(self.expand(target)))
            }
        };
        if ok { Ok(()) } else { Err(found) }
    }
}

/// What is at `path`, in words, for a failed effect.
fn describe(path: &Path, meta: Option<&fs::Metadata>) -> String {
    match meta {
        None => "nothing".to_string(),
        Some(m) if m.file_type().is_symlink() => match fs::read_link(path) {
            Ok(target) => format!("a symbolic link to {}", target.display()),
            Err(_) => "a symbolic link".to_string(),
        },
        Some(m) if m.is_dir() => "a folder".to_string(),
        Some(m) if m.is_file() => match fs::read(path) {
            Ok(bytes) => format!("a file containing {:?}", String::from_utf8_lossy(&bytes)),
            Err(_) => "an unreadable file".to_string(),
        },
        Some(_) => "a special file".to_string(),
    }
}

fn walk(dir: &Path, base: &Path, skip: &Path, seen: &mut BTreeMap<PathBuf, Seen>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path == skip {
            continue;
        }
        let relative = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            seen.insert(
                relative,
                Seen::Link(fs::read_link(&path).unwrap_or_default()),
            );
        } else if kind.is_dir() {
            seen.insert(relative, Seen::Dir);
            walk(&path, base, skip, seen);
        } else if kind.is_file() {
            seen.insert(relative, Seen::File(fs::read(&path).unwrap_or_default()));
        } else {
            seen.insert(relative, Seen::Other);
        }
    }
}

fn plant_canaries(base: &Path, secret: &str) -> io::Result<()> {
    fs::write(base.join("canary.txt"), format!("{secret} canary\n"))?;
    fs::create_dir(base.join("outside"))?;
    fs::write(
        base.join("outside/secret.txt"),
        format!("{secret} outside\n"),
    )?;
    fs::create_dir(base.join("memoriesX"))?;
    fs::write(
        base.join("memoriesX/canary.txt"),
        format!("{secret} sibling\n"),
    )
}

fn decode_hex(hex: &str) -> io::Result<Vec<u8>> {
    let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "bytes_hex has an odd number of digits",
        ));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let text = std::str::from_utf8(pair).unwrap_or("zz");
            u8::from_str_radix(text, 16).map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("bad hex byte {text:?}"),
                )
            })
        })
        .collect()
}

fn unique_secret() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mixed = nanos as u64
        ^ (u64::from(std::process::id()) << 32)
        ^ COUNTER
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("MEMSPEC-CANARY-{mixed:016x}")
}
