"""The API reference (docs/api) builds from the docstrings with warnings as errors, and misses no public name.

Sphinx and numpydoc come with the test extra, so this runs in CI; it is skipped only where
they are not installed. The reference is built once per module run: with ``-n``, its tests are one
``xdist_group`` and run on one worker.
"""

import importlib
import inspect
import pkgutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import olearn

SOURCE = Path(__file__).resolve().parents[1] / "docs" / "api"

pytestmark = pytest.mark.xdist_group("api-reference")

pytest.importorskip("sphinx", reason="the docs tools are not installed (pip install 'olearn[docs]')")
pytest.importorskip("numpydoc", reason="the docs tools are not installed (pip install 'olearn[docs]')")


def _inventory(path):
    """{name: set of roles} of the objects in a Sphinx objects.inv (four header lines, then zlib text)."""
    raw = path.read_bytes()
    body = raw.split(b"\n", 4)[4]
    entries = {}
    for line in zlib.decompress(body).decode("utf-8").splitlines():
        name, role = line.split(" ", 2)[:2]
        entries.setdefault(name, set()).add(role)
    return entries


def _resolve(dotted):
    """The object a documented dotted name stands for (module, then attributes)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise LookupError(dotted)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("api")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(SOURCE), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"the API reference does not build cleanly:\n{done.stderr[-6000:]}"
    return _inventory(out / "objects.inv")


def test_builds_with_warnings_as_errors(built):
    assert "olearn.PAClassifier" in built


def test_every_public_package_has_its_page(built):
    public = [f"olearn.{info.name}" for info in pkgutil.iter_modules(olearn.__path__) if not info.name.startswith("_")]
    missing = [name for name in ["olearn", *public] if "py:module" not in built.get(name, ())]
    assert not missing, f"no page documents {missing}: add docs/api/<name>.rst with '.. olearn-public:: <module>'"


def test_every_public_name_is_documented_once(built):
    """Each name of olearn.__all__ and of the subpackages' __all__ is documented where it lives or where it was first exported."""
    documented = {}
    for name, roles in built.items():
        if roles & {"py:class", "py:function", "py:exception", "py:data"} and not any(
            part.startswith("_") for part in name.split(".")
        ):
            documented.setdefault(id(_resolve(name)), []).append(name)
    modules = ["olearn"] + [
        f"olearn.{info.name}" for info in pkgutil.iter_modules(olearn.__path__) if not info.name.startswith("_")
    ]
    missing, twice = [], []
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                assert "py:module" in built.get(obj.__name__, ()), obj.__name__
            elif not (inspect.isclass(obj) or inspect.isroutine(obj)):
                if "py:data" not in built.get(f"{module_name}.{name}", ()):
                    missing.append(f"{module_name}.{name}")
            elif id(obj) not in documented:
                missing.append(f"{module_name}.{name}")
            elif len(documented[id(obj)]) > 1:
                twice.append(documented[id(obj)])
    assert not missing, f"public names missing from the API reference: {missing}"
    assert not twice, f"documented more than once: {twice}"


def test_the_logistic_learners_probabilities_are_documented(built):
    assert built.get("olearn.OGDClassifier.predict_proba") == {"py:method"}
    assert built.get("olearn.OGDClassifier.predict_log_proba") == {"py:method"}
    # the margin learners with an online calibration document theirs; the others have none
    for name in ("PAClassifier", "AROW", "PNorm", "OnlineSVM"):
        assert built.get(f"olearn.{name}.predict_proba") == {"py:method"}, name
    assert "olearn.PAMulticlass.predict_proba" not in built
