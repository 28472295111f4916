#pragma once
// The classifiers of a `mia` row: the target (index 0) and shadow k (index k >= 1), each a
// logistic regression on a random half of the candidates' (perturbed) sentence features, queried
// on the clean candidates and on RMIA's population. Every attack reads these same models.
//
// A model's seeds come from the run seed and models_point_id(), the grid point without its
// attack.* keys: attack keys choose how the models are read (how many shadows, LiRA's centre,
// RMIA's gamma), not the models, so rows that differ only in them attack the same target with
// the same shadows (shadow k is the same model whether the row reads 4 or 16 of them). The run
// cache keeps each trained model's confidences for the rows that share it.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>

#include "experiments/engine/experiment_type.h"
#include "experiments/types/shared/inversion_data.h"

namespace embpriv {

class Mechanism;

struct MiaCandidates {
  PrivateText text;              // the candidates' token rows
  SentenceFeatures clean;        // their clean features and labels [N, d], [N]
  SentenceFeatures population;   // RMIA's population, clean [P, d], [P]
};

struct MiaClassifier {
  at::Tensor in;              // [N] bool: the candidates it trained on
  at::Tensor phi;             // [N] its phi on the clean candidates
  at::Tensor population_phi;  // [P] its phi on the population
  double train_accuracy = 0, test_accuracy = 0;  // on the candidates in / out of its training half
};

// The point id of the models: fnv1a64 of the point's key without its attack.* assignments (the
// key itself when none is swept, so such runs keep their numbers).
std::uint64_t models_point_id(const GridPoint& point);

// Model `index` (0: the target) for the run seed `run_seed` and models_point_id `models_id`;
// `used` perturbs its training features (null: clean), l2 is its penalty.
// The fit runs on `device` (the run's `device:`); the answers come back to the CPU.
MiaClassifier train_mia_classifier(const MiaCandidates& data, const Mechanism* used, double l2, std::uint64_t run_seed,
                                   std::uint64_t models_id, std::int64_t index, c10::Device device = c10::kCPU);

}  // namespace embpriv
