"""The shared readers: NUL bytes and NaN/Infinity are classed errors naming file, row and field,
for every flattener that reads through them (real files from ../shared/reference, corrupted in
a temporary folder, where they exist)."""
import json
import shutil
from pathlib import Path

import pytest

from predictivebench import PredictiveBenchError, prepare
from predictivebench.readers import iter_json_lines, parse_json, read_json_records, read_text

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO.parent / "shared" / "reference"
needs_reference = pytest.mark.skipif(not REFERENCE.is_dir(),
                                     reason="../shared/reference is absent")


def test_read_text_refuses_a_nul_byte_naming_its_line(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(b"first line\nsecond \x00line\n")
    with pytest.raises(PredictiveBenchError) as error:
        read_text(str(path))
    assert error.value.kind == "encoding"
    assert error.value.row == 2 and error.value.file == str(path)
    assert "NUL byte at line 2, column 8" in str(error.value)


def test_utf16_text_is_named_as_such(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes("hello".encode("utf-16-le"))
    with pytest.raises(PredictiveBenchError, match="UTF-16") as error:
        read_text(str(path))
    assert error.value.row == 1


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_parse_json_refuses_non_finite_numbers_naming_row_and_field(constant):
    text = '[\n {"id": "a", "Std": 1},\n {"id": "b", "Std": %s}\n]' % constant
    with pytest.raises(PredictiveBenchError) as error:
        parse_json(text, "set.json")
    assert error.value.kind == "json"
    assert (error.value.row, error.value.field) == (2, "Std")
    assert f"{constant} is not a number JSON allows (line 3)" in str(error.value)


def test_non_finite_in_nested_fields_and_objects_names_the_path():
    with pytest.raises(PredictiveBenchError) as error:
        parse_json('{"context": [{"expected": 0}, {"expected": NaN}]}', "suite.json")
    assert error.value.row is None and error.value.field == "context[2].expected"


def test_text_that_spells_nan_is_a_string_not_a_number():
    assert parse_json('[{"answer": "NaN", "b": "Infinity \\" NaN"}]', "f.json") == \
        [{"answer": "NaN", "b": 'Infinity " NaN'}]


def test_json_lines_name_the_line_and_skip_it_on_request():
    text = '{"a": 1}\n{"a": Infinity}\n{"a": 3}\n'
    with pytest.raises(PredictiveBenchError) as error:
        list(iter_json_lines(text, "f.jsonl"))
    assert (error.value.row, error.value.field) == (2, "a")
    skipped = []
    assert [row for row, _ in iter_json_lines(text, "f.jsonl", skipped.append)] == [1, 3]
    assert skipped[0].row == 2 and skipped[0].kind == "json"


def test_json_records_of_an_array(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('[{"label": 1}, {"label": -Infinity}]', encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        read_json_records(str(path))
    assert (error.value.row, error.value.field) == (2, "label")


@needs_reference
def test_real_futurex_file_with_infinity_names_the_item_and_field(tmp_path):
    source = (REFERENCE / "futurex" / "250915.json").read_text(encoding="utf-8")
    data = json.loads(source)
    row = next(i for i, item in enumerate(data, start=1) if item.get("Std") is not None)
    text = source.replace(f'"Std": {json.dumps(data[row - 1]["Std"])}', '"Std": Infinity', 1)
    path = tmp_path / "250915.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        prepare("futurex", str(path), duplicate_ids="suffix")
    assert (error.value.row, error.value.field, error.value.kind) == (row, "Std", "json")
    assert str(path) in str(error.value)


@needs_reference
def test_real_futurex_file_with_a_nul_byte_names_the_line(tmp_path):
    text = (REFERENCE / "futurex" / "250915.json").read_text(encoding="utf-8")
    path = tmp_path / "250915.json"
    path.write_text(text.replace('"level"', '"le\x00vel"', 1), encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        prepare("futurex", str(path), duplicate_ids="suffix")
    line = text[: text.index('"level"')].count("\n") + 1
    assert error.value.kind == "encoding" and error.value.row == line


@needs_reference
def test_real_processbench_and_deltabench_files_with_nan(tmp_path):
    gsm8k = tmp_path / "gsm8k.json"
    data = json.loads((REFERENCE / "processbench" / "gsm8k.json").read_text(encoding="utf-8"))
    data[4]["label"] = float("nan")
    gsm8k.write_text(json.dumps(data), encoding="utf-8")  # Python writes NaN
    with pytest.raises(PredictiveBenchError) as error:
        prepare("processbench", str(gsm8k))
    assert (error.value.row, error.value.field) == (5, "label")

    lines = (REFERENCE / "deltabench" / "Deltabench_v1_examples.jsonl") \
        .read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    record["level"] = float("inf")
    lines[2] = json.dumps(record)
    delta = tmp_path / "delta.jsonl"
    delta.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        prepare("deltabench", str(delta))
    assert (error.value.row, error.value.field) == (3, "level")


@needs_reference
def test_real_probsem_suite_with_nan_names_the_field(tmp_path):
    for name in ("test.txt", "test_A.json", "test_B.json"):
        shutil.copy(REFERENCE / "probsem" / name, tmp_path / name)
    suite = tmp_path / "test_B.json"
    data = json.loads(suite.read_text(encoding="utf-8"))
    data["context"][0]["expected"] = float("nan")
    suite.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", str(tmp_path / "test.txt"))
    assert error.value.file == str(suite) and error.value.field == "context[1].expected"
