#include "core/device.h"

#include <ATen/Context.h>

#include <string>

#include "core/error.h"

namespace embpriv {

c10::Device select_device(std::string_view name) {
  const bool cuda = at::hasCUDA();
  if (name == "auto") return cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  if (name == "cpu") return c10::Device(c10::kCPU);
  if (name.substr(0, 4) == "cuda") {
    EMBPRIV_CHECK(cuda, "device '" << name << "' asked for, but this LibTorch sees no CUDA GPU "
                                     "(use device: auto or cpu)");
    return c10::Device(std::string(name));
  }
  EMBPRIV_CHECK(false, "device must be one of auto, cpu, cuda, cuda:N; got '" << name << "'");
  return c10::Device(c10::kCPU);
}

}  // namespace embpriv
