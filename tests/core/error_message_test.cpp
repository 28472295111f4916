// One-line messages: LibTorch's errors lose their backtrace, embpriv's stay as they are.
#include "core/error_message.h"

#include <ATen/ATen.h>

#include <stdexcept>

#include "core/error.h"
#include "tests/catch.h"

using namespace embpriv;

TEST_CASE("one_line_message keeps the first line of LibTorch's errors, and embpriv's whole", "[core]") {
  try {
    at::ones({2, 3}).mm(at::ones({2, 3}));  // a real c10::Error: its message, then a backtrace
    FAIL("view did not throw");
  } catch (const std::exception& e) {
    REQUIRE(std::string(e.what()).find('\n') != std::string::npos);
    const std::string message = one_line_message(e);
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message == std::string("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"));
  }
  CHECK(one_line_message(std::runtime_error("first\nsecond")) == "first");
  CHECK(one_line_message(Error("line one\nline two")) == "line one\nline two");
}
