"""Data: loaders for the bundled/installed benchmark sets and the papers'
synthetic generators."""

import gzip
import numbers
import os

import numpy as np

from ._core.labels import _as_label_array, _check_one_label_type, _unlabeled_mask, label_classes
from ._core.validation import check_flag, check_random_state, check_scalar

__all__ = ["load_digits", "load_fashion_mnist", "sample_labels", "make_noisy_subspace", "make_noisy_circles"]

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

    Raises
    ------
    TypeError
        ``scale`` is not True or False.
    """
    from sklearn.datasets import load_digits as _load

    check_flag(scale, "scale")

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
    dtype : dtype or str, default=float32
        Of ``X`` (None: float64): a real numeric dtype that holds 0..255 exactly (not int8 or bool, into
        which the pixels would wrap or collapse); ``scale=True`` needs a floating dtype.

    Returns
    -------
    X : ndarray of shape (70000, 784), y : ndarray of shape (70000,)

    Raises
    ------
    FileNotFoundError
        The files are not in ``path``.
    ValueError
        A file is not gzip, not an IDX file whose header matches its size, or the images and labels
        of a part differ in number; a ``dtype`` that cannot hold 0..255 (int8, bool, complex, str,
        object); ``scale=True`` with a non-floating ``dtype``.
    TypeError
        ``scale`` is not True or False.
    """
    check_flag(scale, "scale")
    try:
        dtype = np.dtype(np.float64 if dtype is None else dtype)
    except TypeError:
        raise TypeError(f"dtype must be a numpy dtype (e.g. np.float32 or 'float32'); got {dtype!r}.") from None
    if dtype.kind not in "iuf" or not np.can_cast(np.uint8, dtype):
        # astype wrapped the pixels (int8: 200 became -56), made them True / False (bool), or text and
        # Python objects, without a word
        raise ValueError(f"dtype must be a real numeric dtype that holds the pixel values 0..255 exactly "
                         f"(float32, float64, uint8, int16, ...); got dtype={dtype}.")
    if scale and dtype.kind != "f":
        raise ValueError(f"scale=True maps the pixels to [0, 1], which needs a floating dtype; got dtype={dtype} "
                         "(pass scale=False for the raw 0..255 values).")
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
        pixels = _read_idx(img, 2051, (28, 28)).reshape(-1, 784)
        classes = _read_idx(lab, 2049, ()).astype(np.int64)
        if pixels.shape[0] != classes.shape[0]:  # X and y would not match row by row
            raise ValueError(f"Fashion-MNIST files of different lengths: {img} holds {pixels.shape[0]} images, "
                             f"{lab} {classes.shape[0]} labels.")
        images.append(pixels)
        labels.append(classes)
    X = np.vstack(images).astype(dtype)
    if scale:
        X /= 255
    return X, np.concatenate(labels)


def _read_idx(path, magic, item_shape):
    """The uint8 array of an IDX file (LeCun's MNIST format): a big-endian int32 magic number (2051 images,
    2049 labels), the item count, the item shape, then the bytes; the header is checked against the payload."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError) as exc:   # not gzip, truncated
        raise ValueError(f"cannot read the IDX file {path}: {exc}.") from None
    header = 4 * (2 + len(item_shape))
    if len(raw) >= header:
        fields = np.frombuffer(raw, dtype=">i4", count=2 + len(item_shape))
        n = int(fields[1])
        if int(fields[0]) == magic and tuple(fields[2:]) == item_shape and len(raw) == header + n * int(
                np.prod(item_shape, dtype=np.int64)):
            return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape((n,) + item_shape)
    raise ValueError(f"{path} is not an IDX file of {'images' if item_shape else 'labels'} (magic number {magic}, "
                     "header matching its size): a corrupt or truncated download?")


def sample_labels(y, n_per_class, random_state=None, unlabeled=-1):
    """Hide all but ``n_per_class`` labels of each class, drawn at random.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The class of every sample: a fully labeled target, so no entry may equal ``unlabeled`` nor be
        missing (None, NaN, NaT, ``pd.NA``, or "" among strings) -- such entries would be drawn as a class
        of their own; both raise a ``ValueError``.
    n_per_class : int >= 1
        Labels kept per class; at most the size of the smallest class.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        The draws; an int makes them reproducible, a Generator is advanced.
    unlabeled : scalar, default=-1
        The value of the hidden entries (the library's estimators read -1, NaN and None as unlabeled).

    Returns
    -------
    y_partial : ndarray of shape (n_samples,)
        A copy of ``y`` with the hidden entries set to ``unlabeled``.  Numeric ``y`` keeps its dtype when
        that holds ``unlabeled`` exactly, else takes the smallest numeric type that ``y`` casts to
        safely and that holds the marker and every class exactly, an integer type if one does (uint8
        classes with -1: int16; uint8 classes with 300: uint16, y's own kind at equal size; int32 classes
        with 2**32: int64; int classes with NaN: the smallest float that holds them, int8 / uint8 float16,
        int16 / uint16 float32, int32 / int64 float64; float32 classes with 0.1: float64; int64 classes with
        2**64: float64); when there is none (uint64 codes
        above 2**63 with -1, int codes beyond 2**53 with NaN, int64 classes with 2**64 + 1), and for
        other ``y`` (strings, bools) or markers, an object array.
    keep : ndarray of int
        The indices of the kept labels, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs.datasets import sample_labels
    >>> y_partial, keep = sample_labels(np.array([0, 0, 0, 1, 1, 1]), 1, random_state=0)
    >>> len(keep), int((y_partial == -1).sum())
    (2, 4)
    """
    n_per_class = check_scalar(n_per_class, "n_per_class", kind="int", low=1)
    rng = check_random_state(random_state)
    # as the classifiers read y (the one label encoder): a list of tuples is one label per sample, and
    # booleans mixed with numbers stay booleans (numpy made [True, 2] the integers [1, 2])
    y = _as_label_array(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one class per sample); got shape {y.shape}.")
    if y.size == 0:
        raise ValueError("y is empty; sample_labels needs at least one sample per class.")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"y has {int(np.isnan(y).sum())} NaN entries (unlabeled samples?); sample_labels hides "
                         "labels of a fully labeled y: give every sample's class.")
    hits = _count_equal(y, unlabeled)
    if hits:
        raise ValueError(f"y already holds the unlabeled marker {unlabeled!r} ({hits} entries); sample_labels "
                         "hides labels of a fully labeled y (the marked samples would be drawn as a class of "
                         "their own): give every sample's class, or another unlabeled=.")
    # the estimators' missing labels (None, NaN, NaT, pd.NA, '' among strings): they would be drawn as a class
    # (or end in numpy's "'<' not supported" / "a cannot be empty" errors)
    missing = int(np.count_nonzero(_unlabeled_mask(y, None)))
    if missing:
        raise ValueError(f"y has {missing} missing entries (None, NaN, NaT, pd.NA or '' among strings: unlabeled "
                         "samples?); sample_labels hides labels of a fully labeled y: give every sample's class.")
    if y.dtype == object:
        # text mixed with numbers, or booleans with numbers: refused as by the classifiers (np.unique raised
        # a bare "'<' not supported")
        _check_one_label_type(y, "y")
    # the classifiers' classes: np.unique sorted frozensets by the subset order into the classes
    # [{1}, {2}, {1}] (one sample drawn twice, a class drawn twice) and compared tuples elementwise
    classes, codes = label_classes(y)
    counts = np.bincount(codes, minlength=classes.size)
    if counts.min() < n_per_class:
        c = classes[counts.argmin()]
        c = c.item() if isinstance(c, np.generic) else c
        raise ValueError(f"n_per_class={n_per_class} is larger than class {c!r}, which has {counts.min()} "
                         f"samples; n_per_class must be at most {counts.min()}.")
    keep = []
    for i in range(classes.size):
        members = np.flatnonzero(codes == i)
        keep.append(rng.choice(members, n_per_class, replace=False))
    keep = np.sort(np.concatenate(keep))
    out = np.full(y.shape, unlabeled, dtype=_marker_dtype(y, unlabeled))
    out[keep] = y[keep]
    return out, keep


def _count_equal(y, value):
    """How many entries of y equal ``value`` (a NaN marker is checked by the NaN test, not here)."""
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return 0
    if y.dtype.kind in "iuf":
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            return 0
        # a float16 / float32 y in float64: numpy compared it with the Python float 1e10 in float16 (inf)
        return int(np.count_nonzero((y.astype(np.float64) if y.dtype.kind == "f" else y) == value))
    def same(v):  # 1 == 1.0 but not "1", and not True (bools are classes of their own)
        if isinstance(v, numbers.Number) and isinstance(value, numbers.Number):
            return not isinstance(v, (bool, np.bool_)) and not isinstance(value, (bool, np.bool_)) and v == value
        return type(v) is type(value) and v == value
    return sum(1 for v in y.tolist() if same(v))


def _marker_dtype(y, unlabeled):
    """The dtype of the partial labels: ``y``'s when it holds ``unlabeled`` exactly, else the smallest common
    numeric type of the two that holds the marker and every class of ``y`` exactly, else object."""
    dtype = y.dtype
    numeric = isinstance(unlabeled, (int, float, np.integer, np.floating)) and not isinstance(unlabeled, bool)
    if dtype.kind not in "iuf" or not numeric:
        return object
    # y's own type, else every numeric type that y's classes cast to safely: integer types before floats
    # (integer classes with an integer marker stay integers), each smallest first.  numpy's promotions
    # missed some: an int32 y with the marker 2**32 promoted to float64 (int32 with uint64), which beat
    # int64 at equal size; a float16 y with 70000 took float64 where float32 holds it; an int y with
    # 2**64 (no numpy integer) became an object array where float64 holds the marker and every class
    candidates = [dtype] + [c for c in _NUMERIC_DTYPES if np.can_cast(dtype, c)]
    usable = [c for c in candidates if _holds(c, unlabeled) and _holds_classes(c, y)]
    # at equal size y's own kind (uint8 with 300: uint16, not int16)
    return (min(usable, key=lambda c: (c != dtype, c.kind == "f", c.itemsize, c.kind != dtype.kind)) if usable
            else object)


_NUMERIC_DTYPES = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32, np.uint32,
                                         np.float32, np.int64, np.uint64, np.float64)]


def _holds(dtype, value):
    """Whether ``dtype`` stores the number ``value`` exactly (NaN as NaN).  Compared as Python numbers:
    numpy compares a float16 0-d array with the Python float 1e10 in float16 (inf == inf), and a numpy
    integer with a Python float in float64 (np.uint64(2**64 - 1) == 2.0**64)."""
    if isinstance(value, np.generic):
        value = value.item()
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            stored = np.array(value, dtype=dtype).item()
    except (OverflowError, ValueError):   # -1 in uint8, NaN in an int type
        return False
    return stored == value or (stored != stored and value != value)


def _holds_classes(dtype, y):
    """Whether every entry of the numeric ``y`` keeps its value in ``dtype``: integer classes beyond the
    float's integer range (2**53 for float64) were rounded, two codes merged into one class."""
    if y.dtype.kind in "iu" and dtype.kind == "f" and y.size:
        exact = 2 ** (np.finfo(dtype).nmant + 1)
        return max(abs(int(y.min())), abs(int(y.max()))) <= exact
    return True


def make_noisy_subspace(n_samples=2000, *, n_signal=2, n_features=100, noise_var=0.25, boundary="parabola",
                        rotate=False, random_state=None):
    r"""The "noise assumption" data of Que, Belkin & Wang (NIPS 2014, Sections 3-4).

    The signal lives in the first ``n_signal`` coordinates, drawn from
    :math:`N(0, I)` (unit variance); the other ``n_features - n_signal``
    coordinates are pure Gaussian noise :math:`N(0, \text{noise\_var})`, so the
    points follow :math:`N(0, \mathrm{diag}(I_d, \sigma_n^2 I_{D-d}))` as in
    their problem set-up.  The class depends on the signal only, through a
    curved boundary:

    * ``"parabola"``: :math:`y = 1[s_2 > (s_1^2 - 1)/2]`: the boundary has
      mean 0 (:math:`E[s_1^2] = 1`) but is skewed, so class 1 holds
      :math:`P = E[\Phi(-(s_1^2 - 1)/2)] \approx 0.5245` of the points in
      expectation, not half;
    * ``"circle"``: :math:`y = 1[\|s\|^2 > \chi^2_{d}\text{-median}]` (balanced).

    Parameters
    ----------
    n_samples : int, default=2000
        The issue's benchmark size.
    n_signal : int >= 1, default=2
        d, the signal dimension (the parabola needs d >= 2).
    n_features : int > n_signal, default=100
        D.
    noise_var : float > 0, default=0.25
        Variance of each noise coordinate (0.25: small per direction, but 98 of
        them carry 12 times the signal's total variance).
    boundary : {"parabola", "circle"}, default="parabola"
    rotate : bool, default=False
        Apply a random orthogonal map, so that neither signal nor noise is
        axis-aligned (kernels that are rotation invariant do not care).
        True or False only (a ``TypeError`` otherwise: ``rotate="no"`` is truthy).
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray (n_samples, n_features)
    y : ndarray of int (n_samples,), classes 0 and 1

    Examples
    --------
    >>> from graphrkhs.datasets import make_noisy_subspace
    >>> X, y = make_noisy_subspace(500, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((500, 100), [0, 1])
    >>> round(float(X[:, 2:].var()), 2)
    0.25
    """
    from ._core.validation import check_option

    n_samples = check_scalar(n_samples, "n_samples", kind="int", low=2)
    n_signal = check_scalar(n_signal, "n_signal", kind="int", low=1)
    n_features = check_scalar(n_features, "n_features", kind="int", low=n_signal + 1)
    noise_var = check_scalar(noise_var, "noise_var", low=0, low_inclusive=False)
    check_option(boundary, "boundary", ("parabola", "circle"))
    check_flag(rotate, "rotate")
    if boundary == "parabola" and n_signal < 2:
        raise ValueError(f"boundary='parabola' needs n_signal >= 2; got n_signal={n_signal}.")
    rng = check_random_state(random_state)
    S = rng.normal(size=(n_samples, n_signal))
    noise = rng.normal(scale=np.sqrt(noise_var), size=(n_samples, n_features - n_signal))
    if boundary == "parabola":
        y = (S[:, 1] > 0.5 * (S[:, 0] ** 2 - 1.0)).astype(np.int64)
    else:
        from scipy.stats import chi2

        y = ((S * S).sum(axis=1) > chi2.median(n_signal)).astype(np.int64)
    X = np.hstack([S, noise])
    if rotate:
        Q, _ = np.linalg.qr(rng.normal(size=(n_features, n_features)))
        X = X @ Q
    return X, y


def make_noisy_circles(n_samples=1000, *, noise=0.05, n_noise_dims=8, noise_dim_std=0.2, factor=0.5,
                       rotate=False, random_state=None):
    r"""Two concentric noisy circles embedded in a space with extra noise dimensions.

    Class 0 lies on the circle of radius 1, class 1 on the circle of radius
    ``factor`` (:math:`(\cos\theta, \sin\theta)` times the radius, angles
    uniform), each point moved by :math:`N(0, \text{noise}^2 I_2)` in the
    plane; then ``n_noise_dims`` coordinates of pure noise
    :math:`N(0, \text{noise\_dim\_std}^2)` are appended.  The classes are
    separated along a 1-D manifold per class, while Euclidean distances are
    inflated by the noise dimensions: the "noise assumption" setting of
    Que, Belkin & Wang (NIPS 2014), where data-dependent (Fredholm) kernels
    should beat a plain Gaussian kernel.

    Parameters
    ----------
    n_samples : int >= 2, default=1000
        Split evenly (class 0 gets the extra point of an odd count).
    noise : float >= 0, default=0.05
        Standard deviation of the in-plane noise.
    n_noise_dims : int >= 0, default=8
        Number of appended noise coordinates.
    noise_dim_std : float >= 0, default=0.2
        Their standard deviation.
    factor : float in (0, 1), default=0.5
        Radius of the inner circle.
    rotate : bool, default=False
        Apply a random orthogonal map to all coordinates (signal and noise are
        then not axis-aligned; rotation-invariant kernels do not care).
        True or False only (a ``TypeError`` otherwise: ``rotate="no"`` is truthy).
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2 + n_noise_dims)
    y : ndarray of int (n_samples,), classes 0 (outer) and 1 (inner), in random order

    Examples
    --------
    >>> from graphrkhs.datasets import make_noisy_circles
    >>> X, y = make_noisy_circles(200, n_noise_dims=3, random_state=0)
    >>> X.shape, int(y.sum())
    ((200, 5), 100)
    """
    n_samples = check_scalar(n_samples, "n_samples", kind="int", low=2)
    noise = check_scalar(noise, "noise", low=0)
    n_noise_dims = check_scalar(n_noise_dims, "n_noise_dims", kind="int", low=0)
    noise_dim_std = check_scalar(noise_dim_std, "noise_dim_std", low=0)
    factor = check_scalar(factor, "factor", low=0, high=1, low_inclusive=False, high_inclusive=False)
    check_flag(rotate, "rotate")
    rng = check_random_state(random_state)
    n_inner = n_samples // 2
    y = np.zeros(n_samples, dtype=np.int64)
    y[n_samples - n_inner:] = 1
    y = y[rng.permutation(n_samples)]
    theta = rng.uniform(0.0, 2.0 * np.pi, n_samples)
    radius = np.where(y == 1, factor, 1.0)
    plane = radius[:, None] * np.column_stack([np.cos(theta), np.sin(theta)])
    plane += rng.normal(scale=noise, size=plane.shape) if noise > 0 else 0.0
    extra = rng.normal(scale=noise_dim_std, size=(n_samples, n_noise_dims)) if noise_dim_std > 0 else \
        np.zeros((n_samples, n_noise_dims))
    X = np.hstack([plane, extra])
    if rotate:
        Q, _ = np.linalg.qr(rng.normal(size=(X.shape[1], X.shape[1])))
        X = X @ Q
    return X, y
