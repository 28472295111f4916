#pragma once
// What the CPU can run, as Linux reports it in /proc/cpuinfo: the model, and the vector
// instruction sets that decide which BLAS kernel is fast (platform/blas_kernel.h).
#include <set>
#include <string>

namespace embpriv {

struct CpuFeatures {
  std::string model_name;  // "AMD EPYC", "Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz", ...
  std::string vendor;      // "GenuineIntel", "AuthenticAMD", ...
  int family = -1, model = -1;
  std::set<std::string> flags;  // every flag of the first processor

  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
  // AVX-512 as OpenBLAS's SkylakeX kernels use it: F, CD, BW, DQ and VL.
  bool has_avx512() const;
  // AVX2 with FMA3: what OpenBLAS's Haswell and Zen kernels need.
  bool has_avx2_fma() const;
  // The flags a bug report about speed needs, in a fixed order ("avx2 fma avx512f ...").
  std::string vector_flags() const;
};

// Parses the text of /proc/cpuinfo (the first processor's block).
CpuFeatures parse_cpuinfo(const std::string& text);
// This machine's CPU; fields stay empty where /proc/cpuinfo is missing (not Linux).
const CpuFeatures& this_cpu();

}  // namespace embpriv
