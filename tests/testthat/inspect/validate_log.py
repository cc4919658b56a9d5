"""Validate vitals/predictivebench logs against Inspect AI's published log schema.

Usage: validate_log.py <inspect-openapi.json> <log.json> [<log.json> ...]

The schema is the OpenAPI document's component `EvalLog`, resolved against the document itself
(`$ref: #/components/schemas/...`). Its `required` lists come from pydantic's serialization
schema and so include fields that have defaults; Inspect reads a log without them, so a
required field with a `default` is made optional here (see ../shared/reference/README.md).
Prints one line per log: `ok <path>` or `invalid <path>: <where>: <message>`; exits 1 when any
log is invalid. Inspect's reader (Python's json) takes NaN; so does this one.
"""
import json
import sys

import jsonschema


# Fields Inspect's pydantic models fill with `Field(default_factory=...)` (so they are optional
# when Inspect reads a log) but whose schema has no `default` (src/inspect_ai/log/_log.py).
DEFAULT_FACTORY = {
    "EvalLog": {"tags", "metadata", "plan"},
    "EvalSpec": {"eval_id", "run_id", "task_id", "task_attribs", "task_args", "task_args_passed",
                 "model_generate_config", "model_args", "packages"},
    "EvalPlanStep": {"params", "params_passed"},
    "EvalStats": {"started_at", "completed_at", "model_usage", "role_usage",
                  "connection_limit_history"},
    "EvalSample": {"messages", "output", "metadata", "store", "events", "model_usage",
                   "role_usage", "attachments"},
    "EvalScore": {"params", "metrics"},
    "EvalMetric": {"params"},
    "Score": {"history"},
}


def relax(node):
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict) and isinstance(node.get("required"), list):
            node["required"] = [
                name for name in node["required"]
                if not (isinstance(props.get(name), dict) and "default" in props[name])
            ]
        for value in node.values():
            relax(value)
    elif isinstance(node, list):
        for value in node:
            relax(value)
    return node


def lax_metrics(log):
    """Inspect reads a log with pydantic in lax mode, which takes a number's text for a float
    field: an undefined metric logged as the string "NaN" is read as float("nan"). The same
    here, for metric values only (the one place predictivebench writes it)."""
    for score in (log.get("results") or {}).get("scores") or []:
        for metric in (score.get("metrics") or {}).values():
            value = metric.get("value") if isinstance(metric, dict) else None
            if isinstance(value, str):
                try:
                    metric["value"] = float(value)
                except ValueError:
                    pass
    return log


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        doc = relax(json.load(f))
    for name, fields in DEFAULT_FACTORY.items():
        schema = doc["components"]["schemas"][name]
        schema["required"] = [f for f in schema.get("required", []) if f not in fields]
    root = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/components/schemas/EvalLog",
        "components": doc["components"],
    }
    validator = jsonschema.Draft202012Validator(root)
    bad = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            log = lax_metrics(json.load(f))
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
        if not errors:
            print(f"ok {path}")
            continue
        bad += 1
        for error in errors[:20]:
            while error.context:
                error = max(error.context, key=lambda e: len(e.absolute_path))
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"invalid {path}: {where}: {error.message[:300]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
