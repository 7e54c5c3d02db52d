"""Label handling shared by every estimator: the one label encoder.

Classification targets follow scikit-learn's semi-supervised convention: one
entry per sample, class labels of any hashable type (ints, strings, ...), and
a marker for the unlabeled samples -- ``unlabeled=-1`` by default, as in
:class:`sklearn.semi_supervised.LabelSpreading`, configurable on every
classifier.  ``None``, NaN, NaT and pandas' ``pd.NA`` always mark unlabeled samples too (none can be
a class label), and so do the masked entries of a numpy masked array and the empty string in a
string array.  Labels are of one type: text mixed with numbers, or booleans mixed with numbers
(``True == 1`` in Python: they would merge), raise a ``TypeError``; so do bytes labels (as in
scikit-learn: decode them to str first).  Regression targets are numbers: NaN (or a masked entry)
marks an unlabeled sample, and text targets (``["1.5", "2"]``) raise a ``TypeError`` instead of
being parsed.

Collisions between the marker and the classes never pass silently
(:func:`split_classification_labels`):

* if reading the marker as "unlabeled" leaves a single class (labels
  ``{-1, +1}`` with the default marker), fitting raises a ``ValueError`` that
  names the collision and the fix (``unlabeled=None`` or another marker);
* if the marker looks like one of the classes -- integer labels, and the
  marker is no more frequent than the most frequent class or lies between two
  classes (e.g. ``{-1, 0, 1}`` with as many -1 as 0) -- and the marker was left
  at its default, a :class:`LabelCollisionWarning` says how to pass
  ``unlabeled=`` explicitly; any explicitly given marker (``unlabeled=-1``
  too) silences it.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from .validation import GraphRKHSWarning, GraphWarning, check_numeric_dtype, dense_array, power_of_two_exponent, warn

__all__ = []


# The default marker: -1 as a numpy int64 *object* of its own.  It equals -1 in
# every respect, and survives scikit-learn's ``clone`` (deepcopy keeps numpy
# scalars) and pickling (the estimators re-attach it: ClassifierOutputMixin's
# __getstate__ / __setstate__), so that an estimator can tell ``unlabeled`` left at its default
# (``self.unlabeled is UNLABELED``) from ``unlabeled=-1`` given explicitly; only
# the former warns when -1 looks like a class.
UNLABELED = np.int64(-1)


def _show(v):
    """A label as the user wrote it (numpy scalars as Python values)."""
    return repr(v.item() if isinstance(v, np.generic) else v)


#: Text that missing values become when labels are converted to strings (``y.astype(str)``, pandas' ``astype(str)``).
_MISSING_AS_TEXT = frozenset({"nan", "NaN", "None", "<NA>", "NaT"})


class LabelCollisionWarning(GraphRKHSWarning):
    """The unlabeled marker may be one of the intended classes."""


class IdentifierLabelsWarning(GraphRKHSWarning):
    """The class labels look like an identifier (a row id, a name): nearly every labeled sample its own class."""


#: Identifier-like labels (:func:`looks_like_identifiers`): more than this many classes, fewer than 2
#: labeled samples per class on average, and more than half the samples labeled.
ID_LIKE_MIN_CLASSES = 20


def looks_like_identifiers(n_classes, n_labeled, n_samples):
    """Whether labels look like an identifier column rather than classes: the one rule of the library
    (an :class:`IdentifierLabelsWarning` in every classifier's ``fit``) and of ``graphrkhs label`` (which
    refuses such a label column).

    True when there are more than :data:`ID_LIKE_MIN_CLASSES` classes, fewer than 2 labeled samples per
    class on average (``2 * n_classes > n_labeled``) and more than half the samples labeled
    (``2 * n_labeled > n_samples``).  One-shot labeling -- every class labeled once, few samples
    labeled -- is not identifier-like; neither is a few classes each labeled once.
    """
    return bool(n_classes > ID_LIKE_MIN_CLASSES and 2 * n_classes > n_labeled and 2 * n_labeled > n_samples)


def _is_missing(v):
    """None, NaN, or pandas' missing value (``pd.NA``, ``pd.NaT``): unlabeled whatever the marker."""
    if v is None:
        return True
    if isinstance(v, (float, np.floating)):
        return bool(np.isnan(v))
    if isinstance(v, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(v))
    # pandas' singletons (a nullable "Int64" / "string" column's empty cells), without importing pandas
    kind = type(v)
    return kind.__name__ in ("NAType", "NaTType") and kind.__module__.startswith("pandas")


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _equals_marker(v, marker):
    if marker is None or _is_missing(v):
        return False
    if _is_number(marker):
        # a numeric marker also matches its text ("-1"), as numpy writes it among strings
        return (_is_number(v) and v == marker) or (isinstance(v, str) and v == _marker_text(marker))
    # numpy scalars as their Python values (np.str_("?") is the text "?", np.bool_ a bool): compared by exact
    # type, an entry np.str_("?") (a list of a numpy array's items with None) never matched unlabeled="?",
    # nor "?" a marker np.str_("?"), and the unlabeled rows were fitted as a class "?" without a word
    v, marker = (x.item() if isinstance(x, np.generic) else x for x in (v, marker))
    return type(v) is type(marker) and v == marker


def _marker_text(marker):
    m = marker.item() if isinstance(marker, np.generic) else marker
    return str(int(m)) if float(m).is_integer() else str(m)


def _unlabeled_mask(y, marker):
    """Boolean mask of the entries that mark an unlabeled sample."""
    kind = y.dtype.kind
    if kind in "iuf" and isinstance(marker, (bool, np.bool_)):
        # a bool is not read as the number 1 (True == 1 would merge it with a class): it marked nothing
        raise ValueError(f"unlabeled={marker!r} is a boolean, but y holds numbers ({y.dtype}): it would mark no "
                         f"entry and the unlabeled rows would be fitted as a class. Pass the marker as y holds it "
                         f"(e.g. unlabeled={int(marker)}), or unlabeled=None if every row is labeled.")
    if kind in "iuf" and isinstance(marker, (str, bytes)):
        # a text marker can never match a number: the unlabeled rows would silently become a class
        raise ValueError(f"unlabeled={marker!r} is text, but y holds numbers ({y.dtype}): it would mark no entry "
                         f"and the unlabeled rows would be fitted as a class. Pass the marker as y holds it "
                         f"(e.g. unlabeled=-1), or unlabeled=None if every row is labeled.")
    if kind in "iub":
        if kind == "b" or not _is_number(marker):
            return np.zeros(y.shape[0], dtype=bool)
        return y == marker
    if kind in "mM":    # dates / durations: NaT is missing (it was a class)
        return np.isnat(y)
    if kind == "f":
        mask = np.isnan(y)
        if _is_number(marker):
            mask |= y == marker
        return mask
    if kind == "U":     # (bytes labels, dtype "S", are refused before: _refuse_bytes_labels)
        # numpy turns a -1 mixed with strings into the string "-1".  Only a number matches its text: a
        # boolean marker (True) matched the class "1" here, and a bytes one raised a float conversion error.
        if isinstance(marker, (str, bytes)):
            text = marker
        else:
            text = _marker_text(marker) if _is_number(marker) else None
        empty, text = "", (text.decode("utf-8", "replace") if isinstance(text, bytes) else text)
        mask = y == empty
        if text is not None:
            mask |= y == text
        return mask
    return np.fromiter((_is_missing(v) or _equals_marker(v, marker) or (isinstance(v, str) and v == "")
                        for v in y), dtype=bool, count=y.shape[0])


def _nullable_to_numpy(y):
    """``(values, missing)`` of a numpy masked array (``missing`` its mask), of a pandas nullable column
    (``Int64``, ``UInt8``, ``boolean``, ``Float64``...: a dtype with a ``numpy_dtype``) or of a pandas
    Categorical of integers with missing entries, else ``(y, None)``.

    ``numpy.asarray`` turns an ``Int64`` column with ``pd.NA`` into float64 (NaN for the missing
    entries), which made the classes floats; here the values keep the column's numpy dtype (the
    missing entries filled with a placeholder) and ``missing`` marks them, without a per-entry loop.
    """
    if isinstance(y, np.ma.MaskedArray):
        # a masked entry is a missing label (np.asarray drops the mask: the hidden values became labels)
        missing = np.ma.getmaskarray(y)
        if missing.ndim == 2 and missing.shape[1] == 1:
            missing = missing.ravel()      # the (n, 1) column _label_vector ravels
        return np.ma.getdata(y), missing
    dt = getattr(y, "dtype", None)
    categories = getattr(dt, "categories", None)
    if categories is not None and getattr(dt, "name", None) == "category":
        # a pandas Categorical (or a Series of one): np.asarray made integer categories floats when an
        # entry is missing; take the categories by their codes (-1: missing) instead
        codes = np.asarray(y.cat.codes if hasattr(y, "cat") else y.codes)
        values = np.asarray(categories)
        missing = codes < 0
        if values.dtype.kind not in "iub" or not missing.any() or values.size == 0:
            return y, None
        return values[np.where(missing, 0, codes)], missing
    numpy_dtype = None if dt is None or isinstance(dt, np.dtype) else getattr(dt, "numpy_dtype", None)
    if not isinstance(numpy_dtype, np.dtype) or not hasattr(y, "to_numpy") or not hasattr(y, "isna"):
        return y, None
    missing = np.asarray(y.isna(), dtype=bool)
    fill = np.nan if numpy_dtype.kind in "fc" else numpy_dtype.type(0)
    return y.to_numpy(dtype=numpy_dtype, na_value=fill), missing


def split_classification_labels(y, n_samples, *, unlabeled=UNLABELED, name="y", owner="the classifier"):
    """The one label encoder: ``(labeled_mask, classes, codes)`` of a semi-supervised target.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels of any hashable type (tuples too: a list of tuples is one
        label per sample); ``unlabeled`` (and None / NaN, and
        "" in a string array) mark unlabeled samples.  A column vector is
        raveled with a ``DataConversionWarning``, as scikit-learn does.  A
        pandas nullable column (``Int64``, ``boolean``, ...) has its missing
        entries (``pd.NA``) unlabeled and keeps its numpy dtype in ``classes``
        (integers stay integers); so has a numpy masked array its masked
        entries (whatever value lies under the mask).
    n_samples : int
        The number of samples y must have.
    unlabeled : hashable or None, default=-1
        The marker of unlabeled samples; None: only None / NaN mark them.
        The default object :data:`UNLABELED` (an int64 equal to -1) is what
        estimators store when the user gave no marker.
    name, owner : str
        For the messages.

    Returns
    -------
    labeled : ndarray of bool, shape (n_samples,)
    classes : ndarray of shape (n_classes,)
        Sorted labels (first-appearance order when they cannot be sorted, or when ``<`` is only a
        partial order, as for sets).
    codes : ndarray of int64, shape (n_samples,)
        Index into ``classes`` of each labeled sample, -1 where unlabeled.

    Raises
    ------
    ValueError
        Wrong length, 2-D y, no labeled sample, real-valued (continuous)
        labels, or a single class -- naming the marker when it is the likely
        cause (labels {-1, +1} with ``unlabeled=-1``).
    TypeError
        Text and numeric labels mixed in one object array (``["a", 1, None]``);
        bytes labels (decode them to str first).

    Warns
    -----
    LabelCollisionWarning
        When the marker was left at its default and looks like a class.
    IdentifierLabelsWarning
        When the labels look like an identifier column (:func:`looks_like_identifiers`: more than 20
        classes, fewer than 2 labeled samples per class, more than half the samples labeled).
    """
    from sklearn.utils.multiclass import type_of_target

    y, missing = _nullable_to_numpy(y)
    y = _label_vector(y, n_samples, unlabeled, name)
    if y.dtype.kind == "c":     # scikit-learn's own words were a multi-line "Complex data not supported"
        check_numeric_dtype(y, name)
    if y.dtype.kind == "f":
        inf = np.isinf(y).reshape(y.shape[0], -1).any(axis=1)
        if missing is not None:
            inf &= ~missing.reshape(y.shape[0], -1).all(axis=1)
        if inf.any():
            raise _infinity_error(name, inf, "class labels")
    marked = _unlabeled_mask(y, unlabeled)
    missing = _unlabeled_mask(y, None) if missing is None else missing | _unlabeled_mask(y, None)
    marked |= missing
    labeled = ~marked
    if not labeled.any():
        raise ValueError(f"{name} has no labeled samples: every entry is the unlabeled marker {_show(unlabeled)} "
                         "(or NaN/None). Label at least one sample per class.")
    values = y[labeled]
    if y.dtype == object:
        _check_one_label_type(values, name)
        values = _bool_labels(values)
    if values.dtype == object and not any(isinstance(v, tuple) for v in values.tolist()):
        # scikit-learn's refusal of sequences as labels (lists, arrays: a legacy multi-label format), in its
        # words; tuple labels are classes (type_of_target took them for that format)
        type_of_target(values)
    fractional = _fractional_label(values)
    if fractional is not None:
        raise ValueError(f"Unknown label type: 'continuous'. {name} holds real values that are not class labels "
                         f"(e.g. {_show(fractional)}); use a regressor for real-valued targets.")
    classes, value_codes = label_classes(values)
    codes = np.full(n_samples, -1, dtype=np.int64)
    codes[labeled] = value_codes
    # entries read as unlabeled because they equal the marker (not NaN / None / "")
    n_marker = int(np.count_nonzero(marked & ~missing))
    if classes.size < 2:
        message = (f"{name} has only one class ({_show(classes[0])}) among its labeled samples; {owner} needs "
                   "labels of at least 2 classes.")
        if n_marker and unlabeled is not None:
            # one class and marker entries: either the marker is a class (labels {-1, +1}) or a second
            # class has no label yet -- the data cannot tell which, so the message names both fixes
            message += (f" If the marker collides with your classes (the {n_marker} entries equal to "
                        f"{_show(unlabeled)} were read as unlabeled, unlabeled={_show(unlabeled)}: labels "
                        f"{{{_show(unlabeled)}, {_show(classes[0])}}}), pass unlabeled=None (then only NaN/None mark "
                        "unlabeled samples) or another marker that is not a class; otherwise label samples of a "
                        "second class.")
        raise ValueError(message)
    missing_text = [c for c in classes.tolist() if isinstance(c, str) and c in _MISSING_AS_TEXT]
    if unlabeled is UNLABELED and missing_text:
        # y.astype(str) on labels with None / NaN gives the strings 'None' / 'nan': the unlabeled rows became a class
        # without a word (and the message above once advised astype(str))
        text = missing_text[0]
        n_text = int(np.count_nonzero(codes == classes.tolist().index(text)))
        warn(
            f"{name} holds the class {text!r} ({n_text} entries), the text of a missing value (y.astype(str) turns "
            f"None and NaN into 'None' and 'nan'): if these rows are unlabeled, pass unlabeled={text!r} (or leave "
            f"them None, NaN or ''); if {text!r} is a class, pass unlabeled=-1 explicitly to silence this warning.",
            LabelCollisionWarning)
    if unlabeled is UNLABELED and classes[-1] == wrapped_minus_one(values.dtype):
        # -1 cast to an unsigned dtype wraps to its largest value (np.array([0, 1, -1]).astype(np.uint8) is
        # [0, 1, 255]): the unlabeled rows would be a class of their own without a word
        top = classes[-1].item()
        n_top = int(np.count_nonzero(codes == classes.size - 1))
        warn(
            f"{name} is {values.dtype} and holds {top} ({n_top} entries), which is -1 cast to {values.dtype}: if "
            f"these rows are unlabeled, pass unlabeled={top} (or give {name} a signed dtype); if {top} is a "
            f"class, pass unlabeled=-1 explicitly to silence this warning.", LabelCollisionWarning)
    n_labeled = int(np.count_nonzero(labeled))
    if looks_like_identifiers(classes.size, n_labeled, n_samples):
        warn(
            f"{name} holds {classes.size} distinct classes among its {n_labeled} labeled samples "
            f"({n_labeled / classes.size:.2f} per class), and {n_labeled} of the {n_samples} samples are labeled: it "
            "looks like an identifier (a row id, a name, free text), not class labels; the fit's work and memory "
            "grow with samples x classes, and each sample mostly predicts its own id. Check that y holds the class "
            "labels; if these are your classes, silence this with "
            "warnings.filterwarnings('ignore', category=graphrkhs.IdentifierLabelsWarning).",
            IdentifierLabelsWarning)
    if unlabeled is UNLABELED and n_marker and _looks_like_a_class(classes, codes[labeled], n_marker, unlabeled):
        warn(
            f"{name} holds the labels {sorted(classes.tolist() + [unlabeled.item()])}: the {n_marker} entries equal to "
            f"{_show(unlabeled)} are read as unlabeled (the default unlabeled=-1), but {_show(unlabeled)} may be one of your "
            "classes. If it is, pass unlabeled=None (and mark unlabeled samples with NaN/None) or another marker; "
            f"if it marks unlabeled samples, pass unlabeled={_show(unlabeled)} explicitly to silence this warning.",
            LabelCollisionWarning)
    return labeled, classes, codes


def wrapped_minus_one(dtype):
    """What -1 becomes in the label dtype ``dtype`` when it is unsigned (its largest value: 255 for uint8),
    else None.  The one rule of the :class:`LabelCollisionWarning` on such a value, for the estimators and
    ``graphrkhs label`` (an .npz label array)."""
    dtype = np.dtype(dtype)
    return np.iinfo(dtype).max if dtype.kind == "u" else None


def _fractional_label(values):
    """A labeled value that is a real number with a fractional part (a regression target, not a class), or None.

    Float labels are classes when every one is a whole number, whatever its size: scikit-learn's
    ``type_of_target`` casts them to int64, so a whole number beyond 2**63 (1e20) overflowed and was called
    "continuous" (refused, with numpy's "invalid value encountered in cast"), while an object array (a list with
    None for the unlabeled samples) was never checked: ``[0.1, 0.2, None]`` gave the classes 0.1 and 0.2 that the
    same labels with NaN were refused as."""
    if values.dtype.kind == "f":
        frac = np.flatnonzero(values != np.floor(values))
        return values[frac[0]] if frac.size else None
    if values.dtype == object:
        for v in values.tolist():
            if isinstance(v, (float, np.floating)) and not float(v).is_integer():
                return v
    return None


def label_classes(values):
    """``(classes, codes)`` of a 1-D array of class labels (no unlabeled entries): the classes sorted
    (first-appearance order when they cannot be sorted, or when ``<`` is only a partial order, as for
    sets) and the index into ``classes`` of every entry.  The class discovery of the one label encoder
    (:func:`split_classification_labels`), for whoever needs the classes of a fully labeled target."""
    if values.dtype == object:
        try:
            classes = np.unique(values)
            # '<' may be a partial order (sets: the subset order), under which np.unique's sort leaves
            # equal labels apart (frozensets gave classes [{1}, {2}, {1}]): sorted means strictly increasing
            ordered = all(a < b for a, b in zip(classes[:-1].tolist(), classes[1:].tolist()))
        except TypeError:   # mixed types cannot be sorted: first-appearance order
            ordered = False
        if not ordered:
            distinct = list(dict.fromkeys(values.tolist()))
            classes = np.empty(len(distinct), dtype=object)     # (element by element: tuples stay labels)
            for i, c in enumerate(distinct):
                classes[i] = c
        lookup = {c: i for i, c in enumerate(classes.tolist())}
        return classes, np.array([lookup[v] for v in values.tolist()], dtype=np.int64)
    classes = np.unique(values)
    return classes, np.searchsorted(classes, values).astype(np.int64, copy=False)


def _label_kind(v):
    if isinstance(v, (str, bytes)):
        return "text"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    return "number" if _is_number(v) else None


def _check_one_label_type(values, name):
    """Labels of one kind: text and numbers mixed (``["a", 1, None]``) cannot be sorted or scored, and
    scikit-learn's ``type_of_target`` failed on them with a bare ``'<' not supported`` TypeError; booleans
    and numbers mixed (``[True, 1, 2]``) would merge silently, since ``True == 1`` in Python."""
    items = values.tolist()
    kinds = {_label_kind(v) for v in items}
    if "text" in kinds and kinds & {"number", "bool"}:
        shown = sorted({type(v).__name__ for v in items})
        raise TypeError(f"{name} mixes text and numeric labels (types {', '.join(shown)}); give the labels as one "
                        "type, e.g. all strings (with None, NaN or '' for unlabeled samples: not y.astype(str), which "
                        "turns None and NaN into the classes 'None' and 'nan') or all numbers.")
    if {"bool", "number"} <= kinds:
        shown = sorted({type(v).__name__ for v in items})
        raise TypeError(f"{name} mixes boolean and numeric labels (types {', '.join(shown)}): True == 1 and "
                        "False == 0 in Python, so they would merge into one class. Give the labels as one type, "
                        "e.g. all integers (True -> 1) or all booleans (with -1, None or NaN for unlabeled "
                        "samples).")


def _bool_labels(values):
    """Object-array labels that are all booleans (``[True, False]`` read from ``[True, False, None]``) as a
    bool array: scikit-learn's ``type_of_target`` calls an object array of booleans "unknown", and its
    metrics then refuse to compare it with the (bool) predictions."""
    if values.dtype == object and values.size and all(isinstance(v, (bool, np.bool_)) for v in values.tolist()):
        return values.astype(bool)
    return values


def _as_label_array(y):
    """np.asarray(y), but a list mixing booleans and numbers stays an object array.

    numpy turns ``[True, False, -1]`` into the integers ``[1, 0, -1]`` (and ``[True, 2]`` into
    ``[1, 2]``): the booleans would lose their type, or silently merge with the classes 1 and 0.  The
    object array keeps them, so the marker is read as unlabeled and a true mix is refused.
    """
    if isinstance(y, list) and any(isinstance(v, tuple) for v in y):
        # tuple labels ([(0, 1), (1, 1), None]): one label per sample, not the rows of a 2-D array
        arr = np.empty(len(y), dtype=object)
        for i, v in enumerate(y):
            arr[i] = v
        return arr
    arr = np.asarray(y)
    if arr.dtype.kind == "U" and isinstance(y, (list, tuple)):
        # numpy writes the numbers of a list that mixes them with strings as text ([1, 1, "a", -1] became
        # ['1', '1', 'a', '-1']): the class 1 came back as '1' and merged with a class "1" without a word, where
        # the same labels in an object array are refused (_check_one_label_type).  Kept as objects, the marker
        # (-1 among strings) is still read as unlabeled, and a true mix of text and number labels is refused.
        obj = np.asarray(y, dtype=object)
        if obj.shape == arr.shape and any(not isinstance(v, str) and not _is_missing(v)
                                          for v in obj.ravel().tolist()):
            return obj
        # numpy writes a float NaN among strings as the text 'nan' (df["label"].tolist() of a text column with
        # missing cells): it became a class; NaN / None / pd.NA are missing, written "" (unlabeled among strings)
        if any(not isinstance(v, str) and _is_missing(v) for v in y):
            return np.asarray(["" if not isinstance(v, str) and _is_missing(v) else v for v in y])
    if arr.dtype.kind in "iufc" and not isinstance(y, np.ndarray) and isinstance(y, (list, tuple)):
        obj = np.asarray(y, dtype=object)
        if obj.shape == arr.shape and any(isinstance(v, (bool, np.bool_)) for v in obj.ravel().tolist()):
            return obj
    return arr


def _label_vector(y, n_samples, unlabeled, name):
    """y as a 1-D array of ``n_samples`` entries (an (n, 1) column raveled with scikit-learn's warning)."""
    from sklearn.exceptions import DataConversionWarning

    refuse_non_sequence(y, name, "(n_samples,)")
    y = _as_label_array(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warn("A column-vector y was passed when a 1d array was expected; it is raveled.",
             DataConversionWarning)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D with one entry per sample; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but there are {n_samples} samples; "
            f"give one label per sample, {_show(unlabeled)} (or NaN) for unlabeled ones."
        )
    _refuse_bytes_labels(y, name)
    return y


def refuse_non_sequence(y, name, shape):
    """A ``TypeError`` for a target that has no order of its own (a set, a dict) or is consumed by reading
    it (a generator, an iterator): ``np.asarray`` made each a 0-d object array, and the message was the
    puzzling "got shape ()"."""
    import collections.abc

    if isinstance(y, (set, frozenset, dict, collections.abc.Iterator)):
        raise TypeError(f"{name} must be an array-like of shape {shape}; got a {type(y).__name__}. Give one entry "
                        "per sample in the order of the rows of X: a list, a numpy array or a pandas Series "
                        f"(e.g. list({name}) for a generator).")


def _first_bytes(y):
    """The first bytes entry of a label array (a dtype-S array's first entry), else None."""
    if y.dtype.kind == "S":
        return y[0] if y.size else b""
    if y.dtype == object:
        return next((v for v in y.tolist() if isinstance(v, (bytes, np.bytes_))), None)
    return None


def _refuse_bytes_labels(y, name):
    """Bytes labels are refused, as scikit-learn refuses them (its metrics cannot score them).

    Before, scikit-learn's ``type_of_target`` raised a message naming no argument, bytes mixed with
    str failed with a bare ``'<' not supported``, and scoring took them: ``b""`` read as unlabeled in a
    dtype-S array but as a class in an object array.  One TypeError now names y and the fix."""
    first = _first_bytes(y)
    if first is not None:
        raise TypeError(f"{name} holds bytes labels ({_show(first)}); bytes are not taken as class labels (as in "
                        "scikit-learn, whose metrics cannot score them). Decode them to str first: "
                        f"np.char.decode({name}, 'utf-8') for a bytes array, [v.decode() for v in {name}] for a "
                        f"list (with None for unlabeled samples); b'' becomes '', which marks an unlabeled sample.")


def labeled_rows(y, n_samples, *, unlabeled=UNLABELED, name="y"):
    """``(y, labeled_mask)`` of classification targets to *score*: y as a 1-D array and its labeled rows.

    The rows ``split_classification_labels`` reads as labeled (not ``unlabeled``, None, NaN, or "" in
    a string array), with the same checks of shape and length; unlike it, one class (a test set of
    one class) is fine.  Raises ``ValueError`` when no row is labeled, ``TypeError`` for bytes labels.
    Boolean labels given with a marker or None (an object array) come back as a bool array (the
    unlabeled rows False), as ``fit`` encodes them.
    """
    y, missing = _nullable_to_numpy(y)
    y = _label_vector(y, n_samples, unlabeled, name)
    labeled = ~_unlabeled_mask(y, unlabeled)
    if missing is not None:
        labeled &= ~missing
    if not labeled.any():
        raise ValueError(f"{name} has no labeled samples to score: every entry is the unlabeled marker "
                         f"{_show(unlabeled)} (or NaN/None). Score on rows with known labels.")
    if y.dtype == object and _bool_labels(y[labeled]).dtype == bool:
        # boolean labels with a marker or None (an object array): bool, as fit encodes them
        y = np.where(labeled, y, False).astype(bool)
    return y, labeled


def _looks_like_a_class(classes, labeled_codes, n_marker, marker):
    """Integer classes, and the marker as frequent as a class or between two classes."""
    if classes.dtype.kind not in "iuf" or not np.all(np.mod(classes, 1) == 0):
        return False
    largest = int(np.bincount(labeled_codes, minlength=classes.size).max())
    return n_marker <= largest or bool(classes.min() < marker < classes.max())


def _infinity_error(name, rows, what):
    """The ValueError for infinite entries of ``name`` in the rows marked by ``rows`` (a boolean mask)."""
    count = int(rows.sum())
    return ValueError(f"{name} contains infinity in {count} row{'' if count == 1 else 's'} (e.g. row "
                      f"{int(np.flatnonzero(rows)[0])}); {what} must be finite. NaN marks an unlabeled row: "
                      "replace the infinite entries with NaN to leave those rows unlabeled, or drop them.")


def split_regression_targets(y, n_samples, name="y"):
    """Return ``(labeled_mask, values)`` for a semi-supervised regression target.

    NaN marks an unlabeled sample (a -1 is a legitimate real value here), and so do None, pandas'
    ``pd.NA`` (nullable ``Int64`` / ``Float64`` columns) and the masked entries of a numpy masked array.
    Targets may be (n,) or (n, m); a row is unlabeled when all its entries are NaN.  Text targets
    (str or bytes, ``["1.5", "2", "nan"]``) raise a ``TypeError`` naming ``name``: they are not
    parsed into numbers (convert them with ``y.astype(float)``); so do dates and durations, and
    booleans (a bool array, a pandas ``boolean`` column, ``[True, None, False]``): they are class
    labels (use a classifier), or 0 / 1 only when cast to float by the caller.
    """
    # (the dtype's kind: np.dtype() of a pandas extension dtype -- Int64, Float64, category -- raised
    # "Cannot interpret 'Int64Dtype()' as a data type")
    refuse_non_sequence(y, name, "(n_samples,) or (n_samples, n_targets)")
    if getattr(getattr(y, "dtype", None), "kind", None) == "c":
        # np.asarray(y, float64) kept the real part with only a ComplexWarning
        check_numeric_dtype(y, name)
    _refuse_non_numeric_targets(y, name)
    try:
        if isinstance(y, np.ma.MaskedArray):   # a masked entry is a missing target, like NaN
            y = np.ma.filled(np.ma.asarray(y, dtype=np.float64), np.nan)
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        # pandas' missing values (pd.NA in an object column) mark unlabeled rows like NaN and None
        obj = np.array(y, dtype=object)
        missing = np.fromiter((_is_missing(v) for v in obj.ravel()), dtype=bool, count=obj.size)
        obj[missing.reshape(obj.shape)] = np.nan
        try:
            y = np.asarray(obj, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric for regression (NaN for unlabeled): {exc}") from exc
    if y.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but there are {n_samples} samples; "
            "give one target per sample, NaN for unlabeled ones."
        )
    inf = np.isinf(y).reshape(y.shape[0], -1).any(axis=1)
    if inf.any():
        raise _infinity_error(name, inf, "regression targets")
    nan = np.isnan(y)
    labeled = ~nan if y.ndim == 1 else ~nan.all(axis=1)
    if y.ndim == 2 and (nan[labeled].any()):
        rows = np.flatnonzero(labeled & nan.any(axis=1))
        more = f" (and {rows.size - 1} more)" if rows.size > 1 else ""
        raise ValueError(f"{name}: row {int(rows[0])}{more} has NaN in some but not all columns; "
                         "a row is labeled with a value in every column, or unlabeled with all its columns NaN "
                         "(fit one regressor per column to use partly known rows).")
    if not labeled.any():
        raise ValueError(f"{name} has no labeled samples: every entry is NaN.")
    return labeled, y


def _refuse_non_numeric_targets(y, name):
    """Text (str or bytes) regression targets are refused, not parsed: ``np.asarray(["1.5", "2", "nan"],
    float)`` read them as the numbers [1.5, 2, nan] without a word (and "nan" as an unlabeled row).
    So are dates and durations: datetime64 became nanoseconds since 1970, and NaT the labeled -9.2e18."""
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind == "b" or kind in ("O", None) and _holds_bool(y):
        # np.asarray(y, float64) fitted True / False silently as 1 / 0 (a bool array, a pandas "boolean"
        # column, a list [True, None, False])
        raise TypeError(f"{name} holds booleans (True / False), but regression targets must be "
                        "numbers: boolean targets would be fitted silently as 1 / 0. Use a classifier for boolean "
                        f"labels, or cast to float if you mean 0 / 1 ({name}.astype(float), with NaN for unlabeled "
                        "samples).")
    if kind in ("m", "M"):
        raise TypeError(f"{name} holds dates or durations ({y.dtype}), but regression targets must be numbers. "
                        f"Convert them yourself in the unit you mean, e.g. ({name} - t0) / np.timedelta64(1, 's') "
                        "for seconds since a time t0, with NaN for unlabeled samples.")
    if kind not in ("U", "S", "O", None) or isinstance(y, np.ma.MaskedArray) and kind not in ("U", "S"):
        return
    arr = np.asarray(y) if kind is not None else np.asarray(y, dtype=object)
    if arr.dtype.kind in "US":
        text = arr.ravel()[0] if arr.size else ""
    elif arr.dtype == object:
        text = next((v for v in arr.ravel().tolist() if isinstance(v, (str, bytes, np.str_, np.bytes_))), None)
    else:
        return
    if text is not None:
        raise TypeError(f"{name} holds text ({_show(text)}), but regression targets must be numbers; text is not "
                        f"parsed into numbers silently. Convert it yourself, e.g. {name}.astype(float) or "
                        f"np.asarray({name}, dtype=float), with NaN for unlabeled samples.")


def _holds_bool(y):
    """Whether an object array or a list of targets holds a bool (``[True, None, False]``)."""
    try:
        items = np.asarray(y, dtype=object).ravel().tolist()
    except (TypeError, ValueError):
        return False
    return any(isinstance(v, (bool, np.bool_)) for v in items)


def one_hot(codes, n_classes, dtype=np.float64):
    """(n_labeled, n_classes) indicator matrix of class codes (all >= 0)."""
    Y = np.zeros((codes.shape[0], n_classes), dtype=dtype)
    Y[np.arange(codes.shape[0]), codes] = 1.0
    return Y


def _check_labeled_index(labeled, n):
    labeled = np.asarray(labeled)
    if labeled.dtype == bool:
        if labeled.shape != (n,):
            raise ValueError(f"a boolean labeled mask must have shape ({n},); got {labeled.shape}.")
        idx = np.flatnonzero(labeled)
    else:
        if labeled.ndim != 1 or not (np.issubdtype(labeled.dtype, np.integer) or labeled.size == 0):
            raise TypeError("labeled must be a 1-D array of node indices or a boolean mask of length n.")
        idx = labeled.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"labeled indices must lie in [0, {n}); got range [{idx.min()}, {idx.max()}].")
        values, counts = np.unique(idx, return_counts=True)
        if values.size != idx.size:
            top = int(np.argmax(counts))
            hint = ""
            if idx.size == n and values.size <= 2 and values.max() <= 1:
                # (y >= 0).astype(int): a mask written as integers, read as indices
                hint = (f" labeled looks like a 0/1 mask of the {n} nodes: pass it as booleans "
                        "(labeled.astype(bool)), or the indices of the labeled nodes.")
            raise ValueError(f"labeled indices must be distinct; {int(values[top])} appears {int(counts[top])} "
                             f"times.{hint}")
    if idx.size == 0:
        raise ValueError("labeled is empty: at least one node must be labeled.")
    return idx


def labeled_set_differences(labeled, fit_labeled):
    """The rows of the boolean mask ``labeled`` that differ from the fit's mask ``fit_labeled``, as the sentences
    of an error (the count and first row each way; empty when they agree)."""
    added = np.flatnonzero(labeled & ~fit_labeled)
    dropped = np.flatnonzero(fit_labeled & ~labeled)
    problems = []
    if added.size:
        problems.append(f"{added.size} row(s) labeled here are unlabeled in the fit (row {int(added[0])})")
    if dropped.size:
        problems.append(f"{dropped.size} row(s) labeled in the fit are unlabeled here (row {int(dropped[0])})")
    return problems


def _check_targets(Y, l, n=None):
    """``(Y2, was_1d, out_dtype)`` of the targets of the ``l`` labeled nodes (of ``n``, when known: a ``Y``
    with a row for every node gets the fix in its message)."""
    # complex targets would lose their imaginary part with only a ComplexWarning; a sparse Y (one-hot targets of
    # LabelBinarizer(sparse_output=True)) was a 0-d object array, refused as "dtype object"
    Y = check_numeric_dtype(dense_array(Y), "Y")
    if Y.ndim not in (1, 2):
        raise ValueError(f"Y must have shape (l,) or (l, m); got shape {Y.shape}.")
    out_dtype = np.dtype(np.float32) if Y.dtype == np.float32 else np.dtype(np.float64)
    was_1d = Y.ndim == 1
    Y2 = np.asarray(Y, dtype=np.float64).reshape(Y.shape[0], -1)
    if Y2.shape[0] != l:
        if n is not None and Y2.shape[0] == n:
            # scikit-learn's convention (a target for every node, -1 on the unlabeled ones) is the estimators'
            raise ValueError(f"Y must have one row per labeled node ({l}); got {n}, one per node: pass Y[labeled], "
                             "the targets of the labeled nodes in the order of labeled (the estimators take a y "
                             "for every node, with -1 or NaN on the unlabeled ones).")
        raise ValueError(f"Y must have one row per labeled node ({l}); got {Y2.shape[0]}.")
    if Y2.shape[1] == 0:
        raise ValueError("Y has no columns.")
    if not np.isfinite(Y2).all():
        raise ValueError("Y contains NaN or infinity.")
    return Y2, was_1d, out_dtype


#: Targets whose largest magnitude is above 2^TARGET_UNIT_EXPONENT or below 2^-TARGET_UNIT_EXPONENT are solved for
#: in units of a power of two of that magnitude (:func:`in_target_units`); the others as they are, bit for bit.
TARGET_UNIT_EXPONENT = 500


def in_target_units(Y2):
    r"""``(Y2 / 2^e, e)``: the targets in units of a power of two of their largest magnitude when it exceeds
    :math:`2^{500}` (``TARGET_UNIT_EXPONENT``) or is below :math:`2^{-500}`, else ``(Y2, 0)`` unchanged.

    The solvers and regressors that call this are linear in the targets, so their result on ``Y2`` is
    :math:`2^e` times their result on :math:`Y_2 / 2^e` -- exactly, a power of two changing no mantissa
    (:func:`from_target_units`).  On the raw targets, products such as :math:`L_{US} Y_S` or sums of
    squares overflowed near 1e308 and came back as NaN, infinity or a LinAlgError blaming the graph; near the
    subnormal range (below 1e-308) the squares underflowed to 0 and the selections compared zeros.
    """
    e = power_of_two_exponent(Y2)
    if abs(e) <= TARGET_UNIT_EXPONENT:
        return Y2, 0
    return np.ldexp(Y2, -e), e


def from_target_units(F, e, name="Y"):
    r"""``F`` (a result computed on targets divided by :math:`2^e`, :func:`in_target_units`) times
    :math:`2^e`, exactly; a ValueError naming ``name`` when that is beyond float64's range."""
    if e == 0:
        return F
    F = np.asarray(F)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.ldexp(F, e).astype(F.dtype, copy=False)
    if not np.isfinite(out).all():
        top = float(np.max(np.abs(F[np.isfinite(F)]))) if np.isfinite(F).any() else float("nan")
        raise ValueError(f"{name} is too large: the result reaches {top:.6g} x 2^{e}, beyond float64's range "
                         f"(below 2^1024). Scale the targets down, e.g. pass np.ldexp({name}, -{e}) (exact: "
                         f"{name} / 2^{e}), and read the result in those units.")
    return out


def label_free_mask(W, labeled_idx):
    """Boolean mask of the nodes whose connected component holds no labeled node.

    ``W`` is a sparse adjacency already checked by the caller (the public
    entry point is :func:`graphrkhs.unlabeled_components`).
    """
    W = sp.csr_array(W)
    _, comp = csgraph.connected_components(W, directed=False)
    has_label = np.zeros(comp.max() + 1, dtype=bool)
    has_label[comp[np.asarray(labeled_idx, dtype=np.int64)]] = True
    return ~has_label[comp]


def _orphans(W, S, Y2, F, report=True):
    """Fill nodes of label-free components with the target mean; return their mask.

    ``report=False``: no GraphWarning -- for a solve inside a model selection, whose caller reports the graph
    once (per fit) itself.  An argument, not a warnings filter: ``warnings.catch_warnings`` changes the filters
    of the whole process, and fits running in other threads lost their warnings.
    """
    orphan = label_free_mask(W, S)
    if orphan.any():
        if report:
            warn(f"{int(orphan.sum())} node(s) lie in connected components without any labeled node; "
                 "they get the mean of the labeled targets (the class prior).", GraphWarning)
        F[orphan] = Y2.mean(axis=0)
    return orphan


#: Labeled class proportions are trusted as class sizes when every class's proportion lies more than
#: this many standard errors above zero (:func:`warn_untrusted_label_proportions`).
LABEL_PROPORTION_Z = 2.0


def untrusted_label_proportions(counts, n_samples=None):
    r"""The classes whose labeled proportion is too uncertain to serve as a class size, when the label counts
    differ (an empty array when they are all equal, or every proportion is trusted).

    A proportion :math:`\hat p_c = n_c / l` estimated from :math:`n_c` of :math:`l` labels drawn at random
    (without replacement) from the :math:`N` = ``n_samples`` samples has standard error
    :math:`\sqrt{\hat p_c (1 - \hat p_c) / l \cdot (N - l) / (N - 1)}` (binomial, with the finite-population
    correction; None: :math:`N = \infty`).  Class c is untrusted when :math:`\hat p_c` is within
    ``LABEL_PROPORTION_Z`` = 2 standard errors of zero (its 95 % interval reaches 0: the labels cannot tell
    its size from nothing), i.e. :math:`n_c < 4 (1 - \hat p_c) (N - l) / (N - 1)` -- with unequal counts,
    classes of at most 3 labels; none when every sample is labeled (the proportions are then the data's).
    Equal counts (1 or 10 labels per class) are the usual designed draw, whose proportions are equal: not
    flagged.
    """
    counts = np.asarray(counts, dtype=np.float64).ravel()
    if counts.size < 2 or (counts == counts[0]).all():
        return np.empty(0, dtype=np.int64)
    l = counts.sum()
    p = counts / l
    # finite-population correction; 0 when every sample is labeled (then N > l >= 1 is false)
    fpc = 1.0 if n_samples is None else (n_samples - l) / (n_samples - 1.0) if n_samples > l else 0.0
    return np.flatnonzero(counts < LABEL_PROPORTION_Z ** 2 * (1.0 - p) * fpc)


def check_labeled_classes_have_priors(class_priors, counts, classes=None):
    """ValueError when ``class_priors`` gives proportion 0 to a class that has labels.

    The one rule of every classifier and solver taking ``class_priors``: such a prior contradicts the
    labels (a class of proportion 0 has no member, yet some node is labeled with it), and the methods
    resolved it differently (the MBO solvers refused it, Poisson learning kept the class on its labeled
    node only).  ``counts[c]`` is the number of labeled nodes of class c; ``classes`` (the estimator's
    ``classes_``) names the classes by label, else by column of Y."""
    b = np.asarray(class_priors, dtype=np.float64)
    counts = np.asarray(counts)
    zero = np.flatnonzero((b == 0) & (counts > 0))
    if zero.size:
        c = int(zero[0])
        name = f"class {c} (column {c} of Y)" if classes is None else f"class {_show(classes[c])}"
        raise ValueError(f"class_priors gives {name} proportion 0, but {int(counts[c])} label(s) belong "
                         "to it; give it a positive proportion or remove those labels.")


def warn_untrusted_label_proportions(counts, n_samples=None, *, classes=None, what="class sizes"):
    """Warn (:class:`GraphRKHSWarning`) when ``class_priors=None`` makes the labeled class proportions the
    ``what`` of a fit and they rest on too few labels (:func:`untrusted_label_proportions`).

    ``counts``: labeled count of each class; ``n_samples``: the number of samples (nodes) they were drawn
    from; ``classes``: their names (default: the column indices).  Returns True when it warned.
    """
    counts = np.asarray(counts).ravel()
    weak = untrusted_label_proportions(counts, n_samples)
    if weak.size == 0:
        return False
    c = int(weak[np.argmin(counts[weak])])
    name = _show(classes[c]) if classes is not None else f"{c} (column {c} of Y)"
    order = "in the order of classes_" if classes is not None else "one per column of Y"
    shown = (", ".join(str(int(n)) for n in counts) if counts.size <= 10
             else f"{counts.size} classes, from {int(counts.min())} to {int(counts.max())}")
    warn(f"class_priors is None, so the {what} are the labeled class proportions (label counts "
         f"{shown}), which are unequal, and the proportion of class {name} rests "
         f"on {int(counts[c])} label(s): it is within {LABEL_PROPORTION_Z:g} standard errors of 0 (a proportion p "
         f"of l labels drawn from N samples has standard error sqrt(p (1 - p) / l (N - l) / (N - 1))), so the {what} follow the label draw, not the data "
         "(two equal blobs labeled 1 : 20 put nearly every point in the majority class). Pass class_priors= the "
         f"class proportions of the unlabeled samples ({order}, summing to 1; from proportions b of all N samples "
         "with l_c labels of class c: (N b_c - l_c) / (N - l)).",
         GraphRKHSWarning)
    return True



#: :func:`warn_unequal_label_counts` warns when a chi-square test rejects equal class sizes for the label
#: counts at this level: labels drawn at random from balanced classes set it off once in a thousand fits.
EQUAL_SIZES_P_VALUE = 1e-3


def warn_unequal_label_counts(counts, *, classes=None, owner="the classifier"):
    """Warn (:class:`GraphRKHSWarning`) when ``class_priors=None`` leaves a classifier with an implicit prior of
    equal class sizes and its label counts reject that prior: the chi-square test of the counts against equal
    proportions (Pearson's statistic, k - 1 degrees of freedom) has p-value below
    :data:`EQUAL_SIZES_P_VALUE`.  Labels drawn per class (equal counts) never warn; labels drawn at random from
    unequal classes do.  Returns True when it warned.

    Found by the default-fit survey (``benchmarks/default_fits.py``): on classes of 95 % and 5 % with 30 random
    labels (29 + 1), Poisson learning predicted the rare class on 267 points where 58 are (77.7 %; 95-98 % with
    the true ``class_priors``), silently.
    """
    from scipy.stats import chisquare

    counts = np.asarray(counts, dtype=np.float64).ravel()
    counts = counts[counts > 0]
    if counts.size < 2 or np.all(counts == counts[0]):
        return False
    p = float(chisquare(counts).pvalue)
    if not p < EQUAL_SIZES_P_VALUE:
        return False
    shown = (", ".join(str(int(n)) for n in counts) if counts.size <= 10
             else f"{counts.size} classes, from {int(counts.min())} to {int(counts.max())}")
    order = "in the order of classes_" if classes is not None else "one per column of Y"
    warn(f"class_priors is None, so {owner} treats the classes as equal in size, but the label counts "
         f"({shown}) are far from equal (chi-square test of equal class sizes: p = {p:.1g}). If the labels were "
         f"drawn at random, the classes are unbalanced and the small ones will be over-predicted. Pass "
         f"class_priors= the class proportions ({order}, summing to 1; the label proportions if nothing better "
         "is known).", GraphRKHSWarning)
    return True

#: :func:`unpredicted_classes`: a labeled class is *unpredicted* when the fitted classifier gives it fewer than
#: this fraction of the unlabeled rows that its label share would give it ...
UNPREDICTED_SHARE = 0.1
#: ... and that share would give it at least this many rows (fewer: too few to call the class missing).
UNPREDICTED_MIN_ROWS = 10


#: The words of :func:`warn_conflicting_copies` (``graphrkhs label`` says it for every method in its own words,
#: with line numbers and class names, and leaves the estimator's out).
CONFLICTING_COPIES = "identical labeled rows carry different labels"


def conflicting_copies(points, codes):
    """The groups of identical rows of ``points`` (l, d) whose labels ``codes`` (l,) differ: a list of
    ascending row-index arrays, ordered by their first row (empty: no conflict).

    Rows are compared exactly, by their bytes (-0.0 counted as 0.0): one pass over the rows, a dictionary
    of their bytes (0.03 s for 6000 random rows of 784 float64 features, median of 3; no sort of the rows).
    Sparse rows (any scipy.sparse format) are compared in canonical CSR form (duplicates summed, explicit
    zeros dropped, indices sorted), without densifying.
    """
    codes = np.asarray(codes)
    rows = {}
    if sp.issparse(points):
        P = sp.csr_array(points, copy=True)
        P.sum_duplicates()
        P.eliminate_zeros()
        ptr, ind, val = P.indptr, P.indices, P.data + 0.0
        keys = (ind[ptr[i]:ptr[i + 1]].tobytes() + b"|" + val[ptr[i]:ptr[i + 1]].tobytes()
                for i in range(P.shape[0]))
    else:
        P = np.ascontiguousarray(points) + 0.0        # -0.0 + 0.0 is 0.0
        keys = (row.tobytes() for row in P.reshape(P.shape[0], -1))
    for i, key in enumerate(keys):
        rows.setdefault(key, []).append(i)
    return [np.asarray(G) for G in rows.values() if len(G) > 1 and np.unique(codes[G]).size > 1]


def warn_conflicting_copies(points, rows, codes, *, classes, owner, consequence):
    """Warn (:class:`GraphRKHSWarning`) when identical labeled points carry different labels
    (:func:`conflicting_copies`): how many groups and rows, an example with its rows (``rows``: the row of
    the fit's X of each labeled point) and labels, and what the learner does with them (``consequence``).
    Returns the groups (positions in the labeled points)."""
    groups = conflicting_copies(points, codes)
    if groups:
        G = groups[0]
        shown = G[:4]
        example = (f"rows {', '.join(str(int(rows[i])) for i in shown[:-1])} and {int(rows[shown[-1]])}"
                   f"{' ...' if G.size > shown.size else ''} labeled "
                   f"{', '.join(_show(classes[codes[i]]) for i in shown)}")
        n = len(groups)
        warn(f"{owner}: {n} group{'s' if n > 1 else ''} of {CONFLICTING_COPIES} "
             f"({sum(G.size for G in groups)} rows; e.g. {example}); {consequence}.  Nothing is changed in the "
             "data: deduplicate or relabel the rows if they are mistakes.", GraphRKHSWarning)
    return groups


def unpredicted_classes(label_counts, predicted_counts):
    r"""The labeled classes that a fitted classifier predicts on (almost) none of the unlabeled rows.

    ``label_counts[c]`` = :math:`n_c` labels of class c (of :math:`l`), ``predicted_counts[c]`` =
    :math:`m_c` unlabeled rows predicted as c (of :math:`u`).  Class c is unpredicted when its label share
    would give it :math:`e_c = u n_c / l \ge` ``UNPREDICTED_MIN_ROWS`` (10) rows and the fit gives it
    :math:`m_c <` ``UNPREDICTED_SHARE`` :math:`e_c` (a tenth).  On the ordinary data sets of the default-fit
    survey (moons, circles, blobs, iris, wine, digits; labels per class or at random) the smallest
    :math:`m_c / e_c` of a sound fit was 0.34; the degenerate fits (29 + 1 random labels of a 95 / 5 % split)
    give 0 - 0.12.
    """
    n = np.asarray(label_counts, dtype=np.float64).ravel()
    m = np.asarray(predicted_counts, dtype=np.float64).ravel()
    l, u = n.sum(), m.sum()
    if l <= 0 or u <= 0:
        return np.empty(0, dtype=np.int64)
    e = u * n / l
    return np.flatnonzero((n > 0) & (e >= UNPREDICTED_MIN_ROWS) & (m < UNPREDICTED_SHARE * e))


def warn_unpredicted_classes(label_counts, predicted_counts, *, classes=None, owner="the classifier",
                             n_unlabeled=None):
    """Warn (:class:`GraphRKHSWarning`) when a fitted classifier predicts a labeled class on (almost) none of the
    unlabeled rows (:func:`unpredicted_classes`); the message names the class, the counts and the fix
    (``class_priors=``).  ``n_unlabeled``: the number of unlabeled rows when ``predicted_counts`` counts a
    sample of them (the message then says so).  Returns True when it warned.

    Found by the default-fit survey (``benchmarks/default_fits.py``, case ``unbal2``): labels drawn at random
    from classes of 95 % and 5 % (29 + 1), and the harmonic solution, LapRLS, PLapRLS and the warped-kernel
    classifier predicted the majority class on all 970 unlabeled points, silently.
    """
    n = np.asarray(label_counts, dtype=np.float64).ravel()
    m = np.asarray(predicted_counts, dtype=np.float64).ravel()
    weak = unpredicted_classes(n, m)
    if weak.size == 0:
        return False
    l, u = n.sum(), m.sum()
    e = u * n / l
    c = int(weak[np.argmin(m[weak] / e[weak])])
    name = _show(classes[c]) if classes is not None else f"{c} (column {c} of Y)"
    others = f" (and {weak.size - 1} other class(es) likewise)" if weak.size > 1 else ""
    order = "in the order of classes_" if classes is not None else "one per column of Y"
    shares = "[" + ", ".join(f"{v:.3g}" for v in n / l) + "]" if n.size <= 10 else "the label proportions"
    among = f"the {int(u)}" if n_unlabeled is None or int(n_unlabeled) == int(u) else \
        f"a seeded sample of {int(u)} of the {int(n_unlabeled)}"
    warn(f"{owner} predicts class {name} on {int(m[c])} of {among} unlabeled samples, though "
         f"{int(n[c])} of the {int(l)} labels belong to it (its label share would give it about {e[c]:.0f}){others}. "
         "The usual cause is the degeneracy of Laplace-type learning at low label rates -- the class's few "
         "labels become spikes that reach no unlabeled sample (Calder et al. 2020, 'Poisson learning'; El Alaoui "
         "et al. 2016) -- not evidence that the class is absent. Pass class_priors= the class proportions "
         f"({order}, summing to 1; the label proportions {shares} if nothing better is known): the unlabeled "
         "samples are then assigned with those class sizes.", GraphRKHSWarning)
    return True


#: Relative weight below which an edge counts as a *weak link* (:func:`cut_weak_links`):
#: an edge (i, j) with :math:`w_{ij} \le 10^{-10} \min(d_i, d_j)`, i.e. a random walk crosses
#: it with probability at most 1e-10 from either end.  A part of the graph attached only by
#: such edges makes the Laplacian systems of Laplace / Poisson learning ill-conditioned by
#: a factor of at least 1e10 (their smallest eigenvalue is at most the cut weight over the
#: part's volume): more than 10 of float64's 16 digits are lost, and at 1e-16 the direct
#: factorization is exactly singular and CG drifts to scores of 1e16 - 1e32.  Degrees, not
#: the largest weight, set the scale, so a far outlier whose few edges are all tiny (but
#: carry all of its degree) is *not* cut off.
WEAK_EDGE_RTOL = 1e-10


def weak_link_split(W, rtol=WEAK_EDGE_RTOL):
    """Components of the graph without its weak links: ``(W_strong, n_affected)``.

    ``W_strong`` is ``W`` without the edges :math:`w_{ij} \\le` ``rtol``
    :math:`\\min(d_i, d_j)` *if* dropping them splits a connected component
    (then ``n_affected`` counts the nodes outside the largest piece of each
    split component), else ``W`` itself and 0.  Cost: one pass over the
    edges and two connected-components searches.
    """
    W = sp.csr_array(W)
    d = np.asarray(abs(W).sum(axis=1)).ravel()
    C = sp.coo_array(W)
    weak = (C.row != C.col) & (np.abs(C.data) <= rtol * np.minimum(d[C.row], d[C.col]))
    if not weak.any():
        return W, 0
    keep = ~weak
    Ws = sp.csr_array((C.data[keep], (C.row[keep], C.col[keep])), shape=W.shape)
    n_all, comp_all = csgraph.connected_components(W, directed=False)
    n_strong, comp_strong = csgraph.connected_components(Ws, directed=False)
    if n_strong == n_all:
        return W, 0
    size = np.bincount(comp_strong, minlength=n_strong)
    # Each strong piece lies in one original component: keep the largest piece's size per component.
    parent = np.zeros(n_strong, dtype=np.int64)
    parent[comp_strong] = comp_all
    largest = np.zeros(n_all, dtype=np.int64)
    np.maximum.at(largest, parent, size)
    n_affected = int(W.shape[0] - largest.sum())
    return Ws, n_affected


def cut_weak_links(W):
    """:func:`weak_link_split` with the :class:`GraphWarning` of the documented fallback.

    Returns the graph to solve on (``W`` itself when nothing is weakly attached).
    """
    Ws, n_affected = weak_link_split(W)
    if n_affected:
        warn(f"the graph is nearly disconnected: {n_affected} node(s) are attached to the rest of their component "
             f"only through edges of relative weight <= {WEAK_EDGE_RTOL:g} (w_ij <= {WEAK_EDGE_RTOL:g} min(d_i, "
             "d_j)), which would make the linear system singular to working precision. Those edges are dropped: "
             "each weakly attached part is treated as its own component (solved on its own if it holds labeled "
             "nodes, else given the mean of the labeled targets, the class prior).", GraphWarning)
    return Ws


def absent_classes_below(F, W, S, Y2, comp, n_comp, orphan, margin=None):
    r"""On a graph of several labeled components, lower each column without a nonzero target among a component's
    labels (a class not labeled there) to below every other score of that component, in place.

    Each component was solved with its own label mean, so its scores are those of the component alone; a class
    labeled only elsewhere has no path to its nodes and must not win there.  Its column is 0 on the component
    (its source is), so it is set to the component's smallest score of the other columns less
    :math:`\max|y| / w_{\max}` (:math:`w_{\max}` the component's largest edge weight): a constant, which keeps
    the scale rule (scores scale as 1/c with W -> c W) and the decision of the classes labeled there.  ``margin``
    replaces :math:`\max|y| / w_{\max}` for scores without units (the ensemble's standardized ones: 1).

    This replaced an offset of every column by :math:`(\bar y_k - \bar y) / w_{\max}`, which let other
    components move a component's own decisions: one isolated node labeled class 1 moved 23 of 54 unlabeled
    nodes of a two-class component to class 0 (accuracy 0.889 -> 0.611), three such nodes all 54.
    """
    n, m = F.shape
    if n_comp < 2:
        return
    labeled_any = np.zeros((n_comp, m), dtype=bool)
    np.logical_or.at(labeled_any, comp[S], Y2 != 0)
    has_labels = np.bincount(comp[S], minlength=n_comp) > 0
    absent = has_labels[:, None] & ~labeled_any                   # (n_comp, m)
    if not absent.any():
        return
    if margin is None:
        wmax = np.zeros(n_comp)
        if W.nnz:
            rows = np.repeat(np.arange(n), np.diff(W.indptr))
            np.maximum.at(wmax, comp[rows], W.data)
        # an edgeless (single labeled node) component: the graph's largest weight, for the 1 / c scaling
        wmax = np.where(wmax > 0, wmax, float(W.data.max()) if W.nnz else 1.0)
        top = float(np.max(np.abs(Y2))) if Y2.size else 1.0
        margin = (top if top > 0 else 1.0) / wmax
    # the smallest score of the columns labeled in each component (0 where none is: every column absent there)
    low = np.full(n_comp, np.inf)
    present_score = np.where(absent[comp], np.inf, F)
    np.minimum.at(low, comp, present_score.min(axis=1))
    low = np.where(np.isfinite(low), low, 0.0)
    floor = low - margin                                          # (n_comp,)
    on = absent[comp] & ~orphan[:, None]
    F[on] = np.broadcast_to(floor[comp][:, None], F.shape)[on]


def classes_labeled_per_component(F, W, labeled, Y, margin=1.0):
    r"""``F`` (n, m) with, on each labeled connected component of W, the columns that have no nonzero entry of
    ``Y`` among the component's labeled nodes set below every other score of the component (by ``margin``), in
    place; returns F.  A node can only be given a class labeled in its own component: no path carries any other
    class's information to it.  For score ensembles whose columns are standardized over the whole graph (the
    rule :func:`~graphrkhs.poisson_learning` applies to its own potentials)."""
    W = sp.csr_array(W)
    S = np.asarray(labeled)
    Y2 = np.asarray(Y, dtype=np.float64).reshape(S.size, -1)
    n_comp, comp = csgraph.connected_components(W, directed=False)
    orphan = np.bincount(comp[S], minlength=n_comp)[comp] == 0
    absent_classes_below(F, W, S, Y2, comp, n_comp, orphan, margin=margin)
    return F
