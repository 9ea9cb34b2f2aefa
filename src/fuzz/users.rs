//! `fuzz --users N`: sequences made by several users of one store, each step as one of them,
//! with user ids chosen to break the mappings real stores get wrong, and what tells a crossing
//! (a fact a user sees only beside the others) from that user's own fault.

use super::action::Action;
use super::trial::{self, Located};
use super::{FuzzError, Run, shrink};

/// Families of ids that naive mappings merge: one a prefix of the other (`LIKE 'u1%'`, a
/// `SCAN MATCH u1*`, a key prefix without a separator), ids equal but for case (a
/// case-insensitive collation), pattern characters (`_` and `%` in `LIKE`, `*` and `?` in a glob)
/// and separators (`a:b` joined into `memtool:a:b:…`, `a/b` into a path). Each sequence uses one
/// family, in turn, so that every run of a few sequences tries them all.
const FAMILIES: &[&[&str]] = &[
    &["u1", "u10", "u100", "u1000"],
    &["alice", "Alice", "ALICE", "aLiCe"],
    &["a_c", "abc", "a%c", "a*c"],
    &["a", "a:b", "a/b", "a.b"],
    &["x?", "xy", "x[y]", "x y"],
];

/// The most users a sequence can have (the size of a family).
pub const MOST: usize = 4;

/// The ids of the `count` users of sequence `index` (none below two users).
pub fn ids(index: usize, count: usize) -> Vec<String> {
    if count < 2 {
        return Vec::new();
    }
    FAMILIES[index % FAMILIES.len()]
        .iter()
        .take(count.min(MOST))
        .map(|id| id.to_string())
        .collect()
}

/// The steps of `actions` made as `user`, in order.
pub fn own(actions: &[Action], user: usize) -> Vec<Action> {
    actions
        .iter()
        .filter(|action| action.user() == user)
        .cloned()
        .collect()
}

/// The steps of `actions` made as `user`, in order, as the steps of a store's only user.
pub fn alone(actions: &[Action], user: usize) -> Vec<Action> {
    own(actions, user)
        .iter()
        .map(|action| Action::As {
            user: 0,
            action: Box::new(action.inner().clone()),
        })
        .collect()
}

/// Whether what `actions` showed at `found` beside the other `users` is a crossing: the same
/// calls made as its user alone, on a new store, show no finding of its kind and rule.
pub(super) fn crosses(
    run: &Run<'_>,
    actions: &[Action],
    found: &Located,
    users: &[String],
) -> bool {
    let user = actions.get(found.action).map_or(0, Action::user);
    let Some(id) = users.get(user) else {
        return false;
    };
    let own = alone(actions, user);
    let tried = trial::run(
        &own,
        None,
        &run.options.backend,
        run.spec,
        run.options.timeout,
        &mut None,
        std::slice::from_ref(id),
    );
    let Ok(tried) = tried else {
        // Unsure: no crossing is claimed.
        return false;
    };
    run.counted(tried.calls);
    let target = shrink::Target::of(found);
    !tried
        .found
        .is_some_and(|alone| shrink::Target::of(&alone) == target)
}

/// A user's own fault found beside other users, as that user's steps alone (which show it, in
/// a store of the same users) and where they show it.
pub(super) fn own_fault(
    run: &Run<'_>,
    actions: &[Action],
    shown: Located,
    users: &[String],
) -> Result<(Vec<Action>, Located), FuzzError> {
    let user = actions.get(shown.action).map_or(0, Action::user);
    let id = users
        .get(user)
        .map(std::slice::from_ref)
        .unwrap_or_default();
    let tried = trial::run(
        &alone(actions, user),
        None,
        &run.options.backend,
        run.spec,
        run.options.timeout,
        &mut None,
        id,
    )?;
    run.counted(tried.calls);
    let Some(found) = tried.found else {
        // Shown beside the others only after all: kept as it was found.
        return Ok((actions.to_vec(), shown));
    };
    let mut own = own(actions, user);
    own.truncate(found.action + 1);
    Ok((own, found))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_family_has_room_for_the_most_users() {
        assert!(FAMILIES.iter().all(|family| family.len() >= MOST));
        assert_eq!(ids(0, 2), ["u1", "u10"]);
        assert_eq!(ids(7, 1), Vec::<String>::new());
        assert_eq!(ids(1, 9).len(), MOST);
    }

    #[test]
    fn alone_keeps_one_users_steps_as_the_only_user() {
        let call = |path: &str| Action::Call(json!({"command": "view", "path": path}));
        let made = |user, path| Action::As {
            user,
            action: Box::new(call(path)),
        };
        let actions = [
            made(0, "/memories/a"),
            made(1, "/memories/b"),
            made(1, "/memories/c"),
        ];
        assert_eq!(
            alone(&actions, 1),
            [made(0, "/memories/b"), made(0, "/memories/c")]
        );
        assert_eq!(own(&actions, 0), [made(0, "/memories/a")]);
    }
}
