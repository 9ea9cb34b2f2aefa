//! Concurrent clients: N processes of one backend on one store (the same sandbox, so the same
//! `{memories}`; a backend that is not a folder shares its store however it does across
//! processes), racing creates of one path, `str_replace` of different lines of one file, a
//! rename against views, a delete against a create. The store is read afterwards through the
//! tool, and the judge says what did not hold ([`Race`]).

use std::sync::Barrier;

use serde_json::{Value, json};

use crate::exec::{Fault, Session};
use crate::judge::{self, Finding, Observation, Race, witness};
use crate::protocol::ToolResult;
use crate::rng::Rng;
use crate::spec::Spec;

/// The races, by name.
pub const RACES: [&str; 4] = ["create-create", "edit-edit", "rename-view", "delete-create"];

/// What one race showed.
#[derive(Debug, Clone)]
pub struct Raced {
    /// Which race (one of [`RACES`]).
    pub race: &'static str,
    /// Tool calls made.
    pub calls: usize,
    /// What did not hold.
    pub found: Vec<Finding>,
    /// Every call and its answer, client by client, for the report.
    pub log: Vec<String>,
    /// Why the race was not run, when it was not: the store refused its setup, or its clients
    /// share no store. Nothing was judged; the cases judge the refusal.
    pub not_run: Option<String>,
}

/// Why a race could not be judged: the backend broke (a finding of its own) or the harness could
/// not run it.
pub type RaceError = Fault;

/// How a race stopped before it was judged.
enum Stopped {
    /// The backend broke, or the harness could not do its part.
    Fault(Fault),
    /// The store refused a setup call (why): the race is not run.
    Refused(String),
}

impl From<Fault> for Stopped {
    fn from(fault: Fault) -> Stopped {
        Stopped::Fault(fault)
    }
}

/// Runs race `race` on `sessions` (two or more clients of one store, see [`Session::client`]);
/// `rng` makes its paths unique (a store keeps what earlier races left).
pub fn run(
    race: &'static str,
    sessions: &mut [Session],
    spec: &Spec,
    rng: &mut Rng,
) -> Result<Raced, RaceError> {
    let tag = rng.below(1_000_000);
    let Some((first, others)) = sessions.split_first_mut() else {
        return Err(Fault::Harness("a race needs clients".to_string()));
    };
    let result = match race {
        "create-create" => create_create(first, others, spec, tag),
        "edit-edit" => edit_edit(first, others, spec, tag),
        "rename-view" => rename_view(first, others, spec, tag),
        _ => delete_create(first, others, spec, tag),
    };
    match result {
        Ok((calls, found, log)) => Ok(Raced {
            race,
            calls,
            found,
            log,
            not_run: None,
        }),
        Err(Stopped::Refused(why)) => Ok(Raced::not_run(race, why)),
        Err(Stopped::Fault(fault)) => Err(fault),
    }
}

impl Raced {
    /// A race that was not run, and why.
    pub fn not_run(race: &'static str, why: String) -> Raced {
        Raced {
            race,
            calls: 0,
            found: Vec::new(),
            log: Vec::new(),
            not_run: Some(why),
        }
    }
}

/// `clients` sessions on one fresh store: the first started, the others its clients (started by
/// their first call).
pub fn start_clients(
    backend: &crate::backend::BackendSpec,
    count: usize,
    timeouts: crate::backend::Timeouts,
) -> Result<Vec<Session>, RaceError> {
    let first = Session::start(backend, timeouts)?;
    let mut sessions: Vec<Session> = (1..count.max(2)).map(|_| first.client()).collect();
    sessions.insert(0, first);
    Ok(sessions)
}

type Outcome = Result<(usize, Vec<Finding>, Vec<String>), Stopped>;

/// Each client's calls, sent at once (after a barrier), in order within a client; the answers
/// per client.
fn together(
    first: &mut Session,
    others: &mut [Session],
    calls: &[Vec<Value>],
) -> Result<Vec<Vec<ToolResult>>, RaceError> {
    let barrier = Barrier::new(others.len() + 1);
    let none = Vec::new();
    let sessions: Vec<&mut Session> = std::iter::once(first).chain(others.iter_mut()).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .into_iter()
            .zip(calls.iter().chain(std::iter::repeat(&none)))
            .map(|(session, mine)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    // Started before the barrier: a process start takes longer than the window
                    // a race needs, and would order the calls by itself.
                    let warm = session.call(&json!({"command": "view", "path": "/memories"}));
                    barrier.wait();
                    warm?;
                    mine.iter()
                        .map(|input| session.call(input))
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Fault::Harness("a client thread panicked".into())))
            })
            .collect()
    })
}

fn call(session: &mut Session, input: Value) -> Result<ToolResult, RaceError> {
    session.call(&input)
}

/// The level of a race: the highest of the rules it checks (`concurrency.no-lost-update` is
/// MUST), so that `--level must` keeps the races.
pub fn race_level(spec: &Spec) -> crate::spec::Level {
    crate::spec::known::RACE_RULES
        .iter()
        .map(|rule| spec.level(rule))
        .max()
        .unwrap_or(crate::spec::Level::Must)
}

/// The race's setup: `path` created with `text` by one client, then read back through its view,
/// the state the race is judged against ([`read`]). A refused create stops the race unrun.
fn made(session: &mut Session, path: &str, text: &str) -> Result<Option<Vec<String>>, Stopped> {
    let input = json!({"command": "create", "path": path, "file_text": text});
    let answer = call(session, input.clone())?;
    if answer.is_error {
        return Err(Stopped::Refused(format!(
            "the race's setup call {input} was refused: {}",
            first_line(&answer.text)
        )));
    }
    Ok(read(session, path)?)
}

fn log_answers(log: &mut Vec<String>, calls: &[Vec<Value>], answers: &[Vec<ToolResult>]) {
    for (client, (inputs, results)) in calls.iter().zip(answers).enumerate() {
        for (input, result) in inputs.iter().zip(results) {
            log.push(format!(
                "client {client}: {} → {}{}",
                input,
                if result.is_error { "error: " } else { "" },
                first_line(&result.text)
            ));
        }
    }
}

/// The file's lines read back, or `None` when the view failed or shows no numbered lines.
fn read(session: &mut Session, path: &str) -> Result<Option<Vec<String>>, RaceError> {
    let answer = call(session, json!({"command": "view", "path": path}))?;
    if answer.is_error {
        return Ok(None);
    }
    Ok(witness::known_file_lines(&answer.text, path))
}

/// What the judge makes of what a race showed.
fn judged(race: Race<'_>, spec: &Spec) -> Result<Vec<Finding>, RaceError> {
    Ok(judge::step(Observation::Race(race, spec))?.findings)
}

fn create_create(first: &mut Session, others: &mut [Session], spec: &Spec, tag: usize) -> Outcome {
    let path = format!("/memories/race{tag}/one.txt");
    let control = format!("/memories/race{tag}/alone.txt");
    let before = made(first, &control, "client 0\n")?;
    let clients = others.len() + 1;
    let calls: Vec<Vec<Value>> = (0..clients)
        .map(|i| {
            vec![json!({"command": "create", "path": path, "file_text": format!("client {i}\n")})]
        })
        .collect();
    let answers = together(first, others, &calls)?;
    let mut log = Vec::new();
    log_answers(&mut log, &calls, &answers);
    let read = read(first, &path)?;
    let race = Race::CreateCreate {
        path: &path,
        control: &control,
        before,
        answers: &answers,
        read,
    };
    Ok((clients + 3, judged(race, spec)?, log))
}

fn edit_edit(first: &mut Session, others: &mut [Session], spec: &Spec, tag: usize) -> Outcome {
    let path = format!("/memories/race{tag}/lines.txt");
    let clients = others.len() + 1;
    let text: String = (0..clients).map(|i| format!("line {i:03}\n")).collect();
    let before = made(first, &path, &text)?;
    let calls: Vec<Vec<Value>> = (0..clients)
        .map(|i| {
            vec![json!({"command": "str_replace", "path": path,
                "old_str": format!("line {i:03}"), "new_str": format!("LINE {i:03}")})]
        })
        .collect();
    let answers = together(first, others, &calls)?;
    let mut log = Vec::new();
    log_answers(&mut log, &calls, &answers);
    let read = read(first, &path)?;
    let race = Race::EditEdit {
        path: &path,
        text: &text,
        before,
        answers: &answers,
        read,
    };
    Ok((clients + 3, judged(race, spec)?, log))
}

fn rename_view(first: &mut Session, others: &mut [Session], spec: &Spec, tag: usize) -> Outcome {
    let old = format!("/memories/race{tag}/a.txt");
    let new = format!("/memories/race{tag}/b.txt");
    let content = "moving\nfile\n";
    let before = made(first, &old, content)?;
    let clients = others.len() + 1;
    let mut calls = vec![vec![
        json!({"command": "rename", "old_path": old, "new_path": new}),
    ]];
    for _ in 1..clients {
        calls.push(
            (0..3)
                .flat_map(|_| {
                    [
                        json!({"command": "view", "path": old}),
                        json!({"command": "view", "path": new}),
                    ]
                })
                .collect(),
        );
    }
    let answers = together(first, others, &calls)?;
    let mut log = Vec::new();
    log_answers(&mut log, &calls, &answers);
    let at_old = read(first, &old)?;
    let at_new = read(first, &new)?;
    let race = Race::RenameView {
        old: &old,
        new: &new,
        content,
        before,
        answers: &answers,
        at_old,
        at_new,
    };
    let made = calls.iter().map(Vec::len).sum::<usize>() + 4;
    Ok((made, judged(race, spec)?, log))
}

fn delete_create(first: &mut Session, others: &mut [Session], spec: &Spec, tag: usize) -> Outcome {
    let folder = format!("/memories/race{tag}/d");
    let old = format!("{folder}/old.txt");
    let new = format!("{folder}/new.txt");
    let before = made(first, &old, "old\n")?;
    let clients = others.len() + 1;
    let mut calls = vec![
        vec![json!({"command": "delete", "path": folder})],
        vec![json!({"command": "create", "path": new, "file_text": "new\n"})],
    ];
    for _ in 2..clients {
        calls.push(vec![json!({"command": "view", "path": folder})]);
    }
    let answers = together(first, others, &calls)?;
    let mut log = Vec::new();
    log_answers(&mut log, &calls, &answers);
    let at_old = read(first, &old)?;
    let at_new = read(first, &new)?;
    let race = Race::DeleteCreate {
        folder: &folder,
        old: &old,
        new: &new,
        before,
        answers: &answers,
        at_old,
        at_new,
    };
    Ok((clients + 4, judged(race, spec)?, log))
}

/// Why the races were not run on a backend whose processes each keep their own store.
const NOT_SHARED: &str = "the backend's processes do not share one store (a file one process created was not there for another, as with a store kept in each process), so no two of them can race on it";

/// Whether the clients share one store: a file the first creates is there for the second to
/// view. `Err` says why they do not: each process keeps its own store (a dict), or a second
/// process cannot serve the store at all (a database one process locks); either way races
/// would show nothing about concurrent clients. A fault of the harness stays a fault.
pub fn shares_store(
    sessions: &mut [Session],
    rng: &mut Rng,
) -> Result<Result<(), String>, RaceError> {
    let tag = rng.below(1_000_000);
    let path = format!("/memories/race{tag}/shared.txt");
    let text = format!("one store for every client {tag}");
    let [first, second, ..] = sessions else {
        return Err(Fault::Harness("a race needs two clients".to_string()));
    };
    // A store kept elsewhere (a database file, a server) starts without an earlier run's
    // memories, as every case does.
    first.start_clean()?;
    let create = json!({"command": "create", "path": path, "file_text": format!("{text}\n")});
    let created = call(first, create)?;
    if created.is_error {
        return Ok(Err(format!(
            "the backend refused the create that shows whether its processes share a store ({}), so no race was run",
            first_line(&created.text)
        )));
    }
    match call(second, json!({"command": "view", "path": path})) {
        Ok(seen) if !seen.is_error && seen.text.contains(&text) => Ok(Ok(())),
        Ok(_) => Ok(Err(NOT_SHARED.to_string())),
        Err(Fault::Harness(why)) => Err(Fault::Harness(why)),
        Err(fault) => Ok(Err(format!(
            "a second process of the backend on the same store broke ({}), so no two of them can race on it",
            first_line(&fault.to_string())
        ))),
    }
}

/// The first line of a text a backend sent, at most 200 characters: what a log line or a
/// reason quotes of an answer that may be as long as a file.
fn first_line(text: &str) -> String {
    text.split('\n')
        .next()
        .unwrap_or_default()
        .chars()
        .take(200)
        .collect()
}

/// Rounds of each race in `check --clients N`: a race shows only when the calls meet, so each is
/// run more than once.
pub const CHECK_ROUNDS: usize = 3;

/// The fixed races of `check --clients N`, as results of the run (`race.<name>`, area `races`):
/// each race [`CHECK_ROUNDS`] times with `clients` processes on a fresh store; its first finding
/// fails (or warns) it, a backend that broke makes it an `error`.
pub fn check_results(
    races: &[&'static str],
    backend: &crate::backend::BackendSpec,
    clients: usize,
    spec: &Spec,
    timeouts: crate::backend::Timeouts,
    strict: bool,
) -> Vec<crate::judge::grade::CaseResult> {
    use crate::judge::grade::{CaseResult, Outcome};
    // One set of processes for every race and round: a Python backend's start-up (importing
    // its SDK) costs more than the races themselves. Each race works on paths of its own.
    let mut rng = Rng::new(1);
    // `Ok(Err(why))`: the clients share no store, and the races are skipped for that reason.
    let mut sessions = start_clients(backend, clients, timeouts).and_then(|mut sessions| {
        match shares_store(&mut sessions, &mut rng) {
            Ok(Ok(())) => Ok(Ok(sessions)),
            Ok(Err(why)) => {
                Session::discard_all(sessions);
                Ok(Err(why))
            }
            Err(fault) => {
                Session::discard_all(sessions);
                Err(fault)
            }
        }
    });
    let results = races
        .iter()
        .map(|race| {
            let started = std::time::Instant::now();
            let mut outcome = Outcome::Pass;
            let mut reason = None;
            let mut findings = Vec::new();
            if let Ok(Err(why)) = &sessions {
                outcome = Outcome::Skip;
                reason = Some(why.clone());
            }
            for _ in 0..CHECK_ROUNDS {
                let raced = match sessions.as_mut() {
                    Ok(Ok(sessions)) => run(race, sessions, spec, &mut rng),
                    Ok(Err(_)) => break,
                    Err(fault) => Err(fault.clone()),
                };
                match raced {
                    Ok(Raced {
                        not_run: Some(why), ..
                    }) => {
                        outcome = Outcome::Skip;
                        reason = Some(format!("race not run: {why}"));
                        break;
                    }
                    Ok(raced) if raced.found.is_empty() => {}
                    Ok(raced) => {
                        findings = raced
                            .found
                            .into_iter()
                            .map(|mut found| {
                                if found.actual.is_none() {
                                    found.actual = Some(raced.log.join("\n"));
                                }
                                found
                            })
                            .collect();
                        outcome = CaseResult::graded(&findings, strict);
                        break;
                    }
                    // A part the harness could not do is no verdict on the backend: the race
                    // is skipped with its reason, as the crash lane has it.
                    Err(Fault::Harness(why)) => {
                        outcome = Outcome::Skip;
                        reason = Some(format!("race not run: {why}"));
                        break;
                    }
                    // So is a store that is not empty where it must be: nothing can be judged
                    // on it (the cases lane stops the run for it first).
                    Err(Fault::Dirty(dirty)) => {
                        outcome = Outcome::Skip;
                        reason = Some(format!("race not run: {dirty}"));
                        break;
                    }
                    Err(fault) => {
                        outcome = Outcome::Error;
                        // A client that broke is started again by its next call (the next race).
                        reason = Some(fault.to_string());
                        break;
                    }
                }
            }
            CaseResult {
                outcome,
                reason,
                findings,
                duration: started.elapsed(),
                ..CaseResult::new(
                    format!("race.{race}"),
                    "races",
                    format!(
                        "{clients} clients on one store: {}",
                        match *race {
                            "create-create" => "every client creates the same path at once",
                            "edit-edit" => {
                                "each client replaces a different line of one file at once"
                            }
                            "rename-view" => "one client renames a file while the others view it",
                            _ => "one client deletes a folder while another creates a file in it",
                        }
                    ),
                    race_level(spec),
                    crate::spec::known::RACE_RULES
                        .iter()
                        .map(ToString::to_string)
                        .collect(),
                )
            }
        })
        .collect();
    if let Ok(Ok(sessions)) = sessions {
        Session::discard_all(sessions);
    }
    results
}
