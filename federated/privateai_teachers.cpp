#include "federated/privateai_teachers.h"

#include <ATen/ATen.h>

#include "core/error.h"
#include "core/rng.h"
#include "data/tables/data_paths.h"
#include "data/tables/jsonl_file.h"
#include "data/privateai/private_units.h"
#include "federated/knowledge_alignment.h"

namespace embpriv {
namespace {

at::Tensor labeller_answers(const std::vector<std::string>& texts) {
  at::Tensor out = at::empty({static_cast<std::int64_t>(texts.size())}, at::kDouble);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    out[static_cast<std::int64_t>(i)] = label_unit(texts[i], {}) != 0 ? 1.0 : 0.0;  // no header names
  }
  return out;
}

}  // namespace

CentralTeacherAnswers central_teacher_answers(const PrivateAiData& data, const TextClassifierOptions& model,
                                              const TrainOptions& central) {
  TextClassifierOptions o = model;
  o.seed = derive_seed(0, 0, "privateai.central_teacher");
  TextClassifier teacher(data.embeddings, o);
  teacher.train(data.public_split.ids, data.public_split.labels, central, derive_seed(0, 0, "privateai.central_order"));
  return {teacher.probabilities(data.proxy.ids), teacher.probabilities(data.test.ids)};
}

const std::vector<std::string>& standin_teacher_names() {
  static const std::vector<std::string> names = {"labeller", "central"};
  return names;
}

double flag_accuracy(const at::Tensor& answers, const at::Tensor& labels) {
  EMBPRIV_CHECK(answers.numel() == labels.numel() && answers.numel() > 0, "flag accuracy: one answer per label");
  return answers.to(at::kDouble).gt(0.5).eq(labels.to(at::kDouble).gt(0.5)).to(at::kDouble).mean().item<double>();
}

TeacherPanel standin_teachers(const PrivateAiData& data, const std::vector<std::string>& names,
                              const TextClassifierOptions& model, const TrainOptions& central,
                              const CentralTeacher& kept) {
  EMBPRIV_CHECK(!names.empty(), "privateai: no stand-in teacher named");
  TeacherPanel panel;
  std::vector<at::Tensor> rows;
  for (const std::string& name : names) {
    at::Tensor proxy, test;
    if (name == "labeller") {
      proxy = labeller_answers(data.proxy.texts);
      test = labeller_answers(data.test.texts);
    } else if (name == "central") {
      const CentralTeacherAnswers a = kept ? kept() : central_teacher_answers(data, model, central);
      proxy = a.proxy;
      test = a.test;
    } else {
      throw Error("unknown stand-in teacher '" + name + "'; valid: labeller, central");
    }
    panel.proxy.teachers.push_back(name);
    rows.push_back(proxy);
    panel.test_psr.push_back(flag_accuracy(test, data.test.labels));
  }
  panel.proxy.scores = at::stack(rows);
  return panel;
}

RunTeachers run_teachers(const PrivateAiData& data, const TeacherSettings& settings, const TextClassifierOptions& model,
                         const CentralTeacher& kept) {
  RunTeachers t;
  t.proxy.ids = data.proxy.ids;
  TeacherAnswers answers;
  if (!settings.file.empty()) {
    answers = read_teacher_answers(resolve_data_path(settings.file), data.proxy.ids.size(0));
  } else {
    TeacherPanel panel = standin_teachers(data, settings.standin, model, settings.central, kept);
    for (std::size_t k = 0; k < panel.proxy.teachers.size(); ++k) {
      t.test_psr.push_back({panel.proxy.teachers[k], panel.test_psr[k]});
    }
    answers = std::move(panel.proxy);
  }
  if (!settings.export_prefix.empty()) {
    std::vector<nlohmann::json> units;
    for (std::size_t j = 0; j < data.proxy.texts.size(); ++j) units.push_back({{"unit", j}, {"text", data.proxy.texts[j]}});
    write_jsonl(settings.export_prefix + ".proxy.jsonl", units);
    write_teacher_answers(settings.export_prefix + ".answers.jsonl", answers);
  }
  t.proxy.teacher_mean = average_teacher_answers(answers.scores);
  t.proxy_accuracy = flag_accuracy(t.proxy.teacher_mean, data.proxy.labels);
  return t;
}

}  // namespace embpriv
