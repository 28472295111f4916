"""The timing both PyTorch peers of lm_forward_bench.cpp share (lm_forward_peer.py for llama2.c,
hf_forward_peer.py for Hugging Face folders): the ids embpriv used, read from --dump, one warm-up
and the best of `repeats` forward passes (bench/common/bench_timing.py), and the largest
difference from embpriv's logits."""
import os
import resource
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_timing import best_seconds  # noqa: E402


def time_against_dump(name, embed, forward, dump, length, repeats, threads, device="cpu"):
    """embed(ids) -> input embeddings; forward(x) -> logits. Returns the bench's JSON record.
    device "cuda": the ids go to the GPU (embed and forward's weights are there already) and each
    pass ends with torch.cuda.synchronize(), as lm_forward_bench --device cuda waits for its last
    logit."""
    torch.set_num_threads(threads)
    ids = torch.from_numpy(np.fromfile(f"{dump}/lm_ids.i64", dtype="<i8")).reshape(-1, length).to(device)
    theirs = torch.from_numpy(np.fromfile(f"{dump}/lm_logits.f32", dtype="<f4"))
    result = {}
    with torch.no_grad():
        x = embed(ids)
        def run():
            result.update(logits=forward(x))
            if device != "cpu":
                torch.cuda.synchronize()
        seconds = best_seconds(repeats, run)
    logits = result["logits"].cpu()
    n = ids.numel()
    return {"name": name, "impl": "pytorch", "batch": ids.shape[0], "length": length, "threads": threads, "device": device,
            "seconds": seconds, "tokens_per_s": n / seconds,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
            "max_abs_logit_difference": float((logits.reshape(-1) - theirs).abs().max())}
