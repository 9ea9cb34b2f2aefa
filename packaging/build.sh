#!/usr/bin/env bash
# Builds memspec's packages into dist/, from this repository and the registries only (maturin from
# PyPI; cargo's crates):
#   dist/memspec-<version>-py3-none-manylinux_*_x86_64.whl   pip install → `memspec` on PATH
#   dist/memspec-<version>.tgz                                 npm launcher (bin/memspec.js)
#   dist/memspec-linux-x64-<version>.tgz                       @memspec/linux-x64, the binary
# The version is Cargo.toml's: maturin reads it for the wheel, and this script writes it into
# the npm packages' staged package.json (the checked-in ones say 0.0.0).
# One release build: maturin runs cargo with the repository's target/ (or $CARGO_TARGET_DIR), and
# the npm platform package takes the binary out of the wheel, so both ship the same bytes.
# Linux x86_64 (glibc) only; see packaging/README.md for other platforms.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
dist="$repo/dist"
venv="$repo/packaging/.venv"
requirements="$repo/packaging/requirements.txt"
stage="$repo/target/npm-stage"
python="${PYTHON:-python3}"

# --- maturin, pinned, in a venv of its own (reused while requirements.txt is unchanged) -------
stamp="$venv/requirements.txt"
if [[ ! -x "$venv/bin/maturin" ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "build: installing $(tr '\n' ' ' <"$requirements")into $venv" >&2
  "$python" -m venv --clear "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
  cp "$requirements" "$stamp"
fi

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
if [[ -z "$version" ]]; then
  echo "build: no version = \"…\" line in Cargo.toml" >&2
  exit 1
fi
echo "build: memspec $version" >&2

# Only this version's files: an older wheel beside the new one would make `pip install
# dist/memspec-*.whl` ambiguous.
rm -rf "$dist" "$stage"
mkdir -p "$dist" "$stage"

# --- the wheel -----------------------------------------------------------------------------------
# --locked: the wheel is built from Cargo.lock as tested. maturin checks the binary's glibc
# symbols and tags the wheel with the oldest manylinux policy it satisfies.
"$venv/bin/maturin" build --release --locked --out "$dist" >&2
wheels=("$dist"/memspec-"$version"-*.whl)
if [[ ${#wheels[@]} -ne 1 || ! -f "${wheels[0]}" ]]; then
  echo "build: expected one memspec-$version wheel in $dist" >&2
  exit 1
fi
wheel="${wheels[0]}"

# --- the npm packages ----------------------------------------------------------------------------
cp -R packaging/npm/memspec packaging/npm/linux-x64 "$stage/"
mkdir -p "$stage/linux-x64/bin"
# The binary the wheel carries (<name>-<version>.data/scripts/memspec), mode 0755: npm pack keeps
# the executable bit, and the launcher spawns this file directly.
"$venv/bin/python" - "$wheel" "$stage/linux-x64/bin/memspec" <<'PY'
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(".data/scripts/memspec")]
    if len(names) != 1:
        sys.exit(f"build: no memspec binary in {wheel} ({names})")
    with z.open(names[0]) as src, open(out, "wb") as dst:
        dst.write(src.read())
os.chmod(out, 0o755)
PY
node - "$stage" "$version" <<'JS'
// The one place the npm versions are written: both packages, and the launcher's pin on the
// platform package (exact, so a launcher never runs another version's binary).
const fs = require('node:fs');
const path = require('node:path');
const [stage, version] = process.argv.slice(2);
for (const dir of ['memspec', 'linux-x64']) {
  const file = path.join(stage, dir, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  pkg.version = version;
  for (const name of Object.keys(pkg.optionalDependencies ?? {})) pkg.optionalDependencies[name] = version;
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}
JS
for dir in linux-x64 memspec; do
  (cd "$stage/$dir" && npm pack --silent --pack-destination "$dist" >/dev/null)
done

ls -l "$dist" >&2
