#pragma once
// The llama2.c tokenizer (tok512.bin and friends): byte-pair encoding with merge scores,
// SentencePiece style (a dummy-prefix space, byte fallback <0xXX>), as in Karpathy's run.c.
// File: int32 max_token_length, then per token: float32 score, int32 byte length, the bytes.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace embpriv {

class Llama2cTokenizer {
 public:
  static constexpr std::int64_t kUnknown = 0, kBos = 1, kEos = 2;

  // Reads a tokenizer file; vocab_size is the model's (the file holds that many tokens).
  // A missing, truncated or malformed file gives one clear Error.
  static Llama2cTokenizer load(const std::string& path, std::int64_t vocab_size);
  // Reads every token of a tokenizer file, reading the file once (so a pipe, <(cat tok512.bin),
  // works too).
  static Llama2cTokenizer load_all(const std::string& path);

  std::int64_t size() const { return static_cast<std::int64_t>(pieces_.size()); }
  const std::string& piece(std::int64_t id) const;
  // Special tokens: <unk>, <s>, </s> (an attack excludes them from recovery counts).
  bool is_special(std::int64_t id) const { return id == kUnknown || id == kBos || id == kEos; }
  // Byte-fallback tokens (<0x00> ... <0xFF>): in stories260K their rows were never trained and
  // are near-duplicates (docs/errata.md), so no attack can tell them apart.
  bool is_byte(std::int64_t id) const;

  // run.c encode(): [<s>] + dummy prefix " " + UTF-8 characters (bytes as <0xXX> when a
  // character is not a piece), then merges the adjacent pair of highest score until none is a
  // piece; [</s>] at the end when asked.
  std::vector<std::int64_t> encode(const std::string& text, bool bos = true, bool eos = false) const;
  // The pieces concatenated (byte tokens as their byte, special tokens dropped).
  std::string decode_pieces(const std::vector<std::int64_t>& ids) const;
  // As SentencePiece prints text: like decode_pieces, but the space that starts the piece after
  // <s> is dropped, so decode(encode(text)) == text.
  std::string decode(const std::vector<std::int64_t>& ids) const;

 private:
  std::string piece_text(std::int64_t id) const;  // a byte token as its byte
  // The first vocab_size tokens of the file's bytes, named `path` in errors.
  static Llama2cTokenizer parse(const std::string& bytes, const std::string& path, std::int64_t vocab_size);
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string, std::int64_t> ids_;
};

}  // namespace embpriv
