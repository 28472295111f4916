#!/usr/bin/env python3
"""An independent numpy implementation of Hugging Face BERT-family encoders (transformers'
modeling_bert / modeling_roberta semantics, eval mode), in float64, used by
tests/models/encoder_reference_test.cpp to check embpriv's LibTorch forward pass.

  hf_encoder_reference.py make VARIANT DIR SEED
      writes a tiny random model DIR/{config.json, model.safetensors or shards + index,
      1_Pooling/config.json where the variant has one, modules.json where it normalises}.
      VARIANT: bert_classifier_f32,
      bert_model_f16, roberta_classifier_bf16_sharded, xlm_roberta_model_f32.
  hf_encoder_reference.py outputs DIR IN OUT
      IN is JSON {"ids": [[...]], "mask": [[...]], "types": [[...]] (optional)}; OUT gets JSON
      {"hidden": [B][T][h], "pooled": [B][h], "logits": [B][labels] or null}.

What it follows: embeddings = LayerNorm(word[ids] + position[pos] + token_type[types]) with
positions 0..T-1 (BERT) or, for RoBERTa, create_position_ids_from_input_ids (padding keeps
padding_idx = pad_token_id, other tokens count from padding_idx + 1); each layer
LayerNorm(x + Wo softmax(q k^T / sqrt(d) + mask) v) then LayerNorm(y + W2 gelu(W1 y)) with the
erf GELU; pooling as 1_Pooling/config.json says (mean without one), then divided by its L2 norm
where modules.json lists sentence_transformers' Normalize; BertForSequenceClassification
classifies tanh(pooler(h[CLS])), RobertaForSequenceClassification out_proj(tanh(dense(h[<s>]))).
Each layer is computed one head and one query position at a time.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_folder_io import read_folder as read_config_and_weights, write_config, write_weights  # noqa: E402

VARIANTS = {
    # BertForSequenceClassification: "bert." names, 3 labels, CLS pooling, float32.
    "bert_classifier_f32": dict(config=dict(model_type="bert", architectures=["BertForSequenceClassification"],
                                            id2label={"0": "neg", "1": "neu", "2": "pos"},
                                            label2id={"neg": 0, "neu": 1, "pos": 2}, pad_token_id=0,
                                            type_vocab_size=2, max_position_embeddings=64),
                                dtype="F32", pooling="cls", prefix="bert."),
    # BertModel: unprefixed names, TensorFlow-style LayerNorm gamma/beta, float16, max pooling.
    "bert_model_f16": dict(config=dict(model_type="bert", architectures=["BertModel"], pad_token_id=0,
                                       type_vocab_size=2, max_position_embeddings=64),
                           dtype="F16", pooling="max", prefix="", legacy_norm=True),
    # RobertaForSequenceClassification: "roberta." names, 2 labels (no id2label: the default),
    # padding_idx 1, bfloat16 in two shards, mean pooling (no 1_Pooling folder).
    "roberta_classifier_bf16_sharded": dict(config=dict(model_type="roberta",
                                                        architectures=["RobertaForSequenceClassification"],
                                                        pad_token_id=1, type_vocab_size=1,
                                                        max_position_embeddings=66),
                                            dtype="BF16", pooling=None, prefix="roberta.", shards=2),
    # XLM-RoBERTa as a sentence-transformers folder: unprefixed, float32, mean pooling file, and
    # modules.json with Transformer, Pooling, Normalize (as all-MiniLM-L6-v2 has them).
    "xlm_roberta_model_f32": dict(config=dict(model_type="xlm-roberta", architectures=["XLMRobertaModel"],
                                              pad_token_id=1, type_vocab_size=1, max_position_embeddings=66),
                                  dtype="F32", pooling="mean", prefix="", normalize=True),
}

SIZES = dict(vocab_size=50, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
             layer_norm_eps=1e-12, hidden_act="gelu")


def make(variant, folder, seed):
    v = VARIANTS[variant]
    c = dict(SIZES, **v["config"])
    rng = np.random.default_rng(seed)
    h, inter = c["hidden_size"], c["intermediate_size"]

    def r(*shape):  # matrices scaled by 1/sqrt(fan-in) so activations stay of order one
        scale = 1.0 / math.sqrt(shape[-1]) if len(shape) == 2 else 0.2
        return rng.normal(0.0, scale, size=shape)

    def norm(name):
        g, b = ("gamma", "beta") if v.get("legacy_norm") else ("weight", "bias")
        return {f"{name}.{g}": 1.0 + 0.2 * rng.normal(size=h), f"{name}.{b}": 0.2 * rng.normal(size=h)}

    p = v["prefix"]
    t = {p + "embeddings.word_embeddings.weight": rng.normal(0, 1, size=(c["vocab_size"], h)),
         p + "embeddings.position_embeddings.weight": rng.normal(0, 0.5, size=(c["max_position_embeddings"], h)),
         p + "embeddings.token_type_embeddings.weight": rng.normal(0, 0.5, size=(c["type_vocab_size"], h))}
    t.update(norm(p + "embeddings.LayerNorm"))
    for l in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{l}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            t[q + name + ".weight"], t[q + name + ".bias"] = r(h, h), r(h)
        t.update(norm(q + "attention.output.LayerNorm"))
        t[q + "intermediate.dense.weight"], t[q + "intermediate.dense.bias"] = r(inter, h), r(inter)
        t[q + "output.dense.weight"], t[q + "output.dense.bias"] = r(h, inter), r(h)
        t.update(norm(q + "output.LayerNorm"))
    labels = len(c.get("id2label", {"0": 0, "1": 1}))
    arch = c["architectures"][0]
    if c["model_type"] == "bert":
        t[p + "pooler.dense.weight"], t[p + "pooler.dense.bias"] = r(h, h), r(h)
    if arch == "BertForSequenceClassification":
        t["classifier.weight"], t["classifier.bias"] = r(labels, h), r(labels)
    if arch == "RobertaForSequenceClassification":
        t["classifier.dense.weight"], t["classifier.dense.bias"] = r(h, h), r(h)
        t["classifier.out_proj.weight"], t["classifier.out_proj.bias"] = r(labels, h), r(labels)
    write_config(folder, c)
    if v["pooling"]:
        os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
        modes = {f"pooling_mode_{m}": v["pooling"] == k for k, m in
                 (("cls", "cls_token"), ("mean", "mean_tokens"), ("max", "max_tokens"))}
        modes.update(pooling_mode_mean_sqrt_len_tokens=False, pooling_mode_weightedmean_tokens=False,
                     pooling_mode_lasttoken=False, word_embedding_dimension=h, include_prompt=True)
        with open(os.path.join(folder, "1_Pooling", "config.json"), "w") as f:
            json.dump(modes, f, indent=2)
    if v.get("normalize"):
        modules = [dict(idx=0, name="0", path="", type="sentence_transformers.models.Transformer"),
                   dict(idx=1, name="1", path="1_Pooling", type="sentence_transformers.models.Pooling"),
                   dict(idx=2, name="2", path="2_Normalize", type="sentence_transformers.models.Normalize")]
        os.makedirs(os.path.join(folder, "2_Normalize"), exist_ok=True)
        with open(os.path.join(folder, "modules.json"), "w") as f:
            json.dump(modules, f, indent=2)
    write_weights(folder, t, v["dtype"], v.get("shards", 1))


def read_folder(folder):
    """config, weights, the pooling mode and whether the pooled vectors are normalised."""
    c, t = read_config_and_weights(folder)
    pooling_dir, normalize = "1_Pooling", False
    modules_path = os.path.join(folder, "modules.json")
    if os.path.exists(modules_path):
        for m in json.load(open(modules_path)):
            kind = m["type"].rsplit(".", 1)[-1]
            if kind == "Pooling":
                pooling_dir = m["path"]
            normalize = normalize or kind == "Normalize"
    pooling = "mean"
    path = os.path.join(folder, pooling_dir, "config.json")
    if os.path.exists(path):
        p = json.load(open(path))
        pooling = [k for k, m in (("cls", "cls_token"), ("mean", "mean_tokens"), ("max", "max_tokens"))
                   if p[f"pooling_mode_{m}"]][0]
    return c, t, (pooling, normalize)


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


ERF = np.vectorize(math.erf)


def gelu(x):  # the exact GELU, 0.5 x (1 + erf(x / sqrt 2))
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def outputs(folder, ids, mask, types):
    c, t, (pooling, normalize) = read_folder(folder)
    prefix = "" if "embeddings.word_embeddings.weight" in t else ("bert." if c["model_type"] == "bert" else "roberta.")
    W = lambda name: t[prefix + name]  # noqa: E731

    def norm(name):
        g = W(name + ".weight") if prefix + name + ".weight" in t else W(name + ".gamma")
        b = W(name + ".bias") if prefix + name + ".bias" in t else W(name + ".beta")
        return g, b

    eps, heads = c["layer_norm_eps"], c["num_attention_heads"]
    ids, mask, types = np.array(ids), np.array(mask), np.array(types)
    B, T = ids.shape
    if c["model_type"] == "bert":
        pos = np.tile(np.arange(T), (B, 1))
    else:
        pad = c["pad_token_id"]
        real = (ids != pad).astype(np.int64)
        pos = np.cumsum(real, axis=1) * real + pad
    hidden = []
    for b in range(B):
        x = W("embeddings.word_embeddings.weight")[ids[b]] + W("embeddings.position_embeddings.weight")[pos[b]] \
            + W("embeddings.token_type_embeddings.weight")[types[b]]
        x = layer_norm(x, *norm("embeddings.LayerNorm"), eps)
        for l in range(c["num_hidden_layers"]):
            q = f"encoder.layer.{l}."
            lin = lambda name, y: y @ W(q + name + ".weight").T + W(q + name + ".bias")  # noqa: E731
            Q, K, V = lin("attention.self.query", x), lin("attention.self.key", x), lin("attention.self.value", x)
            d = Q.shape[1] // heads
            context = np.zeros_like(x)
            for head in range(heads):
                s = slice(head * d, (head + 1) * d)
                for i in range(T):
                    scores = np.array([Q[i, s] @ K[j, s] / math.sqrt(d) if mask[b, j] else -np.inf for j in range(T)])
                    weights = np.exp(scores - scores.max())
                    weights /= weights.sum()
                    context[i, s] = weights @ V[:, s]
            x = layer_norm(lin("attention.output.dense", context) + x, *norm(q + "attention.output.LayerNorm"), eps)
            inner = gelu(lin("intermediate.dense", x))
            x = layer_norm(lin("output.dense", inner) + x, *norm(q + "output.LayerNorm"), eps)
        hidden.append(x)
    hidden = np.array(hidden)
    m = mask[:, :, None].astype(np.float64)
    if pooling == "cls":
        pooled = hidden[:, 0]
    elif pooling == "mean":
        pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    else:
        pooled = np.where(m > 0, hidden, -1e9).max(1)
    if normalize:  # sentence_transformers.models.Normalize: F.normalize(p=2, dim=1)
        pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    logits = None
    arch = c.get("architectures", [""])[0]
    first = hidden[:, 0]
    if arch == "BertForSequenceClassification":
        pooler = np.tanh(first @ W("pooler.dense.weight").T + W("pooler.dense.bias"))
        logits = pooler @ t["classifier.weight"].T + t["classifier.bias"]
    elif arch in ("RobertaForSequenceClassification", "XLMRobertaForSequenceClassification"):
        dense = np.tanh(first @ t["classifier.dense.weight"].T + t["classifier.dense.bias"])
        logits = dense @ t["classifier.out_proj.weight"].T + t["classifier.out_proj.bias"]
    return hidden, pooled, logits


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "outputs":
        folder, inp, out = sys.argv[2:5]
        data = json.load(open(inp))
        types = data.get("types") or [[0] * len(row) for row in data["ids"]]
        hidden, pooled, logits = outputs(folder, data["ids"], data["mask"], types)
        with open(out, "w") as f:
            json.dump({"hidden": hidden.tolist(), "pooled": pooled.tolist(),
                       "logits": None if logits is None else logits.tolist()}, f)
    else:
        sys.exit("usage: hf_encoder_reference.py make VARIANT DIR SEED | outputs DIR IN OUT")


if __name__ == "__main__":
    main()
