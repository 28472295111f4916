#pragma once
// GPT-2's byte-level alphabet (bytes_to_unicode in openai/gpt-2 encoder.py): each of the 256
// bytes is spelled by one printable character, so a byte-level BPE vocabulary covers any text.
#include <string>

namespace embpriv {

// The UTF-8 of the characters that spell the bytes of `bytes` (e.g. " a" -> "Ġa").
std::string bytes_to_byte_level(const std::string& bytes);
// The inverse: the bytes a byte-level string spells; false (out untouched) when a character is
// not in the alphabet.
bool byte_level_to_bytes(const std::string& text, std::string& out);

}  // namespace embpriv
