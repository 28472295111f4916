#pragma once
// Running the BLAS in the calling thread. OpenBLAS's pthread build starts its own thread pool
// for every large GEMM; when LibTorch's OpenMP threads call it in turn (a GEMM, then a parallel
// pass over its result, as the KNN attack does), each pool spins while the other works and two
// cores do less than one (docs/performance.md). Work that is already split over LibTorch's
// threads runs faster with one BLAS thread per caller: this guard sets it, and puts the old
// count back when it goes out of scope.
//
// Used by the KNN search (its query blocks split over LibTorch's threads) and by work made of
// many small GEMMs between LibTorch's parallel loops: the Newton fits of the membership
// classifiers and the training of the small networks (learned inversion, PrivateAI's
// classifier). Those always run their GEMMs in the calling thread, whatever LibTorch's thread
// count: no pool spins while the other works (bench/README.md: 13 -> 191 LiRA shadow fits/s at
// 2 threads), and their results do not depend on how many threads OpenBLAS has (a float64
// solve split over 2 OpenBLAS threads differs from 1 in the last bits).
//
// The thread count is process-wide in OpenBLAS 0.3.21 (there is no per-thread setting before
// 0.3.27): a GEMM that another thread of the process starts meanwhile also runs on one thread.
namespace embpriv {

class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

  // True when every sgemm_ now runs in the thread that calls it: OpenBLAS set to one thread,
  // or the netlib reference BLAS, which never starts threads. False for a BLAS whose threads
  // embpriv cannot set (MKL, BLIS, unknown): callers then keep the BLAS's own threading.
  bool in_caller_thread() const { return in_caller_thread_; }

 private:
  int restore_ = -1;  // OpenBLAS's thread count before, or -1 when nothing was changed
  bool in_caller_thread_ = false;
};

}  // namespace embpriv
