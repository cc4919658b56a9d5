"""The pip project: one version string, and an sdist and a wheel that hold the module and schemas.

The builds call setuptools' PEP 517 hooks directly (what ``python -m build --no-isolation`` does),
so they run offline with the setuptools and wheel already installed.
"""
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import predictivebench

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "inst" / "python" / "predictivebench"


def module_files():
    """The files the packages must carry: every .py file and every schema, relative to the module."""
    py = {p.relative_to(MODULE).as_posix() for p in MODULE.glob("*.py")}
    schemas = {p.relative_to(MODULE).as_posix() for p in MODULE.glob("schemas/*.json")}
    return py, schemas


def description_version():
    text = (ROOT / "DESCRIPTION").read_text(encoding="utf-8")
    return re.search(r"^Version:\s*(\S+)\s*$", text, flags=re.MULTILINE).group(1)


def test_the_python_version_is_the_r_packages_version():
    assert predictivebench.__version__ == description_version()


def test_pyproject_has_no_second_version_string():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^version\s*=\s*\"", text, flags=re.MULTILINE) is None
    assert 'dynamic = ["version"]' in text
    assert 'attr = "predictivebench.__version__"' in text


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the sdist and the wheel from a copy of the project files (the checkout stays clean)."""
    pytest.importorskip("wheel")
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 61:
        pytest.skip("setuptools >= 61 reads pyproject.toml")
    src = tmp_path_factory.mktemp("src")
    shutil.copy2(ROOT / "pyproject.toml", src)
    shutil.copy2(ROOT / "LICENSE", src)
    shutil.copy2(ROOT / "LICENSE.md", src)
    shutil.copytree(ROOT / "python", src / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
    shutil.copytree(MODULE, src / "inst" / "python" / "predictivebench",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    names = []
    for hook in ("build_sdist", "build_wheel"):
        # setuptools logs to stdout too, so the file name comes back on a marked line.
        code = ("from setuptools import build_meta as b; import sys; "
                f"print('BUILT=' + b.{hook}(sys.argv[1]))")
        run = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src,
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-3000:]
        names += [line[6:] for line in run.stdout.splitlines() if line.startswith("BUILT=")]
    sdist, wheel = names
    return out / sdist, out / wheel


def test_the_sdist_holds_the_module_and_its_schemas(built):
    sdist, _ = built
    version = predictivebench.__version__
    assert sdist.name == f"predictivebench-{version}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
    prefix = f"predictivebench-{version}/inst/python/predictivebench/"
    py, schemas = module_files()
    assert {prefix + f for f in py | schemas} <= names
    assert f"predictivebench-{version}/pyproject.toml" in names
    # An sdist must build on its own: the README the metadata names is in it too.
    assert f"predictivebench-{version}/python/README.md" in names


def test_the_sdist_builds_a_wheel_on_its_own(built, tmp_path):
    sdist, _ = built
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path)
    src = tmp_path / sdist.name[:-len(".tar.gz")]
    code = "from setuptools import build_meta as b; import sys; print('BUILT=' + b.build_wheel(sys.argv[1]))"
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=src,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    wheel = [line[6:] for line in run.stdout.splitlines() if line.startswith("BUILT=")][0]
    with zipfile.ZipFile(tmp_path / wheel) as zf:
        assert "predictivebench/schemas/futurex.json" in zf.namelist()


def test_the_wheel_holds_the_module_and_its_schemas(built):
    _, wheel = built
    version = predictivebench.__version__
    assert wheel.name.startswith(f"predictivebench-{version}-py3-none-any")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        metadata = zf.read(f"predictivebench-{version}.dist-info/METADATA").decode()
    py, schemas = module_files()
    assert {"predictivebench/" + f for f in py | schemas} <= names
    assert f"\nVersion: {version}\n" in metadata


def test_the_installed_wheel_imports_without_the_source_tree(built, tmp_path):
    _, wheel = built
    venv = tmp_path / "venv"
    # System site packages give pandas; the module itself comes only from the wheel.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                              "--quiet", str(wheel)], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    probe = ("import predictivebench as p; print(p.__version__); print(p.__file__); "
             "print(sorted(p.available())); print(len(p.load_schema('futurex')['columns']))")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([str(python), "-c", probe], cwd=tmp_path, capture_output=True,
                         text=True, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    version, where, available, n_columns = run.stdout.strip().splitlines()
    assert version == predictivebench.__version__
    assert Path(where).resolve().is_relative_to(venv.resolve())
    assert "futurex" in available
    assert int(n_columns) > 0


MIT_GRANT = "Permission is hereby granted, free of charge, to any person obtaining a copy"
MIT_DISCLAIMER = 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND'


def test_the_wheel_carries_the_full_mit_text_not_the_r_stub(built):
    _, wheel = built
    with zipfile.ZipFile(wheel) as zf:
        dist_info = [n for n in zf.namelist() if ".dist-info/" in n]
        licences = {n: zf.read(n).decode("utf-8") for n in dist_info
                    if Path(n).name.upper().startswith("LICEN")}
    assert licences, f"no licence file in {dist_info}"
    for name, text in licences.items():
        # R's stub is two lines, "YEAR: ..." and "COPYRIGHT HOLDER: ...": never a licence text.
        assert "COPYRIGHT HOLDER:" not in text, name
        assert MIT_GRANT in " ".join(text.split()), name
        assert MIT_DISCLAIMER in text, name


def test_the_sdist_carries_the_full_mit_text(built):
    sdist, _ = built
    version = predictivebench.__version__
    with tarfile.open(sdist) as tar:
        text = tar.extractfile(f"predictivebench-{version}/LICENSE.md").read().decode("utf-8")
    assert MIT_GRANT in " ".join(text.split())
