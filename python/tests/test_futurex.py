import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from predictivebench import PredictiveBenchError, prepare
from predictivebench.tables import parquet_engine_available

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "inst" / "python"  # the module's one copy
REFERENCE = REPO.parent / "shared" / "reference" / "futurex"


def item(**overrides):
    base = {"id": "q1", "prompt": "Will it rain?", "end_time": "1/1/26", "level": 1,
            "ground_truth": "Yes", "Std": None, "additional values": None, "Description": None}
    base.update(overrides)
    return base


def write(tmp_path, data, name="set.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_question_set_flattens_to_the_schema(tmp_path):
    path = write(tmp_path, [item(), item(id="q2", level=4, ground_truth="12.5", Std=2)])
    df = prepare("futurex", path)
    assert list(df["id"]) == ["q1", "q2"]
    assert list(df["level"]) == [1, 4]
    assert df["std"].isna().tolist() == [True, False]
    assert df["has_answer"].tolist() == [False, False]
    assert df["input"][0] == "Will it rain?"


def test_predictions_keep_answers_and_null_is_no_answer(tmp_path):
    path = write(tmp_path, [item(answer="\\boxed{Yes}"), item(id="q2", answer=None)])
    df = prepare("futurex", path)
    assert df["answer"].tolist()[0] == "\\boxed{Yes}"
    assert df["has_answer"].tolist() == [True, False]


@pytest.mark.parametrize("bad, field", [
    (item(level=5), "level"),
    (item(level="1"), "level"),
    (item(answer=3), "answer"),
    (item(Std="wide"), "Std"),
    ({k: v for k, v in item().items() if k != "ground_truth"}, "ground_truth"),
])
def test_bad_items_name_row_and_field(tmp_path, bad, field):
    path = write(tmp_path, [item(id="ok"), bad])
    with pytest.raises(PredictiveBenchError) as error:
        prepare("futurex", path)
    assert error.value.field == field
    assert str(error.value.row).startswith("2")
    assert error.value.file == path


def test_on_error_skip_leaves_out_bad_items_and_lists_them(tmp_path, capsys):
    path = write(tmp_path, [item(id="ok"), item(id="bad", level=5), item(id="ok2")])
    with pytest.raises(PredictiveBenchError):
        prepare("futurex", path)
    df = prepare("futurex", path, on_error="skip")
    assert df["id"].tolist() == ["ok", "ok2"]
    err = capsys.readouterr().err
    assert "skipped 1 item(s)" in err and "row 2" in err
    with pytest.raises(PredictiveBenchError, match="on_error"):
        prepare("futurex", path, on_error="ignore")


def test_duplicate_ids_error_or_suffix(tmp_path):
    path = write(tmp_path, [item(), item(ground_truth="No"), item(ground_truth="Yes")])
    with pytest.raises(PredictiveBenchError, match="duplicate id") as error:
        prepare("futurex", path)
    assert error.value.row == 2
    df = prepare("futurex", path, duplicate_ids="suffix")
    assert df["id"].tolist() == ["q1", "q1#2", "q1#3"]


def test_malformed_files(tmp_path):
    with pytest.raises(PredictiveBenchError, match="does not exist"):
        prepare("futurex", str(tmp_path / "none.json"))
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": "a",\n "level": }]')
    with pytest.raises(PredictiveBenchError, match="invalid JSON") as error:
        prepare("futurex", str(broken))
    assert error.value.row == 2
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(PredictiveBenchError, match="empty"):
        prepare("futurex", str(empty))
    latin = tmp_path / "latin.json"
    latin.write_bytes('[{"id": "caf\xe9"}]'.encode("latin-1"))
    with pytest.raises(PredictiveBenchError, match="UTF-8"):
        prepare("futurex", str(latin))
    with pytest.raises(PredictiveBenchError, match="JSON array"):
        prepare("futurex", write(tmp_path, {"id": "x"}, "object.json"))


def test_cli_reports_errors_without_traceback(tmp_path):
    bad = write(tmp_path, [item(level=9)])
    run = subprocess.run([sys.executable, "-m", "predictivebench", "prepare", "futurex", bad,
                          str(tmp_path / "o.parquet")], cwd=PYTHON_DIR, capture_output=True,
                         text=True)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "field 'level'" in run.stderr


def test_cli_writes_parquet_or_explains_missing_engine(tmp_path):
    good = write(tmp_path, [item()])
    out = tmp_path / "o.parquet"
    run = subprocess.run([sys.executable, "-m", "predictivebench", "prepare", "futurex", good,
                          str(out)], cwd=PYTHON_DIR, capture_output=True, text=True)
    if parquet_engine_available():
        assert run.returncode == 0 and out.exists()
    else:
        assert run.returncode == 2 and "pyarrow" in run.stderr and not out.exists()


@pytest.mark.skipif(not REFERENCE.exists(), reason="../shared/reference is not present")
def test_reference_question_set_loads_with_its_mangled_ids_made_unique():
    path = str(REFERENCE / "250915.json")
    df = prepare("futurex", path)
    assert len(df) == 53 and df["id"].is_unique
    assert sorted(df["level"].unique().tolist()) == [1, 2, 3, 4]
    mangled = df.index[df["id"].str.startswith("6.85147E+23#")].tolist()
    assert mangled == [1, 29]
    for i in mangled:
        digest = hashlib.sha256(df["input"][i].encode("utf-8")).hexdigest()[:8]
        assert df["id"][i] == "6.85147E+23#" + digest
    # The predictions file of the same questions gets the same ids.
    predictions = prepare("futurex", str(REFERENCE / "250915-random.json"))
    assert predictions["id"].tolist() == df["id"].tolist()


def test_mangled_ids_follow_the_prompt_not_the_position(tmp_path):
    a = item(id="6.85147E+23", prompt="Who wins?")
    b = item(id="6.85147E+23", prompt="Who loses?")
    forward = prepare("futurex", write(tmp_path, [a, b], "f.json"))
    backward = prepare("futurex", write(tmp_path, [b, a], "b.json"))
    alone = prepare("futurex", write(tmp_path, [b], "one.json"))
    digest = hashlib.sha256("Who wins?".encode("utf-8")).hexdigest()[:8]
    assert forward["id"][0] == "6.85147E+23#" + digest
    assert forward["id"].tolist() == backward["id"].tolist()[::-1]
    assert alone["id"][0] == forward["id"][1]
    # Ordinary ids, numbers included, are left as they are; real repeats still stop.
    plain = prepare("futurex", write(tmp_path, [item(id="6850000"), item(id=12)], "p.json"))
    assert plain["id"].tolist() == ["6850000", "12"]
    with pytest.raises(PredictiveBenchError, match="duplicate id"):
        prepare("futurex", write(tmp_path, [a, dict(a, ground_truth="B")], "d.json"))
