#pragma once
// The command line of the C++ benches of bench/: `--key value` pairs. A bench reads each of its
// keys once with a default; `finish()` then rejects anything it did not read. Bad input prints
// the bench's usage line and exits 2; `-h` or `--help` prints it and exits 0.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace embpriv {

class BenchArgs {
 public:
  BenchArgs(int argc, char** argv, std::string usage) : usage_(std::move(usage)) {
    program_ = argc > 0 ? argv[0] : "bench";
    program_ = program_.substr(program_.find_last_of('/') + 1);
    for (int i = 1; i < argc; ++i) {
      const std::string key = argv[i];
      if (key == "-h" || key == "--help") fail("", 0);
      if (key.rfind("--", 0) != 0 || i + 1 >= argc) fail("expected --key value, got '" + key + "'");
      values_[key] = argv[++i];
    }
  }

  std::string text(const std::string& key, const std::string& fallback) {
    const auto found = values_.find(key);
    if (found == values_.end()) return fallback;
    const std::string value = found->second;
    values_.erase(found);
    return value;
  }

  std::int64_t integer(const std::string& key, std::int64_t fallback) {
    const std::string value = text(key, "");
    if (value.empty()) return fallback;
    try {
      std::size_t used = 0;
      const long long parsed = std::stoll(value, &used);
      if (used == value.size()) return parsed;
    } catch (const std::exception&) {
    }
    fail(key + " must be an integer, got '" + value + "'");
  }

  // A count such as --repeats or --threads: an integer >= 1.
  int count(const std::string& key, int fallback) {
    const std::int64_t value = integer(key, fallback);
    if (value < 1 || value > 1 << 30) fail(key + " must be an integer >= 1, got " + std::to_string(value));
    return static_cast<int>(value);
  }

  double real(const std::string& key, double fallback) {
    const std::string value = text(key, "");
    if (value.empty()) return fallback;
    try {
      std::size_t used = 0;
      const double parsed = std::stod(value, &used);
      if (used == value.size()) return parsed;
    } catch (const std::exception&) {
    }
    fail(key + " must be a number, got '" + value + "'");
  }

  // Every key given must have been read by now.
  void finish() {
    if (!values_.empty()) fail("unknown option " + values_.begin()->first);
  }

  [[noreturn]] void fail(const std::string& problem, int code = 2) const {
    if (!problem.empty()) std::cerr << program_ << ": " << problem << "\n";
    (code == 0 ? std::cout : std::cerr) << usage_ << "\n";
    std::exit(code);
  }

 private:
  std::string usage_, program_;
  std::map<std::string, std::string> values_;
};

}  // namespace embpriv
