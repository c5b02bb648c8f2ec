#!/usr/bin/env python3
"""Check Schemas/strata-schema.json and the example models against it.

1. The JSON Schema itself must be a valid draft 2020-12 schema.
2. Negative self-check: small invalid models built below must be rejected, and a minimal
   valid model must be accepted (so the rejections mean something).
3. Every Schemas/*.json except strata-schema.json must validate and name the schema with
   "$schema": "./strata-schema.json".

Prints `ok <file>` or one line per error with its JSON path; exits 1 if anything fails.
Needs the `jsonschema` package (pip install jsonschema).

This checks the shape of model files only. Rules JSON Schema cannot express (inverses that
match, names that exist, min <= max, ...) are checked by `strata validate`.
"""

import copy
import json
import sys
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


# Keys that the schema forbids (with a `false` subschema) depending on the attribute's type or
# the relationship's toMany, and why.
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
    """The error's path and message, as lines. jsonschema reports a `false` subschema under "properties"
    at the enclosing object without the key's name, so name the offending key here."""
    path, message = error.json_path, error.message
    if error.validator is None and error.schema is False:
        parent = document
        for part in error.absolute_path:
            parent = parent[part]
        if isinstance(parent, dict):
            keys = [key for key, value in parent.items()
                    if key in CONDITIONAL_KEYS and type(value) is type(error.instance) and value == error.instance]
            if keys:
                return [f"{path}.{key}: '{key}' is not allowed here ({CONDITIONAL_KEYS[key]})" for key in keys]
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
    ("reserved property name 'id'",
     lambda d: note(d)["attributes"].append({"name": "id", "type": "int64"})),
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
    ("index order 'desc'",
     lambda d: note(d).update({"indexes": [{"name": "byTitle", "elements": [{"property": "title", "order": "desc"}]}]})),
    ("configuration without entities",
     lambda d: d.update({"configurations": [{"name": "Local"}]})),
]


def main() -> int:
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

    # Self-check: the base model is accepted and every broken variant is rejected.
    base_errors = error_lines(validator, BASE)
    if base_errors:
        failed = True
        print("FAIL self-check: the minimal valid model is rejected:")
        for line in base_errors:
            print(f"  {line}")
    rejected = 0
    for label, change in NEGATIVE_CASES:
        if validator.is_valid(mutated(change)):
            failed = True
            print(f"FAIL self-check: accepted an invalid model ({label})")
        else:
            rejected += 1
    print(f"{'ok' if rejected == len(NEGATIVE_CASES) else 'FAIL'} self-check: "
          f"{rejected}/{len(NEGATIVE_CASES)} invalid models rejected")

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
