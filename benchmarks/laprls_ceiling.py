"""Issue 17: test-tuned ceilings of the Nystrom LapRLS on Fashion-MNIST's own split (60000 / 10000).

Not a selection benchmark: for one Nystrom factor (width ``--sigma``, ``--m`` landmarks: k-means,
uniform, or k-means plus the labeled points of the draw) and several graph penalties M on the cached
10-NN graph of ``benchmarks/out_of_sample.py`` (``/tmp/lowrank_cache``), the LapRLS of
``graphrkhs.nystrom_laprls_fit``,

    (F_S^T F_S + gamma_A l (I + rho G)) w = F_S^T Y,   G = F^T M F / (trace(F^T M F) / r),

is solved on a grid of gamma_A (1e-10..1, 11 values) and rho = gamma_I / gamma_A (0 and 1e-2..1e16,
19 values) and scored ON THE TEST SET: the best of the grid is an upper bound for any selection rule
on it.  One Cholesky of I + rho G and one l x l eigendecomposition per rho serve the whole gamma_A
axis (B^{-1} F_S^T (c I + F_S B^{-1} F_S^T)^{-1} = (c B + F_S^T F_S)^{-1} F_S^T).  ``--loo`` adds the
accuracy at the exact-LOO choice of ``select_nystrom_laprls`` on the same grid.

Penalties: L (combinatorial), Ln (normalized), Ln2..Ln4 (its powers: Zhou & Belkin 2011's iterated
Laplacian), L2 (combinatorial squared), matern: (0.04 I + Ln)^2 = phi(Ln)^{-1} for the graph kernel
ridge's default response phi = Matern(2, 10) (the anchor's RKHS norm), matern0: phi(Ln)^{-1} - phi(0)^{-1}.

Landmarks "kmeans+labeled": the m k-means centres plus the 100 labeled points of the draw (m + 100
landmarks).  ``--kernel laplace``: exp(-||x - y|| / sigma) as a callable kernel on the same Nystrom path.

``--project``: the transductive graph kernel ridge (defaults, the anchor) on the training graph, its
scores projected on span(F) by least squares (and by the ridge of the Nystrom + diagonal kernel,
``wproj_c``), scored on the test set: how much of what the graph knows a function of the span keeps;
with the anchor's own 1-NN extension and RLS (defaults, the labeled points only) of the same draw.

Run:  python benchmarks/laprls_ceiling.py --sigma 8.09 --m 1000 --penalties L,Ln,matern --draws 0,1,2
Prints one JSON record per (penalty, draw) and appends it to benchmarks/results/laprls_ceiling.jsonl;
``--table`` prints the markdown summary of that file (benchmarks/results/laprls_ceiling.md).
"""
import argparse, json, os, time, sys
import numpy as np
import scipy.sparse as sp
import scipy.linalg as sla

import graphrkhs as gr
from graphrkhs.datasets import load_fashion_mnist, sample_labels
from graphrkhs.kernels import pairwise_kernel

CACHE = "/tmp/lowrank_cache"


def table(path):
    """Markdown summary of the records in ``path``: one row per (factor, penalty), means over the draws."""
    recs = [json.loads(line) for line in open(path)]
    rows, out = {}, []
    for r in recs:
        key = ("project" if r.get("project") else r["pen"], r["sigma"], r["m"], r.get("landmarks", "kmeans"),
               r.get("kernel", "gaussian"))
        rows.setdefault(key, {})[r["draw"]] = r
    out.append("| penalty | kernel | sigma | m | landmarks | test-tuned best (draws 0/1/2) | mean | RLS in span, test-tuned "
               "(mean) | largest graph weight (mean) | LOO choice (mean) | features s + graph gram s (load, when recorded) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, d in rows.items():
        if key[0] == "project":
            continue
        draws = [d[s] for s in sorted(d)]
        mean = lambda k: np.mean([x[k] for x in draws]) if all(k in x for x in draws) else float("nan")  # noqa: E731
        out.append(f"| {key[0]} | {key[4]} | {key[1]:g} | {key[2]} | {key[3]} | "
                   f"{' / '.join(format(x['best'], '.4f') for x in draws)} | {mean('best'):.4f} | "
                   f"{mean('rls_best'):.4f} | {mean('at_max_ratio'):.4f} | {mean('loo_acc'):.4f} | "
                   f"{draws[0]['feat_s']:.0f} + {draws[0]['gram_s']:.0f}"
                   + (f" ({draws[0]['load']:.1f})" if "load" in draws[0] else "") + " |")
    out += ["", "| kernel | sigma | m | draw | anchor unlabeled acc | anchor + 1-NN test acc | projection on span(F): test acc | "
            "Nystrom+diagonal ridge projection (c = 1) | RLS defaults |", "|---|---|---|---|---|---|---|---|---|"]
    for key, d in rows.items():
        if key[0] != "project":
            continue
        for s in sorted(d):
            x = d[s]
            out.append(f"| {key[4]} | {key[1]:g} | {key[2]} | {s} | {x['gkr_unlabeled_acc']:.4f} | "
                       f"{x.get('gkr_1nn_test_acc', float('nan')):.4f} | {x['proj_test_acc']:.4f} | "
                       f"{x.get('wproj_1', float('nan')):.4f} | {x.get('rls_auto_test_acc', float('nan')):.4f} |")
    return "\n".join(out) + "\n"


# ---- the run (a script: module-level state, one factor per process)
p = argparse.ArgumentParser()
p.add_argument("--sigma", type=float, default=8.09)
p.add_argument("--m", type=int, default=1000)
p.add_argument("--kernel", default="gaussian")       # gaussian | laplace: exp(-|x - y| / sigma)
p.add_argument("--landmarks", default="kmeans")       # kmeans | uniform | kmeans+labeled
p.add_argument("--penalties", default="L,Ln,Ln2,matern")
p.add_argument("--draws", default="0,1,2")
p.add_argument("--n", type=int, default=60000)
p.add_argument("--eps", type=float, default=0.04)
p.add_argument("--project", action="store_true")
p.add_argument("--loo", action="store_true")
p.add_argument("--table", action="store_true", help="print the summary of --out and stop")
p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "laprls_ceiling.jsonl"))
a = p.parse_args()
if a.table:
    print(table(a.out))
    sys.exit(0)


def emit(rec):
    rec["load"] = os.getloadavg()[0]
    print(json.dumps(rec), flush=True)
    with open(a.out, "a") as f:
        f.write(json.dumps(rec) + "\n")


X, y = load_fashion_mnist()
Xtr, ytr, Xte, yte = X[:60000], y[:60000], X[60000:], y[60000:]
W = sp.csr_array(sp.load_npz(os.path.join(CACHE, "graph_knn10.npz")))
if a.n < 60000:
    Xtr, ytr = Xtr[:a.n], ytr[:a.n]
    gp = os.path.join(CACHE, f"graph_knn10_{a.n}.npz")
    if not os.path.exists(gp):
        sp.save_npz(gp, sp.csr_matrix(gr.knn_graph(Xtr, 10)))
    W = sp.csr_array(sp.load_npz(gp))
n = Xtr.shape[0]
draws = [int(s) for s in a.draws.split(",")]
labs = {s: sample_labels(ytr, 10, random_state=s) for s in draws}

t0 = time.perf_counter()
if a.kernel == "laplace":
    from scipy.spatial.distance import cdist

    def _laplace(A, B):
        B = A if B is None else B
        return np.exp(-cdist(np.asarray(A, np.float64), np.asarray(B, np.float64)) / a.sigma)
    KW = dict(kernel=_laplace)
else:
    KW = dict(sigma=a.sigma)
if a.landmarks == "kmeans+labeled":
    ny = gr.NystromFeatures(Xtr, **KW, n_components=a.m, tol=0, landmarks="kmeans", dtype=np.float64,
                            random_state=0)
    Z = np.vstack([ny.landmarks_.astype(np.float64)] + [Xtr[labs[s][1]].astype(np.float64) for s in draws])
    Kzz = pairwise_kernel(Z, None, **KW).astype(np.float64)
    ev, U = np.linalg.eigh(Kzz); keep = ev > ev.max() * len(Z) * np.finfo(np.float64).eps
    T = U[:, keep] / np.sqrt(ev[keep])
    feat = lambda A: np.vstack([pairwise_kernel(A[i:i + 5000].astype(np.float64), Z, **KW) @ T
                                for i in range(0, len(A), 5000)])
    F, Fte = feat(Xtr), feat(Xte)
else:
    ny = gr.NystromFeatures(Xtr, **KW, n_components=a.m, tol=0, landmarks=a.landmarks, dtype=np.float64,
                            random_state=0)
    F, Fte = ny.features_, ny.transform(Xte)
    print(f"nystrom error {ny.error_:.3f} rank {ny.rank_}", flush=True)
tF = time.perf_counter() - t0
r = F.shape[1]
print(f"features {tF:.1f}s r={r}", flush=True)

Lc = gr.laplacian(W, "combinatorial", dtype=np.float64)
Ln = gr.laplacian(W, "normalized", dtype=np.float64)

def gram(name):
    if name == "L":
        return F.T @ (Lc @ F)
    if name == "Ln":
        return F.T @ (Ln @ F)
    LF = Ln @ F
    if name == "Ln2":
        return LF.T @ LF
    if name == "Ln3":
        return LF.T @ (Ln @ LF)
    if name == "Ln4":
        L2F = Ln @ LF
        return L2F.T @ L2F
    if name == "matern":          # phi(L)^{-1} = (eps I + L)^2, the graph kernel ridge's RKHS norm
        E = LF + a.eps * F
        return E.T @ E
    if name == "matern0":         # phi(L)^{-1} - phi(0)^{-1}
        E = LF + a.eps * F
        return E.T @ E - a.eps ** 2 * (F.T @ F)
    if name == "L2":
        LcF = Lc @ F
        return LcF.T @ LcF
    raise ValueError(name)

gammas_A = np.geomspace(1e-10, 1e0, 11)
ratios = np.r_[0.0, np.geomspace(1e-2, 1e16, 19)]
results = []
for pen in [q for q in a.penalties.split(",") if q]:
    t = time.perf_counter()
    G = gram(pen); G = (G + G.T) / 2
    tg = time.perf_counter() - t
    # scale G to unit mean eigenvalue for a comparable ratio grid
    G = G / (np.trace(G) / r)
    for s in draws:
        yp, keep = labs[s]
        S = np.flatnonzero(yp != -1)
        k = 10
        Y = -np.ones((S.size, k)); Y[np.arange(S.size), ytr[S]] = 1
        FS = F[S]
        acc = np.full((gammas_A.size, ratios.size), np.nan)
        for j, rho in enumerate(ratios):
            # (c B + FS^T FS)^{-1} FS^T = B^{-1} FS^T (c I + FS B^{-1} FS^T)^{-1},  B = I + rho G
            try:
                c = sla.cho_factor(np.eye(r) + rho * G, lower=True, check_finite=False)
            except np.linalg.LinAlgError:
                continue
            BF = sla.cho_solve(c, FS.T, check_finite=False)
            K = FS @ BF; K = (K + K.T) / 2; P = Fte @ BF
            ev, U = np.linalg.eigh(K)
            UY = U.T @ Y
            for i, ga in enumerate(gammas_A):
                coef = U @ (UY / (ev + ga * S.size)[:, None])
                acc[i, j] = np.mean(np.argmax(P @ coef, 1) == yte)
        ib = np.unravel_index(np.nanargmax(acc), acc.shape)
        rec = dict(pen=pen, draw=s, kernel=a.kernel, sigma=a.sigma, m=a.m, landmarks=a.landmarks, r=r, best=float(acc[ib]),
                   gA=float(gammas_A[ib[0]]), ratio=float(ratios[ib[1]]), rls_best=float(np.nanmax(acc[:, 0])),
                   at_max_ratio=float(np.nanmax(acc[:, -1])), gram_s=tg, feat_s=tF)
        if a.loo:
            from graphrkhs.solvers._lowrank import select_nystrom_laprls
            res = select_nystrom_laprls(F, S, Y, Lc, gammas_A[1:], ratios[1:], graph_gram=G)
            ga, rho = res.best_params["alpha"], res.best_params["sigma"]
            A = FS.T @ FS + ga * S.size * (np.eye(r) + rho * G)
            w = np.linalg.solve(A, FS.T @ Y)
            rec.update(loo_acc=float(np.mean(np.argmax(Fte @ w, 1) == yte)), loo_gA=float(ga), loo_ratio=float(rho))
        results.append(rec)
        emit(rec)
        print("  best per ratio:", " ".join(f"{x:.3f}" for x in np.nanmax(acc, 0)), flush=True)
if a.project:
    # the transductive graph kernel ridge scores (draw 0) projected onto span(F): test accuracy of that w
    for s in draws:
        path = os.path.join(CACHE, f"gkr_scores_{n}_{s}.npy")
        yp, _ = labs[s]
        if not os.path.exists(path):
            est = gr.GraphKernelRidgeClassifier(graph="precomputed").fit(W, yp)
            np.save(path, np.asarray(est.scores_))
        Sc = np.load(path)
        w = np.linalg.lstsq(F, Sc, rcond=None)[0]
        unl = yp == -1
        rec = dict(project=True, draw=s, kernel=a.kernel, sigma=a.sigma, m=a.m, r=r, landmarks=a.landmarks,
                   gkr_unlabeled_acc=float(np.mean(np.argmax(Sc, 1)[unl] == ytr[unl])),
                   proj_train_unl_acc=float(np.mean(np.argmax(F @ w, 1)[unl] == ytr[unl])),
                   proj_test_acc=float(np.mean(np.argmax(Fte @ w, 1) == yte)),
                   rel_resid=float(np.linalg.norm(F @ w - Sc) / np.linalg.norm(Sc)))
        # the Nystrom + diagonal (FITC) kernel's ridge projection: w = (I c + F^T D^-1 F)^-1 F^T D^-1 u
        Dg = np.maximum(1.0 - np.einsum("ij,ij->i", F, F), 1e-3)
        FD = F / Dg[:, None]
        C = F.T @ FD; ev, U = np.linalg.eigh((C + C.T) / 2); b = U.T @ (FD.T @ Sc)
        for c in (1e-2, 1.0, 1e2, 1e4):
            w = U @ (b / (ev + c)[:, None])
            rec[f"wproj_{c:g}"] = float(np.mean(np.argmax(Fte @ w, 1) == yte))
        rec["Dmean"] = float(Dg.mean())
        nn = np.load(os.path.join(CACHE, "test_nn.npy"))
        rec["gkr_1nn_test_acc"] = float(np.mean(np.argmax(Sc, 1)[nn] == yte))
        S_ = np.flatnonzero(yp != -1)
        rec["rls_auto_test_acc"] = float(np.mean(gr.RLSClassifier().fit(Xtr[S_], ytr[S_]).predict(Xte) == yte))
        emit(rec)
