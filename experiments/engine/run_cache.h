#pragma once
// Values the points of one run share (models, tables, encoded data, clusters): each is made once,
// on first use, under a string key, and freed with the cache when the run ends. The engine
// creates one in run_experiment (experiments/engine/runner.h) and hands it to the types through
// PointInput; a type decides what to cache and under which key (keys name what was loaded and
// with which settings, so two points that need the same thing share it).
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <typeinfo>

#include "core/error.h"
#include "core/error_message.h"

namespace embpriv {

// A value the rows share (a model, a tokenizer, a table) could not be made: every row that needs
// it would fail the same way, so the runner stops the run with this error (exit code 2) instead
// of recording it in every row's `error` column.
class SharedValueError : public Error {
 public:
  using Error::Error;
};

class RunCache {
 public:
  // The value under `key`, made by `make()` (which returns a T) on first use. Thread-safe:
  // concurrent callers of one key wait for a single make(); different keys are made
  // concurrently, and a make() may itself ask for another key. If make() throws, nothing is
  // stored and its error is rethrown as a SharedValueError (one line, core/error_message.h). A
  // key holds one type: asking for another T under it throws embpriv::Error.
  template <class T, class Make>
  const T& get_or_make(const std::string& key, Make make);

  // Keys held (made or being made).
  std::size_t size() const;

 private:
  struct Slot {
    std::mutex mutex;  // held while the value is made
    std::shared_ptr<const void> value;
    std::type_index type = typeid(void);
  };
  Slot& slot(const std::string& key);

  mutable std::mutex mutex_;  // guards slots_ (not the values)
  std::map<std::string, std::unique_ptr<Slot>> slots_;
};

template <class T, class Make>
const T& RunCache::get_or_make(const std::string& key, Make make) {
  Slot& s = slot(key);
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.value) {
    try {
      s.value = std::make_shared<const T>(make());
    } catch (const SharedValueError&) {
      throw;  // made by a nested key
    } catch (const std::exception& e) {
      throw SharedValueError(one_line_message(e));
    }
    s.type = typeid(T);
  }
  EMBPRIV_CHECK(s.type == std::type_index(typeid(T)),
                "run cache: key '" << key << "' holds a " << s.type.name() << ", not a " << typeid(T).name());
  return *static_cast<const T*>(s.value.get());
}

}  // namespace embpriv
