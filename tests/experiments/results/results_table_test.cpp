// HDF5 results: round trip, atomic writes, clear errors on bad files.
#include "tests/catch.h"
#include <cmath>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "experiments/results/results_table.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("embpriv_results_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("a results table survives a write and a read", "[experiments][hdf5]") {
  const fs::path dir = temp_dir();
  ResultsTable table;
  table.columns = {{"check", std::vector<std::string>{"a", "bb", ""}},
                   {"value", std::vector<double>{1.5, NAN, -2}},
                   {"pass", std::vector<std::int64_t>{1, 0, 1}}};
  table.attributes = {{"config", "type: bounds\nseed: 1\n"}, {"git_commit", "abc"}};
  const std::string path = (dir / "sub" / "t.h5").string();
  write_results_h5(path, table);
  const ResultsTable back = read_results_h5(path);
  CHECK(back.attributes == table.attributes);
  REQUIRE(back.columns.size() == 3);
  CHECK(back.columns[0].name == "check");  // creation order is kept
  CHECK(std::get<std::vector<std::string>>(back.column("check").values) ==
        std::vector<std::string>{"a", "bb", ""});
  const auto& values = std::get<std::vector<double>>(back.column("value").values);
  CHECK(values[0] == 1.5);
  CHECK(std::isnan(values[1]));
  CHECK(std::get<std::vector<std::int64_t>>(back.column("pass").values) ==
        std::vector<std::int64_t>{1, 0, 1});
  // Nothing but the file itself is left behind.
  CHECK(std::distance(fs::directory_iterator(dir / "sub"), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("missing, truncated and foreign files give one clear error", "[experiments][hdf5]") {
  const fs::path dir = temp_dir();
  ResultsTable table;
  table.columns = {{"x", std::vector<double>(1000, 1.0)}};
  const std::string good = (dir / "good.h5").string();
  write_results_h5(good, table);
  const auto size = fs::file_size(good);
  fs::copy_file(good, dir / "cut.h5");
  fs::resize_file(dir / "cut.h5", size / 2);
  std::ofstream(dir / "text.h5") << "not hdf5";
  auto error_of = [](const fs::path& p) {
    try {
      read_results_h5(p.string());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error_of(dir / "none.h5"), Contains("no such results file"));
  CHECK_THAT(error_of(dir / "cut.h5"), Contains("cut.h5") && (Contains("truncated") || Contains("could not")));
  CHECK_THAT(error_of(dir / "text.h5"), Contains("not a readable HDF5 file"));
  fs::remove_all(dir);
}
