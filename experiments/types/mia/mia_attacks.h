#pragma once
// Every membership attack of one `mia` row, from one set of models: the target and its shadow
// (reference) models, queried on the candidates and on the population. The loss threshold and
// LiRA (attacks/membership_inference.h) read the candidates; RMIA (attacks/rmia.h) reads the
// population too. No attack trains a model of its own.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "attacks/membership_inference.h"
#include "attacks/rmia.h"

namespace embpriv {

struct MiaConfidences {
  at::Tensor target_phi;             // [N] phi of the candidates under the target
  at::Tensor shadow_phi, shadow_in;  // [S, N] under each shadow; [S, N] bool membership
  at::Tensor population_target_phi;  // [P] phi of the population samples under the target
  at::Tensor population_shadow_phi;  // [S, P] under each shadow (no model trained on them)
};

// The attacks in column order: those of loss_and_lira_attack_names(), then rmia_online, rmia_offline.
const std::vector<std::string>& mia_attack_names();

// name -> [N] scores (higher: member). With a single shadow model LiRA has no variance to fit and
// is left out (its columns stay NaN); the loss threshold and RMIA run from 1 shadow on.
std::vector<std::pair<std::string, at::Tensor>> mia_attack_scores(const MiaConfidences& c, LiraCenter center,
                                                                  const RmiaParameters& rmia);

}  // namespace embpriv
