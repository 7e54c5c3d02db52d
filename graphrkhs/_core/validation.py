"""Input validation shared by every layer.

Every public function validates its arguments with these helpers *before* any
heavy work starts, so that a wrong call fails in microseconds with a message
that names the argument, says what was wrong and what is accepted.
"""

import numbers
import os
import sys
import threading
import warnings
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_flag",
    "GraphRKHSWarning",
    "ConvergenceWarning",
    "AccuracyWarning",
    "GraphWarning",
    "SelectionWarning",
    "check_random_state",
]


class GraphRKHSWarning(UserWarning):
    """Base class of every warning graphrkhs emits."""


class ConvergenceWarning(GraphRKHSWarning):
    """An iterative solver stopped before reaching the requested tolerance."""


class AccuracyWarning(GraphRKHSWarning):
    """A requested accuracy cannot be reached (e.g. Chebyshev order too low)."""


class GraphWarning(GraphRKHSWarning):
    """A graph is legal but numerically or statistically risky (isolated nodes,
    components without labels, removed self-loops)."""


class SelectionWarning(GraphRKHSWarning):
    """Automatic parameter selection is unreliable: the selected value sits at the
    edge of its grid even after the grid was extended (the criterion still
    improves beyond it), or the criterion is undefined on the whole grid."""


#: The directory of the graphrkhs package (with a trailing separator): frames of files under it are ours.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _caller_frame():
    """The innermost frame of the stack that is not graphrkhs' own code, or None if there is none.

    Skipped: frames of files under the installed package directory, and importlib's bootstrap frames
    (``from graphrkhs.graphs import name`` runs the module's ``__getattr__`` from them; ``warnings.warn``
    skips them likewise).  The stack may end (``f_back`` None) before any frame qualifies: a thread whose
    target is graphrkhs code, a compiled or frozen entry point.
    """
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (os.path.abspath(filename).startswith(_PACKAGE_DIR)
                or ("importlib" in filename and "_bootstrap" in filename)):
            return frame
        frame = frame.f_back
    return None


#: This thread's open :func:`held_warnings` list, if any (per thread: a solve held only its own warnings).
_HOLD = threading.local()


@contextmanager
def held_warnings():
    """Hold the graphrkhs warnings this thread emits (:func:`warn`) in a list of Warning instances instead of
    showing them, for a caller that decides afterwards which still hold (re-emit one with ``warn(w)``).

    Per thread and nestable (an inner hold's re-emitted warnings go to the outer one).  Not
    ``warnings.catch_warnings(record=True)``: that swaps the process-wide filters and ``showwarning``, so a
    solve held the warnings of other threads too, and two threads entering and leaving it in turn left a
    recording ``showwarning`` installed for good (every later warning of the process was lost: two threads of
    ``tikhonov_solution(..., preconditioner="jacobi")``).  Other libraries' warnings are not held.
    """
    outer = getattr(_HOLD, "list", None)
    _HOLD.list = held = []
    try:
        yield held
    finally:
        _HOLD.list = outer


def warn(message, category=GraphRKHSWarning):
    """Emit a graphrkhs warning at the user's call site: the first frame outside the package, however
    many graphrkhs frames lie between (a solver called directly or from an estimator's fit).

    Called from within another library's frames (scikit-learn's ``cross_val_score`` calling ``fit``), the
    warning names that library's line, as every library's warnings do there.  ``message`` may be a
    :class:`Warning` instance (its class is the category then).
    """
    held = getattr(_HOLD, "list", None)
    if held is not None:                # within held_warnings() in this thread: kept, shown (or not) later
        held.append(message if isinstance(message, Warning) else category(message))
        return
    frame = _caller_frame()
    if frame is None:                   # no caller outside graphrkhs: name the line that warned
        warnings.warn(message, category, stacklevel=2)
        return
    try:
        # what warnings.warn does with the frame it counts to: the same filters and registry.  Not
        # module_globals (warnings.warn passes none either): with them linecache asks the frame's __loader__
        # for the source, and the BuiltinImporter of `python -c`, piped stdin and the interactive prompt
        # raises ImportError instead of answering "no source".
        module_globals = frame.f_globals
        warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                               module=module_globals.get("__name__", "<string>"),
                               registry=module_globals.setdefault("__warningregistry__", {}))
    finally:
        del frame                        # no reference cycle through the caller's frame


def check_random_state(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        None draws fresh entropy; an int seeds a new Generator; a Generator is
        returned as is (so a caller's stream advances); a legacy RandomState is
        wrapped by drawing a seed from it.
    """
    if isinstance(random_state, (bool, np.bool_)):     # an int to Python, not a seed to a reader
        raise TypeError(f"random_state must be None, an int or a numpy.random.Generator; got {random_state!r} "
                        "(a bool): pass an int seed.")
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        if random_state is not None and random_state < 0:
            raise ValueError(
                f"random_state must be a non-negative int, None or a numpy Generator; got {random_state}."
            )
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise TypeError(
        "random_state must be None, an int or a numpy.random.Generator; "
        f"got {type(random_state).__name__}."
    )


def holds_bool(values):
    """Whether a grid of parameter values (a number, a sequence, nested sequences or an array) holds a
    boolean.  numpy reads True / False as 1.0 / 0.0, so ``alphas=[True, False]`` was scored as the grid
    (0, 1) without a word; the grid checks refuse it (:func:`numeric_axis`)."""
    if isinstance(values, (bool, np.bool_)):
        return True
    if isinstance(values, np.ndarray):
        if values.dtype == bool:
            return True
        return values.dtype == object and any(holds_bool(v) for v in values.ravel())
    if isinstance(values, (list, tuple)):
        return any(holds_bool(v) for v in values)
    dtype = getattr(values, "dtype", None)          # pandas Series and the like
    try:
        return dtype is not None and np.dtype(dtype) == bool
    except TypeError:                               # an extension dtype numpy does not know
        return False


def numeric_axis(values):
    """``values`` (a grid of parameter values) as a 1-D float64 array, or ``[nan]`` when they are no real
    numbers (strings, complex numbers, ragged lists, booleans): the callers' own check then raises its
    ``ValueError`` naming the argument."""
    if holds_bool(values):
        return np.array([np.nan])
    try:
        return np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        return np.array([np.nan])


def check_flag(value, name):
    """A True/False argument: a string (``"False"`` and ``"no"`` are truthy), a number or None would be read by its
    truth value; raise a TypeError naming ``name`` instead."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r} of type {type(value).__name__}.")
    return bool(value)


def check_option(value, name, options):
    """Check that a string option is one of ``options`` (case-sensitive)."""
    if not isinstance(value, str) or value not in options:
        accepted = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {accepted}; got {value!r}.")
    return value


def check_scalar(value, name, *, kind="real", low=None, high=None, low_inclusive=True,
                 high_inclusive=True, allow_none=False):
    """Validate a scalar parameter and return it as a Python number.

    ``kind`` is ``"int"`` or ``"real"``; bounds are checked with the given
    inclusivity. Booleans are rejected (``True`` is not a neighbour count).
    """
    if value is None and allow_none:
        return None
    if kind == "int":
        ok = isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))
        if not ok:
            raise TypeError(f"{name} must be an int; got {value!r} of type {type(value).__name__}.")
        value = int(value)
    else:
        ok = isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_))
        if not ok:
            raise TypeError(f"{name} must be a real number; got {value!r} of type {type(value).__name__}.")
        try:
            value = float(value)
        except OverflowError:             # an int beyond float64's range (10**400)
            raise ValueError(f"{name} must be finite; got an integer of {len(str(abs(int(value))))} digits, "
                             "beyond the floating-point range.") from None
        if not np.isfinite(value):
            raise ValueError(f"{name} must be finite; got {value}.")
    if low is not None and (value < low or (value == low and not low_inclusive)):
        op = ">=" if low_inclusive else ">"
        raise ValueError(f"{name} must be {op} {low}; got {value}.")
    if high is not None and (value > high or (value == high and not high_inclusive)):
        op = "<=" if high_inclusive else "<"
        raise ValueError(f"{name} must be {op} {high}; got {value}.")
    return value


def check_dtype(dtype, name="dtype"):
    """Resolve a user dtype request to float32 or float64 (None passes through)."""
    if dtype is None:
        return None
    try:
        resolved = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{name} must be None, float32 or float64; got {dtype!r}.") from exc
    if resolved not in (np.float32, np.float64):
        raise ValueError(f"{name} must be None, float32 or float64; got {resolved}.")
    return resolved


def float_dtype(dtype):
    """float32 stays float32 (in either byte order: a big-endian '>f4' array is float32 too); everything else
    computes in float64."""
    return np.dtype(np.float32) if np.dtype(dtype).newbyteorder("=") == np.float32 else np.dtype(np.float64)


#: Where sparse points are accepted (the message of every refusal names them and the fix).
SPARSE_POINTS_ACCEPTED = ("knn_graph, epsilon_graph, GraphSpec.build and the transductive estimators that build "
                          "their graph from X")


def sparse_points_refused(name="X", where=None):
    """The TypeError for sparse points where only dense ones are taken (``where``: who refuses)."""
    who = f"{where} needs" if where else f"{name} must be"
    return TypeError(f"{who} a dense 2-D array of points; got a scipy.sparse matrix.  Sparse points are accepted "
                     f"by {SPARSE_POINTS_ACCEPTED}; here pass {name}.toarray() (a dense copy of "
                     "n_samples * n_features values).")


def check_points(X, name="X", *, min_samples=1, dtype=None, copy=False, accept_sparse=False):
    """Validate a point cloud: a finite, numeric, non-empty 2-D array.

    Returns a C-contiguous float array (float32 kept, anything else as
    float64 unless ``dtype`` says otherwise).  With ``accept_sparse=True`` a
    scipy.sparse matrix or array of any format is returned as a new
    :class:`scipy.sparse.csr_array` instead (duplicates summed, explicit zeros
    removed, sorted indices; never densified); otherwise it raises a TypeError
    naming where sparse points are accepted.
    """
    if sp.issparse(X):
        if not accept_sparse:
            raise sparse_points_refused(name)
        return _check_sparse_points(X, name, min_samples, dtype)
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be a 2-D array of points of shape (n_samples, n_features); got {type(X).__name__}.")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} could not be converted to a 2-D numeric array: {exc}") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must hold numbers; got dtype {arr.dtype}.")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real; got complex dtype {arr.dtype}.")
    if arr.ndim != 2:
        if arr.ndim > 2:
            # a stack of images (or other arrays per sample): one row per sample, not one feature
            inner = arr.shape[1:]
            fix = f"One row per sample: {name}.reshape({arr.shape[0]}, -1)" + (
                f" (images of shape {inner}: with metric='tangent', image_shape={inner})." if arr.ndim == 3 else ".")
        else:
            fix = (f"Reshape a single feature with {name}.reshape(-1, 1), or a single sample with "
                   f"{name}.reshape(1, -1).")
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features); got {arr.ndim}-D with shape {arr.shape}. {fix}")
    if arr.shape[0] < min_samples or arr.shape[1] == 0:
        raise ValueError(
            f"{name} must have at least {min_samples} sample(s) and 1 feature; got shape {arr.shape}."
        )
    target = float_dtype(arr.dtype) if dtype is None else np.dtype(dtype)
    arr = np.array(arr, dtype=target, order="C", copy=copy or None)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries first.")
    return arr


def _check_sparse_points(X, name, min_samples, dtype):
    """:func:`check_points` for a sparse ``X``: a canonical float CSR copy (the caller's is untouched)."""
    X = native_byte_order(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features); got {X.ndim}-D with shape {X.shape}.")
    if X.dtype == object or not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise TypeError(f"{name} must hold numbers; got dtype {X.dtype}.")
    if np.issubdtype(X.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real; got complex dtype {X.dtype}.")
    if X.shape[0] < min_samples or X.shape[1] == 0:
        raise ValueError(f"{name} must have at least {min_samples} sample(s) and 1 feature; got shape {X.shape}.")
    target = float_dtype(X.dtype) if dtype is None else np.dtype(dtype)
    A = sp.csr_array(X, dtype=target, copy=True)
    A.sum_duplicates()            # also sorts the indices
    if not np.isfinite(A.data).all():
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries first.")
    A.eliminate_zeros()
    return A


def check_estimator_points(X, *, min_samples=1, reason=""):
    """:func:`check_points` for estimators, worded as scikit-learn's common checks expect
    for complex, object, 1-D, feature-less and too-small input (one place for all
    estimators, so that the messages stay identical)."""
    if isinstance(X, (list, tuple)) or hasattr(X, "__array__"):
        arr = np.asarray(X)
        if np.iscomplexobj(arr):
            raise ValueError("Complex data not supported: X must be real.")
        if arr.dtype == object:
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"X must hold numbers; got dtype object with non-numeric entries ({exc}).") from exc
        if arr.ndim == 1:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got 1-D with shape {arr.shape}. Reshape your "
                             "data with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single "
                             "sample.")
        if arr.ndim == 2 and arr.shape[1] == 0:
            raise ValueError(f"X has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
        if arr.ndim == 2 and arr.shape[0] < min_samples:
            raise ValueError(f"X has n_samples = {arr.shape[0]} (shape={arr.shape}) while a minimum of "
                             f"{min_samples} is required{reason}.")
        X = arr
    return check_points(X, "X", min_samples=min_samples)


def dense_array(X):
    """``X`` as a NumPy array: a SciPy sparse matrix or array densified, anything else through ``np.asarray``.

    The one place for it: ``np.asarray`` of a sparse matrix is a 0-d *object* array, which the checks after it
    refused with errors about the wrong thing ("dtype object", "shape ()") for a sparse block of signals or
    targets (a one-hot Y from ``LabelBinarizer(sparse_output=True)``, ``K @ scipy.sparse.eye(n)``).
    """
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def check_signals(X, n, name="X", dtype=None):
    """Validate graph signals: shape (n,) or (n, m), real, finite. Returns (2-D array, was_1d).

    Boolean signals (indicators of node sets) are read as 0 / 1 in float64; complex ones are refused.
    """
    arr = dense_array(X)
    # complex: a cast to float would drop the imaginary part with only numpy's ComplexWarning
    check_numeric_dtype(arr, name)
    if arr.dtype == bool:
        arr = arr.astype(np.float64)    # an indicator signal (a node set) is filtered as its 0/1 values
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must have shape (n,) or (n, m); got {arr.ndim}-D with shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(
            f"{name} must have one row per node: expected {n} rows, got {arr.shape[0]} (shape {arr.shape})."
        )
    was_1d = arr.ndim == 1
    target = float_dtype(arr.dtype) if dtype is None else np.dtype(dtype)
    arr = np.asarray(arr, dtype=target)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity.")
    return (arr[:, None] if was_1d else arr), was_1d


def memory_guard(n_bytes, what, alternative, limit=None):
    """Fail fast when an allocation would not fit in memory.

    ``limit`` defaults to 3/4 of the machine's physical memory.
    """
    if limit is None:
        limit = 0.75 * _physical_memory()
    if n_bytes > limit:
        raise MemoryError(f"{what} would need {_human_bytes(n_bytes)}, more than the {_human_bytes(limit)} "
                          f"available; {alternative}")


def _human_bytes(n_bytes):
    """GiB with one decimal, MiB below 1 GiB (so that a small estimate does not read '0.0 GiB')."""
    if n_bytes >= 2**30:
        return f"{n_bytes / 2**30:.1f} GiB"
    return f"{n_bytes / 2**20:.1f} MiB"


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 16 * 2**30


def _as_2d(Y, name="Y"):
    Y = check_numeric_dtype(np.asarray(Y), name)
    if Y.ndim not in (1, 2):
        raise ValueError(f"{name} must have shape (l,) or (l, k); got {Y.shape}.")
    if not np.isfinite(Y).all():
        raise ValueError(f"{name} contains NaN or infinity.")
    return (Y[:, None] if Y.ndim == 1 else Y), Y.ndim == 1



# ---------------------------------------------------------------------------
# Declarative parameter validation (estimators' ``_parameter_constraints``)
# ---------------------------------------------------------------------------
#
# An estimator declares, for every constructor parameter, the list of what it
# accepts; ``validate_params`` checks the stored values against that table at
# the start of ``fit``.  A value is valid when one entry of its list accepts it.
# Entries: an :class:`Interval`, an :class:`Options`, ``None`` (the value None),
# a type (isinstance), or one of the strings "boolean", "callable",
# "array-like", "random_state", "hashable".  (scikit-learn has the same idea in
# its private ``sklearn.utils._param_validation``; this is our own, small
# version, so that we depend on no private scikit-learn module.)

class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter has a value its estimator does not accept.

    Subclasses both ``ValueError`` and ``TypeError`` (as scikit-learn's error of
    the same name), since a wrong type and a wrong value are one mistake here:
    the declared table says what is accepted.
    """


class Interval:
    """Numbers of one kind in an interval.

    Parameters
    ----------
    kind : {"int", "real"}
        "int" accepts integers only; "real" accepts any real number (booleans
        are rejected by both: ``True`` is not a count or a weight).
    low, high : number or None
        Bounds (None: unbounded).
    closed : {"both", "left", "right", "neither"}, default="both"
    """

    def __init__(self, kind, low=None, high=None, *, closed="both"):
        check_option(kind, "kind", ("int", "real"))
        check_option(closed, "closed", ("both", "left", "right", "neither"))
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def is_type(self, value):
        if isinstance(value, (bool, np.bool_)):
            return False
        if self.kind == "int":
            return isinstance(value, (numbers.Integral, np.integer))
        return isinstance(value, (numbers.Real, np.integer, np.floating))

    def __call__(self, value):
        if not self.is_type(value) or not np.isfinite(float(value)):
            return False
        low_ok = self.low is None or value > self.low or (value == self.low and self.closed in ("both", "left"))
        high_ok = self.high is None or value < self.high or (value == self.high and self.closed in ("both", "right"))
        return bool(low_ok and high_ok)

    def __str__(self):
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{'an int' if self.kind == 'int' else 'a float'} in {left}{low}, {high}{right}"


class Options:
    """One of a fixed set of strings."""

    def __init__(self, *options):
        self.options = tuple(options)

    def __call__(self, value):
        return isinstance(value, str) and value in self.options

    def __str__(self):
        return "one of " + ", ".join(repr(o) for o in self.options) if len(self.options) > 1 \
            else repr(self.options[0])


def _is_hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True


_NAMED_CONSTRAINTS = {
    "boolean": (lambda v: isinstance(v, (bool, np.bool_)), "a bool"),
    "callable": (callable, "a callable"),
    "array-like": (lambda v: (hasattr(v, "__array__") or isinstance(v, (list, tuple))) and not isinstance(v, str),
                   "an array-like"),
    "random_state": (lambda v: v is None or isinstance(v, (numbers.Integral, np.integer, np.random.Generator,
                                                            np.random.RandomState))
                     and not isinstance(v, (bool, np.bool_)), "None, an int or a numpy Generator"),
    "hashable": (_is_hashable, "a hashable value"),
}


def _accepts(constraint, value):
    if constraint is None:
        return value is None
    if isinstance(constraint, str):
        return bool(_NAMED_CONSTRAINTS[constraint][0](value))
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return bool(constraint(value))


def _describe(constraint):
    if constraint is None:
        return "None"
    if isinstance(constraint, str):
        return _NAMED_CONSTRAINTS[constraint][1]
    if isinstance(constraint, type):
        return f"a {constraint.__name__}"
    return str(constraint)


def validate_params(params, constraints, owner):
    """Check every parameter in ``params`` against its declared constraints.

    Parameters
    ----------
    params : dict
        Parameter name -> value (an estimator's ``get_params(deep=False)``).
    constraints : dict
        Parameter name -> list of accepted constraints (see the module notes
        above).  A parameter without an entry is an error of the estimator's
        author (every parameter is declared once).
    owner : str
        The estimator's name, for the message.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, what is accepted and the value given.
    """
    for name, value in params.items():
        if name not in constraints:
            raise RuntimeError(f"{owner} declares no constraint for its parameter {name!r}.")
        accepted = constraints[name]
        if any(_accepts(c, value) for c in accepted):
            continue
        described = [_describe(c) for c in accepted]
        what = described[0] if len(described) == 1 else ", ".join(described[:-1]) + " or " + described[-1]
        raise InvalidParameterError(f"{name} must be {what}; got {value!r} ({owner}).")


# ---------------------------------------------------------------------------
# Numerical guards shared by the compiled kernels and the distance code
# ---------------------------------------------------------------------------

def column_scales(A):
    """Per column j of A, the power of two 2^e_j with max_i |A_ij| / 2^e_j in [1/2, 1) (1 for an all-zero
    column, and for a matrix without rows): dividing by it brings every column to unit size exactly (a
    power of two commutes with rounding), so that rank tests and eliminations on a basis do not depend on
    the units of its functions."""
    A = np.asarray(A)
    peak = np.abs(A).max(axis=0) if A.shape[0] else np.zeros(A.shape[1])
    return np.where(peak > 0, np.ldexp(1.0, np.frexp(np.where(peak > 0, peak, 1.0))[1]), 1.0)


def power_of_two_exponent(*arrays):
    r"""An exponent e such that :math:`\max |x| / 2^e \in [1/2, 2)` over all ``arrays``.

    Rescaling points with ``np.ldexp(X, -e)`` is exact in binary floating
    point and keeps the dtype (barring entries so small relative to the
    largest one that they underflow, which cannot change any distance at the
    precision of the largest), so distances computed on the rescaled points
    and multiplied by :math:`2^e` are those of ``X`` -- but their squares can
    no longer overflow (:math:`|x| \gtrsim 10^{154}` in float64,
    :math:`10^{19}` in float32) or underflow.  Returns 0 for all-zero input.
    """
    top = 0.0
    for a in arrays:
        if a.size:
            top = max(top, float(np.max(np.abs(a))))
    if top == 0.0 or not np.isfinite(top):
        return 0
    # frexp: top = f 2^e with f in [1/2, 1); 2^1024 is not a float64, so cap at 2^1023.
    return min(int(np.frexp(top)[1]), 1023)


def check_finite_array(a, name, fix="remove or impute those entries first"):
    """Raise a ValueError naming ``name`` when ``a`` holds NaN or infinity."""
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinity; {fix}.")
    return a


def sparse_storable(a):
    """A dense array in a dtype scipy.sparse can hold: float16 upcast to float64, a non-native byte order (a
    big-endian '>f8' array read from a FITS / HDF5 / .npy file) made native, anything else as is.

    scipy.sparse has neither half precision nor non-native byte orders, and its error ("scipy.sparse does not
    support dtype >f8") names neither the argument nor a fix; graphs and Laplacians given as float16 arrays are
    upcast to float64 like integer and boolean ones (and like points, :func:`check_points`).
    """
    a = native_byte_order(np.asarray(a))
    return a.astype(np.float64) if a.dtype == np.float16 else a


def native_byte_order(a):
    """``a`` (an array or a scipy.sparse matrix) with its values in the machine's byte order: a copy when they are
    not (a big-endian '>f8' array, or a CSR matrix built from such data, which scipy.sparse's own operations refuse
    with "scipy.sparse does not support dtype >f8"), ``a`` itself otherwise."""
    return a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("="))


def check_numeric_dtype(a, name):
    """Raise a TypeError naming ``name`` unless ``a`` (array or sparse matrix) holds real numbers.

    Object and string arrays would fail later inside a ufunc or LAPACK with a
    message that names no argument; complex arrays would lose their imaginary
    part with only a ``ComplexWarning``.
    """
    dtype = a.dtype
    if dtype == object or not (np.issubdtype(dtype, np.number) or dtype == bool):
        raise TypeError(f"{name} must be a real numeric array (int, float or bool); got dtype {dtype}.")
    if np.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"{name} must be a real numeric array; got complex dtype {dtype}. Pass its real part "
                        f"({name}.real) if the imaginary part is rounding noise.")
    return a


_SHAPE_TEXT = {1: "(n,)", 2: "(n, m)", 3: "(n, m, k)"}


def check_matrix(A, name, *, ndim=2, square=False, allow_sparse=False, finite=True, min_size=1,
                 dtype=None):
    """Validate a numeric array argument at the entry of a function, before any work.

    The one shared check for the kernel matrices, hat matrices, Laplacians and
    right-hand sides that the solvers and the leave-one-out helpers take.

    Parameters
    ----------
    A : array_like or sparse matrix
    name : str
        The argument's name, used in every message.
    ndim : int or tuple of int, default=2
        Accepted number(s) of dimensions.
    square : bool, default=False
        Require a square 2-D matrix.
    allow_sparse : bool, default=False
        Pass scipy.sparse input through (checked, not densified); otherwise a
        sparse matrix is densified.
    finite : bool, default=True
        Reject NaN and infinity.
    min_size : int, default=1
        Smallest accepted length of every axis.
    dtype : dtype or None
        Convert to this dtype; None keeps float32 and makes anything else float64.

    Returns
    -------
    ndarray or sparse matrix

    Raises
    ------
    TypeError
        Object, string or complex data (names ``name``).
    ValueError
        Wrong number of dimensions, non-square, empty, or non-finite (names ``name``).
    """
    ndims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if A is None or isinstance(A, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array; got {type(A).__name__}.")
    if sp.issparse(A):
        if not allow_sparse:
            A = A.toarray()
        elif 2 not in ndims:
            raise TypeError(f"{name} must be a dense array; got a sparse matrix.")
    if not sp.issparse(A):
        try:
            A = np.asarray(A)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"{name} could not be converted to a numeric array: {exc}") from exc
    check_numeric_dtype(A, name)
    shape_txt = " or ".join(_SHAPE_TEXT.get(d, f"{d}-D") for d in ndims)
    if square and (A.ndim != 2 or A.shape[0] != A.shape[1]):
        raise ValueError(f"{name} must be a square (n, n) matrix; got {A.ndim}-D with shape {A.shape}.")
    if A.ndim not in ndims:
        raise ValueError(f"{name} must have shape {shape_txt}; got {A.ndim}-D with shape {A.shape}.")
    if min(A.shape, default=1) < min_size:
        raise ValueError(f"{name} must have at least {min_size} entry along every axis; got shape {A.shape}.")
    target = float_dtype(A.dtype) if dtype is None else np.dtype(dtype)
    if A.dtype != target:
        A = A.astype(target)
    if finite:
        check_finite_array(A.data if sp.issparse(A) else A, name)
    return A


def check_index_array(idx, upper, name, *, lower=0):
    """Check that every entry of an integer array lies in ``[lower, upper)``.

    Called on every index array before it reaches a compiled (numba) kernel,
    which reads and writes without bounds checks: an index out of range there
    corrupts memory instead of raising.
    """
    idx = np.asarray(idx)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer index array; got dtype {idx.dtype}.")
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < lower or hi >= upper:
            bad = lo if lo < lower else hi
            raise ValueError(
                f"{name} holds the index {int(bad)}, outside the valid range [{lower}, {upper}); "
                "the index arrays are inconsistent with the array shapes."
            )
    return idx


def check_csr_structure(A, name="A", n_cols=None):
    """Check the index arrays of a CSR matrix before a compiled kernel walks them.

    ``indptr`` must have ``n_rows + 1`` non-decreasing entries from 0 to at
    most ``len(indices)`` (= ``len(data)``), and every column index must lie in
    ``[0, n_cols)`` (``n_cols`` defaults to ``A.shape[1]``).
    """
    n_rows = A.shape[0]
    n_cols = A.shape[1] if n_cols is None else n_cols
    indptr, indices = np.asarray(A.indptr), np.asarray(A.indices)
    if indptr.shape != (n_rows + 1,):
        raise ValueError(f"{name}.indptr must have {n_rows + 1} entries for {n_rows} rows; got {indptr.shape[0]}.")
    if indices.shape[0] != np.asarray(A.data).shape[0]:
        raise ValueError(f"{name}.indices and {name}.data must have the same length; got "
                         f"{indices.shape[0]} and {np.asarray(A.data).shape[0]}.")
    if n_rows and (indptr[0] != 0 or indptr[-1] > indices.shape[0] or np.any(indptr[1:] < indptr[:-1])):
        raise ValueError(f"{name}.indptr must be non-decreasing from 0 to at most len({name}.indices) = "
                         f"{indices.shape[0]}; the CSR structure is corrupt (rebuild it with scipy.sparse).")
    check_index_array(indices[:indptr[-1]] if n_rows else indices[:0], n_cols, f"{name}.indices")
    return A


def check_class_priors(class_priors, k):
    """``class_priors`` as a float64 array of k non-negative proportions summing to 1 (ValueError otherwise;
    TypeError for anything but real numbers: strings such as ``["0.5", "0.5"]`` or booleans)."""
    try:
        raw = np.asarray(class_priors)
        if raw.dtype.kind not in "fiu":      # numpy parsed "0.5" and True as numbers
            raise TypeError
        b = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"class_priors must be an array of {k} class proportions; got {class_priors!r}.") from None
    if b.shape != (k,):
        raise ValueError(f"class_priors must have one entry per class ({k}, in the order of classes_); "
                         f"got shape {b.shape}.")
    if not np.isfinite(b).all() or (b < 0).any():
        raise ValueError(f"class_priors must be finite and non-negative; got {b!r}.")
    if abs(b.sum() - 1.0) > 1e-6:
        raise ValueError(f"class_priors must sum to 1 (they are class proportions); got sum {b.sum():.6g}. "
                         "Divide them by their sum.")
    return b
