#pragma once
// How a figure shows a column, decided once from the column's name so that every experiment
// type's figures read alike: a probability (a recovery rate, an accuracy, an AUC, a TPR) on a
// y axis from 0 to 1, and a reference line where chance is defined:
//   AUC and balanced accuracy: 0.5 (a coin flip);
//   accuracies of the project's balanced binary tasks (sentiment: 500 + 500 sentences per
//     corpus; PSR: the balanced private/public test units; the anonymity game's two choices): 0.5;
//   TPR at x% FPR: x% (a random guess has TPR = FPR);
//   a ROC curve: the diagonal TPR = FPR.
// Top-1 recovery has no such line: its chance (1 / vocabulary size) is ~0 on any real vocabulary.
#include <string>
#include <vector>

#include "experiments/plots/plot.h"

namespace embpriv {

struct AxisConvention {
  bool probability = false;  // the values lie in [0, 1]: the y axis shows exactly that range
  std::vector<ReferenceLine> references;
};

// For a y column (a /table column, or a /curves array when `curve` is set).
AxisConvention axis_convention(const std::string& y_column, bool curve);

// The y range a probability axis gets: [0, 1] with a small margin, so that lines at 0 or 1 stay
// visible beside the frame.
inline constexpr double kProbabilityAxisMargin = 0.02;

}  // namespace embpriv
