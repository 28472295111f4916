#pragma once
// Checks a config document against the keys an experiment type knows, before any work starts:
// unknown keys (with the valid ones), wrong value types, and a malformed sweep block are all
// reported with the YAML line they come from.
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "experiments/engine/config_document.h"

namespace embpriv {

struct ConfigSchema {
  // Every key with its default value (the engine's common keys and the type's own ones).
  YAML::Node defaults;
  // Paths whose contents another part checks (e.g. "mechanism": the mechanism registry).
  std::set<std::string> open_paths;

  // True when the default at the path is a list (a list override then sets it, not sweeps it).
  bool is_list_key(const std::string& path) const;
  // True when the path names a known key, or lies inside an open path.
  bool knows(const std::string& path) const;
};

// Rejects unknown keys and values of the wrong YAML kind (map/list/scalar, number/text/bool)
// in the document, outside `sweep`, whose entries must name known keys and hold non-empty lists
// (zip groups: lists of one length). Throws embpriv::Error "LOCATION: key: problem".
void check_config_keys(const ConfigDocument& document, const ConfigSchema& schema);

// The document's values over the defaults: what a point of the grid starts from.
// Open maps given by the user replace their default whole.
YAML::Node merge_over_defaults(const ConfigSchema& schema, const YAML::Node& values);

}  // namespace embpriv
