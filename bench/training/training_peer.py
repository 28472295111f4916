#!/usr/bin/env python3
"""PyTorch eager (python3-torch from Debian), the peer of training_bench.cpp: the same two
training paths with the same model, batch, optimiser and sizes.

learned_inversion: an MLP (Linear-GELU-Linear-GELU-Linear, hidden 256) reads windows of 2 + 1 + 2
perturbed stories260K rows (zero-padded at each sentence's ends), standardised by the mean and
standard deviation of one noisy draw, and is trained with Adam (2e-3) on cross-entropy over the 512
tokens in batches of 512, fresh N(0, 0.5^2) noise every epoch.

privateai_client: the classifier of models/text_classifier.h (frozen GloVe rows, learned positions,
one post-norm nn.TransformerEncoderLayer with 4 heads and feed-forward 128, mean pooling over the
unit's tokens, one logit) trained with Adam (1e-3) on binary cross-entropy in batches of 32. It
loads embpriv's initial parameters and checks that it computes embpriv's probabilities before
timing its own training.

Prints one JSON line per case.
"""
import argparse
import copy
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_timing import best_seconds  # noqa: E402


def token_windows(rows, sentence, window):
    """[N, (2 window + 1) d] windows of rows [N, d] within sentences of `sentence` rows."""
    d = rows.shape[1]
    padded = F.pad(rows.reshape(-1, sentence, d), (0, 0, window, window))  # [S, sentence + 2w, d]
    return padded.unfold(1, 2 * window + 1, 1).permute(0, 1, 3, 2).reshape(-1, (2 * window + 1) * d)


def train_epochs(parameters, learning_rate, epochs, n, batch, batch_loss, epoch_start=lambda: None):
    """Adam on mini-batches of a fresh random order each epoch, as embpriv's trainers do
    (models/minibatches.h); batch_loss(rows) -> the loss of those rows. The mean loss of the
    last epoch."""
    optimizer = torch.optim.Adam(parameters, lr=learning_rate)
    total = 0.0
    for _ in range(epochs):
        epoch_start()
        total = 0.0
        for rows in torch.randperm(n).split(batch):
            optimizer.zero_grad()
            loss = batch_loss(rows)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
    return total / n


def learned_inversion(args):
    table = torch.from_numpy(np.fromfile(f"{args.dump}/inversion_table.f32", dtype="<f4").reshape(512, 64))
    ids = torch.from_numpy(np.fromfile(f"{args.dump}/inversion_ids.i64", dtype="<i8"))
    torch.manual_seed(2)
    window, hidden, batch = 2, 256, 512
    clean = table[ids]
    result = {}

    def train():
        model = nn.Sequential(nn.Linear((2 * window + 1) * 64, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                              nn.Linear(hidden, 512))
        first = token_windows(clean + 0.5 * torch.randn(clean.shape), 32, window)
        mean, scale = first.mean(0), first.std(0).clamp_min(1e-6)
        features = {}

        def fresh_noise():  # the attacker draws new noisy copies of the public text every epoch
            features["x"] = (token_windows(clean + 0.5 * torch.randn(clean.shape), 32, window) - mean) / scale

        result["loss"] = train_epochs(model.parameters(), 2e-3, args.epochs, args.tokens, batch,
                                      lambda rows: F.cross_entropy(model(features["x"][rows]), ids[rows]), fresh_noise)

    seconds = best_seconds(args.repeats, train)
    print(json.dumps({"name": "learned_inversion", "impl": "pytorch", "tokens": args.tokens, "epochs": args.epochs,
                      "threads": args.threads, "seconds": seconds, "tokens_per_s": args.tokens * args.epochs / seconds,
                      "final_loss": result["loss"]}), flush=True)


class Classifier(nn.Module):
    def __init__(self, glove, heads=4, feedforward=128, max_tokens=32):
        super().__init__()
        d = glove.shape[1]
        self.tokens = nn.Embedding(glove.shape[0], d, padding_idx=0)
        self.tokens.weight.data.copy_(glove)
        self.tokens.weight.requires_grad_(False)
        self.positions = nn.Embedding(max_tokens, d)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=feedforward, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(d, 1)

    def forward(self, all_ids):
        used = int(all_ids.ne(0).any(0).nonzero().max()) + 1
        ids = all_ids[:, :used]
        padding = ids.eq(0)
        x = self.tokens(ids) + self.positions.weight[:used].unsqueeze(0)
        h = self.encoder(x.transpose(0, 1), src_key_padding_mask=padding).transpose(0, 1)
        keep = (~padding).unsqueeze(2).to(h.dtype)
        return self.head((h * keep).sum(1) / keep.sum(1).clamp_min(1.0)).squeeze(1)


def privateai_client(args):
    glove = torch.from_numpy(np.fromfile(f"{args.dump}/client_glove.f32", dtype="<f4").reshape(-1, 100))
    ids = torch.from_numpy(np.fromfile(f"{args.dump}/client_ids.i64", dtype="<i8").reshape(args.units, 32))
    targets = torch.from_numpy(np.fromfile(f"{args.dump}/client_targets.f32", dtype="<f4"))
    initial = torch.from_numpy(np.fromfile(f"{args.dump}/client_initial.f32", dtype="<f4"))
    theirs = torch.from_numpy(np.fromfile(f"{args.dump}/client_initial_probabilities.f64", dtype="<f8"))
    model = Classifier(glove)
    shared = [p for p in model.parameters() if p.requires_grad]
    if sum(p.numel() for p in shared) != initial.numel():
        raise SystemExit(f"the classifier has {sum(p.numel() for p in shared)} shared parameters, embpriv's {initial.numel()}")
    with torch.no_grad():
        torch.nn.utils.vector_to_parameters(initial, shared)
        model.eval()
        difference = float((torch.sigmoid(model(ids)).double() - theirs).abs().max())
    result = {}

    def train():
        client = copy.deepcopy(model)
        client.train()
        result["loss"] = train_epochs([p for p in client.parameters() if p.requires_grad], 1e-3, args.epochs, args.units, 32,
                                      lambda rows: F.binary_cross_entropy_with_logits(client(ids[rows]), targets[rows]))

    seconds = best_seconds(args.repeats, train)
    print(json.dumps({"name": "privateai_client", "impl": "pytorch", "units": args.units, "epochs": args.epochs,
                      "threads": args.threads, "seconds": seconds, "units_per_s": args.units * args.epochs / seconds,
                      "parameters": initial.numel(), "final_loss": result["loss"],
                      "max_abs_probability_difference": difference}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    parser.add_argument("--tokens", type=int, default=32768)
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    learned_inversion(args)
    privateai_client(args)


if __name__ == "__main__":
    main()
