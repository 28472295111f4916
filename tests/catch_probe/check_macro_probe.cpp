// Compiled by the ctest catch_check_is_catchs (cmake/catch2.cmake) with tests/catch.h
// force-included, as every test file is. The control includes LibTorch's headers after
// tests/catch.h, as many test files do, and must compile with Catch's CHECK. The probe
// (EMBPRIV_PROBE_C10_CHECK) then defines CHECK as LibTorch 2.x's
// c10/util/logging_is_not_google_glog.h does, and must fail to compile at the next TEST_CASE.
#include <c10/util/Logging.h>
#include <torch/torch.h>

#include <vector>

#ifdef EMBPRIV_PROBE_C10_CHECK
#undef CHECK
#define CHECK(condition) FATAL_IF(condition) << "Check failed: " #condition " "
#endif

TEST_CASE("CHECK is Catch's after LibTorch's headers") {
  // No comma here: only the guard of tests/catch.h may fail the probe on the argument count.
  CHECK(std::vector<int>(2).size() == 2);
}
