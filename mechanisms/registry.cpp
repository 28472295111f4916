#include "mechanisms/registry.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "mechanisms/gaussian.h"
#include "mechanisms/laplace.h"
#include "mechanisms/npgaussian.h"
#include "mechanisms/vmf.h"
#include "mechanisms/vmf_tangent.h"

namespace embpriv {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

MechanismParams::MechanismParams(std::string mechanism, YAML::Node node)
    : mechanism_(std::move(mechanism)), node_(std::move(node)) {}

double MechanismParams::number(const std::string& key) const {
  const YAML::Node value = node_[key];
  EMBPRIV_CHECK(value, "mechanism " << mechanism_ << ": missing required key '" << key << "'");
  double out = 0;
  EMBPRIV_CHECK(value.IsScalar() && YAML::convert<double>::decode(value, out),
                "mechanism " << mechanism_ << ": " << key << " must be a number, got '"
                             << YAML::Dump(value) << "'");
  return out;
}

double MechanismParams::number_or(const std::string& key, double fallback) const {
  return node_[key] ? number(key) : fallback;
}

std::string MechanismParams::text_or(const std::string& key, const std::string& fallback) const {
  const YAML::Node value = node_[key];
  if (!value) return fallback;
  EMBPRIV_CHECK(value.IsScalar(), "mechanism " << mechanism_ << ": " << key
                                               << " must be a string");
  return value.as<std::string>();
}

void MechanismRegistry::add(const std::string& name, Entry entry) {
  entries_[name] = std::move(entry);
}

std::vector<std::string> MechanismRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

const MechanismRegistry::Entry& MechanismRegistry::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  EMBPRIV_CHECK(it != entries_.end(),
                "unknown mechanism '" << name << "'; valid: " << join(names()));
  return it->second;
}

std::unique_ptr<Mechanism> MechanismRegistry::make(const YAML::Node& node) const {
  EMBPRIV_CHECK(node.IsMap(), "a mechanism must be a map such as {name: vmf, epsilon: 2}, got '"
                                  << YAML::Dump(node) << "'");
  EMBPRIV_CHECK(node["name"] && node["name"].IsScalar(),
                "a mechanism needs a 'name'; valid: " << join(names()));
  const std::string name = node["name"].as<std::string>();
  const Entry& e = entry(name);
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    EMBPRIV_CHECK(key == "name" || std::find(e.keys.begin(), e.keys.end(), key) != e.keys.end(),
                  "mechanism " << name << ": unknown key '" << key << "'; valid: name, "
                               << join(e.keys));
  }
  return e.factory(MechanismParams(name, node));
}

std::unique_ptr<Mechanism> make_mechanism(const std::string& yaml_text,
                                          const MechanismRegistry& registry) {
  YAML::Node node;
  try {
    node = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    EMBPRIV_CHECK(false, "malformed mechanism YAML: " << e.what());
  }
  return registry.make(node);
}

MechanismRegistry default_mechanism_registry() {
  MechanismRegistry registry;
  registry.add("vmf_tangent",
               {{"epsilon", "beta", "alpha"},
                "vMF paper, Algorithm 1: fixed deflection angle arctan(beta/eps); claim none",
                [](const MechanismParams& p) {
                  return std::make_unique<VmfTangentMechanism>(
                      p.number("epsilon"), p.number_or("beta", 1.0), p.number_or("alpha", 1.0));
                }});
  registry.add("vmf",
               {{"epsilon", "beta", "alpha"},
                "exact von Mises-Fisher sampling, kappa = eps/beta (Wood 1994); metric DP",
                [](const MechanismParams& p) {
                  return std::make_unique<VmfMechanism>(
                      p.number("epsilon"), p.number_or("beta", 1.0), p.number_or("alpha", 1.0));
                }});
  registry.add("gaussian",
               {{"epsilon", "delta", "clip_norm", "calibration", "alpha"},
                "clip to L2 norm C, add N(0, sigma^2 I); (eps, delta)-DP",
                [](const MechanismParams& p) {
                  return std::make_unique<GaussianMechanism>(
                      p.number("epsilon"), p.number_or("delta", 1e-5), p.number("clip_norm"),
                      parse_gaussian_calibration(p.text_or("calibration", "analytic")),
                      p.number_or("alpha", 1.0));
                }});
  registry.add("laplace",
               {{"epsilon", "clip_norm", "alpha"},
                "clip to L1 norm C, add Laplace(0, 2C/eps) per coordinate; eps-DP",
                [](const MechanismParams& p) {
                  return std::make_unique<LaplaceMechanism>(
                      p.number("epsilon"), p.number("clip_norm"), p.number_or("alpha", 1.0));
                }});
  registry.add("npgaussian",
               {{"epsilon", "delta", "clip_norm", "calibration", "alpha"},
                "Gaussian noise then rescale to ||x|| (vMF paper, Def. 7.3)",
                [](const MechanismParams& p) {
                  return std::make_unique<NormPreservingGaussianMechanism>(
                      p.number("epsilon"), p.number_or("delta", 1e-5), p.number("clip_norm"),
                      parse_gaussian_calibration(p.text_or("calibration", "analytic")),
                      p.number_or("alpha", 1.0));
                }});
  return registry;
}

}  // namespace embpriv
