#pragma once
// Task `classification` of experiment type `obfuslm` (`task: classification`): the ObfusLM
// paper's classification experiment (002_682d5e0a681f5329.txt, "实验设置" and "效果对比": BERT-base
// on GLUE, "about 4%" of accuracy lost, KNN and InvBert attacks). The client obfuscates the word
// embeddings of a BERT-family sentiment classifier (shuffle + EmbedCluster + WeightSynth, as
// for the other tasks) and sends them with its shuffled token ids; the server runs the classifier
// with the obfuscated rows. Each row reports the clean accuracy, the obfuscated accuracy and the
// drop twice over:
//   - inference only: the classifier trained on clean embeddings, served the obfuscated rows
//     as is (the paper: "可直接使用服务端部署的混淆模型进行推理,无需精调");
//   - fine-tuned (the paper's measured setting, "精调后模型效果损失仅4%~6%", SST-2 89.11% vs
//     92.02%): the server fine-tunes the obfuscated model on the client's obfuscated training
//     ids for classifier.finetune_epochs epochs, against the clean model fine-tuned the same
//     epochs on clean ids;
// and the server's attacks on the same rows: KNN of every obfuscated row (and of the test
// sentences' token stream) to the public table, the (k, eps)-anonymity game, and InvBert
// (attacks/invbert.h) trained on public sentences obfuscated by the attacker's own WeightSynth
// draws.
//
// The classifier: a random-init BERT (classifier.model: random) trained here on the sentiment
// sentences (no pretrained weights are reachable), or a user's Hugging Face encoder folder.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "experiments/engine/config_keys.h"
#include "experiments/engine/experiment_type.h"
#include "mechanisms/obfuslm/vocabulary_obfuscator.h"

namespace embpriv {

// The keys of the task (obfuslm_classification_keys.h): `classifier.*` and
// `attack.invbert_epochs` (`task` itself, the obfuscation, data and attack keys are the type's).
ConfigKeys obfuslm_classification_keys();
// Checks what the declarations cannot: an encoder model is named (classifier.model), the heads
// divide the width, the files exist, a folder used without training has a 2-label head.
void check_classification_point(const YAML::Node& config);
// The task's own result columns (NaN on rows of task vocabulary).
std::vector<std::string> classification_number_columns();
// One row: sets the task's columns and the shared ones it measures (k, epsilon, clusters, the
// KNN recoveries, the anonymity game, ...); the type leaves the rest NaN.
PointResult run_classification_point(const PointInput& input, const ObfuscationOptions& options);
// A rough wall time of one row (the classifier's training counted once per run).
double classification_seconds(const YAML::Node& config);

// The shape an estimate needs: vocabulary, width and parameter count of the classifier a config
// names (classifier.model random: from the classifier.* keys and bert-base-uncased's 30,522 ids).
struct ClassifierShape {
  std::int64_t vocab = 0, hidden = 0, parameters = 0;
};
ClassifierShape classifier_shape(const YAML::Node& config);

}  // namespace embpriv
