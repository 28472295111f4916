#!/usr/bin/env python3
"""PyTorch eager (Debian's python3-torch), the peer of encoder_forward_bench.cpp: the
transformers BertModel forward pass (eval mode) written as eager code is: LayerNorm(word +
position + token type 0), then 12 post-LayerNorm layers of self-attention (scaled dot product,
softmax) and an erf-GELU feed-forward network, in float32, on the weights of the folder
encoder_forward_bench --make wrote (its float32 model.safetensors, memory-mapped) and the ids it
used; best of --repeats after a warm-up. Prints one JSON line with tokens/s, the peak resident
memory and the largest difference from embpriv's hidden states.
"""
import argparse
import json
import math
import os
import resource
import struct
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F


def read_safetensors_f32(path):
    """The float32 tensors of a safetensors file, memory-mapped (names without a bert. prefix)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    # Read-only maps, as embpriv reads the file: the forward pass never writes a weight.
    warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", f"{name}: {e['dtype']} (the bench writes float32)"
        b, f_ = e["data_offsets"]
        a = np.frombuffer(data[b:f_], dtype="<f4").reshape(e["shape"])
        out[name.removeprefix("bert.")] = torch.from_numpy(a)
    return out


def forward(c, w, ids):
    eps = c.get("layer_norm_eps", 1e-12)
    heads = c["num_attention_heads"]
    B, T = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T] \
        + w["embeddings.token_type_embeddings.weight"][0]
    x = F.layer_norm(x, (x.shape[-1],), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    d = x.shape[-1]
    dh = d // heads
    for i in range(c["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda t, name: F.linear(t, w[p + name + ".weight"], w[p + name + ".bias"])
        split = lambda t: t.view(B, T, heads, dh).transpose(1, 2)
        q, k, v = split(lin(x, "attention.self.query")), split(lin(x, "attention.self.key")), \
            split(lin(x, "attention.self.value"))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)
        context = torch.matmul(scores.softmax(-1), v).transpose(1, 2).reshape(B, T, d)
        x = F.layer_norm(lin(context, "attention.output.dense") + x, (d,), w[p + "attention.output.LayerNorm.weight"],
                         w[p + "attention.output.LayerNorm.bias"], eps)
        h = F.gelu(lin(x, "intermediate.dense"))
        x = F.layer_norm(lin(h, "output.dense") + x, (d,), w[p + "output.LayerNorm.weight"],
                         w[p + "output.LayerNorm.bias"], eps)
    return x


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--dump", required=True)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    c = json.load(open(os.path.join(args.model, "config.json")))
    w = read_safetensors_f32(os.path.join(args.model, "model.safetensors"))
    ids = torch.from_numpy(np.fromfile(f"{args.dump}/encoder_ids.i64", dtype="<i8")).reshape(args.batch, args.length)
    theirs = torch.from_numpy(np.fromfile(f"{args.dump}/encoder_hidden.f32", dtype="<f4"))
    with torch.no_grad():
        hidden = forward(c, w, ids)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            hidden = forward(c, w, ids)
            times.append(time.perf_counter() - start)
    n = ids.numel()
    print(json.dumps({"name": "bert_base_random", "impl": "pytorch", "batch": args.batch, "length": args.length,
                      "threads": args.threads, "seconds": min(times), "tokens_per_s": n / min(times),
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                      "max_abs_hidden_difference": float((hidden.reshape(-1) - theirs).abs().max())}), flush=True)


if __name__ == "__main__":
    main()
