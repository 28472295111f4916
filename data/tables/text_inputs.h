#pragma once
// Texts a user brings to a model (`embpriv embed`): lines of a text file or of stdin, or a JSON
// array of them: strings, or objects with "text" (the sentiment sentences the configs use,
// {"text", "class"}: data/corpora/sentiment_corpus.h, whose rules this reader keeps: an object
// whose "class" is null is skipped). Each text keeps an id that finds it again in its source.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace embpriv {

struct TextInputs {
  std::vector<std::string> ids;    // line numbers from 1, or the JSON entry's "id", else its index
  std::vector<std::string> texts;
  std::vector<std::int64_t> labels;  // the entries' integer "class", when every entry has one
};

// One text per line (a final '\r' is dropped, so Windows files read the same); ids "1", "2", ...
TextInputs read_text_lines(std::istream& in);

// PATH ending in .json: the JSON array above; any other file: its lines. A missing file, JSON
// that is not such an array, or an entry without a text is one embpriv::Error naming the file and
// the entry.
TextInputs read_text_inputs(const std::string& path);

}  // namespace embpriv
