"""``olearn`` commands run in a fresh interpreter, with the modules each one loaded.

Shared by ``tests/cli/test_cli_startup.py`` (what a command imports) and
``tests/test_compiled_kernels.py`` (a run on the compiled kernels starts no numba).
"""

import subprocess
import sys
import textwrap

# runs ``olearn ARGS...`` and writes the names of the modules loaded by then to stderr
_SCRIPT = textwrap.dedent("""
    import sys
    from olearn.cli import main
    try:
        main(sys.argv[1:])
    except SystemExit as exit:
        assert exit.code == 0, exit.code
    sys.stderr.write(" ".join(sorted(sys.modules)))
""")


def loaded_by(*args, env=None):
    """(stdout, the modules loaded) of ``olearn ARGS`` in a fresh interpreter, which must exit 0."""
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, set(proc.stderr.split())
