// Every config the project ships (configs/**/*.yaml) passes `embpriv run CONFIG --dry-run`:
// known keys, values in range at every grid point, data files present; and a dry run writes
// nothing. A config that rots (a
// renamed key, a value out of range) fails here, not in a user's hands.
#include "core/source_dir.h"
#include "tests/catch.h"

#include <filesystem>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

TEST_CASE("every shipped config passes the dry run, which writes nothing", "[engine]") {
  const TempDir dir("embpriv_shipped_configs_test");
  const std::string out = dir / "dry.h5";
  const std::filesystem::path configs = std::filesystem::path(embpriv::source_dir()) / "configs";
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(configs)) {
    if (entry.path().extension() != ".yaml") continue;
    // configs/claims/ holds the papers' claims, not run configs (tests/experiments/report/claims_test.cpp).
    if (entry.path().parent_path().filename() == "claims") continue;
    std::vector<std::string> args = {"embpriv", "-q", "run", entry.path().string(), "--dry-run", "--out", out};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    INFO(entry.path().string());
    CHECK(run_cli(static_cast<int>(argv.size()), argv.data()) == 0);
    CHECK_FALSE(std::filesystem::exists(out));
    ++checked;
  }
  CHECK(checked >= 20);
}
