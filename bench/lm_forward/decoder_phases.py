#!/usr/bin/env python3
"""Where the decoder forward's time goes, op by op, for embpriv and for PyTorch eager in one
process (issue 42: "a per-phase profile" of the bf16 decoder). Both sides run in the same
LibTorch (the embpriv module links Debian's, as python3-torch does), so LibTorch's profiler
records the ATen ops of embpriv's C++ forward (Decoder.logits, models/hf_decoder_model.h) as it
records those of hf_forward_peer.py's forward, on the same ids and weights, in float32 or, with
--compute bfloat16, in bf16 on both sides. Prints one JSON line: the whole forward's wall time
outside the profiler (best of --repeats, the two sides alternating), then per side the self CPU
seconds grouped as GEMM, softmax, norms, activation, elementwise, copies (dtype conversions
included) and the rest, and the ops that take the most.

  PYTHONPATH=build/python /usr/bin/python3 bench/lm_forward/decoder_phases.py --threads 1 --compute bfloat16
(the model is build/bench_models/random_llama_100m_bf16 unless --model says otherwise:
hf_forward_peer.py make writes it.)
"""
import argparse
import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "encoder_forward"))
import embpriv  # noqa: E402
import hf_forward_peer as peer  # noqa: E402
from embed_vs_eager import best_interleaved  # noqa: E402
from profile_phases import grouped, self_times  # noqa: E402  (the encoder bench's, the same profiler)

GROUPS = [("gemm", ("aten::addmm", "aten::mm", "aten::bmm", "aten::baddbmm")),
          ("softmax", ("aten::_softmax",)),
          ("norms", ("aten::pow", "aten::mean", "aten::sum", "aten::rsqrt")),
          ("activation", ("aten::silu", "aten::silu_")),
          ("elementwise", ("aten::add", "aten::add_", "aten::mul", "aten::mul_", "aten::div", "aten::div_",
                           "aten::sub", "aten::sub_", "aten::neg", "aten::masked_fill_")),
          ("copies", ("aten::copy_", "aten::clone", "aten::contiguous", "aten::cat", "aten::index",
                      "aten::index_select", "aten::embedding", "aten::repeat_interleave", "aten::empty"))]


def loadable(folder, scratch):
    """embpriv.load_model wants a tokenizer.json beside the weights; the bench model has none and
    needs none (the ids are given), so a folder of links lends it stories260K's."""
    if os.path.exists(os.path.join(folder, "tokenizer.json")):
        return folder
    for name in ("config.json", "model.safetensors"):
        os.symlink(os.path.abspath(os.path.join(folder, name)), os.path.join(scratch, name))
    os.symlink(os.path.abspath(os.path.join(ROOT, "build", "stories260K-hf", "tokenizer.json")),
               os.path.join(scratch, "tokenizer.json"))
    return scratch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=os.path.join(ROOT, "build", "bench_models", "random_llama_100m_bf16"))
    parser.add_argument("--compute", choices=("float32", "bfloat16"), default="float32")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--length", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--top", type=int, default=8, help="ops listed per side")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as scratch:
        model = embpriv.load_model(loadable(args.model, scratch), compute=args.compute)
    config, weights = peer.load(args.model)
    if args.compute == "bfloat16":
        weights = {name: t.to(torch.bfloat16) for name, t in weights.items()}
    ids = torch.randint(0, config["vocab_size"], (args.batch, args.length), generator=torch.Generator().manual_seed(1))

    def ours():
        return model.logits(ids)

    def eager():
        with torch.no_grad():
            return peer.forward(config, weights, weights["model.embed_tokens.weight"][ids])

    (ours_s, eager_s), (a, b) = best_interleaved(args.repeats, [ours, eager])
    line = {"name": "decoder_phases", "compute": args.compute, "threads": args.threads, "batch": args.batch,
            "length": args.length, "embpriv_seconds": ours_s, "eager_seconds": eager_s,
            "eager_over_embpriv": eager_s / ours_s, "max_abs_logit_difference": float((a - b).abs().max()),
            "load_average_1m": os.getloadavg()[0]}
    for side, run in (("embpriv", ours), ("eager", eager)):
        times = self_times(run)
        line[side] = {k: round(v, 4) for k, v in grouped(times, GROUPS).items()}
        line[side + "_top"] = {k: round(v, 4) for k, v in sorted(times.items(), key=lambda kv: -kv[1])[:args.top]}
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
