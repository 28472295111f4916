#include "apps/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/keys_command.h"
#include "core/error.h"
#include "core/log.h"
#include "experiments/types/bounds/bounds_config.h"
#include "experiments/types/bounds/bounds_job.h"
#include "experiments/engine/config_document.h"
#include "experiments/results/merge.h"
#include "experiments/results/results_info.h"
#include "experiments/engine/run_plan.h"
#include "experiments/types/registry.h"
#include "experiments/engine/runner.h"

namespace embpriv {
namespace {

// `embpriv run` on a config of type bounds: the theory checks, with the overrides applied to
// its keys (all of which are lists or scalars of the check itself: nothing is swept). --out and
// --no-plot apply; --dry-run checks the config and prints the settings; the checks are one job,
// so --shard and --resume do not apply.
int run_bounds_config(const RunOptions& run, const std::string& shard, const MechanismRegistry& registry) {
  EMBPRIV_CHECK(shard == "1/1" && !run.resume,
                run.config_path << ": type bounds runs as one job; --shard and --resume do not apply to it");
  ConfigDocument document = load_config_file(run.config_path);
  apply_overrides(document, run.overrides, [](const std::string&) { return true; });
  const YAML::Node sweep = document.root["sweep"];
  if (sweep && sweep.IsMap() && sweep.size() == 0) document.root.remove("sweep");
  BoundsConfig config = parse_bounds_config(block_yaml(document.root), run.config_path);
  if (run.threads > 0) config.threads = run.threads;
  if (!run.out.empty()) config.out = run.out;
  if (!run.plot) config.plot.clear();
  if (run.dry_run) {
    config.validate();
    std::cout << "bounds: the checks of " << run.config_path << " (nothing run)\n" << config.to_yaml() << "\n";
    return 0;
  }
  return run_bounds_job(config, registry, std::cout);
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

  RunOptions run;
  std::string shard = "1/1";
  bool run_no_plot = false;
  std::string types = "bounds";
  for (const std::string& name : default_experiment_registry().names()) types += ", " + name;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run the experiment (or sweep) a YAML config describes, into an HDF5 file and plots "
             "(types: " + types + "; docs/experiments.md)");
  run_cmd->add_option("config", run.config_path, "YAML config (e.g. configs/paper/vmf_cosine_table.yaml)")
      ->required();
  run_cmd->add_option("overrides", run.overrides,
                      "key.path=value overrides; a list on a scalar key sweeps it "
                      "(mechanism.epsilon=[0.5,1,2] seeds=3)");
  run_cmd->add_option("--out", run.out, "Results file (default: the config's out, results/NAME.h5)");
  run_cmd->add_option("--shard", shard, "Run shard i of N of the grid rows (i/N, 1-based)");
  run_cmd->add_flag("--resume", run.resume, "Continue the results file: run only the rows it lacks");
  run_cmd->add_flag("--overwrite", run.overwrite, "Replace an existing results file");
  run_cmd->add_flag("--dry-run", run.dry_run, "Check the config, print the grid and a time estimate");
  run_cmd->add_flag("--no-plot", run_no_plot, "Do not draw the figures");
  run_cmd->add_option("--threads", run.threads, "Threads (0: the config's, else all cores)");
  run_cmd->add_option("--save-every", run.save_interval_seconds,
                      "Rewrite the results file at most this often, in seconds (0: after every row)")
      ->capture_default_str();

  std::string merge_out;
  std::vector<std::string> merge_inputs;
  CLI::App* merge_cmd = app.add_subcommand("merge", "Join the shard files of one run into one file");
  merge_cmd->add_option("out", merge_out, "Merged results file")->required();
  merge_cmd->add_option("inputs", merge_inputs, "Shard files")->required();

  std::string results_path;
  CLI::App* plot_cmd = app.add_subcommand("plot", "Draw a results file's standard figures (PNG and SVG)");
  plot_cmd->add_option("results", results_path, "Results file (.h5)")->required();
  CLI::App* info_cmd = app.add_subcommand("info", "Show what a results file holds");
  info_cmd->add_option("results", results_path, "Results file (.h5)")->required();

  CLI::App* mechanisms_cmd =
      app.add_subcommand("mechanisms", "List the mechanisms and the keys each accepts");
  const KeysCommand keys(app);

  const std::vector<CLI::App*> commands = {bounds_cmd, run_cmd, merge_cmd, plot_cmd, info_cmd,
                                           mechanisms_cmd, keys.command()};
  for (CLI::App* sub : commands) sub->fallthrough();
  const std::string first = argc > 1 ? argv[1] : "";
  const bool known = std::any_of(commands.begin(), commands.end(),
                                 [&](CLI::App* sub) { return sub->get_name() == first; });
  if (!first.empty() && first[0] != '-' && !known) {
    std::cerr << "embpriv: error: unknown command '" << argv[1]
              << "'; valid: bounds, run, merge, plot, info, mechanisms, keys (see embpriv --help)\n";
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
      const ConfigDocument document = load_config_file(run.config_path);
      run.plot = !run_no_plot;
      if (config_type_name(document) == "bounds") return run_bounds_config(run, shard, registry);
      run.shard = parse_shard(shard);
      return run_experiment(run, default_experiment_registry(), registry, std::cout);
    }
    if (*merge_cmd) {
      const ResultsTable merged = merge_results_files(merge_out, merge_inputs);
      std::cout << "merged " << merge_inputs.size() << " files, " << merged.rows() << " rows, into "
                << merge_out << " (complete: " << merged.attributes.at("complete") << ")\n";
      return 0;
    }
    if (*plot_cmd) {
      for (const std::string& file :
           plot_results_file(results_path, default_experiment_registry(), registry)) {
        std::cout << "plot: " << file << "\n";
      }
      return 0;
    }
    if (*info_cmd) {
      print_results_info(results_path, std::cout);
      return 0;
    }
    if (*mechanisms_cmd) {
      list_mechanisms(registry);
      return 0;
    }
    if (*keys.command()) return keys.run(default_experiment_registry(), std::cout);
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
