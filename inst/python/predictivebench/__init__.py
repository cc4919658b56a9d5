"""Flatten raw LLM-benchmark files into parquet task tables for the predictivebench R package."""
from .errors import MissingDependencyError, PredictiveBenchError
from .registry import available, get_preparer
from .tables import load_schema, table_columns, validate_table, write_table

__version__ = "0.1.0"


def _checked_source(preparer, source):
    """``source`` as the preparer takes it, and the file name errors report."""
    if isinstance(source, (list, tuple)):
        if not preparer.multiple_sources:
            raise PredictiveBenchError(f"'{preparer.name}' reads one file or folder, not "
                                       f"{len(source)}", field="source", kind="argument")
        return list(source), ", ".join(str(s) for s in source)
    return source, source


def prepare(benchmark: str, source, **options):
    """Flatten ``source`` for ``benchmark`` into a validated task table (a pandas DataFrame).

    ``source`` is a file or folder; a list of files where the flattener stacks several
    (ProcessBench's splits).
    """
    preparer = get_preparer(benchmark)
    source, file = _checked_source(preparer, source)
    return validate_table(preparer.function(source, **options), preparer.schema, file=file)


def prepare_json(benchmark: str, source, **options) -> str:
    """Like :func:`prepare`, returned as column JSON for the R bridge."""
    preparer = get_preparer(benchmark)
    source, _ = _checked_source(preparer, source)
    return table_columns(preparer.function(source, **options), preparer.schema)


__all__ = [
    "MissingDependencyError", "PredictiveBenchError", "available", "get_preparer",
    "load_schema", "prepare", "prepare_json", "table_columns", "validate_table", "write_table",
]
