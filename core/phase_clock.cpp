#include "core/phase_clock.h"

#include "core/error.h"

namespace embpriv {

void PhaseClock::start(const std::string& phase) {
  EMBPRIV_ASSERT(!phase.empty() && phase != "seconds", "a phase needs a name other than 'seconds'");
  stop();
  running_ = phase;
  since_ = Clock::now();
}

std::map<std::string, double> PhaseClock::stop() {
  if (!running_.empty()) {
    seconds_[running_] += std::chrono::duration<double>(Clock::now() - since_).count();
    running_.clear();
  }
  return seconds_;
}

}  // namespace embpriv
