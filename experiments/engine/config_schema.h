#pragma once
// Checks a config document against the keys an experiment type declares (config_keys.h),
// before any work starts: unknown keys (with the valid ones), values of the wrong kind, and a
// malformed sweep block are all reported with the YAML line they come from.
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "experiments/engine/config_document.h"
#include "experiments/engine/config_keys.h"

namespace embpriv {

struct ConfigSchema {
  // Every declared key: the engine's common keys, then the type's own ones.
  ConfigKeys keys;
  // Every key with its default value, made from the declarations.
  YAML::Node defaults;
  // Paths whose contents another part checks (e.g. "mechanism": the mechanism registry).
  std::set<std::string> open_paths;

  // The declaration at a path (a key or a section), or null.
  const ConfigKey* find(const std::string& path) const;
  // True when the key takes a list (a list override then sets it, not sweeps it).
  bool is_list_key(const std::string& path) const;
  // True when the path names a known key, or lies inside an open path.
  bool knows(const std::string& path) const;
};

// The schema of the declared keys: their defaults and, as open paths, their open maps (the
// sweep block excepted: the engine checks it itself).
ConfigSchema make_config_schema(ConfigKeys keys);

// Rejects unknown keys and values of the wrong kind (config_keys.h: kind_problem) in the
// document, outside `sweep`, whose entries must name known keys and hold non-empty lists
// (zip groups: lists of one length). Throws embpriv::Error "LOCATION: key: problem".
void check_config_keys(const ConfigDocument& document, const ConfigSchema& schema);

// Rejects an open map (a mechanism) at `path` that is a map without its `name` (unless the sweep
// sets `path.name`): merged over the default, it would silently become the default's mechanism.
// The engine calls it for the maps the file or an override gives whole, not for those that
// overrides of single keys build (`mechanism.epsilon=3` changes the default). Throws
// "LOCATION: problem".
void check_open_map_named(const ConfigDocument& document, const std::string& path);

// The document's values over the defaults: what a point of the grid starts from.
// Open maps given by the user with a name replace their default whole; without one (built by
// overrides of single keys, check_open_map_named) their keys are set on the default.
YAML::Node merge_over_defaults(const ConfigSchema& schema, const YAML::Node& values);

}  // namespace embpriv
