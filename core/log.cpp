#include "core/log.h"

#include <atomic>
#include <iostream>
#include <mutex>

namespace embpriv {
namespace {
std::atomic<bool> quiet_mode{false};
std::mutex stderr_mutex;
}  // namespace

void warn(std::string_view message) {
  std::lock_guard<std::mutex> lock(stderr_mutex);
  std::cerr << "embpriv: warning: " << message << '\n';
}

void info(std::string_view message) {
  if (quiet_mode) return;
  std::lock_guard<std::mutex> lock(stderr_mutex);
  std::cerr << "embpriv: " << message << '\n';
}

void set_quiet(bool quiet) { quiet_mode = quiet; }

}  // namespace embpriv
