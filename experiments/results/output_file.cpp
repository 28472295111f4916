#include "experiments/results/output_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;

// The folder a file at `path` goes in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// The first existing folder on the way to `folder` that is a file, or empty: a file there means
// the folder can never be made.
fs::path file_in_the_way(const fs::path& folder) {
  fs::path partial;
  for (const fs::path& part : folder) {
    partial /= part;
    std::error_code error;
    if (fs::exists(partial, error) && !fs::is_directory(partial, error)) return partial;
  }
  return {};
}

// True when the open file `fd` is still the file at `path` (its holder may have removed it
// between our open and our lock).
bool still_at_path(int fd, const std::string& path) {
  struct stat opened {}, named {};
  if (::fstat(fd, &opened) != 0 || ::stat(path.c_str(), &named) != 0) return false;
  return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

void check_output_writable(const std::string& path) {
  EMBPRIV_CHECK(!path.empty(), "the results file name is empty");
  std::error_code error;
  EMBPRIV_CHECK(!fs::is_directory(path, error), "cannot write results to " << path << ": it is a folder; "
                                                                             << "name a file such as "
                                                                             << (fs::path(path) / "results.h5").string());
  const fs::path folder = folder_of(path);
  const fs::path file = file_in_the_way(folder);
  EMBPRIV_CHECK(file.empty(), "cannot write results to " << path << ": " << file.string()
                                                          << " is a file, not a folder");
  fs::create_directories(folder, error);
  EMBPRIV_CHECK(!error, "cannot write results to " << path << ": cannot make the folder " << folder.string()
                                                   << " (" << error.message() << ")");
  EMBPRIV_CHECK(::access(folder.c_str(), W_OK | X_OK) == 0,
                "cannot write results to " << path << ": the folder " << folder.string()
                                           << " is not writable (" << std::strerror(errno) << ")");
}

void check_not_replacing(const std::string& path, bool overwrite, const std::string& hint) {
  std::error_code error;
  EMBPRIV_CHECK(overwrite || !fs::exists(path, error), path << " exists; " << hint);
}

OutputLock::OutputLock(const std::string& path) : lock_path_(path + ".lock") {
  for (int attempt = 0; attempt < 10; ++attempt) {
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    EMBPRIV_CHECK(fd_ >= 0, "cannot write results to " << path << ": cannot create its lock file "
                                                        << lock_path_ << " (" << std::strerror(errno) << ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int reason = errno;
      ::close(fd_);
      fd_ = -1;
      EMBPRIV_CHECK(reason != EWOULDBLOCK, "another embpriv process is writing " << path << " (it holds "
                                                                                 << lock_path_ << "); wait for it "
                                                                                 << "to finish, or use another --out");
      throw Error("cannot lock " + lock_path_ + " (" + std::strerror(reason) + ")");
    }
    if (still_at_path(fd_, lock_path_)) {
      remove_stale_temporaries(path);
      return;
    }
    ::close(fd_);  // its holder removed it as we opened it: lock the new one
    fd_ = -1;
  }
  throw Error("cannot lock " + lock_path_ + ": it keeps being replaced");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // removed while still locked, so no other writer holds it meanwhile
  ::close(fd_);
}

}  // namespace embpriv
