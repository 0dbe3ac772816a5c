"""Offline experiment (2026-12-06): refit expert_italia2f on the games of two runs with the value term.

    python docs/reports/value_refit/refit.py VALUE_WEIGHT EPOCHS LEARNING_RATE OUT_PREFIX

It reads the buffers of the runs ``expert_italia2i`` (5 iterations) and ``expert_italia2j`` (8)
from ``/work/runs/expert_italia2{i,j}-*/data`` (about 900 MB each, not in the repository;
their configs reproduce them) and fits only their labelled decisions, seeded (torch 0, numpy 0):

    loss = listwise cross-entropy (the training command's)
           + 0.2 x the played options' squared error against the final margin
           + VALUE_WEIGHT x sum_k p_k (score_k - t_k)^2   (p: softmax(t / 0.1), the listwise target)

The last term is the value term that ``value_weight`` adds to ``concordia train expert``.
Every epoch's model is saved as ``OUT_PREFIX_e<epoch>.npz``; the held-out listwise loss, value
error and agreement are printed (every tenth game of each iteration held out).
"""

from __future__ import annotations

import glob
import sys
import time

import numpy as np
import torch

from concordia_env.agents.learned_model import FEATURE_COUNTS, AfterstateModel
from concordia_env.training.afterstate_net import AfterstateNet
from concordia_env.training.expert_iteration import Decisions

START = "docs/reports/expert_italia2f/model.npz"
RUNS = ("/work/runs/expert_italia2i-*/data/iter_*.npz", "/work/runs/expert_italia2j-*/data/iter_*.npz")
TAU, OUTCOME_WEIGHT, BATCH_ROWS = 0.1, 0.2, 512


def load_buffers() -> dict[str, np.ndarray]:
    """Every iteration's rows, their game ids made unique across files."""
    parts = []
    for i, path in enumerate(f for pattern in RUNS for f in sorted(glob.glob(pattern))):
        part = dict(np.load(path))
        part["game"] = part["game"].astype(np.int64) + 1_000_000 * i
        parts.append(part)
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def main(value_weight: float, epochs: int, learning_rate: float, out: str) -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    data = load_buffers()
    decisions = Decisions(data)
    held = (data["game"][decisions.first] % 1_000_000) % 10 == 0
    labelled = data["weight"][decisions.first] > 0
    train, held_out = np.flatnonzero(~held & labelled), np.flatnonzero(held & labelled)
    print(f"{len(data['target'])} rows, {len(train)} training decisions, {len(held_out)} held out", flush=True)
    start = AfterstateModel.load(START)
    net = AfterstateNet([128, 128], FEATURE_COUNTS[2])
    net.load_model(start)
    optimizer = torch.optim.AdamW(net.parameters(), lr=learning_rate, weight_decay=1e-4)
    x = torch.as_tensor(data["features"])

    def terms(batch: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, np.ndarray, np.ndarray]:
        """Listwise, value and outcome sums over the decisions ``batch``; the scores and their rows."""
        rows, group, slot = decisions.rows(batch)
        pred = net(x[torch.as_tensor(rows)].float())
        target = torch.as_tensor(np.nan_to_num(data["target"][rows]))
        weight = torch.as_tensor(data["weight"][decisions.first[batch]])[torch.as_tensor(group)]
        size = (len(batch), int(slot.max()) + 1)
        g, k = torch.as_tensor(group), torch.as_tensor(slot)
        log_q = torch.log_softmax(torch.full(size, -torch.inf).index_put((g, k), pred / TAU), dim=1)[g, k]
        p = torch.softmax(torch.full(size, -torch.inf).index_put((g, k), target / TAU), dim=1)[g, k]
        listwise = -(p * log_q * weight).sum()
        value = (p * (pred - target) ** 2 * weight).sum()
        played = torch.as_tensor(data["chosen"][rows])
        outcome = ((pred - torch.as_tensor(data["margin"][rows])) ** 2 * played).sum()
        return listwise, value, outcome, pred.detach().numpy(), rows

    def held_out_line() -> str:
        with torch.no_grad():
            sums, scores, rows = np.zeros(3), [], []
            for b in range(0, len(held_out), 2000):
                *parts, score, row = terms(held_out[b : b + 2000])
                sums += [float(t) for t in parts]
                scores.append(score)
                rows.append(row)
        agreement = decisions.agreement(held_out, np.concatenate(scores), data["target"][np.concatenate(rows)])
        listwise, value, outcome = sums / len(held_out)
        return f"listwise {listwise:.4f} value {value:.5f} outcome {outcome:.4f} agreement {agreement:.3f}"

    print("epoch 0", held_out_line(), flush=True)
    per_batch = BATCH_ROWS // max(1, int(decisions.lengths.mean()))
    for epoch in range(1, epochs + 1):
        began = time.time()
        net.train()
        order = rng.permutation(train)
        for b in range(0, len(order), per_batch):
            listwise, value, outcome, _, _ = terms(order[b : b + per_batch])
            loss = (listwise + value_weight * value + OUTCOME_WEIGHT * outcome) / per_batch
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        net.eval()
        print(f"epoch {epoch}", held_out_line(), f"{time.time() - began:.0f}s", flush=True)
        note = f"offline refit of expert_italia2f, value_weight={value_weight}, epoch {epoch}"
        net.export({**start.metadata, "note": note}).save(f"{out}_e{epoch}.npz")


if __name__ == "__main__":
    main(float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
