#!/usr/bin/env python3
"""KNN search speed on the GPU (scripts/device/check.sh, step 4): embpriv.nearest_rows (the code
the inversion experiment runs on `device: cuda`) against torch.mm followed by torch.topk, the
plainest PyTorch eager search, on the same CUDA tensors; GFLOP/s count the 2 N V d of the scores.
Best of 5 after a warm-up, synchronised. Prints one line per side and their ratio."""
import time

import embpriv
import torch


def best_seconds(fn, repeats=5):
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    assert torch.cuda.is_available(), "torch sees no CUDA device"
    generator = torch.Generator(device="cuda").manual_seed(1)
    n, v, d, k = 8192, 50000, 128, 5
    queries = torch.randn(n, d, device="cuda", generator=generator)
    table = torch.randn(v, d, device="cuda", generator=generator)
    flops = 2.0 * n * v * d
    ours = best_seconds(lambda: embpriv.nearest_rows(queries, table, k, metric="l2"))
    peer = best_seconds(lambda: torch.topk(torch.mm(queries, table.t()).mul_(2).sub_((table * table).sum(1)), k, dim=1))
    print("%s: N=%d V=%d d=%d k=%d" % (torch.cuda.get_device_name(0), n, v, d, k))
    print("embpriv.nearest_rows  %8.1f GFLOP/s" % (flops / ours / 1e9))
    print("torch.mm + topk       %8.1f GFLOP/s" % (flops / peer / 1e9))
    print("ratio embpriv / torch %8.2f" % (peer / ours))
    # The two searches find the same nearest rows (random rows: no ties closer than rounding).
    indices, _ = embpriv.nearest_rows(queries[:256], table, k, metric="l2")
    peer_top = torch.topk(torch.mm(queries[:256], table.t()).mul_(2).sub_((table * table).sum(1)), k, dim=1).indices
    agreement = (indices[:, 0].to(peer_top.device) == peer_top[:, 0]).double().mean().item()
    print("top-1 agreement       %8.3f" % agreement)
    assert agreement > 0.99, "embpriv.nearest_rows and torch.mm + topk disagree"


if __name__ == "__main__":
    main()
