#include "experiments/engine/run_plan.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/rng.h"

namespace embpriv {

std::string point_location(const RunPlan& plan, const GridPoint& point, const std::string& path) {
  for (const Assignment& a : point.assignment) {
    const bool inside = path == a.path || path.rfind(a.path + ".", 0) == 0 ||
                        a.path.rfind(path + ".", 0) == 0;
    if (inside) return plan.document.location("sweep." + a.path) + " (sweep value " +
                       flow_yaml(a.value) + ")";
  }
  return plan.document.location(path);
}

namespace {

const std::set<std::string> kPlotKeys = {"name", "x", "y", "group_by", "theory",
                                         "log_x", "log_y", "title", "along", "page"};

std::string path_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

// A zip group's first key leads it: the type's figures put only a leader on the x axis (a key
// that follows varies in lockstep with another key, not on its own), a figure over a leader
// draws no line per value of its followers (each such line would hold one point), and only a
// leader's extremes pick rows (a follower's would drop the leader's middle values).
std::vector<PlotRequest> fit_to_zip_groups(std::vector<PlotRequest> requests, const std::vector<SweepAxis>& axes) {
  std::vector<PlotRequest> kept;
  for (PlotRequest& r : requests) {
    for (const SweepAxis& axis : axes) {
      if (axis.any_of) continue;  // its keys do not vary together: none leads
      for (std::size_t k = 1; k < axis.paths.size(); ++k) {
        r.extremes_of.erase(std::remove(r.extremes_of.begin(), r.extremes_of.end(), axis.paths[k]), r.extremes_of.end());
      }
    }
    bool follower = false;
    for (const SweepAxis& axis : axes) {
      const auto at = std::find(axis.paths.begin(), axis.paths.end(), r.x);
      if (at == axis.paths.end() || r.curves || axis.any_of) continue;
      follower = at != axis.paths.begin();
      std::vector<std::string> groups;
      for (const std::string& g : r.group_by) {
        if (std::find(axis.paths.begin(), axis.paths.end(), g) == axis.paths.end()) groups.push_back(g);
      }
      r.group_by = groups;
    }
    if (!follower) kept.push_back(std::move(r));
  }
  return kept;
}

std::vector<PlotRequest> config_plots(const RunPlan& plan) {
  std::vector<PlotRequest> plots;
  const YAML::Node list = plan.base["plots"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node entry = list[i];
    const std::string where = plan.document.location("plots") + ": plots[" + std::to_string(i) + "]";
    EMBPRIV_CHECK(entry.IsMap(), where << " must be a map {x: ..., y: ...}");
    for (const auto& field : entry) {
      const std::string key = field.first.as<std::string>();
      EMBPRIV_CHECK(kPlotKeys.count(key),
                    where << ": unknown key '" << key
                          << "'; valid: name, x, y, group_by, theory, log_x, log_y, title, along, page");
    }
    EMBPRIV_CHECK(entry["x"] && entry["y"], where << " needs x and y (column names)");
    try {
      PlotRequest request;
      request.x = entry["x"].as<std::string>();
      request.y = entry["y"].as<std::string>();
      request.name = entry["name"] ? entry["name"].as<std::string>() : request.y + "_vs_" + request.x;
      if (entry["group_by"]) request.group_by = entry["group_by"].as<std::vector<std::string>>();
      if (entry["theory"]) request.theory = entry["theory"].as<std::string>();
      if (entry["log_x"]) request.log_x = entry["log_x"].as<bool>();
      if (entry["log_y"]) request.log_y = entry["log_y"].as<bool>();
      if (entry["title"]) request.title = entry["title"].as<std::string>();
      if (entry["along"]) request.along = entry["along"].as<std::string>();
      if (entry["page"]) request.page = entry["page"].as<std::string>();
      plots.push_back(request);
    } catch (const YAML::Exception& e) {
      throw Error(where + ": " + e.msg + " (x, y, theory, name, title: text; group_by: a list; "
                  "log_x, log_y: true/false)");
    }
  }
  return plots;
}

}  // namespace

const ConfigKeys& common_keys() {
  static const ConfigKeys keys = {
      ConfigKey::text("type", "", "the experiment type (required; `embpriv keys TYPE` lists its keys)"),
      ConfigKey::text("name", "", "results/NAME.h5; default: the config file's name"),
      ConfigKey::text("description", "", "free text, stored with the results"),
      ConfigKey::integer("seed", 1, "run seed; replicate r uses seed + r").at_least(0),
      ConfigKey::integer("seeds", 1, "replicates of every grid point").at_least(1),
      ConfigKey::text("device", "auto", "auto, cpu, cuda or cuda:N"),
      ConfigKey::integer("threads", 0, "0: all cores").at_least(0),
      ConfigKey::text("out", "", "results file; default results/NAME.h5"),
      ConfigKey::open_list("plots", "[]",
                           "extra figures: {name, x, y, group_by: [...], theory, log_x, log_y, title, along, page}"),
      ConfigKey::open_map("sweep", "{}", "key: [values], and zip: [{key: [...], other: [...]}]"),
  };
  return keys;
}

ConfigSchema schema_of(const ExperimentType& type) {
  ConfigKeys keys = common_keys();
  for (ConfigKey& key : type.keys()) keys.push_back(std::move(key));
  return make_config_schema(std::move(keys));
}

std::string config_type_name(const ConfigDocument& document) {
  const YAML::Node type = document.root["type"];
  EMBPRIV_CHECK(type && type.IsScalar(),
                document.origin << ": the config must name its experiment type (type: ...)");
  return type.as<std::string>();
}

namespace {

// The open maps (mechanisms) a document gives whole; single-key overrides may add to them later.
std::set<std::string> open_maps_in(const ConfigDocument& document, const ConfigSchema& schema) {
  std::set<std::string> given;
  for (const std::string& path : schema.open_paths) {
    if (find_path(document.root, path).IsDefined()) given.insert(path);
  }
  return given;
}

// Step 1: the type, the schema, the overrides applied, and the document's keys checked; base is
// the defaults with the document over them.
void read_document(RunPlan& plan, ConfigDocument document, const std::vector<std::string>& overrides,
                   const ExperimentRegistry& types) {
  const std::string type_name = config_type_name(document);
  try {
    plan.type = &types.find(type_name);
  } catch (const Error& e) {
    throw Error(document.location("type") + ": " + e.what());
  }
  plan.schema = schema_of(*plan.type);
  for (const std::string& text : overrides) {
    EMBPRIV_CHECK(text.rfind("type=", 0) != 0,
                  "command line '" << text << "': the experiment type comes from the config file");
  }
  std::set<std::string> given_whole = open_maps_in(document, plan.schema);  // as the file gives them
  apply_overrides(document, overrides,
                  [&](const std::string& key) { return plan.schema.is_list_key(key); });
  for (const auto& [key, where] : document.override_origin) {
    const std::string path = key.rfind("sweep.", 0) == 0 ? key.substr(6) : key;
    EMBPRIV_CHECK(plan.schema.knows(path), where << ": unknown key '" << path << "'");
    if (plan.schema.open_paths.count(key)) given_whole.insert(key);
  }
  for (const std::string& path : given_whole) check_open_map_named(document, path);
  check_config_keys(document, plan.schema);
  plan.document = std::move(document);
  plan.base = merge_over_defaults(plan.schema, plan.document.root);
}

// Step 2: the settings of the run (the common keys, which cannot be swept: checked once).
void read_run_settings(RunPlan& plan) {
  try {
    check_key_values(common_keys(), plan.base);
  } catch (const ConfigError& e) {
    throw Error(plan.document.location(e.path()) + ": " + e.what());
  }
  plan.seed = plan.base["seed"].as<std::uint64_t>();
  plan.seeds = plan.base["seeds"].as<std::int64_t>();
  // Replicate r uses seed + r, stored in the results' 64-bit signed seed column: the last one
  // must fit (seed 2^63-1 with seeds 3 would store negative seeds).
  constexpr std::uint64_t kMaxSeed = std::numeric_limits<std::int64_t>::max();
  EMBPRIV_CHECK(plan.seed <= kMaxSeed && static_cast<std::uint64_t>(plan.seeds - 1) <= kMaxSeed - plan.seed,
                plan.document.location("seed")
                    << ": seed + seeds - 1 must be at most 2^63-1 = " << kMaxSeed
                    << " (replicate r uses seed + r, stored as a 64-bit integer), got seed " << plan.seed
                    << " and seeds " << plan.seeds);
  plan.threads = plan.base["threads"].as<int>();
  plan.device = plan.base["device"].as<std::string>();
  EMBPRIV_CHECK(plan.device == "auto" || plan.device == "cpu" || plan.device.rfind("cuda", 0) == 0,
                plan.document.location("device")
                    << ": device must be auto, cpu or cuda[:N], got '" << plan.device << "'");
  plan.name = plan.base["name"].as<std::string>();
  if (plan.name.empty()) plan.name = path_stem(plan.document.origin);
  plan.out = plan.base["out"].as<std::string>();
  if (plan.out.empty()) plan.out = "results/" + plan.name + ".h5";
}

// Step 3: the sweep's axes and the grid; a key is swept once, and never a setting of the run.
void expand_sweep(RunPlan& plan) {
  try {
    plan.axes = read_sweep_axes(plan.base["sweep"]);
  } catch (const Error& e) {
    throw Error(plan.document.location("sweep.any_of") + ": " + e.what());
  }
  plan.swept = swept_paths(plan.axes);
  std::set<std::string> seen;
  const ConfigKeys& common = common_keys();
  for (const std::string& path : plan.swept) {
    const std::string head = split_path(path).front();
    EMBPRIV_CHECK(std::none_of(common.begin(), common.end(), [&](const ConfigKey& key) { return key.path == head; }),
                  plan.document.location("sweep." + path)
                      << ": '" << path << "' cannot be swept (it is a setting of the run, not "
                      << "of a grid point; use seeds: N for replicates)");
    EMBPRIV_CHECK(seen.insert(path).second, plan.document.location("sweep." + path)
                                                << ": '" << path << "' is swept twice");
  }
  try {
    plan.grid = expand_grid(plan.axes, plan.seed, plan.seeds);
  } catch (const Error& e) {
    throw Error(plan.document.location("sweep") + ": " + e.what());
  }
}

// Step 4: every distinct point is checked (replicates share their config), before any work.
void check_points(const RunPlan& plan, const MechanismRegistry& mechanisms) {
  for (std::size_t i = 0; i < plan.grid.size(); i += static_cast<std::size_t>(plan.seeds)) {
    const GridPoint& point = plan.grid[i];
    try {
      const YAML::Node config = resolve_point(plan.base, point);
      check_key_values(plan.schema.keys, config);
      plan.type->check_point(config, mechanisms);
    } catch (const ConfigError& e) {
      throw Error(point_location(plan, point, e.path()) + ": " + e.what());
    }
  }
}

// Step 5: the figures, the type's standard ones then the config's; their columns must exist.
void plan_figures(RunPlan& plan) {
  plan.plots = fit_to_zip_groups(plan.type->standard_plots(plan.swept), plan.axes);
  for (PlotRequest& extra : config_plots(plan)) plan.plots.push_back(std::move(extra));
  ResultsTable empty;
  for (const char* c : {"row", "replicate", "seed"}) empty.columns.push_back({c, std::vector<std::int64_t>{}});
  for (const auto& c : plan.swept) empty.columns.push_back({c, std::vector<std::string>{}});
  for (const char* c : {"status", "error"}) empty.columns.push_back({c, std::vector<std::string>{}});
  for (const auto& c : plan.type->number_columns()) empty.columns.push_back({c, std::vector<double>{}});
  for (const auto& c : plan.type->string_columns()) empty.columns.push_back({c, std::vector<std::string>{}});
  // A swept key whose path is also a result column could not be written beside it: refused
  // here, before any row runs, rather than at the final write (docs/reliability.md).
  std::set<std::string> names;
  for (const auto& column : empty.columns) {
    EMBPRIV_CHECK(names.insert(column.name).second,
                  plan.document.location("sweep") << ": column '" << column.name
                                                  << "' would appear twice in the results table (a swept key "
                                                     "named like a result column of type "
                                                  << plan.type->name() << ")");
  }
  for (const PlotRequest& request : plan.plots) {
    const std::string missing = missing_plot_columns(empty, request);
    EMBPRIV_CHECK(missing.empty(), plan.document.location("plots") << ": " << missing);
  }
}

// Step 6: the resolved config as stored with the results, and its hash without the keys that
// cannot change results (`out`, `threads`).
void seal_config(RunPlan& plan) {
  plan.base["name"] = plan.name;  // stored resolved, so the file says what it is
  plan.base["out"] = plan.out;
  plan.config_text = block_yaml(plan.base);
  YAML::Node hashed = YAML::Clone(plan.base);
  hashed.remove("out");
  hashed.remove("threads");
  std::ostringstream hash;
  hash << std::hex << fnv1a64(block_yaml(hashed));
  plan.config_hash = hash.str();
}

}  // namespace

RunPlan plan_from_document(ConfigDocument document, const std::vector<std::string>& overrides,
                           const ExperimentRegistry& types, const MechanismRegistry& mechanisms) {
  RunPlan plan;
  read_document(plan, std::move(document), overrides, types);
  read_run_settings(plan);
  expand_sweep(plan);
  check_points(plan, mechanisms);
  plan_figures(plan);
  seal_config(plan);
  return plan;
}

RunPlan plan_run(const std::string& config_path, const std::vector<std::string>& overrides,
                 const ExperimentRegistry& types, const MechanismRegistry& mechanisms) {
  return plan_from_document(load_config_file(config_path), overrides, types, mechanisms);
}

}  // namespace embpriv
