"""Build the shipped DSBench-shaped sample: inst/extdata/dsbench/ and dsbench-sample.parquet.

Run from the package root:  /usr/bin/python3 data-raw/dsbench.py

Everything here is made up for the package: three fictional competitions written with
openpyxl (several sheets, empty cells, dates, numbers with many digits, an answer workbook
that the flattener must leave out, and two small images, of which only the first by name is
sent), plus one competition without questions (the original skips those). The parquet task table is then written from R
(nanoparquet), because this machine's Python has no parquet engine.
"""
from __future__ import annotations

import datetime as dt
import json
import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

from openpyxl import Workbook

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "inst" / "extdata" / "dsbench"
FIXED = dt.datetime(2024, 1, 1, 0, 0, 0)


def save(wb: Workbook, path: Path) -> None:
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    wb.properties.creator = "predictivebench"
    wb.save(path)
    # Zip entries carry the time of writing: fix it so a rebuild gives the same bytes.
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in entries:
            fixed = zipfile.ZipInfo(info.filename, date_time=(2024, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            target.writestr(fixed, data)


def png(path: Path, width: int = 8, height: int = 4, colour: tuple = (30, 90, 200)) -> None:
    """A tiny two-colour bar chart as a PNG, written without an imaging library."""
    rows = b""
    for y in range(height):
        row = b"\x00"
        for x in range(width):
            tall = (x < width // 2 and y >= 1) or (x >= width // 2 and y >= 2)
            row += bytes(colour if tall else (255, 255, 255))
        rows += row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
                     chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def lemonade(folder: Path) -> None:
    wb = Workbook()
    sales = wb.active
    sales.title = "Sales"
    sales.append(["Date", "Stand", "Cups", "Revenue", "Note"])
    data = [
        (dt.datetime(2023, 6, 1), "North", 120, 180.123456789, "sunny"),
        (dt.datetime(2023, 6, 2), "North", None, 95.5, None),
        (dt.datetime(2023, 6, 3), "South", 310, 1234567.891234, "festival"),
        (dt.datetime(2023, 6, 4), "South", 87, None, "rain"),
        (dt.datetime(2023, 6, 5), "East", 150, 0.000123456, "cloudy"),
    ]
    for row in data:
        sales.append(list(row))
    prices = wb.create_sheet("Prices")
    prices.append(["Item", "Unit cost", "Markup %"])
    prices.append(["Lemon", 0.35, 0.4])
    prices.append(["Sugar (kg)", 1.2, None])
    prices.append(["Cup", 0.0525, 0.15])
    notes = wb.create_sheet("Notes")
    notes.append(["Stand ids are internal codes", None])
    notes.append(["Account", 9876543210123])
    save(wb, folder / "lemonade.xlsx")

    answers = Workbook()
    answers.active.title = "Answers"
    answers.active.append(["Question", "Answer"])
    answers.active.append(["question1", "SECRET-ANSWER-MARKER-C"])
    save(answers, folder / "Lemonade_Answers.xlsx")
    png(folder / "chart.png")
    # A second image: images are taken in name order and only the first (chart.png) is sent.
    png(folder / "stands.png", width=6, height=6, colour=(200, 60, 30))
    (folder / "introduction.txt").write_text(
        "A lemonade business runs three stands. The workbook lists daily sales and the cost of "
        "ingredients. Some days were not recorded completely.\n", encoding="utf-8")
    (folder / "question1.txt").write_text(
        "Which stand sold the most cups on a single day?\nA. North\nB. East\nC. South\n"
        "D. West\n", encoding="utf-8")
    (folder / "question2.txt").write_text(
        "How many cups were sold in total over the recorded days (ignore missing entries)?\n",
        encoding="utf-8")
    (folder / "question3.txt").write_text(
        "Looking at the attached chart, which half has the taller bars?\nA. Left\nB. Right\n",
        encoding="utf-8")


def budget(folder: Path) -> None:
    wb = Workbook()
    inputs = wb.active
    inputs.title = "Inputs"
    inputs.append(["Parameter", "Value"])
    inputs.append(["Start date", dt.datetime(2030, 1, 31)])
    inputs.append(["Interest rate", 0.0725])
    inputs.append(["Loan", 5000000])
    save(wb, folder / "a_inputs.xlsx")

    model = Workbook()
    plan = model.active
    plan.title = "Plan"
    plan.append(["Year", "Revenue", "Costs", "Profit"])
    for year, revenue, costs in [(2030, 1250000.5, 1100000.25), (2031, 1312500.525, None),
                                 (2032, 1378125.55125, 1212750.275)]:
        plan.append([year, revenue, costs, None if costs is None else revenue - costs])
    summary = model.create_sheet("Summary table")
    summary.append(["Metric", "2030", "2031"])
    summary.append(["Margin", 0.12, None])
    save(model, folder / "Model.XLSM")
    (folder / "introduction.txt").write_text(
        "You are building a three-year plan for a small firm. Inputs and the plan are in two "
        "workbooks.\n", encoding="utf-8")
    (folder / "question1.txt").write_text(
        "What is the loan amount, in dollars?\n", encoding="utf-8")
    (folder / "question2.txt").write_text(
        "Give the profit for 2030 and 2032 as a table with keys 'Q', 'Year' and 'Profit'.\n",
        encoding="utf-8")


def words(folder: Path) -> None:
    (folder / "introduction.txt").write_text(
        "This challenge has no workbook. Answer from the description alone.\r\n"
        "Words are scored by the sum of their letter positions (A = 1, ..., Z = 26).\r\n",
        encoding="utf-8")
    (folder / "question1.txt").write_text("What is the score of the word 'CAB'?\n",
                                          encoding="utf-8")
    (folder / "question2.txt").write_text(
        "Which Excel function joins two text strings?\n", encoding="utf-8")


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    data = OUT / "data"
    competitions = [
        ({"id": "00000101", "name": "2099-round-1-lemonade-stand", "url": "", "txt": "",
          "questions": ["question1", "question2", "question3"], "answers": ["C", 667, "A"],
          "year": 2099}, lemonade),
        ({"id": "00000102", "name": "2099-round-2-three-year-plan", "url": "", "txt": "",
          "questions": ["question1", "question2"],
          "answers": ["$5,000,000", {"Q": 2, "Year": 2030, "Profit": 150000.25}],
          "year": 2099}, budget),
        ({"id": "00000103", "name": "2098-finals-word-scores", "url": "", "txt": "",
          "questions": ["question1", "question2"], "answers": [6, "CONCATENATE"],
          "year": 2098}, words),
        ({"id": "00000104", "name": "2098-finals-no-questions", "url": "", "txt": "",
          "questions": [], "answers": [], "year": 2098}, None),
    ]
    lines = []
    for meta, build in competitions:
        if build is not None:
            folder = data / meta["id"]
            folder.mkdir(parents=True)
            build(folder)
        lines.append(json.dumps(meta))
    # Like the original, the last line has no newline.
    (OUT / "data.json").write_text("\n".join(lines), encoding="utf-8")
    subprocess.run(
        ["Rscript", "-e",
         "pkgload::load_all(quiet = TRUE); "
         "prepare_dsbench('inst/extdata/dsbench', out = 'inst/extdata/dsbench-sample.parquet')"],
        cwd=ROOT, check=True, env={**__import__("os").environ,
                                   "RETICULATE_PYTHON": "/usr/bin/python3"})


if __name__ == "__main__":
    main()
