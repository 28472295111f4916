"""The timing both PyTorch peers of bench/lm_forward_bench.cpp share (bench/lm_forward_peer.py for
llama2.c, bench/hf_forward_peer.py for Hugging Face folders): the ids embpriv used, read from
--dump, one warm-up and the best of `repeats` forward passes, and the largest difference from
embpriv's logits."""
import resource
import time

import numpy as np
import torch


def time_against_dump(name, embed, forward, dump, length, repeats, threads):
    """embed(ids) -> input embeddings; forward(x) -> logits. Returns the bench's JSON record."""
    torch.set_num_threads(threads)
    ids = torch.from_numpy(np.fromfile(f"{dump}/lm_ids.i64", dtype="<i8")).reshape(-1, length)
    theirs = torch.from_numpy(np.fromfile(f"{dump}/lm_logits.f32", dtype="<f4"))
    with torch.no_grad():
        x = embed(ids)
        logits = forward(x)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            logits = forward(x)
            times.append(time.perf_counter() - start)
    n = ids.numel()
    return {"name": name, "impl": "pytorch", "batch": ids.shape[0], "length": length, "threads": threads,
            "seconds": min(times), "tokens_per_s": n / min(times),
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
            "max_abs_logit_difference": float((logits.reshape(-1) - theirs).abs().max())}
