#!/usr/bin/env python3
"""Where the encoder forward's time goes, op by op, for embpriv and for PyTorch eager in one
process at one thread count (issue 42: "find what does not scale"). Both sides run in the same
LibTorch (the embpriv module links Debian's, as python3-torch does), so LibTorch's profiler
records the ATen ops of embpriv's C++ forward (TextModel::embed, through embpriv.load_model) as it
records the eager ones (encoder_forward_peer.py's forward plus the masked mean). Prints, per side,
the self CPU time of the ops that take the most, grouped as GEMM (addmm, mm, bmm, matmul),
attention (softmax, div, add to the scores), norms (layer_norm), GELU, copies and the rest, and
the whole forward's wall time outside the profiler (best of --repeats, the two sides alternating).

  PYTHONPATH=build/python /usr/bin/python3 bench/encoder_forward/profile_phases.py --model /tmp/bert_base --threads 2
(embed_vs_eager.py's docstring says how to write the random BERT-base folder.)
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from embed_vs_eager import best_interleaved, both_sides, both_sides_parser  # noqa: E402
from encoder_forward_peer import forward  # noqa: E402

GROUPS = [("gemm", ("aten::addmm", "aten::mm", "aten::bmm", "aten::baddbmm")),
          ("softmax", ("aten::_softmax",)),
          ("layer_norm", ("aten::native_layer_norm",)),
          ("gelu", ("aten::gelu", "aten::gelu_")),
          ("elementwise", ("aten::add", "aten::add_", "aten::div", "aten::div_", "aten::mul", "aten::mean",
                           "aten::sum", "aten::cumsum", "aten::ne", "aten::eq")),
          ("copies", ("aten::copy_", "aten::clone", "aten::contiguous", "aten::cat", "aten::index",
                      "aten::index_select", "aten::embedding", "aten::_reshape_alias", "aten::empty"))]


def self_times(run):
    """Self CPU seconds per op name of one run under LibTorch's profiler."""
    with torch.autograd.profiler.profile() as prof:
        run()
    return {e.key: e.self_cpu_time_total / 1e6 for e in prof.key_averages()}


def grouped(times, groups=GROUPS):
    """Self seconds summed per group of op names (`groups`: (name, op names) pairs), the ops of no
    group as "other", and the total."""
    out, seen = {}, set()
    for group, names in groups:
        out[group] = sum(times.get(n, 0.0) for n in names)
        seen.update(names)
    out["other"] = sum(t for n, t in times.items() if n not in seen)
    out["total"] = sum(times.values())
    return out


def main():
    parser = both_sides_parser(count=8)
    parser.add_argument("--top", type=int, default=8, help="ops listed per side")
    args = parser.parse_args()
    model, texts, batch, config, weights = both_sides(args)
    ids = batch["input_ids"]

    def embed():
        return model.encode(texts, pooling="mean", batch_size=args.count, max_length=args.length)

    def eager():
        with torch.no_grad():
            return forward(config, weights, ids).mean(1)

    (embed_s, eager_s), _ = best_interleaved(args.repeats, [embed, eager])
    line = {"name": "encoder_phases", "threads": args.threads, "texts": args.count, "length": args.length,
            "embed_seconds": embed_s, "eager_seconds": eager_s, "eager_over_embed": eager_s / embed_s,
            "load_average_1m": os.getloadavg()[0]}
    for side, run in (("embpriv", embed), ("eager", eager)):
        times = self_times(run)
        line[side] = {k: round(v, 4) for k, v in grouped(times).items()}
        line[side + "_top"] = {k: round(v, 4) for k, v in sorted(times.items(), key=lambda kv: -kv[1])[:args.top]}
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
