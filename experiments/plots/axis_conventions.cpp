#include "experiments/plots/axis_conventions.h"

namespace embpriv {
namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

AxisConvention axis_convention(const std::string& y, bool curve) {
  AxisConvention convention;
  if (curve) {
    // ROC curves: arrays roc_tpr_<attack> against roc_fpr_<attack>.
    if (starts_with(y, "roc_tpr")) {
      convention.probability = true;
      convention.references.push_back({"chance (TPR = FPR)", 0, true});
    }
    return convention;
  }
  for (const char* part : {"recovery", "accuracy", "auc", "tpr_at", "rouge", "psr", "recall", "false_flag_rate",
                           "agreement", "share"}) {
    convention.probability |= contains(y, part);
  }
  // A drop (accuracy_drop: clean minus obfuscated) is a difference of two probabilities: small,
  // possibly negative, drawn on its own scale.
  if (contains(y, "_drop")) convention.probability = false;
  if (starts_with(y, "auc") || contains(y, "_auc")) {
    convention.references.push_back({"chance (AUC 0.5)", 0.5});
  } else if (contains(y, "balanced_accuracy") || starts_with(y, "sentiment_accuracy") ||
             starts_with(y, "anonymity_accuracy") || y == "psr" || y == "best_round_psr") {
    convention.references.push_back({"chance (accuracy 0.5)", 0.5});
  } else if (starts_with(y, "tpr_at_1%fpr")) {
    convention.references.push_back({"chance (TPR 1%)", 0.01});
  } else if (starts_with(y, "tpr_at_0.1%fpr")) {
    convention.references.push_back({"chance (TPR 0.1%)", 0.001});
  }
  return convention;
}

}  // namespace embpriv
