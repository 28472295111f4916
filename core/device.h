#pragma once
// Device choice: "auto" picks CUDA when LibTorch sees a GPU, else the CPU.
#include <c10/core/Device.h>
#include <string_view>

namespace embpriv {

// Parses "auto" | "cpu" | "cuda" | "cuda:N"; "cuda" when no GPU is visible is an error.
c10::Device select_device(std::string_view name);

}  // namespace embpriv
