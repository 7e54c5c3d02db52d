"""The memory guard of chebyshev_order / chebyshev_plan names the coefficients, not "0 signal(s) of 0 nodes"."""

import pytest

import graphrkhs._core.validation as validation
from graphrkhs import chebyshev_order, filters
from graphrkhs.spectral._plan import chebyshev_plan


@pytest.mark.parametrize("call", [lambda: chebyshev_order(filters.Heat(1.0), 2.0, max_order=1000),
                                  lambda: chebyshev_plan(filters.Heat(1.0), 2.0, order=20000)])
def test_coefficient_guard_message(monkeypatch, call):
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    with pytest.raises(MemoryError) as info:
        call()
    msg = str(info.value)
    assert "0 signal(s) of 0 nodes" not in msg
    assert "Chebyshev coefficients" in msg and "1 response(s)" in msg
