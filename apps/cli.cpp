#include "apps/cli.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.h"
#include "core/log.h"
#include "experiments/bounds_config.h"
#include "experiments/bounds_job.h"

namespace embpriv {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "cannot read config file " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The type of a config file, read before the experiment's own parser checks the rest.
std::string config_type(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    EMBPRIV_CHECK(false, path << ":" << e.mark.line + 1 << ": malformed YAML: " << e.msg);
  }
  EMBPRIV_CHECK(root.IsMap() && root["type"] && root["type"].IsScalar(),
                path << ": a config needs 'type:' (valid: bounds)");
  return root["type"].as<std::string>();
}

void list_mechanisms(const MechanismRegistry& registry) {
  for (const auto& name : registry.names()) {
    const auto& entry = registry.entry(name);
    std::cout << name << "\n  " << entry.summary << "\n  keys: name";
    for (const auto& key : entry.keys) std::cout << ", " << key;
    std::cout << "\n";
  }
}

}  // namespace

int run_cli(int argc, char** argv, const MechanismRegistry& registry) {
  CLI::App app{"embpriv: privacy mechanisms on language-model embeddings, their attacks, "
               "utility and theory checks"};
  app.require_subcommand(1);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Print only results and errors");

  BoundsConfig bounds;
  std::int64_t dim = 0;
  bool no_plot = false;
  CLI::App* bounds_cmd = app.add_subcommand(
      "bounds", "Check the vMF paper's norm, cosine and dot-product theorems by simulation; "
                "exit 0 iff every check passes");
  bounds_cmd->add_option("--dim", dim, "One dimension d instead of the default {768, 4096}");
  bounds_cmd->add_option("--samples", bounds.samples, "Rows per checked setting")
      ->capture_default_str();
  bounds_cmd->add_option("--seed", bounds.seed, "Run seed")->capture_default_str();
  bounds_cmd->add_option("--out", bounds.out, "HDF5 results file")->capture_default_str();
  bounds_cmd->add_option("--plot", bounds.plot, "PNG plot of cosine vs eps")
      ->capture_default_str();
  bounds_cmd->add_flag("--no-plot", no_plot, "Do not draw the plot");
  bounds_cmd->add_option("--threads", bounds.threads, "Threads (0: LibTorch's default)")
      ->capture_default_str();

  std::string config_path;
  int run_threads = 0;
  CLI::App* run_cmd = app.add_subcommand("run", "Run the experiment a YAML config describes");
  run_cmd->add_option("config", config_path, "YAML config (e.g. configs/bounds.yaml)")
      ->required();
  run_cmd->add_option("--threads", run_threads, "Threads (0: the config's or LibTorch's default)");

  CLI::App* mechanisms_cmd =
      app.add_subcommand("mechanisms", "List the mechanisms and the keys each accepts");

  for (CLI::App* sub : {bounds_cmd, run_cmd, mechanisms_cmd}) sub->fallthrough();
  const std::string first = argc > 1 ? argv[1] : "";
  if (!first.empty() && first[0] != '-' && first != "bounds" && first != "run" &&
      first != "mechanisms") {
    std::cerr << "embpriv: error: unknown command '" << argv[1]
              << "'; valid: bounds, run, mechanisms (see embpriv --help)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  set_quiet(quiet);
  try {
    if (*bounds_cmd) {
      if (dim > 0) bounds.dims = {dim};
      if (no_plot) bounds.plot.clear();
      return run_bounds_job(bounds, registry, std::cout);
    }
    if (*run_cmd) {
      const std::string text = read_file(config_path);
      const std::string type = config_type(text, config_path);
      EMBPRIV_CHECK(type == "bounds",
                    config_path << ": unknown experiment type '" << type << "'; valid: bounds");
      BoundsConfig config = parse_bounds_config(text, config_path);
      if (run_threads > 0) config.threads = run_threads;
      return run_bounds_job(config, registry, std::cout);
    }
    if (*mechanisms_cmd) {
      list_mechanisms(registry);
      return 0;
    }
  } catch (const Error& e) {
    std::cerr << "embpriv: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "embpriv: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}

int run_cli(int argc, char** argv) { return run_cli(argc, argv, default_mechanism_registry()); }

}  // namespace embpriv
