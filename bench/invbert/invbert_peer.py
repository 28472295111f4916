#!/usr/bin/env python3
"""PyTorch eager (python3-torch from Debian), the peer of invbert_bench.cpp: InvBert's
network (attacks/invbert.h) with the same sizes, batch and optimiser. The perturbed stories260K
rows of sentences of 32 tokens, standardised by one noisy draw, go through Linear(64, 128) plus
learned positions, nn.TransformerEncoder (2 post-norm ReLU layers, 4 heads, feed-forward 256, no
dropout), and a vocabulary head Linear(128, 512) plus the tied decoder Linear(128, 64) scored
against the unit-norm table rows; Adam (1e-3) on cross-entropy, 32 sentences a step, fresh
N(0, 0.5^2) noise every epoch. Prints one JSON line.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_timing import best_seconds  # noqa: E402


class InvBert(nn.Module):
    def __init__(self, table):
        super().__init__()
        v, d = table.shape
        self.input = nn.Linear(d, 128)
        self.positions = nn.Parameter(torch.randn(128, 128) * 0.02)
        layer = nn.TransformerEncoderLayer(128, 4, dim_feedforward=256, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.prior = nn.Linear(128, v)
        self.tied = nn.Linear(128, d)
        self.register_buffer("rows", F.normalize(table, dim=1))

    def forward(self, x, padding):  # x [B, L, d], padding [B, L]
        h = self.input(x) + self.positions[: x.shape[1]].unsqueeze(0)
        h = self.encoder(h.transpose(0, 1), src_key_padding_mask=padding).transpose(0, 1)
        return self.prior(h) + self.tied(h) @ self.rows.t()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    table = torch.from_numpy(np.fromfile(f"{args.dump}/invbert_table.f32", dtype="<f4").reshape(512, 64))
    ids = torch.from_numpy(np.fromfile(f"{args.dump}/invbert_ids.i64", dtype="<i8"))
    sentences = args.tokens // 32
    ids = ids[: sentences * 32].reshape(sentences, 32)
    clean = table[ids]  # [S, 32, 64]
    torch.manual_seed(2)
    result = {}

    def train():
        model = InvBert(table)
        first = (clean + 0.5 * torch.randn(clean.shape)).reshape(-1, 64)
        mean, scale = first.mean(0), first.std(0).clamp_min(1e-6)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        padding = torch.zeros(32, 32, dtype=torch.bool)
        for _ in range(args.epochs):
            x = (clean + 0.5 * torch.randn(clean.shape) - mean) / scale
            total = 0.0
            for rows in torch.randperm(sentences).split(32):
                optimizer.zero_grad()
                logits = model(x[rows], padding[: len(rows)])
                loss = F.cross_entropy(logits.reshape(-1, 512), ids[rows].reshape(-1))
                loss.backward()
                optimizer.step()
                total += loss.item() * len(rows)
            result["loss"] = total / sentences

    seconds = best_seconds(args.repeats, train)
    print(json.dumps({"name": "invbert", "impl": "pytorch", "tokens": sentences * 32, "epochs": args.epochs,
                      "threads": args.threads, "seconds": seconds,
                      "tokens_per_s": sentences * 32 * args.epochs / seconds, "final_loss": result["loss"]}), flush=True)


if __name__ == "__main__":
    main()
