#include "experiments/engine/config_schema.h"

#include <sstream>
#include <vector>

namespace embpriv {
namespace {

std::string join_keys(const YAML::Node& map) {
  std::ostringstream out;
  bool first = true;
  for (const auto& entry : map) {
    out << (first ? "" : ", ") << entry.first.as<std::string>();
    first = false;
  }
  return out.str();
}

std::string joined(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

// The kind problem of a value at a known path ("" when fine); inside an open map its owner
// checks it per point; a map the declarations make without declaring it (data) must be a map.
std::string kind_problem_at(const ConfigSchema& schema, const std::string& path, const YAML::Node& value) {
  if (const ConfigKey* key = schema.find(path)) return kind_problem(*key, value);
  for (const std::string& open : schema.open_paths) {
    if (path.rfind(open + ".", 0) == 0) return "";
  }
  return value.IsMap() ? "" : path + " must be a map, got " + flow_yaml(value);
}

void check_value(const ConfigDocument& document, const ConfigSchema& schema,
                 const std::string& path, const YAML::Node& value) {
  if (schema.open_paths.count(path)) return;
  const std::string problem = kind_problem_at(schema, path, value);
  if (!problem.empty()) throw Error(document.location(path) + ": " + problem);
}

void check_map(const ConfigDocument& document, const ConfigSchema& schema, const YAML::Node& map,
               const std::string& prefix) {
  const YAML::Node known = prefix.empty() ? schema.defaults : find_path(schema.defaults, prefix);
  for (const auto& entry : map) {
    const std::string key = entry.first.as<std::string>();
    const std::string path = joined(prefix, key);
    if (path == "sweep") continue;
    if (!known[key]) {
      throw Error(document.location(path) + ": unknown key '" + key +
                  "'" + (prefix.empty() ? "" : " in '" + prefix + "'") + "; valid: " +
                  join_keys(known));
    }
    check_value(document, schema, path, entry.second);
    if (entry.second.IsMap() && !schema.open_paths.count(path)) {
      check_map(document, schema, entry.second, path);
    }
  }
}

void check_sweep_list(const ConfigDocument& document, const ConfigSchema& schema,
                      const std::string& path, const YAML::Node& values) {
  const std::string where = document.location("sweep." + path);
  if (!schema.knows(path)) {
    throw Error(where + ": sweep names an unknown key '" + path + "'; valid: " +
                join_keys(schema.defaults));
  }
  if (!values.IsSequence() || values.size() == 0) {
    throw Error(where + ": sweep." + path + " must be a non-empty list of values, got " +
                (values.IsSequence() ? std::string("[]") : flow_yaml(values)));
  }
  if (!find_path(schema.defaults, path)) return;  // inside an open path (e.g. mechanism.clip_norm): checked per point
  for (const auto& value : values) {
    const std::string problem = kind_problem_at(schema, path, value);
    if (!problem.empty()) throw Error(where + ": sweep." + path + " holds " + flow_yaml(value) + ": " + problem);
  }
}

}  // namespace

ConfigSchema make_config_schema(ConfigKeys keys) {
  ConfigSchema schema;
  schema.defaults = defaults_document(keys);
  for (const ConfigKey& key : keys) {
    if (key.kind == KeyKind::open_map && key.path != "sweep") schema.open_paths.insert(key.path);
  }
  schema.keys = std::move(keys);
  return schema;
}

const ConfigKey* ConfigSchema::find(const std::string& path) const {
  for (const ConfigKey& key : keys) {
    if (key.path == path) return &key;
  }
  return nullptr;
}

bool ConfigSchema::is_list_key(const std::string& path) const {
  const ConfigKey* key = find(path);
  return key && key->is_list();
}

bool ConfigSchema::knows(const std::string& path) const {
  for (const std::string& open : open_paths) {
    if (path == open || path.rfind(open + ".", 0) == 0) return true;
  }
  return static_cast<bool>(find_path(defaults, path)) && path != "sweep";
}

namespace {

void check_zip_groups(const ConfigDocument& document, const ConfigSchema& schema, const YAML::Node& groups) {
  if (!groups.IsSequence()) {
    throw Error(document.location("sweep.zip") +
                ": sweep.zip must be a list of groups, each a map of key: [values] of one length");
  }
  for (const auto& group : groups) {
    if (!group.IsMap() || group.size() == 0) {
      throw Error(document.location("sweep.zip") + ": each zip group must be a non-empty map of key: [values]");
    }
    std::size_t length = 0;
    std::string first_key;
    for (const auto& member : group) {
      const std::string path = member.first.as<std::string>();
      check_sweep_list(document, schema, path, member.second);
      if (first_key.empty()) {
        first_key = path;
        length = member.second.size();
      } else if (member.second.size() != length) {
        throw Error(document.location("sweep." + path) + ": zip group lists must have one length: " +
                    first_key + " has " + std::to_string(length) + " values, " + path + " has " +
                    std::to_string(member.second.size()));
      }
    }
  }
}

// A sweep block: key: [values], zip: [groups], and (at the top only) any_of: [blocks].
void check_sweep_block(const ConfigDocument& document, const ConfigSchema& schema,
                       const YAML::Node& block, bool top) {
  for (const auto& entry : block) {
    const std::string key = entry.first.as<std::string>();
    if (key == "zip") {
      check_zip_groups(document, schema, entry.second);
    } else if (key == "any_of" && top) {
      if (!entry.second.IsSequence() || entry.second.size() == 0) {
        throw Error(document.location("sweep.any_of") +
                    ": sweep.any_of must be a non-empty list of sweep blocks (maps of key: [values])");
      }
      for (const auto& inner : entry.second) {
        if (!inner.IsMap() || inner.size() == 0) {
          throw Error(document.location("sweep.any_of") +
                      ": each any_of block must be a non-empty map of key: [values] (and zip:)");
        }
        check_sweep_block(document, schema, inner, false);
      }
    } else if (key == "any_of") {
      throw Error(document.location("sweep.any_of") + ": any_of blocks cannot hold another any_of");
    } else {
      check_sweep_list(document, schema, key, entry.second);
    }
  }
}

}  // namespace

void check_config_keys(const ConfigDocument& document, const ConfigSchema& schema) {
  check_map(document, schema, document.root, "");
  const YAML::Node sweep = document.root["sweep"];
  if (!sweep || sweep.IsNull()) return;
  if (!sweep.IsMap()) {
    throw Error(document.location("sweep") +
                ": sweep must be a map of key: [values] (and optional zip: groups, any_of: blocks)");
  }
  check_sweep_block(document, schema, sweep, true);
}

namespace {

// True when `key` is a key of any map in the sweep block (also in zip groups and any_of blocks).
bool sweep_mentions(const YAML::Node& node, const std::string& key) {
  if (!node) return false;
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (sweep_mentions(item, key)) return true;
    }
  }
  if (!node.IsMap()) return false;
  for (const auto& entry : node) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return true;
    if (sweep_mentions(entry.second, key)) return true;
  }
  return false;
}

}  // namespace

void check_open_map_named(const ConfigDocument& document, const std::string& path) {
  const YAML::Node map = find_path(document.root, path);
  if (!map.IsDefined() || !map.IsMap() || map["name"]) return;
  if (sweep_mentions(document.root["sweep"], path + ".name")) return;
  throw Error(document.location(path) + ": " + path + " " + flow_yaml(map) + " has no name; give the whole " +
              path + " ({name: ..., ...}), or set single keys with " + path + ".KEY");
}

namespace {

void merge_into(YAML::Node merged, const YAML::Node& values, const ConfigSchema& schema,
                const std::string& prefix) {
  for (const auto& entry : values) {
    const std::string key = entry.first.as<std::string>();
    const std::string path = joined(prefix, key);
    // An open map (a mechanism) given with its own `name` replaces the default whole: the keys
    // of another mechanism's default would not be valid for it. Without a name, its keys are
    // set on the default (`mechanism.epsilon=3` changes the default mechanism's epsilon).
    const bool replaces = schema.open_paths.count(path) && entry.second.IsMap() && entry.second["name"];
    if (entry.second.IsMap() && merged[key] && merged[key].IsMap() && path != "sweep" && !replaces) {
      merge_into(merged[key], entry.second, schema, path);
    } else {
      merged[key] = YAML::Clone(entry.second);
    }
  }
}

}  // namespace

YAML::Node merge_over_defaults(const ConfigSchema& schema, const YAML::Node& values) {
  YAML::Node merged = YAML::Clone(schema.defaults);
  merge_into(merged, values, schema, "");
  return merged;
}

}  // namespace embpriv
