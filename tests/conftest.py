"""Shared pytest configuration.

Hypothesis: the library tests run numpy-heavy examples whose first call can be slow (imports,
Qiskit transpilation), so the per-example deadline is off; ``max_examples`` is kept moderate so
the whole library suite stays within a few minutes on two cores. Select another profile with
``pytest --hypothesis-profile=thorough`` for a longer local search.
"""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "qring",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("thorough", parent=settings.get_profile("qring"), max_examples=1000)
settings.load_profile("qring")


@pytest.fixture
def one_numba_thread():
    """Run galois' decoder on one numba thread. It decodes in numba parallel regions whose
    worker threads, on a busy machine, spin for the CPU: a decode then takes a hundred times
    longer. The results do not depend on the number of threads."""
    numba = pytest.importorskip("numba")
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)
