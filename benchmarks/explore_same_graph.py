"""Issue 15 exploration: the recommended classifier and GraphLearning on the SAME graph.

Fashion-MNIST (70000 x 784), the graph ``PoissonRidgeEnsembleClassifier(graph="auto")`` builds on it
(cosine self-tuning 10-NN, relative width 1/2; cached in /tmp/lowrank_cache), label draws of
``benchmarks/label_rates.py`` (``sample_labels(y, rate, random_state=np.random.default_rng([0, rate]))``
in sequence).  Accuracy (%) on the unlabeled points of the ensemble (defaults, ``graph="precomputed"``)
and of GraphLearning's laplace, poisson, randomwalk (defaults) and poisson with the true class priors,
all on that one graph: what the method adds once the graph is shared.

Run:  python benchmarks/explore_same_graph.py 10,1,50,5 3      (rates, draws per rate)
"""
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

warnings.filterwarnings("ignore")
import graphrkhs as gr, graphlearning as gl
from graphrkhs.datasets import load_fashion_mnist, sample_labels
X, y = load_fashion_mnist()
p = "/tmp/lowrank_cache/graph70k_st10cos.npz"
if not os.path.exists(p):
    t = time.time(); W = gr.knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="cosine"); print("build", time.time()-t, flush=True)
    sp.save_npz(p, sp.csr_matrix(W))
W = sp.csr_array(sp.load_npz(p)); Wm = sp.csr_matrix(W)
rates = [int(a) for a in sys.argv[1].split(",")]; ndraw = int(sys.argv[2])
for r in rates:
    rng = np.random.default_rng([0, r])
    acc = {}
    for d in range(ndraw):
        yp, keep = sample_labels(y, r, random_state=rng)
        S = np.flatnonzero(yp != -1); unl = yp == -1
        ens = gr.PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yp)
        acc.setdefault("ens", []).append(np.mean(np.asarray(ens.transduction_)[unl] == y[unl]))
        for name, cls in [("gl_laplace", gl.ssl.laplace), ("gl_poisson", gl.ssl.poisson), ("gl_randomwalk", gl.ssl.randomwalk)]:
            pred = cls(Wm).fit_predict(S, y[S])
            acc.setdefault(name, []).append(np.mean(pred[unl] == y[unl]))
        pr = np.full(10, 0.1)
        pred = gl.ssl.poisson(Wm, class_priors=pr).fit_predict(S, y[S]); acc.setdefault("gl_poisson_pri", []).append(np.mean(pred[unl] == y[unl]))
        print(r, d, {k: round(100*v[-1], 2) for k, v in acc.items()}, flush=True)
    print("RATE", r, {k: f"{100*np.mean(v):.2f}+-{100*np.std(v):.2f}" for k, v in acc.items()}, flush=True)
