#pragma once
// The batched products of attention (scores = q k^T, context = p v: [..., T, d] @ [..., d, S], the
// same leading sizes on both sides), as at::matmul computes them and to the same bits, but each
// matrix product on one thread: the products are split over LibTorch's threads, and OpenBLAS runs
// in the calling thread (platform/blas_threads.h). One head's product (128 x 64 x 128 in
// BERT-base) is too small for OpenBLAS's own threads, whose wake-up costs more than the second
// core gives (issue 42: the encoder at two threads). at::matmul folds the leading sizes into one
// batch, and its bmm makes one GEMM call per matrix, the same call whichever thread makes it and
// whichever slice of the batch a bmm is given; OpenBLAS's threads split a product's rows and
// columns, never its sums, so one thread or two give the same bits.
// Falls back to at::matmul where that reasoning does not hold or nothing is gained: off the CPU,
// when autograd records (bmm_out has no backward), with broadcast leading sizes, in a dtype other
// than float32 (bf16 products go to oneDNN, not OpenBLAS), with MKL or a BLAS whose threads
// embpriv cannot set.
#include <ATen/core/Tensor.h>

namespace embpriv {

at::Tensor attention_matmul(const at::Tensor& a, const at::Tensor& b);

}  // namespace embpriv
