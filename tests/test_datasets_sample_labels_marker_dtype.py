"""sample_labels gives the partial labels the smallest common numeric type, as documented.

A positive integer marker beyond a signed y's range took one size too many: int8 classes with the
marker 300 came back int32, where int16 holds every class and the marker (np.min_scalar_type(300)
is uint16, and int8 with uint16 promotes to int32).  Oracle: the smallest of the integer types
that hold the marker and the classes, found by trying them in order of size.
"""

import numpy as np
import pytest

from graphrkhs.datasets import sample_labels

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _smallest_int(y, marker):
    for dt in sorted(INTS, key=lambda t: np.dtype(t).itemsize):
        info = np.iinfo(dt)
        if info.min <= min(int(y.min()), marker) and max(int(y.max()), marker) <= info.max \
                and np.can_cast(y.dtype, dt):
            return np.dtype(dt)
    raise AssertionError("no integer type")


@pytest.mark.parametrize("dtype, marker", [(np.int8, 300), (np.int8, 200), (np.int8, -300), (np.uint8, -1),
                                           (np.uint8, 300), (np.int16, 40000), (np.int16, 70000),
                                           (np.uint32, -1), (np.int8, np.uint16(300))])
def test_integer_marker_takes_the_smallest_common_type(dtype, marker):
    y = np.array([1, 1, 2, 2, 3, 3], dtype=dtype)
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=marker)
    assert y_partial.dtype.kind in "iu"
    assert y_partial.dtype.itemsize == _smallest_int(y, int(marker)).itemsize
    hidden = np.setdiff1d(np.arange(y.size), keep)
    assert (y_partial[hidden] == int(marker)).all() and (y_partial[keep] == y[keep]).all()


@pytest.mark.parametrize("marker", [2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**62, 2**63 - 1, -2**31 - 1, -2**63])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32])
def test_marker_at_the_32_and_64_bit_boundaries_stays_an_integer(dtype, marker):
    # an int8 / int16 / int32 y with a marker in [2**32, 2**63) came back float64: numpy promotes the y with
    # np.min_scalar_type(marker) = uint64 to float64, which was picked over int64 as the first of two of 8 bytes
    y = np.array([1, 1, 2, 2, 3, 3], dtype=dtype)
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=marker)
    assert y_partial.dtype.kind in "iu"       # int32 or uint32 for uint8 with 2**31 - 1: either is the smallest
    assert y_partial.dtype.itemsize == _smallest_int(y, marker).itemsize
    hidden = np.setdiff1d(np.arange(y.size), keep)
    assert [int(v) for v in y_partial[hidden]] == [marker] * 3
    assert (y_partial[keep] == y[keep]).all()


@pytest.mark.parametrize("dtype, marker, expected", [
    (np.int64, 2**64, np.float64),        # beyond every integer type; float64 holds 2**64 and the classes exactly
    (np.int32, 2**63, np.float64),        # int32 does not cast safely to uint64 nor to float32
    (np.uint32, 2**63, np.uint64),
    (np.float16, 70000, np.float32),      # was float64: float32 holds 70000 exactly
    (np.int64, 2**64 + 1, object),        # no numeric type holds it: float64 would store 2**64
    (np.int64, -2**63 - 1, object),
])
def test_marker_no_integer_type_holds(dtype, marker, expected):
    y = np.array([1, 1, 2, 2, 3, 3], dtype=dtype)
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=marker)
    assert y_partial.dtype == expected
    hidden = np.setdiff1d(np.arange(y.size), keep)
    # stored exactly: compared as Python numbers (int(2.0**64) == 2**64, and 2**64 + 1 stays an int in object)
    assert [int(v) for v in y_partial[hidden]] == [marker] * 3
    assert [int(v) for v in y_partial[keep]] == [int(v) for v in y[keep]]


@pytest.mark.parametrize("dtype, marker, expected", [
    (np.uint8, 300, np.uint16),           # y's own kind at equal size (the list order gave int16)
    (np.uint8, np.uint16(300), np.uint16),
    (np.uint16, 65536, np.uint32),
    (np.uint32, 2**32, np.uint64),
    (np.uint8, -1, np.int16),             # no unsigned type holds -1
])
def test_unsigned_classes_stay_unsigned_at_equal_size(dtype, marker, expected):
    y = np.array([1, 1, 2, 2, 3, 3], dtype=dtype)
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=marker)
    assert y_partial.dtype == expected
    hidden = np.setdiff1d(np.arange(y.size), keep)
    assert [int(v) for v in y_partial[hidden]] == [int(marker)] * 3


@pytest.mark.parametrize("dtype, marker", [
    (np.int8, np.uint64(2**64 - 1)),      # float32 stored 2**64 and compared equal (numpy compared in float64)
    (np.int64, np.uint64(2**64 - 1)),     # float64 stored 2**64
    (np.float64, np.int64(2**62 + 1)),    # float64 stored 2**62
])
def test_numpy_integer_marker_no_type_holds_is_an_object_array(dtype, marker):
    y = np.array([1, 1, 2, 2, 3, 3], dtype=dtype)
    y_partial, keep = sample_labels(y, 1, random_state=0, unlabeled=marker)
    assert y_partial.dtype == object
    hidden = np.setdiff1d(np.arange(y.size), keep)
    assert [int(v) for v in y_partial[hidden]] == [int(marker)] * 3
