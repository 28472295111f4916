#include "core/log.h"

#include "tests/catch.h"
#include <iostream>
#include <sstream>
#include <string>

namespace {

// What the messages of `body` print on std::cerr.
template <typename Body>
std::string captured_stderr(Body body) {
  std::ostringstream captured;
  std::streambuf* const original = std::cerr.rdbuf(captured.rdbuf());
  body();
  std::cerr.rdbuf(original);
  return captured.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("warn_once prints each distinct message once; warn every time", "[core]") {
  const std::string out = captured_stderr([] {
    embpriv::warn_once("log_test: first message");
    embpriv::warn_once("log_test: first message");
    embpriv::warn_once("log_test: second message");
    embpriv::warn("log_test: plain");
    embpriv::warn("log_test: plain");
  });
  CHECK(count(out, "embpriv: warning: log_test: first message") == 1);
  CHECK(count(out, "log_test: second message") == 1);
  CHECK(count(out, "log_test: plain") == 2);
}
