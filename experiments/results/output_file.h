#pragma once
// Output safety for the commands that write a results file (run, merge): the path is checked
// before any work starts, and a writer holds an advisory lock on it for the whole run, so a
// second writer of the same file is refused instead of silently losing one run's rows.
#include <string>

namespace embpriv {

// Checks that a results file can be written at `path` before any work: it is not a folder, and
// its folder exists (or is made now, as the writer would) and is writable. Throws embpriv::Error
// naming the problem.
void check_output_writable(const std::string& path);

// Refuses to replace an existing file at `path` unless `overwrite`; `hint` says what else to do.
void check_not_replacing(const std::string& path, bool overwrite, const std::string& hint);

// An exclusive advisory lock (flock) on PATH.lock, held while the object lives; the lock file is
// removed when it is released. A second writer of PATH gets an embpriv::Error at once. The
// kernel drops the lock when its holder dies (kill -9 included); a lock file left then is reused.
// Once locked, the temporaries that dead writers left next to PATH are removed
// (remove_stale_temporaries, core/atomic_file.h).
class OutputLock {
 public:
  explicit OutputLock(const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace embpriv
