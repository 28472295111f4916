#include "experiments/engine/config_document.h"

#include <yaml-cpp/eventhandler.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

namespace embpriv {
namespace {

std::string file_line(const std::string& origin, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return origin;
  return origin + " line " + std::to_string(mark.line + 1);
}

// The sweep entry for a path, also inside zip groups; undefined when the path is not swept.
YAML::Node sweep_entry(const YAML::Node& root, const std::string& path) {
  const YAML::Node sweep = root["sweep"];
  if (!sweep || !sweep.IsMap()) return {};
  for (const auto& entry : sweep) {
    const std::string key = entry.first.as<std::string>();
    if (key == path) return entry.second;
    if (key == "zip" && entry.second.IsSequence()) {
      for (const auto& group : entry.second) {
        if (group.IsMap() && group[path]) return group[path];
      }
    }
  }
  return {};
}

// Refuses a key that is not a plain name, and a map that gives one key twice, here or in any map
// or list below: yaml-cpp keeps both entries, and which one a lookup finds would depend on how
// the key is read. `where` names the place of a key ("x.yaml line 7").
void check_unique_keys(const YAML::Node& node, const std::function<std::string(const YAML::Node&)>& where) {
  if (node.IsSequence()) {
    for (const auto& item : node) check_unique_keys(item, where);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, YAML::Node> seen;
  for (const auto& entry : node) {
    // A complex key ("? [a, b] : 1") names no setting; reading it as a name would throw deep in
    // yaml-cpp.
    EMBPRIV_CHECK(entry.first.IsScalar(), where(entry.first) << ": a key must be a plain name, got '"
                                                             << flow_yaml(entry.first) << "'");
    const auto [first, inserted] = seen.emplace(entry.first.Scalar(), entry.first);
    EMBPRIV_CHECK(inserted, where(entry.first) << ": duplicate key '" << entry.first.Scalar()
                                               << "' (first given at " << where(first->second)
                                               << "); give each key once");
    check_unique_keys(entry.second, where);
  }
}

// At most this many values may be reached through aliases (`*name`) in one YAML text. An alias
// shares its anchor's node, so loading is cheap, but every walk over the config (key checks,
// defaults, the grid, the stored YAML) visits the node once per alias: nested aliases that each
// repeat the previous level 8 times reach 8^9 values from 700 bytes (an "alias bomb"). A config
// that reuses a mechanism map in a sweep reaches tens of values this way.
constexpr std::uint64_t kMaxAliasedValues = 100000;

// Reads the events of a YAML text without building nodes, and refuses, before anything walks
// the config: a second document (`---`; only the first would be read), an alias inside the node
// it names (a cycle: a walk would never end), and aliases that reach more than kMaxAliasedValues
// values.
class YamlShapeCheck final : public YAML::EventHandler {
 public:
  explicit YamlShapeCheck(std::string origin) : origin_(std::move(origin)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents_;
    EMBPRIV_CHECK(documents_ == 1, origin_ << " line " << mark.line + 1
                                           << ": a second YAML document (after '---'); a config is one "
                                           << "document: remove the '---' line or join the documents");
    anchors_.clear();
    open_.clear();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { leaf(anchor); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto found = anchors_.find(anchor);
    EMBPRIV_CHECK(found != anchors_.end(), origin_ << " line " << mark.line + 1
                                                   << ": an alias inside the node its anchor names (a cycle)");
    aliased_ += found->second;
    EMBPRIV_CHECK(aliased_ <= kMaxAliasedValues,
                  origin_ << " line " << mark.line + 1 << ": the aliases (*name) reach more than "
                          << kMaxAliasedValues << " values; write the values out, or use fewer nested aliases");
    add(found->second);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open_.push_back({anchor, 1});
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open_.push_back({anchor, 1});
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YAML::anchor_t anchor;
    std::uint64_t values;  // the node and everything below it, aliases expanded
  };
  void add(std::uint64_t values) {
    if (!open_.empty()) open_.back().values += values;
  }
  void leaf(YAML::anchor_t anchor) {
    if (anchor) anchors_[anchor] = 1;
    add(1);
  }
  void close() {
    const Open done = open_.back();
    open_.pop_back();
    if (done.anchor) anchors_[done.anchor] = done.values;
    add(done.values);
  }

  std::string origin_;
  int documents_ = 0;
  std::uint64_t aliased_ = 0;
  std::map<YAML::anchor_t, std::uint64_t> anchors_;  // the anchors closed so far, by id
  std::vector<Open> open_;
};

// Throws embpriv::Error when `text` is more than one YAML document, or its aliases form a cycle or
// reach too many values (YamlShapeCheck). A syntax error is left to YAML::Load, which reports it.
void check_yaml_shape(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  YamlShapeCheck check(origin);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(check)) {
    }
  } catch (const YAML::Exception& e) {
    throw Error(origin + " line " + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  }
}

bool covers(const std::string& prefix, const std::string& path) {
  return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                            path[prefix.size()] == '.');
}

}  // namespace

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(path);
  while (std::getline(in, part, '.')) parts.push_back(part);
  return parts;
}

YAML::Node find_path(const YAML::Node& root, const std::string& path) {
  YAML::Node node = root;
  for (const std::string& part : split_path(path)) {
    if (!node || !node.IsMap() || !node[part]) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(node[part]);  // reset, not =: assigning a YAML::Node overwrites what it refers to
  }
  return node;
}

void set_path(YAML::Node& root, const std::string& path, const YAML::Node& value) {
  const std::vector<std::string> parts = split_path(path);
  EMBPRIV_CHECK(!parts.empty(), "empty config key");
  YAML::Node node = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node[parts[i]] || !node[parts[i]].IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[parts[i]]);
  }
  node[parts.back()] = value;
}

std::string ConfigDocument::location(const std::string& path) const {
  std::string best_key;
  for (const auto& [key, where] : override_origin) {
    if (covers(key, path) && key.size() >= best_key.size()) best_key = key;
  }
  if (!best_key.empty()) return override_origin.at(best_key);
  // A problem with a map (a mechanism) that an override changed inside: name the override.
  for (const auto& [key, where] : override_origin) {
    if (covers(path, key)) return where;
  }
  if (path.rfind("sweep.", 0) == 0) {
    const YAML::Node entry = sweep_entry(root, path.substr(6));
    if (entry) return file_line(origin, entry);
    return file_line(origin, root["sweep"]);
  }
  YAML::Node node = root;
  YAML::Node deepest = root;
  for (const std::string& part : split_path(path)) {
    if (!node.IsMap() || !node[part]) break;
    node.reset(node[part]);
    deepest.reset(node);
  }
  return file_line(origin, deepest);
}

ConfigDocument parse_config_text(const std::string& text, const std::string& origin) {
  ConfigDocument document;
  document.origin = origin;
  try {
    document.root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(origin + " line " + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  }
  check_yaml_shape(text, origin);  // before any walk over the nodes
  check_unique_keys(document.root, [&](const YAML::Node& key) { return file_line(origin, key); });
  if (!document.root || document.root.IsNull()) document.root = YAML::Node(YAML::NodeType::Map);
  EMBPRIV_CHECK(document.root.IsMap(),
                origin << ": a config must be a YAML map of keys (type: ..., sweep: ...)");
  return document;
}

ConfigDocument load_config_file(const std::string& path) {
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "cannot read config file '" << path << "' (no such file or not readable)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config_text(text.str(), path);
}

void apply_overrides(ConfigDocument& document, const std::vector<std::string>& overrides,
                     const std::function<bool(const std::string&)>& is_list_key) {
  for (const std::string& text : overrides) {
    const std::string where = "command line '" + text + "'";
    const auto equals = text.find('=');
    EMBPRIV_CHECK(equals != std::string::npos && equals > 0,
                  where << ": an override must look like key.path=value");
    const std::string key = text.substr(0, equals);
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(equals + 1));
    } catch (const YAML::Exception& e) {
      throw Error(where + ": the value is not valid YAML: " + e.msg);
    }
    check_yaml_shape(text.substr(equals + 1), where);
    check_unique_keys(value, [&](const YAML::Node&) { return where; });
    if (!document.root["sweep"] || !document.root["sweep"].IsMap()) {
      if (!document.root["sweep"] || document.root["sweep"].IsNull()) {
        document.root["sweep"] = YAML::Node(YAML::NodeType::Map);
      }
    }
    YAML::Node sweep = document.root["sweep"];
    if (key.rfind("sweep.", 0) == 0) {
      const std::string swept = key.substr(6);
      EMBPRIV_CHECK(sweep.IsMap(), where << ": the config's sweep block is not a map");
      sweep[swept] = value;
      document.override_origin["sweep." + swept] = where;
      continue;
    }
    const bool becomes_sweep = value.IsSequence() && !is_list_key(key);
    if (sweep.IsMap()) sweep.remove(key);  // a value given now replaces the key's sweep
    // Inside a swept map (mechanism.epsilon while whole mechanisms are swept) a value must be
    // set after the map: as a sweep of one value.
    bool inside_swept_map = false;
    if (sweep.IsMap()) {
      for (const auto& entry : sweep) {
        const std::string swept = entry.first.as<std::string>();
        inside_swept_map |= key.rfind(swept + ".", 0) == 0;
      }
    }
    EMBPRIV_CHECK(sweep.IsMap() || !(inside_swept_map || becomes_sweep),
                  where << ": the config's sweep block is not a map");
    if (inside_swept_map && !becomes_sweep) {
      YAML::Node one(YAML::NodeType::Sequence);
      one.push_back(value);
      sweep[key] = one;
      document.override_origin["sweep." + key] = where;
    } else if (becomes_sweep) {
      sweep[key] = value;
      document.override_origin["sweep." + key] = where;
    } else {
      set_path(document.root, key, value);
      document.override_origin[key] = where;
    }
  }
}

std::string flow_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

std::string block_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

}  // namespace embpriv
