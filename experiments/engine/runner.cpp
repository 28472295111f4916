#include "experiments/engine/runner.h"

#include <ATen/Parallel.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "core/progress.h"
#include "experiments/engine/provenance.h"
#include "experiments/engine/result_rows.h"
#include "experiments/engine/run_plan.h"

namespace embpriv {
namespace {

using Clock = std::chrono::steady_clock;

// SIGINT/SIGTERM: the first asks the runner to stop after the current row; the handler then
// steps aside, so a second Ctrl-C stops the process at once.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void request_stop(int signal_number) {
  stop_signal = signal_number;
  std::signal(signal_number, SIG_DFL);
}

class StopOnSignal {
 public:
  StopOnSignal() {
    stop_signal = 0;
    previous_int_ = std::signal(SIGINT, request_stop);
    previous_term_ = std::signal(SIGTERM, request_stop);
  }
  ~StopOnSignal() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }
  bool requested() const { return stop_signal != 0; }

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
};

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(seconds < 10 ? 1 : 0);
  if (seconds < 120) {
    out << seconds << " s";
  } else if (seconds < 7200) {
    out << seconds / 60 << " min";
  } else {
    out << seconds / 3600 << " h";
  }
  return out.str();
}

std::string plot_stem(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / p.stem()).string();
}

void print_dry_run(const RunPlan& plan, const Shard& shard, const std::string& path,
                   std::ostream& out) {
  std::int64_t rows = 0;
  double seconds = 0;
  for (const GridPoint& point : plan.grid) {
    if (!shard.contains(point.row)) continue;
    ++rows;
    seconds += plan.type->estimate_seconds(resolve_point(plan.base, point));
  }
  out << "experiment: " << plan.type->name() << " (" << plan.name << ")\n";
  for (const SweepAxis& axis : plan.axes) {
    out << "  sweep ";
    for (std::size_t k = 0; k < axis.paths.size(); ++k) out << (k ? " + " : "") << axis.paths[k];
    out << ": " << axis.steps.size() << " values\n";
  }
  out << "grid: " << plan.points() << " points x " << plan.seeds << " seeds = " << plan.grid.size()
      << " rows";
  if (shard.count > 1) out << "; shard " << shard.describe() << ": " << rows << " rows";
  out << "\nestimated time: " << seconds_text(seconds) << " on one core\n"
      << "results: " << path << "\n";
}

std::map<std::string, std::string> run_attributes(const RunPlan& plan, const Shard& shard,
                                                  const std::string& device,
                                                  const std::string& start_time,
                                                  std::int64_t shard_rows, std::size_t done) {
  return {{"embpriv_version", embpriv_version()},
          {"git_commit", git_commit()},
          {"type", plan.type->name()},
          {"name", plan.name},
          {"config", plan.config_text},
          {"config_hash", plan.config_hash},
          {"seed", std::to_string(plan.seed)},
          {"seeds", std::to_string(plan.seeds)},
          {"device", device},
          {"start_time", start_time},
          {"end_time", utc_now()},
          {"shard", shard.describe()},
          {"grid_rows", std::to_string(plan.grid.size())},
          {"complete", static_cast<std::int64_t>(done) == shard_rows ? "true" : "false"}};
}

// The rows a results file already holds, after checking it belongs to this run.
RowRecords resumable_records(const RunPlan& plan, const Shard& shard, const std::string& path,
                             std::string& start_time) {
  const ResultsTable table = read_results_h5(path);
  const auto attribute = [&](const char* name) {
    const auto found = table.attributes.find(name);
    return found == table.attributes.end() ? std::string() : found->second;
  };
  EMBPRIV_CHECK(attribute("config_hash") == plan.config_hash,
                path << " was written by another config (or other overrides); --resume needs the "
                     << "same config: use another --out, or --overwrite to start again");
  const bool whole = shard.count == 1 && attribute("shard") == "merged";  // a merged file is a whole run
  EMBPRIV_CHECK(whole || attribute("shard") == shard.describe(),
                path << " holds shard " << attribute("shard") << ", not " << shard.describe());
  start_time = attribute("start_time");
  return records_from_table(plan, table);
}

}  // namespace

int run_experiment(const RunOptions& options, const ExperimentRegistry& types,
                   const MechanismRegistry& mechanisms, std::ostream& out) {
  const RunPlan plan = plan_run(options.config_path, options.overrides, types, mechanisms);
  const std::string path = options.out.empty() ? plan.out : options.out;
  if (options.dry_run) {
    print_dry_run(plan, options.shard, path, out);
    return 0;
  }
  EMBPRIV_CHECK(!(options.resume && options.overwrite), "--resume and --overwrite exclude each other");
  EMBPRIV_CHECK(options.save_interval_seconds >= 0,
                "--save-every must be >= 0 seconds, got " << options.save_interval_seconds);
  const std::string device = select_device(plan.device).str();  // "cuda" without a GPU: an error now
  std::string start_time = utc_now();
  RowRecords records;
  if (std::filesystem::exists(path)) {
    EMBPRIV_CHECK(options.resume || options.overwrite,
                  path << " exists; pass --resume to continue it or --overwrite to replace it");
    if (options.resume) records = resumable_records(plan, options.shard, path, start_time);
  }
  const int threads = options.threads > 0 ? options.threads : plan.threads;
  if (threads > 0) at::set_num_threads(threads);

  std::vector<const GridPoint*> todo;
  std::int64_t shard_rows = 0;
  for (const GridPoint& point : plan.grid) {
    if (!options.shard.contains(point.row)) continue;
    ++shard_rows;
    if (!records.count(point.row)) todo.push_back(&point);
  }
  if (options.resume && !records.empty()) {
    info("resuming " + path + ": " + std::to_string(records.size()) + " of " +
         std::to_string(shard_rows) + " rows done");
  }
  auto save = [&] {
    ResultsTable table = table_from_records(plan, records);
    table.attributes =
        run_attributes(plan, options.shard, device, start_time, shard_rows, records.size());
    write_results_h5(path, table);
  };

  StopOnSignal stop;
  ProgressBar progress(static_cast<std::int64_t>(todo.size()), "rows");
  auto last_save = Clock::now();
  std::size_t failed = 0, done_now = 0;
  for (const GridPoint* point : todo) {
    if (stop.requested()) break;
    const auto start = Clock::now();
    RowRecord record;
    const YAML::Node config = resolve_point(plan.base, *point);
    try {
      record.result = plan.type->run_point({*point, config, mechanisms});
      record.ok = true;
    } catch (const std::exception& e) {  // one failing row must not lose the others
      record.error = e.what();
      ++failed;
    }
    if (record.ok) check_result_columns(*plan.type, record.result);  // a bug of the type: stop loudly
    record.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::ostringstream line;
    line << "[" << ++done_now << "/" << todo.size() << "] row " << point->row << " "
         << (point->key.empty() ? std::string("(no sweep)") : point->key) << " seed="
         << point->seed << ": "
         << (record.ok ? record.result.headline : "FAILED: " + record.error) << " ("
         << seconds_text(record.seconds) << ")";
    if (record.ok) {
      info(line.str());
    } else {
      warn(line.str());
    }
    records[point->row] = std::move(record);
    progress.advance();
    if (std::chrono::duration<double>(Clock::now() - last_save).count() >=
        options.save_interval_seconds) {
      save();
      last_save = Clock::now();
    }
  }
  progress.finish();
  save();

  const bool interrupted = stop.requested();
  const bool complete = static_cast<std::int64_t>(records.size()) == shard_rows;
  out << plan.type->name() << ": " << records.size() << " of " << shard_rows << " rows in " << path;
  if (failed) out << " (" << failed << " failed: see its error column)";
  out << "\n";
  if (interrupted) {
    out << "interrupted by signal " << stop_signal << "; continue with: embpriv run "
        << options.config_path << " --resume" << (options.out.empty() ? "" : " --out " + path)
        << "\n";
    return 130;
  }
  if (complete && options.plot && options.shard.count == 1) {
    for (const std::string& file : plot_results_file(path, types, mechanisms)) {
      out << "plot: " << file << "\n";
    }
  }
  return failed ? 1 : 0;
}

std::vector<std::string> plot_results_file(const std::string& path, const ExperimentRegistry& types,
                                           const MechanismRegistry& mechanisms) {
  const ResultsTable table = read_results_h5(path);
  const auto config = table.attributes.find("config");
  EMBPRIV_CHECK(config != table.attributes.end(),
                path << " has no stored config (not written by embpriv run?)");
  const RunPlan plan = plan_from_document(
      parse_config_text(config->second, path + " (stored config)"), {}, types, mechanisms);
  if (plan.plots.empty()) {
    info(path + ": nothing to plot (no swept parameter to put on the x axis; add plots: to the config)");
    return {};
  }
  return render_plots(table, plan.plots, plot_stem(path));
}

}  // namespace embpriv
