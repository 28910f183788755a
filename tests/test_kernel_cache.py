"""numba's on-disk cache of the kernels is keyed on the source of the whole kernel package.

numba stamps a cached function with its own file only; a kernel that inlines a
function of another module would keep stale machine code after that module
changes. olearn caches every kernel under a directory named after a hash of all
the package's modules, with that hash as the stamp.
"""

import os
import shutil
import subprocess
import sys

import olearn._kernels as kernels
import olearn._kernels._jit as jit
from olearn._kernels import _binary_linear, _steps


def _copy_of_package(tmp_path):
    folder = tmp_path / "_kernels"
    shutil.copytree(os.path.dirname(kernels.__file__), folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_key_is_the_hash_of_the_package_sources(tmp_path):
    assert kernels.source_key(_copy_of_package(tmp_path)) == kernels.SOURCE_KEY


def test_editing_an_inlined_module_changes_the_key(tmp_path):
    """_steps' step rules are inlined into _binary_linear's loops: an edit of _steps alone must change the key."""
    folder = _copy_of_package(tmp_path)
    steps = folder / os.path.basename(_steps.__file__)
    steps.write_text(steps.read_text().replace("return", "return  ", 1))
    edited = kernels.source_key(folder)
    assert edited != kernels.SOURCE_KEY
    (folder / "_new_module.py").write_text("")
    assert kernels.source_key(folder) not in (edited, kernels.SOURCE_KEY)


def test_kernels_are_cached_in_the_keyed_directory_with_the_key_as_stamp():
    cache = _binary_linear.binary_linear_pass._cache
    locator = cache._impl.locator
    assert isinstance(locator, jit.KernelCacheLocator)
    assert cache._cache_path == jit.cache_dir()
    assert os.path.basename(jit.cache_dir()) == f"olearn-kernels-{kernels.SOURCE_KEY}"
    assert locator.get_source_stamp() == kernels.SOURCE_KEY


def test_a_user_numba_cache_dir_is_respected(tmp_path):
    code = "import olearn._kernels._jit as k; print(k.cache_dir())"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(tmp_path / f"olearn-kernels-{kernels.SOURCE_KEY}")


def test_read_only_location_falls_back_to_the_next_root(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")  # no directory can be made under a file, whatever the permissions
    chosen = jit.first_writable([str(blocker / "cache"), str(tmp_path / "user")])
    assert chosen == str(tmp_path / "user" / f"olearn-kernels-{kernels.SOURCE_KEY}")
    assert jit.first_writable([str(blocker / "cache")]) is None
