#include "core/log.h"

#include <unistd.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <set>
#include <string>

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

void warn_once(std::string_view message) {
  static std::mutex seen_mutex;
  static std::set<std::string, std::less<>> seen;
  {
    std::lock_guard<std::mutex> lock(seen_mutex);
    if (!seen.emplace(message).second) return;
  }
  warn(message);
}

void info(std::string_view message) {
  if (quiet_mode) return;
  std::lock_guard<std::mutex> lock(stderr_mutex);
  std::cerr << line_start() << "embpriv: " << message << '\n';
}

void set_quiet(bool quiet) { quiet_mode = quiet; }

}  // namespace embpriv
