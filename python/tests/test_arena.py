"""The arena flattener: questions.csv -> unique questions, and its errors."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from predictivebench.__main__ import main
from predictivebench.arena import prepare_arena
from predictivebench.errors import PredictiveBenchError
from predictivebench.registry import get_preparer
from predictivebench.tables import table_columns, validate_table

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "questions.csv") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_unique_questions_in_first_order(tmp_path):
    frame = pd.DataFrame({"question": ["b?", "a?", "b?", "multi\nline, \"quoted\"", "a?", "b?"]})
    path = str(tmp_path / "questions.csv")
    frame.to_csv(path)  # pandas' own layout, with the unnamed index column
    table = prepare_arena(path)
    assert table["input"].tolist() == ["b?", "a?", "multi\nline, \"quoted\""]
    assert table["occurrences"].tolist() == [3, 2, 1]
    assert table["first_row"].tolist() == [1, 2, 4]
    assert table["id"].tolist() == ["q1", "q2", "q3"]
    assert table["target"].isna().all()
    validate_table(table, "arena")


def test_empty_string_is_a_question_and_blank_lines_are_skipped(tmp_path):
    path = write(tmp_path, 'question\n""\n\nx\n\ny\n')
    table = prepare_arena(path)
    assert table["input"].tolist() == ["", "x", "y"]
    assert table["first_row"].tolist() == [1, 2, 3]


def test_missing_question_column_names_the_field(tmp_path):
    path = write(tmp_path, "prompt\nhello\n")
    with pytest.raises(PredictiveBenchError) as info:
        prepare_arena(path)
    assert info.value.field == "question"
    assert info.value.kind == "schema"


def test_ragged_row_names_the_row(tmp_path):
    path = write(tmp_path, "question,source\nhi,a\nthere\n")
    with pytest.raises(PredictiveBenchError) as info:
        prepare_arena(path)
    assert info.value.row == 2


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(PredictiveBenchError) as info:
        prepare_arena(str(tmp_path / "nope.csv"))
    assert info.value.kind == "missing_file"
    with pytest.raises(PredictiveBenchError):
        prepare_arena(write(tmp_path, "   \n"))


def test_header_only_gives_an_empty_valid_table(tmp_path):
    table = prepare_arena(write(tmp_path, "question\n"))
    assert len(table) == 0
    payload = json.loads(table_columns(table, "arena"))
    assert payload["columns"]["input"] == []


def test_registered_preparer_uses_the_arena_schema():
    assert get_preparer("arena").schema == "arena"


def test_shipped_sample(tmp_path):
    path = ROOT / "inst" / "extdata" / "arena" / "data" / "sample" / "questions.csv"
    table = prepare_arena(str(path))
    assert len(table) == 8
    assert table["occurrences"].sum() == 10


def test_cli_reports_errors_without_traceback(tmp_path, capsys):
    path = write(tmp_path, "prompt\nhello\n")
    code = main(["prepare", "arena", path, str(tmp_path / "out.parquet")])
    assert code == 2
    assert "question" in capsys.readouterr().err
