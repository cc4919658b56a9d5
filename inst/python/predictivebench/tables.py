"""Task-table schemas, validation and writing, shared by every benchmark."""
from __future__ import annotations

import importlib.util
import json
import math
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping

import pandas as pd

from .errors import MissingDependencyError, PredictiveBenchError

SCHEMA_DIR = Path(__file__).parent / "schemas"

SCALAR_TYPES = {"string", "integer", "double", "logical"}
LIST_TYPES = {"list<string>", "list<integer>", "list<double>"}


def load_schema(benchmark: str) -> Dict[str, Any]:
    """The schema of ``benchmark``: ``{"columns": [{"name", "type", "nullable"}...]}``."""
    path = SCHEMA_DIR / f"{benchmark}.json"
    if not path.exists():
        raise PredictiveBenchError(f"no schema for benchmark '{benchmark}'", file=str(path),
                                   kind="schema")
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return False


def _check_scalar(value: Any, type_: str) -> bool:
    if type_ == "string":
        return isinstance(value, str) and "\0" not in value
    if type_ == "logical":
        return isinstance(value, bool)
    if type_ == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_ == "double":
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value)
    raise AssertionError(type_)


def _value_problem(value: Any, type_: str) -> str:
    """Why a value that is not missing fails ``type_``."""
    if isinstance(value, str) and "\0" in value:
        return "holds a NUL character"
    if isinstance(value, float) and type_ == "double":
        return f"is {value}, not a finite number"
    return f"is {type(value).__name__}, not {type_}"


def _cell_problem(value: Any, type_: str, nullable: bool) -> str | None:
    if type_ in SCALAR_TYPES:
        if _is_missing(value):
            return None if nullable else "is missing"
        if hasattr(value, "item") and not isinstance(value, (list, str)):
            value = value.item()  # numpy scalar
        return None if _check_scalar(value, type_) else _value_problem(value, type_)
    element = type_[len("list<"):-1]
    if value is None:
        return None if nullable else "is missing"
    if not isinstance(value, (list, tuple)):
        return f"is {type(value).__name__}, not {type_}"
    for element_value in value:
        if hasattr(element_value, "item"):
            element_value = element_value.item()
        if not _check_scalar(element_value, element):
            return "holds a value that " + _value_problem(element_value, element)
    return None


# Names a DSBench table gives to files in its data folder. R checks them again where it opens
# them (after resolving links); here a table made or passed anywhere is refused early.
DSBENCH_NAMES = {"competition_dir": "folder", "workbook_files": "file",
                 "image_used": "image", "image_paths": "image"}


def _is_bare_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name \
        and not os.path.isabs(name)


def _dsbench_name_problem(value: Any, kind: str, competition: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    names = [value] if isinstance(value, str) else list(value)
    for name in names:
        if not isinstance(name, str):
            continue
        if kind == "image":
            head, _, tail = name.partition("/")
            if head != competition or not _is_bare_name(tail):
                return (f"names '{name}', which is not '<competition_dir>/<file>' inside the "
                        "data folder")
        elif not _is_bare_name(name):
            return f"names '{name}', which is not a plain {kind} name inside the data folder"
    return None


def _check_dsbench_names(df: pd.DataFrame, file: str) -> None:
    for position, row in enumerate(df.to_dict(orient="records"), start=1):
        for name, kind in DSBENCH_NAMES.items():
            problem = _dsbench_name_problem(row[name], kind, row["competition_dir"])
            if problem:
                raise PredictiveBenchError(problem, file=file, row=position, field=name,
                                           kind="path")


def validate_table(df: pd.DataFrame, benchmark: str, file: str = "<table>") -> pd.DataFrame:
    """Check names, types and list columns against the benchmark's schema; return ``df``."""
    schema = load_schema(benchmark)
    expected = [column["name"] for column in schema["columns"]]
    for column in schema["columns"]:
        # An optional column came later than the schema's first tables; they lack it.
        if column.get("optional") and column["name"] not in df.columns:
            df = df.assign(**{column["name"]: None})
    missing = [name for name in expected if name not in df.columns]
    if missing:
        raise PredictiveBenchError(f"missing column(s) {missing}", file=file, field=missing[0],
                                   kind="schema")
    for column in schema["columns"]:
        name, type_ = column["name"], column["type"]
        nullable = bool(column.get("nullable", False))
        for position, value in enumerate(df[name].tolist()):
            problem = _cell_problem(value, type_, nullable)
            if problem:
                raise PredictiveBenchError(f"value {problem}", file=file, row=position + 1,
                                           field=name, kind="schema")
    if benchmark == "dsbench":
        _check_dsbench_names(df, file)
    if "id" in df.columns:
        duplicated = df["id"][df["id"].duplicated()].tolist()
        if duplicated:
            raise PredictiveBenchError(f"duplicate id '{duplicated[0]}'", file=file, field="id",
                                       row=int(df.index[df["id"].duplicated()][0]) + 1,
                                       kind="schema")
    return df[expected]


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist") and not hasattr(value, "item"):
        value = value.tolist()  # numpy arrays from a parquet reader
    if isinstance(value, (list, tuple)):
        return [_jsonable(element) for element in value]
    if _is_missing(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def table_columns(df: pd.DataFrame, benchmark: str) -> str:
    """The validated table as JSON text ``{"schema":..., "columns": {name: [values]}}``.

    This is how R receives a table through reticulate: plain JSON keeps list columns, missing
    values and integer/double types exact, with no DataFrame conversion quirks.
    """
    df = validate_table(df, benchmark)
    columns: Mapping[str, List[Any]] = {
        name: [_jsonable(value) for value in df[name].tolist()] for name in df.columns
    }
    return json.dumps({"benchmark": benchmark, "columns": columns}, ensure_ascii=False,
                      allow_nan=False)


def parquet_engine_available() -> bool:
    return any(importlib.util.find_spec(name) is not None for name in ("pyarrow", "fastparquet"))


def write_table(df: pd.DataFrame, benchmark: str, path: str) -> str:
    """Validate ``df`` and write it to ``path`` as parquet (needs pyarrow or fastparquet)."""
    df = validate_table(df, benchmark)
    if not parquet_engine_available():
        raise MissingDependencyError(
            "writing parquet needs a parquet engine: install pyarrow "
            "(pip install 'predictivebench[parquet]'), or call "
            f"prepare_task_table(\"{benchmark}\", source, out) from R, which writes "
            "parquet with nanoparquet",
            file=path, kind="dependency")
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        if importlib.util.find_spec("pyarrow") is not None:
            _write_with_pyarrow(df, benchmark, tmp)
        else:
            df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


ARROW_TYPES = {"string": "string", "integer": "int32", "double": "float64", "logical": "bool_"}


def _arrow_type(type_: str) -> Any:
    import pyarrow as pa

    if type_ in LIST_TYPES:
        return pa.list_(_arrow_type(type_[len("list<"):-1]))
    return getattr(pa, ARROW_TYPES[type_])()


def arrow_schema(benchmark: str) -> Any:
    """The pyarrow schema of a task table.

    Explicit types keep a list column that is empty in every row a typed list (inference
    would make it ``list<null>``) and integers 32-bit, as R reads them.
    """
    import pyarrow as pa

    columns = load_schema(benchmark)["columns"]
    fields = [pa.field(c["name"], _arrow_type(c["type"]), nullable=bool(c.get("nullable")))
              for c in columns]
    return pa.schema(fields)


def _write_with_pyarrow(df: pd.DataFrame, benchmark: str, path: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema(benchmark)
    table = pa.Table.from_pandas(df, schema=schema, preserve_index=False)
    # added after from_pandas, which writes its own "pandas" entry, so that both are kept
    metadata = dict(table.schema.metadata or {})
    metadata[b"predictivebench.benchmark"] = benchmark.encode("utf-8")
    pq.write_table(table.replace_schema_metadata(metadata), path)
