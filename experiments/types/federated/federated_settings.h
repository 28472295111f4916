#pragma once
// The keys of experiment type `federated` (PrivateAI, issue 7): their declarations (defaults,
// ranges, help) and their values read from one point's config; each bad value is a ConfigError
// naming its key.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "data/privateai/privateai_data.h"
#include "experiments/engine/config_keys.h"
#include "experiments/types/federated/federated_encoder.h"
#include "federated/privateai_teachers.h"
#include "federated/federated_training.h"
#include "models/text_classifier.h"

namespace embpriv {

struct FederatedSettings {
  PrivateAiDataSettings data;  // unit counts already multiplied by `scale`
  double scale = 1;
  FederatedMethod method = FederatedMethod::privateai;  // also training.method (federated/federated_options.h)
  std::int64_t clients = 10;
  double alpha = 1.0;        // Dirichlet heterogeneity of the split
  double delta_setting = 0;  // dp.delta as written; 0: 1/|S|
  FederatedOptions training;  // dp.delta is set per run from |S| when delta_setting is 0
  TeacherSettings teachers;
  TextClassifierOptions model;  // model.kind transformer
  EncoderModelSettings encoder;  // model.kind and model.path (federated_encoder.h)
  std::int64_t shadows = 0;
};

ConfigKeys federated_keys();

// Reads a point's settings (checked against the declarations by the engine) and checks what
// involves several keys: the members bound the clients, a teacher must exist, the heads must
// divide the embedding width.
FederatedSettings read_federated_settings(const YAML::Node& config);

}  // namespace embpriv
