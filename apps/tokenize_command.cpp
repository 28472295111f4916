#include "apps/tokenize_command.h"

#include <sstream>
#include <vector>

#include "core/error.h"
#include "data/tokenizers/tokenizer.h"

namespace embpriv {
namespace {

std::vector<std::int64_t> parse_ids(const std::string& line) {
  std::vector<std::int64_t> ids;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    std::size_t used = 0;
    std::int64_t id = -1;
    try {
      id = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    EMBPRIV_CHECK(used == word.size() && !word.empty(), "'" << word << "' is not a token id");
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

TokenizeCommand::TokenizeCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "tokenize", "Tokenize lines of stdin into lines of ids (or, with --decode, lines of ids into text)");
  command_->add_option("tokenizer", tokenizer_,
                       "tokenizer.json, a Hugging Face model folder holding one, or a llama2.c tokenizer .bin")
      ->required();
  command_->add_flag("--decode", decode_, "Read lines of space-separated ids, print their text");
  command_->add_flag("--special", special_, "Add the special tokens the tokenizer's template adds (e.g. BOS)");
}

int TokenizeCommand::run(std::istream& in, std::ostream& out) const {
  const std::unique_ptr<Tokenizer> tokenizer = load_tokenizer(tokenizer_);
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    try {
      if (decode_) {
        out << tokenizer->decode(parse_ids(line)) << '\n';
        continue;
      }
      const std::vector<std::int64_t> ids = tokenizer->encode(line, special_);
      for (std::size_t i = 0; i < ids.size(); ++i) out << (i ? " " : "") << ids[i];
      out << '\n';
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
      throw Error("stdin line " + std::to_string(number) + ": " + e.what());
    }
  }
  out.flush();
  return 0;
}

}  // namespace embpriv
