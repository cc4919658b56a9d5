"""Flatten raw LLM-benchmark files into parquet task tables for the predictivebench R package."""
from .errors import MissingDependencyError, PredictiveBenchError
from .registry import available, get_preparer
from .tables import load_schema, table_columns, validate_table, write_table

__version__ = "0.1.0"


def prepare(benchmark: str, source: str, **options):
    """Flatten ``source`` for ``benchmark`` into a validated task table (a pandas DataFrame)."""
    preparer = get_preparer(benchmark)
    return validate_table(preparer.function(source, **options), preparer.schema, file=source)


def prepare_json(benchmark: str, source: str, **options) -> str:
    """Like :func:`prepare`, returned as column JSON for the R bridge."""
    preparer = get_preparer(benchmark)
    return table_columns(preparer.function(source, **options), preparer.schema)


__all__ = [
    "MissingDependencyError", "PredictiveBenchError", "available", "get_preparer",
    "load_schema", "prepare", "prepare_json", "table_columns", "validate_table", "write_table",
]
