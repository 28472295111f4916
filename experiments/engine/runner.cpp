#include "experiments/engine/runner.h"

#include <ATen/Parallel.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <thread>

#include "platform/blas_kernel.h"
#include "platform/blas_library.h"
#include "core/device.h"
#include "core/error.h"
#include "core/error_message.h"
#include "core/log.h"
#include "platform/memory_limit.h"
#include "core/progress.h"
#include "experiments/engine/input_files.h"
#include "experiments/engine/provenance.h"
#include "experiments/engine/result_rows.h"
#include "experiments/engine/run_memory.h"
#include "experiments/engine/run_plan.h"
#include "experiments/results/merge.h"
#include "experiments/results/output_file.h"

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
                   const RunMemory& memory, std::ostream& out) {
  std::int64_t rows = 0;
  double seconds = 0;
  for (const GridPoint& point : plan.grid) {
    if (!shard.contains(point.row)) continue;
    ++rows;
    seconds += plan.type->estimate_seconds(resolve_point(plan.base, point));
  }
  out << "experiment: " << plan.type->name() << " (" << plan.name << ")\n";
  for (const SweepAxis& axis : plan.axes) {
    out << "  sweep " << (axis.any_of ? "any_of (" : "");
    for (std::size_t k = 0; k < axis.paths.size(); ++k) out << (k ? " + " : "") << axis.paths[k];
    out << (axis.any_of ? "): " : ": ") << axis.steps.size() << (axis.any_of ? " points\n" : " values\n");
  }
  out << "grid: " << plan.points() << " points x " << plan.seeds << " seeds = " << plan.grid.size()
      << " rows";
  if (shard.count > 1) out << "; shard " << shard.describe() << ": " << rows << " rows";
  out << "\nestimated time: " << seconds_text(seconds) << " on one core\n";
  if (memory.largest_point) {
    const GridPoint& largest = *memory.largest_point;
    out << "estimated memory: " << format_bytes(memory.largest.peak_bytes()) << " at the largest point (row "
        << largest.row << (largest.key.empty() ? "" : " " + largest.key) << ": " << memory.largest.what
        << "); " << format_bytes(memory.run_bytes) << " for the run (shared data kept until it ends: "
        << memory.shared_entries << (memory.shared_entries == 1 ? " entry" : " entries") << ")\n";
  }
  out
      << "limits (checked before any work): a grid of at most " << kMaxGridRows << " rows; a batch of at most "
      << format_bytes(batch_memory_limit_bytes()) << " (half of this machine's "
      << format_bytes(physical_memory_bytes()) << ")\n"
      << "results: " << path << "\n";
}

// What a results file says of the code and the machine: read once per run (git runs as a
// subprocess), not at every save.
struct RunProvenance {
  std::string commit = git_commit();
  BlasLibrary blas = bound_blas();
};

std::map<std::string, std::string> run_attributes(const RunPlan& plan, const Shard& shard,
                                                  const std::string& device,
                                                  const std::string& start_time,
                                                  const RunProvenance& provenance, const std::string& input_files,
                                                  std::int64_t shard_rows, std::size_t done) {
  const BlasLibrary& blas = provenance.blas;
  return {{"embpriv_version", embpriv_version()},
          {"git_commit", provenance.commit},
          {"type", plan.type->name()},
          {"name", plan.name},
          {"config", plan.config_text},
          {"config_hash", plan.config_hash},
          {kInputFilesAttribute, input_files},
          {"seed", std::to_string(plan.seed)},
          {"seeds", std::to_string(plan.seeds)},
          {"device", device},
          {"start_time", start_time},
          {"end_time", utc_now()},
          {"shard", shard.describe()},
          {"grid_rows", std::to_string(plan.grid.size())},
          {"complete", static_cast<std::int64_t>(done) == shard_rows ? "true" : "false"},
          {"blas", blas.describe()},
          {"blas_kernel", blas.kernel},
          {"blas_kernel_origin", blas_kernel_origin()}};
}

// The fingerprints of the files the run reads (input_files.h), logged when hashing took a while.
std::string fingerprint_inputs(const std::vector<InputFile>& inputs) {
  const auto start = Clock::now();
  const std::vector<FileFingerprint> fingerprints = fingerprint_input_files(inputs);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (seconds >= 1) {
    std::uint64_t bytes = 0;
    for (const FileFingerprint& f : fingerprints) bytes += f.size;
    info("fingerprinted " + std::to_string(fingerprints.size()) + " input files (" +
         format_bytes(static_cast<double>(bytes)) + ") in " + seconds_text(seconds) +
         "; unchanged files are not hashed again");
  }
  return input_files_text(fingerprints);
}

// The first log line of a run: the BLAS every matrix product goes through, and its kernel.
void log_blas(const BlasLibrary& blas) {
  info("BLAS: " + blas.describe() + (blas.kernel.empty() ? "" : ", " + blas_kernel_origin()));
  if (const std::string warning = reference_blas_warning(blas); !warning.empty()) warn(warning);
}

// Refuses more threads than the machine has CPUs: each is an OS thread, and thousands of them
// only slow the run down. `what` names the setting.
void check_at_most_cpus(std::int64_t threads, const std::string& what) {
  const unsigned cpus = std::thread::hardware_concurrency();  // 0: unknown, then no limit
  EMBPRIV_CHECK(cpus == 0 || threads <= static_cast<std::int64_t>(cpus),
                what << " must be at most the " << cpus << " CPUs of this machine, got " << threads);
}

// The threads of the run: --threads, else the config's; 0 leaves LibTorch's default (all cores).
int run_threads(const RunOptions& options, const RunPlan& plan) {
  EMBPRIV_CHECK(options.threads >= 0,
                "--threads must be >= 0 (0: the config's threads), got " << options.threads);
  check_at_most_cpus(options.threads, "--threads");
  if (options.threads > 0) return options.threads;
  check_at_most_cpus(plan.threads, plan.document.location("threads") + ": threads");
  return plan.threads;
}

// The rows a results file already holds, after checking it belongs to this run: the same config,
// shard and input data (`input_files`: the fingerprints of the files the run reads now).
RowRecords resumable_records(const RunPlan& plan, const Shard& shard, const std::string& path,
                             const std::string& input_files, std::string& start_time) {
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
  if (table.attributes.count(kInputFilesAttribute)) {
    const std::string difference =
        input_files_difference(attribute(kInputFilesAttribute), input_files, "when " + path + " was written", "now");
    EMBPRIV_CHECK(difference.empty(), path << " was computed on other data: " << difference
                                           << "; --resume needs the same data: use another --out, or "
                                           << "--overwrite to start again");
  } else {
    warn(path + " does not record the contents of its input files (written before embpriv did): resuming "
         "without checking that the data is unchanged");
  }
  start_time = attribute("start_time");
  return records_from_table(plan, table);
}

// The rows of this shard, and those of them the results file does not hold yet (in grid order).
struct ShardRows {
  std::int64_t count = 0;
  std::vector<const GridPoint*> todo;
};

ShardRows shard_rows(const RunPlan& plan, const Shard& shard, const RowRecords& done) {
  ShardRows rows;
  for (const GridPoint& point : plan.grid) {
    if (!shard.contains(point.row)) continue;
    ++rows.count;
    if (!done.count(point.row)) rows.todo.push_back(&point);
  }
  return rows;
}

// The records a run starts from: none, or with --resume those the file at `path` holds (and
// its start time).
RowRecords starting_records(const RunOptions& options, const RunPlan& plan, const std::string& path,
                            const std::string& input_files, std::string& start_time) {
  if (!std::filesystem::exists(path)) return {};
  EMBPRIV_CHECK(options.resume || options.overwrite,
                path << " exists; pass --resume to continue it or --overwrite to replace it");
  return options.resume ? resumable_records(plan, options.shard, path, input_files, start_time) : RowRecords{};
}

// One grid point: its result, or the message of what it threw (one failing row must not lose
// the others), and its wall time.
RowRecord run_row(const RunPlan& plan, const GridPoint& point, const MechanismRegistry& mechanisms,
                  RunCache& cache) {
  const auto start = Clock::now();
  RowRecord record;
  const YAML::Node config = resolve_point(plan.base, point);
  try {
    PhaseClock phases;
    record.result = plan.type->run_point({point, config, mechanisms, cache, phases});
    record.result.phase_seconds = phases.stop();
    record.ok = true;
  } catch (const SharedValueError&) {
    throw;  // the data every row needs: the run stops (run_rows)
  } catch (const std::exception& e) {
    record.error = one_line_message(e);
  }
  if (record.ok) check_result_columns(*plan.type, record.result);  // a bug of the type: stop loudly
  record.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return record;
}

// The log line of a finished row: "[3/12] row 7 mechanism.epsilon=2 seed=1: top1=0.5 (1.2 s)".
void log_row(const RowRecord& record, const GridPoint& point, std::size_t done, std::size_t total) {
  std::ostringstream line;
  line << "[" << done << "/" << total << "] row " << point.row << " "
       << (point.key.empty() ? std::string("(no sweep)") : point.key) << " seed=" << point.seed << ": "
       << (record.ok ? record.result.headline : "FAILED: " + record.error) << " ("
       << seconds_text(record.seconds) << ")";
  if (record.ok) {
    info(line.str());
  } else {
    warn(line.str());
  }
}

struct RowsRun {
  std::size_t failed = 0;
  bool interrupted = false;
};

// Runs the rows in order into `records`, calling save() at most every `save_interval_seconds`
// and once at the end. The rows share one RunCache, freed when they are done. SIGINT/SIGTERM
// stop after the current row. Data the rows share that cannot be loaded stops the run with its
// error, the rows done kept.
RowsRun run_rows(const RunPlan& plan, const std::vector<const GridPoint*>& todo,
                 const MechanismRegistry& mechanisms, double save_interval_seconds,
                 RowRecords& records, const std::function<void()>& save) {
  RunCache cache;
  StopOnSignal stop;
  ProgressBar progress(static_cast<std::int64_t>(todo.size()), "rows");
  auto last_save = Clock::now();
  RowsRun run;
  std::size_t done_now = 0;
  for (const GridPoint* point : todo) {
    if (stop.requested()) break;
    RowRecord record;
    try {
      record = run_row(plan, *point, mechanisms, cache);
    } catch (const SharedValueError&) {
      if (!records.empty()) save();
      throw;
    }
    run.failed += !record.ok;
    log_row(record, *point, ++done_now, todo.size());
    records[point->row] = std::move(record);
    progress.advance();
    if (std::chrono::duration<double>(Clock::now() - last_save).count() >= save_interval_seconds) {
      save();
      last_save = Clock::now();
    }
  }
  progress.finish();
  save();
  run.interrupted = stop.requested();
  return run;
}

// Before reading any shard: the merged file is none of the inputs (`embpriv merge s1 s2 s3`
// forgot OUT), replaces no existing file without --overwrite, and can be written.
void check_merge_output(const std::string& out, const std::vector<std::string>& inputs, bool overwrite) {
  for (const std::string& input : inputs) {
    std::error_code error;
    EMBPRIV_CHECK(out != input && !std::filesystem::equivalent(out, input, error),
                  "the merged file " << out << " is also one of the files to merge; name a new file "
                                     << "first: embpriv merge OUT IN...");
  }
  check_output_writable(out);
  check_not_replacing(out, overwrite, "pass --overwrite to replace it (embpriv merge OUT IN...: OUT comes first)");
}

}  // namespace

int run_experiment(const RunOptions& options, const ExperimentRegistry& types,
                   const MechanismRegistry& mechanisms, std::ostream& out) {
  const InputFileCollector inputs;  // the data files the types check while the run is planned
  const RunPlan plan =
      options.config_text.empty()
          ? plan_run(options.config_path, options.overrides, types, mechanisms)
          : plan_from_document(parse_config_text(options.config_text, options.config_path),
                               options.overrides, types, mechanisms);
  const std::string path = options.out.empty() ? plan.out : options.out;
  const int threads = run_threads(options, plan);
  const RunMemory memory = estimate_run_memory(plan, options.shard);
  check_run_memory(plan, memory);  // before any work, the dry run included
  if (options.dry_run) {
    print_dry_run(plan, options.shard, path, memory, out);
    return 0;
  }
  EMBPRIV_CHECK(!(options.resume && options.overwrite), "--resume and --overwrite exclude each other");
  EMBPRIV_CHECK(options.save_interval_seconds >= 0,
                "--save-every must be >= 0 seconds, got " << options.save_interval_seconds);
  const std::string device = select_device(plan.device).str();  // "cuda" without a GPU: an error now
  check_output_writable(path);
  const OutputLock lock(path);  // held until the rows, their saves and the figures are done
  const std::string input_files = fingerprint_inputs(inputs.files());
  std::string start_time = utc_now();
  RowRecords records = starting_records(options, plan, path, input_files, start_time);
  const RunProvenance provenance;
  log_blas(provenance.blas);  // the first line of a run that starts (the checks above found nothing wrong)
  if (threads > 0) at::set_num_threads(threads);

  const ShardRows rows = shard_rows(plan, options.shard, records);
  if (options.resume && !records.empty()) {
    info("resuming " + path + ": " + std::to_string(records.size()) + " of " +
         std::to_string(rows.count) + " rows done");
  }
  // A whole run that is complete gets the columns that need every row (ExperimentType hooks).
  const auto whole_and_complete = [&] {
    return options.shard.count == 1 && static_cast<std::int64_t>(records.size()) == rows.count;
  };
  ResultsTable table;  // as last saved
  const auto save = [&] {
    table = table_from_records(plan, records);
    table.attributes =
        run_attributes(plan, options.shard, device, start_time, provenance, input_files, rows.count,
                       records.size());
    if (whole_and_complete()) plan.type->complete_table(table, plan.base);
    write_results_h5(path, table);
  };
  const RowsRun run = run_rows(plan, rows.todo, mechanisms, options.save_interval_seconds, records, save);

  out << plan.type->name() << ": " << records.size() << " of " << rows.count << " rows in " << path;
  if (run.failed) out << " (" << run.failed << " failed: see its error column)";
  out << "\n";
  if (run.interrupted) {
    out << "interrupted by signal " << stop_signal << "; continue with: embpriv run " << options.config_path;
    for (const std::string& override_text : options.overrides) out << " '" << override_text << "'";
    out << " --resume" << (options.shard.count > 1 ? " --shard " + options.shard.describe() : "")
        << (options.out.empty() ? "" : " --out " + path) << "\n";
    return 130;
  }
  const int reported = whole_and_complete() ? plan.type->report(table, out) : 0;
  if (whole_and_complete() && options.plot) {
    for (const std::string& file : plot_results_file(path, types, mechanisms)) {
      out << "plot: " << file << "\n";
    }
  }
  return run.failed ? 1 : reported;
}

ResultsTable merge_run_files(const std::string& out, const std::vector<std::string>& inputs,
                             const ExperimentRegistry& types, const MechanismRegistry& mechanisms,
                             bool overwrite) {
  check_merge_output(out, inputs, overwrite);
  const OutputLock lock(out);
  ResultsTable merged = merge_results(inputs);
  const auto config = merged.attributes.find("config");
  if (merged.attributes.at("complete") == "true" && config != merged.attributes.end()) {
    const RunPlan plan = plan_from_document(
        parse_config_text(config->second, inputs.front() + " (stored config)"), {}, types, mechanisms);
    plan.type->complete_table(merged, plan.base);
  }
  write_results_h5(out, merged);
  return merged;
}

std::vector<std::string> plot_results_file(const std::string& path, const ExperimentRegistry& types,
                                           const MechanismRegistry& mechanisms) {
  const ResultsTable table = read_results_h5(path);
  const auto config = table.attributes.find("config");
  EMBPRIV_CHECK(config != table.attributes.end(),
                path << " has no stored config (not written by embpriv run?)");
  const RunPlan plan = plan_from_document(
      parse_config_text(config->second, path + " (stored config)"), {}, types, mechanisms);
  std::vector<std::string> files = plan.type->draw_figures(table, plot_stem(path));
  if (plan.plots.empty() && files.empty()) {
    info(path + ": nothing to plot (no swept parameter to put on the x axis; add plots: to the config)");
    return {};
  }
  for (std::string& file : render_plots(table, plan.plots, plot_stem(path))) files.push_back(std::move(file));
  return files;
}

}  // namespace embpriv
