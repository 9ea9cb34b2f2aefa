//! The packages in `dist/` (built by `bash packaging/build.sh`, which `.ci/run` runs before
//! `cargo test`), installed as a user would: the wheel into a fresh venv, the npm tarballs into a
//! fresh folder, offline from the files. Each installed `memspec` must give the same verdict as
//! the cargo-built binary.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{memspec, repo, run, sdks_installed, verdict};

/// `dist/`'s files for this version, or `None` (skipping with the reason, or panicking under CI)
/// when `packaging/build.sh` has not run.
fn dist() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let dist = repo().join("dist");
    let version = env!("CARGO_PKG_VERSION");
    let wheel = std::fs::read_dir(&dist).ok().and_then(|entries| {
        entries.flatten().map(|e| e.path()).find(|p| {
            p.file_name().is_some_and(|name| {
                let name = name.to_string_lossy();
                name.starts_with(&format!("memspec-{version}-")) && name.ends_with(".whl")
            })
        })
    });
    let launcher = dist.join(format!("memspec-{version}.tgz"));
    let platform = dist.join(format!("memspec-linux-x64-{version}.tgz"));
    match wheel {
        Some(wheel) if launcher.is_file() && platform.is_file() => {
            Some((wheel, launcher, platform))
        }
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "dist/ has no memspec {version} packages: run `bash packaging/build.sh` (.ci/run does)"
            );
            eprintln!(
                "skipped: dist/ has no memspec {version} packages; run `bash packaging/build.sh`"
            );
            None
        }
    }
}

fn ok(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({:?}):\n{}\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn temp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("cannot make a temporary folder: {e}"),
    }
}

#[test]
fn the_wheel_installs_memspec_into_a_fresh_venv() {
    let Some((wheel, _, _)) = dist() else { return };
    if !sdks_installed() {
        return;
    }
    let tmp = temp();
    let venv = tmp.path().join("venv");
    let venv_arg = venv.to_string_lossy().into_owned();
    ok(
        &run(
            Path::new("python3"),
            &["-m", "venv", &venv_arg],
            tmp.path(),
            &[],
        ),
        "python3 -m venv",
    );
    ok(
        &run(
            &venv.join("bin/python"),
            &[
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-index",
                "--disable-pip-version-check",
                &wheel.to_string_lossy(),
            ],
            tmp.path(),
            &[],
        ),
        "pip install the wheel",
    );
    let installed = venv.join("bin/memspec");
    assert!(
        installed.is_file(),
        "the wheel put no memspec in the venv's bin/"
    );
    // The backend's Python is the one with `anthropic` (.ci/.venv), as the active venv: the
    // default a user gets after `source .venv/bin/activate`.
    let backend_venv = repo().join(".ci/.venv");
    let target = "adapters/python/examples/dict_backend.py:DictMemoryTool";
    let args = [
        "check",
        "--python",
        target,
        "--not-on-folder",
        "--format",
        "json",
    ];
    let by_wheel = run(
        &installed,
        &args,
        &repo(),
        &[("VIRTUAL_ENV", &backend_venv.to_string_lossy())],
    );
    let by_cargo = memspec(&[&args[..], &["--python-bin", ".ci/.venv/bin/python"]].concat());
    let (code, word, outcomes) = verdict(&by_wheel);
    assert!(
        outcomes.len() > 100,
        "{}",
        String::from_utf8_lossy(&by_wheel.stderr)
    );
    assert_eq!((code, word, outcomes), verdict(&by_cargo));
}

#[test]
fn the_npm_tarballs_install_offline_and_npx_runs_memspec() {
    let Some((_, launcher, platform)) = dist() else {
        return;
    };
    if !sdks_installed() {
        return;
    }
    let tmp = temp();
    let project = tmp.path();
    let manifest = r#"{"name": "install-test", "version": "1.0.0", "private": true}"#;
    assert!(std::fs::write(project.join("package.json"), manifest).is_ok());
    // Offline and from the files only: the launcher's optional dependency on
    // @memspec/linux-x64 must be met by the platform tarball, never fetched.
    ok(
        &run(
            Path::new("npm"),
            &[
                "install",
                "--offline",
                "--no-audit",
                "--no-fund",
                &launcher.to_string_lossy(),
                &platform.to_string_lossy(),
            ],
            project,
            &[],
        ),
        "npm install the tarballs",
    );
    let example = repo().join("adapters/node/examples/map-backend.mjs");
    let target = format!("{}:makeTool", example.to_string_lossy());
    let args = [
        "check",
        "--node",
        target.as_str(),
        "--not-on-folder",
        "--format",
        "json",
    ];
    let by_npx = run(
        Path::new("npx"),
        &[&["--offline", "memspec"][..], &args].concat(),
        project,
        &[],
    );
    let by_cargo = memspec(&args);
    let (code, word, outcomes) = verdict(&by_npx);
    assert!(
        outcomes.len() > 100,
        "{}",
        String::from_utf8_lossy(&by_npx.stderr)
    );
    assert_eq!((code, word, outcomes), verdict(&by_cargo));
    // The launcher passes the exit code through: a usage error stays 2.
    let usage = run(
        Path::new("npx"),
        &["--offline", "memspec", "check", "--node", "no-such.mjs:x"],
        project,
        &[],
    );
    assert_eq!(usage.status.code(), Some(2));
}
