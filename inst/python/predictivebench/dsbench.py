"""DSBench data analysis: ``data.json`` + competition folders -> the ``dsbench`` task table.

A DSBench data-analysis folder holds ``data.json`` (JSON Lines, one competition a line) and
``data/<id>/`` folders with ``introduction.txt``, ``questionN.txt``, Excel workbooks and
sometimes images. Each question becomes one row whose ``input`` is the prompt the original
evaluation notebooks send, byte for byte:

* every workbook whose name ends in ``xlsx``/``xlsb``/``xlsm`` (case-insensitive) and does not
  contain ``answer`` is read with pandas defaults (every sheet, ``header=0``, cached values) and
  rendered with ``DataFrame.to_string(index=False)``;
* workbooks are taken in **sorted name order** (the original uses ``os.listdir`` order, which
  the file system decides);
* images (``.jpg``/``.png``) are listed in sorted name order too (``image_paths``); the
  original sends only the first of the folder, here the first by name (``image_used``);
* the prompt is ``"The workbook is detailed as follows. {workbooks} \\n"`` (only when there is
  workbook text) + ``"The introduction is detailed as follows. \\n {intro} \\n"`` +
  ``"The questions are detailed as follows. \\n {question}"``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import pandas as pd

from .errors import ON_ERROR, MissingDependencyError, PredictiveBenchError, check_on_error
from .readers import inside, iter_json_lines, read_text, safe_join
from .registry import Preparer, register

EXCEL_ENDINGS = ("xlsx", "xlsb", "xlsm")
IMAGE_ENDINGS = (".jpg", ".png")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
XLSB_NEEDS = ("reading .xlsb workbooks needs the Python package pyxlsb: install it with "
              "`pip install pyxlsb` (or this package's [xlsb] extra)")
COLUMNS = ["id", "input", "target", "target_type", "answer_json", "competition_id",
           "competition_name", "year", "question_name", "question_index", "introduction",
           "question", "workbook_chars", "workbook_files", "image_paths", "image_used",
           "competition_dir"]

# pandas' default display options: to_string() depends on them, so a caller's own settings
# must not leak into the prompt.
DEFAULT_DISPLAY = ("display.precision", 6, "display.float_format", None,
                   "display.chop_threshold", None, "display.colheader_justify", "right",
                   "display.unicode.east_asian_width", False, "display.max_colwidth", 50)


@dataclass
class Skipped:
    """Items left out by ``on_error="skip"``, with the error that excluded them."""

    items: List[Dict[str, Any]] = field(default_factory=list)

    def add(self, error: PredictiveBenchError, competition: Optional[str],
            question: Optional[str] = None) -> None:
        self.items.append({"competition": competition, "question": question,
                           "file": error.file, "kind": error.kind, "message": str(error)})


# ---------------------------------------------------------------------------------------
# data.json

def read_data_json(path: str, skipped: Optional[Skipped] = None) -> List[Tuple[int, Any]]:
    """``(line, object)`` for each non-blank JSON line (parsed as JSON, never evaluated).

    With ``skipped``, a line that is not valid JSON is recorded there instead of raising.
    """
    text = read_text(path)
    if not text.strip():
        raise PredictiveBenchError("file is empty", file=path, kind="json")
    on_error = None if skipped is None else (lambda problem: skipped.add(problem, competition=None))
    return list(iter_json_lines(text, path, on_error))


def validate_competition(record: Any, path: str, line: int) -> Dict[str, Any]:
    """Check one ``data.json`` object: an id usable as a folder name, paired questions/answers."""
    if not isinstance(record, dict):
        raise PredictiveBenchError(f"expected an object, found {type(record).__name__}",
                                   file=path, row=line, kind="field")
    for name in ("id", "questions", "answers"):
        if name not in record:
            raise PredictiveBenchError("missing field", file=path, row=line, field=name,
                                       kind="field")
    cid = record["id"]
    if not isinstance(cid, str) or not cid.strip():
        raise PredictiveBenchError("id must be a non-empty string", file=path, row=line,
                                   field="id", kind="field")
    where = f"{line} (competition {cid})"
    if cid in (".", "..") or os.path.basename(cid) != cid or "/" in cid or "\\" in cid:
        raise PredictiveBenchError(f"competition id '{cid}' would leave the data directory",
                                   file=path, row=where, field="id", kind="path")
    questions, answers = record["questions"], record["answers"]
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise PredictiveBenchError("questions must be a list of file names", file=path,
                                   row=where, field="questions", kind="field")
    if not isinstance(answers, list):
        raise PredictiveBenchError("answers must be a list", file=path, row=where,
                                   field="answers", kind="field")
    if len(questions) != len(answers):
        raise PredictiveBenchError(
            f"{len(questions)} questions but {len(answers)} answers", file=path, row=where,
            field="answers", kind="count_mismatch")
    for name in questions:
        if not name or os.path.isabs(name) or ".." in name.replace("\\", "/").split("/") \
                or "/" in name or "\\" in name:
            raise PredictiveBenchError(f"question name '{name}' would leave the competition "
                                       "folder", file=path, row=where, field="questions",
                                       kind="path")
    year = record.get("year")
    if isinstance(year, str) and year.strip().isdigit():
        year = int(year)
    if year is not None and (isinstance(year, bool) or not isinstance(year, int)):
        raise PredictiveBenchError(f"year must be a whole number, found {year!r}", file=path,
                                   row=where, field="year", kind="field")
    name = record.get("name")
    return {"id": cid, "name": None if name is None else str(name), "year": year,
            "questions": questions, "answers": answers}


# ---------------------------------------------------------------------------------------
# answers

def answer_string(answer: Any) -> str:
    """The answer as the original judge saw it: Python ``str()`` (dicts as ``{'Q': 1}``)."""
    return str(answer)


def answer_type(answer: Any) -> str:
    """``letter`` (one letter, a multiple-choice option), ``string``, ``integer``, ``double``,
    ``dict``, ``list``, ``logical`` or ``null``."""
    if answer is None:
        return "null"
    if isinstance(answer, bool):
        return "logical"
    if isinstance(answer, int):
        return "integer"
    if isinstance(answer, float):
        return "double"
    if isinstance(answer, dict):
        return "dict"
    if isinstance(answer, list):
        return "list"
    text = str(answer)
    return "letter" if len(text.strip()) == 1 and text.strip().isalpha() else "string"


# ---------------------------------------------------------------------------------------
# competition folders

def is_workbook_name(name: str) -> bool:
    """The original's rule: ends in xlsx/xlsb/xlsm (no dot needed) and no "answer" in it."""
    lower = name.lower()
    return lower.endswith(EXCEL_ENDINGS) and "answer" not in lower


def find_workbooks(folder: str) -> List[str]:
    """Workbook file names in ``folder``, sorted by name (answer workbooks left out)."""
    return sorted(name for name in os.listdir(folder)
                  if is_workbook_name(name) and os.path.isfile(os.path.join(folder, name)))


def find_images(folder: str) -> List[str]:
    """``.jpg``/``.png`` file names in ``folder`` (case-insensitive), sorted by name."""
    return sorted(name for name in os.listdir(folder)
                  if name.lower().endswith(IMAGE_ENDINGS)
                  and os.path.isfile(os.path.join(folder, name)))


def read_workbook(path: str, where: Any = None) -> List[Tuple[str, pd.DataFrame]]:
    """Every sheet of ``path`` as read by ``pd.ExcelFile(path).parse(sheet)`` (pandas defaults).

    pandas chooses the engine from the file's content, as in the original: openpyxl for
    ``.xlsx``/``.xlsm``, pyxlsb for ``.xlsb`` (the same as ``read_excel(engine="pyxlsb")``), so
    binary workbooks are flattened exactly like the others. Corrupt and password-protected
    (encrypted) workbooks raise a :class:`PredictiveBenchError` naming the file, and ``.xlsb``
    workbooks without pyxlsb a :class:`MissingDependencyError` saying what to install.
    """
    if path.lower().endswith("xlsb") and importlib.util.find_spec("pyxlsb") is None:
        raise MissingDependencyError(XLSB_NEEDS, file=path, row=where, kind="dependency")
    with open(path, "rb") as handle:
        head = handle.read(8)
    if head == OLE_MAGIC:
        raise PredictiveBenchError(
            "workbook is encrypted (password-protected) or an old binary file with a new "
            "extension; save it without a password", file=path, row=where, kind="workbook")
    try:
        with pd.ExcelFile(path) as book:
            return [(str(sheet), book.parse(sheet)) for sheet in book.sheet_names]
    except PredictiveBenchError:
        raise
    except ImportError as error:  # a binary workbook under another name, pyxlsb missing
        if "pyxlsb" not in str(error):
            raise
        raise MissingDependencyError(XLSB_NEEDS, file=path, row=where,
                                     kind="dependency") from None
    except Exception as error:  # pandas/openpyxl/zipfile raise many types for a bad file
        raise PredictiveBenchError(f"can't read workbook ({type(error).__name__}: {error})",
                                   file=path, row=where, kind="workbook") from None


def render_sheet(df: pd.DataFrame) -> str:
    """``df.to_string(index=False)`` under pandas' default display options."""
    with pd.option_context(*DEFAULT_DISPLAY):
        return df.to_string(index=False)


def render_workbook(name: str, sheets: List[Tuple[str, pd.DataFrame]]) -> str:
    """``"The excel file {name} is: "`` + ``"Sheet name: {s}\\n{text}\\n\\n"`` per sheet."""
    text = "".join(f"Sheet name: {sheet}\n{render_sheet(df)}\n\n" for sheet, df in sheets)
    return f"The excel file {name} is: " + text


def workbook_text(folder: str, names: List[str], where: Any = None) -> str:
    """All workbooks of a competition, rendered and concatenated in the order given."""
    parts = []
    for name in names:
        path = safe_join(folder, name, row=where, field="workbook")
        parts.append(render_workbook(name, read_workbook(path, where)))
    return "".join(parts)


def build_prompt(workbooks: str, introduction: str, question: str) -> str:
    """The original's prompt for one question."""
    text = ""
    if workbooks:
        text += f"The workbook is detailed as follows. {workbooks} \n"
    text += f"The introduction is detailed as follows. \n {introduction} \n"
    return text + f"The questions are detailed as follows. \n {question}"


def competition_root(source: str) -> Tuple[str, str]:
    """``(data.json path, folder holding the competition folders)`` for ``source``.

    ``source`` is the folder holding ``data.json`` (competitions in its ``data/`` subfolder,
    as in the original repository, or directly inside it) or the ``data.json`` file itself.
    """
    if os.path.isdir(source):
        data_json = os.path.join(source, "data.json")
        base = source
    else:
        data_json = source
        base = os.path.dirname(os.path.abspath(source))
    if not os.path.exists(data_json):
        raise PredictiveBenchError("no data.json here", file=data_json, kind="missing_file")
    nested = os.path.join(base, "data")
    return data_json, nested if os.path.isdir(nested) else base


def flatten_competition(meta: Dict[str, Any], root: str, path: str, line: int,
                        skipped: Optional[Skipped] = None) -> List[Dict[str, Any]]:
    """The rows of one competition; every problem names the competition and the file."""
    cid = meta["id"]
    where = f"{line} (competition {cid})"
    if not meta["questions"]:
        return []  # the original skips competitions without questions, folder or not
    folder = safe_join(root, cid, row=where, field="id")
    if not os.path.isdir(folder):
        raise PredictiveBenchError(f"competition folder '{cid}' does not exist", file=folder,
                                   row=where, kind="missing_file")
    for name in os.listdir(folder):
        if not inside(folder, os.path.join(folder, name)):
            raise PredictiveBenchError(f"'{name}' links outside the competition folder",
                                       file=os.path.join(folder, name), row=where, kind="path")
    workbooks = find_workbooks(folder)
    text = workbook_text(folder, workbooks, where)
    images = find_images(folder)
    try:
        introduction = read_text(safe_join(folder, "introduction.txt", row=where))
    except PredictiveBenchError as error:
        # a missing file gets the data.json line and the competition, like a question file;
        # an unreadable one keeps the line of the introduction it points at
        if error.row is None:
            error.row = where
        raise
    rows = []
    for index, (name, answer) in enumerate(zip(meta["questions"], meta["answers"]), start=1):
        question_path = safe_join(folder, name + ".txt", row=where, field="questions")
        try:
            question = read_text(question_path)
        except PredictiveBenchError as error:
            error.row = where
            if skipped is None:
                raise
            skipped.add(error, competition=cid, question=name)
            continue
        rows.append({
            "id": f"{cid}_{name}",
            "input": build_prompt(text, introduction, question),
            "target": answer_string(answer),
            "target_type": answer_type(answer),
            "answer_json": json.dumps(answer, ensure_ascii=False),
            "competition_id": cid,
            "competition_name": meta["name"],
            "year": meta["year"],
            "question_name": name,
            "question_index": index,
            "introduction": introduction,
            "question": question,
            "workbook_chars": len(text),
            "workbook_files": list(workbooks),
            "image_paths": [f"{cid}/{image}" for image in images],
            "image_used": f"{cid}/{images[0]}" if images else None,
            "competition_dir": cid,
        })
    return rows


def flatten_dsbench(records: List[Tuple[int, Any]], root: str, path: str,
                    skipped: Optional[Skipped] = None) -> pd.DataFrame:
    """All competitions as one table; with ``skipped``, broken ones are recorded and left out."""
    rows: List[Dict[str, Any]] = []
    for line, record in records:
        cid = record.get("id") if isinstance(record, dict) else None
        try:
            meta = validate_competition(record, path, line)
            rows.extend(flatten_competition(meta, root, path, line, skipped))
        except MissingDependencyError:
            raise
        except PredictiveBenchError as error:
            if skipped is None:
                raise
            skipped.add(error, competition=None if cid is None else str(cid))
    table = pd.DataFrame(rows, columns=COLUMNS)
    if rows:
        year = table["year"].tolist()
        table = table.astype({"question_index": "int64", "workbook_chars": "int64"})
        table["year"] = pd.Series(year, dtype="object")
    return table


def prepare_dsbench(source: str, on_error: str = "error",
                    skipped_report: Optional[str] = None, quiet: bool = False) -> pd.DataFrame:
    """A DSBench data-analysis folder (or its ``data.json``) as a task table.

    ``on_error="skip"`` leaves out broken competitions and questions instead of stopping, and
    reports them on standard error (unless ``quiet``) and, with ``skipped_report``, as JSON in
    that file. They are also in ``table.attrs["skipped"]``.
    """
    data_json, root = competition_root(source)
    check_on_error(on_error)
    skipped = Skipped() if on_error == "skip" else None
    table = flatten_dsbench(read_data_json(data_json, skipped), root, data_json, skipped)
    if skipped is not None:
        if skipped.items and not quiet:
            print(f"predictivebench: skipped {len(skipped.items)} broken item(s):",
                  file=sys.stderr)
            for item in skipped.items:
                print(f"  - {item['message']}", file=sys.stderr)
        if skipped_report:
            with open(skipped_report, "w", encoding="utf-8") as handle:
                json.dump(skipped.items, handle, ensure_ascii=False, indent=1)
    table.attrs["skipped"] = [] if skipped is None else skipped.items
    return table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--on-error", dest="on_error", choices=ON_ERROR, default="error",
                        help="'skip' leaves out broken competitions/questions and lists them")
    parser.add_argument("--skipped-report", dest="skipped_report", default=None,
                        help="with --on-error skip, also write the skipped items to this JSON file")


PREPARERS = register(
    Preparer("dsbench", "dsbench", prepare_dsbench, add_arguments=add_arguments,
             help="a DSBench data-analysis folder (data.json + data/<id>/)")
)
