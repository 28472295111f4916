#pragma once
// glibc's malloc returns every block above its mmap threshold to the kernel when it is freed,
// so a loop that allocates and frees the same large tensors (a layer's activations, a GEMM's
// output) page-faults and zeroes fresh memory on every pass. Keeping freed blocks up to 64 MiB
// in the heap (and trimming its top only beyond 128 MiB) removes that cost: the stories260K
// forward pass of bench/lm_forward took 0.12 s instead of 0.145 s (mean of 4 interleaved runs
// each; same logits). The price: up to 128 MiB of freed memory stays with the process.
namespace embpriv {

// Sets those two thresholds (mallopt) unless the user tuned malloc (GLIBC_TUNABLES,
// MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ in the environment); called first in main().
void keep_freed_memory();

}  // namespace embpriv
