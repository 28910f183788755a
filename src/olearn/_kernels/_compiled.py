"""The kernels of the commonest runs, compiled ahead of time when olearn is installed.

``olearn run --algo pa1 FILE.svm`` calls four kernels: :func:`._parse_libsvm.parse_libsvm`,
:func:`._parse_number.gather_spans` (numbers of more digits than the parser converts exactly),
:func:`._rows.csr_summary` (the input check) and :func:`._binary_linear.binary_linear_pass` (every
binary linear learner without averaging), or, for a batch large enough, in place of the last two
:func:`._binary_linear.checking_linear_pass` (the pass that checks each row as it reads it; see
``LinearLearner._progressive_pass``); ``olearn predict`` and runs of several passes also
:func:`._binary_linear.binary_linear_scores`, the latter with a hold-out
:func:`._binary_linear.held_out_linear_pass`; a frozen binary model's losses (``olearn run -t``)
:func:`._binary_linear.margin_losses`; a VW text file :func:`._parse_vw.count_bounds`,
:func:`._parse_vw.parse_vw` and :func:`._parse_rows.sort_and_sum_rows` instead of the LIBSVM parser, and with
VW's namespace options (``-q``, ``--cubic``, ``--interactions``, ``--ignore``/``--keep``, ``--ngram``/``--skips``)
the same parse keeping each entry's namespace (a second signature of ``parse_vw``),
:func:`._interactions.cross_rows` and the sort of the crossed rows (int64 row pointers: a second signature of
``sort_and_sum_rows``; compiling the three took tens of seconds of a first run); a run from a cache (``-c``)
:func:`._parse_rows.check_csr`; a binary learner with a Mercer kernel (``--kernel``)
:func:`._mercer_binary.dual_pass` and, to predict, :func:`._mercer_binary.dual_scores` (compiling these two took
10-20 s of a first run), with a hold-out :func:`._mercer_binary.held_out_dual_pass`; a tagger
(``--algo pa1-sequence``) :func:`._sequence.sequence_pass` and, to predict, :func:`._sequence.sequence_predict`
(the Viterbi decoding), reading its CoNLL file :func:`._hash_names.hash_names` and
:func:`._parse_rows.sort_and_sum_rows` (the four took 5-30 s of a first run); a second-order learner with a diagonal
covariance (``--algo arow``, ``adagrad``, ``narow``...) :func:`._diagonal.diagonal_pass` or
:func:`._diagonal.checking_diagonal_pass`, with a hold-out :func:`._diagonal.held_out_diagonal_pass`, and, to predict,
:func:`._second_order.mean_scores` (their mean and variances are strided columns of one 2-D array: the type code
"f8[:]A" below); an averaging binary linear learner (``--set average=true``)
:func:`._binary_linear.averaged_linear_pass` or :func:`._binary_linear.checking_averaged_pass`, with a hold-out
:func:`._binary_linear.held_out_averaged_pass`, and, to predict, :func:`._binary_linear.averaged_scores` (its
weights and their running sum: strided columns too); ``olearn serve``, reading a batch body of named features
(:mod:`olearn.serve._packed_batch`), :func:`._json_batch.scan_batch`, :func:`._json_batch.insert_names` and
:func:`._json_batch.packed_rows`; a multiclass learner with one prototype per class (``--oaa K``, whose learner is
``--algo pa1-multiclass`` unless ``--algo`` names another; ``pa-multiclass``, ``pa2-multiclass``, the cost-sensitive
ones) :func:`._multiclass.pa_multiclass_pass`, or, for ``--algo mira`` and ``perceptron-multiclass``,
:func:`._multiclass.multiclass_pass`, with a hold-out :func:`._multiclass.held_out_multiclass_pass`, and, to predict
and for ``olearn run -t``, :func:`._multiclass.multiclass_scores` (compiling them took 1-15 s of a first run; not their
averaging variants, whose weights are strided). Starting numba to load them from its cache costs more than a short
run itself (about 0.65 s: importing numba and its first dispatch), so olearn's build compiles
them once more, with ``numba.pycc``, into an extension module ``_precompiled...``
(:mod:`._build`; ``setup.py``). That module needs only numpy at run time.

Each kernel is taken from the extension when

* the extension was built and stamped with this package's :data:`~olearn._kernels.SOURCE_KEY`
  (an extension built from other sources, say before an edit, is never used);
* it was compiled for this CPU: where the build can identify its CPU (``/proc/cpuinfo``), it
  compiles for that CPU, as numba does (generic x86-64 code was measured 10-20% slower on the
  in-memory pass and its input check), into a module named after that CPU's :func:`cpu_identity`
  (:func:`extension_name`), which a machine of another identity never imports (a wheel moved
  there falls back to numba's kernels rather than run instructions its CPU may lack);
* the environment variable ``OLEARN_KERNELS`` is not ``jit``;
* every argument has the type the kernel was compiled for (:data:`KERNELS`): compiled code checks
  no type, so a call with other types goes to the numba kernel, which compiles for them.

Otherwise the numba kernel of the same source is called. Both compile the same function with the
same LLVM, so they give bit-identical results (tested).

Callers import this module and call ``_compiled.binary_linear_pass(...)``: the names are resolved
at the first call, so importing this module starts no numba.
"""

import hashlib
import importlib
import os

import numpy as np

from . import SOURCE_KEY

# Each kernel compiled ahead of time: its module, then one signature or more, each the type of each argument as
# numba infers it from what the callers pass: "f8[:]" a C-contiguous, aligned, writable 1-D float64 array ("u1[:]r":
# read-only allowed; "f8[:]A" any layout, strided as a column of a 2-D array too: numba's layout "A", whose code reads
# the strides), "i8[:,:]" the same in 2-D, "i8" a Python or numpy int64 integer, "f8" a Python or numpy
# float64 number, "b1" a Python or numpy bool, "u4" and "u8" a numpy uint32 or uint64 scalar, "none" None. A
# trailing "none" may be left out by the caller (a default of None). The extension exports the kernel compiled for
# its n-th signature as export_name(name, n); a call takes the first signature its arguments have.
KERNELS = {
    "parse_libsvm": ("_parse_libsvm", "u1[:]r i8 i8 i8 i8 i8 i4[:] i4[:] f8[:] f8[:] none none i8[:] i8[:,:] i8[:,:]"),
    "gather_spans": ("_parse_number", "u1[:]r i8[:,:] i8 i8 u1[:,:]"),
    "csr_summary": ("_rows", "i8[:] i4[:] u4[:] u4 f8[:] i8"),
    "binary_linear_pass": (
        "_binary_linear",
        "i8[:] i4[:] f8[:] f8[:] f8[:] f8[:] f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:] none none none none",
    ),
    "checking_linear_pass": (
        "_binary_linear",
        "i8[:] i4[:] f8[:] u8 f8[:] f8[:] f8[:] f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:]",
    ),
    "held_out_linear_pass": (
        "_binary_linear",
        "i8[:] i4[:] f8[:] f8[:] f8[:] b1[:] f8[:] f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:]",
    ),
    "binary_linear_scores": ("_binary_linear", "i8[:] i4[:] f8[:] f8[:] f8[:] f8[:] f8[:]"),
    "margin_losses": ("_binary_linear", "i8 f8[:] f8[:]"),
    "count_bounds": ("_parse_vw", "u1[:]r i8 i8"),
    "parse_vw": (
        "_parse_vw",
        "u1[:]r i8 i8 i8 i4[:] i4[:] f8[:] f8[:] f8[:] i8[:] i8[:,:] none none",
        "u1[:]r i8 i8 i8 i4[:] i4[:] f8[:] f8[:] f8[:] i8[:] i8[:,:] i8[:] u1[:]",  # keeping the namespaces
    ),
    "cross_rows": (
        "_interactions", "i4[:] i8[:] f8[:] u1[:] i8 i8 b1[:] i8[:] i8[:] i8[:,:] i8 i8[:] i4[:] f8[:] b1",
    ),
    "sort_and_sum_rows": (
        "_parse_rows",
        "i4[:] i4[:] f8[:] i8 i8[:] i8[:] f8[:]",
        "i8[:] i4[:] f8[:] i8 i8[:] i8[:] f8[:]",  # rows whose namespaces were crossed
    ),
    "dual_pass": (
        "_mercer_binary",
        "i8[:] i4[:] f8[:] f8[:] f8[:] i8[:] i4[:] f8[:] f8[:] f8[:,:] i8[:] u8[:] f8[:] f8[:] i8[:] i8[:] f8[:] f8[:] "
        "f8[:] f8[:] f8[:] i8[:] f8[:]",
    ),
    "held_out_dual_pass": (
        "_mercer_binary",
        "i8[:] i4[:] f8[:] f8[:] f8[:] i8[:] i4[:] f8[:] f8[:] f8[:,:] i8[:] u8[:] f8[:] f8[:] i8[:] i8[:] f8[:] f8[:] "
        "f8[:] f8[:] f8[:] i8[:] f8[:] b1[:]",
    ),
    "dual_scores": ("_mercer_binary", "i8[:] i4[:] f8[:] i8[:] i4[:] f8[:] f8[:] f8[:,:] i8[:] i8[:] f8[:] f8[:] f8[:]"),
    "check_csr": ("_parse_rows", "i4[:]r i4[:]r i8"),
    "sequence_pass": (
        "_sequence",
        "i8[:] i4[:] f8[:] i8[:] i8[:] f8[:] f8[:] f8[:,:] f8[:,:] i8[:] i8[:] i8[:] i8 i8 f8 f8 f8 i8[:] f8[:] f8[:] "
        "f8[:] i8[:] f8[:]",
    ),
    "hash_names": ("_hash_names", "u1[:]r i8[:] i8"),
    "diagonal_pass": (
        "_diagonal",
        "i8[:] i4[:] f8[:] f8[:] f8[:] f8[:]A f8[:]A f8[:] f8[:]A f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:] f8[:] "
        "none none",
    ),
    "checking_diagonal_pass": (
        "_diagonal",
        "i8[:] i4[:] f8[:] u8 f8[:] f8[:] f8[:]A f8[:]A f8[:] f8[:]A f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:] f8[:]",
    ),
    "held_out_diagonal_pass": (
        "_diagonal",
        "i8[:] i4[:] f8[:] f8[:] f8[:] b1[:] f8[:]A f8[:]A f8[:] f8[:]A f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:] "
        "f8[:]",
    ),
    "mean_scores": ("_second_order", "i8[:] i4[:] f8[:] f8[:]A f8[:] f8[:]"),
    "averaged_linear_pass": (
        "_binary_linear", "i8[:] i4[:] f8[:] f8[:] f8[:] f8[:]A f8[:] f8[:]A f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:]",
    ),
    "checking_averaged_pass": (
        "_binary_linear",
        "i8[:] i4[:] f8[:] u8 f8[:] f8[:] f8[:]A f8[:] f8[:]A f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:]",
    ),
    "held_out_averaged_pass": (
        "_binary_linear",
        "i8[:] i4[:] f8[:] f8[:] f8[:] b1[:] f8[:]A f8[:] f8[:]A f8[:] f8[:] i8[:] f8[:] f8[:] f8[:] f8[:]",
    ),
    "averaged_scores": ("_binary_linear", "i8[:] i4[:] f8[:] f8[:]A f8[:] f8[:]A f8[:] f8[:] f8[:]"),
    "sequence_predict": ("_sequence", "i8[:] i4[:] f8[:] i8[:] f8[:,:] f8 i8[:] f8[:,:] f8 f8 i8[:] f8[:]"),
    "scan_batch": ("_json_batch", "u1[:]r i8 i8"),
    "insert_names": ("_json_batch", "i8[:] u1[:] i8[:,:] i8[:] i8 i8"),
    "packed_rows": ("_json_batch", "u1[:]r i8[:] i8[:,:] i8[:] f8[:] i8[:] u1[:] i8[:,:] i8[:] i8[:] b1"),
    "pa_multiclass_pass": (
        "_multiclass",
        "i8[:] i4[:] f8[:] i8[:] f8[:] f8[:,:] f8[:] f8[:,:] i8[:] i8[:] i8[:] f8[:,:] f8[:] i8[:] f8[:] f8[:] f8[:] "
        "f8[:,:] i8[:] f8[:] f8[:] b1[:] f8[:]",
    ),
    "multiclass_pass": (
        "_multiclass",
        "i8[:] i4[:] f8[:] i8[:] f8[:] f8[:,:] f8[:] f8[:,:] i8[:] i8[:] i8[:] f8[:,:] f8[:] i8[:] f8[:] f8[:] f8[:] "
        "f8[:,:] i8[:] f8[:] f8[:] b1[:] f8[:]",
    ),
    "held_out_multiclass_pass": (
        "_multiclass",
        "i8[:] i4[:] f8[:] i8[:] f8[:] b1[:] f8[:,:] f8[:] f8[:,:] i8[:] i8[:] i8[:] f8[:,:] f8[:] i8[:] f8[:] f8[:] "
        "f8[:] f8[:,:] i8[:] f8[:] f8[:] b1[:] f8[:]",
    ),
    "multiclass_scores": ("_multiclass", "i8[:] i4[:] f8[:] f8[:,:] i8 f8 f8[:,:]"),
}

# The extension compiled for the build machine's CPU is named after that CPU's cpu_identity() (its
# machine code may use any instruction of that CPU), so no other CPU imports it; one compiled for the
# generic CPU of the platform is GENERIC_NAME.
GENERIC_NAME = "_precompiled"
CPU_FIELDS = ("vendor_id", "cpu family", "model", "flags")

_INT64 = (int, np.int64)
_FLOAT64 = (float, np.float64)
_BOOL = (bool, np.bool_)
_INT64_RANGE = (-(2**63), 2**63)


def signatures(name):
    """The signatures of the kernel ``name`` in :data:`KERNELS`, each a tuple of argument type codes."""
    return tuple(tuple(codes.split()) for codes in KERNELS[name][1:])


def export_name(name, n):
    """The name under which the extension exports the kernel ``name`` compiled for its ``n``-th signature."""
    return name if n == 0 else f"{name}__{n}"


def key_number(key=SOURCE_KEY):
    """:data:`~olearn._kernels.SOURCE_KEY` as the int64 the extension returns from ``source_key()``."""
    return int(key[:15], 16)


def parse_type(code):
    """``(kind, dtype, ndim, read_only_allowed, any_layout)`` of one argument type of :data:`KERNELS`."""
    if code == "none":
        return ("none", None, 0, False, False)
    if "[" not in code:
        return ("scalar", np.dtype(code), 0, False, False)
    name, dims = code.split("[", 1)
    dims, suffix = dims.split("]")
    return ("array", np.dtype(name), dims.count(":"), "r" in suffix, "A" in suffix)


def accepts(types, args):
    """Whether ``args`` (padded with None to the length of ``types``) have the compiled ``types``."""
    if len(args) > len(types):
        return False
    for (kind, dtype, ndim, read_only, any_layout), arg in zip(types, args + (None,) * (len(types) - len(args))):
        if kind == "none":
            if arg is not None:
                return False
        elif kind == "scalar":
            if dtype == np.int64:
                if type(arg) not in _INT64 or not _INT64_RANGE[0] <= arg < _INT64_RANGE[1]:
                    return False
            elif dtype == np.float64:
                if type(arg) not in _FLOAT64:
                    return False
            elif dtype == np.bool_:
                if type(arg) not in _BOOL:
                    return False
            elif type(arg) is not dtype.type:
                return False
        else:
            if not isinstance(arg, np.ndarray):
                return False
            flags = arg.flags
            if (arg.dtype != dtype or arg.ndim != ndim or not (any_layout or flags.c_contiguous) or not flags.aligned
                    or not (read_only or flags.writeable)):
                return False
    return True


def cpu_identity(path="/proc/cpuinfo"):
    """The first processor's vendor, family, model and flags as ``path`` lists them; None without them.

    LLVM derives the CPU it compiles for ("host") from the same CPUID values, so
    machines of one identity get the same machine code and can run each other's.
    """
    fields = {}
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break  # the end of the first processor's block
                name, _, value = line.partition(":")
                fields[name.strip()] = value.strip()
    except OSError:
        return None
    if not all(fields.get(name) for name in CPU_FIELDS):
        return None
    return "".join(f"{name}: {fields[name]}\n" for name in CPU_FIELDS)


def extension_name(identity):
    """The extension's module name: compiled for the CPU of ``identity``, or for the generic CPU (None)."""
    if identity is None:
        return GENERIC_NAME
    return f"{GENERIC_NAME}_{hashlib.sha256(identity.encode()).hexdigest()[:16]}"


def _load_extension(key=SOURCE_KEY, identity=None):
    """The extension module, if one is to be used here for the sources of ``key`` (see the module docstring).

    ``identity``: this machine's :func:`cpu_identity` (read when not given).
    """
    if os.environ.get("OLEARN_KERNELS", "").lower() == "jit":
        return None
    names = dict.fromkeys([extension_name(identity or cpu_identity()), GENERIC_NAME])
    for name in names:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ImportError:
            continue
        if module.source_key() == key_number(key):
            return module
    return None


EXTENSION = _load_extension()


def _numba_kernel(name):
    return getattr(importlib.import_module(f"{__package__}.{KERNELS[name][0]}"), name)


def _guarded(name, extension):
    """``name`` called in the extension for the first of its signatures the arguments have, else in numba."""
    variants = [(tuple(parse_type(code) for code in codes), getattr(extension, export_name(name, n)))
                for n, codes in enumerate(signatures(name))]

    def call(*args):
        for types, compiled in variants:
            if accepts(types, args):
                return compiled(*args, *(None,) * (len(types) - len(args)))
        return _numba_kernel(name)(*args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{name}``, compiled ahead of time when the arguments have one of its signatures, else numba's."
    return call


def __getattr__(name):
    if name not in KERNELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    kernel = _numba_kernel(name) if EXTENSION is None else _guarded(name, EXTENSION)
    globals()[name] = kernel
    return kernel
