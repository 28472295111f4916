#!/usr/bin/env python3
"""PyTorch eager (python3-torch from Debian), the peer of lm_forward_bench.cpp: the
llama2.c forward pass from input embeddings (run.c's math: RMSNorm, interleaved-pair rotary
embeddings, grouped-query causal attention, SwiGLU, shared classifier), batched as eager PyTorch
code would be written, on the ids and weights embpriv used, timed the same way (best of
--repeats after a warm-up). Prints one JSON line with the largest difference from embpriv's
logits (read from --dump).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "models"))
import llama2c_reference  # noqa: E402  (the checkpoint reader of the model tests)
from lm_peer_timing import time_against_dump  # noqa: E402


def load(path):
    """The checkpoint as the independent reference reads it (float64), in float32 for torch."""
    cfg, w = llama2c_reference.load(path)
    tensors = {name: torch.from_numpy(values.astype(np.float32)) for name, values in w.items()}
    return {key: int(cfg[key]) for key in ("dim", "layers", "heads", "kv_heads", "head")}, tensors


def rms_norm(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * weight


def rope(x, heads, head):
    b, t, _ = x.shape
    freq = 10000.0 ** (-torch.arange(0, head, 2, dtype=torch.float32, device=x.device) / head)
    angle = torch.arange(t, dtype=torch.float32, device=x.device)[:, None] * freq
    cos, sin = angle.cos()[:, None, :], angle.sin()[:, None, :]
    pairs = x.reshape(b, t, heads, head // 2, 2)
    even, odd = pairs[..., 0], pairs[..., 1]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], -1).reshape(b, t, heads * head)


def forward(cfg, w, x):
    b, t, _ = x.shape
    heads, kv_heads, head = cfg["heads"], cfg["kv_heads"], cfg["head"]
    causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
    for l in range(cfg["layers"]):
        xb = rms_norm(x, w["rms_att"][l])
        q = rope(xb @ w["wq"][l].T, heads, head).reshape(b, t, heads, head).transpose(1, 2)
        k = rope(xb @ w["wk"][l].T, kv_heads, head).reshape(b, t, kv_heads, head).transpose(1, 2)
        v = (xb @ w["wv"][l].T).reshape(b, t, kv_heads, head).transpose(1, 2)
        k, v = k.repeat_interleave(heads // kv_heads, 1), v.repeat_interleave(heads // kv_heads, 1)
        scores = (q @ k.transpose(-2, -1) / head ** 0.5).masked_fill(causal, float("-inf"))
        x = x + (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, cfg["dim"]) @ w["wo"][l].T
        xf = rms_norm(x, w["rms_ffn"][l])
        x = x + (torch.nn.functional.silu(xf @ w["w1"][l].T) * (xf @ w["w3"][l].T)) @ w["w2"][l].T
    return rms_norm(x, w["rms_final"]) @ w["cls"].T


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--dump", required=True, help="folder lm_forward_bench wrote its ids and logits to")
    parser.add_argument("--length", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where the weights and the forward pass live (lm_forward_bench --device)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg, w = load(args.model)
    w = {name: value.to(args.device) for name, value in w.items()}
    record = time_against_dump("stories260k", lambda ids: w["emb"][ids], lambda x: forward(cfg, w, x), args.dump,
                               args.length, args.repeats, args.threads, args.device)
    print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
