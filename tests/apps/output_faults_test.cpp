// Faults while writing results: a full disk (a file size limit, or a small tmpfs when the tests
// may mount one) stops `embpriv run` and `embpriv plot` with one error line and exit code 2,
// without a crash, with the previous results file unchanged and no temporary left behind; the
// temporaries a killed run left are removed by the next run of the same output.
#include "tests/catch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const std::string kSmallBounds = "bounds --dim 64 --samples 500 -q ";

// The files in `folder` whose name holds ".tmp.".
std::vector<std::string> temporaries_in(const fs::path& folder) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp.") != std::string::npos) found.push_back(name);
  }
  return found;
}

// Files may grow to 16 blocks of the shell's ulimit at most (8 or 16 KB); a longer write fails
// (EFBIG) as it fails on a full disk (ENOSPC), and SIGXFSZ is ignored so that it is a failed
// write, not a killed process.
const std::string kFileLimit = "trap '' XFSZ; ulimit -f 16; exec ";

pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("a full disk stops the run with one error, the previous file unchanged and no temporary left", "[apps][faults]") {
  TempDir dir("embpriv_full_disk_test");
  const std::string out = dir / "b.h5";
  REQUIRE(run_binary(kSmallBounds + "--no-plot --out " + out).code == 0);
  const std::string before = read_file(out);
  REQUIRE(before.size() > 16 * 1024);  // larger than the limit below
  const Outcome full = run_binary(kSmallBounds + "--no-plot --seed 2 --out " + out, Capture::errors, kFileLimit);
  CHECK(full.code == 2);  // not 139: no crash at exit
  CHECK_THAT(full.output, Contains("embpriv: error: cannot write " + out + ": File too large"));
  CHECK(read_file(out) == before);
  CHECK(temporaries_in(dir.path).empty());
  CHECK(!fs::exists(out + ".lock"));
}

TEST_CASE("a figure gnuplot could not write whole is an error, the previous figure kept", "[apps][engine]") {
  // With 64 blocks per file (32 KB in dash's 512-byte blocks, 64 KB in bash's) the plot data fits
  // and the 85 KB PNG does not: gnuplot exits 0 with a truncated image (no IEND chunk), which used
  // to be renamed into place and reported as drawn.
  TempDir dir("embpriv_truncated_plot_test");
  const std::string out = dir / "b.h5", figure = dir / "b.cosines.png";
  REQUIRE(run_binary(kSmallBounds + "--out " + out).code == 0);
  const std::string before = read_file(figure);
  REQUIRE(before.size() > 64 * 1024);
  REQUIRE(before.substr(before.size() - 8, 4) == "IEND");
  const Outcome plot = run_binary("plot " + out, Capture::everything, "trap '' XFSZ; ulimit -f 64; exec ");
  CHECK(plot.code == 2);
  CHECK_THAT(plot.output, Contains("embpriv: error: gnuplot's image for " + figure +
                                   " is truncated (no IEND chunk at its end) (is the disk full?)"));
  CHECK_THAT(plot.output, !Contains("plot: "));
  CHECK(read_file(figure) == before);
  CHECK(temporaries_in(dir.path).empty());
}

TEST_CASE("a failed plot leaves no temporary", "[apps][faults]") {
  TempDir dir("embpriv_failed_plot_test");
  const std::string out = dir / "b.h5";
  REQUIRE(run_binary(kSmallBounds + "--no-plot --out " + out).code == 0);
  const Outcome plot = run_binary("plot " + out, Capture::errors, kFileLimit);
  CHECK(plot.code == 2);
  CHECK_THAT(plot.output, Contains("embpriv: error: "));
  CHECK(temporaries_in(dir.path).empty());
}

TEST_CASE("on a full tmpfs the run stops with 'No space left on device' and leaves nothing", "[apps][faults]") {
  TempDir dir("embpriv_tmpfs_test");
  const std::string mount_point = dir / "full";
  fs::create_directories(mount_point);
  if (std::system(("mount -t tmpfs -o size=16k tmpfs " + mount_point + " 2>/dev/null").c_str()) != 0) {
    std::cout << "skipped: cannot mount a tmpfs here (needs root); the file size limit test covers the same path\n";
    return;
  }
  const std::string out = mount_point + "/b.h5";
  const Outcome full = run_binary(kSmallBounds + "--no-plot --out " + out, Capture::errors);
  const std::vector<std::string> left = temporaries_in(mount_point);
  std::system(("umount " + mount_point).c_str());
  CHECK(full.code == 2);
  CHECK_THAT(full.output, Contains("embpriv: error: cannot write " + out + ": No space left on device"));
  CHECK(left.empty());
}

TEST_CASE("the temporaries a killed run left next to the output are removed by the next run", "[apps][faults]") {
  TempDir dir("embpriv_stale_temporary_test");
  const std::string dead = std::to_string(dead_pid());
  const std::string stale_h5 = dir / ("b.h5.tmp." + dead), stale_png = dir / ("b_norm.png.tmp." + dead + ".png");
  const std::string foreign = dir / ("other.h5.tmp." + dead);
  for (const std::string& path : std::vector<std::string>{stale_h5, stale_png, foreign}) write_file(path, "half written");
  REQUIRE(run_binary(kSmallBounds + "--no-plot --out " + (dir / "b.h5")).code == 0);
  CHECK(!fs::exists(stale_h5));
  CHECK(!fs::exists(stale_png));
  CHECK(fs::exists(foreign));  // another output's: not ours to remove
}
