#!/usr/bin/env python3
"""The Hugging Face side of the language-model bench (bench/README.md, "LM forward").

  hf_forward_peer.py make FOLDER [--seed S]
      writes a random Llama-shaped model of ~100M parameters in bfloat16 (config.json +
      model.safetensors, through the writer of tests/models/hf_decoder_reference.py): vocabulary
      32,000, hidden 768, 12 layers of 12 query and 4 key/value heads, SwiGLU 2,048, tied
      embeddings, Llama 3's rope_theta 500,000. Weights N(0, 0.02), norms 1.
  hf_forward_peer.py time --model FOLDER --dump DIR [--length T] [--repeats R] [--threads N]
      PyTorch eager (Debian's python3-torch), the peer of lm_forward_bench.cpp: the
      transformers Llama forward pass (RMSNorm, rotate_half rotary, grouped-query causal
      attention, SwiGLU, tied head), batched as eager code is written, in float32 from the bf16
      weights (--compute bfloat16: in bf16, with transformers' casts: RMSNorm and softmax in
      float32 inside, cos and sin rounded to bf16, logits widened at the end), on the ids
      lm_forward_bench used; best of --repeats after a warm-up. Prints one
      JSON line with tokens/s, the peak resident memory and the largest difference from
      embpriv's logits.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "models"))
import hf_decoder_reference as ref  # noqa: E402  (the safetensors reader and writer of the model tests)
from lm_peer_timing import time_against_dump  # noqa: E402

CONFIG = dict(model_type="llama", vocab_size=32000, hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
              num_attention_heads=12, num_key_value_heads=4, max_position_embeddings=2048, hidden_act="silu",
              rms_norm_eps=1e-5, rope_theta=500000.0, tie_word_embeddings=True, bos_token_id=1)


def make(folder, seed):
    rng = np.random.default_rng(seed)
    r = lambda *shape: rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    t = ref.random_tensors(CONFIG, r, lambda n: np.ones(n, np.float32))
    ref.write_config(folder, CONFIG)
    ref.write_safetensors(os.path.join(folder, "model.safetensors"), t, "BF16")
    print(json.dumps({"folder": folder, "parameters": int(sum(a.size for a in t.values()))}))


def load(folder):
    c = json.load(open(os.path.join(folder, "config.json")))
    raw = ref.read_safetensors(os.path.join(folder, "model.safetensors"))  # float64
    w = {name: torch.from_numpy(a.astype(np.float32)) for name, a in raw.items()}
    del raw
    return c, w


def rms_norm(x, weight, eps):
    """LlamaRMSNorm: in float32, rounded to x's dtype before the weight multiplies it."""
    h = x.float()
    return weight * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def rotary(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin


def forward(c, w, x):
    b, t, h = x.shape
    heads, kv_heads = c["num_attention_heads"], c["num_key_value_heads"]
    hd, eps = h // heads, c["rms_norm_eps"]
    inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
    angle = torch.arange(t, dtype=torch.float32)[:, None] * inv
    angle = torch.cat([angle, angle], -1)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    causal = torch.ones(t, t, dtype=torch.bool).triu(1)
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        xb = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (xb @ w[p + "self_attn.q_proj.weight"].T).reshape(b, t, heads, hd).transpose(1, 2)
        k = (xb @ w[p + "self_attn.k_proj.weight"].T).reshape(b, t, kv_heads, hd).transpose(1, 2)
        v = (xb @ w[p + "self_attn.v_proj.weight"].T).reshape(b, t, kv_heads, hd).transpose(1, 2)
        q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        k, v = k.repeat_interleave(heads // kv_heads, 1), v.repeat_interleave(heads // kv_heads, 1)
        scores = (q @ k.transpose(-2, -1) / hd ** 0.5).masked_fill(causal, float("-inf"))
        x = x + (torch.softmax(scores, -1, dtype=torch.float32).to(x.dtype) @ v).transpose(1, 2).reshape(b, t, h) @ w[p + "self_attn.o_proj.weight"].T
        xf = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = torch.nn.functional.silu(xf @ w[p + "mlp.gate_proj.weight"].T)
        x = x + (gate * (xf @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    return (rms_norm(x, w["model.norm.weight"], eps) @ w["model.embed_tokens.weight"].T).float()


def time_forward(args):
    torch.set_num_threads(args.threads)
    c, w = load(args.model)
    if args.compute == "bfloat16":  # transformers' torch_dtype=torch.bfloat16 (exact for a BF16 file)
        w = {name: t.to(torch.bfloat16) for name, t in w.items()}
    record = time_against_dump(args.name, lambda ids: w["model.embed_tokens.weight"][ids],
                               lambda x: forward(c, w, x), args.dump, args.length, args.repeats, args.threads)
    record["compute"] = args.compute
    print(json.dumps(record), flush=True)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("folder")
    m.add_argument("--seed", type=int, default=1)
    t = sub.add_parser("time")
    t.add_argument("--model", required=True)
    t.add_argument("--dump", required=True, help="folder lm_forward_bench wrote its ids and logits to")
    t.add_argument("--name", default="random_llama_100m_bf16")
    t.add_argument("--length", type=int, default=256)
    t.add_argument("--repeats", type=int, default=3)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--compute", choices=("float32", "bfloat16"), default="float32",
                   help="the dtype of the weights and activations (lm_forward_bench --compute)")
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder, args.seed)
    else:
        time_forward(args)


if __name__ == "__main__":
    main()
