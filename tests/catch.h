#pragma once
// Catch2 for embpriv's tests: 2.x (<catch2/catch.hpp>, Debian 12) or 3.x (<catch2/catch_all.hpp>,
// Debian 13 and upstream). cmake/catch2.cmake says which (EMBPRIV_CATCH2_MAJOR) and force-includes
// this header first in every test file (-include), so no include order of a test file matters.
//
// CHECK: LibTorch's c10/util/Logging.h defines a one-argument CHECK (glog's in Debian 12's
// LibTorch 1.13, c10/util/logging_is_not_google_glog.h's in LibTorch 2.x) which replaces Catch's
// wherever that header comes after Catch's: a failed check then aborts the run instead of being
// reported, and a brace list's comma splits the argument. So that header comes first (its include
// guard makes every later inclusion a no-op), its CHECK goes, then Catch's comes. LibTorch 1.13's
// <ATen/core/Tensor.h> happened to include it; 2.x's does not, and the test files that include a
// LibTorch header after this one got c10's CHECK: hence the explicit include.
#include <c10/util/Logging.h>
#undef CHECK
// at::NoGradGuard for every test: LibTorch 1.13's ATen.h brought it, 2.x's does not.
#include <ATen/core/grad_mode.h>

#ifndef EMBPRIV_CATCH2_MAJOR
#if __has_include(<catch2/catch_all.hpp>)
#define EMBPRIV_CATCH2_MAJOR 3
#else
#define EMBPRIV_CATCH2_MAJOR 2
#endif
#endif

#if EMBPRIV_CATCH2_MAJOR >= 3
#include <string>
#include <catch2/catch_all.hpp>
// What Catch2 2.x offered and 3.x moved: Approx at global scope, the string matchers as
// Catch::Contains etc., and Contains of a string (3.x's ContainsSubstring; its own Contains is
// the range matcher). The overloads are not templates, so they win over 3.x's Contains(T&&) for
// every string argument.
using Catch::Approx;
namespace Catch {
namespace Matchers {
inline StringContainsMatcher Contains(const char* s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(const std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(std::string&& s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
}  // namespace Matchers
using Matchers::Contains;
using Matchers::EndsWith;
using Matchers::Equals;
using Matchers::StartsWith;
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif

// The build fails if a one-argument CHECK ever replaces Catch's again: every TEST_CASE first
// expands CHECK with two arguments, which only Catch's variadic CHECK takes ("macro "CHECK"
// passed 2 arguments, but takes just 1"); the expansion is only turned into a string, never run.
// TEST_CASE(...) is INTERNAL_CATCH_TESTCASE(__VA_ARGS__) in Catch2 2.x and 3.x alike.
#define EMBPRIV_CATCH_STRINGIFY_(...) #__VA_ARGS__
#define EMBPRIV_CATCH_STRINGIFY(...) EMBPRIV_CATCH_STRINGIFY_(__VA_ARGS__)
#undef TEST_CASE
#define TEST_CASE(...)                                                                             \
  static_assert(sizeof(EMBPRIV_CATCH_STRINGIFY(CHECK(embpriv_probe, embpriv_probe))) > 1,          \
                "CHECK must be Catch's here (tests/catch.h)");                                     \
  INTERNAL_CATCH_TESTCASE(__VA_ARGS__)
