"""FutureX question sets and prediction files -> the ``futurex`` task table."""
from __future__ import annotations

import argparse
import hashlib
import numbers
import re
from typing import Any, Dict, List, Optional

import pandas as pd

from .errors import ON_ERROR, PredictiveBenchError, report_skipped, skip_broken
from .readers import parse_json, read_text
from .registry import Preparer, register

REQUIRED = ("id", "prompt", "level", "ground_truth")
LEVELS = (1, 2, 3, 4)


def read_futurex(path: str) -> List[Dict[str, Any]]:
    """The JSON array of question (or prediction) objects in ``path``."""
    data = parse_json(read_text(path), path)
    if not isinstance(data, list):
        raise PredictiveBenchError(f"expected a JSON array of items, found {type(data).__name__}",
                                   file=path, kind="json")
    return data


def _optional_string(value: Any, path: str, row: int, field: str) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise PredictiveBenchError(f"expected text, found {type(value).__name__}", file=path,
                               row=row, field=field, kind="field")


def flatten_item(item: Any, path: str, row: int) -> Dict[str, Any]:
    """One item as a task-table row; every problem names the item's row and field."""
    if not isinstance(item, dict):
        raise PredictiveBenchError(f"expected an object, found {type(item).__name__}", file=path,
                                   row=row, kind="field")
    for field in REQUIRED:
        if field not in item:
            raise PredictiveBenchError("missing field", file=path, row=row, field=field,
                                       kind="field")
    item_id = item["id"]
    if not isinstance(item_id, (str, int)) or isinstance(item_id, bool) or str(item_id) == "":
        raise PredictiveBenchError("id must be a non-empty string", file=path, row=row,
                                   field="id", kind="field")
    item_id = stable_id(str(item_id), item["prompt"])
    where = f"{row} (id {item_id})"
    level = item["level"]
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise PredictiveBenchError(f"level must be 1, 2, 3 or 4, found {level!r}", file=path,
                                   row=where, field="level", kind="field")
    for field in ("prompt", "ground_truth"):
        if not isinstance(item[field], str):
            raise PredictiveBenchError(f"expected a string, found {type(item[field]).__name__}",
                                       file=path, row=where, field=field, kind="field")
    std = item.get("Std")
    if std is not None and (isinstance(std, bool) or not isinstance(std, numbers.Real)
                            or std < 0):
        raise PredictiveBenchError(f"Std must be a non-negative number or null, found {std!r}",
                                   file=path, row=where, field="Std", kind="field")
    answer = item.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise PredictiveBenchError(f"answer must be a string, found {type(answer).__name__}",
                                   file=path, row=where, field="answer", kind="field")
    return {
        "id": item_id,
        "input": item["prompt"],
        "target": item["ground_truth"],
        "level": level,
        "std": None if std is None else float(std),
        "end_time": _optional_string(item.get("end_time"), path, row, "end_time"),
        "additional_values": _optional_string(item.get("additional values"), path, row,
                                              "additional values"),
        "description": _optional_string(item.get("Description"), path, row, "Description"),
        "answer": answer,
        "has_answer": "answer" in item and answer is not None,
    }


#: An id a spreadsheet turned into a rounded number, such as ``6.85147E+23``.
MANGLED_ID = re.compile(r"[+-]?[0-9](\.[0-9]+)?[eE][+-]?[0-9]+")


def stable_id(item_id: str, prompt: Any) -> str:
    """``item_id``, or for a spreadsheet-mangled id ``<id>#<first 8 hex of sha256(prompt)>``.

    A rounded id no longer names one question (the pinned 250915 file has two questions with
    id ``6.85147E+23``); the reference evaluator never reads ids, so any unique rule is
    faithful. The prompt names the question, so the id is the same in every run, in a
    question file and in its predictions files, whatever their order or subset.
    """
    if not isinstance(prompt, str) or not MANGLED_ID.fullmatch(item_id):
        return item_id
    return f"{item_id}#{hashlib.sha256(prompt.encode('utf-8')).hexdigest()[:8]}"


DUPLICATE_ID_RULES = ("error", "suffix")


def deduplicate_ids(rows: List[Dict[str, Any]], path: str, rule: str) -> None:
    """Stop at a repeated id, or (``rule="suffix"``) rename the k-th repeat to ``id#k``.

    Spreadsheet-mangled ids never get here as repeats (see :func:`stable_id`); a repeat left
    is a real one. The reference evaluator ignores ids, so renamed items still score.
    """
    if rule not in DUPLICATE_ID_RULES:
        raise PredictiveBenchError(f"duplicate_ids must be one of {DUPLICATE_ID_RULES}",
                                   kind="argument")
    seen: Dict[str, int] = {}
    for row, record in enumerate(rows, start=1):
        original = record["id"]
        if original in seen:
            if rule == "error":
                raise PredictiveBenchError(
                    f"duplicate id '{original}' (first at row {seen[original]}); pass "
                    "duplicate_ids='suffix' to keep both items as id, id#2, ...", file=path,
                    row=row, field="id", kind="duplicate_id")
            count = 2
            while f"{original}#{count}" in seen:
                count += 1
            record["id"] = f"{original}#{count}"
            seen[record["id"]] = row
        else:
            seen[original] = row


def flatten_futurex(items: List[Any], path: str, duplicate_ids: str = "error",
                    on_error: str = "error",
                    skipped: Optional[List[PredictiveBenchError]] = None) -> pd.DataFrame:
    rows = skip_broken(((item, path, row) for row, item in enumerate(items, start=1)),
                       flatten_item, on_error, [] if skipped is None else skipped)
    deduplicate_ids(rows, path, duplicate_ids)
    columns = ["id", "input", "target", "level", "std", "end_time", "additional_values",
               "description", "answer", "has_answer"]
    return pd.DataFrame(rows, columns=columns).astype({"level": "int64"}, copy=False) \
        if rows else pd.DataFrame({name: [] for name in columns})


def prepare_futurex(source: str, duplicate_ids: str = "error",
                    on_error: str = "error") -> pd.DataFrame:
    """A FutureX question set or prediction file (JSON array) as a task table.

    ``on_error="skip"`` leaves out malformed items and reports them on stderr.
    """
    skipped: List[PredictiveBenchError] = []
    table = flatten_futurex(read_futurex(source), source, duplicate_ids=duplicate_ids,
                            on_error=on_error, skipped=skipped)
    report_skipped(skipped, source, what="item")
    return table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--duplicate-ids", dest="duplicate_ids", choices=DUPLICATE_ID_RULES,
                        default="error", help="stop at a repeated id, or rename repeats id#2...")
    parser.add_argument("--on-error", dest="on_error", choices=ON_ERROR, default="error",
                        help="stop at a malformed item, or skip it and list it on stderr")


PREPARERS = register(
    Preparer("futurex", "futurex", prepare_futurex,
             add_arguments=add_arguments,
             help="a FutureX question set or predictions file (JSON array)")
)
