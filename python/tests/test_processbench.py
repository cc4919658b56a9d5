"""DeltaBench and ProcessBench flatteners: labels, list parsing, bad input."""
import csv
import json
import os
from pathlib import Path

import pytest

from predictivebench import PredictiveBenchError, prepare
from predictivebench.processbench import (
    first_error_label, parse_list_cell, sections_content, split_name,
)

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference"
if not REFERENCE.exists():
    REFERENCE = Path("/work/shared/reference")


def delta_record(id_="d1", errors=(2,), unuseful=(), n=3, **extra):
    record = {
        "id": id_, "origin": "made-up", "task_l1": "math", "task_l2": "Algebra",
        "question": "What is 2 + 2?",
        "sections": [{"start": i, "end": i, "description": "", "content": f"Step {i}."}
                     for i in range(1, n + 1)],
        "reason_error_section_numbers": list(errors),
        "reason_unuseful_section_numbers": list(unuseful),
        "final_correct": 0,
    }
    record.update(extra)
    return record


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def pb_record(id_="gsm8k-0", label=1, steps=("a", "b", "c")):
    return {"id": id_, "generator": "m", "problem": "p", "steps": list(steps),
            "final_answer_correct": False, "label": label}


def test_deltabench_labels_are_first_error_minus_one(tmp_path):
    src = write_lines(tmp_path / "d.jsonl", [
        delta_record("a", errors=[3, 2]), delta_record("b", errors=[]),
        delta_record("c", errors=[3], unuseful=[1]),
    ])
    table = prepare("deltabench", src)
    assert table["label"].tolist() == [1, -1, 2]
    assert table["steps"][0] == ["Step 1.", "Step 2.", "Step 3."]
    assert table["error_sections"][0] == [3, 2]
    assert table["sections_content"][0] == "section1: Step 1.\n\n\nsection2: Step 2.\n\n\n" \
                                           "section3: Step 3."
    counted = prepare("deltabench", src, count_unuseful=True)
    assert counted["label"].tolist() == [1, -1, 0]


def test_deltabench_csv_lists_are_parsed_as_data(tmp_path):
    path = tmp_path / "d.csv"
    sections = [{"content": "One."}, {"content": "Two, with 'quotes'."}]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "sections", "reason_error_section_numbers",
                         "reason_unuseful_section_numbers", "task_l1"])
        writer.writerow(["x", "Q?", repr(sections), "[2]", "[]", "code"])
        writer.writerow(["y", "Q?", json.dumps(sections), "[]", "", "code"])
    table = prepare("deltabench", str(path))
    assert table["steps"][0] == ["One.", "Two, with 'quotes'."]
    assert table["label"].tolist() == [1, -1]
    with pytest.raises(PredictiveBenchError) as info:
        parse_list_cell("__import__('os').system('echo hi')", "f.csv", 3, "sections")
    assert info.value.row == 3 and info.value.field == "sections"


@pytest.mark.parametrize("record, field, message", [
    (delta_record(sections=[{"content": "ok"}, {"start": 2}]), "sections[2].content",
     "no content"),
    (delta_record(sections=[{"content": "ok"}, {"content": "  "}]), "sections[2].content",
     "empty"),
    (delta_record(errors=[4], n=3), "reason_error_section_numbers", "past the last section"),
    (delta_record(errors=[0]), "reason_error_section_numbers", "start at 1"),
    (delta_record(sections=[]), "sections", "non-empty"),
])
def test_deltabench_bad_records_name_file_row_field(tmp_path, record, field, message):
    src = write_lines(tmp_path / "bad.jsonl", [delta_record("ok"), record])
    with pytest.raises(PredictiveBenchError) as info:
        prepare("deltabench", src)
    assert info.value.file == src
    assert str(info.value.row).startswith("2")
    assert info.value.field == field
    assert message in info.value.message


def test_malformed_line_errors_or_is_skipped_and_reported(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(delta_record("a")) + "\n{not json\n"
                    + json.dumps(delta_record("b", errors=[9])) + "\n"
                    + json.dumps(delta_record("c")) + "\n", encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("deltabench", str(path))
    assert info.value.row == 2 and info.value.kind == "json"
    table = prepare("deltabench", str(path), on_error="skip")
    assert table["id"].tolist() == ["a", "c"]
    err = capsys.readouterr().err
    assert "skipped 2 record(s)" in err
    assert "row 2" in err and "row 3 (id b)" in err


def test_csv_unreadable_list_cell_errors_or_is_skipped_and_reported(tmp_path, capsys):
    path = tmp_path / "math.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "problem", "steps", "label"])
        writer.writerow(["a", "1 + 1?", json.dumps(["1 + 1 = 2.", "So 2."]), "-1"])
        writer.writerow(["b", "2 + 2?", "[unclosed", "-1"])
        writer.writerow(["c", "3 + 3?", repr(["3 + 3 = 7.", "So 7."]), "0"])
    with pytest.raises(PredictiveBenchError) as info:
        prepare("processbench", str(path))
    assert info.value.row == 2 and info.value.field == "steps"
    table = prepare("processbench", str(path), on_error="skip")
    assert table["id"].tolist() == ["a", "c"]
    assert table["label"].tolist() == [-1, 0]
    err = capsys.readouterr().err
    assert "skipped 1 record(s)" in err
    assert "row 2" in err and "steps" in err


def test_processbench_labels_splits_and_bad_input(tmp_path):
    path = tmp_path / "math.json"
    path.write_text(json.dumps([pb_record("m-0", 1), pb_record("m-1", -1)]), encoding="utf-8")
    table = prepare("processbench", str(path))
    assert table["task_l1"].tolist() == ["math", "math"]
    assert table["label"].tolist() == [1, -1]
    assert table["generator"].tolist() == ["m", "m"]
    assert prepare("processbench", str(path), split="x")["task_l1"].tolist() == ["x", "x"]
    lines = write_lines(tmp_path / "olympiad.jsonl", [pb_record("o-0", 3)])
    with pytest.raises(PredictiveBenchError, match="past the last step") as info:
        prepare("processbench", lines)
    assert info.value.field == "label" and str(info.value.row).startswith("1")
    empty = write_lines(tmp_path / "e.jsonl", [pb_record("e-0", 0, steps=("a", ""))])
    with pytest.raises(PredictiveBenchError, match="step 1 is empty"):
        prepare("processbench", empty)
    dup = write_lines(tmp_path / "d.jsonl", [pb_record("z"), pb_record("z")])
    with pytest.raises(PredictiveBenchError, match="duplicate id"):
        prepare("processbench", dup)


def test_helpers():
    assert first_error_label([]) == -1
    assert first_error_label([5, 3]) == 2
    assert sections_content(["a", "b"]) == "section1: a\n\n\nsection2: b"
    assert split_name("/x/olympiadbench.json") == "olympiadbench"
    assert parse_list_cell("[1, 2]", "f", 1, "x") == [1, 2]
    assert parse_list_cell("", "f", 1, "x") == []


def test_reference_files_convert_with_expected_labels():
    delta = REFERENCE / "deltabench" / "Deltabench_v1_examples.jsonl"
    gsm8k = REFERENCE / "processbench" / "gsm8k.json"
    if not (delta.exists() and gsm8k.exists()):
        pytest.skip(f"reference files not found under {REFERENCE}: conversion not checked")
    table = prepare("deltabench", str(delta))
    assert len(table) == 9
    assert table["label"].tolist() == [6, 6, 13, 1, 15, 1, 1, 3, 8]
    assert set(table["task_l1"]) == {"math"}
    raw = [json.loads(line) for line in delta.read_text(encoding="utf-8").splitlines()]
    assert table["sections_content"].tolist() == [r["sections_content"] for r in raw]
    table = prepare("processbench", str(gsm8k))
    assert len(table) == 400
    assert int((table["label"] != -1).sum()) == 207
    assert int((table["label"] == -1).sum()) == 193
    assert set(table["task_l1"]) == {"gsm8k"}


def test_deltabench_json_array_and_skipped_duplicates(tmp_path, capsys):
    path = tmp_path / "d.json"
    path.write_text(json.dumps([delta_record("a"), delta_record("a"), delta_record("b", errors=[])]),
                    encoding="utf-8")
    with pytest.raises(PredictiveBenchError, match="duplicate id") as info:
        prepare("deltabench", str(path))
    assert info.value.row == 2
    table = prepare("deltabench", str(path), on_error="skip")
    assert table["id"].tolist() == ["a", "b"]
    assert table["label"].tolist() == [1, -1]
    assert "duplicate id 'a'" in capsys.readouterr().err
    with pytest.raises(PredictiveBenchError, match="on_error"):
        prepare("deltabench", str(path), on_error="ignore")


def split_files(tmp_path, sizes):
    """One made-up ProcessBench file per split, ids ``<split>-<k>``, labels 1, -1, 1, ..."""
    paths = []
    for split, n in sizes.items():
        records = [pb_record(f"{split}-{k}", 1 if k % 2 == 0 else -1) for k in range(n)]
        path = tmp_path / f"{split}.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_several_splits_make_one_table_with_a_split_column(tmp_path):
    paths = split_files(tmp_path, {"math": 3, "olympiadbench": 2, "omnimath": 1})
    table = prepare("processbench", paths)
    assert table["split"].tolist() == ["math"] * 3 + ["olympiadbench"] * 2 + ["omnimath"]
    assert table["task_l1"].tolist() == table["split"].tolist()
    assert table["id"].tolist()[2:4] == ["math-2", "olympiadbench-0"]
    assert table["label"].tolist() == [1, -1, 1, 1, -1, 1]
    # one file keeps its behaviour, with the split column filled
    assert prepare("processbench", paths[0])["split"].tolist() == ["math"] * 3
    named = prepare("processbench", paths[:2], split=["a", "b"])
    assert named["split"].tolist() == ["a"] * 3 + ["b"] * 2
    with pytest.raises(PredictiveBenchError, match="one non-empty name per file"):
        prepare("processbench", paths, split=["a", "b"])
    with pytest.raises(PredictiveBenchError, match="named twice"):
        prepare("processbench", paths[:2], split=["a", "a"])
    # DeltaBench rows have no split
    delta = write_lines(tmp_path / "d.jsonl", [delta_record("a")])
    assert prepare("deltabench", delta)["split"].tolist() == [None]
    with pytest.raises(PredictiveBenchError, match="reads one file") as info:
        prepare("deltabench", [delta, delta])
    assert info.value.field == "source"


def test_an_id_repeated_across_splits_names_both_files(tmp_path):
    first, second = split_files(tmp_path, {"math": 2, "gsm8k": 1})
    Path(second).write_text(json.dumps([pb_record("math-1")]), encoding="utf-8")
    with pytest.raises(PredictiveBenchError, match="duplicate id 'math-1'") as info:
        prepare("processbench", [first, second])
    assert info.value.file == second and info.value.row == 1
    assert first in str(info.value)


def test_reference_gsm8k_stacks_with_the_other_splits(tmp_path):
    gsm8k = REFERENCE / "processbench" / "gsm8k.json"
    if not gsm8k.exists():
        pytest.skip(f"reference files not found under {REFERENCE}")
    others = split_files(tmp_path, {"math": 4, "olympiadbench": 2, "omnimath": 3})
    table = prepare("processbench", [str(gsm8k)] + others)
    assert len(table) == 409
    assert table.groupby("split", sort=False).size().to_dict() == {
        "gsm8k": 400, "math": 4, "olympiadbench": 2, "omnimath": 3}
    gsm = table[table["split"] == "gsm8k"]
    assert int((gsm["label"] != -1).sum()) == 207
    assert table["id"].is_unique


def test_cli_stacks_several_split_files(tmp_path):
    import subprocess
    import sys
    from predictivebench.tables import parquet_engine_available
    paths = split_files(tmp_path, {"math": 2, "omnimath": 1})
    out = tmp_path / "pb.parquet"
    python_dir = Path(__file__).resolve().parents[2] / "inst" / "python"
    run = subprocess.run([sys.executable, "-m", "predictivebench", "prepare", "processbench",
                          *paths, str(out)], cwd=python_dir, capture_output=True, text=True)
    if parquet_engine_available():
        assert run.returncode == 0, run.stderr
        assert "wrote 3 rows" in run.stdout
        import pandas as pd
        assert pd.read_parquet(out)["split"].tolist() == ["math", "math", "omnimath"]
    else:
        assert run.returncode == 2 and "pyarrow" in run.stderr
    bad = subprocess.run([sys.executable, "-m", "predictivebench", "prepare", "processbench",
                          *paths, str(out), "--split", "x"], cwd=python_dir,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "one non-empty name per file" in bad.stderr


def test_a_table_without_the_optional_split_column_validates(tmp_path):
    from predictivebench import validate_table
    path = write_lines(tmp_path / "d.jsonl", [delta_record("a")])
    old = prepare("deltabench", path).drop(columns=["split"])
    checked = validate_table(old, "processbench")
    assert checked["split"].tolist() == [None]
    assert list(checked.columns)[-1] == "split"
    with pytest.raises(PredictiveBenchError, match="missing column"):
        validate_table(old.drop(columns=["label"]), "processbench")
