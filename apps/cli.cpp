#include "apps/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <iostream>
#include <vector>

#include "apps/accountant_command.h"
#include "apps/convert_command.h"
#include "apps/embed_command.h"
#include "apps/bounds_config.h"
#include "apps/keys_command.h"
#include "apps/perturb_command.h"
#include "apps/report_command.h"
#include "apps/system_command.h"
#include "apps/tokenize_command.h"
#include "core/error.h"
#include "core/error_message.h"
#include "core/log.h"
#include "experiments/engine/runner.h"
#include "experiments/results/results_info.h"
#include "experiments/types/registry.h"

namespace embpriv {
namespace {

// One subcommand: its CLI11 parser and what it does once parsed (returns the exit code).
struct Command {
  CLI::App* app;
  std::function<int()> act;
};

void add_run_flags(CLI::App* cmd, RunOptions& run, bool& no_plot) {
  cmd->add_option("--out", run.out, "Results file (default: the config's out, results/NAME.h5)");
  cmd->add_flag("--resume", run.resume, "Continue the results file: run only the rows it lacks");
  cmd->add_flag("--no-plot", no_plot, "Do not draw the figures");
  cmd->add_option("--threads", run.threads, "Threads (0: the config's, else all cores)");
}

// `embpriv bounds`: configs/bounds.yaml (built in), with the options as overrides.
Command bounds_command(CLI::App& app, const MechanismRegistry& registry) {
  struct Options {
    RunOptions run;
    std::int64_t dim = 0, samples = 0;
    std::uint64_t seed = 1;
    bool no_plot = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "bounds", "Check the vMF paper's norm, cosine and dot-product theorems by simulation "
                "(runs configs/bounds.yaml); exit 0 iff every check passes");
  CLI::Option* dim = cmd->add_option("--dim", o->dim, "One dimension d (>= 2) instead of the config's {768, 4096}");
  cmd->add_option("--samples", o->samples, "Random inputs per checked setting (default 20000)");
  cmd->add_option("--seed", o->seed, "Run seed")->capture_default_str();
  add_run_flags(cmd, o->run, o->no_plot);
  return {cmd, [o, dim, &registry] {
            RunOptions run = o->run;
            run.config_path = "configs/bounds.yaml";
            run.config_text = kBoundsConfigText;
            run.overwrite = !run.resume;  // a shorthand: each call checks anew
            run.plot = !o->no_plot;
            run.overrides.push_back("seed=" + std::to_string(o->seed));
            // A given --dim always becomes an override, so the config's check refuses d < 2.
            if (dim->count() > 0) run.overrides.push_back("sweep.data.dim=[" + std::to_string(o->dim) + "]");
            if (o->samples != 0) run.overrides.push_back("data.samples=" + std::to_string(o->samples));
            return run_experiment(run, default_experiment_registry(), registry, std::cout);
          }};
}

Command run_command(CLI::App& app, const MechanismRegistry& registry) {
  struct Options {
    RunOptions run;
    std::string shard = "1/1";
    bool no_plot = false;
  };
  auto o = std::make_shared<Options>();
  std::string types;
  for (const std::string& name : default_experiment_registry().names()) types += (types.empty() ? "" : ", ") + name;
  CLI::App* cmd = app.add_subcommand(
      "run", "Run the experiment (or sweep) a YAML config describes, into an HDF5 file and plots "
             "(types: " + types + "; docs/experiments.md)");
  cmd->add_option("config", o->run.config_path, "YAML config (e.g. configs/paper/vmf_cosine_table.yaml)")
      ->required();
  cmd->add_option("overrides", o->run.overrides,
                  "key.path=value overrides; a list on a scalar key sweeps it "
                  "(mechanism.epsilon=[0.5,1,2] seeds=3)");
  add_run_flags(cmd, o->run, o->no_plot);
  cmd->add_option("--shard", o->shard, "Run shard i of N of the grid rows (i/N, 1-based)");
  cmd->add_flag("--overwrite", o->run.overwrite, "Replace an existing results file");
  cmd->add_flag("--dry-run", o->run.dry_run, "Check the config, print the grid and a time estimate");
  cmd->add_option("--save-every", o->run.save_interval_seconds,
                  "Rewrite the results file at most this often, in seconds (0: after every row)")
      ->capture_default_str();
  return {cmd, [o, &registry] {
            RunOptions run = o->run;
            run.plot = !o->no_plot;
            run.shard = parse_shard(o->shard);
            return run_experiment(run, default_experiment_registry(), registry, std::cout);
          }};
}

Command merge_command(CLI::App& app, const MechanismRegistry& registry) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto overwrite = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("merge", "Join the shard files of one run into one file");
  cmd->add_option("out", *out, "Merged results file (a new file, or --overwrite)")->required();
  cmd->add_option("inputs", *inputs, "Shard files")->required();
  cmd->add_flag("--overwrite", *overwrite, "Replace an existing merged file");
  return {cmd, [out, inputs, overwrite, &registry] {
            const ResultsTable merged =
                merge_run_files(*out, *inputs, default_experiment_registry(), registry, *overwrite);
            std::cout << "merged " << inputs->size() << " files, " << merged.rows() << " rows, into "
                      << *out << " (complete: " << merged.attributes.at("complete") << ")\n";
            return 0;
          }};
}

Command plot_command(CLI::App& app, const MechanismRegistry& registry) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("plot", "Draw a results file's standard figures (PNG and SVG)");
  cmd->add_option("results", *path, "Results file (.h5)")->required();
  return {cmd, [path, &registry] {
            for (const std::string& file : plot_results_file(*path, default_experiment_registry(), registry)) {
              std::cout << "plot: " << file << "\n";
            }
            return 0;
          }};
}

Command info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("info", "Show what a results file holds");
  cmd->add_option("results", *path, "Results file (.h5)")->required();
  return {cmd, [path] {
            print_results_info(*path, std::cout);
            return 0;
          }};
}

Command mechanisms_command(CLI::App& app, const MechanismRegistry& registry) {
  CLI::App* cmd = app.add_subcommand("mechanisms", "List the mechanisms and the keys each accepts");
  auto keys = std::make_shared<bool>(false);  // CLI11 holds its address
  cmd->add_flag("--keys", *keys,
                "Also list each key's default, allowed range and help (mechanisms/mechanism_params.h)");
  return {cmd, [&registry, keys] {
            for (const auto& name : registry.names()) {
              const auto& entry = registry.entry(name);
              std::cout << name << "\n  " << entry.summary << "\n  keys: name";
              for (const auto& key : entry.keys) std::cout << ", " << key.name;
              std::cout << "\n";
              if (!*keys) continue;
              for (const auto& key : entry.keys) {
                const std::string range = key.range_text();
                std::cout << "    " << key.name << ": " << key.default_text() << (range.empty() ? "" : "; " + range)
                          << "; " << key.help << "\n";
              }
            }
            return 0;
          }};
}

Command keys_command(CLI::App& app) {
  auto keys = std::make_shared<KeysCommand>(app);  // CLI11 holds the addresses of its members
  return {keys->command(), [keys] { return keys->run(default_experiment_registry(), std::cout); }};
}

Command system_command(CLI::App& app) {
  auto system = std::make_shared<SystemCommand>(app);
  return {system->command(), [system] { return system->run(std::cout); }};
}

Command accountant_command(CLI::App& app) {
  auto accountant = std::make_shared<AccountantCommand>(app);  // CLI11 holds the addresses of its members
  return {accountant->command(), [accountant] { return accountant->run(std::cout); }};
}

Command convert_command(CLI::App& app) {
  auto convert = std::make_shared<ConvertCommand>(app);  // CLI11 holds the addresses of its members
  return {convert->command(), [convert] { return convert->run(std::cout); }};
}

Command tokenize_command(CLI::App& app) {
  auto tokenize = std::make_shared<TokenizeCommand>(app);  // CLI11 holds the addresses of its members
  return {tokenize->command(), [tokenize] { return tokenize->run(std::cin, std::cout); }};
}

Command perturb_command(CLI::App& app, const MechanismRegistry& registry) {
  auto perturb = std::make_shared<PerturbCommand>(app);  // CLI11 holds the addresses of its members
  return {perturb->command(), [perturb, &registry] { return perturb->run(registry, std::cout); }};
}

Command report_command(CLI::App& app, const MechanismRegistry& registry) {
  auto report = std::make_shared<ReportCommand>(app);  // CLI11 holds the addresses of its members
  return {report->command(), [report, &registry] { return report->run(registry, std::cout, std::cerr); }};
}

Command embed_command(CLI::App& app) {
  auto embed = std::make_shared<EmbedCommand>(app);  // CLI11 holds the addresses of its members
  return {embed->command(), [embed] { return embed->run(std::cin, std::cout); }};
}

// Runs the parsed command; errors become one line on stderr and the exit code of their kind.
int act(const Command& command) {
  try {
    return command.act();
  } catch (const Error& e) {
    // An internal fault (EMBPRIV_ASSERT, whose message starts "internal error: ") prints as
    // `embpriv: internal error: ...`, the form docs/reliability.md documents.
    const std::string message = e.what(), internal = "internal error: ";
    if (e.kind() == ErrorKind::internal) {
      std::cerr << "embpriv: internal error: "
                << (message.rfind(internal, 0) == 0 ? message.substr(internal.size()) : message) << "\n";
    } else {
      std::cerr << "embpriv: error: " << message << "\n";
    }
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "embpriv: internal error: " << one_line_message(e) << "\n";
    return 1;
  }
}

// CLI11's --help and --version print as CLI11 does (exit 0); its parse errors become one line
// of the embpriv kind, with exit code 2.
int parse_error_exit(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
  std::string message = e.what();
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::cerr << "embpriv: error: " << message << " (see embpriv --help)\n";
  return 2;
}

}  // namespace

int run_cli(int argc, char** argv, const MechanismRegistry& registry) {
  CLI::App app{"embpriv: privacy mechanisms on language-model embeddings, their attacks, "
               "utility and theory checks"};
  app.require_subcommand(1);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Print only results and errors");
  const std::vector<Command> commands = {
      bounds_command(app, registry), run_command(app, registry),  merge_command(app, registry),
      plot_command(app, registry),   info_command(app),           mechanisms_command(app, registry),
      keys_command(app),             system_command(app),         tokenize_command(app),
      accountant_command(app),       convert_command(app),        perturb_command(app, registry),
      embed_command(app),            report_command(app, registry)};
  std::string names;
  for (const Command& c : commands) {
    c.app->fallthrough();
    names += (names.empty() ? "" : ", ") + c.app->get_name();
  }
  const std::string first = argc > 1 ? argv[1] : "";
  const bool known = std::any_of(commands.begin(), commands.end(),
                                 [&](const Command& c) { return c.app->get_name() == first; });
  if (!first.empty() && first[0] != '-' && !known) {
    std::cerr << "embpriv: error: unknown command '" << first << "'; valid: " << names
              << " (see embpriv --help)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_error_exit(app, e);
  }
  set_quiet(quiet);
  for (const Command& c : commands) {
    if (*c.app) return act(c);
  }
  return 1;
}

int run_cli(int argc, char** argv) { return run_cli(argc, argv, default_mechanism_registry()); }

}  // namespace embpriv
