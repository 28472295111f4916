#pragma once
// How a C++ bench of bench/ hands its inputs and results to its Python peer: each tensor's raw
// bytes (contiguous, native little-endian) in one file of the dump folder, which the peer reads
// with numpy.fromfile.
#include <ATen/ATen.h>

#include <fstream>
#include <string>

namespace embpriv {

inline void write_tensor(const std::string& dump, const std::string& name, const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  std::ofstream(dump + "/" + name, std::ios::binary).write(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

}  // namespace embpriv
