#include "data/privateai/teacher_answers.h"

#include <ATen/ATen.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "data/tables/jsonl_file.h"

namespace embpriv {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TeacherAnswers read_jsonl(const std::string& path, std::int64_t units) {
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "cannot open the teacher answers '" << path << "'");
  std::map<std::string, std::vector<double>> by_teacher;
  std::vector<std::string> order;
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(number);
    nlohmann::json item;
    try {
      item = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": not a JSON object (" + e.what() + ")");
    }
    EMBPRIV_CHECK(item.is_object() && item.contains("teacher") && item["teacher"].is_string() &&
                      item.contains("unit") && item["unit"].is_number_integer() && item.contains("score") &&
                      item["score"].is_number(),
                  where << ": expected {\"teacher\": name, \"unit\": index, \"score\": number}");
    const auto teacher = item["teacher"].get<std::string>();
    const auto unit = item["unit"].get<std::int64_t>();
    const auto score = item["score"].get<double>();
    EMBPRIV_CHECK(unit >= 0 && unit < units, where << ": unit " << unit << " is outside the proxy set [0, " << units << ")");
    EMBPRIV_CHECK(std::isfinite(score) && score >= 0 && score <= 1, where << ": score " << score << " is not in [0, 1]");
    auto [it, fresh] = by_teacher.try_emplace(teacher, std::vector<double>(static_cast<std::size_t>(units), NAN));
    if (fresh) order.push_back(teacher);
    double& slot = it->second[static_cast<std::size_t>(unit)];
    EMBPRIV_CHECK(std::isnan(slot), where << ": teacher '" << teacher << "' answers unit " << unit << " twice");
    slot = score;
  }
  EMBPRIV_CHECK(!order.empty(), path << " holds no answers");
  TeacherAnswers answers;
  answers.teachers = order;
  answers.scores = at::empty({static_cast<std::int64_t>(order.size()), units}, at::kDouble);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::vector<double>& scores = by_teacher[order[k]];
    for (std::int64_t j = 0; j < units; ++j) {
      EMBPRIV_CHECK(!std::isnan(scores[static_cast<std::size_t>(j)]),
                    path << ": teacher '" << order[k] << "' does not answer unit " << j);
    }
    answers.scores[static_cast<std::int64_t>(k)].copy_(at::tensor(scores, at::kDouble));
  }
  return answers;
}

}  // namespace

void check_teacher_answers(const TeacherAnswers& answers, std::int64_t units, const std::string& where) {
  EMBPRIV_CHECK(!answers.teachers.empty(), where << ": no teachers");
  EMBPRIV_CHECK(answers.scores.defined() && answers.scores.dim() == 2 &&
                    answers.scores.size(0) == static_cast<std::int64_t>(answers.teachers.size()) &&
                    answers.scores.size(1) == units,
                where << ": scores must be [" << answers.teachers.size() << " teachers, " << units << " proxy units], got "
                      << (answers.scores.defined() ? answers.scores.sizes() : at::IntArrayRef{}));
  std::set<std::string> seen;
  for (const std::string& name : answers.teachers) {
    EMBPRIV_CHECK(!name.empty(), where << ": a teacher has no name");
    EMBPRIV_CHECK(seen.insert(name).second, where << ": teacher '" << name << "' appears twice");
  }
  const at::Tensor s = answers.scores.to(at::kDouble);
  EMBPRIV_CHECK(s.isfinite().all().item<bool>() && s.ge(0).all().item<bool>() && s.le(1).all().item<bool>(),
                where << ": every score must be a number in [0, 1]");
}

TeacherAnswers read_teacher_answers(const std::string& path, std::int64_t units) {
  EMBPRIV_CHECK(units >= 1, "teacher answers: the proxy set is empty");
  TeacherAnswers answers;
  if (ends_with(path, ".jsonl")) {
    answers = read_jsonl(path, units);
  } else if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) {
    const EmbeddingTable table = read_hdf5_matrix(path, "scores", "teachers");
    answers.teachers = table.words();
    answers.scores = table.vectors().to(at::kDouble);
  } else {
    throw Error("teacher answers '" + path + "': the name must end in .jsonl, .h5 or .hdf5");
  }
  check_teacher_answers(answers, units, path);
  return answers;
}

void write_teacher_answers(const std::string& path, const TeacherAnswers& answers) {
  check_teacher_answers(answers, answers.scores.defined() ? answers.scores.size(1) : 0, path);
  const at::Tensor s = answers.scores.to(at::kDouble).contiguous();
  const double* p = s.data_ptr<double>();
  std::vector<nlohmann::json> lines;
  for (std::size_t k = 0; k < answers.teachers.size(); ++k) {
    for (std::int64_t j = 0; j < s.size(1); ++j) {
      lines.push_back({{"teacher", answers.teachers[k]}, {"unit", j}, {"score", p[static_cast<std::int64_t>(k) * s.size(1) + j]}});
    }
  }
  write_jsonl(path, lines);
}

}  // namespace embpriv
