#include "mechanisms/registry.h"

#include <algorithm>

#include "core/error.h"
#include "mechanisms/gaussian.h"
#include "mechanisms/laplace.h"
#include "mechanisms/mechanism_params.h"
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

std::string key_list(const std::vector<ParamSpec>& keys) {
  std::string out;
  for (const auto& key : keys) out += ", " + key.name;
  return out;
}

}  // namespace

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

std::unique_ptr<Mechanism> MechanismRegistry::make(const MechanismConfig& config) const {
  EMBPRIV_CHECK(!config.name.empty(), "a mechanism needs a 'name'; valid: " << join(names()));
  const Entry& e = entry(config.name);
  // Unknown and repeated keys first, in the order given; then each declared key in the order
  // declared: missing, of the wrong kind or out of range.
  for (std::size_t i = 0; i < config.values.size(); ++i) {
    const std::string& key = config.values[i].first;
    EMBPRIV_CHECK(std::any_of(e.keys.begin(), e.keys.end(), [&](const ParamSpec& s) { return s.name == key; }),
                  "mechanism " << config.name << ": unknown key '" << key << "'; valid: name"
                               << key_list(e.keys));
    for (std::size_t j = 0; j < i; ++j) {
      EMBPRIV_CHECK(config.values[j].first != key,
                    "mechanism " << config.name << ": duplicate key '" << key << "'; give each key once");
    }
  }
  for (const ParamSpec& spec : e.keys) {
    const auto given = std::find_if(config.values.begin(), config.values.end(),
                                    [&](const auto& item) { return item.first == spec.name; });
    if (given == config.values.end()) {
      EMBPRIV_CHECK(!spec.required,
                    "mechanism " << config.name << ": missing required key '" << spec.name << "'");
      continue;
    }
    spec.check(config.name, given->second);
  }
  return e.factory(MechanismParams(config.name, config.values, e.keys));
}

MechanismRegistry default_mechanism_registry() {
  const auto& direction = DirectionParams::table();
  const auto& gaussian = GaussianParams::table();
  const auto& laplace = LaplaceParams::table();
  MechanismRegistry registry;
  registry.add("vmf_tangent",
               {direction.specs(),
                "vMF paper, Algorithm 1: fixed deflection angle arctan(beta/eps); claim none",
                [&direction](const MechanismParams& p) {
                  const DirectionParams k = direction.read(p);
                  return std::make_unique<VmfTangentMechanism>(k.epsilon, k.beta, k.alpha);
                }});
  registry.add("vmf",
               {direction.specs(),
                "exact von Mises-Fisher sampling, kappa = eps/beta (Wood 1994); metric DP",
                [&direction](const MechanismParams& p) {
                  const DirectionParams k = direction.read(p);
                  return std::make_unique<VmfMechanism>(k.epsilon, k.beta, k.alpha);
                }});
  registry.add("gaussian",
               {gaussian.specs(),
                "clip to L2 norm C, add N(0, sigma^2 I); (eps, delta)-DP",
                [&gaussian](const MechanismParams& p) {
                  const GaussianParams k = gaussian.read(p);
                  return std::make_unique<GaussianMechanism>(k.epsilon, k.delta, k.clip_norm, k.calibration,
                                                             k.alpha);
                }});
  registry.add("laplace",
               {laplace.specs(),
                "clip to L1 norm C, add Laplace(0, 2C/eps) per coordinate; eps-DP",
                [&laplace](const MechanismParams& p) {
                  const LaplaceParams k = laplace.read(p);
                  return std::make_unique<LaplaceMechanism>(k.epsilon, k.clip_norm, k.alpha);
                }});
  registry.add("npgaussian",
               {gaussian.specs(),
                "Gaussian noise then rescale to ||x|| (vMF paper, Def. 7.3)",
                [&gaussian](const MechanismParams& p) {
                  const GaussianParams k = gaussian.read(p);
                  return std::make_unique<NormPreservingGaussianMechanism>(k.epsilon, k.delta, k.clip_norm,
                                                                           k.calibration, k.alpha);
                }});
  return registry;
}

}  // namespace embpriv
