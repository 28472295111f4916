// The teachers' answers, JSON Lines (data/privateai/teacher_answers.h), for 4 private units.
#include "data/privateai/teacher_answers.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "teachers", ".jsonl");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_teacher_answers(path, 4); });
}
