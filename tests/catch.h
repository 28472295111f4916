#pragma once
// Catch2 for embpriv's tests. LibTorch's c10 pulls in glog, whose CHECK macro would replace
// Catch's when a LibTorch header comes after catch.hpp: include LibTorch first, drop glog's
// CHECK, then Catch. Every test includes this header instead of <catch2/catch.hpp>.
#include <ATen/core/Tensor.h>
#undef CHECK
#include <catch2/catch.hpp>
