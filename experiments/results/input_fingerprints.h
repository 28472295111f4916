#pragma once
// The content fingerprints of the files a run read, as a results file stores them (root
// attribute `input_files`; experiments/engine/input_files.h computes them), and how two such
// records differ: `--resume` and `embpriv merge` join rows only when their inputs had the same
// contents.
#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

// The results-file attribute that holds the fingerprints.
inline constexpr const char* kInputFilesAttribute = "input_files";

struct FileFingerprint {
  std::string key;   // the config key that names the file or its folder
  std::string file;  // the path as given ("sentiment/yelp.json", "models/tiny/config.json")
  std::uint64_t size = 0;
  std::string blake2b;  // BLAKE2b-256 of the contents, hex
};

// The attribute text: one line per file, "BLAKE2B SIZE KEY FILE" (backslash and newline in FILE
// escaped); empty for a run that reads no file.
std::string input_files_text(const std::vector<FileFingerprint>& fingerprints);
// Reads input_files_text back; a malformed line throws embpriv::Error naming `where`.
std::vector<FileFingerprint> parse_input_files_text(const std::string& text, const std::string& where);

// A path on one line of text, a backslash written as \\ and a newline as \n, as the
// attribute and the hash cache of experiments/engine/input_files.h write paths; and back.
std::string escaped_line(const std::string& text);
std::string unescaped_line(const std::string& text);

// The first difference between two attribute texts, or "" when they list the same files with the
// same contents; `before` and `now` name the two sides ("sentiment/yelp.json (data.sentences) has
// changed: 77271 bytes, blake2b 1a2b3c4d5e6f BEFORE; 77271 bytes, blake2b 9f8e7d6c5b4a NOW").
std::string input_files_difference(const std::string& before_text, const std::string& now_text,
                                   const std::string& before, const std::string& now);

}  // namespace embpriv
