//! A fact one user's call showed beside the other users of a store that the same calls made by
//! that user alone do not show (`fuzz --users`): the other users' memories or calls reached
//! this user's, which is leaving this user's `/memories` (`users.isolated`).

use super::case::shown_user;
use crate::judge::Finding;
use crate::spec::{Graded, Spec, known};

/// What [`Observation::Crossing`](super::Observation::Crossing) says.
pub struct Crossing<'a> {
    /// The fact that differed, as judged beside the other users.
    pub found: &'a Finding,
    /// The user whose call showed it.
    pub user: &'a str,
    /// The store's other users.
    pub others: &'a [String],
    /// The revision's rules.
    pub spec: &'a Spec,
}

/// The crossing, graded under `users.isolated` in the security lane, with the kind of fact, what
/// was expected and what was seen as the fact's finding had them.
pub(super) fn judge(crossing: &Crossing<'_>) -> Finding {
    let Crossing {
        found,
        user,
        others,
        spec,
    } = *crossing;
    let graded = Graded::of(known::USERS_ISOLATED, spec);
    let message = format!(
        "{}: {}; the same calls made as user {} alone do not show it",
        beside(user, others),
        found.message,
        shown_user(user)
    );
    Finding {
        level: graded.level,
        rule: graded.rule,
        message,
        follows: None,
        cascade_of: None,
        ..found.clone()
    }
    .secure()
}

/// `as user "u1", beside user "u10"`: who made a call in a store of many users, and who else
/// uses the store.
pub fn beside(user: &str, others: &[String]) -> String {
    let others: Vec<String> = others
        .iter()
        .filter(|other| *other != user)
        .map(|other| shown_user(other))
        .collect();
    format!(
        "as user {}, beside user {}",
        shown_user(user),
        others.join(" and ")
    )
}
