import json
from pathlib import Path

import pandas as pd
import pytest

from predictivebench import PredictiveBenchError, load_schema, table_columns, validate_table
from predictivebench.registry import get_preparer, registered
from predictivebench.tables import parquet_engine_available, write_table

REPO = Path(__file__).resolve().parents[2]


def futurex_row(**overrides):
    row = {"id": "a", "input": "q", "target": "Yes", "level": 1, "std": None, "end_time": None,
           "additional_values": None, "description": None, "answer": None, "has_answer": False}
    row.update(overrides)
    return row


def test_validate_accepts_a_good_table_and_orders_columns():
    df = pd.DataFrame([futurex_row()])
    df = df[list(reversed(df.columns))]
    out = validate_table(df, "futurex")
    assert list(out.columns) == [c["name"] for c in load_schema("futurex")["columns"]]


def test_validate_names_the_row_and_field_of_a_wrong_type():
    df = pd.DataFrame([futurex_row(), futurex_row(id="b", level="two")])
    with pytest.raises(PredictiveBenchError) as error:
        validate_table(df, "futurex", file="t.json")
    assert error.value.row == 2 and error.value.field == "level"
    assert "t.json" in str(error.value)


def test_validate_rejects_missing_columns_and_duplicate_ids():
    with pytest.raises(PredictiveBenchError, match="missing column"):
        validate_table(pd.DataFrame([{"id": "a"}]), "futurex")
    with pytest.raises(PredictiveBenchError, match="duplicate id"):
        validate_table(pd.DataFrame([futurex_row(), futurex_row()]), "futurex")


def test_table_columns_is_json_with_nulls():
    text = table_columns(pd.DataFrame([futurex_row(std=1.5)]), "futurex")
    parsed = json.loads(text)
    assert parsed["columns"]["std"] == [1.5]
    assert parsed["columns"]["answer"] == [None]


def test_write_table_without_engine_says_so(tmp_path):
    if parquet_engine_available():
        out = tmp_path / "t.parquet"
        write_table(pd.DataFrame([futurex_row()]), "futurex", str(out))
        assert out.exists()
        return
    with pytest.raises(PredictiveBenchError, match="pyarrow") as error:
        write_table(pd.DataFrame([futurex_row()]), "futurex", str(tmp_path / "t.parquet"))
    assert error.value.kind == "dependency"


def test_unknown_benchmark_is_a_clear_error():
    with pytest.raises(PredictiveBenchError, match="unknown benchmark"):
        get_preparer("nope")
    assert registered()["deltabench"] == "processbench"
    assert set(registered()) >= {"futurex", "processbench", "deltabench", "probsem", "dsbench"}


def test_pyarrow_writes_typed_empty_lists_and_the_benchmark(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = {"id": "a", "problem": "p", "steps": ["s1", "s2"], "label": -1, "task_l1": "math",
           "task_l2": None, "origin": None, "generator": None, "final_answer_correct": None,
           "error_sections": [], "unuseful_sections": None, "sections_content": None}
    out = tmp_path / "t.parquet"
    write_table(pd.DataFrame([row, dict(row, id="b")]), "processbench", str(out))
    table = pq.read_table(out)
    assert table.schema.field("error_sections").type == pa.list_(pa.int32())
    assert table.schema.field("label").type == pa.int32()
    assert table.schema.metadata[b"predictivebench.benchmark"] == b"processbench"
    assert table.column("error_sections").to_pylist() == [[], []]
    assert not list(tmp_path.glob("*.tmp-*"))


def test_validate_names_non_finite_doubles_and_nul_characters():
    df = pd.DataFrame([futurex_row(), futurex_row(id="b", std=float("inf"))])
    with pytest.raises(PredictiveBenchError, match="not a finite number") as error:
        validate_table(df, "futurex", file="t.parquet")
    assert (error.value.row, error.value.field, error.value.kind) == (2, "std", "schema")
    # NaN in a double column is a missing value, as pandas writes one
    assert validate_table(pd.DataFrame([futurex_row(std=float("nan"))]), "futurex") is not None
    with pytest.raises(PredictiveBenchError, match="NUL character") as error:
        validate_table(pd.DataFrame([futurex_row(input="a\x00b")]), "futurex")
    assert (error.value.row, error.value.field) == (1, "input")


def dsbench_row(**overrides):
    row = {"id": "c1_q1", "input": "p", "target": "A", "target_type": "letter",
           "answer_json": '"A"', "competition_id": "c1", "competition_name": None, "year": None,
           "question_name": "q1", "question_index": 1, "introduction": "i", "question": "q",
           "workbook_chars": 0, "workbook_files": ["book.xlsx"], "image_paths": ["c1/a.png"],
           "image_used": "c1/a.png", "competition_dir": "c1"}
    row.update(overrides)
    return row


@pytest.mark.parametrize("field, value", [
    ("competition_dir", ".."), ("competition_dir", "/etc"), ("competition_dir", "a/b"),
    ("workbook_files", ["ok.xlsx", "../secret.xlsx"]), ("workbook_files", ["/tmp/x.xlsx"]),
    ("image_used", "c1/../../x.png"), ("image_used", "/etc/x.png"), ("image_used", "c2/a.png"),
    ("image_paths", ["c1/a.png", "c1/sub/b.png"]),
])
def test_validate_refuses_dsbench_names_that_leave_the_data_folder(field, value):
    df = pd.DataFrame([dsbench_row(), dsbench_row(id="c1_q2", **{field: value})])
    with pytest.raises(PredictiveBenchError) as error:
        validate_table(df, "dsbench", file="shared.parquet")
    assert (error.value.row, error.value.field, error.value.kind) == (2, field, "path")
    assert error.value.file == "shared.parquet"


def test_validate_accepts_dsbench_rows_without_images():
    df = pd.DataFrame([dsbench_row(image_used=None, image_paths=[], workbook_files=[])])
    assert len(validate_table(df, "dsbench")) == 1
