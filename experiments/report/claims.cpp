#include "experiments/report/claims.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "core/error.h"

namespace embpriv {

const std::vector<std::string> kRuleKinds = {"within", "ordering", "ratio", "monotone", "bound", "max_gap", "matched"};
// INCONCLUSIVE: the claim's control failed, so the test could not have refuted it (issue 41,
// item 1: an attack at chance with and without DP supports nothing).
const std::vector<std::string> kVerdicts = {"REPRODUCED", "REFUTED", "DIFFERENT SETTING", "INCONCLUSIVE",
                                            "NOT RUN"};

namespace {

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string joined(const std::vector<std::string>& list) {
  std::string text;
  for (const std::string& item : list) text += (text.empty() ? "" : ", ") + item;
  return text;
}

void check_keys(const YAML::Node& node, const std::vector<std::string>& valid, const std::string& where) {
  EMBPRIV_CHECK(node.IsMap(), where << " must be a map");
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    EMBPRIV_CHECK(contains(valid, key), where << ": unknown key '" << key << "'; valid: " << joined(valid));
  }
}

std::string text_of(const YAML::Node& node, const std::string& key, const std::string& where, bool required) {
  const YAML::Node value = node[key];
  if (!value) {
    EMBPRIV_CHECK(!required, where << ": missing key '" << key << "'");
    return "";
  }
  EMBPRIV_CHECK(value.IsScalar(), where << ": '" << key << "' must be text");
  return value.as<std::string>();
}

double number_of(const YAML::Node& value, const std::string& what) {
  EMBPRIV_CHECK(value.IsScalar(), what << " must be a number");
  try {
    return value.as<double>();
  } catch (const YAML::Exception&) {
    throw Error(what + " must be a number, got '" + value.as<std::string>() + "'");
  }
}

std::optional<double> optional_number(const YAML::Node& node, const std::string& key, const std::string& where) {
  if (!node[key]) return std::nullopt;
  return number_of(node[key], where + ": '" + key + "'");
}

Selection parse_selection(const YAML::Node& node, const std::string& where) {
  Selection selection;
  if (!node) return selection;
  EMBPRIV_CHECK(node.IsMap(), where << " must be a map of column: value(s)");
  for (const auto& entry : node) {
    const std::string column = entry.first.as<std::string>();
    const YAML::Node value = entry.second;
    ColumnMatch match;
    const std::string what = where + "." + column;
    if (value.IsScalar()) {
      match.values.push_back(value.as<std::string>());
    } else if (value.IsSequence()) {
      EMBPRIV_CHECK(value.size() > 0, what << ": an empty list selects nothing");
      for (const auto& item : value) {
        EMBPRIV_CHECK(item.IsScalar(), what << ": list items must be numbers or text");
        match.values.push_back(item.as<std::string>());
      }
    } else if (value.IsMap()) {
      check_keys(value, {"min", "max"}, what);
      match.min = optional_number(value, "min", what);
      match.max = optional_number(value, "max", what);
      EMBPRIV_CHECK(match.min || match.max, what << ": a range needs min or max");
    } else {
      throw Error(what + ": must be a value, a list or {min, max}");
    }
    selection[column] = match;
  }
  return selection;
}

const std::vector<std::string> kRuleKeys = {"kind",      "column",   "where",    "value",    "tolerance",
                                            "min",       "max",      "reference_column", "aggregate", "higher",
                                            "lower",     "margin",   "by",       "direction", "group_by",
                                            "slack",     "at_most",  "at_least", "at_most_column", "over",
                                            "utility_column", "better"};

Rule parse_rule(const YAML::Node& node, const std::string& where) {
  check_keys(node, kRuleKeys, where);
  Rule rule;
  rule.kind = text_of(node, "kind", where, true);
  EMBPRIV_CHECK(contains(kRuleKinds, rule.kind),
                where << ": unknown rule kind '" << rule.kind << "'; valid: " << joined(kRuleKinds));
  rule.column = text_of(node, "column", where, true);
  rule.where = parse_selection(node["where"], where + ".where");
  rule.value = optional_number(node, "value", where);
  rule.tolerance = optional_number(node, "tolerance", where);
  rule.min = optional_number(node, "min", where);
  rule.max = optional_number(node, "max", where);
  rule.reference_column = text_of(node, "reference_column", where, false);
  if (node["aggregate"]) rule.aggregate = text_of(node, "aggregate", where, true);
  rule.higher = parse_selection(node["higher"], where + ".higher");
  rule.lower = parse_selection(node["lower"], where + ".lower");
  if (node["margin"]) rule.margin = number_of(node["margin"], where + ": 'margin'");
  if (rule.kind == "max_gap" || rule.kind == "matched" || rule.kind == "within") {
    // The setting columns: a list (one column may be written alone).
    if (const YAML::Node by = node["by"]) {
      EMBPRIV_CHECK(by.IsSequence() || by.IsScalar(), where << ": 'by' must be a list of columns");
      if (by.IsScalar()) {
        rule.by_columns.push_back(by.as<std::string>());
      } else {
        for (const auto& item : by) {
          EMBPRIV_CHECK(item.IsScalar(), where << ": 'by' must be a list of columns");
          rule.by_columns.push_back(item.as<std::string>());
        }
      }
    }
  } else {
    rule.by = text_of(node, "by", where, false);
  }
  rule.over = text_of(node, "over", where, false);
  rule.utility_column = text_of(node, "utility_column", where, false);
  rule.better = text_of(node, "better", where, false);
  rule.direction = text_of(node, "direction", where, false);
  if (node["group_by"]) {
    EMBPRIV_CHECK(node["group_by"].IsSequence(), where << ": 'group_by' must be a list of columns");
    for (const auto& item : node["group_by"]) rule.group_by.push_back(item.as<std::string>());
  }
  if (node["slack"]) rule.slack = number_of(node["slack"], where + ": 'slack'");
  rule.at_most = optional_number(node, "at_most", where);
  rule.at_least = optional_number(node, "at_least", where);
  rule.at_most_column = text_of(node, "at_most_column", where, false);

  // What each kind needs, and nothing it would silently ignore.
  const auto forbid = [&](bool present, const char* key) {
    EMBPRIV_CHECK(!present, where << ": '" << key << "' does not apply to rule kind " << rule.kind);
  };
  const bool has_groups = !rule.higher.empty() || !rule.lower.empty();
  if (rule.kind == "within") {
    const bool by_range = rule.min || rule.max;
    const bool by_value = rule.value.has_value();
    const bool by_reference = !rule.reference_column.empty();
    EMBPRIV_CHECK(by_range + by_value + by_reference == 1,
                  where << ": rule within needs exactly one of min/max, value (with tolerance) or "
                           "reference_column (with tolerance)");
    EMBPRIV_CHECK(by_range || rule.tolerance, where << ": rule within with value or reference_column needs tolerance");
    EMBPRIV_CHECK(rule.aggregate == "each" || rule.aggregate == "mean" || rule.aggregate == "any" ||
                      rule.aggregate == "best",
                  where << ": aggregate must be each, mean, any or best, got '" << rule.aggregate << "'");
    if (rule.aggregate == "best") {
      EMBPRIV_CHECK(!rule.by_columns.empty(), where << ": aggregate best needs by (the setting columns, a list)");
      forbid(by_reference, "reference_column (with aggregate best)");
    } else {
      EMBPRIV_CHECK(rule.by_columns.empty(), where << ": 'by' applies to rule within only with aggregate best");
    }
    forbid(has_groups, "higher/lower");
    forbid(rule.at_most || rule.at_least || !rule.at_most_column.empty(), "at_most/at_least");
  } else if (rule.kind == "ordering" || rule.kind == "ratio") {
    EMBPRIV_CHECK(!rule.higher.empty() && !rule.lower.empty(), where << ": rule " << rule.kind
                                                                     << " needs higher and lower (row selections)");
    if (rule.kind == "ratio") {
      EMBPRIV_CHECK(rule.min || rule.max, where << ": rule ratio needs min or max");
    } else {
      forbid(rule.min || rule.max, "min/max");
    }
    forbid(rule.value || rule.tolerance || !rule.reference_column.empty(), "value/tolerance/reference_column");
    forbid(!rule.by.empty(), "by");
  } else if (rule.kind == "monotone") {
    EMBPRIV_CHECK(!rule.by.empty(), where << ": rule monotone needs by (the column it is monotone in)");
    EMBPRIV_CHECK(rule.direction == "increasing" || rule.direction == "decreasing",
                  where << ": direction must be increasing or decreasing, got '" << rule.direction << "'");
    forbid(has_groups, "higher/lower");
    forbid(rule.value || rule.min || rule.max, "value/min/max");
  } else if (rule.kind == "bound") {
    EMBPRIV_CHECK(rule.at_most || rule.at_least || !rule.at_most_column.empty(),
                  where << ": rule bound needs at_most, at_most_column or at_least");
    forbid(has_groups, "higher/lower");
    forbid(rule.value || rule.min || rule.max, "value/min/max");
  } else if (rule.kind == "max_gap") {
    EMBPRIV_CHECK(!rule.by_columns.empty(), where << ": rule max_gap needs by (the setting columns, a list)");
    EMBPRIV_CHECK(!rule.over.empty(), where << ": rule max_gap needs over (the column naming the competitor)");
    EMBPRIV_CHECK(!rule.higher.empty() && !rule.lower.empty(),
                  where << ": rule max_gap needs higher and lower (row selections)");
    EMBPRIV_CHECK(!(rule.min && rule.max && *rule.min > *rule.max),
                  where << ": 'min' " << *rule.min << " is above 'max' " << *rule.max);
    forbid(rule.value || rule.tolerance || !rule.reference_column.empty(), "value/tolerance/reference_column");
    forbid(!rule.group_by.empty(), "group_by");
    forbid(rule.at_most || rule.at_least || !rule.at_most_column.empty(), "at_most/at_least");
  } else if (rule.kind == "matched") {
    EMBPRIV_CHECK(!rule.by_columns.empty(), where << ": rule matched needs by (the setting columns, a list)");
    EMBPRIV_CHECK(!rule.over.empty(), where << ": rule matched needs over (the column naming the competitor)");
    EMBPRIV_CHECK(!rule.utility_column.empty(), where << ": rule matched needs utility_column (what is matched)");
    EMBPRIV_CHECK(rule.better == "lower" || rule.better == "higher",
                  where << ": rule matched needs better: lower or higher, got '" << rule.better << "'");
    EMBPRIV_CHECK(!rule.higher.empty() && !rule.lower.empty(),
                  where << ": rule matched needs higher and lower (row selections)");
    EMBPRIV_CHECK(rule.aggregate == "each" || rule.aggregate == "any",
                  where << ": rule matched: aggregate must be each or any, got '" << rule.aggregate << "'");
    forbid(rule.value || rule.tolerance || !rule.reference_column.empty(), "value/tolerance/reference_column");
    forbid(rule.min || rule.max, "min/max");
    forbid(!rule.group_by.empty(), "group_by");
    forbid(rule.at_most || rule.at_least || !rule.at_most_column.empty(), "at_most/at_least");
  }
  if (rule.kind != "max_gap" && rule.kind != "matched") forbid(!rule.over.empty(), "over");
  if (rule.kind != "matched") forbid(!rule.utility_column.empty() || !rule.better.empty(), "utility_column/better");
  if (rule.kind != "monotone") forbid(!rule.direction.empty(), "direction");
  return rule;
}

const std::vector<std::string> kClaimKeys = {"id",         "where",      "claim",    "paper_value", "config",
                                             "ci_config",  "rule",       "ci_rule",  "control",     "ci_control", "setting",
                                             "ci_setting", "not_measured", "expected_ci", "docs"};

Claim parse_claim(const YAML::Node& node, const std::string& path, std::size_t index, const std::string& root) {
  std::string where = path + ", claim " + std::to_string(index + 1);
  EMBPRIV_CHECK(node.IsMap(), where << " must be a map");
  if (node["id"] && node["id"].IsScalar()) where = path + ", claim " + node["id"].as<std::string>();
  check_keys(node, kClaimKeys, where);
  Claim claim;
  claim.source = where;
  claim.id = text_of(node, "id", where, true);
  for (const char c : claim.id) {
    EMBPRIV_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.',
                  where << ": id may hold letters, digits, '-', '_' and '.' only (it is the report's anchor)");
  }
  claim.where = text_of(node, "where", where, true);
  claim.statement = text_of(node, "claim", where, true);
  claim.paper_value = text_of(node, "paper_value", where, true);
  claim.not_measured = text_of(node, "not_measured", where, false);
  claim.config = text_of(node, "config", where, claim.not_measured.empty());
  claim.ci_config = text_of(node, "ci_config", where, false);
  claim.setting = text_of(node, "setting", where, false);
  claim.ci_setting = text_of(node, "ci_setting", where, false);
  claim.docs = text_of(node, "docs", where, false);
  if (!claim.not_measured.empty()) {
    EMBPRIV_CHECK(claim.config.empty() && claim.ci_config.empty() && !node["rule"],
                  where << ": a claim with not_measured has no config, ci_config or rule");
  } else {
    EMBPRIV_CHECK(node["rule"], where << ": missing key 'rule'");
    claim.rule = parse_rule(node["rule"], where + ", rule");
  }
  if (node["ci_rule"]) {
    EMBPRIV_CHECK(!claim.ci_config.empty(), where << ": ci_rule without ci_config");
    claim.ci_rule = parse_rule(node["ci_rule"], where + ", ci_rule");
  }
  if (node["control"]) claim.control = parse_rule(node["control"], where + ", control");
  if (node["ci_control"]) {
    EMBPRIV_CHECK(!claim.ci_config.empty(), where << ": ci_control without ci_config");
    claim.ci_control = parse_rule(node["ci_control"], where + ", ci_control");
  }
  for (const std::string* config : {&claim.config, &claim.ci_config}) {
    if (config->empty()) continue;
    EMBPRIV_CHECK(std::filesystem::is_regular_file(std::filesystem::path(root) / *config),
                  where << ": config '" << *config << "' does not exist (paths are relative to " << root << ")");
  }
  claim.expected_ci = text_of(node, "expected_ci", where, !claim.ci_config.empty());
  if (!claim.expected_ci.empty()) {
    EMBPRIV_CHECK(contains(kVerdicts, claim.expected_ci),
                  where << ": expected_ci '" << claim.expected_ci << "' is not a verdict; valid: " << joined(kVerdicts));
    EMBPRIV_CHECK(!claim.ci_config.empty() || claim.expected_ci == "NOT RUN",
                  where << ": expected_ci without ci_config can only be NOT RUN");
  }
  return claim;
}

}  // namespace

ClaimsFile load_claims_file(const std::string& path, const std::string& root) {
  YAML::Node document;
  try {
    document = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw Error("claims file '" + path + "' cannot be read");
  } catch (const YAML::Exception& e) {
    throw Error(path + ": not valid YAML: " + e.what());
  }
  check_keys(document, {"paper", "title", "paper_file", "claims"}, path);
  ClaimsFile file;
  file.path = path;
  file.paper = text_of(document, "paper", path, true);
  file.title = text_of(document, "title", path, true);
  file.paper_file = text_of(document, "paper_file", path, true);
  EMBPRIV_CHECK(document["claims"] && document["claims"].IsSequence() && document["claims"].size() > 0,
                path << ": 'claims' must be a non-empty list");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < document["claims"].size(); ++i) {
    try {
      file.claims.push_back(parse_claim(document["claims"][i], path, i, root));
    } catch (const YAML::Exception& e) {
      throw Error(path + ", claim " + std::to_string(i + 1) + ": " + e.what());
    }
    EMBPRIV_CHECK(ids.insert(file.claims.back().id).second,
                  file.claims.back().source << ": the id is used twice");
  }
  return file;
}

std::vector<ClaimsFile> load_claims_folder(const std::string& folder, const std::string& root) {
  EMBPRIV_CHECK(std::filesystem::is_directory(folder), "claims folder '" << folder << "' does not exist");
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  EMBPRIV_CHECK(!paths.empty(), "claims folder '" << folder << "' holds no .yaml file");
  std::vector<ClaimsFile> files;
  std::map<std::string, std::string> seen;  // id -> file
  for (const std::string& path : paths) {
    files.push_back(load_claims_file(path, root));
    for (const Claim& claim : files.back().claims) {
      const auto [at, inserted] = seen.emplace(claim.id, path);
      EMBPRIV_CHECK(inserted, claim.source << ": the id is also used in " << at->second);
    }
  }
  return files;
}

}  // namespace embpriv
