"""EloBench's ``questions.csv`` (column ``question``, repeats allowed) -> the ``arena`` task table.

One row per unique question, in order of first appearance, with how often it occurs and the
1-based data row of its first occurrence. The CSV is read as pandas writes it (optionally with
a leading unnamed index column). Every value is a question, the empty string included; only
blank lines (which are no rows, as in pandas and R) are skipped.
"""
from __future__ import annotations

import csv
import io
from typing import Any, Dict, List, Tuple

import pandas as pd

from .errors import PredictiveBenchError
from .readers import read_text
from .registry import Preparer

COLUMNS = ["id", "input", "target", "occurrences", "first_row"]


def read_questions(path: str) -> List[Tuple[int, str]]:
    """``(row, question)`` pairs from a questions CSV (row: 1-based, blank lines not counted)."""
    text = read_text(path)
    if not text.strip():
        raise PredictiveBenchError("file is empty", file=path, kind="csv")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as error:
        raise PredictiveBenchError(f"invalid CSV: {error}", file=path, kind="csv") from None
    header = rows[0]
    if "question" not in header:
        raise PredictiveBenchError("missing column 'question'", file=path, field="question",
                                   kind="schema")
    column = header.index("question")
    out: List[Tuple[int, str]] = []
    number = 0
    for row in rows[1:]:
        if not row:
            continue  # a blank line is no row, as in pandas and R
        number += 1
        if len(row) != len(header):
            raise PredictiveBenchError(
                f"expected {len(header)} fields, found {len(row)}", file=path, row=number,
                kind="csv")
        out.append((number, row[column]))
    return out


def flatten_questions(rows: List[Tuple[int, str]]) -> pd.DataFrame:
    """Unique questions in order of first appearance, with counts and first rows."""
    first: Dict[str, int] = {}
    counts: Dict[str, int] = {}
    for number, question in rows:
        if question in first:
            counts[question] += 1
        else:
            first[question] = number
            counts[question] = 1
    records: List[Dict[str, Any]] = [
        {"id": f"q{index}", "input": question, "target": None,
         "occurrences": counts[question], "first_row": row}
        for index, (question, row) in enumerate(first.items(), start=1)
    ]
    if not records:
        return pd.DataFrame({name: [] for name in COLUMNS})
    return pd.DataFrame(records, columns=COLUMNS).astype(
        {"occurrences": "int64", "first_row": "int64"}, copy=False)


def prepare_arena(source: str) -> pd.DataFrame:
    """A dataset's ``questions.csv`` as the arena task table of unique questions."""
    return flatten_questions(read_questions(source))


PREPARERS = {
    "arena": Preparer("arena", "arena", prepare_arena,
                      help="an arena dataset's questions.csv (column 'question')"),
}
