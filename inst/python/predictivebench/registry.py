"""Which flatteners exist: each benchmark module registers its own, so adding one touches one file."""
from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

import pandas as pd

from .errors import PredictiveBenchError

#: prepare name -> module that defines it (modules are imported lazily, on first use).
MODULES: Dict[str, str] = {
    "futurex": "futurex",
    "dsbench": "dsbench",
    "deltabench": "processbench",
    "processbench": "processbench",
    "probsem": "probsem",
}


@dataclass(frozen=True)
class Preparer:
    """A flattener: ``function(source, **options) -> DataFrame`` in ``schema``'s shape."""

    name: str
    schema: str
    function: Callable[..., pd.DataFrame]
    add_arguments: Optional[Callable[[argparse.ArgumentParser], None]] = None
    help: str = ""
    options: Dict[str, str] = field(default_factory=dict)
    #: whether ``function`` takes a list of files (stacked into one table) as ``source``
    multiple_sources: bool = False


def get_preparer(name: str) -> Preparer:
    if name not in MODULES:
        raise PredictiveBenchError(
            f"unknown benchmark '{name}'; known: {', '.join(sorted(MODULES))}", kind="argument")
    module = importlib.import_module(f".{MODULES[name]}", __package__)
    preparers: Dict[str, Preparer] = getattr(module, "PREPARERS", {})
    if name not in preparers:
        raise PredictiveBenchError(f"module '{MODULES[name]}' defines no preparer '{name}'",
                                   kind="argument")
    return preparers[name]


def available() -> Dict[str, Preparer]:
    """Every preparer whose module imports (a missing optional module is left out)."""
    found = {}
    for name in MODULES:
        try:
            found[name] = get_preparer(name)
        except (ImportError, PredictiveBenchError):
            continue
    return found
