"""sample_labels and load_fashion_mnist: bad arguments, the marker's dtype, reproducibility."""

import gzip
import struct

import numpy as np
import pytest

from graphrkhs.datasets import load_fashion_mnist, sample_labels


def test_sample_labels_keeps_n_per_class_and_hides_the_rest():
    y = np.repeat(np.arange(4), [5, 7, 9, 11])
    y_partial, keep = sample_labels(y, 3, random_state=0)
    assert np.array_equal(keep, np.sort(keep)) and np.bincount(y[keep]).tolist() == [3, 3, 3, 3]
    assert np.array_equal(y_partial[keep], y[keep])
    assert np.all(np.delete(y_partial, keep) == -1) and y_partial.dtype == y.dtype
    # reproducible from an int; a Generator is advanced (two calls draw differently)
    assert np.array_equal(sample_labels(y, 3, random_state=0)[1], keep)
    rng = np.random.default_rng(0)
    assert not np.array_equal(sample_labels(y, 3, random_state=rng)[1], sample_labels(y, 3, random_state=rng)[1])


@pytest.mark.parametrize("y, unlabeled, dtype, hidden", [
    (np.array([0, 0, 1, 1], dtype=np.uint8), -1, np.int16, -1),       # used to raise OverflowError
    (np.array([0, 0, 1, 1]), np.nan, np.float64, np.nan),              # used to give -2**63, silently
    (np.array([0, 0, 1, 1], dtype=np.float32), np.nan, np.float32, np.nan),
    (np.array([0, 0, 1, 1], dtype=np.int32), -1, np.int32, -1),
    (np.array([0, 0, 1, 1]), None, object, None),                     # used to raise int()'s TypeError
    (np.array(["a", "a", "b", "b"]), -1, object, -1),
])
def test_sample_labels_marker_fits_the_dtype(y, unlabeled, dtype, hidden):
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=unlabeled)
    assert y_partial.dtype == dtype
    assert y_partial[keep].tolist() == y[keep].tolist()
    rest = np.delete(y_partial, keep).tolist()
    assert all(v is None for v in rest) if hidden is None else \
        np.array_equal(np.array(rest, dtype=float), np.full(2, hidden, dtype=float), equal_nan=True)


@pytest.mark.parametrize("y, kwargs, exc, match", [
    # used to draw the -1 entries as a class of their own ("kept" indices of unlabeled samples)
    (np.array([0, 0, 1, 1, -1, -1]), {}, ValueError, "already holds the unlabeled marker -1"),
    (np.array(["a", "a", "b", ""], dtype=object), {"unlabeled": ""}, ValueError, "unlabeled marker ''"),
    (np.array([0.0, 0.0, 1.0, 1.0, np.nan]), {}, ValueError, "y has 1 NaN entries"),
    # missing entries of other dtypes: None raised a bare "'<' not supported between instances of 'NoneType'
    # and 'str'", NaN in an object array numpy's "a cannot be empty unless no samples are taken", and ''
    # (unlabeled for the estimators) was drawn as a class
    (np.array(["a", "a", None, "b", "b"], dtype=object), {"n_per_class": 1}, ValueError,
     r"y has 1 missing entries \(None, NaN, NaT, pd\.NA or ''"),
    (np.array([0, 0, np.nan, 1, 1], dtype=object), {"n_per_class": 1}, ValueError, "y has 1 missing entries"),
    (np.array(["a", "a", "", "b", "b"]), {"n_per_class": 1}, ValueError, "y has 1 missing entries"),
    (np.array([[0, 0], [1, 1]]), {}, ValueError, r"y must be 1-D .* shape \(2, 2\)"),   # used: IndexError
    (np.array([], dtype=int), {}, ValueError, "y is empty"),          # used: "need at least one array"
    (np.array([0, 0, 0, 1]), {}, ValueError, "n_per_class=2 is larger than class 1, which has 1 samples"),
])
def test_sample_labels_bad_input(y, kwargs, exc, match):
    kwargs = {"n_per_class": 2, **kwargs}
    with pytest.raises(exc, match=match):
        sample_labels(y, random_state=0, **kwargs)


def _objects(*values):
    arr = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        arr[i] = v
    return arr


@pytest.mark.parametrize("y", [
    # frozensets: np.unique's sort under the subset order gave the classes [{1}, {2}, {1}], and with
    # n_per_class=1 five of the six samples were "kept", index 1 twice (keep [0, 1, 1, 2, 3, 4])
    _objects(*[frozenset({1}), frozenset({2})] * 3),
    # tuple labels (taken by every classifier): "operands could not be broadcast together"
    _objects((0, 1), (1, 0), (0, 1), (1, 0), (0, 1), (1, 0)),
    [(0, 1), (1, 0), (0, 1), (1, 0), (0, 1), (1, 0)],         # a list of them: "y must be 1-D ... (6, 2)"
])
def test_sample_labels_takes_the_classifiers_labels(y):
    # the classes of the one label encoder: n_per_class of each, distinct indices
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=None)
    values = list(y)
    assert keep.size == 2 and np.unique(keep).size == 2
    assert {values[i] for i in keep} == set(values)
    assert [y_partial[i] for i in keep] == [values[i] for i in keep]
    assert all(y_partial[i] is None for i in range(6) if i not in keep)


@pytest.mark.parametrize("y, match", [
    # a bare "'<' not supported between instances of 'float' and 'str'"
    (_objects("a", 1.5, "a", 1.5), "y mixes text and numeric labels"),
    # numpy turned [True, 2, False, 2] into the integers [1, 2, 0, 2]: the kept True came back as 1
    ([True, 2, False, 2], "y mixes boolean and numeric labels"),
])
def test_sample_labels_refuses_mixed_labels_as_the_classifiers_do(y, match):
    with pytest.raises(TypeError, match=match):
        sample_labels(y, 1, random_state=0, unlabeled=None)


def _fake_fashion_mnist(folder, n=3, n_labels=None):
    """The four IDX files (big-endian header: magic 2051 / 2049, count, 28 x 28) of n images each."""
    pixels = np.arange(n * 784, dtype=np.int64).reshape(n, 784) % 256
    n_labels = n if n_labels is None else n_labels
    for part in ("train", "t10k"):
        with gzip.open(folder / f"{part}-images-idx3-ubyte.gz", "wb") as f:
            f.write(struct.pack(">iiii", 2051, n, 28, 28) + pixels.astype(np.uint8).tobytes())
        with gzip.open(folder / f"{part}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(struct.pack(">ii", 2049, n_labels) + np.arange(n_labels, dtype=np.uint8).tobytes())
    return np.vstack([pixels, pixels])


def test_load_fashion_mnist_dtype(tmp_path):
    pixels = _fake_fashion_mnist(tmp_path)
    X, y = load_fashion_mnist(tmp_path, dtype="float32")              # a string dtype used to raise TypeError
    assert X.dtype == np.float32 and np.array_equal(X, (pixels / 255).astype(np.float32))
    assert y.tolist() == [0, 1, 2, 0, 1, 2]
    X, _ = load_fashion_mnist(tmp_path, dtype=None)
    assert X.dtype == np.float64 and np.array_equal(X, pixels / 255)
    X, _ = load_fashion_mnist(tmp_path, dtype=np.uint8, scale=False)
    assert X.dtype == np.uint8 and np.array_equal(X, pixels)
    with pytest.raises(ValueError, match="needs a floating dtype; got dtype=int64"):   # used: UFuncTypeError
        load_fashion_mnist(tmp_path, dtype=np.int64)
    with pytest.raises(TypeError, match="dtype must be a numpy dtype"):
        load_fashion_mnist(tmp_path, dtype="pixels")


@pytest.mark.parametrize("dtype", [np.int8, bool, np.complex64, "U3", object])
def test_load_fashion_mnist_refuses_dtypes_that_cannot_hold_the_pixels(tmp_path, dtype):
    # astype wrapped pixels 128..255 to -128..-1 (int8), made every nonzero pixel True (bool), or gave
    # complex numbers, text and Python objects, without a word
    _fake_fashion_mnist(tmp_path)
    with pytest.raises(ValueError, match=r"dtype must be a real numeric dtype that holds the pixel values 0\.\.255"):
        load_fashion_mnist(tmp_path, dtype=dtype, scale=False)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.float16])
def test_load_fashion_mnist_takes_dtypes_that_hold_the_pixels(tmp_path, dtype):
    pixels = _fake_fashion_mnist(tmp_path)
    X, _ = load_fashion_mnist(tmp_path, dtype=dtype, scale=False)
    assert X.dtype == dtype and np.array_equal(X.astype(np.int64), pixels)


def test_load_fashion_mnist_checks_the_files(tmp_path):
    # images and labels of different lengths used to be returned as they were (X with 6 rows, y with 4)
    _fake_fashion_mnist(tmp_path, n=3, n_labels=2)
    with pytest.raises(ValueError, match="different lengths: .*train-images-idx3-ubyte.gz holds 3 images"):
        load_fashion_mnist(tmp_path)
    _fake_fashion_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte.gz").write_bytes(b"not gzip")       # used: gzip's BadGzipFile
    with pytest.raises(ValueError, match="cannot read the IDX file .*t10k-labels-idx1-ubyte.gz"):
        load_fashion_mnist(tmp_path)
    with gzip.open(tmp_path / "t10k-labels-idx1-ubyte.gz", "wb") as f:   # header says 5 labels, 3 follow
        f.write(struct.pack(">ii", 2049, 5) + bytes(3))
    with pytest.raises(ValueError, match="t10k-labels-idx1-ubyte.gz is not an IDX file of labels"):
        load_fashion_mnist(tmp_path)


@pytest.mark.parametrize("scale", ["no", 16, None, 0.5, np.array([True])])
def test_loaders_scale_must_be_a_bool(scale, tmp_path):
    # load_digits(scale="no") silently scaled (a non-empty string is truthy), scale=16 divided by 16,
    # scale=None returned raw pixels: no check named scale
    from graphrkhs.datasets import load_digits

    with pytest.raises(TypeError, match=r"scale must be True or False; got "):
        load_digits(scale=scale)
    with pytest.raises(TypeError, match=r"scale must be True or False; got "):
        load_fashion_mnist(tmp_path, scale=scale)       # before looking for the files


def test_load_digits_scale_true_and_false():
    from graphrkhs.datasets import load_digits

    X_raw, y = load_digits(scale=False)
    X, y2 = load_digits(scale=np.bool_(True))
    assert X_raw.max() == 16.0 and np.array_equal(X, X_raw / 16.0) and np.array_equal(y, y2)


@pytest.mark.parametrize("y, unlabeled", [
    # uint64 codes with -1: numpy's common type is float64, which rounded 2**63 + 1 and 2**63 + 3 to 2**63 --
    # the two kept labels became one class, silently
    (np.array([2**63 + 1] * 3 + [2**63 + 3] * 3, dtype=np.uint64), -1),
    # int64 codes above 2**53 with a NaN marker: float64 again (2**53 + 1 -> 2**53, 2**53 + 3 -> 2**53 + 4)
    (np.array([2**53 + 1] * 3 + [2**53 + 3] * 3, dtype=np.int64), np.nan),
])
def test_sample_labels_never_rounds_the_kept_labels(y, unlabeled):
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=unlabeled)
    assert [int(v) for v in y_partial[keep]] == [int(v) for v in y[keep]] == [int(y[0]), int(y[-1])]
    assert y_partial.dtype == object          # no numeric dtype holds both the codes and the marker
    rest = np.delete(y_partial, keep).tolist()
    assert all(v == unlabeled or (v != v and unlabeled != unlabeled) for v in rest) and len(rest) == 4


@pytest.mark.parametrize("y, unlabeled, dtype", [
    # numpy compares a float16 array with a Python float in float16 (1e10 -> inf == inf): the marker was
    # "held exactly" and stored as inf
    (np.array([0, 0, 1, 1], dtype=np.float16), 1e10, np.float32),
    (np.array([0, 0, 1, 1], dtype=np.float32), 0.1, np.float64),   # stored as 0.10000000149011612
])
def test_sample_labels_stores_the_marker_exactly(y, unlabeled, dtype):
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=unlabeled)
    assert y_partial.dtype == dtype
    assert [float(v) for v in np.delete(y_partial, keep)] == [unlabeled, unlabeled]
    assert y_partial[keep].tolist() == y[keep].tolist()
