// The layout's rules (README, Layout; GUIDE.md sec. 2), checked on the source tree: arrows point
// down (the engine never includes an experiment type; the layers below experiments/ never
// include it), and no experiment type names a mechanism: what a mechanism knows lives on the
// mechanism (mechanisms/mechanism.h), so adding one touches mechanisms/ only.
#include "core/source_dir.h"
#include "tests/catch.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "mechanisms/registry.h"

using namespace embpriv;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = embpriv::source_dir();

std::vector<fs::path> sources_under(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / folder)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".h" || ext == ".cpp") files.push_back(entry.path());
  }
  return files;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The files under `folder` that include a header whose path starts with `prefix`.
std::vector<std::string> including(const fs::path& folder, const std::string& prefix) {
  std::vector<std::string> found;
  const std::regex include("#include \"" + prefix);
  for (const fs::path& file : sources_under(folder)) {
    if (std::regex_search(text_of(file), include)) found.push_back(fs::relative(file, kRoot).string());
  }
  return found;
}

}  // namespace

TEST_CASE("arrows point down: the engine includes no type, lower layers no experiments/", "[engine]") {
  const std::vector<std::string> none;
  CHECK(including("experiments/engine", "experiments/types/") == none);
  CHECK(including("experiments/results", "experiments/engine/") == none);
  CHECK(including("experiments/results", "experiments/types/") == none);
  CHECK(including("experiments/plots", "experiments/types/") == none);
  for (const char* layer : {"core", "data", "mechanisms", "metrics", "accounting", "models", "attacks", "federated"}) {
    INFO(layer);
    CHECK(including(layer, "experiments/") == none);
  }
  // accounting/ sits beside metrics/: it includes core/ only (and no torch).
  for (const char* other : {"data/", "mechanisms/", "metrics/", "models/", "attacks/", "federated/", "apps/"}) {
    INFO(other);
    CHECK(including("accounting", other) == none);
  }
  std::vector<std::string> torch_users;
  for (const fs::path& file : sources_under("accounting")) {
    const std::string text = text_of(file);
    if (text.find("#include <torch/") != std::string::npos || text.find("#include <ATen/") != std::string::npos) {
      torch_users.push_back(fs::relative(file, kRoot).string());
    }
  }
  CHECK(torch_users == none);
}

TEST_CASE("no experiment type names a mechanism", "[engine]") {
  const MechanismRegistry registry = default_mechanism_registry();
  std::vector<std::string> offenders;
  for (const fs::path& file : sources_under("experiments")) {
    const std::string text = text_of(file);
    for (const std::string& name : registry.names()) {
      if (text.find("\"" + name + "\"") != std::string::npos) {
        offenders.push_back(fs::relative(file, kRoot).string() + " names \"" + name + "\"");
      }
    }
  }
  CHECK(offenders == std::vector<std::string>{});
}
