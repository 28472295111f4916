// The checksum fence of results files (experiments/results/results_fence.h): written by every
// save, checked before HDF5 reads a byte, by the library and by every command that reads results.
#include "experiments/results/results_fence.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "experiments/results/results_table.h"
#include "tests/catch.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

ResultsTable small_table() {
  ResultsTable table;
  table.columns = {{"row", std::vector<std::int64_t>{0, 1, 2}},
                   {"mean_cosine", std::vector<double>{0.25, 0.5, 0.75}},
                   {"status", std::vector<std::string>{"ok", "ok", "failed"}}};
  table.attributes = {{"type", "perturbation"}};
  return table;
}

std::string read_error(const std::string& path) {
  try {
    read_results_h5(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a results file carries a checksum fence that a damaged byte anywhere breaks", "[experiments][hdf5][fence]") {
  TempDir dir("embpriv_fence_test");
  const std::string path = dir / "run.h5";
  write_results_h5(path, small_table());
  const std::string bytes = read_file(path);
  REQUIRE(bytes.size() > kResultsFenceBytes);
  CHECK_THAT(bytes.substr(0, 64), StartsWith("EMBPRIV-RESULTS-FENCE\nversion 1\nlength " + std::to_string(bytes.size())));
  CHECK(bytes.substr(kResultsFenceBytes, 4) == "\x89HDF");
  CHECK(read_results_h5(path).values<double>("mean_cosine") == std::vector<double>{0.25, 0.5, 0.75});

  // One flipped bit at every 97th byte after the fence: each is refused before HDF5 opens the
  // file, with the same one message, and the file is left as it was.
  for (std::size_t at = kResultsFenceBytes; at < bytes.size(); at += 97) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    write_file(dir / "damaged.h5", damaged);
    INFO("byte " << at);
    CHECK_THAT(read_error(dir / "damaged.h5"),
               StartsWith("results file " + dir / "damaged.h5" + " is damaged: checksum mismatch"));
    CHECK(read_file(dir / "damaged.h5") == damaged);
  }
  // A truncated file, and one with bytes appended, disagree with the fence's length.
  write_file(dir / "cut.h5", bytes.substr(0, bytes.size() - 100));
  CHECK_THAT(read_error(dir / "cut.h5"), Contains("is damaged: it holds") && Contains("truncated"));
  write_file(dir / "long.h5", bytes + "tail");
  CHECK_THAT(read_error(dir / "long.h5"), Contains("is damaged: it holds"));
  // A damaged fence itself: an unreadable one, or one of a later version.
  std::string fence = bytes;
  fence.replace(fence.find("crc32 "), 6, "crc99 ");
  write_file(dir / "fence.h5", fence);
  CHECK_THAT(read_error(dir / "fence.h5"), Contains("is damaged: its checksum fence is unreadable"));
  std::string version = bytes;
  version.replace(version.find("version 1"), 9, "version 7");
  write_file(dir / "version.h5", version);
  CHECK_THAT(read_error(dir / "version.h5"), Contains("has version 7"));
  // Neither a fence nor HDF5's signature at the start: refused before HDF5 sees it.
  std::string overwritten = bytes;
  overwritten.replace(0, 8, "garbage!");
  write_file(dir / "overwritten.h5", overwritten);
  CHECK_THAT(read_error(dir / "overwritten.h5"), Contains("neither embpriv's checksum fence nor HDF5's signature"));
}

TEST_CASE("results files without a fence (older embpriv) are still read", "[experiments][hdf5][fence]") {
  TempDir dir("embpriv_unfenced_test");
  write_results_h5(dir / "run.h5", small_table());
  // The HDF5 image after the user block is the file an older embpriv wrote (no user block).
  write_file(dir / "old.h5", read_file(dir / "run.h5").substr(kResultsFenceBytes));
  const ResultsTable table = read_results_h5(dir / "old.h5");
  CHECK(table.values<double>("mean_cosine") == std::vector<double>{0.25, 0.5, 0.75});
  CHECK(table.values<std::string>("status") == std::vector<std::string>{"ok", "ok", "failed"});
}

TEST_CASE("h5py reads a fenced results file unchanged", "[experiments][hdf5][fence]") {
  if (std::system(EMBPRIV_TEST_PYTHON " -c 'import h5py' > /dev/null 2>&1") != 0) {
    WARN("h5py is not installed for " EMBPRIV_TEST_PYTHON ": the fenced file was not read with h5py");
    return;
  }
  TempDir dir("embpriv_fence_h5py_test");
  write_results_h5(dir / "run.h5", small_table());
  const std::string script = "import h5py; f = h5py.File('" + dir / "run.h5" +
                             "', 'r'); print(f.userblock_size, f['table/mean_cosine'][:].tolist(), "
                             "f.attrs['type'])";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((EMBPRIV_TEST_PYTHON " -c \"" + script + "\" 2>&1").c_str(), "r"),
                                             pclose);
  std::string output;
  char buffer[256];
  while (fgets(buffer, sizeof buffer, pipe.get())) output += buffer;
  CHECK(pclose(pipe.release()) == 0);
  CHECK_THAT(output, Contains("512 [0.25, 0.5, 0.75] perturbation"));
}

TEST_CASE("info, plot, merge and resume refuse a damaged results file and leave it as it is",
          "[experiments][hdf5][fence][cli]") {
  TempDir dir("embpriv_fence_cli_test");
  write_file(dir / "run.yaml",
             "type: perturbation\ndata: {dim: 8, samples: 50}\nsweep: {mechanism.epsilon: [1, 2]}\n");
  REQUIRE(run_binary("run " + dir / "run.yaml" + " --out " + dir / "good.h5" + " --no-plot").code == 0);
  std::string damaged = read_file(dir / "good.h5");
  damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 1);
  write_file(dir / "bad.h5", damaged);
  const std::string message = "embpriv: error: results file " + dir / "bad.h5" + " is damaged: checksum mismatch";
  for (const std::string& args : {"info " + dir / "bad.h5", "plot " + dir / "bad.h5",
                                  "merge " + dir / "merged.h5" + " " + dir / "good.h5" + " " + dir / "bad.h5",
                                  "run " + dir / "run.yaml" + " --out " + dir / "bad.h5" + " --resume --no-plot"}) {
    INFO(args);
    const Outcome outcome = run_binary(args);
    CHECK(outcome.code == 2);
    CHECK_THAT(outcome.output, StartsWith(message));
    CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
    CHECK(read_file(dir / "bad.h5") == damaged);
  }
  CHECK(!fs::exists(dir / "merged.h5"));
  CHECK(run_binary("info " + dir / "good.h5").code == 0);
}
