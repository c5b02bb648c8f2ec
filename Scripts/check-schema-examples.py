#!/usr/bin/env python3
"""Check Schemas/strata-schema.json and the example models against it.

1. The JSON Schema itself must be a valid draft 2020-12 schema.
2. Self-check: small invalid models built below must be rejected, and a minimal valid model
   and the valid variants built below (null for optional keys, every date form the loader
   reads, ...) must be accepted (so the rejections mean something).
3. Every Schemas/*.json except strata-schema.json must validate and name the schema with
   "$schema": "./strata-schema.json".
4. With `--strata PATH` (a built `strata` executable), the loader must agree with the schema on
   the self-check models: `strata validate` exits 0 for each valid one and 1 for each invalid
   one, so the schema and the loader cannot drift apart unnoticed.

Prints `ok <file>` or one line per error with its JSON path; exits 1 if anything fails.
Needs the `jsonschema` package (pip install jsonschema).

This checks the shape of model files only. Rules JSON Schema cannot express (inverses that
match, names that exist, min <= max, ...) are checked by `strata validate`.
"""

import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
except ImportError:
    sys.exit("check-schema-examples: the jsonschema package is missing (pip install jsonschema)")

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "Schemas"
META_SCHEMA = SCHEMAS / "strata-schema.json"
SCHEMA_REF = "./strata-schema.json"


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# Keys that the schema forbids (with a `{"type": "null"}` subschema: null means absent, so only
# null is allowed) depending on the attribute's type or the relationship's toMany, and why.
CONDITIONAL_KEYS = {
    "min": "only int16, int32, int64, decimal, double, float and date attributes take min/max",
    "max": "only int16, int32, int64, decimal, double, float and date attributes take min/max",
    "minLength": "only string attributes take minLength/maxLength/regex",
    "maxLength": "only string attributes take minLength/maxLength/regex",
    "regex": "only string attributes take minLength/maxLength/regex",
    "transformer": "only transformable attributes take a transformer",
    "externalStorage": "only binary and transformable attributes take externalStorage",
    "minCount": 'only to-many relationships ("toMany": true) take minCount/maxCount',
    "maxCount": 'only to-many relationships ("toMany": true) take minCount/maxCount',
}


def describe(error, document):
    """The error's path and message, as lines. A conditional key is forbidden by allowing only null
    ("X is not of type 'null'" would not say why), so say why here."""
    path, message = error.json_path, error.message
    key = error.absolute_path[-1] if error.absolute_path else None
    if error.validator == "type" and error.validator_value == "null" and key in CONDITIONAL_KEYS:
        return [f"{path}: '{key}' is not allowed here ({CONDITIONAL_KEYS[key]})"]
    return [f"{path}: {message}"]


def error_lines(validator, document):
    """One line per error, sorted by position; for anyOf/oneOf also the alternatives' reasons."""
    lines = []
    errors = sorted(validator.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    for error in errors:
        for line in describe(error, document):
            if line not in lines:
                lines.append(line)
        for sub in sorted(error.context or [], key=lambda e: e.message):
            lines.extend(f"    {line}" for line in describe(sub, document))
    return lines


# A minimal valid model; each negative case mutates a copy of it.
BASE = {
    "name": "Check",
    "entities": [
        {
            "name": "Note",
            "attributes": [
                {"name": "title", "type": "string"},
                {"name": "shape", "type": "transformable", "transformer": "ShapeTransformer"},
            ],
            "relationships": [
                {"name": "tags", "destination": "Tag", "inverse": "notes", "toMany": True, "ordered": True},
            ],
        },
        {
            "name": "Tag",
            "attributes": [{"name": "label", "type": "string"}],
            "relationships": [{"name": "notes", "destination": "Note", "inverse": "tags", "toMany": True}],
        },
    ],
}


def note(doc):
    return doc["entities"][0]


def mutated(change):
    doc = copy.deepcopy(BASE)
    change(doc)
    return doc


NEGATIVE_CASES = [
    ("unknown relationship key 'tomany'",
     lambda d: note(d)["relationships"].append({"name": "owners", "destination": "Tag", "tomany": True})),
    ("unknown attribute type 'strng'",
     lambda d: note(d)["attributes"].append({"name": "body", "type": "strng"})),
    ("ordered without toMany",
     lambda d: note(d)["relationships"].append({"name": "owner", "destination": "Tag", "ordered": True})),
    ("ordered with toMany false",
     lambda d: note(d)["relationships"].append(
         {"name": "owner", "destination": "Tag", "toMany": False, "ordered": True})),
    ("transformable without transformer",
     lambda d: note(d)["attributes"].append({"name": "color", "type": "transformable"})),
    ("transformer on a non-transformable attribute",
     lambda d: note(d)["attributes"].append({"name": "color", "type": "binary", "transformer": "X"})),
    ("unknown model key",
     lambda d: d.update({"entitys": []})),
    ("unknown entity key",
     lambda d: note(d).update({"uniqueness": [["title"]]})),
    ("lower-case entity name",
     lambda d: note(d).update({"name": "note"})),
    ("upper-case property name",
     lambda d: note(d)["attributes"].append({"name": "Body", "type": "string"})),
    ("reserved property name 'objectID'",
     lambda d: note(d)["attributes"].append({"name": "objectID", "type": "int64"})),
    ("reserved property name 'primaryKey'",
     lambda d: note(d)["attributes"].append({"name": "primaryKey", "type": "int64"})),
    ("reserved relationship name 'init'",
     lambda d: note(d)["relationships"].append({"name": "init", "destination": "Tag"})),
    ("min on a string attribute",
     lambda d: note(d)["attributes"].append({"name": "body", "type": "string", "min": 1})),
    ("minLength on an int attribute",
     lambda d: note(d)["attributes"].append({"name": "count", "type": "int32", "minLength": 1})),
    ("externalStorage on a string attribute",
     lambda d: note(d)["attributes"].append({"name": "body", "type": "string", "externalStorage": True})),
    ("int16 default out of range",
     lambda d: note(d)["attributes"].append({"name": "count", "type": "int16", "default": 40000})),
    ("int32 default not an integer",
     lambda d: note(d)["attributes"].append({"name": "count", "type": "int32", "default": 1.5})),
    ("bool default as a string",
     lambda d: note(d)["attributes"].append({"name": "done", "type": "bool", "default": "false"})),
    ("double default 'nan' (wrong spelling)",
     lambda d: note(d)["attributes"].append({"name": "score", "type": "double", "default": "nan"})),
    ("decimal default not a number",
     lambda d: note(d)["attributes"].append({"name": "price", "type": "decimal", "default": "12,50"})),
    ("date default not ISO 8601",
     lambda d: note(d)["attributes"].append({"name": "when", "type": "date", "default": "05/01/2024"})),
    ("binary default not base64",
     lambda d: note(d)["attributes"].append({"name": "blob", "type": "binary", "default": "not base64!"})),
    ("uuid default malformed",
     lambda d: note(d)["attributes"].append({"name": "token", "type": "uuid", "default": "3F2504E0-4F89"})),
    ("transient and indexed",
     lambda d: note(d)["attributes"].append(
         {"name": "cache", "type": "string", "transient": True, "indexed": True})),
    ("minCount on a to-one",
     lambda d: note(d)["relationships"].append({"name": "owner", "destination": "Tag", "minCount": 1})),
    ("unknown deleteRule",
     lambda d: note(d)["relationships"].append({"name": "owner", "destination": "Tag", "deleteRule": "restrict"})),
    ("empty uniqueness constraint",
     lambda d: note(d).update({"uniquenessConstraints": [[]]})),
    ("index without elements",
     lambda d: note(d).update({"indexes": [{"name": "byTitle", "elements": []}]})),
    ("index name with a dash",
     lambda d: note(d).update({"indexes": [{"name": "by-title", "elements": [{"property": "title"}]}]})),
    ("index name starting with a digit",
     lambda d: note(d).update({"indexes": [{"name": "1st", "elements": [{"property": "title"}]}]})),
    ("index name empty",
     lambda d: note(d).update({"indexes": [{"name": "", "elements": [{"property": "title"}]}]})),
    ("configuration name with a space",
     lambda d: d.update({"configurations": [{"name": "My Store", "entities": ["Note"]}]})),
    ("transformable with a null transformer",
     lambda d: note(d)["attributes"].append({"name": "color", "type": "transformable", "transformer": None})),
    ("null for a required key",
     lambda d: note(d)["attributes"].append({"name": "body", "type": None})),
    ("null model name",
     lambda d: d.update({"name": None})),
    ("null entity in the list",
     lambda d: d["entities"].append(None)),
    ("date default without a zone",
     lambda d: note(d)["attributes"].append({"name": "when", "type": "date", "default": "2024-05-01T10:00:00"})),
    ("date default with hour 24",
     lambda d: note(d)["attributes"].append({"name": "when", "type": "date", "default": "2024-05-01T24:00:00Z"})),
    ("date default with a one-digit offset hour",
     lambda d: note(d)["attributes"].append({"name": "when", "type": "date", "default": "2024-05-01T10:00:00+2:00"})),
    ("index order 'desc'",
     lambda d: note(d).update({"indexes": [{"name": "byTitle", "elements": [{"property": "title", "order": "desc"}]}]})),
    ("configuration without entities",
     lambda d: d.update({"configurations": [{"name": "Local"}]})),
]


# Variants of BASE that the loader accepts, so the schema must too.
POSITIVE_CASES = [
    ("null for every optional model key",
     lambda d: d.update({"version": None, "versionHashModifier": None, "configurations": None, "$schema": None})),
    ("null for every optional entity key",
     lambda d: d["entities"].append({
         "name": "Empty", "parent": None, "abstract": None, "attributes": None, "relationships": None,
         "uniquenessConstraints": None, "indexes": None, "versionHashModifier": None, "renamingIdentifier": None})),
    ("null for every optional attribute key",
     lambda d: note(d)["attributes"].extend([
         {"name": "body", "type": "string", "optional": None, "default": None, "indexed": None, "transient": None,
          "min": None, "max": None, "minLength": None, "maxLength": None, "regex": None, "renamingIdentifier": None,
          "transformer": None, "externalStorage": None, "versionHashModifier": None},
         {"name": "count", "type": "int16", "default": None, "min": None, "max": None, "minLength": None},
         {"name": "price", "type": "decimal", "default": None, "min": None},
         {"name": "score", "type": "double", "default": None},
         {"name": "ratio", "type": "float", "default": None},
         {"name": "done", "type": "bool", "default": None},
         {"name": "when", "type": "date", "default": None, "max": None},
         {"name": "blob", "type": "binary", "default": None, "externalStorage": None},
         {"name": "token", "type": "uuid", "default": None},
         {"name": "link", "type": "uri", "default": None},
         {"name": "cache", "type": "string", "transient": True, "indexed": None},
     ])),
    ("null for every optional relationship key",
     lambda d: note(d)["relationships"].extend([
         {"name": "owner", "destination": "Tag", "inverse": None, "toMany": None, "ordered": None, "optional": None,
          "minCount": None, "maxCount": None, "deleteRule": None, "renamingIdentifier": None,
          "versionHashModifier": None},
         {"name": "others", "destination": "Tag", "toMany": True, "minCount": None, "maxCount": None},
     ])),
    ("null index order",
     lambda d: note(d).update({"indexes": [{"name": "byTitle", "elements": [{"property": "title", "order": None}]}]})),
    ("every date form the loader reads",
     lambda d: note(d)["attributes"].extend([
         {"name": f"when{index}", "type": "date", "default": text} for index, text in enumerate([
             "2024-05-01T10:00:00.000Z", "2024-05-01", "2024-05-01T10:00:00z", "2024-05-01t10:00:00Z",
             "2024-05-01 10:00:00Z", "2024-05-01T12:00:00+02:00", "2024-05-01T04:30:00-0530",
             "2024-05-01T10:00:00,5Z", "2024-05-01T10:00:00.123456789012Z", "-001000-01-01T00:00:00.000Z",
             "+010000-01-01", 1714557600, 1714557600.5])
     ])),
    ("index and configuration names with digits and '_'",
     lambda d: (note(d).update({"indexes": [{"name": "by_title2", "elements": [{"property": "title"}]}]}),
                d.update({"configurations": [{"name": "local_2", "entities": ["Note", "Tag"]}]}))),
]


def loader_disagreements(strata, cases):
    """Lines for each (label, document, expected exit status) that `strata validate` answers
    with another status."""
    lines = []
    with tempfile.TemporaryDirectory() as directory:
        for index, (label, document, expected) in enumerate(cases):
            path = Path(directory) / f"case{index}.json"
            path.write_text(json.dumps(document, indent=2), encoding="utf-8")
            run = subprocess.run([strata, "validate", str(path)], capture_output=True, text=True)
            if run.returncode != expected:
                lines.append(f"FAIL loader check: strata validate exits {run.returncode}, not {expected}, "
                             f"for {label}:")
                lines.extend(f"  {line}" for line in run.stdout.splitlines())
    return lines


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--strata", metavar="PATH", help="a built strata executable to cross-check the loader")
    options = arguments.parse_args()
    failed = False

    try:
        schema = json.loads(META_SCHEMA.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        print(f"FAIL {rel(META_SCHEMA)}: {error}")
        return 1
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        print(f"FAIL {rel(META_SCHEMA)}: not a valid draft 2020-12 schema: {error.json_path}: {error.message}")
        return 1
    print(f"ok {rel(META_SCHEMA)} (valid draft 2020-12 schema)")
    validator = Draft202012Validator(schema)

    # Self-check: the base model and its valid variants are accepted and every broken variant is
    # rejected.
    for label, document in [("the minimal valid model", BASE)] + [(label, mutated(change)) for label, change in POSITIVE_CASES]:
        lines = error_lines(validator, document)
        if lines:
            failed = True
            print(f"FAIL self-check: rejected a valid model ({label}):")
            for line in lines:
                print(f"  {line}")
    print(f"ok self-check: the minimal valid model and {len(POSITIVE_CASES)} valid variants accepted"
          if not failed else "FAIL self-check: valid models rejected")
    rejected = 0
    for label, change in NEGATIVE_CASES:
        if validator.is_valid(mutated(change)):
            failed = True
            print(f"FAIL self-check: accepted an invalid model ({label})")
        else:
            rejected += 1
    print(f"{'ok' if rejected == len(NEGATIVE_CASES) else 'FAIL'} self-check: "
          f"{rejected}/{len(NEGATIVE_CASES)} invalid models rejected")

    if options.strata:
        cases = [("the minimal valid model", BASE, 0)]
        cases += [(label, mutated(change), 0) for label, change in POSITIVE_CASES]
        cases += [(label, mutated(change), 1) for label, change in NEGATIVE_CASES]
        lines = loader_disagreements(options.strata, cases)
        for line in lines:
            print(line)
        failed = failed or bool(lines)
        print(f"{'FAIL' if lines else 'ok'} loader check: strata validate agrees with the schema on "
              f"{len(cases) - sum(1 for line in lines if line.startswith('FAIL'))}/{len(cases)} models")

    examples = sorted(p for p in SCHEMAS.glob("*.json") if p.name != META_SCHEMA.name)
    if not examples:
        failed = True
        print(f"FAIL no example models in {rel(SCHEMAS)}")
    for path in examples:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            failed = True
            print(f"FAIL {rel(path)}: {error}")
            continue
        lines = error_lines(validator, document)
        if isinstance(document, dict) and document.get("$schema") != SCHEMA_REF:
            lines.append(f'$: "$schema" should be "{SCHEMA_REF}" so that editors find the schema')
        if lines:
            failed = True
            for line in lines:
                print(f"FAIL {rel(path)}: {line}")
        else:
            print(f"ok {rel(path)}")

    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
