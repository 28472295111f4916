#pragma once
// Stand-ins for PrivateAI's foundation-model teachers (the paper queries DeepSeek-V3 and GPT-4o
// on the proxy set; embpriv reads such answers from a file, data/privateai/teacher_answers.h, and ships
// two teachers that produce them offline):
//   labeller: the rule-based labeller of data/privateai/private_units.h run on the unit's text alone. It
//     cannot see the e-mail's headers, so it misses the header_name kind (a name that recurs
//     from the From/To/Cc headers): a teacher with a known blind spot. Answers 0 or 1.
//   central: the same model as the clients', trained centrally without DP on the disjoint
//     labelled public split. Answers its probability.
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "data/privateai/teacher_answers.h"
#include "data/privateai/privateai_data.h"
#include "federated/federated_training.h"
#include "models/text_classifier.h"

namespace embpriv {

struct TeacherPanel {
  TeacherAnswers proxy;          // [H, E] answers on the proxy units
  std::vector<double> test_psr;  // each teacher's accuracy on the test units (threshold 0.5)
};

const std::vector<std::string>& standin_teacher_names();  // labeller, central

// The central stand-in's answers (P(private)) on the proxy and the test units: trained on the
// public split with a fixed seed, so they depend only on the data, the model and the training
// options, not on the grid point.
struct CentralTeacherAnswers {
  at::Tensor proxy, test;
};
CentralTeacherAnswers central_teacher_answers(const PrivateAiData& data, const TextClassifierOptions& model,
                                              const TrainOptions& central);
// Where a caller keeps the central teacher's answers (for the points of a run, in its cache):
// called instead of central_teacher_answers when set.
using CentralTeacher = std::function<CentralTeacherAnswers()>;

// names: a subset of standin_teacher_names(). The central teacher is trained here
// (central_teacher_answers) unless `kept` says where its answers are kept.
TeacherPanel standin_teachers(const PrivateAiData& data, const std::vector<std::string>& names,
                              const TextClassifierOptions& model, const TrainOptions& central,
                              const CentralTeacher& kept = {});

// Accuracy of answers [N] (P(private)) against labels [N] at threshold 0.5.
double flag_accuracy(const at::Tensor& answers, const at::Tensor& labels);

// Where a run's teachers come from (keys teachers.*).
struct TeacherSettings {
  std::vector<std::string> standin;  // stand-ins to run when `file` is empty
  std::string file;                  // JSONL or HDF5 answers on the proxy units
  std::string export_prefix;         // non-empty: write PREFIX.proxy.jsonl and PREFIX.answers.jsonl
  TrainOptions central;              // the central stand-in's training
};

// What the server knows of its teachers in a run.
struct RunTeachers {
  ProxyKnowledge proxy;                                  // the proxy units and the mean answer (eq. (6))
  std::vector<std::pair<std::string, double>> test_psr;  // each stand-in's test PSR (none for a file)
  double proxy_accuracy = NAN;                           // the mean answer vs the proxy units' labels
};

// Reads the answers from settings.file, or runs the stand-ins; with an export prefix also writes
// PREFIX.proxy.jsonl ({"unit", "text"} per proxy unit: what to ask a real LLM) and
// PREFIX.answers.jsonl (the answers used, in the format read_teacher_answers reads).
// kept: as for standin_teachers.
RunTeachers run_teachers(const PrivateAiData& data, const TeacherSettings& settings, const TextClassifierOptions& model,
                         const CentralTeacher& kept = {});

}  // namespace embpriv
