"""Progress bars and logging (graphrkhs._core.progress): silent by default, on with verbose=True
or the ``graphrkhs`` logger at INFO, off again with an explicit verbose=False; no prints in the
library; only a NullHandler on the library logger; results identical with progress on or off."""

import ast
import logging
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs
from graphrkhs import (
    FredholmKernel,
    WarpedKernel,
    amg_preconditioner,
    chebyshev_filter,
    conjugate_gradient,
    epsilon_graph,
    filters,
    knn_graph,
    laplacian,
)
from graphrkhs._core import progress
from graphrkhs._core.progress import _Progress, progress_enabled, progress_ticks, verbosity
from graphrkhs.graphs import _search

PACKAGE = pathlib.Path(graphrkhs.__file__).resolve().parent


@pytest.fixture
def no_delay(monkeypatch):
    """Bars drawn at once (the library waits BAR_DELAY seconds, longer than these small problems run)."""
    monkeypatch.setattr(progress, "BAR_DELAY", 0)


@pytest.fixture
def points():
    return np.random.default_rng(0).normal(size=(300, 3))


@pytest.fixture
def spd_system():
    X = np.random.default_rng(1).random((1500, 2))
    A = sp.csr_array(laplacian(knn_graph(X, 8)) + 1e-2 * sp.eye_array(1500))
    B = np.random.default_rng(2).standard_normal((1500, 2))
    return A, B


def _graphrkhs_records(caplog):
    return [r for r in caplog.records if r.name.startswith("graphrkhs")]


def _run_everything(points, spd_system, verbose=None):
    """One call of every step that has a bar or stage messages; ``verbose`` where the API takes it."""
    X = points
    knn_graph(X, 5, verbose=verbose)
    knn_graph(X, 5, algorithm="brute", verbose=verbose)
    epsilon_graph(X, 0.5, algorithm="brute", verbose=verbose)
    FredholmKernel(X, n_neighbors=5, inner_approximation="nystrom", n_components=20, random_state=0,
                   verbose=verbose)(X[:5])
    WarpedKernel(X, n_neighbors=5, solver="cg", verbose=verbose)(X[:3])
    A, B = spd_system
    with verbosity(verbose):
        conjugate_gradient(A, B, M=amg_preconditioner(A, max_coarse=50), tol=1e-8)
        chebyshev_filter(A, filters.Heat(0.5), B, order=30)


def test_silent_by_default(points, spd_system, no_delay, capsys, caplog):
    _run_everything(points, spd_system)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    assert _graphrkhs_records(caplog) == []
    assert not progress_enabled()


def test_verbose_true_shows_bars_and_stage_messages_without_logging_configured(points, spd_system, no_delay,
                                                                                capsys, caplog):
    _run_everything(points, spd_system, verbose=True)
    err = capsys.readouterr().err
    for bar in ("kNN search (brute)", "radius search (brute)", "AMG set-up", "CG (2 rhs)", "Chebyshev degree 30"):
        assert bar in err, bar
    # stage messages reach stderr although no logging handler is configured ...
    assert "graphrkhs: knn_graph: searching 5 neighbours of 300 points" in err
    assert "graphrkhs: FredholmKernel: nystrom factor" in err and "graphrkhs: WarpedKernel: CG done" in err
    # ... and no record is emitted (the logger is at its default level, WARNING)
    assert _graphrkhs_records(caplog) == []
    assert not progress_enabled()   # the verbose calls did not leak into the caller


def test_logger_at_info_turns_progress_on_and_sends_messages_to_logging(points, spd_system, no_delay, capsys,
                                                                       caplog):
    caplog.set_level(logging.INFO, logger="graphrkhs")
    assert progress_enabled()
    _run_everything(points, spd_system)
    err = capsys.readouterr().err
    assert "kNN search (brute)" in err and "CG (2 rhs)" in err and "Chebyshev degree 30" in err
    messages = [r.getMessage() for r in _graphrkhs_records(caplog)]
    assert any(m.startswith("knn_graph: searching 5 neighbours of 300 points") for m in messages)
    assert any(m.startswith("WarpedKernel: CG done") for m in messages)
    assert all(r.levelno == logging.INFO for r in _graphrkhs_records(caplog))
    # a handler shows the records, so they are not written to stderr a second time
    assert "knn_graph: searching" not in err


def test_explicit_verbose_false_silences_under_an_info_logger(points, spd_system, no_delay, capsys, caplog):
    caplog.set_level(logging.INFO, logger="graphrkhs")
    _run_everything(points, spd_system, verbose=False)
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""
    assert _graphrkhs_records(caplog) == []


def test_inner_calls_follow_the_outer_decision(points, no_delay, capsys):
    # WarpedKernel builds its graph with knn_graph(verbose=None): it inherits the kernel's choice.
    WarpedKernel(points, n_neighbors=5, solver="direct", verbose=True)
    assert "graphrkhs: knn_graph: searching 5 neighbours" in capsys.readouterr().err
    with verbosity(True):
        knn_graph(points, 5, algorithm="brute", verbose=False)   # explicit False wins inside
    assert capsys.readouterr().err == ""


def test_quick_steps_print_no_bar_with_the_default_delay(points, capsys):
    assert progress.BAR_DELAY > 0
    with verbosity(True, messages=False):
        knn_graph(points, 5, algorithm="brute")
    assert capsys.readouterr().err == ""


def test_messages_false_keeps_records_for_configured_logging(caplog, capsys):
    caplog.set_level(logging.INFO, logger="graphrkhs")
    with verbosity(True, messages=False):
        _Progress(None, "stage")("hello")
    assert [r.getMessage().split(" (")[0] for r in _graphrkhs_records(caplog)] == ["stage: hello"]
    assert capsys.readouterr().err == ""
    with verbosity(True, messages=False):
        _Progress(True, "stage")("hello")
    caplog.set_level(logging.WARNING, logger="graphrkhs")
    with verbosity(True, messages=False):
        _Progress(True, "stage")("dropped")
    assert capsys.readouterr().err == ""


def test_verbosity_accepts_scikit_learn_ints():
    with verbosity(2):
        assert progress_enabled()
        with verbosity(0):
            assert not progress_enabled()
        with verbosity(None):
            assert progress_enabled()
    assert not progress_enabled()
    # numpy's bools and integers as the estimators' parameter table accepts them
    for on, off in ((np.True_, np.False_), (np.int64(3), np.uint8(0))):
        with verbosity(on):
            assert progress_enabled() and _Progress(off, "x").enabled() is False
        assert _Progress(on, "x").enabled() is True


@pytest.mark.parametrize("bad, error", [("no", TypeError), ("False", TypeError), (0.5, TypeError), (1.0, TypeError),
                                        ([], TypeError), (-1, ValueError), (np.int64(-2), ValueError)])
def test_a_verbose_that_is_no_bool_or_count_is_refused(bad, error, monkeypatch):
    # verbose="no" was read by bool(): progress on.  Refused where a verbose becomes behaviour: on entering
    # verbosity() and when a _Progress is made (the first thing public functions and kernels do)
    with pytest.raises(error, match=r"^verbose must be True, False, None or an int >= 0"):
        with verbosity(bad):
            pass
    with pytest.raises(error, match="verbose"):
        _Progress(bad, "x")
    # before any search: knn_graph refuses it without reaching the neighbour search
    monkeypatch.setattr(_search, "knn_search_report", _interrupt)
    with pytest.raises(error, match="verbose"):
        knn_graph(np.zeros((5, 2)) + np.arange(5)[:, None], 2, verbose=bad)
    assert not progress_enabled()


def test_results_are_identical_with_progress_on(points, spd_system, monkeypatch, no_delay, capsys):
    # The kd-tree is queried in slices when a bar is shown: force slicing on this small cloud.
    monkeypatch.setattr(_search, "_KD_PROGRESS_BLOCK", 40)
    A, B = spd_system
    quiet = (knn_graph(points, 6), knn_graph(points, 6, algorithm="brute"),
             conjugate_gradient(A, B, tol=1e-10).x, chebyshev_filter(A, filters.Heat(0.5), B, order=25))
    with verbosity(True):
        loud = (knn_graph(points, 6), knn_graph(points, 6, algorithm="brute"),
                conjugate_gradient(A, B, tol=1e-10).x, chebyshev_filter(A, filters.Heat(0.5), B, order=25))
    assert "kNN search (kd-tree)" in capsys.readouterr().err
    for a, b in zip(quiet[:2], loud[:2]):
        assert (a != b).nnz == 0
    np.testing.assert_array_equal(quiet[2], loud[2])
    np.testing.assert_array_equal(quiet[3], loud[3])


class _RecordingBar:
    """Stands in for a tqdm bar: records updates and postfixes."""

    disable = False

    def __init__(self, *args, **kwargs):
        self.kwargs = kwargs
        self.n = 0
        self.postfixes = []
        self.closed = False

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, s=None, refresh=True):
        self.postfixes.append(s)

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def test_cg_bar_counts_iterations_and_shows_the_worst_relative_residual(spd_system, monkeypatch):
    from graphrkhs._core import cg

    bars = []
    monkeypatch.setattr(cg, "progress_bar", lambda **kw: bars.append(_RecordingBar(**kw)) or bars[-1])
    A, B = spd_system
    B = B * np.array([1.0, 1e3])   # the scaling of a column must not change its relative residual
    res = conjugate_gradient(A, B, tol=1e-9)
    (bar,) = bars
    assert bar.closed and bar.n == res.n_iter and bar.kwargs["desc"] == "CG (2 rhs)"
    values = [float(s.split()[1]) for s in bar.postfixes]
    assert len(values) == res.n_iter + 1
    # the last value is the final true relative residual, the worst of the columns
    final = np.linalg.norm(B - A @ res.x, axis=0) / np.linalg.norm(B, axis=0)
    assert values[-1] == pytest.approx(final.max(), rel=1e-2)
    # during the loop: the recursive residual of the worst unconverged column, above rtol until the end
    assert values[0] == pytest.approx(max(np.linalg.norm(B - A @ (B * (B * B).sum(0) /
                                          (B * (A @ B)).sum(0)), axis=0) / np.linalg.norm(B, axis=0)),
                                      rel=1e-2)
    assert all(v > 1e-9 for v in values[:-2])


def test_ticks_redraw_every_few_steps_and_count_every_step(no_delay):
    calls = []

    class Recorder:
        def update(self, n):
            calls.append(n)

        def close(self):
            calls.append("close")

    ticks = progress._Ticks(Recorder(), every=10)
    for _ in range(95):
        ticks.tick()
    ticks.close()
    assert calls == [10] * 9 + [5, "close"]
    with verbosity(True):
        with progress_ticks(total=250, desc="t") as bar:
            assert bar.every == 2   # a hundredth of the total
    with verbosity(False):
        assert progress_ticks(total=250).disable


def test_library_logger_has_only_a_null_handler():
    code = ("import logging, graphrkhs; h = logging.getLogger('graphrkhs').handlers; "
            "print(len(h), type(h[0]).__name__)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(PACKAGE.parent))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "NullHandler"]


def test_verbose_calls_add_no_handler(points, capsys):
    before = list(logging.getLogger("graphrkhs").handlers)
    knn_graph(points, 5, verbose=True)
    after = logging.getLogger("graphrkhs").handlers
    assert after == before
    assert all(isinstance(h, logging.NullHandler) for h in after)


def _prints(path):
    """Line numbers of print(...) calls and of sys.stdout / sys.stderr writes in one module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "print":
            found.append(node.lineno)
        elif (isinstance(f, ast.Attribute) and f.attr in ("write", "writelines")
              and isinstance(f.value, ast.Attribute) and f.value.attr in ("stdout", "stderr")
              and isinstance(f.value.value, ast.Name) and f.value.value.id == "sys"):
            found.append(node.lineno)
    return found


def test_no_print_in_library_code_outside_the_command_line():
    modules = [p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts]
    assert len(modules) > 20   # the walk found the package
    offenders = {str(p.relative_to(PACKAGE)): _prints(p) for p in modules}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_print_detector_finds_prints(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nprint('x')\nsys.stderr.write('y')\nlogger.info('fine')\n")
    assert _prints(bad) == [2, 3]


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("step", ["amg", "cg", "radius"])
def test_bars_are_closed_when_the_step_is_interrupted(step, spd_system, points, no_delay, monkeypatch, capsys):
    # the exception's traceback keeps the frame (as a REPL's sys.last_traceback does): a bar left open
    # there stays registered (on screen) and pushes every later bar one line down
    from tqdm import tqdm
    from graphrkhs._core import amg

    A, B = spd_system
    open_before = len(tqdm._instances)
    if step == "amg":
        monkeypatch.setattr(amg, "_spectral_bound", _interrupt)
        call = lambda: amg_preconditioner(A, max_coarse=50)  # noqa: E731
    elif step == "radius":
        # the brute radius search calls einsum once before its loop (squared norms), then once per block
        einsum, calls = np.einsum, []
        monkeypatch.setattr(np, "einsum", lambda *a, **k: (calls.append(1), _interrupt() if len(calls) == 2
                                                           else einsum(*a, **k))[1])
        call = lambda: epsilon_graph(points, 0.5, algorithm="brute")  # noqa: E731
    else:
        calls = []
        M = lambda R: (calls.append(1), _interrupt() if len(calls) == 3 else R)[1]  # noqa: E731
        call = lambda: conjugate_gradient(A, B, M=M)  # noqa: E731
    with verbosity(True), pytest.raises(KeyboardInterrupt) as info:
        call()
    assert info.traceback is not None
    if step == "radius":
        assert len(calls) == 2     # interrupted inside the loop, with its bar open
    assert len(tqdm._instances) == open_before
    capsys.readouterr()


def test_nystrom_feature_bar_follows_the_objects_verbose(points, no_delay, capsys, caplog):
    # the features' bar ignored NystromFeatures(verbose=...): none with True, drawn with False under INFO
    from graphrkhs import NystromFeatures

    X = np.random.default_rng(3).normal(size=(400, 3))
    ny = NystromFeatures(X, n_components=50, tol=0, verbose=True, random_state=0)
    err = capsys.readouterr().err
    assert "graphrkhs: Nystrom features:" in err and "pt" in err
    ny.transform(X[:10])                      # later calls keep the object's choice
    assert "graphrkhs: Nystrom features:" in capsys.readouterr().err
    caplog.set_level(logging.INFO, logger="graphrkhs")
    NystromFeatures(X, n_components=50, tol=0, verbose=False, random_state=0).transform(X[:10])
    assert capsys.readouterr().err == ""
    assert _graphrkhs_records(caplog) == []
