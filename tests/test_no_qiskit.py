"""``import qring_edu`` and every fast path run in a process where Qiskit cannot be imported
(ARCHITECTURE.md: Qiskit is imported only inside the functions of the Qiskit path).

The child process installs a meta-path finder that raises ``ImportError`` for ``qiskit`` and
``qiskit_aer`` (and their submodules) before anything else is imported, then imports the library
and runs the fast paths; a Qiskit-path function must then fail with that ImportError, which shows
the blocker works.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLOCKER = textwrap.dedent("""
    import importlib.abc, sys

    class _NoQiskit(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("qiskit", "qiskit_aer"):
                raise ImportError(f"blocked for this test: {name}")
            return None

    sys.meta_path.insert(0, _NoQiskit())
""")

FAST_PATHS = textwrap.dedent("""
    import json
    import numpy as np
    import qring_edu as qr
    from qring_edu import states
    from qring_edu.experiments import bottleneck, claims, holevo, superdense_ring, vga
    from qring_edu.experiments import gapip as gapip_experiments
    from qring_edu.experiments import noisy_links, training, vga_security
    from qring_edu.experiments.tieaudit import random_matching, signs_with_disagreement

    out = {}
    grads = np.arange(24).reshape(4, 6)
    out["ring_classical"] = qr.ring_allreduce(grads).outputs[0].tolist()
    noisy = qr.ring_allreduce(grads, transport="superdense", pair_fidelity=0.9, seed=0)
    out["ring_superdense_qubits"] = noisy.ledger.online_qubits()
    out["message_qubits"] = int(((qr.message_bits(4, 6, 16) + 1) // 2).sum(axis=1).max())
    out["superdense_send"] = qr.superdense_send(np.array([1, 0, 1, 1, 0], dtype=np.uint8)).tolist()
    out["vga_total"] = qr.vga_aggregate(np.array([[1, 2], [3, 4], [5, 6]]), bits=4, seed=0).total.tolist()
    out["vga_pads_row"] = qr.vga.zero_sum_pads(3, 4, 8, seed=1, worker=2).tolist()
    out["vga_epsilon"] = qr.vga_epsilon(800, 0.5, 0.1, detection=0.25)
    g, h = gapip_experiments.aligned_pair(64, 0.3, seed=0)
    out["gapip"] = qr.gapip(g, h, 0.3, seed=1).verdict
    out["gapip_classical"] = qr.gapip(g, h, 0.3, protocol="classical", seed=1).verdict
    m = random_matching(64, 1.0, seed=0)
    s = signs_with_disagreement(m, 64, 0.25, seed=1)
    out["tieaudit_error"] = abs(qr.tieaudit(s, m, 0.1, seed=2).value
                                - float(np.mean(s[m[:, 0]] != s[m[:, 1]])))
    bb84 = qr.bb84_ensemble()
    out["chi"] = round(qr.holevo_chi(*bb84), 6)
    out["acc"] = round(qr.accessible_information(*qr.trine_ensemble()), 3)
    out["dense"] = round(qr.dense_coding_capacity(states.isotropic_state(1.0)), 6)
    out["superdense_chi"] = round(qr.holevo_chi(*qr.superdense_ensemble(0.9)), 6)
    out["isotropic_capacity"] = round(qr.isotropic_capacity(0.9), 6)
    out["entropy"] = round(qr.von_neumann_entropy(np.eye(2) / 2), 6)
    out["ledger_floor"] = holevo.ledger_floor_sweep(d=10, bits=4, workers=(2, 3)).online_qubits.tolist()
    out["ring_state"] = bottleneck.ring_state(3, 2).step
    run = qr.train_data_parallel(workers=2, steps=2, transport="superdense",
                                 channel_fidelity=0.99, protection="fec")
    out["train_protected"] = run.protection
    out["learners"] = training.learner_comparison(fidelities=(1.0,), steps=1).identical("vqc")
    out["fec_wrong"] = noisy_links.scheme_ledger(0.99, workers=2, d=64).run("fec").wrong_fraction
    try:
        qr.superdense_circuit(0, 0)
    except ImportError as exc:
        out["qiskit_path"] = "ImportError: " + str(exc)
    out["qiskit_loaded"] = sorted(k for k in sys.modules if k.split(".")[0] in ("qiskit", "qiskit_aer"))
    print(json.dumps(out))
""")


def _run(code: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER + "import sys\n" + code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_and_fast_paths_without_qiskit():
    out = _run(FAST_PATHS)
    assert out["qiskit_loaded"] == []
    assert out["qiskit_path"].startswith("ImportError: blocked for this test: qiskit")
    assert out["ring_classical"] == [36, 40, 44, 48, 52, 56]
    assert out["superdense_send"] == [1, 0, 1, 1, 0]
    # chunks of 2, 2, 1, 1 words: link 1 sends chunks 1, 0, 3, 2, 1, 0 = 16+16+8+8+16+16 qubits
    assert out["ring_superdense_qubits"] == out["message_qubits"] == 80
    assert out["vga_total"] == [(9 + 8) % 16 - 8, (12 + 8) % 16 - 8]  # sums 9, 12 as signed 4-bit
    assert len(out["vga_pads_row"]) == 4 and 3.3e-5 < out["vga_epsilon"] < 3.4e-5
    assert out["gapip"] == out["gapip_classical"] == "aligned"
    assert out["tieaudit_error"] <= 0.1
    assert out["chi"] == 1.0 and out["acc"] == 0.585 and out["dense"] == 2.0
    assert out["superdense_chi"] == out["isotropic_capacity"]
    assert out["entropy"] == 1.0
    assert out["ledger_floor"] == [
        20,
        28,
    ]  # P = 3: chunks of 16, 12, 12 bits -> 8 + 6 + 6 + 8 qubits
    assert out["ring_state"] == 2
    assert out["train_protected"] == "fec" and out["learners"] and out["fec_wrong"] == 0.0


def test_the_blocker_really_blocks():
    out = _run(
        "import json\ntry:\n    import qiskit\n    r = 'imported'\nexcept ImportError as e:\n"
        "    r = str(e)\nprint(json.dumps({'r': r}))"
    )
    assert out["r"] == "blocked for this test: qiskit"
