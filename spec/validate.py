#!/usr/bin/env python3
"""Checks spec/*.json, the case files and (optionally) JSON reports against their JSON Schemas,
and the spec files against each other.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install -r .ci/schema-requirements.txt
    /tmp/v/bin/python spec/validate.py                       # the files
    /tmp/v/bin/python spec/validate.py --memspec target/debug/memspec   # and two real reports
    /tmp/v/bin/python spec/validate.py --report r.json       # and this report

The schemas (spec/*.schema.json) are generated from memspec's Rust types (`memspec spec schemas
--write spec`; a test checks that the committed files are what the types generate), so they say
everything one file's structure can: fields, kinds, enumerations, id patterns, `$each` and where
it may stand, the forms of a rule's entry for a revision, a lineage signature's forms, and the
bounded texts of a report. This script checks each file against its schema (draft 2020-12,
formats on), and what no schema of one value can say:

- ids are unique (rules, decisions, lineages, retired ids) and never both live and retired:
  uniqueness of a field across array items is beyond JSON Schema;
- references resolve across files: every rule a decision cites or is retired by exists, every
  revision an `in` entry names is described in `revisions`, every decision a rule is graded
  `as` exists (the loader checks only the revision it loads);
- every {placeholder} of a rule's template is explained in `placeholders`, and every explained
  one is in the template (a relation between a string's contents and a map's keys);
- (informational, when src/ is next to this file) each template's fixed text appears in the
  reference's source.

What the case files need beyond their schema (known rule ids, ids that start with their area and
are unique across files, matchers that compile, `$repeat` sizes) is checked by `memspec cases
lint`, which CI runs through the tests.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

from jsonschema import Draft202012Validator

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
errors = []


def load(name):
    return json.loads((HERE / name).read_text(encoding="utf-8"))


def validator(schema_name):
    schema = load(schema_name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def check(doc, against, name):
    for err in sorted(against.iter_errors(doc), key=lambda e: list(map(str, e.path))):
        errors.append(f"{name}: {'/'.join(map(str, err.path))}: {err.message}")
    return doc


def validate(doc_name, schema_name):
    return check(load(doc_name), validator(schema_name), doc_name)


def unique(ids, what):
    seen = set()
    for i in ids:
        if i in seen:
            errors.append(f"duplicate {what} id {i}")
        seen.add(i)
    return seen


def reports(memspec):
    """Two real reports of `memspec check --format json`: the reference over the built-in suite
    (long views: bounded texts) and the mixed broken backend over the report fixtures (every
    outcome, findings, root causes)."""
    env = dict(os.environ, MEMSPEC_BIN=str(pathlib.Path(memspec).resolve()), PYTHONDONTWRITEBYTECODE="1")
    mix = f"python3 {ROOT / 'tests/backends/_report_mix.py'} {{memories}}"
    runs = [
        ("reference", [memspec, "check", "--format", "json"]),
        ("_report_mix", [memspec, "check", "--format", "json", "--backend", mix,
                         "--cases", str(ROOT / "tests/fixtures/cases")]),
    ]
    for name, command in runs:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        try:
            yield f"report of {name}", json.loads(done.stdout)
        except json.JSONDecodeError as e:
            errors.append(f"report of {name}: not JSON (exit {done.returncode}): {e}; stderr: {done.stderr[-500:]}")


args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
args.add_argument("-v", action="store_true", help="list template fragments not found in src/")
args.add_argument("--report", action="append", default=[], metavar="FILE",
                  help="a JSON report (memspec check --format json) to check against report.schema.json")
args.add_argument("--memspec", metavar="BIN", help="make two reports with this binary and check them")
args = args.parse_args()

rules = validate("rules.json", "rules.schema.json")
decisions = validate("decisions.json", "decisions.schema.json")
lineages = validate("lineages.json", "lineages.schema.json")
unique([l["id"] for l in lineages["lineages"]], "lineage")

rule_ids = unique([r["id"] for r in rules["rules"]], "rule")
retired_rules = unique([r["id"] for r in rules.get("retired", [])], "retired rule")
for i in rule_ids & retired_rules:
    errors.append(f"rule id {i} is both live and retired")
decision_ids = unique([d["id"] for d in decisions["decisions"]], "decision")
retired_decisions = unique([d["id"] for d in decisions.get("retired", [])], "retired decision")
for i in decision_ids & retired_decisions:
    errors.append(f"decision id {i} is both live and retired")

for d in decisions["decisions"]:
    for r in d["rules"]:
        if r not in rule_ids:
            errors.append(f"{d['id']} cites unknown rule {r}")
    for revision, retired in d.get("retired_in", {}).items():
        for r in retired["by"]:
            if r not in rule_ids:
                errors.append(f"{d['id']} is retired in {revision} by unknown rule {r}")

# Revisions: every `in` entry names a revision the file describes, and `as` a live decision.
revision_ids = {r["id"] for r in rules["revisions"]}
for r in rules["rules"]:
    for revision, entry in r.get("in", {}).items():
        if revision not in revision_ids:
            errors.append(f"{r['id']}: `in` names unknown revision {revision}")
        if "as" in entry and entry["as"] not in decision_ids:
            errors.append(f"{r['id']}: graded as unknown decision {entry['as']} in {revision}")

for r in rules["rules"]:
    if "template" in r:
        names = set(re.findall(r"\{([a-z_]+)\}", r["template"]))
        explained = set(r.get("placeholders", {}))
        for n in names - explained:
            errors.append(f"{r['id']}: placeholder {{{n}}} is not explained")
        for n in explained - names:
            errors.append(f"{r['id']}: placeholder {{{n}}} is not in the template")

# Cross-check with the reference's strings when the crate is next to us.
src = ROOT / "src"
if src.is_dir():
    text = "\n".join(p.read_text(encoding="utf-8") for p in src.rglob("*.rs"))
    def literal_parts(template):
        # The fixed text between placeholders must appear in the source.
        return [p for p in re.split(r"\{[a-z_]+\}", template) if len(p) >= 8]
    templates = [(r["id"], r["template"]) for r in rules["rules"] if "template" in r and "\t" not in r["template"]]
    templates += [(d["id"], m["template"]) for d in decisions["decisions"] for m in d.get("messages", [])]
    missing = [(owner, part) for owner, template in templates
               for part in literal_parts(template) if part not in text]
    # Strings the reference composes from pieces (path-grammar reasons, the command list) do
    # not appear verbatim; they are listed with -v, not treated as errors.
    if missing:
        print(f"note: {len(missing)} template fragments not found verbatim in src/ (composed or not written yet); -v lists them")
        if args.v:
            for owner, part in missing:
                print(f"  {owner}: {part!r}")

# The case files: other languages read them through this schema, which says everything about
# their structure, `$each` included.
cases = validator("cases.schema.json")
case_files = sorted((ROOT / "cases").glob("*.json"))
case_files += sorted((ROOT / "tests" / "fixtures" / "cases").glob("*.json"))
n_cases = 0
for path in case_files:
    doc = check(json.loads(path.read_text(encoding="utf-8")), cases, path.relative_to(ROOT))
    n_cases += len(doc.get("cases", []))

# Reports, when asked for.
report = validator("report.schema.json")
made = list(reports(args.memspec)) if args.memspec else []
given = [(path, json.loads(pathlib.Path(path).read_text(encoding="utf-8"))) for path in args.report]
for name, doc in made + given:
    check(doc, report, name)

if errors:
    print("\n".join(errors))
    sys.exit(1)
checked = f", {len(made + given)} reports" if made or given else ""
print(f"ok: {len(rule_ids)} rules, {len(decision_ids)} decisions, {n_cases} cases in {len(case_files)} files{checked}")
