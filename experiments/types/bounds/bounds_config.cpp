#include "experiments/types/bounds/bounds_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {
namespace {

const std::vector<std::string> kKeys = {"type",      "seed",       "samples", "dims",
                                        "epsilons",  "betas",      "delta",   "clip_norm",
                                        "confidence", "out",       "plot",    "threads",
                                        "vmf_kappa_over_d"};

std::string where(const std::string& origin, const YAML::Node& node) {
  return origin + ":" + std::to_string(node.Mark().line + 1);
}

template <class T>
T scalar(const YAML::Node& node, const std::string& key, const std::string& origin) {
  T value{};
  EMBPRIV_CHECK(node.IsScalar() && YAML::convert<T>::decode(node, value),
                where(origin, node) << ": " << key << " has the wrong type: '" << YAML::Dump(node)
                                    << "'");
  return value;
}

template <class T>
std::vector<T> list(const YAML::Node& node, const std::string& key, const std::string& origin) {
  if (node.IsScalar()) return {scalar<T>(node, key, origin)};
  EMBPRIV_CHECK(node.IsSequence() && node.size() > 0,
                where(origin, node) << ": " << key << " must be a non-empty list");
  std::vector<T> out;
  for (const auto& item : node) out.push_back(scalar<T>(item, key, origin));
  return out;
}

// The shortest decimal text that reads back as the same double (0.1, not 0.10000000000000001).
std::string shortest(double value) {
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}
std::string shortest(std::int64_t value) { return std::to_string(value); }

template <class T>
std::string flow(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + shortest(values[i]);
  return out + "]";
}

}  // namespace

void BoundsConfig::validate() const {
  EMBPRIV_CHECK(!dims.empty(), "dims must not be empty");
  for (auto d : dims) require_at_least("dimension", d, 2);
  require_at_least("samples", samples, 100);
  EMBPRIV_CHECK(!epsilons.empty() && !betas.empty(), "epsilons and betas must not be empty");
  for (double e : epsilons) require_positive("epsilon", e);
  for (double b : betas) require_positive("beta", b);
  for (double f : vmf_kappa_over_d) require_positive("vmf_kappa_over_d", f);
  require_open_interval("delta", delta, 0.0, 1.0);
  require_positive("clip_norm", clip_norm);
  require_open_interval("confidence", confidence, 0.0, 1.0);
  EMBPRIV_CHECK(!out.empty(), "out must name a file");
  require_at_least("threads", threads, 0);
}

std::string BoundsConfig::to_yaml() const {
  std::ostringstream text;
  text << "type: bounds\nseed: " << seed << "\nsamples: " << samples << "\ndims: " << flow(dims)
      << "\nepsilons: " << flow(epsilons) << "\nbetas: " << flow(betas)
       << "\nvmf_kappa_over_d: " << flow(vmf_kappa_over_d) << "\ndelta: " << shortest(delta)
      << "\nclip_norm: " << shortest(clip_norm) << "\nconfidence: " << shortest(confidence) << "\nout: " << out
      << "\nplot: " << plot << "\n";
  return text.str();
}

BoundsConfig parse_bounds_config(const std::string& yaml_text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    EMBPRIV_CHECK(false, origin << ":" << e.mark.line + 1 << ": malformed YAML: " << e.msg);
  }
  EMBPRIV_CHECK(root.IsMap(), origin << ": a config must be a YAML map");
  BoundsConfig config;
  for (const auto& item : root) {
    const std::string key = item.first.as<std::string>();
    const YAML::Node& value = item.second;
    if (key == "type") {
      EMBPRIV_CHECK(scalar<std::string>(value, key, origin) == "bounds",
                    where(origin, value) << ": type must be 'bounds' here, got '"
                                         << YAML::Dump(value) << "'");
    } else if (key == "seed") {
      config.seed = scalar<std::uint64_t>(value, key, origin);
    } else if (key == "samples") {
      config.samples = scalar<std::int64_t>(value, key, origin);
    } else if (key == "dims") {
      config.dims = list<std::int64_t>(value, key, origin);
    } else if (key == "epsilons") {
      config.epsilons = list<double>(value, key, origin);
    } else if (key == "betas") {
      config.betas = list<double>(value, key, origin);
    } else if (key == "vmf_kappa_over_d") {
      config.vmf_kappa_over_d = value.IsSequence() && value.size() == 0
                                    ? std::vector<double>{}
                                    : list<double>(value, key, origin);
    } else if (key == "delta") {
      config.delta = scalar<double>(value, key, origin);
    } else if (key == "clip_norm") {
      config.clip_norm = scalar<double>(value, key, origin);
    } else if (key == "confidence") {
      config.confidence = scalar<double>(value, key, origin);
    } else if (key == "out") {
      config.out = scalar<std::string>(value, key, origin);
    } else if (key == "plot") {
      config.plot = value.IsNull() ? "" : scalar<std::string>(value, key, origin);
    } else if (key == "threads") {
      config.threads = scalar<int>(value, key, origin);
    } else {
      std::string valid;
      for (const auto& k : kKeys) valid += (valid.empty() ? "" : ", ") + k;
      EMBPRIV_CHECK(false, where(origin, item.first) << ": unknown key '" << key
                                                     << "'; valid: " << valid);
    }
  }
  EMBPRIV_CHECK(root["type"], origin << ": missing 'type: bounds'");
  config.validate();
  return config;
}

}  // namespace embpriv
