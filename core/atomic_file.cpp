#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;

const char kTemporaryMark[] = ".tmp.";

// The PID of a temporary's name NAME.tmp.PID[.EXT] whose NAME is `stem` followed by '.' or '_'
// (the results file and its figures), or 0.
pid_t temporary_owner(const std::string& file_name, const std::string& stem) {
  if (file_name.size() <= stem.size() || file_name.compare(0, stem.size(), stem) != 0) return 0;
  if (file_name[stem.size()] != '.' && file_name[stem.size()] != '_') return 0;
  const std::size_t mark = file_name.rfind(kTemporaryMark);
  if (mark == std::string::npos || mark < stem.size()) return 0;
  const std::size_t start = mark + sizeof kTemporaryMark - 1;
  std::size_t end = start;
  while (end < file_name.size() && file_name[end] >= '0' && file_name[end] <= '9') ++end;
  if (end == start || end - start > 9 || (end < file_name.size() && file_name[end] != '.')) return 0;
  return static_cast<pid_t>(std::stol(file_name.substr(start, end - start)));
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

void remove_quietly(const std::string& path) noexcept {
  std::error_code ignored;
  fs::remove(path, ignored);
}

// Writes all of `bytes` to `fd` and syncs it; the system's reason on failure, else empty.
std::string write_and_sync(int fd, const std::string& bytes) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::strerror(errno);
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return std::strerror(errno);
  return {};
}

}  // namespace

std::string temporary_path(const std::string& path, const std::string& suffix) {
  return path + kTemporaryMark + std::to_string(::getpid()) + suffix;
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = temporary_path(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EMBPRIV_CHECK(fd >= 0, "cannot write " << path << ": cannot create " << temporary << " ("
                                         << std::strerror(errno) << ")");
  std::string problem = write_and_sync(fd, bytes);
  if (::close(fd) != 0 && problem.empty()) problem = std::strerror(errno);
  if (!problem.empty()) {
    remove_quietly(temporary);
    throw Error("cannot write " + path + ": " + problem + " (the previous file, if any, is unchanged)");
  }
  rename_into_place(temporary, path);
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = temporary_path(path);
  std::string problem;
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    EMBPRIV_CHECK(out, "cannot write " << path << ": cannot create " << temporary << " (" << std::strerror(errno) << ")");
    write(out);
    out.flush();
    if (!out) problem = std::strerror(errno);
  } catch (...) {
    remove_quietly(temporary);
    throw;
  }
  if (problem.empty()) {  // the stream is closed: sync what it wrote
    const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) problem = std::strerror(errno);
    if (fd >= 0) ::close(fd);
  }
  if (!problem.empty()) {
    remove_quietly(temporary);
    throw Error("cannot write " + path + ": " + problem + " (the previous file, if any, is unchanged)");
  }
  rename_into_place(temporary, path);
}

void rename_into_place(const std::string& temporary, const std::string& path) {
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    remove_quietly(temporary);
    throw Error("cannot write " + path + ": cannot rename " + temporary + " onto it (" + error.message() + ")");
  }
}

TemporaryFiles::~TemporaryFiles() {
  for (const std::string& path : paths_) remove_quietly(path);
}

std::string TemporaryFiles::add(const std::string& path) {
  paths_.push_back(path);
  return path;
}

std::vector<std::string> remove_stale_temporaries(const std::string& path) {
  const fs::path target(path);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string stem = target.stem().string();
  std::vector<std::string> removed;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    const pid_t owner = temporary_owner(name, stem);
    if (owner <= 0 || owner == ::getpid() || process_alive(owner)) continue;
    std::error_code ignored;
    if (fs::remove(it->path(), ignored)) removed.push_back(it->path().string());
  }
  return removed;
}

}  // namespace embpriv
