import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import Workbook

from predictivebench import MissingDependencyError, PredictiveBenchError, prepare
from predictivebench import dsbench

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "inst" / "python"  # the module's one copy
SAMPLE = REPO / "inst" / "extdata" / "dsbench"
REFERENCE = REPO.parent / "shared" / "reference" / "dsbench" / "data.json"
# Real .xlsb workbooks made by Excel (see the README there); read in place, never copied into
# the repository. Reading them needs pyxlsb, which is not installed everywhere: the tests that
# read them skip, saying so, where `import pyxlsb` fails.
XLSB_DIR = REPO.parent / "shared" / "reference" / "xlsb"
XLSB_FILES = ("any_sheets.xlsb", "date.xlsb", "issues.xlsb")
needs_xlsb = pytest.mark.skipif(not XLSB_DIR.is_dir(), reason="shared/reference/xlsb is absent")


def workbook(path, sheets):
    wb = Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(row)
    wb.save(path)


def competition(root, cid="c1", questions=("question1",), answers=("A",), files=None,
                intro="Intro text.\n", name="comp", year=2020, extra_lines=()):
    folder = root / "data" / cid
    folder.mkdir(parents=True, exist_ok=True)
    if intro is not None:
        (folder / "introduction.txt").write_text(intro, encoding="utf-8")
    for q in questions:
        (folder / f"{q}.txt").write_text(f"What about {q}?\n", encoding="utf-8")
    for fname, sheets in (files or {}).items():
        workbook(folder / fname, sheets)
    line = json.dumps({"id": cid, "name": name, "url": "", "txt": "",
                       "questions": list(questions), "answers": list(answers), "year": year})
    data = root / "data.json"
    previous = data.read_text(encoding="utf-8") + "\n" if data.exists() else ""
    data.write_text(previous + "\n".join(list(extra_lines) + [line]), encoding="utf-8")
    return folder


def independent_prompt(folder, introduction_name, question_name):
    """The original protocol, written out again with pandas' own read_excel + to_string."""
    names = sorted(n for n in os.listdir(folder)
                   if n.lower().endswith(("xlsx", "xlsb", "xlsm")) and "answer" not in n.lower())
    content = ""
    for n in names:
        engine = "pyxlsb" if n.lower().endswith("xlsb") else None
        sheets = pd.read_excel(os.path.join(folder, n), sheet_name=None, engine=engine)
        content += f"The excel file {n} is: " + "".join(
            f"Sheet name: {s}\n{df.to_string(index=False)}\n\n" for s, df in sheets.items())
    with open(os.path.join(folder, introduction_name)) as h:
        intro = h.read()
    with open(os.path.join(folder, question_name + ".txt")) as h:
        question = h.read()
    text = f"The workbook is detailed as follows. {content} \n" if content else ""
    text += f"The introduction is detailed as follows. \n {intro} \n"
    return text + f"The questions are detailed as follows. \n {question}"


def test_sample_prompts_match_pandas_byte_for_byte():
    table = prepare("dsbench", str(SAMPLE))
    records = dsbench.read_data_json(str(SAMPLE / "data.json"))
    assert list(table.id) == [f"{r['id']}_{q}" for _, r in records for q in r["questions"]]
    for row in table.itertuples():
        folder = SAMPLE / "data" / row.competition_id
        expected = independent_prompt(folder, "introduction.txt", row.question_name)
        assert row.input.encode("utf-8") == expected.encode("utf-8"), row.id


def test_sample_has_dates_nans_digits_and_no_answer_workbook():
    table = prepare("dsbench", str(SAMPLE))
    first = table.input[0]
    assert "2023-06-01" in first and "NaN" in first and "1.234568e+06" in first
    assert "9876543210123" in first
    for text in table.input:
        assert "SECRET-ANSWER-MARKER" not in text
        assert "Lemonade_Answers" not in text
    assert table.workbook_files[0] == ["lemonade.xlsx"]
    assert table.workbook_files[3] == ["Model.XLSM", "a_inputs.xlsx"]  # sorted by name
    # Two images: both recorded in name order, only the first is the one sent.
    assert table.image_paths[0] == ["00000101/chart.png", "00000101/stands.png"]
    assert table.image_used[0] == "00000101/chart.png"
    assert table.image_used[5] is None
    no_book = table[table.competition_id == "00000103"].input.iloc[0]
    assert no_book.startswith("The introduction is detailed as follows. \n ")
    assert table.workbook_chars[5] == 0
    assert table.workbook_chars[0] == len(first.split(" \nThe introduction")[0]) - len(
        "The workbook is detailed as follows. ")


def test_answers_keep_python_str_and_raw_json():
    table = prepare("dsbench", str(SAMPLE))
    by_id = table.set_index("id")
    assert by_id.loc["00000102_question2", "target"] == \
        "{'Q': 2, 'Year': 2030, 'Profit': 150000.25}"
    assert by_id.loc["00000102_question2", "target_type"] == "dict"
    assert json.loads(by_id.loc["00000102_question2", "answer_json"]) == {
        "Q": 2, "Year": 2030, "Profit": 150000.25}
    assert by_id.loc["00000101_question2", "target"] == "667"
    assert by_id.loc["00000101_question2", "target_type"] == "integer"
    assert by_id.loc["00000101_question1", "target_type"] == "letter"
    assert by_id.loc["00000102_question1", "target_type"] == "string"
    assert by_id.loc["00000101_question1", "year"] == 2099


def test_data_json_is_parsed_as_json_not_evaluated(tmp_path):
    competition(tmp_path, answers=("A",))
    data = tmp_path / "data.json"
    data.write_text(data.read_text() + "\n__import__('os').system('echo pwned')", encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "json" and info.value.row == 2


def test_last_line_without_newline_and_blank_lines(tmp_path):
    competition(tmp_path, "c1")
    competition(tmp_path, "c2")
    data = tmp_path / "data.json"
    data.write_text(data.read_text().replace("\n", "\n\n").rstrip("\n"), encoding="utf-8")
    assert list(prepare("dsbench", str(tmp_path)).id) == ["c1_question1", "c2_question1"]


def test_competition_without_questions_needs_no_folder(tmp_path):
    competition(tmp_path, "c1")
    data = tmp_path / "data.json"
    data.write_text(data.read_text() + "\n" + json.dumps(
        {"id": "ghost", "questions": [], "answers": []}), encoding="utf-8")
    assert len(prepare("dsbench", str(tmp_path))) == 1


def test_missing_question_file_names_competition_and_file(tmp_path):
    folder = competition(tmp_path, "c9", questions=("question1", "question2"), answers=("A", 1))
    (folder / "question2.txt").unlink()
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "missing_file"
    assert info.value.file.endswith("question2.txt")
    assert info.value.row == "1 (competition c9)"


def test_missing_introduction(tmp_path):
    competition(tmp_path, "c1")
    competition(tmp_path, "c3", intro=None)
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "missing_file"
    assert info.value.file.endswith("introduction.txt")
    # The row names the data.json line and the competition, as for a missing question file.
    assert info.value.row == "2 (competition c3)"
    assert "row 2 (competition c3)" in str(info.value)


def test_images_in_name_order_first_one_used(tmp_path):
    folder = competition(tmp_path, "c1")
    for name in ("b.png", "a.jpg", "notes.gif", "C.PNG"):
        (folder / name).write_bytes(b"not really an image")
    table = prepare("dsbench", str(tmp_path))
    assert table.image_paths[0] == ["c1/C.PNG", "c1/a.jpg", "c1/b.png"]  # sorted(), .gif out
    assert table.image_used[0] == "c1/C.PNG"


def test_missing_competition_folder(tmp_path):
    competition(tmp_path, "c1")
    data = tmp_path / "data.json"
    data.write_text(data.read_text() + "\n" + json.dumps(
        {"id": "c404", "questions": ["question1"], "answers": ["B"]}), encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "missing_file" and "c404" in str(info.value)


def test_count_mismatch(tmp_path):
    competition(tmp_path, "c1", questions=("question1", "question2"), answers=("A",))
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "count_mismatch" and "c1" in str(info.value)
    assert info.value.field == "answers"


@pytest.mark.parametrize("field,value", [("id", "../evil"), ("id", "/etc"), ("id", ".."),
                                         ("questions", ["../../secret"])])
def test_paths_cannot_escape(tmp_path, field, value):
    competition(tmp_path, "c1")
    record = {"id": "c2", "questions": ["question1"], "answers": ["A"]}
    record[field] = value
    data = tmp_path / "data.json"
    data.write_text(data.read_text() + "\n" + json.dumps(record), encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "path"


def test_symlink_out_of_folder_is_refused(tmp_path):
    folder = competition(tmp_path, "c1")
    outside = tmp_path / "outside.xlsx"
    workbook(outside, {"S": [["a"], [1]]})
    os.symlink(outside, folder / "linked.xlsx")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "path"


def test_competition_folder_linked_out_of_the_data_folder_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    real = competition(outside, "c1")
    competition(tmp_path / "root", "c1")
    target = tmp_path / "root" / "data" / "c1"
    shutil.rmtree(target)
    os.symlink(real, target)
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path / "root"))
    assert info.value.kind == "path" and info.value.field == "id"
    assert "competition c1" in str(info.value.row)


def test_nul_byte_in_a_question_file_names_the_file_and_line(tmp_path):
    folder = competition(tmp_path, "c1")
    (folder / "question1.txt").write_bytes(b"What is\n2 + \x002?\n")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "encoding" and info.value.file.endswith("question1.txt")
    assert "line 2" in str(info.value)


def test_corrupt_workbook_names_the_file(tmp_path):
    folder = competition(tmp_path, "c1")
    (folder / "broken.xlsx").write_bytes(b"PK\x03\x04 this is not a workbook")
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "workbook" and info.value.file.endswith("broken.xlsx")
    assert "c1" in str(info.value)
    assert "Traceback" not in str(info.value)


def test_password_protected_workbook(tmp_path):
    folder = competition(tmp_path, "c1")
    (folder / "locked.xlsx").write_bytes(dsbench.OLE_MAGIC + b"\x00" * 504)
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "workbook" and "password" in info.value.message


@needs_xlsb
def test_xlsb_workbooks_are_flattened_like_xlsx(tmp_path):
    pytest.importorskip("pyxlsb", reason="pyxlsb is not installed: .xlsb workbooks can't be read")
    folder = competition(tmp_path, "c1", files={"plain.xlsx": {"S": [["a", "b"], [1, 2]]}})
    for name in XLSB_FILES:
        shutil.copy(XLSB_DIR / name, folder / name)
    table = prepare("dsbench", str(tmp_path))
    assert table.workbook_files[0] == ["any_sheets.xlsb", "date.xlsb", "issues.xlsb",
                                       "plain.xlsx"]
    expected = independent_prompt(folder, "introduction.txt", "question1")
    assert table.input[0].encode("utf-8") == expected.encode("utf-8")
    text = table.input[0]
    # Every sheet, hidden and chart sheets too; dates stay Excel serial numbers, as pandas
    # reads them through pyxlsb; special characters come through as text.
    for sheet in ("Visible", "Hidden", "VeryHidden", "Chart", "datatypes", "spc_chrs"):
        assert f"Sheet name: {sheet}\n" in text
    assert "The excel file date.xlsb is: Sheet name: Sheet1\n" in text and "44197" in text
    assert "The excel file plain.xlsx is: " in text


def test_xlsb_without_pyxlsb_is_a_clear_error(tmp_path, monkeypatch):
    folder = competition(tmp_path, "c1")
    (folder / "binary.xlsb").write_bytes(b"PK\x03\x04")
    real = dsbench.importlib.util.find_spec
    monkeypatch.setattr(dsbench.importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyxlsb" else real(name, *a))
    with pytest.raises(MissingDependencyError) as info:
        prepare("dsbench", str(tmp_path))
    assert info.value.kind == "dependency" and info.value.file.endswith("binary.xlsb")
    assert "pip install pyxlsb" in info.value.message and "[xlsb]" in info.value.message


@needs_xlsb
def test_binary_workbook_under_another_name_without_pyxlsb(tmp_path, monkeypatch):
    # pandas picks pyxlsb from the content; without it the error still says what to install.
    folder = competition(tmp_path, "c1")
    shutil.copy(XLSB_DIR / "date.xlsb", folder / "renamed.xlsx")
    monkeypatch.setitem(sys.modules, "pyxlsb", None)  # import pyxlsb now fails
    with pytest.raises(MissingDependencyError) as info:
        prepare("dsbench", str(tmp_path), on_error="skip")
    assert info.value.kind == "dependency" and info.value.file.endswith("renamed.xlsx")
    assert "pip install pyxlsb" in info.value.message


def test_on_error_skip_records_and_reports(tmp_path, capsys):
    competition(tmp_path, "good", questions=("question1", "question2"), answers=("A", "B"))
    (tmp_path / "data" / "good" / "question2.txt").unlink()
    bad = competition(tmp_path, "bad")
    (bad / "broken.xlsm").write_bytes(b"nonsense")
    competition(tmp_path, "odd", questions=("question1",), answers=("A", "B"))
    report = tmp_path / "skipped.json"
    table = prepare("dsbench", str(tmp_path), on_error="skip", skipped_report=str(report))
    assert list(table.id) == ["good_question1"]
    skipped = json.loads(report.read_text())
    assert [(s["competition"], s["question"], s["kind"]) for s in skipped] == [
        ("good", "question2", "missing_file"), ("bad", None, "workbook"),
        ("odd", None, "count_mismatch")]
    assert "skipped 3 broken item(s)" in capsys.readouterr().err


def test_workbook_selection_rule():
    assert dsbench.is_workbook_name("Model.XLSX")
    assert dsbench.is_workbook_name("macro.xlsm") and dsbench.is_workbook_name("b.xlsb")
    assert not dsbench.is_workbook_name("Model_ANSWERS.xlsx")
    assert not dsbench.is_workbook_name("old.xls") and not dsbench.is_workbook_name("a.csv")


def test_render_ignores_callers_display_options():
    df = pd.DataFrame({"x": [1.123456789, 2.5]})
    default = df.to_string(index=False)
    with pd.option_context("display.precision", 2):
        assert df.to_string(index=False) != default
        assert dsbench.render_sheet(df) == default
        assert "1.123457" in dsbench.render_sheet(df)


def test_cli_reports_errors_without_traceback(tmp_path):
    competition(tmp_path, "c1", questions=("question1", "question2"), answers=("A",))
    result = subprocess.run([sys.executable, "-m", "predictivebench", "prepare", "dsbench",
                             str(tmp_path), str(tmp_path / "out.parquet")],
                            cwd=PYTHON_DIR, capture_output=True, text=True)
    assert result.returncode == 2
    assert "2 questions but 1 answers" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(not REFERENCE.exists(), reason="shared/reference/dsbench is absent")
def test_reference_data_json_schema():
    records = dsbench.read_data_json(str(REFERENCE))
    metas = [dsbench.validate_competition(r, str(REFERENCE), line) for line, r in records]
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    assert len(metas) == sum(1 for line in lines if line.strip())  # every line read
    assert all(len(m["questions"]) == len(m["answers"]) for m in metas)
    types = {dsbench.answer_type(a) for m in metas for a in m["answers"]}
    assert {"letter", "string", "integer", "dict"} <= types
    word_play = [m for m in metas if m["id"] == "00000009"][0]
    assert dsbench.answer_string(word_play["answers"][0]).startswith("{'Q': 1, '# of words': 7")


def test_source_may_be_the_data_json_file_or_a_flat_folder(tmp_path):
    competition(tmp_path, "c1")
    by_file = prepare("dsbench", str(tmp_path / "data.json"))
    assert list(by_file.id) == ["c1_question1"]
    flat = tmp_path / "flat"
    (tmp_path / "data").rename(flat)
    (tmp_path / "data.json").rename(flat / "data.json")
    assert list(prepare("dsbench", str(flat)).competition_dir) == ["c1"]
    with pytest.raises(PredictiveBenchError) as info:
        prepare("dsbench", str(tmp_path / "nowhere"))
    assert info.value.kind == "missing_file"
