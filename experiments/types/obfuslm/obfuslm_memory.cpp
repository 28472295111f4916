#include "experiments/types/obfuslm/obfuslm_memory.h"

#include <algorithm>
#include <string>

#include "attacks/nearest_rows.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/types/obfuslm/obfuslm_keys.h"
#include "experiments/types/obfuslm/obfuslm_classification.h"
#include "experiments/types/obfuslm/obfuslm_classification_keys.h"
#include "experiments/types/shared/vocabulary_memory.h"

namespace embpriv {
namespace {

// Float32 copies of the [V, d] table a point holds at once: the unit rows, the obfuscated
// embedding, the server's shuffled embedding, and the obfuscator's synthesised rows before the
// shuffle.
constexpr double kTableCopies = 4;
// EmbedCluster's slab: at most 2^25 similarities at once (similarity_candidates.h), float32,
// and one masked copy of it (4 + 4 bytes an entry); the candidates taken from it are counted
// per row below.
constexpr double kSlabEntries = 33554432.0;
constexpr double kBytesPerSlabEntry = 8;
// Per row: the candidates kept, 2k + 16 of them, as float32 similarity and int64 index, and the
// clusters (int64 member and offset).
constexpr double kBytesPerCandidate = 12;

}  // namespace

MemoryEstimate obfuslm_memory(const YAML::Node& config) {
  using namespace obfuslm_key;
  const Vocabulary vocabulary = vocabulary_key::kVocabulary(config);
  const std::int64_t k = kK(config), trials = kAnonymityTrials(config);
  const std::int64_t texts = vocabulary_key::kTexts(config), tokens = vocabulary_key::kTokens(config);
  MemoryEstimate m;
  double V = 0, d = 0, model = 0;
  if (obfuslm_key::kTask(config) == obfuslm_key::Task::classification) {
    // The classifier (obfuslm_classification.h): float32 weights kept in the run's cache (the
    // clean model), and at a row's peak the server's copy, its fine-tuned copy with Adam's two
    // moments and gradients, and InvBert's output over the vocabulary (logits, their gradient
    // and softmax for 32 texts of max_length tokens; its own output weights are counted with
    // them).
    const ClassifierShape shape = classifier_shape(config);
    const std::int64_t length = obfuslm_key::kClassifierMaxLength(config);
    V = static_cast<double>(shape.vocab);
    d = static_cast<double>(shape.hidden);
    const double weights = static_cast<double>(shape.parameters) * 4.0;
    m.shared_bytes = weights;
    m.shared_key = "obfuslm_classifier|" + obfuslm_key::kClassifierModel(config);
    m.shared_per_seed = true;
    constexpr double kInvBertBatch = 32, kInvBertWidth = 128;
    model = 5 * weights + kInvBertBatch * static_cast<double>(length) * V * 4.0 * 3 + V * (kInvBertWidth + d) * 4.0 * 4;
    // A folder's width is its config.json's (check_classification_point names its keys when the
    // weights alone are too large); classifier.hidden shapes model random only.
    const std::string model = obfuslm_key::kClassifierModel(config);
    const std::string& size = model == "random" || model == "none" ? obfuslm_key::kClassifierHidden.path()
                                                                   : obfuslm_key::kClassifierModel.path();
    m.size_keys = {size, obfuslm_key::kClassifierMaxLength.path(), obfuslm_key::kK.path(),
                   obfuslm_key::kAnonymityTrials.path()};
  } else if (vocabulary == Vocabulary::glove) {
    const std::int64_t words = kGloveWords(config);
    V = static_cast<double>(glove_rows(words));
    d = kGloveTableDim;
    m.shared_bytes = glove_load_bytes(words);
    m.shared_key = "glove|" + std::to_string(glove_rows(words));
    m.size_keys = {kGloveWords.path(), kK.path(), kAnonymityTrials.path()};
  } else {
    const std::string checkpoint = vocabulary_key::kModel(config);
    const LanguageModelShape shape = read_language_model_shape(checkpoint);
    V = static_cast<double>(shape.vocab);
    d = static_cast<double>(shape.dim);
    m.shared_bytes = language_model_weight_bytes(checkpoint);
    m.shared_key = "llama2c|" + checkpoint;
    model = language_model_utility_bytes(shape, texts, tokens) + 2 * m.shared_bytes;  // + the server's model
    m.size_keys = {vocabulary_key::kTexts.path(), vocabulary_key::kTokens.path(), kK.path(), kAnonymityTrials.path()};
  }
  const double knn_block =
      knn_score_block_bytes(KnnOptions{}, static_cast<std::int64_t>(d), static_cast<std::int64_t>(V));
  const double slab = std::min(kSlabEntries, V * V) * kBytesPerSlabEntry;
  const double candidates = V * static_cast<double>(2 * k + 16) * kBytesPerCandidate + V * 16.0;
  // The anonymity game: a member's WeightSynth weights and outputs over the trials (float64).
  const double game = static_cast<double>(trials) * (static_cast<double>(k) + d) * 8.0 * 2.0;
  m.working_bytes = kTableCopies * V * d * 4.0 + std::max(slab, knn_block) + candidates + game + model;
  m.what = "4 copies of the " + std::to_string(static_cast<std::int64_t>(V)) + " x " +
           std::to_string(static_cast<std::int64_t>(d)) + " table, EmbedCluster's similarity slab and the "
           "attacks' draws";
  return m;
}

}  // namespace embpriv
