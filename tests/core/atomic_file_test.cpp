// Atomic writes: a failed write (a full disk, simulated by a file size limit) leaves the old
// file and no temporary; temporaries of dead processes are removed, those of live ones kept.
#include "tests/catch.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// Files of this process may grow to `bytes` at most while it lives (RLIMIT_FSIZE; writes past
// it fail with EFBIG, as they fail with ENOSPC on a full disk).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &previous_);
    previous_signal_ = signal(SIGXFSZ, SIG_IGN);  // the write fails instead of killing us
    rlimit limit = previous_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &previous_);
    signal(SIGXFSZ, previous_signal_);
  }

 private:
  rlimit previous_{};
  void (*previous_signal_)(int) = nullptr;
};

// The PID of a process that has exited (and been reaped): no process has it now.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("write_file_atomically replaces the file, or on a failed write keeps the old one and no temporary", "[core]") {
  TempDir dir("embpriv_atomic_file_test");
  const std::string path = dir / "out.bin";
  write_file_atomically(path, "old contents");
  CHECK(read_file(path) == "old contents");
  write_file_atomically(path, "new contents");
  CHECK(read_file(path) == "new contents");
  {
    const FileSizeLimit limit(4096);
    CHECK_THROWS_WITH(write_file_atomically(path, std::string(100000, 'x')),
                      Contains("cannot write " + path + ": File too large"));
  }
  CHECK(read_file(path) == "new contents");
  CHECK(names_in(dir.path) == std::vector<std::string>{"out.bin"});
  CHECK_THROWS_WITH(write_file_atomically(dir / "missing/out.bin", "x"), Contains("No such file or directory"));
}

TEST_CASE("TemporaryFiles removes its files on the way out and never throws", "[core]") {
  TempDir dir("embpriv_temporary_files_test");
  {
    TemporaryFiles temporaries;
    write_file(temporaries.add(temporary_path(dir / "a.png", ".dat")), "data");
    temporaries.add(dir / "never_made");  // a missing file is no error
    CHECK(names_in(dir.path).size() == 1);
  }
  CHECK(names_in(dir.path).empty());
}

TEST_CASE("remove_stale_temporaries removes the temporaries of dead processes next to the output", "[core]") {
  TempDir dir("embpriv_stale_temporaries_test");
  const std::string dead = std::to_string(dead_pid()), mine = std::to_string(getpid());
  const std::string parent = std::to_string(getppid());  // alive while we run
  for (const std::string& name : std::vector<std::string>{"run.h5.tmp." + dead, "run_cosine.png.tmp." + dead + ".png", "run_cosine.png.tmp." + dead + ".dat",
        "run.h5.tmp." + mine, "run.h5.tmp." + parent, "other.h5.tmp." + dead, "run.h5.tmp.x" + dead, "runner.h5.tmp." + dead,
        "run.h5", "run_cosine.png"}) {
    write_file(dir / name, "x");
  }
  const std::vector<std::string> removed = remove_stale_temporaries(dir / "run.h5");
  CHECK(removed.size() == 3);
  // names_in sorts by text, so the live pids' order depends on their digits (9788 sorts after 10781).
  std::vector<std::string> kept{"other.h5.tmp." + dead, "run.h5", "run.h5.tmp." + parent, "run.h5.tmp." + mine,
                                "run.h5.tmp.x" + dead, "run_cosine.png", "runner.h5.tmp." + dead};
  std::sort(kept.begin(), kept.end());
  CHECK(names_in(dir.path) == kept);
}

TEST_CASE("write_file_atomically from a stream writer: the same guarantees without the bytes in memory", "[core]") {
  TempDir dir("embpriv_atomic_stream_test");
  const std::string path = dir / "out.bin";
  write_file_atomically(path, [](std::ostream& out) { out << "old " << 42; });
  CHECK(read_file(path) == "old 42");
  // A full disk (a file size limit) fails the write: the old file stays, no temporary is left.
  {
    const FileSizeLimit limit(4096);
    CHECK_THROWS_WITH(write_file_atomically(path, [](std::ostream& out) { out << std::string(100000, 'x'); }),
                      Contains("cannot write " + path) && Contains("the previous file, if any, is unchanged"));
  }
  CHECK(read_file(path) == "old 42");
  CHECK(names_in(dir.path) == std::vector<std::string>{"out.bin"});
  // A writer that throws half way: its error comes through, and nothing else changes.
  CHECK_THROWS_WITH(write_file_atomically(path,
                                          [](std::ostream& out) {
                                            out << "half";
                                            throw Error("the writer failed");
                                          }),
                    "the writer failed");
  CHECK(read_file(path) == "old 42");
  CHECK(names_in(dir.path) == std::vector<std::string>{"out.bin"});
}
