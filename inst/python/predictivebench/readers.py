"""Reading raw files with errors that name the file and line, never a parser traceback."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Tuple

from .errors import PredictiveBenchError


def read_text(path: str, kind: str = "input") -> str:
    """The file's text as UTF-8, with a classed error for a missing, empty or non-UTF-8 file."""
    if not os.path.exists(path):
        raise PredictiveBenchError("file does not exist", file=path, kind="missing_file")
    if os.path.isdir(path):
        raise PredictiveBenchError("is a directory, not a file", file=path, kind="missing_file")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as error:
        line = Path(path).read_bytes()[: error.start].count(b"\n") + 1
        raise PredictiveBenchError(f"is not valid UTF-8 (byte {error.start})", file=path,
                                   row=line, kind="encoding") from None
    check_no_nul(text, path)
    return text


def check_no_nul(text: str, path: str) -> None:
    """A NUL character is no text: a file cut or padded by a crash, or UTF-16 read as UTF-8.

    Left in, it would reach a prompt (and R strings cannot hold it), so it stops here.
    """
    position = text.find("\0")
    if position < 0:
        return
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    raise PredictiveBenchError(
        f"holds a NUL byte at line {line}, column {column} (a damaged file, or UTF-16 text: "
        "save it as UTF-8)", file=path, row=line, kind="encoding")


# JSON has no NaN or Infinity, but Python's parser accepts them. Each is parsed into a marker
# and reported with the row and field that hold it, instead of failing later without either.
class _NonFinite:
    def __init__(self, name: str) -> None:
        self.name = name


_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _loads(text: str) -> Tuple[Any, bool]:
    """``json.loads`` with NaN/Infinity parsed as markers; also says whether any was seen."""
    seen = []

    def constant(name: str) -> _NonFinite:
        seen.append(name)
        return _NonFinite(name)

    return json.loads(text, parse_constant=constant), bool(seen)


def _find_non_finite(value: Any, path: str = "") -> Optional[Tuple[str, str]]:
    """``(field path, constant)`` of the first marker in ``value``, depth first."""
    if isinstance(value, _NonFinite):
        return path, value.name
    if isinstance(value, dict):
        items = ((f"{path}.{key}" if path else str(key), item) for key, item in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{index}]", item) for index, item in enumerate(value, start=1))
    else:
        return None
    for where, item in items:
        found = _find_non_finite(item, where)
        if found is not None:
            return found
    return None


def _non_finite_error(data: Any, text: str, path: str,
                      line: Optional[int] = None) -> PredictiveBenchError:
    """The error for the first NaN/Infinity in ``data`` parsed from ``text``.

    The row is the one the readers use: ``line`` for a JSON Lines record, else the element of
    a top-level array (with the file's line said in the message); the field is the path
    inside it (``Std``, ``steps[2]``).
    """
    row, where = line, ""
    if line is None:
        match = next((m for m in _CONSTANT.finditer(text) if m.group(1)), None)
        if match is not None:
            where = f" (line {text.count(chr(10), 0, match.start()) + 1})"
        if isinstance(data, list):
            row = next(index for index, item in enumerate(data, start=1)
                       if _find_non_finite(item) is not None)
            data = data[row - 1]
    field, name = _find_non_finite(data)
    return PredictiveBenchError(f"{name} is not a number JSON allows{where}; write a number, "
                                "or null for a missing value", file=path, row=row,
                                field=field or None, kind="json")


def parse_json(text: str, path: str) -> Any:
    """Parse a whole JSON document; a syntax error names its line and column."""
    if not text.strip():
        raise PredictiveBenchError("file is empty", file=path, kind="json")
    try:
        data, non_finite = _loads(text)
    except json.JSONDecodeError as error:
        raise PredictiveBenchError(f"invalid JSON at column {error.colno}: {error.msg}",
                                   file=path, row=error.lineno, kind="json") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise unreadable_json(error, path) from None
    if non_finite:
        raise _non_finite_error(data, text, path) from None
    return data


def unreadable_json(error: BaseException, path: str, row: Any = None) -> PredictiveBenchError:
    """Valid JSON syntax that Python's parser refuses: a number with thousands of digits
    (ValueError), nesting deeper than the recursion limit, or a document too big for memory."""
    if isinstance(error, RecursionError):
        reason = "it is nested too deeply"
    elif isinstance(error, MemoryError):
        reason = "it is too large to read"
    else:
        reason = "it holds a number too long to convert (over 4300 digits)"
    return PredictiveBenchError(f"JSON can't be read: {reason}", file=path, row=row,
                                kind="json")


def iter_json_lines(text: str, path: str,
                    on_error: Optional[Callable[[PredictiveBenchError], None]] = None,
                    ) -> Iterator[Tuple[int, Any]]:
    """``(line_number, object)`` for each non-blank line; the last line may lack a newline.

    A line that is not JSON raises, or, with ``on_error``, is handed to it and skipped.
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data, non_finite = _loads(line)
        except json.JSONDecodeError as error:
            problem = PredictiveBenchError(f"invalid JSON at column {error.colno}: {error.msg}",
                                           file=path, row=number, kind="json")
        except (ValueError, RecursionError, MemoryError) as error:
            problem = unreadable_json(error, path, number)
        else:
            if not non_finite:
                yield number, data
                continue
            problem = _non_finite_error(data, line, path, line=number)
        if on_error is None:
            raise problem from None
        on_error(problem)


def read_json_records(path: str) -> List[Tuple[int, Any]]:
    """A JSON array or JSON Lines file as ``(row, record)`` pairs (row is 1-based)."""
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = parse_json(text, path)
        return list(enumerate(data, start=1))
    if not stripped:
        raise PredictiveBenchError("file is empty", file=path, kind="json")
    return list(iter_json_lines(text, path))


def inside(root: str, candidate: str) -> bool:
    """Whether ``candidate`` resolves to a path inside ``root`` (symlinks followed)."""
    root_real = os.path.realpath(root)
    real = os.path.realpath(candidate)
    return real == root_real or real.startswith(root_real + os.sep)


def safe_join(root: str, *parts: str, row: Any = None, field: str | None = None) -> str:
    """Join ``parts`` under ``root``, refusing anything that would leave it."""
    for part in parts:
        if os.path.isabs(part) or ".." in Path(part).parts:
            raise PredictiveBenchError(f"path '{part}' would leave the data directory",
                                       file=root, row=row, field=field, kind="path")
    joined = os.path.join(root, *parts)
    if not inside(root, joined):
        raise PredictiveBenchError(f"path '{os.path.join(*parts)}' leaves the data directory",
                                   file=root, row=row, field=field, kind="path")
    return joined
