"""Issue 13, deliverable 1: the bad-input table of every public function, class and estimator.

Every row is one (function, input class) pair generated from a compact per-function spec below.
Its expected behaviour is one of

* ``Raises(E, "arg")``: exactly one exception of type ``E`` whose message names the argument
  (``match=``), raised before any heavy work;
* ``Warns(W, check)``: a warning of category ``W`` (a documented fallback, e.g. an unlabeled
  component) and a result that passes ``check``;
* ``Correct(check)``: a result that passes ``check`` -- always "every number is finite", plus,
  where the mathematics gives one, an oracle (``L 1 = 0``, a constant target reproduced, linearity
  under scaling, the answer on a shifted copy equal to the unshifted one ...).

Input classes (the columns of the table in the closing note): NaN, inf, object dtype, complex,
strings, empty, one sample, wrong shape, huge (|x| ~ 1e150), tiny (~1e-150), offset (+1e8), unknown
option, no edges, isolated node, components, near-disconnected (one bridge of weight 1e-16), no
labels, one class, marker collision (out-of-range or duplicate labeled indices; estimators: the
unlabeled marker used as a class), float32 (estimators: within sqrt(eps32) of the float64 fit).

No row is marked as a known failure: the bugs this table found were fixed, not marked.  Rows of the findings of issue 13 say so in a comment.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg)

import graphrkhs as g
from graphrkhs import filters

# ---------------------------------------------------------------------------------------------
# Expected behaviours
# ---------------------------------------------------------------------------------------------


def _finite(obj) -> bool:
    """Every number reachable in a result is finite (arrays, sparse, tuples, dicts, operators)."""
    if obj is None or isinstance(obj, (str, bool, np.bool_)):
        return True
    if isinstance(obj, (int, float, np.integer, np.floating)):
        return bool(np.isfinite(obj))
    if sp.issparse(obj):
        return bool(np.isfinite(obj.data).all())
    if isinstance(obj, np.ndarray):
        return bool(np.isfinite(obj).all()) if obj.dtype.kind in "fciub" else True
    if isinstance(obj, dict):
        return all(_finite(v) for v in obj.values())
    if isinstance(obj, (tuple, list)):
        return all(_finite(v) for v in obj)
    return True  # objects (kernels, operators, graphs): their checks apply them


@dataclass
class Raises:
    exc: type
    arg: str  # the message must name this argument

    def label(self):
        return "/".join(e.__name__ for e in self.exc) if isinstance(self.exc, tuple) else self.exc.__name__


@dataclass
class Correct:
    check: Callable[[Any], Any] | None = None
    note: str = "correct"

    def label(self):
        return self.note


@dataclass
class Warns:
    category: type
    check: Callable[[Any], Any] | None = None
    note: str = "fallback"

    def label(self):
        return f"{self.category.__name__} + {self.note}"


@dataclass
class Case:
    func: str
    klass: str
    call: Callable[[], Any]
    expect: Any

    @property
    def id(self):
        return f"{self.func}-{self.klass}".replace(" ", "_")


CASES: list[Case] = []


def add(func, klass, call, expect):
    CASES.append(Case(func, klass, call, expect))



# ---------------------------------------------------------------------------------------------
# Base data: small, valid, connected
# ---------------------------------------------------------------------------------------------

RNG = np.random.default_rng(0)
N = 30
X = RNG.normal(size=(N, 2))
W = g.knn_graph(X, 6)
assert g.connected_components(W)[0] == 1
L = g.laplacian(W, "normalized")
LC = g.laplacian(W)
SIG = RNG.normal(size=(N, 2))
LAB = np.array([0, 1, 2, 3])
YR = np.array([1.0, 1.0, -1.0, -1.0])               # regression targets on LAB
YOH = np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]])  # one-hot classes on LAB
PHI = filters.Heat(1.0)
K = g.gaussian_kernel(X, sigma=1.0)
KS = K[np.ix_(LAB, LAB)]
M = g.graph_penalty(W)

# Graph variants
EMPTY_GRAPH = sp.csr_array((N, N))
_iso = W.tolil()
_iso[N - 1, :] = 0
_iso[:, N - 1] = 0
ISOLATED = sp.csr_array(_iso)
ISOLATED.eliminate_zeros()
_half = g.knn_graph(X[:15], 5)
TWO_COMP = sp.csr_array(sp.block_diag([_half, _half]))
_near = TWO_COMP.tolil()
_near[0, 15] = _near[15, 0] = 1e-16
NEAR = sp.csr_array(_near)
LAB2 = np.array([0, 1, 15, 16])  # labels in both halves: nearly disconnected but labeled on each side
LAB1 = np.array([0, 1, 2, 3])    # labels in the first half only: the second half is unlabeled


def _with(a, value, where=(0,)):
    a = np.array(a, dtype=float, copy=True)
    a[where] = value
    return a


def _obj(a):
    o = np.asarray(a, dtype=float).astype(object)
    o.flat[0] = None
    return o


ARRAY_CLASSES = {
    "NaN": lambda a: _with(a, np.nan, (0,) * np.ndim(a)),
    "inf": lambda a: _with(a, np.inf, (0,) * np.ndim(a)),
    "object dtype": _obj,
    "complex": lambda a: np.asarray(a, dtype=float) + 1j,
    "strings": lambda a: np.full(np.shape(a), "a"),
    "empty": lambda a: np.asarray(a, dtype=float)[:0],
    "wrong shape": lambda a: np.asarray(a, dtype=float)[..., None, None],
}
ARRAY_DEFAULT = {
    # None in an object array reads as a missing value: TypeError or ValueError, naming the argument
    "NaN": ValueError, "inf": ValueError, "object dtype": (TypeError, ValueError), "complex": TypeError,
    "strings": TypeError, "empty": ValueError, "wrong shape": ValueError,
}


def bad_arrays(func, arg, base, call, *, skip=(), override=None, name=None):
    """The seven bad-array classes of argument ``arg`` (base value ``base``) of ``func``;
    ``call(value)`` runs ``func`` with ``arg`` replaced.  ``override`` maps a class to another
    expectation."""
    override = override or {}
    for klass, mutate in ARRAY_CLASSES.items():
        if klass in skip:
            continue
        expect = override.get(klass, Raises(ARRAY_DEFAULT[klass], name or arg))
        value = mutate(base)
        label = klass if name is None else f"{klass} ({arg})"
        add(func, label, (lambda v=value: call(v)), expect)


def allclose(expected, rtol=1e-8, atol=0.0):
    def check(result):
        np.testing.assert_allclose(_dense(result), _dense(expected), rtol=rtol, atol=atol)
    return check


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def finite(result):
    assert _finite(result)


def unknown_option(func, call, arg, value="bogus", exc=ValueError):
    add(func, "unknown option", call, Raises(exc, arg))


# ---------------------------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------------------------

def _graph_checks(Wr):
    assert sp.issparse(Wr) and Wr.format == "csr"
    assert _finite(Wr)
    assert abs(Wr - Wr.T).max() == 0 if Wr.nnz else True
    assert (Wr.data >= 0).all() and not Wr.diagonal().any()


for fname, fn in (("knn_graph", lambda Z, **k: g.knn_graph(Z, 3, **k)),
                  ("epsilon_graph", lambda Z, **k: g.epsilon_graph(Z, 1.0, **k))):
    bad_arrays(fname, "X", X, fn)
    add(fname, "one sample", lambda fn=fn: fn(X[:1]),
        Raises(ValueError, "X") if fname == "knn_graph"
        else Correct(lambda Wr: (_graph_checks(Wr), Wr.shape == (1, 1), Wr.nnz == 0)))
    ref = fn(X)
    for klass, c in (("huge", 1e150), ("tiny", 1e-150)):
        if fname == "knn_graph":  # the gaussian width defaults to the data scale: scale-free
            add(fname, klass, lambda fn=fn, c=c: fn(c * X), Correct(allclose(ref, rtol=1e-9)))
        else:
            add(fname, klass, lambda c=c: g.epsilon_graph(c * X, c, weight="binary"),
                Correct(allclose(g.epsilon_graph(X, 1.0, weight="binary"))))
    add(fname, "offset", lambda fn=fn: fn(X + 1e8), Correct(lambda Wr: (_graph_checks(Wr), Wr.nnz > 0)))
    unknown_option(fname, lambda fn=fn: fn(X, weight="bogus"), "weight")
    unknown_option(fname, lambda fn=fn: fn(X, metric="bogus"), "metric")
    add(fname, "cosine: zero row", lambda fn=fn: fn(_with(X, 0.0, (0, slice(None))), metric="cosine"),
        Raises(ValueError, "metric"))
    add(fname, "cosine: huge", lambda fn=fn: fn(1e300 * X, metric="cosine"),
        Correct(allclose(fn(X, metric="cosine"), rtol=1e-9)))
add("knn_graph", "an integer sigma beyond float64", lambda: g.knn_graph(X, 3, sigma=10 ** 400),
    Raises(ValueError, "sigma must be finite"))
add("knn_graph", "duplicate points", lambda: g.knn_graph(np.zeros((10, 2)), 3),
    Correct(lambda Wr: (_graph_checks(Wr), Wr.nnz > 0)))


def _graph_input_cases(fname, fn, *, skip=(), override=None, name="adjacency"):
    """Bad graphs for a function taking a graph ``W``: bad arrays plus edge-case graphs."""
    Wd = W.toarray()
    override = {"empty": Raises(ValueError, "square"), **(override or {})}
    bad_arrays(fname, "W", Wd, fn, skip=("wrong shape",) + tuple(skip), override=override, name=name)
    add(fname, "wrong shape", lambda: fn(np.ones((3, 4))), Raises(ValueError, "square"))
    add(fname, "negative weight", lambda: fn(_with(Wd, -1.0, (0, 1))), Raises(ValueError, "negative"))


# symmetrize: adjacency-like; everything about weights is the user's
_graph_input_cases("symmetrize", g.symmetrize, name="W|adjacency")
add("symmetrize", "no edges", lambda: g.symmetrize(EMPTY_GRAPH), Correct(lambda r: r.nnz == 0))
unknown_option("symmetrize", lambda: g.symmetrize(W, mode="bogus"), "mode")

def _lap_checks(kind):
    def check(Lr):
        assert _finite(Lr)
        one = np.ones(Lr.shape[0])
        if kind == "combinatorial":
            np.testing.assert_allclose(Lr @ one, 0, atol=1e-12 * max(1, abs(Lr).max()))
    return check


_graph_input_cases("laplacian", g.laplacian)
unknown_option("laplacian", lambda: g.laplacian(W, "bogus"), "kind")
for klass, Wx in (("no edges", EMPTY_GRAPH), ("isolated node", ISOLATED), ("components", TWO_COMP),
                  ("near-disconnected", NEAR)):
    add("laplacian", klass, lambda Wx=Wx: g.laplacian(Wx), Correct(_lap_checks("combinatorial")))
    # normalized: an isolated node has L_ii = 0 (von Luxburg's convention), never NaN
    add("laplacian", f"{klass} (normalized)", lambda Wx=Wx: g.laplacian(Wx, "normalized"),
        Correct(finite))
add("laplacian", "huge", lambda: g.laplacian(1e150 * W), Correct(allclose(1e150 * LC.toarray())))
add("laplacian", "tiny", lambda: g.laplacian(1e-150 * W, "normalized"), Correct(allclose(L.toarray())))

_graph_input_cases("degrees", g.degrees)
add("degrees", "no edges", lambda: g.degrees(EMPTY_GRAPH), Correct(allclose(np.zeros(N))))

_graph_input_cases("connected_components", g.connected_components)
add("connected_components", "no edges", lambda: g.connected_components(EMPTY_GRAPH),
    Correct(lambda r: r[0] == N))
add("connected_components", "components", lambda: g.connected_components(TWO_COMP),
    Correct(lambda r: r[0] == 2))
add("connected_components", "near-disconnected", lambda: g.connected_components(NEAR),
    Correct(lambda r: r[0] == 1))

_graph_input_cases("unlabeled_components", lambda Wx: g.unlabeled_components(Wx, LAB))
add("unlabeled_components", "components", lambda: g.unlabeled_components(TWO_COMP, LAB1),
    Correct(lambda r: np.array_equal(r, np.arange(N) >= 15)))
add("unlabeled_components", "no labels", lambda: g.unlabeled_components(W, []),
    Correct(lambda r: r.all()))
add("unlabeled_components", "marker collision", lambda: g.unlabeled_components(W, [0, N]),
    Raises(ValueError, "labeled"))

_graph_input_cases("as_adjacency", g.as_adjacency)
add("as_adjacency", "asymmetric", lambda: g.as_adjacency(sp.triu(W, format="csr")),
    Raises(ValueError, "symmetric"))
add("as_adjacency", "self-loops", lambda: g.as_adjacency(W + sp.eye_array(N)),
    Warns(g.GraphWarning, lambda r: not r.diagonal().any(), "self-loops removed"))
unknown_option("as_adjacency", lambda: g.as_adjacency("bogus"), "G", exc=TypeError)

for fname, fn in (("to_pygsp", g.to_pygsp), ("to_networkx", g.to_networkx)):
    add(fname, "NaN", lambda fn=fn: fn(_with(W.toarray(), np.nan, (0, 1))), Raises(ValueError, "W"))
    add(fname, "no edges", lambda fn=fn: fn(EMPTY_GRAPH), Correct(finite))
    add(fname, "wrong shape", lambda fn=fn: fn(np.ones((3, 4))), Raises(ValueError, "square"))

# ---------------------------------------------------------------------------------------------
# spectral
# ---------------------------------------------------------------------------------------------

LMAX = g.lmax(L)
REF_CHEB = g.chebyshev_filter(L, PHI, SIG)
REF_EXACT = g.exact_filter(L, PHI, SIG)

for fname, fn in (("chebyshev_filter", lambda S: g.chebyshev_filter(L, PHI, S)),
                  ("lanczos_filter", lambda S: g.lanczos_filter(L, PHI, S)),
                  ("exact_filter", lambda S: g.exact_filter(L, PHI, S))):
    bad_arrays(fname, "X", SIG, fn)
    add(fname, "huge", lambda fn=fn: fn(1e150 * SIG), Correct(allclose(1e150 * REF_EXACT, rtol=1e-6)))
    add(fname, "tiny", lambda fn=fn: fn(1e-150 * SIG), Correct(allclose(1e-150 * REF_EXACT, rtol=1e-6)))
    add(fname, "offset", lambda fn=fn: fn(SIG + 1e8),
        # phi(L) 1 for the normalized Laplacian is not 1, but the map is linear:
        Correct(allclose(REF_EXACT + fn(np.full_like(SIG, 1e8)), rtol=1e-6)))
    add(fname, "graph instead of Laplacian", lambda fn=fn, nm=fname: getattr(g, nm)(g.to_networkx(W), PHI, SIG),
        Raises(TypeError, "laplacian"))
    add(fname, "wrong shape (L)", lambda nm=fname: getattr(g, nm)(np.ones((3, 4)), PHI, SIG[:3]),
        Raises(ValueError, "L"))
    add(fname, "NaN (L)", lambda nm=fname: getattr(g, nm)(_with(L.toarray(), np.nan, (0, 1)), PHI, SIG),
        Raises(ValueError, "L"))
    add(fname, "no edges", lambda nm=fname: getattr(g, nm)(g.laplacian(EMPTY_GRAPH), PHI, SIG),
        Correct(allclose(SIG)))  # L = 0: phi(0) X = X for the heat kernel (issue 13 finding 5)
    add(fname, "components", lambda nm=fname: getattr(g, nm)(g.laplacian(TWO_COMP, "normalized"), PHI, SIG),
        Correct(allclose(g.exact_filter(g.laplacian(TWO_COMP, "normalized"), PHI, SIG), rtol=1e-6)))
unknown_option("chebyshev_filter", lambda: g.chebyshev_filter(L, PHI, SIG, backend="bogus"), "backend")
unknown_option("lanczos_filter", lambda: g.lanczos_filter(L, PHI, SIG, reorder="bogus"), "reorder")
# issue 13 findings 9 (lmax below the spectrum) and 10 (an order past any memory: refused before work)
add("chebyshev_filter", "lmax below spectrum", lambda: g.chebyshev_filter(L, PHI, SIG, lmax=0.5 * LMAX),
    Raises(ValueError, "lmax"))
add("chebyshev_filter", "huge order", lambda: g.chebyshev_filter(L, PHI, SIG, order=10**12),
    Raises(ValueError, "order"))
add("exact_filter", "too many nodes", lambda: g.exact_filter(L, PHI, SIG, max_nodes=10),
    Raises(ValueError, "max_nodes"))

add("chebyshev_coefficients", "NaN", lambda: g.chebyshev_coefficients(PHI, 10, np.nan), Raises(ValueError, "lmax"))
add("chebyshev_coefficients", "inf", lambda: g.chebyshev_coefficients(PHI, 10, np.inf), Raises(ValueError, "lmax"))
add("chebyshev_coefficients", "strings", lambda: g.chebyshev_coefficients(PHI, "10", 2.0), Raises(TypeError, "order"))
add("chebyshev_coefficients", "empty", lambda: g.chebyshev_coefficients([], 10, 2.0), Raises(ValueError, "phi"))
add("chebyshev_coefficients", "NaN response", lambda: g.chebyshev_coefficients(lambda x: x * np.nan, 10, 2.0),
    Raises(ValueError, "response"))
add("chebyshev_coefficients", "huge order", lambda: g.chebyshev_coefficients(PHI, 10**12, 2.0),
    Raises(ValueError, "order"))
add("chebyshev_order", "NaN", lambda: g.chebyshev_order(PHI, np.nan), Raises(ValueError, "lmax"))
add("chebyshev_order", "tiny", lambda: g.chebyshev_order(PHI, 2.0, 1e-300),
    Warns(g.AccuracyWarning, lambda r: 0 <= r <= 1000, "max_order"))
add("chebyshev_order", "unknown option", lambda: g.chebyshev_order(PHI, 2.0, damping="bogus"),
    Raises(ValueError, "damping"))

add("lmax", "NaN", lambda: g.lmax(_with(L.toarray(), np.nan, (0, 1))), Raises(ValueError, "L"))
add("lmax", "wrong shape", lambda: g.lmax(np.ones((3, 4))), Raises(ValueError, "L"))
add("lmax", "no edges", lambda: g.lmax(g.laplacian(EMPTY_GRAPH)), Correct(lambda r: 0 <= r < 1e-6))
add("lmax", "one sample", lambda: g.lmax(sp.csr_array((1, 1))), Correct(lambda r: 0 <= r < 1e-6))
add("lmax", "huge", lambda: g.lmax(1e150 * LC), Correct(lambda r: abs(r / 1e150 - g.lmax(LC)) < 1e-3 * g.lmax(LC)))
add("lmax", "unknown option", lambda: g.lmax(L, "bogus"), Raises(ValueError, "method"))
add("lmax", "components", lambda: g.lmax(g.laplacian(TWO_COMP, "normalized")),
    Correct(lambda r: np.linalg.eigvalsh(g.laplacian(TWO_COMP, "normalized").toarray())[-1] <= r <= 2.1))

# ---------------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------------

GK_REF = g.GraphKernel(L, PHI, method="exact")


def _gk_apply(k):
    return k @ SIG


bad_arrays("GraphKernel", "L", L.toarray(), lambda Lx: g.GraphKernel(Lx, PHI) @ SIG,
           skip=("wrong shape",), override={"empty": Raises(ValueError, "square")}, name="L|adjacency")
add("GraphKernel", "wrong shape", lambda: g.GraphKernel(np.ones((3, 4)), PHI), Raises(ValueError, "square"))
add("GraphKernel", "no edges", lambda: g.GraphKernel(EMPTY_GRAPH, PHI) @ SIG, Correct(allclose(SIG)))
add("GraphKernel", "isolated node", lambda: g.GraphKernel(ISOLATED, PHI) @ SIG,
    Correct(allclose(g.exact_filter(g.laplacian(ISOLATED, "normalized"), PHI, SIG), rtol=1e-6)))
add("GraphKernel", "components", lambda: g.GraphKernel(TWO_COMP, PHI) @ SIG,
    Correct(allclose(g.exact_filter(g.laplacian(TWO_COMP, "normalized"), PHI, SIG), rtol=1e-6)))
# issue 13 finding 15: a non-negative matrix with a positive diagonal is an adjacency with self-loops,
# which are removed with a warning (as as_adjacency does), not a Laplacian
add("GraphKernel", "self-loops in adjacency", lambda: g.GraphKernel(W + 0.5 * sp.eye_array(N), PHI) @ SIG,
    Warns(g.GraphWarning, lambda r: np.testing.assert_allclose(r, g.GraphKernel(W, PHI) @ SIG, rtol=1e-12),
          "self-loops removed"))
add("GraphKernel", "huge", lambda: g.GraphKernel(L, PHI) @ (1e150 * SIG), Correct(allclose(1e150 * REF_EXACT, rtol=1e-6)))
unknown_option("GraphKernel", lambda: g.GraphKernel(L, PHI, method="bogus"), "method")
add("GraphKernel", "lmax below spectrum", lambda: g.GraphKernel(L, PHI, lmax=0.5 * LMAX) @ SIG,
    Raises(ValueError, "lmax"))

for fname, fn in (("pairwise_kernel", lambda A: g.pairwise_kernel(A)),
                  ("gaussian_kernel", lambda A: g.gaussian_kernel(A)),
                  ("linear_kernel", lambda A: g.linear_kernel(A)),
                  ("polynomial_kernel", lambda A: g.polynomial_kernel(A)),
                  ("heat_kernel", lambda A: g.heat_kernel(A)),
                  ("heat_semigroup", lambda A: g.heat_semigroup(A)),
                  ("default_sigma", lambda A: g.default_sigma(A)),
                  ("feature_map", lambda A: g.feature_map(A, "linear")),
                  ("KernelOperator", lambda A: g.KernelOperator(A) @ np.ones(len(A))),
                  ("GRLSKernel", lambda A: g.GRLSKernel(A)),
                  ("FredholmKernel", lambda A: g.FredholmKernel(A)),
                  ("WarpedKernel", lambda A: g.WarpedKernel(A, n_neighbors=3))):
    name = "A" if fname.endswith("kernel") or fname == "heat_semigroup" else "X"
    bad_arrays(fname, name, X, fn)
    add(fname, "one sample", lambda fn=fn: fn(X[:1]),
        Correct(finite) if fname not in ("default_sigma", "WarpedKernel", "FredholmKernel")
        else Raises(ValueError, "X"))
gauss_ref = g.gaussian_kernel(X, sigma=1.0)
add("gaussian_kernel", "offset", lambda: g.gaussian_kernel(X + 1e8, sigma=1.0),
    # X + 1e8 itself is rounded to 1.5e-8: the kernel of the rounded points, not of X, is exact
    Correct(allclose(gauss_ref, atol=1e-6)))
add("gaussian_kernel", "huge", lambda: g.gaussian_kernel(1e150 * X, sigma=1e150), Correct(allclose(gauss_ref, atol=1e-12)))
add("gaussian_kernel", "tiny", lambda: g.gaussian_kernel(1e-150 * X, sigma=1e-150), Correct(allclose(gauss_ref, atol=1e-12)))
add("gaussian_kernel", "sigma NaN", lambda: g.gaussian_kernel(X, sigma=np.nan), Raises(ValueError, "sigma"))
add("gaussian_kernel", "sigma 0", lambda: g.gaussian_kernel(X, sigma=0.0), Raises(ValueError, "sigma"))
add("gaussian_kernel", "wrong shape (B)", lambda: g.gaussian_kernel(X, X[:, :1]), Raises(ValueError, "B"))
add("default_sigma", "offset", lambda: g.default_sigma(X + 1e8),
    Correct(lambda r: abs(r - g.default_sigma(X)) < 1e-6 * g.default_sigma(X)))
add("default_sigma", "huge", lambda: g.default_sigma(1e150 * X),
    Correct(lambda r: abs(r / 1e150 - g.default_sigma(X)) < 1e-9 * g.default_sigma(X)))
add("default_sigma", "duplicate points", lambda: g.default_sigma(np.zeros((5, 2))), Correct(lambda r: r > 0))
unknown_option("pairwise_kernel", lambda: g.pairwise_kernel(X, kernel="bogus"), "kernel")
unknown_option("feature_map", lambda: g.feature_map(X, "bogus"), "features")
unknown_option("KernelOperator", lambda: g.KernelOperator(X, kernel="bogus"), "kernel")
unknown_option("GRLSKernel", lambda: g.GRLSKernel(X, features="bogus"), "features")
unknown_option("FredholmKernel", lambda: g.FredholmKernel(X, outer="bogus"), "outer")
unknown_option("WarpedKernel", lambda: g.WarpedKernel(X, graph="bogus"), "graph")
# FredholmKernel's methods of a width selection / fast prediction (issue 14 "Cost", issue 17)
_FK = g.FredholmKernel(X, sigma=1.0)
add("FredholmKernel.gram_of_rows", "float index", lambda: _FK.gram_of_rows(np.array([0.0, 1.0])),
    Raises(ValueError, "index"))
add("FredholmKernel.gram_of_rows", "out of range", lambda: _FK.gram_of_rows(np.array([0, N])), Raises(ValueError, "index"))
add("FredholmKernel.gram_of_rows", "empty", lambda: _FK.gram_of_rows(np.array([], dtype=int)), Raises(ValueError, "index"))
add("FredholmKernel.right_factor_of_rows", "2-D index", lambda: _FK.right_factor_of_rows(np.zeros((2, 2), dtype=int)),
    Raises(ValueError, "index"))
add("FredholmKernel.right_factor_of_rows", "coef NaN", lambda: _FK.right_factor_of_rows(np.arange(3), np.full(3, np.nan)),
    Raises(ValueError, "coef"))
add("FredholmKernel.right_factor", "coef wrong shape", lambda: _FK.right_factor(X[:3], coef=np.ones(4)),
    Raises(ValueError, "coef"))
add("FredholmKernel.apply_inner", "wrong rows", lambda: _FK.apply_inner(np.ones((N + 1, 2))), Raises(ValueError, "V"))
add("FredholmKernel.apply_inner", "NaN", lambda: _FK.apply_inner(np.full((N, 1), np.nan)), Raises(ValueError, "V"))
unknown_option("FredholmKernel.__call__", lambda: _FK(X[:2], outer_approximation="bogus"), "outer_approximation")
add("FredholmKernel.__call__", "nystrom without a Nystrom inner factor",
    lambda: _FK(X[:2], outer_approximation="nystrom"), Raises(ValueError, "outer_approximation"))
add("heat_log_normalization", "NaN", lambda: g.heat_log_normalization(np.nan, 2), Raises(ValueError, "sigma"))
add("heat_log_normalization", "huge", lambda: g.heat_log_normalization(1e200, 2), Correct(finite))
add("heat_log_normalization", "tiny", lambda: g.heat_log_normalization(1e-200, 2), Correct(finite))
add("heat_log_normalization", "strings", lambda: g.heat_log_normalization(1.0, "2"), Raises(TypeError, "m"))
PSI = g.feature_map(X, "linear")
bad_arrays("unisolvent_points", "Psi", PSI, g.unisolvent_points, override={"empty": Raises(ValueError, "features")})
add("unisolvent_points", "rank deficient", lambda: g.unisolvent_points(np.ones((N, 2))), Raises(ValueError, "unisolvent"))

# ---------------------------------------------------------------------------------------------
# _core: CG, AMG, leave-one-out
# ---------------------------------------------------------------------------------------------

A_SPD = (LC + sp.eye_array(N)).tocsr()
B = RNG.normal(size=N)
bad_arrays("conjugate_gradient", "B", B, lambda b: g.conjugate_gradient(A_SPD, b))
add("conjugate_gradient", "NaN (A)", lambda: g.conjugate_gradient(_with(A_SPD.toarray(), np.nan, (0, 1)), B),
    Raises(ValueError, "A"))  # issue 13 finding 8
add("conjugate_gradient", "huge", lambda: g.conjugate_gradient(A_SPD, 1e150 * B).x,
    Correct(allclose(1e150 * np.linalg.solve(A_SPD.toarray(), B), rtol=1e-6)))
add("conjugate_gradient", "tiny", lambda: g.conjugate_gradient(A_SPD, 1e-150 * B).x,
    Correct(allclose(1e-150 * np.linalg.solve(A_SPD.toarray(), B), rtol=1e-6)))
add("conjugate_gradient", "zero right-hand side", lambda: g.conjugate_gradient(A_SPD, 0 * B).x,
    Correct(allclose(np.zeros(N))))
unknown_option("conjugate_gradient", lambda: g.conjugate_gradient(A_SPD, B, on_failure="bogus"), "on_failure")
add("conjugate_gradient", "wrong shape (A)", lambda: g.conjugate_gradient(np.ones((3, 4)), B[:3]), Raises(ValueError, "A"))
add("kernel_cg", "NaN", lambda: g.kernel_cg(lambda P, GP: GP, lambda V: A_SPD @ V, _with(B[:, None], np.nan, (0, 0))),
    Raises(ValueError, "C"))
add("kernel_cg", "unknown option", lambda: g.kernel_cg(lambda P, GP: GP, lambda V: A_SPD @ V, B[:, None], on_failure="bogus"),
    Raises(ValueError, "on_failure"))
bad_arrays("amg_preconditioner", "A", A_SPD.toarray(), lambda A: g.amg_preconditioner(sp.csr_array(A)) @ B,
           skip=("object dtype", "strings", "complex"), override={"wrong shape": Raises(ValueError, "A")})
add("amg_preconditioner", "one sample", lambda: g.amg_preconditioner(sp.csr_array(np.ones((1, 1)))) @ np.ones(1),
    Correct(finite))
add("amg_preconditioner", "not symmetric", lambda: g.amg_preconditioner(sp.csr_array(np.triu(A_SPD.toarray()))),
    Raises(ValueError, "A must be symmetric"))
add("amg_preconditioner", "negative diagonal", lambda: g.amg_preconditioner(-A_SPD),
    Raises(ValueError, "negative diagonal entry"))
add("amg_preconditioner", "adjacency (zero diagonal)",
    lambda: g.amg_preconditioner(A_SPD - sp.diags_array(A_SPD.diagonal())),
    Raises(ValueError, "zero diagonal entry with nonzero off-diagonal"))

H = KS @ np.linalg.inv(KS + 0.1 * np.eye(4))
for fname in ("loo_predictions", "loo_residuals", "gcv_scores"):
    fn = getattr(g, fname)
    bad_arrays(fname, "Y", YR, lambda y, fn=fn: fn(H, y), skip=("wrong shape",))
    bad_arrays(fname, "H", H, lambda h, fn=fn: fn(h, YR), skip=("wrong shape",), name="H")
    add(fname, "wrong shape", lambda fn=fn: fn(H, YR[:3]), Raises(ValueError, "Y"))
    add(fname, "hat entry 1", lambda fn=fn: fn(np.eye(4), YR), Raises(ValueError, "H"))
bad_arrays("KernelRidgePath", "K", KS, g.KernelRidgePath, override={"empty": Raises(ValueError, "K")})

# ---------------------------------------------------------------------------------------------
# solvers
# ---------------------------------------------------------------------------------------------

add("poisson_learning", "unknown backend", lambda: g.poisson_learning(W, LAB, YOH, backend="bogus"),
    Raises(ValueError, "backend"))

for fname, fn, Yb in (("harmonic_solution", g.harmonic_solution, YR),
                      ("tikhonov_solution", lambda *a, **k: g.tikhonov_solution(*a, alpha=0.1, **k), YR),
                      ("poisson_learning", g.poisson_learning, YOH),
                      ("graph_kernel_ridge", g.graph_kernel_ridge, YR),
                      ("graph_tv", g.graph_tv, YR)):
    bad_arrays(fname, "Y", Yb, lambda y, fn=fn: fn(W, LAB, y), skip=("empty",),
               override={"wrong shape": Raises(ValueError, "Y")})
    _graph_input_cases(fname, lambda Wx, fn=fn, Yb=Yb: fn(Wx, LAB, Yb))
    add(fname, "no labels", lambda fn=fn, Yb=Yb: fn(W, [], Yb[:0]), Raises(ValueError, "labeled"))
    add(fname, "Y length mismatch", lambda fn=fn, Yb=Yb: fn(W, LAB, Yb[:3]), Raises(ValueError, "Y"))
    add(fname, "marker collision", lambda fn=fn, Yb=Yb: fn(W, [0, 1, 2, N], Yb), Raises(ValueError, "labeled"))
    add(fname, "duplicate labels", lambda fn=fn, Yb=Yb: fn(W, [0, 0, 2, 3], Yb), Raises(ValueError, "labeled"))
    # graph TV is homogeneous in (Y, alpha) jointly: scale both
    # (alpha scaled from graph_tv's default, which the unscaled reference below uses)
    kw = {"alpha": 1e150 * g.graph_tv.__kwdefaults__["alpha"]} if fname == "graph_tv" else {}
    add(fname, "huge", lambda fn=fn, Yb=Yb, kw=kw: fn(W, LAB, 1e150 * Yb, **kw),
        # graph TV stops at a relative duality gap of 1e-4: its answer is that accurate
        Correct(allclose(1e150 * fn(W, LAB, Yb), rtol=1e-3 if fname == "graph_tv" else 1e-6,
                         atol=(1e-3 if fname == "graph_tv" else 1e-8) * 1e150)))
    add(fname, "offset (W)", lambda fn=fn, Yb=Yb: fn(1e8 * W, LAB, Yb), Correct(finite))
    one = np.ones_like(Yb) if fname != "poisson_learning" else np.tile([1.0, 0.0], (4, 1))
    add(fname, "one class", lambda fn=fn, one=one: fn(W, LAB, one), Correct(finite))
    add(fname, "components", lambda fn=fn, Yb=Yb: fn(TWO_COMP, LAB1, Yb),
        Warns(g.GraphWarning, finite, "fallback"))
    add(fname, "no edges", lambda fn=fn, Yb=Yb: fn(EMPTY_GRAPH, LAB, Yb),
        Warns(g.GraphWarning, finite, "fallback"))
    # issue 13 finding 3: labels on both sides of a 1e-16 bridge; each side keeps its own label
    # (class 0 / target +1 on nodes 0-14), the linear solvers cut the weak link with a GraphWarning
    near_ok = (lambda F: np.testing.assert_array_equal(
        np.sign(F[:, 0] - F[:, 1]) if F.ndim == 2 else np.sign(F), np.repeat([1.0, -1.0], 15)))
    add(fname, "near-disconnected", lambda fn=fn, Yb=Yb: fn(NEAR, LAB2, Yb),
        Correct(near_ok) if fname in ("graph_kernel_ridge", "graph_tv")
        else Warns(g.GraphWarning, near_ok, "weak link cut"))
unknown_option("harmonic_solution", lambda: g.harmonic_solution(W, LAB, YR, laplacian="bogus"), "laplacian")
unknown_option("harmonic_solution", lambda: g.harmonic_solution(W, LAB, YR, preconditioner="bogus"), "preconditioner")
unknown_option("graph_kernel_ridge", lambda: g.graph_kernel_ridge(W, LAB, YR, method="bogus"), "method")
unknown_option("graph_tv", lambda: g.graph_tv(W, LAB, YR, R="bogus"), "R")
# an operator R whose products are NaN ran all 20000 iterations and returned NaN with a ConvergenceWarning;
# a complex R lost its imaginary part with only numpy's ComplexWarning
add("graph_tv", "R operator returning NaN",
    lambda: g.graph_tv(W, LAB, YR, R=sp.linalg.aslinearoperator(np.full((5, N), np.nan))),
    Raises(FloatingPointError, "the operator R returned NaN or infinity"))
add("graph_tv", "complex R", lambda: g.graph_tv(W, LAB, YR, R=sp.csr_array(1j * np.eye(N))),
    Raises(TypeError, "R must be a real numeric array"))
unknown_option("graph_kernel_tv", lambda: g.graph_kernel_tv(W, LAB, YR, fidelity="bogus"), "fidelity")
unknown_option("graph_kernel_tv", lambda: g.graph_kernel_tv(W, LAB, YR, laplacian="bogus"), "laplacian")
add("graph_kernel_tv", "kernel without polynomial inverse",
    lambda: g.graph_kernel_tv(W, LAB, YR, g.filters.Heat(1.0)), Raises(ValueError, "fidelity='degree' needs"))
add("graph_kernel_tv", "alpha 0", lambda: g.graph_kernel_tv(W, LAB, YR, alpha=0.0), Raises(ValueError, "alpha"))
add("graph_kernel_tv", "columns of the wrong shape",
    lambda: g.graph_kernel_tv(W, LAB, YR, columns=np.zeros((2, 2))), Raises(ValueError, "columns must be"))
add("graph_kernel_tv", "plain call", lambda: g.graph_kernel_tv(W, LAB, YR), Correct(finite))

bad_arrays("graph_kernel_ridge_loo", "K_SS", KS, lambda k: g.graph_kernel_ridge_loo(k, YR, [0.1]))
add("graph_kernel_ridge_loo", "alpha 0", lambda: g.graph_kernel_ridge_loo(KS, YR, [0.0]), Raises(ValueError, "alphas"))
add("graph_kernel_ridge_loo", "one sample", lambda: g.graph_kernel_ridge_loo(KS[:1, :1], YR[:1], [0.1]),
    Correct(finite))
bad_arrays("graph_kernel_columns", "L", L.toarray(), lambda Lx: g.graph_kernel_columns(Lx, PHI, [0, 1]),
           skip=("wrong shape",), override={"empty": Raises(ValueError, "square")})
add("graph_kernel_columns", "no edges", lambda: g.graph_kernel_columns(g.laplacian(EMPTY_GRAPH), PHI, [0, 1]),
    Correct(allclose(np.eye(N)[:, :2])))
add("graph_kernel_columns", "marker collision", lambda: g.graph_kernel_columns(L, PHI, [0, N]), Raises(ValueError, "cols"))
add("incidence_matrix", "no edges", lambda: g.incidence_matrix(EMPTY_GRAPH), Correct(lambda r: r.shape[1] == N))
add("incidence_matrix", "NaN", lambda: g.incidence_matrix(_with(W.toarray(), np.nan, (0, 1))), Raises(ValueError, "W"))
add("graph_penalty", "no edges", lambda: g.graph_penalty(EMPTY_GRAPH), Correct(lambda r: r.nnz == 0 or not r.data.any()))
unknown_option("graph_penalty", lambda: g.graph_penalty(W, "bogus"), "laplacian")
add("graph_penalty", "laplacian_power 0", lambda: g.graph_penalty(W, laplacian_power=0), Raises(ValueError, "laplacian_power"))

bad_arrays("consistency_grams", "XS", X[:4], lambda A: g.consistency_grams(A, X), skip=("wrong shape",))
unknown_option("consistency_grams", lambda: g.consistency_grams(X[:4], X, integral_operator="bogus"), "integral_operator")
bad_arrays("consistency_grams_widths", "XS", X[:4], lambda A: g.consistency_grams_widths(A, X, [0.5]),
           skip=("wrong shape",))
add("consistency_grams_widths", "sigma <= 0", lambda: g.consistency_grams_widths(X[:4], X, [0.5, 0.0]),
    Raises(ValueError, "sigmas"))
add("consistency_grams_widths", "XS and X of other widths",
    lambda: g.consistency_grams_widths(X[:4, :1], X, [0.5]), Raises(ValueError, "XS and X"))

# the graph-cut tie-break of the classifiers' selections (issue 14)
_ACC = np.array([[0.9, 0.8], [0.85, -np.inf]])
_EDGES = (np.array([0, 1]), np.array([1, 2]))
add("graph_cut_choice", "acc and mse of other shapes",
    lambda: g.graph_cut_choice(_ACC, np.zeros((2, 3)), 10, lambda i, js: np.zeros((len(js), 3), int), _EDGES),
    Raises(ValueError, "one shape"))
add("graph_cut_choice", "NaN accuracy",
    lambda: g.graph_cut_choice(np.full((2, 2), np.nan), np.zeros((2, 2)), 10,
                               lambda i, js: np.zeros((len(js), 3), int), _EDGES), Raises(ValueError, "NaN"))
add("graph_cut_choice", "no candidate",
    lambda: g.graph_cut_choice(np.full((2, 2), -np.inf), np.zeros((2, 2)), 10,
                               lambda i, js: np.zeros((len(js), 3), int), _EDGES), Raises(ValueError, "candidate"))
add("graph_cut_choice", "l = 0",
    lambda: g.graph_cut_choice(_ACC, np.zeros((2, 2)), 0, lambda i, js: np.zeros((len(js), 3), int), _EDGES),
    Raises(ValueError, "l must"))
add("graph_cut_choice", "n_classes = 0",
    lambda: g.graph_cut_choice(_ACC, np.zeros((2, 2)), 10, lambda i, js: np.zeros((len(js), 3), int), _EDGES,
                               n_classes=0), Raises(ValueError, "n_classes"))
add("graph_cut_choice", "predict not callable",
    lambda: g.graph_cut_choice(_ACC, np.zeros((2, 2)), 10, None, _EDGES), Raises(TypeError, "predict"))
add("graph_cut_choice", "edges of two lengths",
    lambda: g.graph_cut_choice(_ACC, np.zeros((2, 2)), 10, lambda i, js: np.zeros((len(js), 3), int),
                               (np.array([0, 1]), np.array([1]))), Raises(ValueError, "edges"))

# the row blocks of a Laplacian (issue 16)
add("laplacian_rows", "start > stop", lambda: g.laplacian_rows(W, "combinatorial", 5, 3),
    Raises(ValueError, "start <= stop"))
add("laplacian_rows", "degrees of the wrong length",
    lambda: g.laplacian_rows(W[0:5], "normalized", 0, 5, degrees=np.ones(7)), Raises(ValueError, "one entry per node"))
add("laplacian_rows", "a block without degrees", lambda: g.laplacian_rows(W[0:5], "normalized", 0, 5),
    Raises(ValueError, "whole"))
unknown_option("laplacian_rows", lambda: g.laplacian_rows(W, "bogus"), "kind")
add("laplacian_rows", "a block", lambda: g.laplacian_rows(W, "normalized", 3, 9),
    Correct(allclose(L.toarray()[3:9])))

# the Nystrom factor and the low-rank solvers (issue 17)
bad_arrays("NystromFeatures", "X", X, lambda A: g.NystromFeatures(A, n_components=10, random_state=0),
           skip=("wrong shape",))
unknown_option("NystromFeatures", lambda: g.NystromFeatures(X, landmarks="bogus"), "landmarks")
add("NystromFeatures", "n_components 0", lambda: g.NystromFeatures(X, n_components=0), Raises(ValueError, "n_components"))
add("NystromFeatures", "offset", lambda: g.NystromFeatures(X + 1e8, n_components=N).features_ @ g.NystromFeatures(
    X + 1e8, n_components=N).features_.T, Correct(allclose(g.gaussian_kernel(X, sigma=1.0), rtol=0, atol=1e-6)))
FNY = g.NystromFeatures(X, n_components=N).features_
bad_arrays("nystrom_laprls_fit", "F", FNY, lambda f: g.nystrom_laprls_fit(f, LAB, YR, M, 1e-3, 1.0),
           skip=("wrong shape",))
bad_arrays("nystrom_laprls_fit", "Y", YR, lambda y: g.nystrom_laprls_fit(FNY, LAB, y, M, 1e-3, 1.0),
           skip=("empty",), name="Y")
add("nystrom_laprls_fit", "no labels", lambda: g.nystrom_laprls_fit(FNY, [], YR[:0], M, 1e-3, 1.0),
    Raises(ValueError, "labeled"))
add("nystrom_laprls_fit", "marker collision", lambda: g.nystrom_laprls_fit(FNY, [0, 1, 2, N], YR, M, 1e-3, 1.0),
    Raises(ValueError, "labeled"))
add("nystrom_laprls_fit", "wrong shape (M)", lambda: g.nystrom_laprls_fit(FNY, LAB, YR, M[:5, :5], 1e-3, 1.0),
    Raises(ValueError, "M"))
add("nystrom_laprls_fit", "gamma_A 0", lambda: g.nystrom_laprls_fit(FNY, LAB, YR, M, 0.0, 1.0), Raises(ValueError, "gamma_A"))
add("nystrom_laprls_fit", "huge", lambda: g.nystrom_laprls_fit(FNY, LAB, 1e150 * YR, M, 1e-3, 1.0),
    Correct(allclose(1e150 * g.nystrom_laprls_fit(FNY, LAB, YR, M, 1e-3, 1.0), rtol=1e-6)))
add("nystrom_laprls_fit", "no edges", lambda: g.nystrom_laprls_fit(FNY, LAB, YR, g.graph_penalty(EMPTY_GRAPH), 1e-3, 1.0),
    Correct(finite))
add("nystrom_plaprls_fit", "NaN", lambda: g.nystrom_plaprls_fit(_with(FNY, np.nan, (0, 0)), LAB, YR, M, 1e-3, 1.0),
    Raises(ValueError, "F"))
add("nystrom_plaprls_fit", "no labels", lambda: g.nystrom_plaprls_fit(FNY, [], YR[:0], M, 1e-3, 1.0),
    Raises(ValueError, "labeled"))
add("nystrom_plaprls_fit", "wrong shape (P)", lambda: g.nystrom_plaprls_fit(FNY, LAB, YR, M, 1e-3, 1.0, P=np.eye(2)),
    Raises(ValueError, "P"))
add("nystrom_plaprls_fit", "one class", lambda: g.nystrom_plaprls_fit(FNY, LAB, np.ones(4), M, 1e-3, 1.0),
    Correct(lambda r: (np.testing.assert_allclose(r[0], 0, atol=1e-8), np.testing.assert_allclose(r[1], 1.0))))
bad_arrays("nystrom_consistency_grams", "XS", X[:4], lambda A: g.nystrom_consistency_grams(A, X, FNY),
           skip=("wrong shape",))
add("nystrom_consistency_grams", "wrong shape (F)", lambda: g.nystrom_consistency_grams(X[:4], X, FNY[:5]),
    Raises(ValueError, "F"))
add("nystrom_consistency_grams", "exact factor", lambda: g.nystrom_consistency_grams(X[:4], X, FNY),
    Correct(lambda r: [np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)
                       for a, b in zip(r, g.consistency_grams(X[:4], X))]))
add("select_nystrom_laprls", "ratio < 0",
    lambda: g.select_nystrom_laprls(FNY, LAB, YR, M, [1e-3], [-1.0]), Raises(ValueError, "ratios"))
add("select_nystrom_laprls", "NaN (Y)",
    lambda: g.select_nystrom_laprls(FNY, LAB, _with(YR, np.nan), M, [1e-3], [1.0]), Raises(ValueError, "Y"))
bad_arrays("select_laprls_lowrank", "X", X, lambda A: g.select_laprls_lowrank(A, LAB, YR, M, [1.0]),
           skip=("wrong shape",))
add("select_laprls_lowrank", "NaN (Y)",
    lambda: g.select_laprls_lowrank(X, LAB, _with(YR, np.nan), M, [1.0]), Raises(ValueError, "Y"))
add("select_laprls_lowrank", "wrong shape (Y)",
    lambda: g.select_laprls_lowrank(X, LAB, YR[:3], M, [1.0]), Raises(ValueError, "Y"))
add("select_laprls_lowrank", "wrong shape (M)",
    lambda: g.select_laprls_lowrank(X, LAB, YR, M[:5, :5], [1.0]), Raises(ValueError, "M"))
add("select_laprls_lowrank", "sigma <= 0",
    lambda: g.select_laprls_lowrank(X, LAB, YR, M, [0.0, 1.0]), Raises(ValueError, "sigmas"))
add("select_laprls_lowrank", "ratio < 0",
    lambda: g.select_laprls_lowrank(X, LAB, YR, M, [1.0], ratios=[-1.0]), Raises(ValueError, "ratios"))
add("select_laprls_lowrank", "gamma_A NaN",
    lambda: g.select_laprls_lowrank(X, LAB, YR, M, [1.0], [np.nan]), Raises(ValueError, "gamma_As"))
add("select_laprls_lowrank", "no labels",
    lambda: g.select_laprls_lowrank(X, [], YR[:0], M, [1.0]), Raises(ValueError, "labeled"))
add("select_laprls_lowrank", "n_components 0",
    lambda: g.select_laprls_lowrank(X, LAB, YR, M, [1.0], n_components=0), Raises(ValueError, "n_components"))
def _rls_on_labels(r):
    """No edges (M = 0): LapRLS is RLS on the labeled points, alpha = (K_SS + gamma_A l I)^-1 y on them, 0 elsewhere."""
    res, alpha, b = r
    KSS = g.pairwise_kernel(X[LAB], sigma=res.best_params["sigma"])
    expect = np.zeros(N)
    expect[LAB] = np.linalg.solve(KSS + res.best_params["gamma_A"] * LAB.size * np.eye(LAB.size), YR)
    np.testing.assert_allclose(alpha, expect, rtol=1e-6, atol=1e-8 * np.abs(expect).max())


add("select_laprls_lowrank", "no edges",
    lambda: g.select_laprls_lowrank(X, LAB, YR, g.graph_penalty(EMPTY_GRAPH), [1.0], return_coef=True),
    Correct(_rls_on_labels))

bad_arrays("rls_fit", "K", KS, lambda k: g.rls_fit(k, YR, 0.1))
bad_arrays("rls_fit", "Y", YR, lambda y: g.rls_fit(KS, y, 0.1), skip=("empty",), name="Y")
add("rls_fit", "alpha NaN", lambda: g.rls_fit(KS, YR, np.nan), Raises(ValueError, "alpha"))
add("rls_fit", "huge", lambda: g.rls_fit(1e150 * KS, YR, 1e149), Correct(allclose(g.rls_fit(KS, YR, 0.1) / 1e150, rtol=1e-6)))
add("rls_fit", "one sample", lambda: g.rls_fit(KS[:1, :1], YR[:1], 0.1), Correct(allclose([1 / 1.1])))
add("rls_coefficients", "NaN", lambda: g.rls_coefficients(_with(KS, np.nan, (0, 0)), YR, 0.1), Raises(ValueError, "K"))
add("rls_coefficients", "huge", lambda: g.rls_coefficients(KS, 1e150 * YR, 0.1),
    Correct(allclose(1e150 * g.rls_coefficients(KS, YR, 0.1), rtol=1e-6)))
bad_arrays("rls_loo_error", "K", KS, lambda k: g.rls_loo_error(k, YR, [0.1]))
# the model-selection engine (graphrkhs.solvers._selection)
_P3 = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
add("geometric_grid", "low <= 0", lambda: g.geometric_grid(-1.0, 1.0, 3), Raises(ValueError, "low"))
add("loo_scores", "bad scoring", lambda: g.loo_scores(np.zeros((1, 2, 1)), np.zeros((2, 1)), "r2"),
    Raises(ValueError, "scoring"))
add("ridge_path_errors", "bad criterion", lambda: g.ridge_path_errors(np.eye(3), np.ones(3), [1.0], criterion="aic"),
    Raises(ValueError, "criterion"))
add("tikhonov_path_errors", "alpha < 0", lambda: g.tikhonov_path_errors(_P3, [0], [1.0], [-1.0]),
    Raises(ValueError, "alphas"))
add("tikhonov_solution", "alpha overflowing the system", lambda: g.tikhonov_solution(_P3, [0], [1.0], alpha=1e308),
    Raises(ValueError, r"alpha=1e\+308 times the Laplacian's largest entry"))
add("laprls_grid_errors", "gamma_I < 0",
    lambda: g.laprls_grid_errors(np.eye(3), [0, 1], [1.0, -1.0], np.eye(3), [1.0], [-1.0]),
    Raises(ValueError, "gamma_Is"))
add("hat_matrix_errors", "hat not callable", lambda: g.hat_matrix_errors(np.eye(3), np.ones(3), [{}]),
    Raises(TypeError, "hat"))
add("select_linear_smoother", "hat of the wrong shape",
    lambda: g.select_linear_smoother(lambda a: np.eye(2), np.ones(3), {"a": [1.0]}), Raises(ValueError, "hat"))
add("select_grid", "unknown extend axis", lambda: g.select_grid(lambda a: a, {"a": [1.0]}, extend=["b"]),
    Raises(ValueError, "extend"))
add("select_ridge_alpha", "ridge_scale <= 0", lambda: g.select_ridge_alpha(np.eye(3), np.ones(3), ridge_scale=-1.0),
    Raises(ValueError, "ridge_scale"))
add("select_tikhonov_alpha", "bad laplacian",
    lambda: g.select_tikhonov_alpha(_P3, [0], [1.0], laplacian="randomwalk"), Raises(ValueError, "laplacian"))
add("select_laprls_gammas", "ratio < 0",
    lambda: g.select_laprls_gammas(np.eye(3), [0, 1], [1.0, -1.0], np.eye(3), ratios=[-1.0]),
    Raises(ValueError, "ratios"))
add("prls_loo_errors", "gamma <= 0", lambda: g.prls_loo_errors(np.eye(3), np.eye(3), np.eye(3), np.ones(3), [0.0]),
    Raises(ValueError, "gammas"))
add("prls_loo_errors", "Kp of another shape",
    lambda: g.prls_loo_errors(np.eye(3), np.eye(2), np.eye(3), np.ones(3), [1.0]), Raises(ValueError, "Kp"))
add("select_prls_gamma", "gamma <= 0",
    lambda: g.select_prls_gamma(np.eye(3), np.eye(3), np.eye(3), np.ones(3), [-1.0]), Raises(ValueError, "gammas"))
add("ManifoldRidgePath", "M of another shape",
    lambda: g.ManifoldRidgePath(np.eye(3), [0, 1], np.eye(2)), Raises(ValueError, "M"))
add("select_manifold_gammas", "ratio < 0",
    lambda: g.select_manifold_gammas(np.eye(3), [0, 1], [1.0, -1.0], np.eye(3), ratios=[-1.0]),
    Raises(ValueError, "ratios"))
add("select_kernel_ridge", "width <= 0", lambda: g.select_kernel_ridge(lambda s: np.eye(3), np.ones(3), [-1.0]),
    Raises(ValueError, "sigmas"))
add("kfold_splits", "one fold", lambda: g.kfold_splits(np.array([0, 1, 0, 1]), 1), Raises(ValueError, "n_splits"))
add("kfold_scores", "bad scoring", lambda: g.kfold_scores(lambda tr, te: te, np.array([0, 1, 0, 1]), {}, scoring="f1"),
    Raises(ValueError, "scoring"))
add("select_tikhonov_solution", "alpha < 0", lambda: g.select_tikhonov_solution(_P3, [0], [1.0], [-1.0]),
    Raises(ValueError, "alphas"))
unknown_option("select_tikhonov_solution", lambda: g.select_tikhonov_solution(_P3, [0], [1.0], method="bogus"),
               "method")
add("select_tikhonov_solution", "unknown backend",
    lambda: g.select_tikhonov_solution(_P3, [0], [1.0], backend="gpu"), Raises(ValueError, "backend"))
add("stochastic_loo_errors", "residual not callable",
    lambda: g.stochastic_loo_errors(np.eye(3), np.ones(3), [{}]), Raises(TypeError, "residual"))
add("stochastic_loo_errors", "residual of the wrong shape",
    lambda: g.stochastic_loo_errors(lambda Z: Z[:2], np.ones(3), [{}], n_probes=2), Raises(ValueError, "residual"))
add("stochastic_loo_errors", "no probes",
    lambda: g.stochastic_loo_errors(lambda Z: Z, np.ones(3), [{}], n_probes=0), Raises(ValueError, "n_probes"))
add("tikhonov_stochastic_errors", "alpha < 0", lambda: g.tikhonov_stochastic_errors(_P3, [0], [1.0], [-1.0]),
    Raises(ValueError, "alphas"))
add("tikhonov_stochastic_errors", "unknown backend",
    lambda: g.tikhonov_stochastic_errors(_P3, [0], [1.0], [1.0], backend="gpu"), Raises(ValueError, "backend"))
add("graph_kernel_ridge_stochastic_errors", "alpha 0",
    lambda: g.graph_kernel_ridge_stochastic_errors(_P3, [0], [1.0], [0.0]), Raises(ValueError, "alphas"))

add("rls_loo_error", "alpha 0", lambda: g.rls_loo_error(KS, YR, [0.0]), Raises(ValueError, "alphas"))

bad_arrays("laprls_fit", "K", K, lambda k: g.laprls_fit(k, LAB, YR, M, 1e-3, 1.0))
bad_arrays("laprls_fit", "Y", YR, lambda y: g.laprls_fit(K, LAB, y, M, 1e-3, 1.0), skip=("empty",), name="Y")
add("laprls_fit", "no labels", lambda: g.laprls_fit(K, [], YR[:0], M, 1e-3, 1.0), Raises(ValueError, "labeled"))
add("laprls_fit", "marker collision", lambda: g.laprls_fit(K, [0, 1, 2, N], YR, M, 1e-3, 1.0), Raises(ValueError, "labeled"))
add("laprls_fit", "wrong shape (M)", lambda: g.laprls_fit(K, LAB, YR, M[:5, :5], 1e-3, 1.0), Raises(ValueError, "M"))
add("laprls_fit", "gamma_A 0", lambda: g.laprls_fit(K, LAB, YR, M, 0.0, 1.0), Raises(ValueError, "gamma_A"))
unknown_option("laprls_fit", lambda: g.laprls_fit(K, LAB, YR, M, 1e-3, 1.0, solver="bogus"), "solver")
# a NaN in the graph penalty M: a ValueError naming M before the solve (was: NaN coefficients from
# plaprls_fit and the Nystrom solvers, a LinAlgError about a singular matrix from laprls_fit, and
# select_nystrom_laprls blamed make_kernel)
M_NAN = M.copy()
M_NAN.data[0] = np.nan
for _name, _call in [("laprls_fit", lambda: g.laprls_fit(K, LAB, YR, M_NAN, 1e-3, 1.0)),
                     ("plaprls_fit", lambda: g.plaprls_fit(K, LAB, YR, M_NAN, 1e-3, 1.0)),
                     ("nystrom_laprls_fit", lambda: g.nystrom_laprls_fit(FNY, LAB, YR, M_NAN, 1e-3, 1.0)),
                     ("nystrom_plaprls_fit", lambda: g.nystrom_plaprls_fit(FNY, LAB, YR, M_NAN, 1e-3, 1.0)),
                     ("select_nystrom_laprls", lambda: g.select_nystrom_laprls(FNY, LAB, YR, M_NAN, [1e-3], [1.0])),
                     ("select_laprls_lowrank", lambda: g.select_laprls_lowrank(X, LAB, YR, M_NAN, [1.0]))]:
    add(_name, "NaN (M)", _call, Raises(ValueError, "M contains NaN"))
add("laprls_fit", "no edges", lambda: g.laprls_fit(K, LAB, YR, g.graph_penalty(EMPTY_GRAPH), 1e-3, 1.0),
    Correct(finite))
add("laprls_fit", "huge", lambda: g.laprls_fit(K, LAB, 1e150 * YR, M, 1e-3, 1.0),
    Correct(allclose(1e150 * g.laprls_fit(K, LAB, YR, M, 1e-3, 1.0), rtol=1e-6)))
add("plaprls_fit", "NaN", lambda: g.plaprls_fit(_with(K, np.nan, (0, 0)), LAB, YR, M, 1e-3, 1.0), Raises(ValueError, "K"))
add("plaprls_fit", "no labels", lambda: g.plaprls_fit(K, [], YR[:0], M, 1e-3, 1.0), Raises(ValueError, "labeled"))
add("plaprls_fit", "one class", lambda: g.plaprls_fit(K, LAB, np.ones(4), M, 1e-3, 1.0),
    Correct(lambda r: (np.testing.assert_allclose(r[0], 0, atol=1e-8), np.testing.assert_allclose(r[1], 1.0))))
KG, KP, KPP, _ = g.consistency_grams(X[:4], X)
bad_arrays("prls_fit", "K", KG, lambda k: g.prls_fit(k, KP, KPP, YR, 1e-3))
add("prls_fit", "one class", lambda: g.prls_fit(KG, KP, KPP, np.ones(4), 1e-3),
    Correct(lambda r: (np.testing.assert_allclose(r[0], 0, atol=1e-8), np.testing.assert_allclose(r[1], 1.0))))
PHI_G = g.pairwise_kernel(X[:6], X[:6])
PSI_G = g.feature_map(X[:6], "constant")
bad_arrays("grls_fit", "Phi", PHI_G, lambda p: g.grls_fit(p, PSI_G, YR.tolist() + [1.0, -1.0], 1e-3))
add("grls_fit", "one class", lambda: g.grls_fit(PHI_G, PSI_G, np.ones(6), 1e-3),
    Correct(lambda r: np.testing.assert_allclose(r[1], 1.0)))
add("grls_fit_constructed", "NaN", lambda: g.grls_fit_constructed(g.GRLSKernel(X[:6]), _with(X[:6], np.nan, (0, 0)), np.ones(6), 1e-3),
    Raises(ValueError, "X"))
for fname, fn in (("fredholm_rls", lambda Z, lab=LAB, y=YR: g.fredholm_rls(Z, lab, y)),
                  ("warped_rls", lambda Z, lab=LAB, y=YR: g.warped_rls(Z, lab, y, n_neighbors=3))):
    bad_arrays(fname, "X", X, fn)
    add(fname, "no labels", lambda fn=fn: fn(X, [], YR[:0]), Raises(ValueError, "labeled"))
    add(fname, "marker collision", lambda fn=fn: fn(X, [0, 1, 2, N], YR), Raises(ValueError, "labeled"))
    add(fname, "NaN (Y)", lambda fn=fn: fn(X, LAB, _with(YR, np.nan)), Raises(ValueError, "Y"))
    add(fname, "offset", lambda fn=fn: fn(X + 1e8, LAB, YR), Correct(finite))



bad_arrays("GraphSpec", "X", X, lambda Z: g.GraphSpec(n_neighbors=3).build(Z))
add("GraphSpec", "one sample", lambda: g.GraphSpec(n_neighbors=3).build(X[:1]), Raises(ValueError, "X"))
add("GraphSpec", "huge", lambda: g.GraphSpec(n_neighbors=3).build(np.ldexp(X, 500)),
    Correct(allclose(g.GraphSpec(n_neighbors=3).build(X), rtol=1e-9)))
unknown_option("GraphSpec", lambda: g.GraphSpec(kind="bogus").build(X), "kind")
unknown_option("GraphSpec", lambda: g.GraphSpec(metric="bogus").build(X), "metric")
add("GraphSpec", "epsilon without radius", lambda: g.GraphSpec(kind="epsilon").build(X), Raises(ValueError, "radius"))


# ---------------------------------------------------------------------------------------------
# estimators (scikit-learn API): fit on the training points, predict them back
# ---------------------------------------------------------------------------------------------

ESTIMATORS = [n for n in g.__all__ if n.endswith(("Classifier", "Regressor"))]
TRANSDUCTIVE = {"LaplacianRegularization", "PoissonLearning", "GraphKernelRidge", "GraphTV", "PoissonMBO", "VolumeMBO",
                "PoissonRidgeEnsemble"}
XE = np.vstack([RNG.normal(size=(15, 2)), RNG.normal(size=(15, 2)) + 4.0])
LAB_E = np.array([0, 1, 15, 16])
YC = np.full(N, -1)
YC[LAB_E] = [0, 0, 1, 1]
YRE = np.full(N, np.nan)
YRE[LAB_E] = [0.0, 0.0, 1.0, 1.0]
FAR = XE.copy()
FAR[15:] += 1e3  # two kNN components; the labels of the second one are dropped below
YC_FAR = np.where(np.arange(N) < 15, YC, -1)
YC_FAR[2] = 1  # two classes, both in the first component
YR_FAR = np.where(np.arange(N) < 15, YRE, np.nan)
YR_FAR[2] = 1.0


def _make(name):
    est = getattr(g, name)()
    params = est.get_params()
    if "n_neighbors" in params:
        est.set_params(n_neighbors=5)
    return est


def _fit_predict(name, Xf, y, **params):
    est = _make(name).set_params(**params)
    return est.fit(Xf, y).predict(Xf)


_REF = {}


def _same_predictions(name, ref_X, ref_y, rtol=1e-6):
    def check(pred):
        if name not in _REF:  # the reference fit, once per estimator, only when a row needs it
            _REF[name] = _fit_predict(name, ref_X, ref_y)
        ref = _REF[name]
        if name.endswith("Classifier"):
            np.testing.assert_array_equal(pred, ref)
        else:
            np.testing.assert_allclose(pred, ref, rtol=rtol, atol=rtol * np.abs(ref).max())
    return check


XE32 = XE.astype(np.float32)


def _scores(est, Xp):
    f = est.decision_function if hasattr(est, "decision_function") else est.predict
    return f(Xp)


def _close_to_float64(name, yb):
    """float32 data (XE32, exact in float32, so the data carry no rounding): the scores within what
    float32 storage of the kernel accounts for -- u sum_j |K_ij alpha_j| (u = 2^-24, alpha the
    float64 coefficients; large when a small ridge gives large alpha), with a factor 4 of slack,
    and at least sqrt(eps32) ~ 3e-4 of the scores' scale."""
    def check(d32):
        est = _make(name).fit(XE32.astype(np.float64), yb)
        d64 = _scores(est, XE32.astype(np.float64))
        tol = np.sqrt(np.finfo(np.float32).eps) * np.abs(d64).max()
        coef, Xf, sigma = (getattr(est, a, None) for a in ("coef_", "X_fit_", "sigma_"))
        if coef is not None and Xf is not None and sigma is not None and len(coef) == len(Xf):
            Ka = g.gaussian_kernel(Xf, sigma=sigma) @ np.abs(np.asarray(coef).reshape(len(Xf), -1))
            tol = max(tol, 4 * 2.0**-24 * Ka.max())
        np.testing.assert_allclose(d32, d64, rtol=0, atol=tol)
    return check


for name in ESTIMATORS:
    clf = name.endswith("Classifier")
    yb = YC if clf else YRE
    trans = any(name.startswith(t) for t in TRANSDUCTIVE)
    bad_arrays(name, "X", XE, lambda v, name=name, yb=yb: _fit_predict(name, v, yb[: len(v)] if len(v) else yb[:0]),
               # scikit-learn's wording for the one array of fit: "Found array with dim 3 ..."
               override={"complex": Raises((TypeError, ValueError), "X|complex"),
                         "object dtype": Raises((TypeError, ValueError), "X"),
                         "strings": Raises((TypeError, ValueError), "X|string"),
                         "empty": Raises(ValueError, "X|array"),
                         "wrong shape": Raises(ValueError, "X|array")})
    add(name, "one sample", lambda name=name, yb=yb: _fit_predict(name, XE[:1], yb[:1]), Raises(ValueError, "sample"))
    add(name, "huge", lambda name=name, yb=yb: _fit_predict(name, np.ldexp(XE, 500), yb),
        Correct(_same_predictions(name, XE, yb)))
    add(name, "tiny", lambda name=name, yb=yb: _fit_predict(name, np.ldexp(XE, -500), yb),
        Correct(_same_predictions(name, XE, yb)))
    add(name, "offset", lambda name=name, yb=yb: _fit_predict(name, XE + 1e8, yb),
        # X + 1e8 is itself rounded by 1.5e-8: the answer of the rounded points, to that accuracy
        Correct(_same_predictions(name, XE, yb, rtol=1e-4)))
    add(name, "no labels", lambda name=name, yb=yb: _fit_predict(name, XE, np.full_like(yb, -1 if clf else np.nan)),
        Raises(ValueError, "label"))
    one = np.where(yb == 1, 0, yb) if clf else np.where(np.isnan(yb), np.nan, 1.0)
    if clf:
        add(name, "one class", lambda name=name, one=one: _fit_predict(name, XE, one),
            Raises(ValueError, "one class"))
    else:  # interpolation, and an unpenalized constant, reproduce a constant target exactly
        exact = name in ("LaplacianRegularizationRegressor", "PRLSRegressor", "PLapRLSRegressor", "GRLSRegressor")
        add(name, "one class", lambda name=name, one=one: _fit_predict(name, XE, one),
            Correct((lambda p: np.testing.assert_allclose(p, 1.0, rtol=1e-6)) if exact else finite))
    add(name, "wrong shape (y)", lambda name=name, yb=yb: _fit_predict(name, XE, yb[:-1]), Raises(ValueError, "y|sample"))
    add(name, "NaN (predict)", lambda name=name, yb=yb: _make(name).fit(XE, yb).predict(_with(XE, np.nan, (0, 0))),
        Raises(ValueError, "X"))
    add(name, "wrong shape (predict)", lambda name=name, yb=yb: _make(name).fit(XE, yb).predict(XE[:, :1]),
        Raises(ValueError, "feature"))
    if clf:
        # labels {-1, +1} with -1 the default unlabeled marker (issue 13 finding 2)
        add(name, "marker collision", lambda name=name: _fit_predict(name, XE, np.where(YC == 0, -1, YC)),
            Raises(ValueError, "-1|unlabeled"))
        # -1 between the classes -2 and 0: read as unlabeled, with a warning saying how to say otherwise
        y_between = np.where(YC == 0, -2, np.where(YC == 1, 0, -1))
        add(name, "marker collision (between classes)", lambda name=name, y=y_between: _fit_predict(name, XE, y),
            Warns(g.LabelCollisionWarning, lambda p: set(np.unique(p)) <= {-2, 0}, "-1 read as unlabeled"))
    if trans:
        add(name, "components", lambda name=name, clf=clf: _fit_predict(name, FAR, YC_FAR if clf else YR_FAR),
            Warns(g.GraphWarning, finite, "fallback"))
    add(name, "float32", lambda name=name, yb=yb: _scores(_make(name).fit(XE32, yb), XE32),
        Correct(_close_to_float64(name, yb)))
    params = _make(name).get_params()
    bogus = next(p for p in ("laplacian", "graph", "kernel", "outer", "method") if p in params)
    add(name, "unknown option", lambda name=name, bogus=bogus, yb=yb: _fit_predict(name, XE, yb, **{bogus: "bogus"}),
        Raises(ValueError, bogus))



# class_priors on every classifier (issue 15): wrong length, negative, not summing to 1 -> ValueError
# naming class_priors, before the solve; an unknown class_normalization is refused by the table check.
for name in [n for n in ESTIMATORS if n.endswith("Classifier")]:
    for klass, priors in (("class_priors wrong length", [1.0]), ("class_priors negative", [1.5, -0.5]),
                          ("class_priors not summing to 1", [0.3, 0.3]), ("class_priors NaN", [np.nan, 1.0])):
        add(name, klass, lambda name=name, priors=priors: _fit_predict(name, XE, YC, class_priors=priors),
            Raises(ValueError, "class_priors"))
    add(name, "unknown option (class_normalization)",
        lambda name=name: _fit_predict(name, XE, YC, class_normalization="bogus"), Raises(ValueError, "class_normalization"))

# The Poisson + kernel ridge ensemble (issue 15): its weight in [0, 1], named when out of range
for _w in (-0.1, 1.5, np.nan):
    add("PoissonRidgeEnsembleClassifier", f"poisson_weight {_w}",
        lambda w=_w: _fit_predict("PoissonRidgeEnsembleClassifier", XE, YC, poisson_weight=w),
        Raises(ValueError, "poisson_weight"))
add("PoissonRidgeEnsembleClassifier", "poisson_weight 1 (Poisson alone, standardized)",
    lambda: _fit_predict("PoissonRidgeEnsembleClassifier", XE, YC, poisson_weight=1),
    Correct(lambda p: set(np.unique(p)) <= {0, 1}))

# The size-constrained assignment and the MBO solvers (issue 15)
_S3 = RNG.random((N, 3))
_SZ = g.class_sizes([0.5, 0.3, 0.2], N)
bad_arrays("size_constrained_assignment", "S", _S3, lambda s: g.size_constrained_assignment(s, _SZ),
           override={"empty": Raises(ValueError, "S|sizes"), "object dtype": Raises((TypeError, ValueError), "S"),
                     "strings": Raises((TypeError, ValueError), "S"), "complex": Raises((TypeError, ValueError), "S")})
add("size_constrained_assignment", "sizes not summing to n", lambda: g.size_constrained_assignment(_S3, _SZ + 1),
    Raises(ValueError, "sizes"))
add("size_constrained_assignment", "huge", lambda: g.size_constrained_assignment(1e150 * _S3, _SZ)[0],
    Correct(allclose(g.size_constrained_assignment(_S3, _SZ)[0])))
add("size_constrained_assignment", "constant scores", lambda: g.size_constrained_assignment(np.ones((N, 3)), _SZ)[0],
    Correct(lambda lab: np.testing.assert_array_equal(np.bincount(lab, minlength=3), _SZ)))
add("class_sizes", "negative", lambda: g.class_sizes([1.5, -0.5], 10), Raises(ValueError, "class_priors"))
add("class_sizes", "not summing to 1", lambda: g.class_sizes([0.3, 0.3], 10), Raises(ValueError, "class_priors"))
add("class_sizes", "NaN", lambda: g.class_sizes([np.nan, 1.0], 10), Raises(ValueError, "class_priors"))
add("class_sizes", "negative n", lambda: g.class_sizes([0.5, 0.5], -1), Raises(ValueError, "n"))
for fname in ("poisson_mbo", "volume_mbo", "cut_ssl"):
    fn = getattr(g, fname)
    bad_arrays(fname, "Y", YOH, lambda y, fn=fn: fn(W, LAB, y), skip=("empty",),
               override={"wrong shape": Raises(ValueError, "Y")})
    _graph_input_cases(fname, lambda Wx, fn=fn: fn(Wx, LAB, YOH))
    add(fname, "no labels", lambda fn=fn: fn(W, [], YOH[:0]), Raises(ValueError, "labeled"))
    add(fname, "Y length mismatch", lambda fn=fn: fn(W, LAB, YOH[:3]), Raises(ValueError, "Y"))
    add(fname, "marker collision", lambda fn=fn: fn(W, [0, 1, 2, N], YOH), Raises(ValueError, "labeled"))
    add(fname, "duplicate labels", lambda fn=fn: fn(W, [0, 0, 2, 3], YOH), Raises(ValueError, "labeled"))
    add(fname, "not one-hot", lambda fn=fn: fn(W, LAB, 0.5 * np.ones((4, 2))), Raises(ValueError, "one-hot"))
    add(fname, "one class", lambda fn=fn: fn(W, LAB, np.tile([1.0, 0.0], (4, 1))), Correct(finite))
    add(fname, "class_priors wrong length", lambda fn=fn: fn(W, LAB, YOH, class_priors=[1.0]),
        Raises(ValueError, "class_priors"))
    add(fname, "class_priors not summing to 1", lambda fn=fn: fn(W, LAB, YOH, class_priors=[0.3, 0.3]),
        Raises(ValueError, "class_priors"))
    # volume MBO and CutSSL (degree-weighted ADMM) are invariant to the scale of W; Poisson MBO's mu is in the units of the weights
    # (scaling W by c is scaling mu by 1/c, as in the paper's U <- U - dt (L U - mu B), dt = 1 / max d)
    kw_scaled = {"mu": 1e8} if fname == "poisson_mbo" else {}
    add(fname, "offset (W)", lambda fn=fn, kw=kw_scaled: fn(1e8 * W, LAB, YOH, **kw).argmax(axis=1),
        Correct(allclose(fn(W, LAB, YOH).argmax(axis=1))))
    add(fname, "components", lambda fn=fn: fn(TWO_COMP, LAB1, YOH), Warns(g.GraphWarning, finite, "fallback"))
    add(fname, "no edges", lambda fn=fn: fn(EMPTY_GRAPH, LAB, YOH), Warns(g.GraphWarning, finite, "fallback"))
    add(fname, "bad max_iter", lambda fn=fn: fn(W, LAB, YOH, max_iter=0), Raises(ValueError, "max_iter"))
    if fname != "cut_ssl":
        add(fname, "bad n_inner", lambda fn=fn: fn(W, LAB, YOH, n_inner=0), Raises(ValueError, "n_inner"))
add("poisson_mbo", "bad mu", lambda: g.poisson_mbo(W, LAB, YOH, mu=-1.0), Raises(ValueError, "mu"))
add("volume_mbo", "init wrong shape", lambda: g.volume_mbo(W, LAB, YOH, init=np.zeros((N, 3))),
    Raises(ValueError, "init"))
add("volume_mbo", "init NaN", lambda: g.volume_mbo(W, LAB, YOH, init=np.full((N, 2), np.nan)),
    Raises(ValueError, "init"))
add("volume_mbo", "init 1-D", lambda: g.volume_mbo(W, LAB, YOH, init=np.zeros(N)), Raises(ValueError, "init"))
add("cut_ssl", "s decreasing", lambda: g.cut_ssl(W, LAB, YOH, s=(0.1, 0.0)), Raises(ValueError, "non-decreasing"))
add("cut_ssl", "s at rho", lambda: g.cut_ssl(W, LAB, YOH, s=(0.0, 1.0)), Raises(ValueError, "rho"))
add("cut_ssl", "s negative", lambda: g.cut_ssl(W, LAB, YOH, s=-0.1), Raises(ValueError, "s"))
add("cut_ssl", "s NaN", lambda: g.cut_ssl(W, LAB, YOH, s=(0.0, np.nan)), Raises(ValueError, "s"))
add("cut_ssl", "s empty", lambda: g.cut_ssl(W, LAB, YOH, s=()), Raises(ValueError, "s"))
add("cut_ssl", "s 2-D", lambda: g.cut_ssl(W, LAB, YOH, s=[[0.0, 0.1]]), Raises(ValueError, "s"))
add("cut_ssl", "max_iter per stage mismatch", lambda: g.cut_ssl(W, LAB, YOH, s=(0.0, 0.1), max_iter=(5, 5, 5)),
    Raises(ValueError, "max_iter"))
add("cut_ssl", "max_iter float", lambda: g.cut_ssl(W, LAB, YOH, max_iter=2.5), Raises((TypeError, ValueError), "max_iter"))
add("cut_ssl", "bad rho", lambda: g.cut_ssl(W, LAB, YOH, rho=0.0), Raises(ValueError, "rho"))
add("cut_ssl", "bad tol", lambda: g.cut_ssl(W, LAB, YOH, tol=-1.0), Raises(ValueError, "tol"))
add("cut_ssl", "bad patience", lambda: g.cut_ssl(W, LAB, YOH, patience=0), Raises(ValueError, "patience"))
add("cut_ssl", "bad cg_tol", lambda: g.cut_ssl(W, LAB, YOH, cg_tol=0.0), Raises(ValueError, "cg_tol"))

# verbose of the plain functions and objects: the values the estimators' table accepts (a bool, numpy's too,
# an int >= 0, None); a string was read by bool() (verbose="no" drew a bar), a float or a list passed silently
_VERBOSE_CALLS = {
    "knn_graph": lambda v: g.knn_graph(X, 3, verbose=v),
    "epsilon_graph": lambda v: g.epsilon_graph(X, 1.0, verbose=v),
    "FredholmKernel": lambda v: g.FredholmKernel(X, verbose=v),
    "WarpedKernel": lambda v: g.WarpedKernel(X, n_neighbors=3, verbose=v),
    "NystromFeatures": lambda v: g.NystromFeatures(X, n_components=10, random_state=0, verbose=v),
    "poisson_mbo": lambda v: g.poisson_mbo(W, LAB, YOH, verbose=v),
    "volume_mbo": lambda v: g.volume_mbo(W, LAB, YOH, verbose=v),
    "cut_ssl": lambda v: g.cut_ssl(W, LAB, YOH, verbose=v),
}
for fname, fn in _VERBOSE_CALLS.items():
    add(fname, "verbose string", lambda fn=fn: fn("no"), Raises(TypeError, "verbose"))
    add(fname, "verbose float", lambda fn=fn: fn(0.5), Raises(TypeError, "verbose"))
    add(fname, "verbose negative", lambda fn=fn: fn(-1), Raises(ValueError, "verbose"))
add("knn_graph", "verbose numpy bool / int 0", lambda: (g.knn_graph(X, 3, verbose=np.False_),
                                                        g.knn_graph(X, 3, verbose=np.int64(0))),
    Correct(lambda out: [(a != g.knn_graph(X, 3)).nnz == 0 for a in out] == [True, True]))


# ---------------------------------------------------------------------------------------------
# Running the table
# ---------------------------------------------------------------------------------------------

def run_case(case):
    """Run one case against its expectation (shared with the table generator)."""
    exp = case.expect
    if isinstance(exp, Raises):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exp.exc, match=re.compile(exp.arg, re.IGNORECASE)):
                case.call()
        return
    if isinstance(exp, Warns):
        with pytest.warns(exp.category):
            result = case.call()
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # overflow / invalid inside numpy: a defect
            result = case.call()
    assert _finite(result), "result holds NaN or infinity"
    if exp.check is not None:
        # a check asserts (numpy.testing) or returns a truth value, or a tuple of them
        out = exp.check(result)
        for verdict in (out if isinstance(out, tuple) else (out,)):
            assert verdict is None or bool(verdict), f"check failed on {result!r}"


def _params():
    out = []
    seen = set()
    for c in CASES:
        cid = c.id
        k = 2
        while cid in seen:
            cid = f"{c.id}-{k}"
            k += 1
        seen.add(cid)
        out.append(pytest.param(c, id=cid))
    return out


# Active learning (issue 15): the scores, n_points, criterion and the graph / labels it needs.
_P = np.full((N, 3), 1 / 3)
_P[:, 0] += np.linspace(0, 0.3, N)
_P /= _P.sum(axis=1, keepdims=True)
_nan_P = _P.copy()
_nan_P[0, 0] = np.nan
add("propose_labels", "NaN", lambda: g.propose_labels(_nan_P), Raises(ValueError, "scores"))
add("propose_labels", "strings", lambda: g.propose_labels(_P.astype(str)), Raises(TypeError, "scores"))
add("propose_labels", "wrong shape", lambda: g.propose_labels(_P[:, :1]), Raises(ValueError, "scores"))
add("propose_labels", "unknown option", lambda: g.propose_labels(_P, criterion="luck"), Raises(ValueError, "criterion"))
add("propose_labels", "too many points", lambda: g.propose_labels(_P, N + 1), Raises(ValueError, "n_points"))
add("propose_labels", "no graph for model change",
    lambda: g.propose_labels(_P, criterion="model_change", labeled=[0, 1]), Raises(ValueError, "graph"))
add("propose_labels", "labeled never proposed",
    lambda: g.propose_labels(_P, 3, labeled=np.arange(N - 3)),
    Correct(lambda out: set(np.asarray(out).tolist()) == {N - 3, N - 2, N - 1}))
add("propose_labels_for", "unfitted model",
    lambda: g.propose_labels_for(g.LaplacianRegularizationClassifier(), X, np.r_[0, 1, np.full(N - 2, -1)]),
    Raises(Exception, "fitted"))
add("propose_labels_for", "regressor refused",
    lambda: g.propose_labels_for(g.LaplacianRegularizationRegressor().fit(X, np.r_[0.0, 1.0, np.full(N - 2, np.nan)]),
                                 X, np.r_[0.0, 1.0, np.full(N - 2, np.nan)]),
    Raises((TypeError, ValueError), "classifier"))


@pytest.mark.parametrize("case", _params())
def test_bad_input(case):
    run_case(case)


def test_every_public_callable_has_rows():
    """The table covers all of graphrkhs.__all__ except constants, modules, warnings and result types."""
    exempt = {"filters", "datasets", "__version__", "KERNELS", "FEATURES", "FREDHOLM_PRESETS",
              "DENSE_CACHE_BYTES", "DIRECT_MAX_N", "DIRECT_MAX_N_HEAT", "CGResult", "TVResult",
              "KernelExpansion", "GraphRKHSWarning", "ConvergenceWarning", "AccuracyWarning", "GraphWarning",
              "LabelCollisionWarning", "IdentifierLabelsWarning", "SOLVERS", "INTEGRAL_OPERATORS", "SelectionWarning", "GridResult"}
    covered = {c.func for c in CASES}
    missing = [n for n in g.__all__ if n not in exempt and n not in covered]
    assert not missing, f"public names without a bad-input row: {missing}"


@pytest.mark.parametrize("kw, error, message", [
    ({"order": -1}, ValueError, "order must be >= 0; got -1."),
    ({"order": 2.5}, TypeError, "order must be an int; got 2.5 of type float."),
    ({"filter_tol": 0}, ValueError, "filter_tol must be > 0; got 0.0."),
])
def test_graph_kernel_ridge_checks_the_filter_options_on_every_path(kw, error, message):
    # the default kernel takes the "sparse" path, which builds no Chebyshev filter: order=-1 and 2.5 were ignored
    W = g.knn_graph(np.random.default_rng(0).random((40, 2)), 5)
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        g.graph_kernel_ridge(W, [0, 1], [0.0, 1.0], **kw)
