#include "experiments/engine/perturb_file.h"

#include <yaml-cpp/yaml.h>

#include <ATen/ATen.h>

#include <limits>
#include <set>

#include "core/error.h"
#include "experiments/engine/mechanism_yaml.h"
#include "experiments/engine/provenance.h"
#include "experiments/results/output_file.h"
#include "experiments/results/vector_file.h"

namespace embpriv {
namespace {

// A value as a config file's YAML scalar reads it: 2 is a number, '2' (quoted) is text.
YAML::Node yaml_value(const std::string& key, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    EMBPRIV_CHECK(false, "the value of mechanism key '" << key << "' is not a YAML scalar: '" << text << "' ("
                                                        << e.msg << ")");
  }
  return {};
}

YAML::Node mechanism_node(const PerturbFileRequest& request) {
  EMBPRIV_CHECK(!request.mechanism.empty(), "--mechanism needs a name such as vmf");
  YAML::Node node(YAML::NodeType::Map);
  node["name"] = request.mechanism;
  node["epsilon"] = yaml_value("epsilon", request.epsilon);
  std::set<std::string> seen{"name", "epsilon"};
  for (const std::string& pair : request.keys) {
    const std::size_t equals = pair.find('=');
    EMBPRIV_CHECK(equals != std::string::npos && equals > 0,
                  "mechanism key '" << pair << "' must be key=value (such as beta=1)");
    const std::string key = pair.substr(0, equals);
    EMBPRIV_CHECK(key != "name" && key != "epsilon",
                  "give the mechanism's " << key << " with --" << (key == "name" ? "mechanism" : key) << ", not as "
                                          << pair);
    EMBPRIV_CHECK(seen.insert(key).second, "mechanism key '" << key << "' is given twice; give each key once");
    node[key] = yaml_value(key, pair.substr(equals + 1));
  }
  return node;
}

std::string flow_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

}  // namespace

std::string perturb_mechanism_yaml(const PerturbFileRequest& request) { return flow_yaml(mechanism_node(request)); }

PerturbFileSummary perturb_vector_file(const PerturbFileRequest& request, const MechanismRegistry& registry) {
  const YAML::Node node = mechanism_node(request);
  const std::unique_ptr<Mechanism> mechanism = make_mechanism(node, registry);
  // Both paths are checked before the work: a wrong extension or an existing output is refused
  // at once.
  is_npy_path(request.in, "IN");
  is_npy_path(request.out, "OUT");
  check_not_replacing(request.out, request.overwrite, "pass --overwrite to replace it");
  check_output_writable(request.out);
  EMBPRIV_CHECK(request.seed <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
                "--seed must be in [0, 2^63), got " << request.seed);

  VectorFile file = read_vector_file(request.in, request.dataset);
  PerturbFileSummary summary;
  summary.rows = file.vectors.size(0);
  summary.dim = file.vectors.size(1);
  try {
    file.vectors = mechanism->perturb(file.vectors, RandomStream{request.seed, 0});
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::bad_input) throw;
    const std::string where = is_npy_path(request.in, "IN") ? request.in : request.in + ":" + request.dataset;
    throw Error(where + ": " + e.what());
  }
  summary.claim = mechanism->claim();

  const PrivacyClaim& claim = summary.claim;
  auto& a = file.attributes;
  a["mechanism"] = mechanism->name();
  a["mechanism_config"] = flow_yaml(node);
  a["seed"] = static_cast<std::int64_t>(request.seed);
  a["seed_rule"] = std::string("row i draws from Rng(seed, i) (core/rng.h), as embpriv.mechanism(...).perturb(x, seed=seed)");
  a["claim"] = claim.describe();
  a["claim_kind"] = claim.kind;
  a["claim_epsilon"] = claim.epsilon;
  a["claim_delta"] = claim.delta;
  a["claim_neighbours"] = claim.neighbours;
  a["epsilon_actual"] = claim.epsilon_actual;
  a["epsilon_actual_source"] = claim.epsilon_actual_source;
  a["sigma"] = claim.sigma;
  a["sensitivity"] = claim.l2_sensitivity;
  a["source_file"] = request.in;
  if (!is_npy_path(request.in, "IN")) a["source_dataset"] = request.dataset;
  a["embpriv_version"] = embpriv_version();
  a["git_commit"] = git_commit();
  a["created"] = utc_now();
  write_vector_file(request.out, file, request.dataset);
  return summary;
}

}  // namespace embpriv
