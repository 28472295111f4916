#pragma once
// A YAML experiment config as the user wrote it, plus command-line overrides, with the origin
// of every value ("configs/x.yaml line 7", "command line 'seeds=3'") so that every error can say
// where the bad value came from.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace embpriv {

// A bad value in a config: the engine prefixes the message with the value's location.
class ConfigError : public Error {
 public:
  ConfigError(std::string path, const std::string& message)
      : Error(message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ConfigDocument {
  YAML::Node root;
  std::string origin;                                 // the file name
  std::map<std::string, std::string> override_origin;  // dotted path -> "command line '...'"

  // Where the value at a dotted path came from: an override, else the YAML line of the
  // deepest node on the path that exists ("configs/x.yaml line 7").
  std::string location(const std::string& path) const;
};

// Reads and parses a config file; a missing file or a YAML syntax error gives one clear Error.
ConfigDocument load_config_file(const std::string& path);
ConfigDocument parse_config_text(const std::string& text, const std::string& origin);

// Applies `key.path=value` overrides (value parsed as YAML). A list given for a key whose
// default is a scalar (is_list_key false) becomes a sweep over that key; a scalar given for a
// swept key pins it (the sweep entry is removed); `sweep.<path>=[...]` sets a sweep directly.
void apply_overrides(ConfigDocument& document, const std::vector<std::string>& overrides,
                     const std::function<bool(const std::string&)>& is_list_key);

// Dotted-path access into YAML maps. find_path returns an undefined node when absent.
YAML::Node find_path(const YAML::Node& root, const std::string& path);
void set_path(YAML::Node& root, const std::string& path, const YAML::Node& value);
std::vector<std::string> split_path(const std::string& path);

// One-line flow YAML of a node ("{name: vmf, beta: 1}", "0.5"), and block YAML of a document.
std::string flow_yaml(const YAML::Node& node);
std::string block_yaml(const YAML::Node& node);

}  // namespace embpriv
