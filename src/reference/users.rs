//! One store, many users: how the reference maps a user id to that user's `/memories`.
//!
//! The GA page: "The `/memories` path is a prefix that your handler maps onto real storage, such
//! as a per-user directory or keys in a database." The reference serves user `id` from the
//! folder `STORE/<folder_name(id)>`. The mapping is injective and cannot leave `STORE`: every
//! byte of the id but `a`-`z`, `0`-`9` and `-` is written `_xx` (its hex value), so `Alice` and
//! `alice`, `u1` and `u10`, `%` and `_`, `..` and `../bob` all get folders of their own, none of
//! which is a prefix of another's path, a hidden name, a `..` or a name with a `/`, and a
//! case-insensitive file system keeps them apart too (no two names differ only in case). The
//! empty id is served from `_`, a name no other id gets (a `_` is always followed by two hex
//! digits). The user's folder is opened without following a link, so a link planted at its
//! name is refused.

use std::io;

/// The longest user id the reference serves, in bytes: its folder name (at most three bytes a
/// byte) stays under the 255 a file system allows.
pub const MAX_USER_ID: usize = 80;

/// Why a user id is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UserIdError {
    /// The id is too long.
    #[error("a user id must be at most {MAX_USER_ID} bytes long; this one has {0}")]
    TooLong(usize),
}

/// The name of the folder that holds user `id`'s memories inside the store (see the module's
/// documentation): `u10` stays `u10`, `Alice` becomes `_41lice`, `../bob` becomes `_2e_2e_2fbob`,
/// the empty id `_`.
pub fn folder_name(id: &str) -> Result<String, UserIdError> {
    if id.is_empty() {
        return Ok("_".to_string());
    }
    if id.len() > MAX_USER_ID {
        return Err(UserIdError::TooLong(id.len()));
    }
    let mut name = String::with_capacity(id.len() * 3);
    for byte in id.bytes() {
        match byte {
            b'a'..=b'z' | b'0'..=b'9' | b'-' => name.push(char::from(byte)),
            other => name.push_str(&format!("_{other:02x}")),
        }
    }
    Ok(name)
}

impl From<UserIdError> for io::Error {
    fn from(error: UserIdError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_plain_ids_and_escapes_everything_else() {
        assert_eq!(folder_name("u10").as_deref(), Ok("u10"));
        assert_eq!(folder_name("Alice").as_deref(), Ok("_41lice"));
        assert_eq!(folder_name("../bob").as_deref(), Ok("_2e_2e_2fbob"));
        assert_eq!(folder_name("a_b").as_deref(), Ok("a_5fb"));
        assert_eq!(folder_name("é").as_deref(), Ok("_c3_a9"));
        assert_eq!(folder_name("").as_deref(), Ok("_"));
        assert_eq!(
            folder_name(&"x".repeat(MAX_USER_ID + 1)),
            Err(UserIdError::TooLong(MAX_USER_ID + 1))
        );
    }

    #[test]
    fn ids_that_naive_mappings_merge_get_folders_of_their_own() {
        let ids = [
            "u1",
            "u10",
            "alice",
            "Alice",
            "ALICE",
            "caf\u{e9}",
            "cafe\u{301}",
            "%",
            "_",
            "*",
            "a b",
            "a_20b",
            "..",
            ".",
            "../u1",
            "u1/",
            "-",
            "",
        ];
        let names: Vec<String> = ids.iter().filter_map(|id| folder_name(id).ok()).collect();
        assert_eq!(names.len(), ids.len());
        for (i, name) in names.iter().enumerate() {
            assert!(!name.starts_with('.') && !name.contains('/'), "{name}");
            // Nor does one differ from another only in case.
            for other in &names[i + 1..] {
                assert_ne!(name.to_lowercase(), other.to_lowercase(), "{name} {other}");
            }
        }
    }
}
