#pragma once
// `embpriv convert llama2c-to-hf --model BIN --tokenizer BIN --out DIR`: writes a llama2.c
// model and tokenizer as a Hugging Face Llama folder (config.json, model.safetensors,
// tokenizer.json; models/llama2c_to_hf.h), which `data.model: DIR` then reads.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

namespace embpriv {

class ConvertCommand {
 public:
  explicit ConvertCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  int run(std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  CLI::App* llama2c_to_hf_ = nullptr;
  std::string model_, tokenizer_, out_;
  bool overwrite_ = false;
  std::string unknown_;  // a name after `convert` that is no conversion
};

}  // namespace embpriv
