"""One exception type for every input problem, carrying where it happened."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, List, Optional, Tuple, TypeVar, Union


@dataclass
class PredictiveBenchError(ValueError):
    """Bad input: says which file, row and field, and what is wrong.

    ``kind`` becomes the R condition class ``predictivebench_error_<kind>`` when the error
    crosses reticulate, so R users can catch it the same way as R-side errors.
    """

    message: str
    file: Optional[str] = None
    row: Optional[Union[int, str]] = None
    field: Optional[str] = None
    kind: str = "input"

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"{self.file}")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.field is not None:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message

    def as_dict(self) -> dict:
        return {
            "message": self.message,
            "file": self.file,
            "row": None if self.row is None else str(self.row),
            "field": self.field,
            "kind": self.kind,
        }


class MissingDependencyError(PredictiveBenchError):
    """An optional Python package (pyarrow, pyxlsb) is needed and not installed."""


# What every preparer does with a broken item: stop (the default) or leave it out and list it.
ON_ERROR = ("error", "skip")


def check_on_error(on_error: str) -> None:
    if on_error not in ON_ERROR:
        raise PredictiveBenchError(f"on_error must be one of {ON_ERROR}, not {on_error!r}",
                                   kind="argument")


T = TypeVar("T")


def skip_broken(items: Iterable[Tuple[Any, ...]], flatten: Callable[..., T], on_error: str,
                skipped: List[PredictiveBenchError]) -> List[T]:
    """``flatten(*item)`` for each item; a bad item raises, or with ``on_error="skip"`` is
    appended to ``skipped`` and left out."""
    check_on_error(on_error)
    out = []
    for item in items:
        try:
            out.append(flatten(*item))
        except PredictiveBenchError as problem:
            if on_error == "error":
                raise
            skipped.append(problem)
    return out


def report_skipped(skipped: List[PredictiveBenchError], path: str, stream: Any = None,
                   what: str = "record") -> None:
    """Tell the user which items were skipped and why (one line each, on stderr)."""
    if not skipped:
        return
    stream = stream or sys.stderr
    print(f"predictivebench: skipped {len(skipped)} {what}(s) of {path}:", file=stream)
    for problem in skipped:
        print(f"  {problem}", file=stream)
