#pragma once
// Reading the fields of one tokenizer.json (data/tokenizers/hf_tokenizer_json.cpp and
// data/tokenizers/hf_pipeline_json.cpp): every error is an embpriv::Error that names the file.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/error.h"

namespace embpriv {

// Field access with the file's name in every error; `where` names the part being read.
struct HfJsonReader {
  using json = nlohmann::json;
  std::string path;

  [[noreturn]] void fail(const std::string& what) const { throw Error(path + ": " + what); }

  const json& at(const json& j, const char* key, const char* where) const {
    if (!j.is_object() || !j.contains(key)) fail(std::string(where) + " has no \"" + key + "\"");
    return j.at(key);
  }
  bool flag(const json& j, const char* key, bool fallback) const {
    if (!j.contains(key) || j.at(key).is_null()) return fallback;
    if (!j.at(key).is_boolean()) fail(std::string("\"") + key + "\" must be true or false");
    return j.at(key).get<bool>();
  }
  std::string text(const json& j, const char* key, const char* where) const {
    const json& v = at(j, key, where);
    if (!v.is_string()) fail(std::string(where) + "'s \"" + key + "\" must be a string");
    return v.get<std::string>();
  }
  std::string type(const json& j, const char* where) const { return text(j, "type", where); }

  // {"String": s}: s (a {"Regex": r} is refused: no step here needs one).
  std::string string_pattern(const json& j, const char* where) const {
    const json& p = at(j, "pattern", where);
    if (p.contains("String")) return text(p, "String", where);
    fail(std::string(where) + " with a non-String pattern " + p.dump() + " is not supported");
  }

  // The steps of a component: a Sequence's members in order, or the one component.
  std::vector<const json*> steps(const json& j, const char* list_key, const char* where) const {
    if (j.is_null()) return {};
    if (type(j, where) != "Sequence") return {&j};
    std::vector<const json*> out;
    const json& list = at(j, list_key, where);
    if (!list.is_array()) fail(std::string(where) + " Sequence's \"" + list_key + "\" must be a list");
    for (const json& member : list) {
      for (const json* step : steps(member, list_key, where)) out.push_back(step);
    }
    return out;
  }
};

}  // namespace embpriv
