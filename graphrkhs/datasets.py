"""Data: loaders for the bundled/installed benchmark sets and the papers'
synthetic generators."""

import gzip
import os

import numpy as np

from ._validation import check_random_state, check_scalar

__all__ = ["load_digits", "load_fashion_mnist", "sample_labels"]

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"


def load_digits(scale=True):
    """scikit-learn's bundled handwritten digits (1797 x 64, 10 classes).

    Parameters
    ----------
    scale : bool, default=True
        Divide the pixel values (0..16) by 16.

    Returns
    -------
    X : ndarray of shape (1797, 64), y : ndarray of shape (1797,)
    """
    from sklearn.datasets import load_digits as _load

    data = _load()
    X = data.data.astype(np.float64)
    return (X / 16.0 if scale else X), data.target.copy()


def load_fashion_mnist(path=None, scale=True, dtype=np.float32):
    """Fashion-MNIST, train and test sets stacked (70000 x 784, 10 classes).

    Reads the IDX files of Debian's package ``dataset-fashion-mnist``
    (``apt-get install dataset-fashion-mnist``), nothing is downloaded.

    Parameters
    ----------
    path : str, optional
        Folder with the four ``*-idx?-ubyte.gz`` files; default
        ``/usr/share/datasets/fashion-mnist`` or ``$GRAPHRKHS_FASHION_MNIST``.
    scale : bool, default=True
        Map pixels to [0, 1].
    dtype : dtype, default=float32

    Returns
    -------
    X : ndarray of shape (70000, 784), y : ndarray of shape (70000,)
    """
    path = path or os.environ.get("GRAPHRKHS_FASHION_MNIST", FASHION_MNIST_DIR)
    images, labels = [], []
    for part in ("train", "t10k"):
        img = os.path.join(path, f"{part}-images-idx3-ubyte.gz")
        lab = os.path.join(path, f"{part}-labels-idx1-ubyte.gz")
        if not (os.path.exists(img) and os.path.exists(lab)):
            raise FileNotFoundError(
                f"Fashion-MNIST files not found in {path!r}; install Debian's package dataset-fashion-mnist "
                "or point path / GRAPHRKHS_FASHION_MNIST at the folder with the IDX files."
            )
        with gzip.open(img, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
        images.append(raw.reshape(-1, 784))
        with gzip.open(lab, "rb") as f:
            labels.append(np.frombuffer(f.read(), dtype=np.uint8, offset=8).astype(np.int64))
    X = np.vstack(images).astype(dtype)
    if scale:
        X /= dtype(255.0) if dtype is not None else 255.0
    return X, np.concatenate(labels)


def sample_labels(y, n_per_class, random_state=None, unlabeled=-1):
    """Hide all but ``n_per_class`` labels of each class, drawn at random.

    Returns a copy of ``y`` (as an object array when y holds strings) with
    the hidden entries set to ``unlabeled``, and the indices kept.
    """
    n_per_class = check_scalar(n_per_class, "n_per_class", kind="int", low=1)
    rng = check_random_state(random_state)
    y = np.asarray(y)
    keep = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        if members.size < n_per_class:
            raise ValueError(f"class {c!r} has only {members.size} samples; cannot keep {n_per_class}.")
        keep.append(rng.choice(members, n_per_class, replace=False))
    keep = np.sort(np.concatenate(keep))
    out = np.full(y.shape, unlabeled, dtype=y.dtype if y.dtype.kind in "iuf" else object)
    out[keep] = y[keep]
    return out, keep
