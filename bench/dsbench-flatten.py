"""Time to flatten a DSBench-shaped folder against a bare pandas read + to_string, same run.

Writes C competitions, each with W workbooks of S sheets of R rows (numbers, dates, text,
empty cells) plus an answer workbook, then times, alternately and R times each:
  * bare:      for every workbook, pd.ExcelFile + parse every sheet + to_string(index=False)
  * flattener: predictivebench's prepare("dsbench", folder): the same reads plus data.json,
               validation, prompts for every question and the task-table checks
and reports the best of the repeats and the overhead of the flattener over bare pandas.

Run from the package root:
  /usr/bin/python3 bench/dsbench-flatten.py [competitions] [rows] [repeats]
"""
from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from openpyxl import Workbook

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "inst" / "python"))
from predictivebench import prepare  # noqa: E402

COMPETITIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 6
ROWS = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
REPEATS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
WORKBOOKS, SHEETS, QUESTIONS = 2, 3, 8


def write_folder(root: Path) -> list:
    lines, books = [], []
    for c in range(COMPETITIONS):
        cid = f"{c + 1:08d}"
        folder = root / "data" / cid
        folder.mkdir(parents=True)
        for w in range(WORKBOOKS):
            wb = Workbook()
            wb.remove(wb.active)
            for s in range(SHEETS):
                ws = wb.create_sheet(f"Sheet {s + 1}")
                ws.append(["Date", "Region", "Units", "Price", "Revenue", "Note"])
                for r in range(ROWS):
                    ws.append([dt.datetime(2020, 1, 1) + dt.timedelta(days=r), f"R{r % 7}",
                               None if r % 11 == 0 else r * 3, 1.0 + r / 997,
                               r * 1234.56789, "ok" if r % 5 else None])
            path = folder / f"book{w + 1}.xlsx"
            wb.save(path)
            books.append(path)
        answers = Workbook()
        answers.active.append(["answer", 1])
        answers.save(folder / "answers.xlsx")
        (folder / "introduction.txt").write_text("An introduction.\n", encoding="utf-8")
        names = [f"question{q + 1}" for q in range(QUESTIONS)]
        for name in names:
            (folder / f"{name}.txt").write_text(f"What is {name}?\n", encoding="utf-8")
        lines.append(json.dumps({"id": cid, "name": cid, "questions": names,
                                 "answers": ["A"] * QUESTIONS, "year": 2020}))
    (root / "data.json").write_text("\n".join(lines), encoding="utf-8")
    return books


def bare(books: list) -> int:
    total = 0
    for path in books:
        with pd.ExcelFile(path) as book:
            for sheet in book.sheet_names:
                total += len(book.parse(sheet).to_string(index=False))
    return total


def main() -> None:
    print(f"python {platform.python_version()}, pandas {pd.__version__}, "
          f"{platform.machine()}, {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        books = write_folder(root)
        size = sum(p.stat().st_size for p in books) / 1e6
        print(f"{COMPETITIONS} competitions, {len(books)} workbooks x {SHEETS} sheets x {ROWS} "
              f"rows ({size:.1f} MB), {COMPETITIONS * QUESTIONS} questions")
        times = {"bare pandas": [], "flattener": []}
        for _ in range(REPEATS):
            start = time.perf_counter()
            chars = bare(books)
            times["bare pandas"].append(time.perf_counter() - start)
            start = time.perf_counter()
            table = prepare("dsbench", str(root))
            times["flattener"].append(time.perf_counter() - start)
        assert len(table) == COMPETITIONS * QUESTIONS
        assert table.workbook_chars.groupby(table.competition_id).first().sum() >= chars
        best = {name: min(values) for name, values in times.items()}
        for name, value in best.items():
            print(f"{name:>12}: {value:7.2f} s (best of {REPEATS})")
        print(f"overhead of the flattener: {best['flattener'] / best['bare pandas'] - 1:+.1%}")


if __name__ == "__main__":
    main()
