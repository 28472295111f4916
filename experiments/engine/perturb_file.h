#pragma once
// A user's own vectors through a mechanism (`embpriv perturb`, docs/mechanisms.md): the rows of
// an .npy or HDF5 matrix (experiments/results/vector_file.h) are perturbed one by one, row i
// drawing from the generator Rng(seed, i) (core/rng.h), so the output is the bytes that
// embpriv.mechanism({...}).perturb(x, seed=seed) gives in Python for the same matrix. The output
// keeps the input's per-row datasets (ids, token_counts) and records, as attributes, the
// mechanism and its keys, the seed, the privacy claim and the epsilon the noise really gives
// (PrivacyClaim::epsilon_actual).
#include <cstdint>
#include <string>
#include <vector>

#include "mechanisms/mechanism.h"
#include "mechanisms/registry.h"

namespace embpriv {

struct PerturbFileRequest {
  std::string mechanism;          // the registry's name (vmf, gaussian, ...)
  std::string epsilon;            // as the user wrote it; read as a config's YAML scalar is
  std::vector<std::string> keys;  // the mechanism's other keys as "key=value" (beta=1)
  std::string in, out;
  std::string dataset = "vectors";  // the matrix in an HDF5 input (and output)
  std::uint64_t seed = 1;
  bool overwrite = false;  // replace an existing `out`
};

struct PerturbFileSummary {
  std::int64_t rows = 0, dim = 0;
  PrivacyClaim claim;
};

// The mechanism's config as a YAML map ({name: vmf, epsilon: 2, beta: 1}); a key that is not
// "key=value", a key given twice, or `name` / `epsilon` among the keys is refused naming it.
std::string perturb_mechanism_yaml(const PerturbFileRequest& request);

// Builds the mechanism (unknown names and keys refused with the valid ones), reads `in`,
// perturbs every row and writes `out` atomically. Every error is an embpriv::Error naming the
// file, dataset or key; nothing is written then.
PerturbFileSummary perturb_vector_file(const PerturbFileRequest& request, const MechanismRegistry& registry);

}  // namespace embpriv
