//! Making a case's fixtures in the sandbox, inside `memories/` or beside it, never through
//! anything the backend put there; and the `bytes_hex` of fixtures and effects, decoded.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};

use rustix::fs::{FileType, Mode};

use super::Sandbox;
use crate::exec::fs::{self, WalkError};
use crate::exec::plant::{Fixture, FixtureKind};

/// The folder beside `memories/` for files outside the root that are not canaries: targets of
/// hard-link fixtures (`{base}/shared/<name>`), made on demand.
const SHARED: &str = "shared";

/// What a file in [`SHARED`] holds: no secret, so that reading it is no leak.
pub const SHARED_TEXT: &str = "a file outside /memories, hard-linked into it\n";

/// A fixture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// The fixture itself is wrong (a path leaving `memories/`, bad hex): the suite's fault.
    #[error("fixture {path:?}: {reason}")]
    Invalid {
        /// The fixture's path.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Something the backend put there is in the way.
    #[error("{0}")]
    InTheWay(String),
    /// The operating system refused.
    #[error("fixture {path:?}: {source}")]
    Io {
        /// The fixture's path.
        path: String,
        /// What it said.
        source: io::Error,
    },
}

impl Sandbox {
    /// Makes a fixture inside `memories/`, never through anything the backend put there: a
    /// name already taken is [`FixtureError::InTheWay`].
    pub fn apply(&self, fixture: &Fixture) -> Result<(), FixtureError> {
        self.plant(Some("memories"), fixture, b"")
    }

    /// Makes a file or a folder outside `memories/`, beside the canaries (`path` is relative to
    /// the sandbox's folder): a seed's "files outside the root". A file starts with the
    /// sandbox's secret, so that a backend showing one is caught as leaking a canary, and it is
    /// watched like one (made before the backend starts, so changing it is a change outside).
    pub fn apply_outside(&self, fixture: &Fixture) -> Result<(), FixtureError> {
        let invalid = |reason: &str| FixtureError::Invalid {
            path: fixture.path.clone(),
            reason: reason.to_string(),
        };
        match &fixture.kind {
            FixtureKind::Text(_)
            | FixtureKind::BytesHex(_)
            | FixtureKind::Repeat { .. }
            | FixtureKind::Dir(_) => {}
            FixtureKind::Symlink(_) | FixtureKind::Hardlink(_) | FixtureKind::Fifo(_) => {
                return Err(invalid(
                    "outside the memories folder only files and folders are made",
                ));
            }
        }
        // `memories` is the backend's folder: nothing outside may be made in it or in its place.
        if fixture.path.split('/').next() == Some("memories") {
            return Err(invalid(
                "is in the memories folder; outside entries go beside it",
            ));
        }
        let marker = format!("{} ", self.secret);
        self.plant(None, fixture, marker.as_bytes())
    }

    /// Makes a fixture below `area` (`memories`, or the sandbox's folder itself); a file's
    /// content starts with `prefix`.
    fn plant(
        &self,
        area: Option<&str>,
        fixture: &Fixture,
        prefix: &[u8],
    ) -> Result<(), FixtureError> {
        let invalid = |reason: &str| FixtureError::Invalid {
            path: fixture.path.clone(),
            reason: reason.to_string(),
        };
        // Refused by the operating system in a folder the backend had the run of (a mode or a
        // flag it set) is in the way as much as a link would be; anything else is the harness's.
        let io_error = |source: io::Error| {
            if matches!(
                source.kind(),
                io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
            ) {
                FixtureError::InTheWay(format!(
                    "the harness cannot make the fixture {:?}: {source}",
                    fixture.path
                ))
            } else {
                FixtureError::Io {
                    path: fixture.path.clone(),
                    source,
                }
            }
        };
        let parts = fs::components(&fixture.path)
            .map_err(|_| invalid("must be a plain relative path inside memories/"))?;
        let Some((last, parents)) = parts.split_last() else {
            return Err(invalid("is empty"));
        };
        let mut full: Vec<&str> = area.into_iter().collect();
        full.extend_from_slice(parents);
        let dir = fs::walk(self.base.as_fd(), &full, true).map_err(|e| match e {
            WalkError::Blocked { at, kind } => FixtureError::InTheWay(format!(
                "{} at {at}, where the harness makes the fixture {:?}",
                kind.describe(),
                fixture.path
            )),
            WalkError::NotPlain(_) => invalid("must be a plain relative path inside memories/"),
            WalkError::Io { source, .. } => io_error(source),
            missing @ WalkError::Missing { .. } => io_error(io::Error::other(missing.to_string())),
        })?;
        let name = fs::c_name(last).map_err(|_| invalid("contains a NUL byte"))?;
        let write = |bytes: &[u8]| {
            if prefix.is_empty() {
                fs::create_new_at(dir.as_fd(), &name, bytes, 0o644)
            } else {
                fs::create_new_at(dir.as_fd(), &name, &[prefix, bytes].concat(), 0o644)
            }
        };
        let made = match &fixture.kind {
            FixtureKind::Text(text) => write(text.as_bytes()),
            FixtureKind::BytesHex(hex) => {
                let bytes = decode_hex(hex).map_err(|e| invalid(&e.to_string()))?;
                write(&bytes)
            }
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
                write(content.as_bytes())
            }
            FixtureKind::Dir(_) => {
                rustix::fs::mkdirat(dir.as_fd(), &*name, Mode::from_raw_mode(0o755))
                    .map_err(io::Error::from)
            }
            FixtureKind::Symlink(target) => {
                rustix::fs::symlinkat(self.expand(target), dir.as_fd(), &*name)
                    .map_err(io::Error::from)
            }
            FixtureKind::Hardlink(target) => {
                self.hard_link(target, dir.as_fd(), &name, &invalid)?
            }
            FixtureKind::Fifo(_) => rustix::fs::mknodat(
                dir.as_fd(),
                &*name,
                FileType::Fifo,
                Mode::from_raw_mode(0o644),
                0,
            )
            .map_err(io::Error::from),
        };
        match made {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let what = fs::meta_at(dir.as_fd(), &name)
                    .ok()
                    .flatten()
                    .map_or("something", |meta| meta.kind.describe());
                Err(FixtureError::InTheWay(format!(
                    "{what} already at {}{}, where the harness makes a fixture",
                    area.map_or(String::new(), |area| format!("{area}/")),
                    fixture.path
                )))
            }
            Err(e) => Err(io_error(e)),
        }
    }

    /// A hard link to a file of the sandbox, named from `{base}` (`{base}/outside/secret.txt`).
    fn hard_link(
        &self,
        target: &str,
        dir: BorrowedFd<'_>,
        name: &CStr,
        invalid: &dyn Fn(&str) -> FixtureError,
    ) -> Result<io::Result<()>, FixtureError> {
        let relative = target
            .strip_prefix("{base}/")
            .ok_or_else(|| invalid("a hard link's target must start with {base}/"))?;
        let parts =
            fs::components(relative).map_err(|_| invalid("the hard link's target is not plain"))?;
        let Some((last, parents)) = parts.split_last() else {
            return Err(invalid("the hard link's target is empty"));
        };
        let from_name = fs::c_name(last).map_err(|_| invalid("contains a NUL byte"))?;
        if parents == [SHARED] {
            // A file outside the root that is no canary: reading it through a hard link is
            // the reference's decision, not a leak; writing it is still a change outside.
            if let Err(e) = self.make_shared(&from_name) {
                return Ok(Err(e));
            }
        }
        let from = match fs::walk(self.base.as_fd(), parents, false) {
            Ok(from) => from,
            Err(e) => return Ok(Err(io::Error::other(e.to_string()))),
        };
        Ok(rustix::fs::linkat(
            from.as_fd(),
            &*from_name,
            dir,
            name,
            rustix::fs::AtFlags::empty(),
        )
        .map_err(io::Error::from))
    }

    /// `shared/<name>` beside `memories/`, made once, holding [`SHARED_TEXT`].
    fn make_shared(&self, name: &CStr) -> io::Result<()> {
        match rustix::fs::mkdirat(self.base.as_fd(), SHARED, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        let dir = fs::open_dir_at(self.base.as_fd(), c"shared")?;
        match fs::create_new_at(dir.as_fd(), name, SHARED_TEXT.as_bytes(), 0o644) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
            _ => Ok(()),
        }
    }
}

/// Decodes `bytes_hex` (whitespace allowed between digits).
pub fn decode_hex(hex: &str) -> io::Result<Vec<u8>> {
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
