#include "experiments/engine/run_cache.h"

namespace embpriv {

RunCache::Slot& RunCache::slot(const std::string& key) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<Slot>& s = slots_[key];
  if (!s) s = std::make_unique<Slot>();
  return *s;
}

std::size_t RunCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return slots_.size();
}

}  // namespace embpriv
