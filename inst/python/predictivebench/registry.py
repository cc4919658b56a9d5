"""Which flatteners exist: each benchmark module registers its own with ``register()``, and
the registry collects what the package's modules registered, so adding a benchmark adds one
module and touches no list here."""
from __future__ import annotations

import argparse
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

import pandas as pd

from .errors import PredictiveBenchError

#: modules that hold shared machinery, not benchmarks
SHARED_MODULES = frozenset({"errors", "readers", "registry", "tables", "__main__"})

#: prepare name -> Preparer, filled by register() as benchmark modules are imported
_REGISTERED: Dict[str, "Preparer"] = {}
#: benchmark module -> the ImportError that kept it out (an optional dependency missing)
_FAILED: Dict[str, ImportError] = {}


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
    #: the module that registered it (set by register())
    module: str = ""


def register(*preparers: Preparer) -> Dict[str, Preparer]:
    """Called by a benchmark module for its own flatteners; returns them by name."""
    out = {}
    for preparer in preparers:
        module = preparer.function.__module__.rsplit(".", 1)[-1]
        registered = Preparer(**{**preparer.__dict__, "module": module})
        _REGISTERED[preparer.name] = registered
        out[preparer.name] = registered
    return out


def benchmark_modules() -> list:
    """The package's benchmark modules: every module but the shared machinery."""
    package = importlib.import_module(__package__)
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__)
                  if info.name not in SHARED_MODULES and not info.name.startswith("_"))


def _collect() -> None:
    for name in benchmark_modules():
        if name in _FAILED:
            continue
        try:
            importlib.import_module(f".{name}", __package__)
        except ImportError as error:
            _FAILED[name] = error


def registered() -> Dict[str, str]:
    """Prepare name -> the module that registered it, for every module that imports."""
    _collect()
    return {name: preparer.module for name, preparer in sorted(_REGISTERED.items())}


def get_preparer(name: str) -> Preparer:
    _collect()
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name in _FAILED:
        # the benchmark's own module is there but can't be imported: say why
        raise _FAILED[name]
    known = sorted(set(_REGISTERED) | set(_FAILED))
    raise PredictiveBenchError(f"unknown benchmark '{name}'; known: {', '.join(known)}",
                               kind="argument")


def available() -> Dict[str, Preparer]:
    """Every preparer whose module imports (a missing optional module is left out)."""
    _collect()
    return dict(sorted(_REGISTERED.items()))
