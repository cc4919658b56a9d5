"""Reading raw files with errors that name the file and line, never a parser traceback."""
from __future__ import annotations

import json
import os
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
            return handle.read()
    except UnicodeDecodeError as error:
        line = Path(path).read_bytes()[: error.start].count(b"\n") + 1
        raise PredictiveBenchError(f"is not valid UTF-8 (byte {error.start})", file=path,
                                   row=line, kind="encoding") from None


def parse_json(text: str, path: str) -> Any:
    """Parse a whole JSON document; a syntax error names its line and column."""
    if not text.strip():
        raise PredictiveBenchError("file is empty", file=path, kind="json")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise PredictiveBenchError(f"invalid JSON at column {error.colno}: {error.msg}",
                                   file=path, row=error.lineno, kind="json") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise unreadable_json(error, path) from None


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
            yield number, json.loads(line)
        except json.JSONDecodeError as error:
            problem = PredictiveBenchError(f"invalid JSON at column {error.colno}: {error.msg}",
                                           file=path, row=number, kind="json")
            if on_error is None:
                raise problem from None
            on_error(problem)
        except (ValueError, RecursionError, MemoryError) as error:
            problem = unreadable_json(error, path, number)
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
