//! The processes `/proc` lists, as `/proc/PID/stat` describes them: what killing a harness's
//! children and tracing a backend's process group both start from.

/// One process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    /// Its id.
    pub pid: i32,
    /// Its parent's id.
    pub parent: i32,
    /// Its process group's id.
    pub group: i32,
}

/// Every process `/proc` lists; one gone or unreadable meanwhile is left out.
pub fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            parse_stat(pid, &stat)
        })
        .collect()
}

/// `pid (comm) state ppid pgrp …`: the command name may hold spaces and parentheses, so the
/// fields are counted from the last `)`.
fn parse_stat(pid: i32, stat: &str) -> Option<Process> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(1);
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some(Process { pid, parent, group })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_parentheses_and_spaces_is_skipped_whole() {
        let stat = "42 (a (b) c) S 7 42 42 0 -1";
        assert_eq!(
            parse_stat(42, stat),
            Some(Process {
                pid: 42,
                parent: 7,
                group: 42
            })
        );
    }

    #[test]
    fn this_process_is_listed_with_its_parent() {
        let me = std::process::id() as i32;
        let found = processes().into_iter().find(|p| p.pid == me);
        assert!(
            found.is_some_and(|p| p.parent > 0 && p.group > 0),
            "{found:?}"
        );
    }
}
