#pragma once
// `embpriv embed FOLDER --out FILE.h5 [--input TEXTS] [--npy FILE.npy] [--pooling ...] [--layer N]
// [--max-length L] [--batch B] [--device cpu|cuda] [--threads N]`: one vector per text from a
// Hugging Face encoder or decoder folder (models/text_model.h), written with the texts' ids,
// token counts and whether each was cut, and attributes that say how (model, pooling, layer,
// truncation rule). Texts: lines of stdin, or --input (a text file of lines, or the sentences
// JSON the configs use: data/tables/text_inputs.h).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

namespace embpriv {

class EmbedCommand {
 public:
  explicit EmbedCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  int run(std::istream& in, std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  std::string folder_, input_, out_, npy_, pooling_, device_ = "cpu", compute_ = "float32";
  std::int64_t layer_ = -1, max_length_ = 0, batch_ = 32;
  int threads_ = 0;
  bool overwrite_ = false;
};

}  // namespace embpriv
