"""Shared pytest configuration.

Hypothesis: the library tests run numpy-heavy examples whose first call can be slow (imports,
Qiskit transpilation), so the per-example deadline is off; ``max_examples`` is kept moderate so
the whole library suite stays within a few minutes on two cores. Select another profile with
``pytest --hypothesis-profile=thorough`` for a longer local search.
"""

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
