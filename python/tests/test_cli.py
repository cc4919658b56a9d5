"""The command line: ``python -m predictivebench prepare ...`` and the R functions it points to."""
import json
import re
from pathlib import Path

import predictivebench.tables as tables
from predictivebench.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
FUTUREX_SAMPLE = ROOT / "inst" / "extdata" / "futurex-questions.json"
R_DIR = ROOT / "R"


def r_exports():
    """The functions the R package exports (its NAMESPACE)."""
    lines = (ROOT / "NAMESPACE").read_text(encoding="utf-8").splitlines()
    return {line[len("export("):-1] for line in lines if line.startswith("export(")}


def test_without_a_parquet_engine_the_cli_points_to_an_exported_r_function(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tables, "parquet_engine_available", lambda: False)
    out = tmp_path / "futurex.parquet"
    status = main(["prepare", "futurex", str(FUTUREX_SAMPLE), str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert not out.exists()
    assert 'prepare_task_table("futurex", source, out)' in err
    assert "prepare_futurex" not in err
    assert "prepare_task_table" in r_exports()
    assert "prepare_futurex" not in r_exports()


def test_every_r_function_the_module_names_is_exported():
    # Messages name an R function to call as `name(...) from R`; each must exist in R.
    module = ROOT / "inst" / "python" / "predictivebench"
    named = set()
    for path in module.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r"([a-z][a-z_]*)\([^()]*\) from R", text))
    assert named, "the scan finds the R function the parquet message names"
    assert named <= r_exports()


def test_schema_command_prints_the_schema(capsys):
    assert main(["schema", "futurex"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["columns"][0] == {"name": "id", "nullable": False, "type": "string"}
