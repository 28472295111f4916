// The per-run cache: one value per key, made once even when many threads ask at once; a
// failed make stores nothing; a key keeps its type.
#include "tests/catch.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "experiments/engine/run_cache.h"

using namespace embpriv;

TEST_CASE("run cache: one key gives one object, made once; other keys give others", "[engine]") {
  RunCache cache;
  int makes = 0;
  const auto make = [&](int value) {
    return [&makes, value] {
      ++makes;
      return std::vector<int>{value};
    };
  };
  const std::vector<int>& a = cache.get_or_make<std::vector<int>>("a", make(1));
  const std::vector<int>& again = cache.get_or_make<std::vector<int>>("a", make(2));
  const std::vector<int>& b = cache.get_or_make<std::vector<int>>("b", make(3));
  CHECK(&a == &again);
  CHECK(again == std::vector<int>{1});  // the second make never ran
  CHECK(&a != &b);
  CHECK(b == std::vector<int>{3});
  CHECK(makes == 2);
  CHECK(cache.size() == 2);
}

TEST_CASE("run cache: under concurrent access each key is made once", "[engine]") {
  RunCache cache;
  std::atomic<int> makes_a{0}, makes_b{0};
  const int kThreads = 8;
  std::vector<const std::string*> seen(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::atomic<int>& makes = t % 2 ? makes_b : makes_a;
      seen[t] = &cache.get_or_make<std::string>(t % 2 ? "b" : "a", [&makes, t] {
        ++makes;
        // Long enough that every other thread asks while this make runs.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return std::string(t % 2 ? "b" : "a");
      });
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(makes_a == 1);
  CHECK(makes_b == 1);
  for (int t = 0; t < kThreads; ++t) {
    CHECK(seen[t] == seen[t % 2]);
    CHECK(*seen[t] == (t % 2 ? "b" : "a"));
  }
}

TEST_CASE("run cache: a make that throws stores nothing; a make may ask for another key", "[engine]") {
  RunCache cache;
  CHECK_THROWS_AS(cache.get_or_make<int>("x", []() -> int { throw Error("no data"); }), Error);
  CHECK(cache.get_or_make<int>("x", [] { return 7; }) == 7);
  const int& outer = cache.get_or_make<int>("outer", [&] { return cache.get_or_make<int>("inner", [] { return 4; }) + 1; });
  CHECK(outer == 5);
  CHECK(cache.get_or_make<int>("inner", [] { return 0; }) == 4);
}

TEST_CASE("run cache: asking for another type under a key is an error", "[engine]") {
  RunCache cache;
  cache.get_or_make<int>("k", [] { return 1; });
  CHECK_THROWS_AS(cache.get_or_make<double>("k", [] { return 1.0; }), Error);
}
