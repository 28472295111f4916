#include "platform/cpu_features.h"

#include <fstream>
#include <sstream>

namespace embpriv {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

int as_int(const std::string& text) {
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

bool CpuFeatures::has_avx512() const {
  return has("avx512f") && has("avx512cd") && has("avx512bw") && has("avx512dq") && has("avx512vl");
}

bool CpuFeatures::has_avx2_fma() const { return has("avx2") && has("fma"); }

std::string CpuFeatures::vector_flags() const {
  std::string out;
  if (has("pni")) out = "sse3";  // Linux names SSE3 "pni" (Prescott New Instructions)
  for (const char* flag : {"ssse3", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw",
                           "avx512dq", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_tile"}) {
    if (has(flag)) out += (out.empty() ? "" : " ") + std::string(flag);
  }
  return out;
}

CpuFeatures parse_cpuinfo(const std::string& text) {
  CpuFeatures cpu;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (trimmed(line).empty()) {
      if (!cpu.flags.empty() || !cpu.model_name.empty()) break;  // end of the first processor
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trimmed(line.substr(0, colon));
    const std::string value = trimmed(line.substr(colon + 1));
    if (key == "model name") {
      cpu.model_name = value;
    } else if (key == "vendor_id") {
      cpu.vendor = value;
    } else if (key == "cpu family") {
      cpu.family = as_int(value);
    } else if (key == "model") {
      cpu.model = as_int(value);
    } else if (key == "flags") {
      std::istringstream words(value);
      std::string flag;
      while (words >> flag) cpu.flags.insert(flag);
    }
  }
  return cpu;
}

const CpuFeatures& this_cpu() {
  static const CpuFeatures cpu = [] {
    std::ifstream file("/proc/cpuinfo");
    std::stringstream text;
    text << file.rdbuf();
    return parse_cpuinfo(text.str());
  }();
  return cpu;
}

}  // namespace embpriv
