"""Issue 17: what could lift a learner above the transductive anchor on Fashion-MNIST's own split?

Test-tuned probes (the best of a small grid scored ON THE TEST SET: upper bounds, not selections) on
the cosine self-tuning 10-NN graph of the 60000 training points (``knn_graph(X, 10,
weight="self-tuning", relative_width=0.5, metric="cosine")``, the graph ``graph="auto"`` builds on this
data; cached in ``/tmp/lowrank_cache`` as by ``anchor_graphs.py``), label draws
``sample_labels(y_train, 10, random_state=d)``, accuracy on the 10000 test points:

``extensions``
    The anchor (``GraphKernelRidgeClassifier(graph="precomputed")``, defaults) carried to the test
    points by its nearest training point (1-NN, cosine) or by an average of the scores of the k
    nearest (uniform, Gaussian weights with the self-tuning width, inverse distance); and the
    regularized Laplacian (J + M + eps I) U = J Y (M = L / mean degree or the normalized Laplacian,
    eps on a grid, class-mass normalized columns), unlabeled and 1-NN / 10-NN test accuracy.
``mix``
    The anchor's 1-NN test scores mixed with RLS's (defaults, the 100 labeled points) decision
    scores, each centred per row and scaled to unit standard deviation: (1 - t) z(anchor) + t z(RLS).
``sum-kernel``
    LapRLS in the RKHS of k = k_Nystrom + c k_1nn: the Nystrom features F of the Gaussian kernel at
    RLS's LOO width (m k-means landmarks) plus c times the kernel z(x)^T z(y) of the nearest-training-
    point indicator z (z(x_i) = e_i; a valid kernel whose functions pass through the training values).
    On the training points K = F F^T + c I, and LapRLS (normalized penalty beta Ln) is the n x n system
    (J + g K^{-1} + beta Ln) u = J Y with K^{-1} = (I - F (c I + F^T F)^{-1} F^T) / c, solved exactly by
    Woodbury around A = J + (g / c) I + beta Ln (block CG); predictions f(x) = phi(x)^T F^T a + c a[nn(x)],
    a = K^{-1} u.  c -> infinity at fixed g / c is the regularized Laplacian with its 1-NN extension.

Run:  python benchmarks/anchor_variants.py extensions|mix|sum-kernel [--draws 0,1,2,3,4] [--m 500]
Prints one dict per draw (``extensions``, ``mix``) or one line per grid point (``sum-kernel``).
"""
import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.datasets import load_fashion_mnist, sample_labels

CACHE = "/tmp/lowrank_cache"


def data():
    X, y = load_fashion_mnist()
    Xtr, ytr, Xte, yte = X[:60000], y[:60000], X[60000:], y[60000:]
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, "graph_st10cos.npz")
    if not os.path.exists(path):
        sp.save_npz(path, sp.csr_matrix(gr.knn_graph(Xtr, 10, weight="self-tuning", relative_width=0.5,
                                                     metric="cosine")))
    W = sp.csr_array(sp.load_npz(path))
    nn_path = os.path.join(CACHE, "test_knn10_cos.npz")
    if not os.path.exists(nn_path):
        unit = lambda A: A / np.linalg.norm(A, axis=1, keepdims=True)  # noqa: E731
        A, B = unit(Xtr), unit(Xte)
        idx, sim = [], []
        for i in range(0, len(Xte), 1000):
            s = B[i:i + 1000] @ A.T
            top = np.argpartition(-s, 10, axis=1)[:, :10]
            st = np.take_along_axis(s, top, 1)
            order = np.argsort(-st, axis=1)
            idx.append(np.take_along_axis(top, order, 1))
            sim.append(np.take_along_axis(st, order, 1))
        np.savez(nn_path, I=np.vstack(idx), S=np.vstack(sim))
    nn = np.load(nn_path)
    return Xtr, ytr, Xte, yte, W, nn["I"], np.sqrt(np.maximum(2 - 2 * nn["S"], 0))


def normalized_laplacian(W):
    deg = np.asarray(W.sum(axis=1)).ravel()
    Dm = sp.diags(1 / np.sqrt(deg))
    return (sp.eye(W.shape[0]) - Dm @ W @ Dm).tocsr(), deg


def extend(U, NI, dist, k, mode):
    if k == 1:
        return U[NI[:, 0]]
    if mode == "uniform":
        w = np.ones((len(NI), k))
    elif mode == "gauss":
        w = np.exp(-(dist[:, :k] / (0.5 * dist[:, k - 1:k] + 1e-12)) ** 2)
    else:
        w = 1 / (dist[:, :k] + 1e-9)
    w /= w.sum(axis=1, keepdims=True)
    return np.einsum("tk,tkc->tc", w, U[NI[:, :k]])


def block_cg(A, B, tol=1e-6, max_iter=5000):
    """Jacobi-preconditioned CG on all columns of B at once (A sparse SPD)."""
    dinv = 1 / A.diagonal()
    X = np.zeros_like(B)
    R = B.copy()
    Z = R * dinv[:, None]
    P = Z.copy()
    rz = (R * Z).sum(axis=0)
    nb = np.linalg.norm(B, axis=0)
    for it in range(max_iter):
        AP = A @ P
        al = rz / (P * AP).sum(axis=0)
        X += P * al
        R -= AP * al
        if (np.linalg.norm(R, axis=0) <= tol * nb).all():
            break
        Z = R * dinv[:, None]
        rz2 = (R * Z).sum(axis=0)
        P = Z + P * (rz2 / rz)
        rz = rz2
    return X, it + 1


def one_hot_labels(ytr, draw):
    yp, _ = sample_labels(ytr, 10, random_state=draw)
    lab = yp != -1
    Y = np.zeros((ytr.size, 10))
    Y[np.flatnonzero(lab), ytr[lab]] = 1
    return yp, lab, Y


def run_extensions(args, Xtr, ytr, Xte, yte, W, NI, dist):
    n = W.shape[0]
    Ln, deg = normalized_laplacian(W)
    L = (sp.diags(deg) - W) / deg.mean()
    acc = lambda S, truth: round(float(np.mean(S.argmax(axis=1) == truth)), 4)  # noqa: E731
    for draw in args.draws:
        yp, lab, Y = one_hot_labels(ytr, draw)
        out = {"draw": draw, "rls": round(gr.RLSClassifier().fit(Xtr[lab], ytr[lab]).score(Xte, yte), 4)}
        G = np.asarray(gr.GraphKernelRidgeClassifier(graph="precomputed").fit(W, yp).scores_)
        out["anchor_unl"] = acc(G[~lab], ytr[~lab])
        for k, mode in [(1, ""), (5, "uniform"), (10, "uniform"), (10, "gauss"), (10, "inv")]:
            out[f"anchor_{k}nn{mode}"] = acc(extend(G, NI, dist, k, mode), yte)
        J = sp.diags(lab.astype(float))
        for name, M in (("L", L), ("Ln", Ln)):
            for eps in (1e-4, 1e-3, 1e-2, 1e-1):
                U, _ = block_cg((J + M + eps * sp.eye(n)).tocsr(), Y, tol=1e-8)
                U = U / U.sum(axis=0, keepdims=True)          # class-mass normalization
                out[f"{name}{eps:g}_unl"] = acc(U[~lab], ytr[~lab])
                out[f"{name}{eps:g}_1nn"] = acc(extend(U, NI, dist, 1, ""), yte)
                out[f"{name}{eps:g}_10nn"] = acc(extend(U, NI, dist, 10, "gauss"), yte)
        print(out, flush=True)


def run_mix(args, Xtr, ytr, Xte, yte, W, NI, dist):
    z = lambda A: (A - A.mean(axis=1, keepdims=True)) / A.std()  # noqa: E731
    for draw in args.draws:
        yp, lab, _ = one_hot_labels(ytr, draw)
        R = gr.RLSClassifier().fit(Xtr[lab], ytr[lab]).decision_function(Xte)
        G = np.asarray(gr.GraphKernelRidgeClassifier(graph="precomputed").fit(W, yp).scores_)[NI[:, 0]]
        out = {"draw": draw, "rls": np.mean(R.argmax(1) == yte), "anchor": np.mean(G.argmax(1) == yte)}
        for t in (0.1, 0.2, 0.3, 0.4, 0.5):
            out[f"t={t}"] = np.mean(((1 - t) * z(G) + t * z(R)).argmax(1) == yte)
        print({k: round(float(v), 4) for k, v in out.items()}, flush=True)


def run_sum_kernel(args, Xtr, ytr, Xte, yte, W, NI, dist):
    n = W.shape[0]
    Ln, _ = normalized_laplacian(W)
    nn = NI[:, 0]
    cm = lambda Z: Z / np.maximum(Z.clip(0).sum(axis=0, keepdims=True), 1e-12)  # noqa: E731
    for draw in args.draws:
        yp, lab, Y = one_hot_labels(ytr, draw)
        rls = gr.RLSClassifier().fit(Xtr[lab], ytr[lab])
        t = time.perf_counter()
        ny = gr.NystromFeatures(Xtr, sigma=rls.sigma_, n_components=args.m, random_state=0, dtype=np.float64)
        F, Ft = ny.features_, ny.transform(Xte)
        FtF = F.T @ F
        print(f"draw {draw}: rls {rls.score(Xte, yte):.4f}, sigma {rls.sigma_:.2f}, rank {F.shape[1]}, "
              f"features {time.perf_counter() - t:.0f} s", flush=True)
        J = sp.diags(lab.astype(float))
        for beta in args.betas:
            for s in args.ridges:                 # s = g / c: the ridge of the indicator part
                t = time.perf_counter()
                A = (J + s * sp.eye(n) + beta * Ln).tocsr()
                AinvF, it1 = block_cg(A, F)
                AinvY, it2 = block_cg(A, Y)
                FtAF = F.T @ AinvF
                for c in args.cs:
                    C = c * np.eye(F.shape[1]) + FtF
                    # P = A - s F C^-1 F^T;  P^-1 Y = A^-1 Y + A^-1 F (C / s - F^T A^-1 F)^-1 F^T A^-1 Y
                    u = AinvY + AinvF @ np.linalg.solve(C / s - FtAF, F.T @ AinvY)
                    a = (u - F @ np.linalg.solve(C, F.T @ u)) / c
                    f_test = Ft @ (F.T @ a) + c * a[nn]
                    print(f"  beta {beta} s {s} c {c:g}: unlabeled {np.mean(u.argmax(1)[~lab] == ytr[~lab]):.4f} "
                          f"test {np.mean(f_test.argmax(1) == yte):.4f} "
                          f"test (class mass) {np.mean(cm(f_test).argmax(1) == yte):.4f}", flush=True)
                print(f"  [indicator part alone (regularized Laplacian, s = {s}): unlabeled "
                      f"{np.mean(AinvY.argmax(1)[~lab] == ytr[~lab]):.4f}, test 1-NN "
                      f"{np.mean(AinvY[nn].argmax(1) == yte):.4f}; CG iterations {it1}, {it2}; "
                      f"{time.perf_counter() - t:.0f} s]", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("probe", choices=("extensions", "mix", "sum-kernel"))
    p.add_argument("--draws", default="0,1,2,3,4")
    p.add_argument("--m", type=int, default=500, help="Nystrom landmarks (sum-kernel)")
    p.add_argument("--betas", default="1")
    p.add_argument("--ridges", default="0.003")
    p.add_argument("--cs", default="0.03,0.1,0.3,1,3,30,300,3000,30000")
    args = p.parse_args()
    args.draws = [int(s) for s in args.draws.split(",")]
    args.betas = [float(s) for s in args.betas.split(",")]
    args.ridges = [float(s) for s in args.ridges.split(",")]
    args.cs = [float(s) for s in args.cs.split(",")]
    run = {"extensions": run_extensions, "mix": run_mix, "sum-kernel": run_sum_kernel}[args.probe]
    run(args, *data())


if __name__ == "__main__":
    main()
