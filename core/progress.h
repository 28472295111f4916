#pragma once
// A progress bar for long loops, drawn on stderr and only when stderr is a terminal.
#include <chrono>
#include <cstdint>
#include <string>

namespace embpriv {

class ProgressBar {
 public:
  // total: the number of steps; label: what is counted ("checks", "rows").
  ProgressBar(std::int64_t total, std::string label);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void advance(std::int64_t steps = 1);
  // Clears the line; called by the destructor.
  void finish();
  bool enabled() const { return enabled_; }

 private:
  void draw();
  std::int64_t total_;
  std::int64_t done_ = 0;
  std::string label_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace embpriv
