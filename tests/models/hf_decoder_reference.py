#!/usr/bin/env python3
"""An independent numpy implementation of Hugging Face Llama-family decoders (transformers'
modeling_llama / modeling_mistral / modeling_qwen2 / modeling_qwen3 semantics), in float64, used
by tests/models/hf_decoder_model_test.cpp to check embpriv's LibTorch forward pass.

  hf_decoder_reference.py make VARIANT DIR SEED
      writes a tiny random model DIR/{config.json, model.safetensors or shards + index} (numpy
      writes the safetensors bytes itself). VARIANT: llama_gqa_f16, llama3_bf16_sharded,
      qwen2_bias, qwen3_qk_norm_bf16, mistral_f32.
  hf_decoder_reference.py logits DIR OUT TOKEN [TOKEN ...]
      writes the logits of every position as float64, row-major [T, vocab], to OUT.

What it follows: RMSNorm x / sqrt(mean(x^2) + rms_norm_eps) * w; rotary with rotate_half
(the two halves of each head), inv_freq = theta^(-2j/d), the llama3 rule of
_compute_llama3_parameters; repeat_kv; q/k/v biases (Qwen2); q_norm and k_norm per head before
the rotary (Qwen3); SwiGLU; lm_head or the tied embedding. Positions are walked one at a time
with a key/value cache, as generation does.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_folder_io import read_folder, read_safetensors, write_config, write_safetensors, write_weights  # noqa: E402,F401


VARIANTS = {
    # GQA (4 query heads, 2 key/value heads), an untied head, float16 weights.
    "llama_gqa_f16": dict(config=dict(model_type="llama", num_attention_heads=4, num_key_value_heads=2,
                                      tie_word_embeddings=False, rms_norm_eps=1e-5, rope_theta=10000.0),
                          dtype="F16"),
    # Llama 3's rope scaling, tied, bfloat16, in two shards. rope_theta 100 and an original
    # context of 64 put the wavelengths (6.3, 19.9, 62.8, 198.7) in all three regimes of the rule
    # (kept below 64/4, blended between, divided by factor above 64/1).
    "llama3_bf16_sharded": dict(config=dict(model_type="llama", num_attention_heads=4, num_key_value_heads=1,
                                            tie_word_embeddings=True, rms_norm_eps=1e-5, rope_theta=100.0,
                                            rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0,
                                                              high_freq_factor=4.0,
                                                              original_max_position_embeddings=64)),
                                dtype="BF16", shards=2),
    # Qwen2: q/k/v biases, no o_proj bias, float32.
    "qwen2_bias": dict(config=dict(model_type="qwen2", num_attention_heads=4, num_key_value_heads=2,
                                   tie_word_embeddings=True, rms_norm_eps=1e-6, rope_theta=1000000.0),
                       dtype="F32"),
    # Qwen3: RMSNorm on q and k per head, head_dim != hidden / heads, bfloat16, untied.
    "qwen3_qk_norm_bf16": dict(config=dict(model_type="qwen3", num_attention_heads=4, num_key_value_heads=2,
                                           head_dim=12, tie_word_embeddings=False, rms_norm_eps=1e-6,
                                           rope_theta=1000000.0),
                               dtype="BF16"),
    # Mistral: a sliding window longer than the inputs, float32.
    "mistral_f32": dict(config=dict(model_type="mistral", num_attention_heads=4, num_key_value_heads=2,
                                    sliding_window=64, tie_word_embeddings=False, rms_norm_eps=1e-5,
                                    rope_theta=10000.0),
                        dtype="F32"),
}


def random_tensors(c, r, norm):
    """Every tensor of a Llama-family decoder of config c, by transformers' names: matrices and
    biases from r(*shape), RMSNorm weights from norm(n), drawn in one fixed order."""
    hd = c.get("head_dim", c["hidden_size"] // c["num_attention_heads"])
    h, inter = c["hidden_size"], c["intermediate_size"]
    q_dim, kv_dim = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    t = {"model.embed_tokens.weight": r(c["vocab_size"], h), "model.norm.weight": norm(h)}
    if not c["tie_word_embeddings"]:
        t["lm_head.weight"] = r(c["vocab_size"], h)
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        t[p + "input_layernorm.weight"] = norm(h)
        t[p + "post_attention_layernorm.weight"] = norm(h)
        t[p + "self_attn.q_proj.weight"] = r(q_dim, h)
        t[p + "self_attn.k_proj.weight"] = r(kv_dim, h)
        t[p + "self_attn.v_proj.weight"] = r(kv_dim, h)
        t[p + "self_attn.o_proj.weight"] = r(h, q_dim)
        if c["model_type"] == "qwen2":
            t[p + "self_attn.q_proj.bias"] = r(q_dim)
            t[p + "self_attn.k_proj.bias"] = r(kv_dim)
            t[p + "self_attn.v_proj.bias"] = r(kv_dim)
        if c["model_type"] == "qwen3":
            t[p + "self_attn.q_norm.weight"] = norm(hd)
            t[p + "self_attn.k_norm.weight"] = norm(hd)
        t[p + "mlp.gate_proj.weight"] = r(inter, h)
        t[p + "mlp.up_proj.weight"] = r(inter, h)
        t[p + "mlp.down_proj.weight"] = r(h, inter)
    return t


def make(variant, folder, seed):
    spec = VARIANTS[variant]
    c = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, vocab_size=40,
             max_position_embeddings=64, hidden_act="silu", **spec["config"])
    rng = np.random.default_rng(seed)
    r = lambda *shape: rng.normal(0, 0.3, shape)
    t = random_tensors(c, r, lambda n: 1 + r(n))
    write_config(folder, c)
    write_weights(folder, t, spec["dtype"], spec.get("shards", 1))


def load(folder):
    return read_folder(folder)


def inverse_frequencies(c, hd):
    inv = 1.0 / (c.get("rope_theta", 10000.0) ** (np.arange(0, hd, 2) / hd))
    rs = c.get("rope_scaling")
    if not rs:
        return inv
    # transformers, _compute_llama3_parameters: per frequency, by its wavelength.
    old, lo, hi, factor = (rs["original_max_position_embeddings"], rs["low_freq_factor"],
                           rs["high_freq_factor"], rs["factor"])
    out = []
    for f in inv:
        wavelen = 2 * math.pi / f
        if wavelen < old / hi:
            out.append(f)
        elif wavelen > old / lo:
            out.append(f / factor)
        else:
            smooth = (old / wavelen - lo) / (hi - lo)
            out.append((1 - smooth) * f / factor + smooth * f)
    return np.array(out)


def rms(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rotate(x, pos, inv):
    # x [heads, hd]: x * cos + rotate_half(x) * sin, rotate_half(x) = (-x2, x1).
    half = x.shape[-1] // 2
    ang = np.concatenate([pos * inv, pos * inv])
    rot = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.cos(ang) + rot * np.sin(ang)


def logits(folder, tokens):
    c, w = load(folder)
    H, KV = c["num_attention_heads"], c.get("num_key_value_heads", c["num_attention_heads"])
    hd = c.get("head_dim", c["hidden_size"] // H)
    eps, inv = c.get("rms_norm_eps", 1e-6), inverse_frequencies(c, hd)
    L = c["num_hidden_layers"]
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    get = lambda name: w.get(name, 0.0)
    cache = [([], []) for _ in range(L)]
    out = []
    for pos, tok in enumerate(tokens):
        x = w["model.embed_tokens.weight"][tok].copy()
        for l in range(L):
            p = f"model.layers.{l}."
            xb = rms(x, w[p + "input_layernorm.weight"], eps)
            q = (w[p + "self_attn.q_proj.weight"] @ xb + get(p + "self_attn.q_proj.bias")).reshape(H, hd)
            k = (w[p + "self_attn.k_proj.weight"] @ xb + get(p + "self_attn.k_proj.bias")).reshape(KV, hd)
            v = (w[p + "self_attn.v_proj.weight"] @ xb + get(p + "self_attn.v_proj.bias")).reshape(KV, hd)
            if p + "self_attn.q_norm.weight" in w:  # Qwen3
                q = rms(q, w[p + "self_attn.q_norm.weight"], eps)
                k = rms(k, w[p + "self_attn.k_norm.weight"], eps)
            q, k = rotate(q, pos, inv), rotate(k, pos, inv)
            cache[l][0].append(k)
            cache[l][1].append(v)
            keys, values = np.stack(cache[l][0]), np.stack(cache[l][1])  # [t, KV, hd]
            att = np.zeros((H, hd))
            for h in range(H):
                g = h // (H // KV)
                s = keys[:, g, :] @ q[h] / math.sqrt(hd)
                s = np.exp(s - s.max())
                att[h] = (s / s.sum()) @ values[:, g, :]
            x = x + w[p + "self_attn.o_proj.weight"] @ att.reshape(-1) + get(p + "self_attn.o_proj.bias")
            xf = rms(x, w[p + "post_attention_layernorm.weight"], eps)
            gate = w[p + "mlp.gate_proj.weight"] @ xf
            x = x + w[p + "mlp.down_proj.weight"] @ (gate / (1 + np.exp(-gate)) * (w[p + "mlp.up_proj.weight"] @ xf))
        out.append(head @ rms(x, w["model.norm.weight"], eps))
    return np.array(out)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        logits(sys.argv[2], [int(t) for t in sys.argv[4:]]).astype("<f8").tofile(sys.argv[3])
