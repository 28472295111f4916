#pragma once
// Teachers' answers on PrivateAI's proxy set (PrivateAI paper, Algorithm 1: the foundation
// models F_k queried on the proxy data P give answers F_k; eq. (6) averages them). One score
// per proxy unit per teacher: the teacher's probability that the unit holds private
// information, in [0, 1]. Answers from real LLM APIs are plugged in through one of two files:
//   JSONL: one object per line, {"teacher": "gpt-4o", "unit": 17, "score": 0.93}; "unit" is the
//          unit's index in the proxy set (0-based, as in the proxy file embpriv writes);
//   HDF5:  a 2-D float dataset /scores [H, E] (row k: teacher k) and a 1-D string dataset
//          /teachers of the H names.
// Every teacher must answer every unit exactly once; anything else is one clear error.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

struct TeacherAnswers {
  std::vector<std::string> teachers;  // H names
  at::Tensor scores;                  // [H, E] double in [0, 1]
};

// By extension: .jsonl or .h5/.hdf5. units: E, the size of the proxy set.
TeacherAnswers read_teacher_answers(const std::string& path, std::int64_t units);
// JSONL, written atomically (temporary + rename).
void write_teacher_answers(const std::string& path, const TeacherAnswers& answers);
// Checks names (non-empty, distinct), shape [H >= 1, E] and scores (finite, in [0, 1]).
void check_teacher_answers(const TeacherAnswers& answers, std::int64_t units, const std::string& where);

}  // namespace embpriv
