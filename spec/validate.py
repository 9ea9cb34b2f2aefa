#!/usr/bin/env python3
"""Checks spec/*.json and the case files against their JSON Schemas and against each other.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install jsonschema && /tmp/v/bin/python spec/validate.py

Checks: schema validity (draft 2020-12, formats on), including cases/*.json and
tests/fixtures/cases/*.json against cases.schema.json, and that a case's `$each` stands only where
the format allows it; ids unique, never reused by a retired
entry; every rule a decision cites (or is retired by) exists; every revision an `in` entry names
exists, and every decision a rule is graded `as`; lineages.json against its schema;
every {placeholder} of a rule template is explained;
and, when src/ is present, that every template appears in the reference's source text.
"""
import json
import pathlib
import re
import sys

from jsonschema import Draft202012Validator

HERE = pathlib.Path(__file__).resolve().parent
errors = []


def load(name):
    return json.loads((HERE / name).read_text(encoding="utf-8"))


def validate(doc_name, schema_name):
    schema = load(schema_name)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    doc = load(doc_name)
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
        errors.append(f"{doc_name}: {'/'.join(map(str, err.path))}: {err.message}")
    return doc


def unique(ids, what):
    seen = set()
    for i in ids:
        if i in seen:
            errors.append(f"duplicate {what} id {i}")
        seen.add(i)
    return seen


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

# Revisions: every `in` entry names a known revision, and `as` a live decision.
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
src = HERE.parent / "src"
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
        if "-v" in sys.argv:
            for owner, part in missing:
                print(f"  {owner}: {part!r}")

# The case files: other languages read them through this schema, so it must accept exactly
# what the Rust model does (the Rust side is checked by `memspec cases lint`).
case_schema = load("cases.schema.json")
Draft202012Validator.check_schema(case_schema)
case_validator = Draft202012Validator(case_schema)
case_files = sorted((HERE.parent / "cases").glob("*.json"))
case_files += sorted((HERE.parent / "tests" / "fixtures" / "cases").glob("*.json"))
n_cases = 0
for path in case_files:
    doc = json.loads(path.read_text(encoding="utf-8"))
    n_cases += len(doc.get("cases", []))
    for err in sorted(case_validator.iter_errors(doc), key=lambda e: list(e.path)):
        errors.append(f"{path.relative_to(HERE.parent)}: {'/'.join(map(str, err.path))}: {err.message}")

# `$each` (see cases/README.md) is allowed only as an element of `setup`, of an effect's `lines`
# (in `effects` or a step's `or`) or of a listing's `lines` (in a step's text or a dialect's);
# the schema cannot see where a tool input (any JSON) holds one, so it is checked here, as
# `memspec cases lint` does.
def each_elsewhere(value, allowed=False):
    """Counts the objects with a `$each` key in `value` that are not allowed where they are."""
    if isinstance(value, list):
        return sum(each_elsewhere(v) if not (allowed and isinstance(v, dict) and "$each" in v) else 0
                   for v in value)
    if isinstance(value, dict):
        return ("$each" in value) + sum(each_elsewhere(v) for v in value.values())
    return 0


def allowed_each(case):
    n = each_elsewhere(case.get("setup", []), allowed=True)
    lists = [case.get("effects", [])]
    for step in case.get("steps", []):
        lists.append((step.get("or") or {}).get("effects", []) if isinstance(step.get("or"), dict) else [])
        texts = [step.get("text")] + [d.get("text") for d in step.get("dialects", []) if isinstance(d, dict)]
        for text in texts:
            if isinstance(text, dict) and isinstance(text.get("listing"), dict):
                n += each_elsewhere(text["listing"].get("lines", []), allowed=True)
        n += each_elsewhere({k: v for k, v in step.items() if k not in ("text", "dialects", "or")})
    for effects in lists:
        for effect in effects if isinstance(effects, list) else []:
            if isinstance(effect, dict):
                n += each_elsewhere(effect.get("lines", []), allowed=True)
                n += each_elsewhere({k: v for k, v in effect.items() if k != "lines"})
    rest = {k: v for k, v in case.items() if k not in ("setup", "steps", "effects")}
    return n + each_elsewhere(rest)


for path in case_files:
    doc = json.loads(path.read_text(encoding="utf-8"))
    for case in doc.get("cases", []):
        if isinstance(case, dict) and allowed_each(case):
            errors.append(f"{path.relative_to(HERE.parent)}: case {case.get('id')}: `$each` is allowed only as an element of `setup`, of an effect's `lines` or of a listing's `lines`")

if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"ok: {len(rule_ids)} rules, {len(decision_ids)} decisions, {n_cases} cases in {len(case_files)} files")
