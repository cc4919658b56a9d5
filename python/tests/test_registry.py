"""The registry lists no benchmark: it collects what each module registers."""
import pandas as pd
import pytest

from predictivebench import registry
from predictivebench.errors import PredictiveBenchError


def test_modules_are_found_not_listed():
    modules = registry.benchmark_modules()
    assert set(modules) >= {"futurex", "processbench", "probsem", "dsbench"}
    assert not set(modules) & registry.SHARED_MODULES
    assert registry.registered()["deltabench"] == "processbench"
    assert registry.get_preparer("deltabench").schema == "processbench"


def test_a_module_that_registers_a_preparer_is_collected(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))

    def prepare_toy(source):
        return pd.DataFrame({"id": ["a"], "input": ["x"], "target": ["y"]})

    out = registry.register(registry.Preparer("toy", "toy", prepare_toy, help="a toy"))
    assert out["toy"].module == prepare_toy.__module__.rsplit(".", 1)[-1]
    assert registry.get_preparer("toy").function is prepare_toy
    assert "toy" in registry.available()


def test_a_module_that_fails_to_import_says_why(monkeypatch):
    monkeypatch.setattr(registry, "_FAILED", {"ghost": ImportError("No module named 'ghostlib'")})
    with pytest.raises(ImportError, match="ghostlib"):
        registry.get_preparer("ghost")
    with pytest.raises(PredictiveBenchError, match="unknown benchmark 'nope'"):
        registry.get_preparer("nope")
