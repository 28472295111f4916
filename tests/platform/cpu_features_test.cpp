// The CPU description embpriv reads from /proc/cpuinfo, and the BLAS kernel it asks for.
#include "tests/catch.h"

#include "platform/blas_kernel.h"
#include "platform/cpu_features.h"

namespace embpriv {
namespace {

// The first lines of a real /proc/cpuinfo (a 2-vCPU AMD EPYC cloud machine), flags shortened.
const char* kEpyc =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
    "model name\t: AMD EPYC\nflags\t\t: fpu sse2 pni ssse3 fma sse4_2 avx avx2 avx512f avx512dq "
    "avx512cd avx512bw avx512vl avx512_bf16\n\nprocessor\t: 1\nvendor_id\t: SomethingElse\n"
    "flags\t\t: fpu\n";

CpuFeatures cpu_with(std::initializer_list<const char*> flags) {
  CpuFeatures cpu;
  for (const char* f : flags) cpu.flags.insert(f);
  return cpu;
}

TEST_CASE("parse_cpuinfo reads the first processor's model and flags", "[core][blas]") {
  const CpuFeatures cpu = parse_cpuinfo(kEpyc);
  CHECK(cpu.vendor == "AuthenticAMD");
  CHECK(cpu.model_name == "AMD EPYC");
  CHECK(cpu.family == 25);
  CHECK(cpu.model == 17);
  CHECK(cpu.has_avx512());
  CHECK(cpu.has_avx2_fma());
  CHECK(cpu.vector_flags() == "sse3 ssse3 sse4_2 avx avx2 fma avx512f avx512bw avx512dq avx512vl avx512_bf16");
  CHECK(parse_cpuinfo("").flags.empty());
}

TEST_CASE("a generic OpenBLAS kernel is replaced only on a CPU that can run a faster one", "[core][blas]") {
  const CpuFeatures avx512 = cpu_with({"avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"});
  const CpuFeatures avx2 = cpu_with({"avx", "avx2", "fma"});
  const CpuFeatures sse = cpu_with({"sse2", "pni"});
  CHECK(better_kernel("Prescott", avx512) == "SkylakeX");
  CHECK(better_kernel("Nehalem", avx512) == "SkylakeX");
  CHECK(better_kernel("Prescott", avx2) == "Haswell");
  CHECK(better_kernel("Sandybridge", avx2) == "Haswell");
  CHECK(better_kernel("Prescott", sse).empty());  // nothing faster runs there
  CHECK(better_kernel("Cooperlake", avx512).empty());  // OpenBLAS chose well: keep it
  CHECK(better_kernel("Haswell", avx512).empty());
  CHECK(better_kernel("Zen", avx2).empty());
  // AVX-512 needs all five subsets the SkylakeX kernels use.
  CHECK(better_kernel("Prescott", cpu_with({"avx2", "fma", "avx512f"})) == "Haswell");
}

}  // namespace
}  // namespace embpriv
