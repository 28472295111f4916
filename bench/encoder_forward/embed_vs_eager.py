#!/usr/bin/env python3
"""`embpriv embed`'s path (embpriv.load_model(...).encode: TextModel::embed, the function the
command runs) against PyTorch eager (encoder_forward_peer.py's BertModel forward, plus the masked
mean) on the same random BERT-base-sized folder, in one process at the same thread count, best of
--repeats after a warm-up, the two alternating. The texts are Yelp sentences joined until each has at least --length
tokens, then cut to --length (so there is no padding, which the peer's forward has no mask for);
embpriv's time includes the WordPiece tokenization, the peer's does not. Prints one JSON line with
both times, their ratio (eager / embed: above 1, embed is faster), the largest difference of the
vectors, and the machine's load average (the ratio is only comparable within one run).

  mkdir -p /tmp/bert_like && cp .cache/models/privateai_bert/tokenizer.json /tmp/bert_like/   # bert-base-uncased's
  echo '{"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "intermediate_size": 3072,
         "num_hidden_layers": 12, "num_attention_heads": 12}' > /tmp/bert_like/config.json
  PYTHONPATH=build/python python3 -c "import embpriv; embpriv.random_encoder('/tmp/bert_base', like='/tmp/bert_like')"
  PYTHONPATH=build/python python3 bench/encoder_forward/embed_vs_eager.py --model /tmp/bert_base
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from encoder_forward_peer import forward, read_safetensors_f32  # noqa: E402

import embpriv  # noqa: E402


def long_texts(tokenizer, sentences, count, length):
    """`count` texts of at least `length` tokens each, made of consecutive sentences."""
    texts, current, i = [], "", 0
    while len(texts) < count:
        current = (current + " " + sentences[i % len(sentences)]).strip()
        i += 1
        if len(tokenizer.encode(current)) >= length:
            texts.append(current)
            current = ""
    return texts


def best_interleaved(repeats, runs):
    """Best seconds of each of `runs` (and its last output), the runs alternating after a warm-up of
    each, so that a change of the machine's load falls on both alike."""
    outs = [run() for run in runs]
    times = [[] for _ in runs]
    for _ in range(repeats):
        for i, run in enumerate(runs):
            start = time.perf_counter()
            outs[i] = run()
            times[i].append(time.perf_counter() - start)
    return [min(t) for t in times], outs


def both_sides_parser(count):
    """The arguments embed_vs_eager.py and profile_phases.py share (--count defaults to `count`)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="a BERT folder with float32 weights and a tokenizer.json")
    parser.add_argument("--sentences", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared",
                                                            "data", "sentiment", "yelp.json"))
    parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    return parser


def both_sides(args):
    """What both sides read, at args.threads LibTorch threads: embpriv's model, the texts, their
    tokens (no padding), and the folder's config and float32 weights for the eager forward."""
    torch.set_num_threads(args.threads)  # the one LibTorch both sides run on
    model = embpriv.load_model(args.model)
    sentences = [s["text"] for s in json.load(open(args.sentences)) if s["class"] is not None]
    texts = long_texts(embpriv.tokenizer(args.model), sentences, args.count, args.length)
    batch = model.tokenize(texts, max_length=args.length)
    assert bool(batch["attention_mask"].all()) and batch["input_ids"].shape == (args.count, args.length)
    config = json.load(open(os.path.join(args.model, "config.json")))
    weights = read_safetensors_f32(os.path.join(args.model, "model.safetensors"))
    return model, texts, batch, config, weights


def main():
    parser = both_sides_parser(count=16)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    model, texts, batch, config, weights = both_sides(args)

    def eager():
        with torch.no_grad():
            return torch.cat([forward(config, weights, ids).mean(1) for ids in batch["input_ids"].split(args.batch)])

    (embed_s, eager_s, tokenize_s), (ours, theirs, _) = best_interleaved(args.repeats, [
        lambda: model.encode(texts, pooling="mean", batch_size=args.batch, max_length=args.length), eager,
        lambda: model.tokenize(texts, max_length=args.length)])
    print(json.dumps({"name": "embed_bert_base_random", "texts": args.count, "length": args.length,
                      "batch": args.batch, "threads": args.threads, "embed_seconds": embed_s,
                      "eager_seconds": eager_s, "eager_over_embed": eager_s / embed_s,
                      "tokenize_seconds": tokenize_s, "eager_over_embed_without_tokenize": eager_s / (embed_s - tokenize_s),
                      "embed_texts_per_s": args.count / embed_s,
                      "max_abs_vector_difference": float((ours - theirs).abs().max()),
                      "load_average_1m": os.getloadavg()[0]}), flush=True)


if __name__ == "__main__":
    main()
