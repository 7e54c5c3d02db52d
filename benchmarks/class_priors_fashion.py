"""Issue 15, class-priors track: the ensemble with the true class priors against GraphLearning's
prior-aware methods on Fashion-MNIST (70000 x 784 raw pixels), 5 label draws per rate.

Graphs: ``cos`` = ``knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="cosine",
random_state=0)`` (pynndescent when installed), ``gl`` = GraphLearning's default graph
(``gl.weightmatrix.knn(None, 10, knn_data=(J, D))`` on exact Euclidean lists, built by
``label_rates.gl_graph``).  Draws: ``sample_labels(y, rate, random_state=rng)`` called draw after
draw on ``rng = np.random.default_rng([0, rate])``, as ``label_rates.evaluate``.  Accuracy on the
unlabeled nodes.  One JSON line per (part, method, graph, rate, draw) in ``--out``.

Parts (run as separate processes, they are independent)::

    ours     PoissonRidgeEnsembleClassifier on cos, class_priors = 0.1 each (and the same fit's argmax)
    gl       gl.ssl.poisson(W, class_priors=p) on gl and cos
    mbo-gl   gl.ssl.poisson_mbo / volume_mbo (class_priors=p) on gl
    mbo-cos  the same on cos

    nice -n 10 env OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/class_priors_fashion.py --part ours
"""

import argparse
import json
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

CACHE = os.environ.get("GRAPHRKHS_PRIORS_CACHE", "/tmp/pri15")


def cosine_graph(X):
    from graphrkhs import knn_graph
    path = os.path.join(CACHE, "fashion_cos_st10.npz")
    if not os.path.exists(path):
        t0 = time.perf_counter()
        W, info = knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="cosine", random_state=0,
                            return_info=True)
        os.makedirs(CACHE, exist_ok=True)
        sp.save_npz(path, sp.csr_matrix(W))
        print(f"cosine graph: {time.perf_counter() - t0:.1f} s, {info}", flush=True)
    return sp.csr_array(sp.load_npz(path))


def gl_graph(X):
    path = os.path.join(CACHE, "fashion_gl_graph.npz")
    if not os.path.exists(path):
        import label_rates
        label_rates.CACHE = CACHE
        label_rates.gl_graph("fashion", X)
    return sp.csr_array(sp.load_npz(path))


def draws(y, rate, n_draws):
    from graphrkhs.datasets import sample_labels
    rng = np.random.default_rng([0, rate])
    return [sample_labels(y, rate, random_state=rng)[1] for _ in range(n_draws)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--part", required=True, choices=["ours", "gl", "mbo-gl", "mbo-cos"])
    p.add_argument("--rates", default="1,5,10,50")
    p.add_argument("--draws", type=int, default=5)
    p.add_argument("--out", default=None)
    p.add_argument("--methods", default=None, help="mbo parts: a subset of poisson_mbo,volume_mbo")
    p.add_argument("--first-draw", type=int, default=0)
    p.add_argument("--graphs", default="gl,cos", help="gl: the graphs of the 'gl' part")
    p.add_argument("--save-scores", action="store_true", help="ours: keep the Poisson and ridge scores")
    args = p.parse_args()
    from graphrkhs.datasets import load_fashion_mnist
    X, y = load_fashion_mnist()
    X, y = np.asarray(X), np.asarray(y)
    rates = [int(r) for r in args.rates.split(",")]
    k = int(y.max()) + 1
    prior = np.full(k, 1.0 / k)
    assert np.allclose(np.bincount(y, minlength=k) / y.size, prior)     # Fashion-MNIST is balanced
    out = open(args.out or os.path.join(CACHE, f"{args.part}.jsonl"), "a")
    sets = {r: draws(y, r, args.draws) for r in rates}
    graphs = {}
    gl_graphs = args.graphs.split(",") if args.part == "gl" else [args.part[4:]]
    if args.part == "ours" or "cos" in gl_graphs:
        graphs["cos"] = cosine_graph(X)
    if "gl" in gl_graphs:
        graphs["gl"] = gl_graph(X)

    def record(method, graph, rate, d, pred, S, t, **extra):
        hidden = np.ones(y.size, dtype=bool)
        hidden[S] = False
        acc = float(np.mean(pred[hidden] == y[hidden]))
        row = {"method": method, "graph": graph, "rate": rate, "draw": d, "accuracy": acc, "time": t,
               "load": os.getloadavg()[0],
               # the class proportions of the prediction on all n nodes: how close to the priors
               "max_size_error": float(np.abs(np.bincount(pred, minlength=k) / pred.size - prior).max()),
               **extra}
        out.write(json.dumps(row) + "\n")
        out.flush()
        print(f"{method:22s} {graph:4s} {rate:3d}/class draw {d}: {100 * acc:6.2f}  {t:6.1f} s  "
              f"load {row['load']:.1f}  size error {row['max_size_error']:.4f} {extra or ''}", flush=True)

    # draw-major: a stopped run still covers every rate
    for d in range(args.first_draw, args.draws):
        for rate in rates:
            S = sets[rate][d]
            if args.part == "ours":
                from graphrkhs import PoissonRidgeEnsembleClassifier
                yp = np.full(y.size, -1)
                yp[S] = y[S]
                t0 = time.perf_counter()
                est = PoissonRidgeEnsembleClassifier(graph="precomputed", class_priors=prior).fit(graphs["cos"], yp)
                t = time.perf_counter() - t0
                if args.save_scores:      # for post-processing without refitting
                    np.savez(os.path.join(CACHE, f"scores_{rate}_{d}.npz"), S=S,
                             P=est.poisson_scores_.astype(np.float32), R=est.ridge_scores_.astype(np.float32))
                record("ensemble+priors", "cos", rate, d, est.transduction_, S, t)
                # the same fit without priors: the argmax of the raw scores
                record("ensemble", "cos", rate, d, est.classes_[est.scores_.argmax(axis=1)], S, t)
                continue
            import graphlearning as gl
            names = ["poisson"] if args.part == "gl" else (args.methods or "poisson_mbo,volume_mbo").split(",")
            for gname in gl_graphs:
                Wm = sp.csr_matrix(graphs[gname])
                for name in names:
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = getattr(gl.ssl, name)(Wm, class_priors=prior)
                        pred = model.fit_predict(S, y[S])
                    extra = {}
                    if hasattr(model, "class_priors_error"):     # its volume projection's last error
                        extra["gl_class_priors_error"] = float(model.class_priors_error)
                    record(name, gname, rate, d, np.asarray(pred), S, time.perf_counter() - t0, **extra)


if __name__ == "__main__":
    main()
