#include "core/progress.h"

#include <unistd.h>

#include <cstdio>

namespace embpriv {

ProgressBar::ProgressBar(std::int64_t total, std::string label)
    : total_(total > 0 ? total : 1),
      label_(std::move(label)),
      enabled_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::advance(std::int64_t steps) {
  done_ += steps;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  // Redraw at most ten times a second, and always on the last step.
  if (done_ >= total_ || now - last_draw_ > std::chrono::milliseconds(100)) {
    last_draw_ = now;
    draw();
  }
}

void ProgressBar::draw() {
  constexpr int kWidth = 30;
  const double fraction = static_cast<double>(done_) / static_cast<double>(total_);
  const int filled = static_cast<int>(fraction * kWidth);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : 0.0;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r[%s] %lld/%lld %s  %.0fs elapsed, ETA %.0fs  ", bar.c_str(),
               static_cast<long long>(done_), static_cast<long long>(total_), label_.c_str(),
               elapsed, eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  std::fprintf(stderr, "\r%*s\r", 100, "");
  std::fflush(stderr);
}

}  // namespace embpriv
