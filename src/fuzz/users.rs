//! `fuzz --users N`: sequences made by several users of one store, each step as one of them,
//! with user ids chosen to break the mappings real stores get wrong, and what tells a crossing
//! (a call a user's store answers otherwise beside the others than alone) from that user's own
//! fault.

use serde_json::Value;

use super::action::{Action, owners};
use super::trial::{self, Located, Store};
use super::{FuzzError, Run};
use crate::judge::compare::Answer;
use crate::judge::{self, Crossing, Observation};

/// Families of ids that naive mappings merge, a plain id first: one a prefix of the other
/// (`LIKE 'u1%'`, a `SCAN MATCH u1*`, a key prefix without a separator), ids equal but for case
/// (a case-insensitive collation), pattern characters (`_` and `%` in `LIKE`, `*`, `?` and `[ ]`
/// in a glob), separators (`a:b` joined into `memtool:a:b:…`, `a/b` into a path) and ids that
/// differ only in punctuation (a slug of the id, `[^A-Za-z0-9]` → `_`). Each
/// sequence uses one family, in turn, so that every run of a few sequences tries them all.
const FAMILIES: &[&[&str]] = &[
    &["u1", "u10", "u100", "u1000"],
    &["alice", "Alice", "ALICE", "aLiCe"],
    &["abc", "a_c", "a%c", "a*c"],
    &["a", "a:b", "a/b", "a.b"],
    &["xy", "x?", "x[y]", "x y"],
    &["a_b", "a.b", "a-b", "a b"],
];

/// The most users a sequence can have (the size of a family).
pub const MOST: usize = 4;

/// The ids of the `count` users of sequence `index` (none below two users): the plain id of
/// its family and others of the family, a different choice of them each round of families.
pub fn ids(index: usize, count: usize) -> Vec<String> {
    if count < 2 {
        return Vec::new();
    }
    let family = FAMILIES[index % FAMILIES.len()];
    let Some((plain, others)) = family.split_first() else {
        return Vec::new();
    };
    let round = index / FAMILIES.len();
    let mut ids = vec![plain.to_string()];
    ids.extend(
        (0..others.len())
            .map(|i| others[(i + round) % others.len()].to_string())
            .take(count.min(MOST) - 1),
    );
    ids
}

/// The steps of `actions` made as `user`, in order.
pub fn own(actions: &[Action], user: usize) -> Vec<Action> {
    actions
        .iter()
        .filter(|action| action.user() == user)
        .cloned()
        .collect()
}

/// The first call of `actions` that the backend answered otherwise beside the other `users`
/// (`answers`, as the trial of `actions` gave them) than in its user's calls made alone
/// ([`Store::Alone`]), as a crossing; `None` when every call was answered alike. Once a call
/// differs, its user's calls alone are made a second time, and a call answered otherwise in
/// the two (a timestamp, a random id) is not compared: else a shrink could drift onto it.
pub(super) fn crossing(
    run: &Run<'_>,
    actions: &[Action],
    answers: &[Option<Answer>],
    users: &[String],
) -> Result<Option<Located>, FuzzError> {
    let inputs: Vec<Value> = actions.iter().flat_map(Action::calls).collect();
    // Per user: the answers alone, and (once needed) a second time.
    let mut alone: Vec<Option<Vec<Option<Answer>>>> = vec![None; users.len()];
    let mut again: Vec<Option<Vec<Option<Answer>>>> = vec![None; users.len()];
    let mut made = vec![0; users.len()];
    for (call, (action, user)) in owners(actions).into_iter().enumerate() {
        let (Some(id), Some(input), Some(place)) =
            (users.get(user), inputs.get(call), made.get_mut(user))
        else {
            continue;
        };
        // Its place among its user's calls.
        let here = *place;
        *place += 1;
        let first = match &mut alone[user] {
            Some(first) => first,
            slot => slot.insert(alone_answers(run, actions, users, user)?),
        };
        let answered_alone = first.get(here).cloned().flatten();
        let seen = Crossing {
            input,
            beside: answers.get(call).and_then(Option::as_ref),
            alone: answered_alone.as_ref(),
            user: id,
            users,
            spec: run.spec,
        };
        let judged = judge::step(Observation::Crossing(seen))
            .map_err(|fault| FuzzError::Harness(fault.to_string()))?;
        let Some(found) = judged.findings.into_iter().next() else {
            continue;
        };
        let second = match &mut again[user] {
            Some(second) => second,
            slot => slot.insert(alone_answers(run, actions, users, user)?),
        };
        if second.get(here).cloned().flatten() != answered_alone {
            continue;
        }
        return Ok(Some(Located {
            found,
            action,
            call,
        }));
    }
    Ok(None)
}

/// The backend's answers to the calls of `actions` made as `user` alone ([`Store::Alone`]);
/// none when every one of them broke (that user's calls break alone as well, the trial's own
/// finding).
fn alone_answers(
    run: &Run<'_>,
    actions: &[Action],
    users: &[String],
    user: usize,
) -> Result<Vec<Option<Answer>>, FuzzError> {
    let tried = trial::run(
        &own(actions, user),
        None,
        &run.options.backend,
        run.spec,
        run.options.timeout,
        Store::Alone { users, user },
    );
    match tried {
        Ok(tried) => {
            run.counted(tried.calls);
            Ok(tried.answers)
        }
        Err(FuzzError::NeverStarted(_)) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
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
    let own = own(actions, user);
    let tried = trial::run(
        &own,
        None,
        &run.options.backend,
        run.spec,
        run.options.timeout,
        Store::Alone { users, user },
    );
    let found = match tried {
        Ok(tried) => {
            run.counted(tried.calls);
            tried.found
        }
        // Every call of that user's breaks alone: kept as it was found.
        Err(FuzzError::NeverStarted(_)) => None,
        Err(e) => return Err(e),
    };
    let Some(found) = found else {
        // Shown beside the others only after all: kept as it was found.
        return Ok((actions.to_vec(), shown));
    };
    let mut own = own;
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
        // The next round of the same family pairs the plain id with the next of the others.
        assert_eq!(ids(FAMILIES.len(), 2), ["u1", "u100"]);
        assert_eq!(ids(2 + 2 * FAMILIES.len(), 2), ["abc", "a*c"]);
        assert_eq!(ids(7, 1), Vec::<String>::new());
        assert_eq!(ids(1, 9).len(), MOST);
    }

    #[test]
    fn own_keeps_one_users_steps() {
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
            own(&actions, 1),
            [made(1, "/memories/b"), made(1, "/memories/c")]
        );
        assert_eq!(own(&actions, 0), [made(0, "/memories/a")]);
    }
}
