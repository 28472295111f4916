#pragma once
// The keys of an experiment config, each declared once: its dotted path, the kind of value it
// takes, its default, the range or choices allowed and one line of help. From the declarations
// the engine makes the defaults document, the checks of every value (kind, range, choices; each
// failure a ConfigError naming the key and the bad value, which the engine prefixes with the
// YAML line or the override) and the key tables of `embpriv keys TYPE` and docs/experiments.md.
// Checks that involve several keys (norm_max >= norm_min, files that must exist) stay in the
// type's check_point.
//
//   ConfigKey::integer("data.dim", 4096, "the dimension d").at_least(2),
//   ConfigKey::number("data.norm_max", "2.0", "largest input norm"),     // default as YAML text
//   ConfigKey::text("mask", "none", "public tokens sent unchanged").one_of({"none", "punctuation"}),
//   ConfigKey::section("local", "each client's Adam").flow(),            // written {a: 1, b: 2}
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace embpriv {

enum class KeyKind {
  integer,   // a whole number
  number,    // a finite number
  text,      // any single value (a name may look like a number)
  boolean,   // true or false
  numbers,   // a list of finite numbers
  integers,  // a list of whole numbers
  texts,     // a list of single values
  open_map,  // a map whose contents another part checks (mechanism: the mechanism registry)
  open_list, // a list whose entries another part checks (plots: the run plan)
  section,   // a map of declared keys (declared for its help, or to be written in flow style)
};

// "integer", "number", "text", ... as the key tables show it.
const char* kind_name(KeyKind kind);

struct ConfigKey {
  std::string path;          // dotted: "data.dim"
  KeyKind kind = KeyKind::text;
  std::string default_yaml;  // the default as written in a config; the stored config keeps it
                             // verbatim ("1.0e-3" stays "1.0e-3", "2.0" stays "2.0")
  std::string help;          // one line
  std::optional<double> min, max;  // integers, numbers and lists of them (each value)
  bool min_exclusive = false, max_exclusive = false;
  std::vector<std::string> choices;  // text and lists of texts (each value); empty: any
  bool flow_style = false;           // section: written {a: 1, b: 2}

  static ConfigKey integer(std::string path, std::int64_t fallback, std::string help);
  // Numbers take their default as YAML text: the text is what the stored config shows.
  static ConfigKey number(std::string path, std::string fallback_yaml, std::string help);
  static ConfigKey text(std::string path, std::string fallback, std::string help);
  static ConfigKey boolean(std::string path, bool fallback, std::string help);
  static ConfigKey numbers(std::string path, std::string fallback_yaml, std::string help);
  static ConfigKey integers(std::string path, const std::vector<std::int64_t>& fallback, std::string help);
  static ConfigKey texts(std::string path, const std::vector<std::string>& fallback, std::string help);
  static ConfigKey open_map(std::string path, std::string fallback_yaml, std::string help);
  static ConfigKey open_list(std::string path, std::string fallback_yaml, std::string help);
  static ConfigKey section(std::string path, std::string help);

  // Allowed ranges (chainable): value >= v, > v, <= v, < v.
  ConfigKey& at_least(double v);
  ConfigKey& above(double v);
  ConfigKey& at_most(double v);
  ConfigKey& below(double v);
  ConfigKey& one_of(std::vector<std::string> names);
  ConfigKey& flow();

  bool is_list() const {
    return kind == KeyKind::numbers || kind == KeyKind::integers || kind == KeyKind::texts || kind == KeyKind::open_list;
  }
  // ">= 2", "in (0, 1]", "one of: none, punctuation", or "" when anything of the kind goes.
  std::string allowed() const;
};

using ConfigKeys = std::vector<ConfigKey>;

// The problem with a value for a key ("data.dim must be >= 2, got 1"), or "" when it is fine:
// kind_problem looks at the kind only (what a document check can see before the grid exists),
// value_problem at the kind, the range and the choices.
std::string kind_problem(const ConfigKey& key, const YAML::Node& value);
std::string value_problem(const ConfigKey& key, const YAML::Node& value);

// Checks the declared keys of one point's resolved config (sections and open keys excepted);
// throws ConfigError(path, value_problem) at the first bad one, ConfigError(path, "PATH is
// missing") when a swept map left a key out.
void check_key_values(const ConfigKeys& keys, const YAML::Node& config);

// The defaults document: every key at its path with its default, in declaration order.
// Throws an internal Error on a declaration that contradicts itself (a path declared twice, a
// default of the wrong kind or out of its own range, a key inside a key).
YAML::Node defaults_document(const ConfigKeys& keys);

// The key table, as aligned text (`embpriv keys TYPE`) and as markdown (docs/experiments.md).
std::string keys_table_text(const ConfigKeys& keys);
std::string keys_table_markdown(const ConfigKeys& keys);

}  // namespace embpriv
