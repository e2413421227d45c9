"""``qring_edu.exercises._base.forbidden``: the switch the assignments' hidden tests and the
"build it yourself" checkers use to grade "compute it without calling X" (tests/test_assignments.py
runs it inside otter), and the bypasses it must refuse."""

from __future__ import annotations

import contextlib
import functools
import types

import numpy as np
import pytest

import qring_edu as qr
import qring_edu.costmodel
import qring_edu.exercises._base as base
import qring_edu.ring
from qring_edu.exercises._base import Forbidden, call_reader, forbidden, pristine


def _ledger_bits(P, d, bits):
    return qr.ring_allreduce(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()


def _notebook(source: str) -> dict:
    """The globals of a "notebook" in which ``source`` ran, as a student's cells would."""
    namespace = {"__name__": "__main__"}
    exec(source, namespace)  # noqa: S102 - the test plays the student
    return namespace


def test_switches_the_function_off_everywhere_and_restores_it():
    original = qr.ring_allreduce
    holder = {"alias": original, "other": len}
    with forbidden("ring_allreduce"):
        with pytest.raises(Forbidden, match="ring_allreduce is not allowed"):
            _ledger_bits(4, 8, 8)  # through the package attribute
        with pytest.raises(Forbidden):
            qring_edu.ring.ring_allreduce(np.zeros((2, 2), dtype=int))  # its home module
        with pytest.raises(Forbidden):
            holder["alias"](np.zeros((2, 2), dtype=int))  # any other reference to it
        assert holder["other"] is len
        assert qr.chunk_bounds(8, 4).tolist() == [0, 2, 4, 6, 8]  # allowed helpers still work
    assert qr.ring_allreduce is original and holder["alias"] is original
    assert _ledger_bits(4, 8, 8) == 96


def test_restores_after_an_error_inside_the_block():
    with pytest.raises(ZeroDivisionError):
        with forbidden("ring_time", "parameter_server_time"):
            1 / 0
    assert qring_edu.costmodel.ring_time(4, 1000, 16, 1e-5, 1e-9) > 0  # working again
    assert qring_edu.costmodel.parameter_server_time(4, 1000, 16, 1e-5, 1e-9) > 0


def test_own_code_passes_a_shortcut_fails():
    nb = _notebook(
        "from qring_edu import ring_allreduce\n"  # the assignment's setup cell imports it
        "def own(P, d, bits):\n"
        "    return 2 * (P - 1) * (d // P) * bits\n"
    )
    with forbidden("ring_allreduce", "message_bits", student=nb["own"]):
        assert nb["own"](4, 8, 8) == 96
        with pytest.raises(Forbidden):
            _ledger_bits(4, 8, 8)


@pytest.mark.parametrize(
    ("source", "how"),
    [
        # (a) a default-argument alias: the bypass of the old guard
        (
            "from qring_edu import ring_allreduce\n"
            "def link_bits(P, d, bits, _ra=ring_allreduce):\n"
            "    return _ra(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n",
            "argument _ra",
        ),
        # a keyword-only default
        (
            "import qring_edu\n"
            "def link_bits(P, d, bits, *, _ra=qring_edu.ring.ring_allreduce):\n"
            "    return _ra(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n",
            "argument _ra",
        ),
        # the library function in a closure cell
        (
            "def make():\n"
            "    from qring_edu import ring_allreduce as hidden\n"
            "    def link_bits(P, d, bits):\n"
            "        return hidden(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n"
            "    return link_bits\n"
            "link_bits = make()\n",
            "closure variable hidden",
        ),
        # an alias among the notebook's globals, used through a helper the student wrote
        (
            "from qring_edu import ring_allreduce as ra\n"
            "def helper(P, d, bits):\n"
            "    return ra(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n"
            "def link_bits(P, d, bits):\n"
            "    return helper(P, d, bits)\n",
            "the name ra in helper",
        ),
        # hidden in a container and a partial
        (
            "import functools\nfrom qring_edu import ring_allreduce\n"
            "TOOLS = {'sum': functools.partial(ring_allreduce, transport='classical')}\n"
            "def link_bits(P, d, bits):\n"
            "    return TOOLS['sum'](np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n",
            "the name TOOLS in link_bits",
        ),
        # a copy of the function made from its code object
        (
            "import types, qring_edu.ring as r\n"
            "ra = types.FunctionType(r.ring_allreduce.__code__, vars(r))\n"
            "ra.__kwdefaults__ = r.ring_allreduce.__kwdefaults__\n"
            "def link_bits(P, d, bits):\n"
            "    return ra(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n",
            "the name ra in link_bits",
        ),
    ],
    ids=["default", "kwdefault", "closure", "helper", "container", "code-copy"],
)
def test_a_reference_to_the_forbidden_function_is_refused_by_name(source, how):
    nb = _notebook("import numpy as np\n" + source)
    assert nb["link_bits"](4, 8, 8) == 96  # the shortcut works outside the block
    with pytest.raises(Forbidden) as err:
        with forbidden("ring_allreduce", "message_bits", student=nb["link_bits"]):
            pass
    assert "link_bits uses ring_allreduce" in str(err.value) and how in str(err.value)


def test_a_call_through_an_unseen_reference_raises_at_run_time():
    """Whatever holds the function object (here an instance attribute the inspection does not
    open), calling it inside the block raises: the object itself is switched off."""
    box = types.SimpleNamespace(fn=qr.ring_allreduce)

    def link_bits(P, d, bits):
        return box.fn(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()

    with forbidden("ring_allreduce", student=link_bits):
        with pytest.raises(Forbidden, match="ring_allreduce"):
            link_bits(4, 8, 8)
    assert link_bits(4, 8, 8) == 96


def test_rebinding_forbidden_to_nullcontext_does_not_switch_the_guard_off(monkeypatch):
    """(b) The student's cell rebinds the module attribute before the grader runs; the grader
    takes the guard from a fresh copy of the module (``pristine``) and is not fooled."""
    nb = _notebook(
        "import contextlib, numpy as np\n"
        "import qring_edu.exercises._base\n"
        "from qring_edu import ring_allreduce\n"
        "def link_bits(P, d, bits):\n"
        "    return ring_allreduce(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n"
    )
    monkeypatch.setattr(base, "forbidden", contextlib.nullcontext)
    monkeypatch.setattr(base, "Forbidden", ZeroDivisionError)
    from qring_edu.exercises._base import forbidden as rebound

    assert rebound is contextlib.nullcontext  # what a naive grader would now import
    guard = pristine()
    with pytest.raises(guard.Forbidden, match="link_bits uses ring_allreduce"):
        with guard.forbidden("ring_allreduce", student=nb["link_bits"]):
            nb["link_bits"](4, 8, 8)
    with guard.forbidden("ring_allreduce"):  # and at run time, without the inspection
        with pytest.raises(RuntimeError, match="ring_allreduce is not allowed"):
            nb["link_bits"](4, 8, 8)


def _check_link_bits(fn):
    """A "build it yourself" checker as the chapters write them (call_reader with forbid)."""
    got, feedback = call_reader(fn, 6, 1200, 16, forbid=("ring_allreduce", "message_bits"))
    if feedback is not None:
        return feedback
    return base.passed() if got == 32000 else base.failed(f"{got} is not right.")


@pytest.mark.parametrize(
    ("source", "passes"),
    [
        ("def link_bits(P, d, bits):\n    return 2 * (P - 1) * (d // P) * bits\n", True),
        (
            "from qring_edu import ring_allreduce\n"
            "def link_bits(P, d, bits, _ra=ring_allreduce):\n"
            "    return _ra(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()\n",
            False,
        ),
        (
            "def make():\n"
            "    import qring_edu\n"
            "    ra = qring_edu.ring_allreduce\n"
            "    return lambda P, d, bits: ra(np.zeros((P, d), dtype=int), bits=bits)"
            ".ledger.online_bits()\n"
            "link_bits = make()\n",
            False,
        ),
        (
            "import contextlib, qring_edu.exercises._base as b\n"
            "b.forbidden = contextlib.nullcontext\n"
            "import qring_edu\n"
            "def link_bits(P, d, bits):\n"
            "    return qring_edu.ring_allreduce(np.zeros((P, d), dtype=int), bits=bits)"
            ".ledger.online_bits()\n",
            False,
        ),
    ],
    ids=["own", "default-alias", "closure", "nullcontext"],
)
def test_checker_grades_every_bypass_as_using_the_forbidden_function(source, passes, monkeypatch):
    monkeypatch.setattr(base, "forbidden", base.forbidden)  # undone after the test
    nb = _notebook("import numpy as np\n" + source)
    feedback = _check_link_bits(nb["link_bits"])
    assert feedback.passed is passes
    if not passes:
        assert "ring_allreduce" in feedback.message and "not allowed" in feedback.message


def test_pristine_copy_is_private_and_fresh():
    first, second = pristine(), pristine()
    assert first is not second and first.forbidden is not base.forbidden
    assert "qring_edu.exercises._base_pristine" not in __import__("sys").modules
    assert first.Forbidden is not base.Forbidden and issubclass(first.Forbidden, RuntimeError)


def test_unknown_or_unsuitable_names_are_clear_errors():
    with pytest.raises(ValueError, match="not a function of any loaded qring_edu module"):
        with forbidden("no_such_function"):
            pass
    with pytest.raises(ValueError, match="names: 'Superdense'"):
        with forbidden("Superdense"):
            pass
    with pytest.raises(TypeError, match="names"):
        with forbidden(qr.ring_allreduce):
            pass
    with pytest.raises(TypeError, match="forbid"):
        call_reader(len, [1], forbid="ring_allreduce")


def test_the_switch_is_undone_for_partials_made_before_the_block():
    """A partial built before the block holds the same function object: off inside, on after."""
    part = functools.partial(qr.ring_time, 4, 1000, 16)
    with forbidden("ring_time"), pytest.raises(Forbidden):
        part(1e-5, 1e-9)
    assert part(1e-5, 1e-9) == qr.ring_time(4, 1000, 16, 1e-5, 1e-9)
