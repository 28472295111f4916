#pragma once
// `embpriv tokenize TOKENIZER [--decode] [--special]`: a quick check of a tokenizer. Reads lines
// on stdin and prints, per line, its ids separated by spaces; with --decode, reads lines of ids
// and prints their text. TOKENIZER: a tokenizer.json, a Hugging Face model folder holding one,
// or a llama2.c tokenizer .bin. --special adds the special tokens the tokenizer's template adds
// (Llama's BOS); without it none are added.
#include <CLI/CLI.hpp>

#include <istream>
#include <ostream>
#include <string>

namespace embpriv {

class TokenizeCommand {
 public:
  explicit TokenizeCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  // Throws embpriv::Error naming the line for input it cannot read (invalid UTF-8, a word that
  // is not an id, an id outside the vocabulary).
  int run(std::istream& in, std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  std::string tokenizer_;
  bool decode_ = false, special_ = false;
};

}  // namespace embpriv
