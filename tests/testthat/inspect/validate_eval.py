"""Validate `.eval` logs (Inspect AI's zip layout) against Inspect AI's published log schema.

Usage: validate_eval.py <inspect-openapi.json> <log.eval> [<log.eval> ...]

Each entry is checked against its component, with validate_log.py's relaxed schema:
`header.json` as EvalLog (and without `samples`), each `samples/*.json` as EvalSample,
`summaries.json` and each `_journal/summaries/*.json` as a list of EvalSampleSummary,
`reductions.json` as a list of EvalSampleReductions. A log without `header.json` (an
unfinished one) is invalid. Prints `ok <path>` or `invalid <path>: <entry>: <where>: <message>`
a line; exits 1 when any log is invalid. Deflated entries only (Python's zipfile).
"""
import json
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jsonschema  # noqa: E402
from validate_log import DEFAULT_FACTORY, lax_metrics, relax  # noqa: E402


def validators(schema_path):
    with open(schema_path, encoding="utf-8") as f:
        doc = relax(json.load(f))
    for name, fields in DEFAULT_FACTORY.items():
        schema = doc["components"]["schemas"][name]
        schema["required"] = [f for f in schema.get("required", []) if f not in fields]

    def of(ref):
        return jsonschema.Draft202012Validator({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            **ref, "components": doc["components"]})

    one = lambda name: of({"$ref": f"#/components/schemas/{name}"})
    many = lambda name: of({"type": "array", "items": {"$ref": f"#/components/schemas/{name}"}})
    return {"header": one("EvalLog"), "sample": one("EvalSample"),
            "summaries": many("EvalSampleSummary"), "reductions": many("EvalSampleReductions")}


def kind(entry):
    if entry == "header.json":
        return "header"
    if entry.startswith("samples/"):
        return "sample"
    if entry == "summaries.json" or entry.startswith("_journal/summaries/"):
        return "summaries"
    if entry == "reductions.json":
        return "reductions"
    return None


def problems(path, checks):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        if "header.json" not in names:
            yield "header.json", "", "missing (an unfinished log)"
        for entry in names:
            what = kind(entry)
            if what is None:
                continue
            value = json.loads(z.read(entry))
            if what == "header":
                if "samples" in value:
                    yield entry, "samples", "the header holds the samples"
                value = lax_metrics(value)
            for error in sorted(checks[what].iter_errors(value),
                                key=lambda e: list(e.absolute_path))[:20]:
                while error.context:
                    error = max(error.context, key=lambda e: len(e.absolute_path))
                where = "/".join(str(p) for p in error.absolute_path)
                yield entry, where, error.message[:300]


def main(argv):
    checks = validators(argv[1])
    bad = 0
    for path in argv[2:]:
        found = list(problems(path, checks))
        if not found:
            print(f"ok {path}")
            continue
        bad += 1
        for entry, where, message in found:
            print(f"invalid {path}: {entry}: {where}: {message}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
