#pragma once
// The split patterns of byte-level BPE tokenizers, matched by hand (std::regex has no \p{..}):
// the tokenizer.json pre-tokenizer Split{Regex, behavior Isolated} (and ByteLevel with
// use_regex) cuts text into its matches and the gaps between them. Only the pattern strings the
// known tokenizers ship are accepted; any other pattern is refused by name.
#include <string>
#include <vector>

namespace embpriv {

enum class SplitPattern {
  gpt2,    // GPT-2 (and ByteLevel's use_regex): 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|...
  llama3,  // Llama-3: (?i:'s|...)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|...
  qwen2,   // Qwen2/Qwen3: as Llama-3 with \p{N} (one digit a piece)
};

// The pattern as tokenizer.json spells it.
const std::string& split_pattern_text(SplitPattern pattern);
// The pattern a tokenizer.json regex names; throws embpriv::Error quoting any other regex.
SplitPattern split_pattern_from_text(const std::string& regex);

// The pieces of UTF-8 `text` (matches and gaps, in order, none empty; they concatenate to text).
// Linear in the text's length.
std::vector<std::string> split_with_pattern(SplitPattern pattern, const std::string& text);

}  // namespace embpriv
