"""Leave-one-out predictions of linear smoothers."""


import numpy as np
from .validation import _as_2d


__all__ = [
    "loo_predictions",
]


def loo_predictions(H, Y):
    r"""Leave-one-out predictions of a linear smoother from its hat matrix.

    For every learner here the fitted values on the labeled points are
    :math:`\hat y = H y` with H independent of y (the regularizers do not
    involve the labels), and leaving out label i gives
    :math:`\hat y_i^{(-i)} = (\hat y_i - H_{ii} y_i) / (1 - H_{ii})` (the
    classical identity; the weights :math:`\gamma` are kept, i.e. the
    :math:`1/l` loss scaling is not changed to :math:`1/(l-1)`).

    Parameters
    ----------
    H : ndarray of shape (l, l)
        Hat matrix on the labeled points (``fit`` applied to the identity).
    Y : ndarray of shape (l,) or (l, k)

    Returns
    -------
    ndarray like Y

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import loo_predictions
    >>> H = np.full((3, 3), 1 / 3)                     # the mean
    >>> loo_predictions(H, np.array([0.0, 3.0, 6.0])).round(6)
    array([4.5, 3. , 1.5])
    """
    H = np.asarray(H)
    Y2, was_1d = _as_2d(Y)
    h = np.diag(H)[:, None]
    if np.any(h >= 1 - 1e-12):
        raise ValueError("the hat matrix has a diagonal entry >= 1 (an interpolated label); LOO is undefined.")
    F = (H @ Y2 - h * Y2) / (1 - h)
    return F[:, 0] if was_1d else F

