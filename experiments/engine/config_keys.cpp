#include "experiments/engine/config_keys.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/error.h"
#include "experiments/engine/config_document.h"

namespace embpriv {
namespace {

// A quoted scalar ("4") has the tag "!" and stays text: it is never a number or a bool.
bool plain_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() != "!"; }

bool is_integer(const YAML::Node& node) {
  std::int64_t value;
  return plain_scalar(node) && YAML::convert<std::int64_t>::decode(node, value);
}

bool is_number(const YAML::Node& node, bool* finite) {
  double value;
  if (!plain_scalar(node) || !YAML::convert<double>::decode(node, value)) return false;
  *finite = std::isfinite(value);
  return true;
}

bool is_bool(const YAML::Node& node) {
  bool value;
  return plain_scalar(node) && YAML::convert<bool>::decode(node, value);
}

// A value as the messages show it: quoted text stays quoted ("got '8' (quoted: text)").
std::string shown(const YAML::Node& value) {
  if (value.IsScalar() && value.Tag() == "!") return "'" + value.Scalar() + "' (quoted: text)";
  return flow_yaml(value);
}

// The shortest decimal text that reads back as the same double (0.1, not 0.10000000000000001).
std::string shortest(double value) {
  if (value == std::round(value) && std::abs(value) < 1e15) return std::to_string(static_cast<std::int64_t>(value));
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream out;
    out.precision(precision);
    out << value;
    if (std::stod(out.str()) == value) return out.str();
  }
  return std::to_string(value);
}

// "a", "a or b", "a, b or c".
std::string choice_list(const std::vector<std::string>& choices) {
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return text;
}

bool in_range(const ConfigKey& key, double value) {
  if (key.min && (key.min_exclusive ? !(value > *key.min) : !(value >= *key.min))) return false;
  if (key.max && (key.max_exclusive ? !(value < *key.max) : !(value <= *key.max))) return false;
  return true;
}

std::string range_text(const ConfigKey& key) {
  if (key.min && key.max) {
    return std::string("in ") + (key.min_exclusive ? "(" : "[") + shortest(*key.min) + ", " + shortest(*key.max) +
           (key.max_exclusive ? ")" : "]");
  }
  if (key.min) return (key.min_exclusive ? "> " : ">= ") + shortest(*key.min);
  if (key.max) return (key.max_exclusive ? "< " : "<= ") + shortest(*key.max);
  return "";
}

bool is_choice(const ConfigKey& key, const YAML::Node& value) {
  return key.choices.empty() ||
         std::find(key.choices.begin(), key.choices.end(), value.as<std::string>()) != key.choices.end();
}

// The range or choice problem of one value of the key (a list key: of one of its entries).
std::string single_value_problem(const ConfigKey& key, const YAML::Node& value) {
  const bool list = key.is_list();
  const std::string must = key.path + (list ? " must hold only values " : " must be ");
  const bool numeric = key.kind == KeyKind::integer || key.kind == KeyKind::number || key.kind == KeyKind::numbers ||
                       key.kind == KeyKind::integers;
  if (numeric && !in_range(key, value.as<double>())) {
    return must + range_text(key) + ", got " + flow_yaml(value);
  }
  if (!is_choice(key, value)) {
    return key.path + (list ? " must hold only " : " must be ") + choice_list(key.choices) + ", got '" +
           value.as<std::string>() + "'";
  }
  return "";
}

ConfigKey declared(std::string path, KeyKind kind, std::string fallback_yaml, std::string help) {
  ConfigKey key;
  key.path = std::move(path);
  key.kind = kind;
  key.default_yaml = std::move(fallback_yaml);
  key.help = std::move(help);
  return key;
}

}  // namespace

const char* kind_name(KeyKind kind) {
  switch (kind) {
    case KeyKind::integer: return "integer";
    case KeyKind::number: return "number";
    case KeyKind::text: return "text";
    case KeyKind::boolean: return "true/false";
    case KeyKind::numbers: return "list of numbers";
    case KeyKind::integers: return "list of integers";
    case KeyKind::texts: return "list of texts";
    case KeyKind::open_map: return "map";
    case KeyKind::open_list: return "list";
    case KeyKind::section: return "section";
  }
  return "?";
}

ConfigKey ConfigKey::integer(std::string path, std::int64_t fallback, std::string help) {
  return declared(std::move(path), KeyKind::integer, std::to_string(fallback), std::move(help));
}
ConfigKey ConfigKey::number(std::string path, std::string fallback_yaml, std::string help) {
  return declared(std::move(path), KeyKind::number, std::move(fallback_yaml), std::move(help));
}
ConfigKey ConfigKey::text(std::string path, std::string fallback, std::string help) {
  return declared(std::move(path), KeyKind::text, flow_yaml(YAML::Node(fallback)), std::move(help));
}
ConfigKey ConfigKey::boolean(std::string path, bool fallback, std::string help) {
  return declared(std::move(path), KeyKind::boolean, fallback ? "true" : "false", std::move(help));
}
ConfigKey ConfigKey::numbers(std::string path, std::string fallback_yaml, std::string help) {
  return declared(std::move(path), KeyKind::numbers, std::move(fallback_yaml), std::move(help));
}
ConfigKey ConfigKey::integers(std::string path, const std::vector<std::int64_t>& fallback, std::string help) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::int64_t value : fallback) list.push_back(value);
  list.SetStyle(YAML::EmitterStyle::Flow);
  return declared(std::move(path), KeyKind::integers, flow_yaml(list), std::move(help));
}
ConfigKey ConfigKey::texts(std::string path, const std::vector<std::string>& fallback, std::string help) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const std::string& text : fallback) list.push_back(text);
  return declared(std::move(path), KeyKind::texts, flow_yaml(list), std::move(help));
}
ConfigKey ConfigKey::open_map(std::string path, std::string fallback_yaml, std::string help) {
  return declared(std::move(path), KeyKind::open_map, std::move(fallback_yaml), std::move(help));
}
ConfigKey ConfigKey::open_list(std::string path, std::string fallback_yaml, std::string help) {
  return declared(std::move(path), KeyKind::open_list, std::move(fallback_yaml), std::move(help));
}
ConfigKey ConfigKey::section(std::string path, std::string help) {
  return declared(std::move(path), KeyKind::section, "", std::move(help));
}

ConfigKey& ConfigKey::at_least(double v) {
  min = v;
  min_exclusive = false;
  return *this;
}
ConfigKey& ConfigKey::above(double v) {
  min = v;
  min_exclusive = true;
  return *this;
}
ConfigKey& ConfigKey::at_most(double v) {
  max = v;
  max_exclusive = false;
  return *this;
}
ConfigKey& ConfigKey::below(double v) {
  max = v;
  max_exclusive = true;
  return *this;
}
ConfigKey& ConfigKey::one_of(std::vector<std::string> names) {
  choices = std::move(names);
  return *this;
}
ConfigKey& ConfigKey::flow() {
  flow_style = true;
  return *this;
}

std::string ConfigKey::allowed() const {
  return choices.empty() ? range_text(*this) : choice_list(choices);
}

std::string kind_problem(const ConfigKey& key, const YAML::Node& value) {
  const std::string got = ", got " + shown(value);
  bool finite = true;
  switch (key.kind) {
    case KeyKind::integer:
      return is_integer(value) ? "" : key.path + " must be an integer" + got;
    case KeyKind::number:
      if (!is_number(value, &finite)) return key.path + " must be a number" + got;
      return finite ? "" : key.path + " must be a finite number" + got;
    case KeyKind::text:
      return value.IsScalar() ? "" : key.path + " must be text (one value)" + got;
    case KeyKind::boolean:
      return is_bool(value) ? "" : key.path + " must be true or false" + got;
    case KeyKind::numbers:
      if (value.IsSequence()) {
        bool all = true;
        for (const auto& entry : value) all = all && is_number(entry, &finite) && finite;
        if (all) return "";
      }
      return key.path + " must be a list of finite numbers" + got;
    case KeyKind::integers:
      if (value.IsSequence() && std::all_of(value.begin(), value.end(), [](const YAML::Node& e) { return is_integer(e); })) {
        return "";
      }
      return key.path + " must be a list of integers" + got;
    case KeyKind::texts:
      if (value.IsSequence() && std::all_of(value.begin(), value.end(), [](const YAML::Node& e) { return e.IsScalar(); })) {
        return "";
      }
      return key.path + " must be a list of texts" + got;
    case KeyKind::open_list:
      return value.IsSequence() ? "" : key.path + " must be a list" + got;
    case KeyKind::open_map:
    case KeyKind::section:
      return value.IsMap() ? "" : key.path + " must be a map" + got;
  }
  return "";
}

std::string value_problem(const ConfigKey& key, const YAML::Node& value) {
  std::string problem = kind_problem(key, value);
  if (!problem.empty()) return problem;
  if (key.kind == KeyKind::numbers || key.kind == KeyKind::integers || key.kind == KeyKind::texts) {
    for (const auto& entry : value) {
      problem = single_value_problem(key, entry);
      if (!problem.empty()) return problem;
    }
    return "";
  }
  if (key.kind == KeyKind::integer || key.kind == KeyKind::number || key.kind == KeyKind::text) {
    return single_value_problem(key, value);
  }
  return "";
}

void check_key_values(const ConfigKeys& keys, const YAML::Node& config) {
  for (const ConfigKey& key : keys) {
    if (key.kind == KeyKind::section || key.kind == KeyKind::open_map || key.kind == KeyKind::open_list) continue;
    const YAML::Node value = find_path(config, key.path);
    if (!value) throw ConfigError(key.path, key.path + " is missing (a swept map must give every key)");
    const std::string problem = value_problem(key, value);
    if (!problem.empty()) throw ConfigError(key.path, problem);
  }
}

YAML::Node defaults_document(const ConfigKeys& keys) {
  YAML::Node document(YAML::NodeType::Map);
  std::set<std::string> leaves;
  for (const ConfigKey& key : keys) {
    const std::vector<std::string> parts = split_path(key.path);
    std::string prefix;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      prefix += (i ? "." : "") + parts[i];
      EMBPRIV_ASSERT(!leaves.count(prefix), "config key " << key.path << " lies inside the key " << prefix);
    }
    EMBPRIV_ASSERT(!find_path(document, key.path), "config key " << key.path << " is declared twice");
    YAML::Node value;
    if (key.kind == KeyKind::section) {
      value = YAML::Node(YAML::NodeType::Map);
      if (key.flow_style) value.SetStyle(YAML::EmitterStyle::Flow);
    } else {
      leaves.insert(key.path);
      value = YAML::Load(key.default_yaml);
      const std::string problem = value_problem(key, value);
      EMBPRIV_ASSERT(problem.empty(), "the default of config key " << key.path << " contradicts its declaration: "
                                                                   << problem);
    }
    set_path(document, key.path, value);
  }
  return document;
}

namespace {

struct Row {
  std::string key, kind, fallback, allowed, help;
};

std::vector<Row> table_rows(const ConfigKeys& keys) {
  std::vector<Row> rows;
  for (const ConfigKey& key : keys) rows.push_back({key.path, kind_name(key.kind), key.default_yaml, key.allowed(), key.help});
  return rows;
}

std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (char c : text) cell += c == '|' ? std::string("\\|") : std::string(1, c);
  return cell;
}

}  // namespace

std::string keys_table_text(const ConfigKeys& keys) {
  const std::vector<Row> rows = table_rows(keys);
  std::size_t widths[4] = {3, 4, 7, 7};
  for (const Row& r : rows) {
    widths[0] = std::max(widths[0], r.key.size());
    widths[1] = std::max(widths[1], r.kind.size());
    widths[2] = std::max(widths[2], r.fallback.size());
  }
  const auto pad = [](const std::string& text, std::size_t width) { return text + std::string(width - text.size(), ' '); };
  std::ostringstream out;
  out << pad("key", widths[0]) << "  " << pad("kind", widths[1]) << "  " << pad("default", widths[2]) << "  allowed\n";
  for (const Row& r : rows) {
    std::string line = pad(r.key, widths[0]) + "  " + pad(r.kind, widths[1]) + "  " + pad(r.fallback, widths[2]) + "  " + r.allowed;
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n    " << r.help << "\n";
  }
  return out.str();
}

std::string keys_table_markdown(const ConfigKeys& keys) {
  std::ostringstream out;
  out << "| key | kind | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const Row& r : table_rows(keys)) {
    out << "| `" << r.key << "` | " << r.kind << " | " << (r.fallback.empty() ? "" : "`" + markdown_cell(r.fallback) + "`")
        << " | " << markdown_cell(r.allowed) << " | " << markdown_cell(r.help) << " |\n";
  }
  return out.str();
}

}  // namespace embpriv
