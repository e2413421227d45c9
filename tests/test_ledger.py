"""The communication ledger (qring_edu.ledger)."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.ledger import Ledger
from qring_edu.ring import ring_allreduce


def make_ledger() -> Ledger:
    """P = 3 ledger with hand-recorded messages (superdense-style and classical-style units)."""
    led = Ledger(3, "superdense", 4)
    led.record(0, 0, qubits=5, ebits=5, offline_qubits=5)
    led.record(1, 0, qubits=7, ebits=7, offline_qubits=7)
    led.record(2, 1, qubits=2, ebits=2, offline_qubits=2)
    led.record(0, 3, qubits=4, ebits=4, offline_qubits=4)
    return led


def test_links_and_steps():
    led = Ledger(5, "classical", 8)
    assert led.links == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    assert led.steps == 8
    assert led.workers == 5
    for link in led.links:
        assert led.online_bits(link) == 0


def test_queries_per_link_and_critical_path():
    led = make_ledger()
    assert [led.online_qubits(link) for link in led.links] == [9, 7, 2]
    assert led.online_qubits() == 9  # link=None: the busiest link
    assert led.ebits((1, 2)) == 7
    assert led.offline_qubits((2, 0)) == 2
    assert led.online_bits() == 0
    assert led.per_link("ebits").tolist() == [9, 7, 2]
    assert led.as_dict((0, 1)) == {
        "online_bits": 0,
        "online_qubits": 9,
        "ebits": 9,
        "offline_qubits": 9,
        "offline_bits": 0,
    }
    assert led.messages == 4


def test_link_accepts_lists_and_numpy_ints():
    led = make_ledger()
    assert led.online_qubits([1, 2]) == 7
    assert led.online_qubits((np.int64(2), np.int64(0))) == 2


def test_lifetime_uses():
    led = make_ledger()
    assert led.lifetime_uses((0, 1)) == 18
    assert led.lifetime_uses() == 18
    cl = Ledger(2, "classical", 2)
    cl.record(0, 0, bits=10)
    cl.record(1, 1, bits=12)
    assert cl.lifetime_uses() == 12
    assert cl.lifetime_uses((0, 1)) == 10


def test_per_link_returns_a_copy():
    led = make_ledger()
    counts = led.per_link("online_qubits")
    counts[:] = 0
    assert led.online_qubits() == 9


def test_ring_time_sums_largest_message_per_step():
    led = make_ledger()
    # step maxima: step0 max(5, 7) = 7, step1 2, step2 0 (no message), step3 4 -> 13 units
    assert led.ring_time(1.0, 0.0) == pytest.approx(4.0)
    assert led.ring_time(0.0, 1.0) == pytest.approx(13.0)
    assert led.ring_time(0.5, 2.0) == pytest.approx(4 * 0.5 + 2.0 * 13)


@pytest.mark.parametrize("bad", [(0, 2), (3, 0), (-1, 0), (2, 1), (1, 1)])
def test_bad_link_value_error_names_link(bad):
    led = make_ledger()
    with pytest.raises(ValueError, match="link"):
        led.online_bits(bad)
    with pytest.raises(ValueError, match="link"):
        led.ebits(bad)


@pytest.mark.parametrize("bad", [3, "ab", (0, 1, 2), (0,), 1.5, ("a", "b")])
def test_bad_link_type_error_names_link(bad):
    led = make_ledger()
    with pytest.raises(TypeError, match="link"):
        led.online_qubits(bad)


def test_bad_currency():
    with pytest.raises(ValueError, match="currency"):
        make_ledger().per_link("dollars")


def test_repr_deterministic():
    r = repr(make_ledger())
    assert r == repr(make_ledger())
    assert "P=3" in r and "online_qubits=9" in r


def test_events_and_messages_per_link():
    led = Ledger(3, "superdense", 2)
    assert led.events("blocks") == 0 and led.sent(0) == 0
    led.record(0, 0, qubits=10, ebits=10, offline_qubits=10, blocks=2, rejected=1)
    led.record(0, 1, qubits=4, ebits=4, offline_qubits=4, blocks=1)
    led.record(2, 1, qubits=3, ebits=3, offline_qubits=3, lost=5)
    assert led.events("blocks") == 3 and led.events("rejected") == 1 and led.events("lost") == 5
    assert led.events("transmissions") == 0
    assert [led.sent(k) for k in range(3)] == [2, 0, 1] and led.messages == 3
    # events are not channel uses
    assert led.as_dict((0, 1))["online_qubits"] == 14 and led.lifetime_uses((0, 1)) == 28


def _sizes(led: Ledger) -> list[int]:
    sizes = []
    for value in vars(led).values():
        if isinstance(value, np.ndarray):
            sizes.append(value.size)
        elif isinstance(value, dict):
            sizes += [v.size for v in value.values() if isinstance(v, np.ndarray)]
            sizes.append(len(value))
        elif isinstance(value, (list, tuple)):
            sizes.append(len(value))
    return sizes


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(transport="superdense"),
        dict(transport="superdense", channel_fidelity=0.99, transmission=0.9, seed=1),
        dict(transport="superdense", channel_fidelity=0.99, protection="distill+fec", seed=1),
    ],
)
def test_ledger_memory_is_O_P_not_O_messages(kwargs):
    """ARCHITECTURE.md: the ledger keeps counters (per link, per step, per event name), never
    copies of the messages; the result holds the outputs and the ledger, nothing per message."""
    P, d = 8, 4096
    res = ring_allreduce(np.ones((P, d), dtype=np.int64), bits=16, **kwargs)
    led = res.ledger
    assert max(_sizes(led)) <= max(P, led.steps)
    arrays = [v for v in vars(res).values() if isinstance(v, np.ndarray)]
    assert [a.shape for a in arrays] == [(P, d)]  # the outputs only


def test_offline_bits_currency():
    led = Ledger(3, "superdense", 2)
    led.record(0, 0, bits=4, qubits=10, ebits=10, offline_qubits=25, offline_bits=60)
    led.record(1, 1, qubits=3, ebits=3, offline_qubits=3)
    assert led.offline_bits((0, 1)) == 60 and led.offline_bits((1, 2)) == 0
    assert led.offline_bits() == 60
    assert led.per_link("offline_bits").tolist() == [60, 0, 0]
    # classical side traffic of the quantum link is online_bits; offline bits are not channel uses
    assert led.online_bits((0, 1)) == 4
    assert led.lifetime_uses((0, 1)) == 4 + 10 + 25
    assert "offline_bits=60" in repr(led)
    assert "offline_bits" not in repr(make_ledger())  # unprotected runs keep their repr


def test_protected_ring_ledger_has_side_bits_and_offline_bits():
    grads = np.arange(4 * 500, dtype=np.int64).reshape(4, 500)
    res = ring_allreduce(
        grads,
        transport="superdense",
        bits=16,
        channel_fidelity=0.99,
        protection="distill+fec",
        seed=3,
    )
    led = res.ledger
    assert led.online_bits() > 0  # acknowledgements
    assert led.offline_bits() > 0  # distillation announcements and the checksum key
    assert led.offline_qubits() > led.ebits() == led.online_qubits()
