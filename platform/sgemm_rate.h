#pragma once
// The machine's float matrix-product rate as LibTorch reaches it: the yardstick every
// GEMM-bound path of embpriv is compared with (`embpriv system`, bench/).
namespace embpriv {

// GFLOP/s (2 n^3 / seconds) of an n x n x n float at::mm on the CPU with LibTorch's current
// threads: the best of `repeats` timed products after one untimed warm-up.
double measure_sgemm_gflops(int n, int repeats = 3);

}  // namespace embpriv
