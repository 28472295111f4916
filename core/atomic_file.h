#pragma once
// Files written atomically (results, figures): the bytes go to a temporary PATH.tmp.PID in the
// same folder, are synced, and the temporary is renamed onto PATH, so a reader sees the old file
// or the new one, never a half-written one. A failure (a full disk) removes the temporary and
// leaves the old file as it was; temporaries of processes that died are removed by the next
// writer of the same output.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace embpriv {

// PATH.tmp.PID plus `suffix` (".png": tools that choose a format by the extension).
std::string temporary_path(const std::string& path, const std::string& suffix = "");

// Writes `bytes` to `path` atomically. Throws embpriv::Error naming the path and the system's
// reason ("No space left on device"); the temporary is gone then.
void write_file_atomically(const std::string& path, const std::string& bytes);

// Writes what `write` puts into the stream to `path` atomically, without holding the whole file in
// memory (an embedding cache of 140 MB); the same guarantees and errors as above. An error
// `write` throws removes the temporary and is rethrown.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Renames `temporary` onto `path`; on failure removes `temporary` and throws embpriv::Error.
void rename_into_place(const std::string& temporary, const std::string& path);

// Files removed when this object leaves scope (a failed write's temporaries). Removal never
// throws: a failure to clean up must not replace the error being reported.
class TemporaryFiles {
 public:
  TemporaryFiles() = default;
  ~TemporaryFiles();
  TemporaryFiles(const TemporaryFiles&) = delete;
  TemporaryFiles& operator=(const TemporaryFiles&) = delete;
  // Registers `path` and returns it.
  std::string add(const std::string& path);

 private:
  std::vector<std::string> paths_;
};

// Removes the temporaries (NAME.tmp.PID, NAME.tmp.PID.EXT) whose NAME is the stem of `path`
// followed by '.' or '_' (the results file "out/run.h5", its figures "out/run.cosines.png",
// "out/run_top1.png") in its folder, when
// process PID is no longer alive (kill(PID, 0) fails with ESRCH). Returns the files removed.
std::vector<std::string> remove_stale_temporaries(const std::string& path);

}  // namespace embpriv
