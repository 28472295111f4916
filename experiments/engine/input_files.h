#pragma once
// The data files a run reads, and their content fingerprints (size and BLAKE2b-256, never the
// modification time, which copying between machines changes). The config hash covers the paths a
// config names, not what the files hold: a results file stores the fingerprints of its inputs
// (root attribute `input_files`), and `--resume` and `embpriv merge` refuse to join rows computed
// on other data, naming the file that changed.
//
// The types need not list their files twice: every file a type passes to check_data_files
// (experiment_type.h) while the run is planned is recorded by the innermost InputFileCollector of
// the thread. A model folder (Hugging Face) stands for its *.json and *.safetensors files, the
// files a folder load can read.
#include <string>
#include <vector>

#include "experiments/results/input_fingerprints.h"

namespace embpriv {

struct InputFile {
  std::string key;       // the config key that names it ("data.sentences")
  std::string path;      // as the config gives it
  std::string resolved;  // where it was found (data/tables/data_paths.h)
};

// Records the input files named while it lives, on this thread (collectors nest: the innermost
// one records).
class InputFileCollector {
 public:
  InputFileCollector();
  ~InputFileCollector();
  InputFileCollector(const InputFileCollector&) = delete;
  InputFileCollector& operator=(const InputFileCollector&) = delete;
  // In the order first named, each resolved path once.
  const std::vector<InputFile>& files() const { return files_; }

 private:
  friend void record_input_file(const InputFile& file);
  std::vector<InputFile> files_;
  InputFileCollector* outer_;
};

// Hands `file` to the thread's innermost collector (none: nothing happens).
void record_input_file(const InputFile& file);

// Fingerprints every file of `inputs` (a folder: its regular *.json and *.safetensors files),
// sorted by file. A hash is computed once per file version: it is kept, in this process and in
// $XDG_CACHE_HOME/embpriv/input_hashes (else ~/.cache/...), under the file's absolute path,
// device, inode, size, modification and change times, and a file changed within two seconds
// of its hashing is hashed again next time (as git treats "racily clean" files). An unreadable
// file throws embpriv::Error naming it.
std::vector<FileFingerprint> fingerprint_input_files(const std::vector<InputFile>& inputs);

}  // namespace embpriv
