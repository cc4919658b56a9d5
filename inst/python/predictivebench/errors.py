"""One exception type for every input problem, carrying where it happened."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union


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
