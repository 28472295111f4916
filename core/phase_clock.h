#pragma once
// Wall time per phase of a piece of work ("load", "perturb", "attack", ...): start() ends the
// running phase and begins the next, so timing a sequence takes one line per phase. A phase
// that recurs adds up. (On a GPU, time a phase only after a synchronising step, such as
// reading a result back to the CPU.)
#include <chrono>
#include <map>
#include <string>

namespace embpriv {

class PhaseClock {
 public:
  // Ends the running phase (if any) and starts `phase`.
  void start(const std::string& phase);
  // Ends the running phase; the seconds per phase so far.
  std::map<std::string, double> stop();

 private:
  using Clock = std::chrono::steady_clock;
  std::map<std::string, double> seconds_;
  std::string running_;
  Clock::time_point since_{};
};

}  // namespace embpriv
