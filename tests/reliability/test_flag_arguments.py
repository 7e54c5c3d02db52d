"""Every public ``return_*`` argument is a True/False flag: a string such as ``"False"`` or ``"no"`` (truthy) was read
by its truth value and changed what the function returns (``graph_kernel_ridge(..., return_coef="False")`` returned
a tuple).  Now a TypeError naming the argument, before any other work."""

import inspect
import re

import pytest

import graphrkhs as gr


def _flag_functions():
    out = []
    for name in gr.__all__:
        obj = getattr(gr, name)
        if inspect.isfunction(obj):
            flags = [p for p in inspect.signature(obj).parameters if p.startswith("return_")]
            out += [(name, flag) for flag in flags]
    return out


FLAGS = _flag_functions()


def test_the_flag_functions_are_found():
    # the public functions with return_* flags (so that the test below cannot pass by finding none)
    assert {"graph_kernel_ridge", "propose_labels", "knn_graph", "poisson_mbo", "graph_tv", "lanczos_filter",
            "laprls_fit", "select_manifold_gammas"} <= {name for name, _ in FLAGS}


@pytest.mark.parametrize("name, flag", FLAGS)
@pytest.mark.parametrize("value", ["False", "no", 0, None])
def test_a_flag_that_is_not_a_bool_raises_naming_it(name, flag, value):
    func = getattr(gr, name)
    required = [p for p in inspect.signature(func).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    args = [None] * len(required)     # never looked at: the flag is checked first
    message = f"{flag} must be True or False; got {value!r} of type {type(value).__name__}."
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        func(*args, **{flag: value})
