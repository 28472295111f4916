#include "core/log.h"

#include <unistd.h>

#include <atomic>
#include <iostream>
#include <mutex>

namespace embpriv {
namespace {
std::atomic<bool> quiet_mode{false};
std::mutex stderr_mutex;

// On a terminal a progress bar may own the current line: clear it first (the bar redraws).
const char* line_start() {
  static const bool terminal = isatty(STDERR_FILENO) != 0;
  return terminal ? "\r\033[K" : "";
}
}  // namespace

void warn(std::string_view message) {
  std::lock_guard<std::mutex> lock(stderr_mutex);
  std::cerr << line_start() << "embpriv: warning: " << message << '\n';
}

void info(std::string_view message) {
  if (quiet_mode) return;
  std::lock_guard<std::mutex> lock(stderr_mutex);
  std::cerr << line_start() << "embpriv: " << message << '\n';
}

void set_quiet(bool quiet) { quiet_mode = quiet; }

}  // namespace embpriv
