#!/usr/bin/env python3
"""An independent numpy implementation of the llama2.c forward pass (run.c's token-by-token
loop with a key/value cache, in float64), used by tests/models/llama2c_model_test.cpp to check
embpriv's batched LibTorch version.

Usage: llama2c_reference.py CHECKPOINT OUT TOKEN [TOKEN ...]
Writes the logits of every position as float64, row-major [T, vocab], to OUT.
"""
import sys

import numpy as np


def load(path):
    raw = open(path, "rb").read()
    dim, hidden, layers, heads, kv_heads, vocab, seq_len = np.frombuffer(raw[:28], dtype="<i4")
    shared = vocab > 0
    vocab = abs(vocab)
    w = np.frombuffer(raw[28:], dtype="<f4").astype(np.float64)
    head = dim // heads
    kv_dim = dim * kv_heads // heads
    shapes = [("emb", (vocab, dim)), ("rms_att", (layers, dim)), ("wq", (layers, dim, dim)),
              ("wk", (layers, kv_dim, dim)), ("wv", (layers, kv_dim, dim)), ("wo", (layers, dim, dim)),
              ("rms_ffn", (layers, dim)), ("w1", (layers, hidden, dim)), ("w2", (layers, dim, hidden)),
              ("w3", (layers, hidden, dim)), ("rms_final", (dim,)), ("freq", (seq_len * head,))]
    p, out = 0, {}
    for name, shape in shapes:
        n = int(np.prod(shape))
        out[name] = w[p:p + n].reshape(shape)
        p += n
    out["cls"] = out["emb"] if shared else w[p:p + vocab * dim].reshape(vocab, dim)
    cfg = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, head=head, kv_dim=kv_dim)
    return cfg, out


def rmsnorm(x, weight):
    return weight * (x / np.sqrt(np.mean(x * x) + 1e-5))


def rotate(vec, pos, head, limit):
    vec = vec.copy()
    for i in range(0, limit, 2):
        freq = 1.0 / 10000.0 ** ((i % head) / head)
        c, s = np.cos(pos * freq), np.sin(pos * freq)
        v0, v1 = vec[i], vec[i + 1]
        vec[i], vec[i + 1] = v0 * c - v1 * s, v0 * s + v1 * c
    return vec


def logits_for(cfg, w, tokens):
    L, head, kv_mul = cfg["layers"], cfg["head"], cfg["heads"] // cfg["kv_heads"]
    keys = [[] for _ in range(L)]
    values = [[] for _ in range(L)]
    result = []
    for pos, token in enumerate(tokens):
        x = w["emb"][token].copy()
        for l in range(L):
            xb = rmsnorm(x, w["rms_att"][l])
            q = rotate(w["wq"][l] @ xb, pos, head, cfg["dim"])
            k = rotate(w["wk"][l] @ xb, pos, head, cfg["kv_dim"])
            keys[l].append(k)
            values[l].append(w["wv"][l] @ xb)
            out = np.zeros(cfg["dim"])
            for h in range(cfg["heads"]):
                kv = (h // kv_mul) * head
                qh = q[h * head:(h + 1) * head]
                scores = np.array([qh @ kt[kv:kv + head] for kt in keys[l]]) / np.sqrt(head)
                att = np.exp(scores - scores.max())
                att /= att.sum()
                out[h * head:(h + 1) * head] = sum(a * vt[kv:kv + head] for a, vt in zip(att, values[l]))
            x = x + w["wo"][l] @ out
            xb = rmsnorm(x, w["rms_ffn"][l])
            h1 = w["w1"][l] @ xb
            x = x + w["w2"][l] @ ((h1 / (1.0 + np.exp(-h1))) * (w["w3"][l] @ xb))
        result.append(w["cls"] @ rmsnorm(x, w["rms_final"]))
    return np.array(result)


if __name__ == "__main__":
    cfg, weights = load(sys.argv[1])
    logits = logits_for(cfg, weights, [int(t) for t in sys.argv[3:]])
    logits.astype("<f8").tofile(sys.argv[2])
