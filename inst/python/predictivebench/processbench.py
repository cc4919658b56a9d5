"""DeltaBench and ProcessBench files -> the ``processbench`` task table.

Both benchmarks ask for the first wrong step of a solution split into steps. A row holds the
problem, the steps in order, and ``label``: the 0-based index of the first wrong step, or -1
when every step is right. DeltaBench rows also keep the raw 1-based section-number lists and
``sections_content`` (the text DeltaBench's own critic prompt shows), for its section-level
protocol. ProcessBench rows keep their ``split`` (the file's stem, also in ``task_l1``):
its four split files stack into one table.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import pandas as pd

from .errors import ON_ERROR, PredictiveBenchError, check_on_error, report_skipped
from .readers import iter_json_lines, parse_json, read_text
from .registry import Preparer, register

COLUMNS = ["id", "problem", "steps", "label", "task_l1", "task_l2", "origin", "generator",
           "final_answer_correct", "error_sections", "unuseful_sections", "sections_content",
           "split"]
DELTABENCH_LISTS = ("reason_error_section_numbers", "reason_unuseful_section_numbers")

Record = Tuple[int, Any]
Skipped = List[PredictiveBenchError]


# ---------------------------------------------------------------------------------- reading

def _json_lines(text: str, path: str, on_error: str, skipped: Skipped) -> List[Record]:
    return list(iter_json_lines(text, path, None if on_error == "error" else skipped.append))


def parse_list_cell(value: Any, path: str, row: int, field: str) -> Any:
    """A list serialized in a CSV cell (JSON or a Python literal), parsed as data.

    Python literals are read with ``ast.literal_eval``, which accepts only literals (lists,
    dicts, strings, numbers), so a cell can never run code.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text == "":
        return []
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise PredictiveBenchError("can't read this cell as a list", file=path, row=row,
                                   field=field, kind="field") from None


def _csv_records(path: str, on_error: str = "error",
                 skipped: Optional[Skipped] = None) -> List[Record]:
    """``(row, record)`` pairs from a CSV file whose list columns are serialized strings.

    A row whose list cell can't be read raises, or with ``on_error="skip"`` is appended to
    ``skipped`` and left out, as a malformed JSON line is.
    """
    read_text(path)  # missing file, directory and encoding errors, with the file named
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as error:
        raise PredictiveBenchError(f"can't read as CSV: {error}", file=path,
                                   kind="csv") from None
    records = []
    for number, record in enumerate(frame.to_dict(orient="records"), start=1):
        try:
            for field in ("sections", "steps", *DELTABENCH_LISTS):
                if field in record:
                    record[field] = parse_list_cell(record[field], path, number, field)
        except PredictiveBenchError as problem:
            if on_error == "error" or skipped is None:
                raise
            skipped.append(problem)
            continue
        if "label" in record and isinstance(record["label"], str) and record["label"] != "":
            try:
                record["label"] = int(record["label"])
            except ValueError:
                pass  # reported by the flattener, with the row
        records.append((number, record))
    return records


def read_records(path: str, on_error: str = "error",
                 skipped: Optional[Skipped] = None) -> List[Record]:
    """``(row, record)`` pairs from a JSON array, JSON Lines or CSV file.

    Rows are 1-based: the line of a JSON Lines file, the element of a JSON array, the record
    of a CSV file. With ``on_error="skip"``, malformed JSON lines and CSV rows with an
    unreadable list cell are appended to ``skipped``.
    """
    check_on_error(on_error)
    skipped = [] if skipped is None else skipped
    if path.lower().endswith(".csv"):
        return _csv_records(path, on_error, skipped)
    text = read_text(path)
    if not text.strip():
        raise PredictiveBenchError("file is empty", file=path, kind="json")
    if text.lstrip().startswith("["):
        data = parse_json(text, path)
        return list(enumerate(data, start=1))
    return _json_lines(text, path, on_error, skipped)


# ---------------------------------------------------------------------------- validation

def _fail(message: str, path: str, row: Any, field: Optional[str] = None) -> None:
    raise PredictiveBenchError(message, file=path, row=row, field=field, kind="field")


def _text(record: Dict[str, Any], field: str, path: str, row: Any,
          required: bool = True) -> Optional[str]:
    if field not in record or record[field] is None:
        if required:
            _fail("missing field", path, row, field)
        return None
    value = record[field]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        _fail(f"expected text, found {type(value).__name__}", path, row, field)
    return str(value)


def _section_numbers(record: Dict[str, Any], field: str, n_sections: int, path: str,
                     row: Any) -> List[int]:
    value = record.get(field, [])
    if value is None:
        value = []
    if not isinstance(value, list):
        _fail(f"expected a list of section numbers, found {type(value).__name__}", path, row,
              field)
    numbers = []
    for element in value:
        if isinstance(element, str) and element.strip().lstrip("+").isdigit():
            element = int(element)
        if isinstance(element, float) and element.is_integer():
            element = int(element)
        if isinstance(element, bool) or not isinstance(element, int):
            _fail(f"section numbers must be whole numbers, found {element!r}", path, row, field)
        if element < 1:
            _fail(f"section numbers start at 1, found {element}", path, row, field)
        if element > n_sections:
            _fail(f"section {element} points past the last section ({n_sections})", path, row,
                  field)
        numbers.append(element)
    return numbers


def sections_content(steps: List[str]) -> str:
    """DeltaBench's ``sections_content``: ``section1: ...`` blocks separated by blank lines."""
    return "\n\n\n".join(f"section{i}: {step}" for i, step in enumerate(steps, start=1))


def first_error_label(error_sections: Iterable[int]) -> int:
    """0-based index of the first wrong step from 1-based section numbers, -1 when none."""
    numbers = list(error_sections)
    return min(numbers) - 1 if numbers else -1


def _record_head(record: Any, problem_field: str, path: str, row: int) -> Tuple[str, str, str]:
    """A record's id, the row label errors use from here on, and its problem text."""
    if not isinstance(record, dict):
        _fail(f"expected an object, found {type(record).__name__}", path, row)
    record_id = _text(record, "id", path, row)
    where = f"{row} (id {record_id})"
    return record_id, where, _text(record, problem_field, path, where)


def _non_empty_list(record: Dict[str, Any], field: str, path: str, where: str) -> List[Any]:
    value = record.get(field)
    if not isinstance(value, list) or not value:
        _fail(f"{field} must be a non-empty list", path, where, field)
    return value


def flatten_deltabench_record(record: Any, path: str, row: int,
                              count_unuseful: bool = False) -> Dict[str, Any]:
    """One DeltaBench record as a task-table row."""
    record_id, where, problem = _record_head(record, "question", path, row)
    sections = _non_empty_list(record, "sections", path, where)
    steps = []
    for number, section in enumerate(sections, start=1):
        field = f"sections[{number}].content"
        if not isinstance(section, dict) or "content" not in section:
            _fail("section has no content", path, where, field)
        content = section["content"]
        if not isinstance(content, str) or not content.strip():
            _fail("section content is empty", path, where, field)
        steps.append(content)
    errors = _section_numbers(record, DELTABENCH_LISTS[0], len(steps), path, where)
    unuseful = _section_numbers(record, DELTABENCH_LISTS[1], len(steps), path, where)
    label = first_error_label(errors + unuseful if count_unuseful else errors)
    content = record.get("sections_content")
    if content is None or (isinstance(content, str) and not content.strip()):
        content = sections_content(steps)
    elif not isinstance(content, str):
        _fail(f"expected text, found {type(content).__name__}", path, where, "sections_content")
    return {
        "id": record_id,
        "problem": problem,
        "steps": steps,
        "label": label,
        "task_l1": _text(record, "task_l1", path, where, required=False) or "unknown",
        "task_l2": _text(record, "task_l2", path, where, required=False),
        "origin": _text(record, "origin", path, where, required=False),
        "generator": None,
        "final_answer_correct": _optional_flag(record.get("final_correct"), path, where,
                                               "final_correct"),
        "error_sections": errors,
        "unuseful_sections": unuseful,
        "sections_content": content,
        "split": None,
    }


def _optional_flag(value: Any, path: str, row: Any, field: str) -> Optional[bool]:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "0", "1"):
        return value.strip().lower() in ("true", "1")
    _fail(f"expected true/false, found {value!r}", path, row, field)
    return None


def flatten_processbench_record(record: Any, path: str, row: int, split: str) -> Dict[str, Any]:
    """One ProcessBench record ``{id, generator, problem, steps, final_answer_correct, label}``."""
    record_id, where, problem = _record_head(record, "problem", path, row)
    steps = _non_empty_list(record, "steps", path, where)
    for number, step in enumerate(steps):
        if not isinstance(step, str) or not step.strip():
            _fail(f"step {number} is empty", path, where, f"steps[{number}]")
    label = record.get("label")
    if isinstance(label, float) and label.is_integer():
        label = int(label)
    if isinstance(label, bool) or not isinstance(label, int):
        _fail(f"label must be a whole number, found {label!r}", path, where, "label")
    if label < -1 or label >= len(steps):
        _fail(f"label {label} points past the last step (0 to {len(steps) - 1}, or -1)", path,
              where, "label")
    return {
        "id": record_id,
        "problem": problem,
        "steps": list(steps),
        "label": label,
        "task_l1": split,
        "task_l2": None,
        "origin": None,
        "generator": _text(record, "generator", path, where, required=False),
        "final_answer_correct": _optional_flag(record.get("final_answer_correct"), path, where,
                                               "final_answer_correct"),
        "error_sections": None,
        "unuseful_sections": None,
        "sections_content": None,
        "split": split,
    }


# ---------------------------------------------------------------------------- flattening

def to_table(rows: List[Dict[str, Any]]) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame({name: [] for name in COLUMNS})
    return pd.DataFrame(rows, columns=COLUMNS).astype({"label": "int64"}, copy=False)


def flatten_records(records: List[Record], flatten: Any, path: str, on_error: str,
                    skipped: Skipped) -> List[Dict[str, Any]]:
    rows, seen = [], {}
    for row, record in records:
        try:
            flat = flatten(record, path, row)
            if flat["id"] in seen:
                raise PredictiveBenchError(f"duplicate id '{flat['id']}' (first at row "
                                           f"{seen[flat['id']]})", file=path, row=row,
                                           field="id", kind="duplicate_id")
        except PredictiveBenchError as problem:
            if on_error == "error":
                raise
            skipped.append(problem)
            continue
        seen[flat["id"]] = row
        rows.append(flat)
    return rows


def prepare_deltabench(source: str, count_unuseful: bool = False,
                       on_error: str = "error") -> pd.DataFrame:
    """A DeltaBench release (JSON Lines, JSON array or CSV) as a ``processbench`` table.

    ``label`` is ``min(reason_error_section_numbers) - 1``, or -1 when that list is empty;
    ``count_unuseful=True`` counts ``reason_unuseful_section_numbers`` as errors too.
    ``on_error="skip"`` leaves out bad records and reports them on stderr.
    """
    check_on_error(on_error)
    skipped: Skipped = []
    records = read_records(source, on_error, skipped)
    rows = flatten_records(
        records, lambda r, p, n: flatten_deltabench_record(r, p, n, bool(count_unuseful)),
        source, on_error, skipped)
    report_skipped(skipped, source)
    return to_table(rows)


def split_name(source: str) -> str:
    """``gsm8k`` for ``.../gsm8k.json``: ProcessBench names its files after their split."""
    base = os.path.basename(source)
    for ext in (".jsonl", ".json", ".csv"):
        if base.lower().endswith(ext):
            return base[: -len(ext)]
    return base


def _split_names(sources: List[str], split: Union[None, str, Sequence[str]]) -> List[str]:
    """One split name per file: ``split`` (a name per file), else each file's stem."""
    if split is None:
        names = [split_name(source) for source in sources]
    else:
        names = [split] if isinstance(split, str) else list(split)
        if len(names) != len(sources) or not all(isinstance(n, str) and n for n in names):
            raise PredictiveBenchError(
                f"split must give one non-empty name per file ({len(sources)})",
                field="split", kind="argument")
    for i, name in enumerate(names):
        if name in names[:i]:
            raise PredictiveBenchError(f"split '{name}' is named twice", file=sources[i],
                                       field="split", kind="argument")
    return names


def _check_ids_across(tables: List[Tuple[str, List[Dict[str, Any]]]]) -> None:
    """Ids stay unique when splits are stacked; a repeat names both files."""
    first: Dict[str, str] = {}
    for source, rows in tables:
        for row, flat in enumerate(rows, start=1):
            if flat["id"] in first:
                raise PredictiveBenchError(
                    f"duplicate id '{flat['id']}' (also in {first[flat['id']]})", file=source,
                    row=row, field="id", kind="duplicate_id")
            first[flat["id"]] = source


def prepare_processbench(source: Union[str, Sequence[str]],
                         split: Union[None, str, Sequence[str]] = None,
                         on_error: str = "error") -> pd.DataFrame:
    """ProcessBench splits (JSON array, JSON Lines or CSV, one file each) as one table.

    ``source`` is a file or a list of files, stacked in that order; ``split`` and
    ``task_l1`` hold each file's split, by default the file name without its extension
    (``gsm8k``, ``math``, ``olympiadbench``, ``omnimath`` for the released files).
    """
    check_on_error(on_error)
    sources = [source] if isinstance(source, str) else list(source)
    if not sources or not all(isinstance(s, str) for s in sources):
        raise PredictiveBenchError("source must be a file or a non-empty list of files",
                                   field="source", kind="argument")
    tables = []
    for path, name in zip(sources, _split_names(sources, split)):
        skipped: Skipped = []
        records = read_records(path, on_error, skipped)
        rows = flatten_records(
            records, lambda r, p, n, name=name: flatten_processbench_record(r, p, n, name),
            path, on_error, skipped)
        report_skipped(skipped, path)
        tables.append((path, rows))
    _check_ids_across(tables)
    return to_table([row for _, rows in tables for row in rows])


def add_deltabench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--count-unuseful", dest="count_unuseful", action="store_true",
                        help="count reason_unuseful_section_numbers as errors for the label")
    parser.add_argument("--on-error", dest="on_error", choices=ON_ERROR, default="error",
                        help="stop at a bad record, or skip it and report it on stderr")


def add_processbench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", dest="split", action="append", default=None,
                        help="the split name stored in split and task_l1, once per file "
                             "(default: each file's name)")
    parser.add_argument("--on-error", dest="on_error", choices=ON_ERROR, default="error",
                        help="stop at a bad record, or skip it and report it on stderr")


PREPARERS = register(
    Preparer("deltabench", "processbench", prepare_deltabench,
             add_arguments=add_deltabench_arguments,
             help="a DeltaBench release (JSON Lines, JSON array or CSV)"),
    Preparer("processbench", "processbench", prepare_processbench,
             add_arguments=add_processbench_arguments,
             help="a ProcessBench split (JSON array, JSON Lines or CSV)",
             multiple_sources=True)
)
