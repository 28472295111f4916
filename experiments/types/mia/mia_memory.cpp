#include "experiments/types/mia/mia_memory.h"

#include <string>

#include "experiments/types/mia/mia_keys.h"
#include "experiments/types/shared/user_vectors.h"
#include "experiments/types/shared/user_vectors_keys.h"
#include "experiments/types/shared/vocabulary_memory.h"
#include "platform/memory_limit.h"

namespace embpriv {
namespace {

// A UCI sentiment sentence is at most about 64 words; its rows are held clean and perturbed
// (float32, 4 + 4) with the mechanism's temporaries (4 + 4).
constexpr double kWordsPerSentence = 64;
constexpr double kBytesPerWordValue = 16;
// Per shadow and candidate: its float64 score phi and its bool membership (8 + 1), and the
// attacks' float64 working copies of phi (sorted, centred: 8 + 8).
constexpr double kBytesPerShadowScore = 25;

}  // namespace

MemoryEstimate mia_memory(const YAML::Node& config) {
  using namespace mia_key;
  const std::int64_t words = kGloveWords(config), examples = kExamples(config), shadows = kShadows(config);
  // RMIA's population sentences are scored by the target and every shadow like the candidates.
  const std::int64_t population = kPopulation(config);
  MemoryEstimate m;
  if (uses_user_vectors(config)) {
    // The user's file in the run's cache (float32); each candidate and population row held clean
    // and perturbed with the mechanism's temporaries, and the shadows' scores.
    const UserVectorsShape shape = check_user_vectors(config);
    const double n = static_cast<double>(examples + population);
    m.shared_bytes = batch_bytes(shape.rows, shape.dim, 4);
    m.shared_key = "user_vectors|" + user_vectors_key::kVectors(config) + "|" + user_vectors_key::kDataset(config);
    m.working_bytes = n * static_cast<double>(shape.dim) * kBytesPerWordValue +
                      static_cast<double>(shadows + 1) * n * kBytesPerShadowScore;
    m.size_keys = {kShadows.path(), kExamples.path(), kPopulation.path(), user_vectors_key::kVectors.path()};
    m.what = "the " + std::to_string(shape.rows) + " x " + std::to_string(shape.dim) + " vectors of data.vectors and " +
             std::to_string(shadows) + " shadows' scores of " + std::to_string(examples) + " candidates and " +
             std::to_string(population) + " population items";
    return m;
  }
  m.shared_bytes = glove_load_bytes(words);
  m.shared_key = "glove|" + std::to_string(glove_rows(words));
  const double n = static_cast<double>(examples + population);
  m.working_bytes = n * kWordsPerSentence * kGloveTableDim * kBytesPerWordValue +
                    static_cast<double>(shadows + 1) * n * kBytesPerShadowScore;
  m.size_keys = {kShadows.path(), kExamples.path(), kPopulation.path(), kGloveWords.path()};
  m.what = "the GloVe table, the candidates' token rows and " + std::to_string(shadows) + " shadows' scores of " +
           std::to_string(examples) + " candidates and " + std::to_string(population) + " population sentences";
  return m;
}

}  // namespace embpriv
