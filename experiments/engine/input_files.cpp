#include "experiments/engine/input_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/blake2b.h"
#include "core/error.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;

thread_local InputFileCollector* innermost = nullptr;

// A file version as the system sees it: a cached hash is used only while all of this is unchanged.
struct FileStamp {
  std::string absolute;
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t modified_ns = 0, changed_ns = 0;

  std::string cache_key() const {
    std::ostringstream key;
    key << size << ' ' << device << ' ' << inode << ' ' << modified_ns << ' ' << changed_ns << ' ' << absolute;
    return key.str();
  }
};

std::int64_t nanoseconds(const timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

// Where the hashes of earlier runs are kept; empty when neither XDG_CACHE_HOME nor HOME is set.
std::string hash_cache_path() {
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir && *dir) return std::string(dir) + "/embpriv/input_hashes";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/embpriv/input_hashes";
  return "";
}

// The hashes known to this process: read from the cache file on first use, written back when a
// run hashed something new. The cache is a convenience: a cache that cannot be read or written
// is ignored.
class HashCache {
 public:
  static HashCache& instance() {
    static HashCache cache;
    return cache;
  }
  std::string find(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    load();
    const auto found = hashes_.find(key);
    return found == hashes_.end() ? std::string() : found->second;
  }
  void store(const std::string& key, const std::string& hash) {
    const std::lock_guard<std::mutex> lock(mutex_);
    hashes_[key] = hash;
    changed_ = true;
  }
  void save() {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::string path = hash_cache_path();
    if (!changed_ || path.empty()) return;
    changed_ = false;
    // A bounded file: the most recent entries are kept (hashes_ holds what this process read
    // and hashed; an older version of a file is dropped when the cache grows past the bound).
    constexpr std::size_t kMaxEntries = 10000;
    std::ostringstream text;
    std::size_t written = 0;
    for (const auto& [key, hash] : hashes_) {
      if (++written > kMaxEntries) break;
      text << hash << ' ' << escaped_line(key) << '\n';
    }
    try {
      std::error_code ignored;
      fs::create_directories(fs::path(path).parent_path(), ignored);
      write_file_atomically(path, text.str());
    } catch (const std::exception&) {
      // An unwritable cache only costs the next run the hashing again.
    }
  }

 private:
  void load() {
    if (loaded_) return;
    loaded_ = true;
    const std::string path = hash_cache_path();
    if (path.empty()) return;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const auto space = line.find(' ');
      if (space != 64) continue;  // not a line of this cache
      hashes_.emplace(unescaped_line(line.substr(space + 1)), line.substr(0, space));
    }
  }

  std::mutex mutex_;
  bool loaded_ = false, changed_ = false;
  std::map<std::string, std::string> hashes_;
};

FileStamp stamp_of(const std::string& path, const std::string& key) {
  struct stat s {};
  EMBPRIV_CHECK(::stat(path.c_str(), &s) == 0,
                key << ": cannot read " << path << " to fingerprint it: " << std::strerror(errno));
  FileStamp stamp;
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  stamp.absolute = error ? path : absolute.lexically_normal().string();
  stamp.device = static_cast<std::uint64_t>(s.st_dev);
  stamp.inode = static_cast<std::uint64_t>(s.st_ino);
  stamp.size = static_cast<std::uint64_t>(s.st_size);
  stamp.modified_ns = nanoseconds(s.st_mtim);
  stamp.changed_ns = nanoseconds(s.st_ctim);
  return stamp;
}

// BLAKE2b-256 of the file's bytes, read in 1 MiB blocks; `size` gets the bytes read.
std::string hash_file(const std::string& path, const std::string& key, std::uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBPRIV_CHECK(fd >= 0, key << ": cannot read " << path << " to fingerprint it: " << std::strerror(errno));
  Blake2b hash;
  std::string block(1 << 20, '\0');
  size = 0;
  for (;;) {
    const ssize_t got = ::read(fd, block.data(), block.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      throw Error(key + ": cannot read " + path + " to fingerprint it: " + reason);
    }
    if (got == 0) break;
    hash.update(block.data(), static_cast<std::size_t>(got));
    size += static_cast<std::uint64_t>(got);
  }
  ::close(fd);
  return hash.hex_digest();
}

// One regular file's fingerprint, from the cache when this version of the file was hashed before.
FileFingerprint fingerprint_file(const std::string& key, const std::string& shown, const std::string& path) {
  const FileStamp stamp = stamp_of(path, key);
  FileFingerprint fingerprint{key, shown, stamp.size, HashCache::instance().find(stamp.cache_key())};
  if (!fingerprint.blake2b.empty()) return fingerprint;
  const auto hashed_at = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  fingerprint.blake2b = hash_file(path, key, fingerprint.size);
  // A file written within two seconds of its hashing may be written again within the same tick
  // of the file system's clock, leaving every stamp as it was (git's "racily clean" entries): its
  // hash is not cached. Nor is it when the file changed while it was read.
  constexpr std::int64_t kRacyNs = 2000000000LL;
  const FileStamp after = stamp_of(path, key);
  if (after.cache_key() == stamp.cache_key() && fingerprint.size == stamp.size &&
      hashed_at - std::max(stamp.modified_ns, stamp.changed_ns) > kRacyNs) {
    HashCache::instance().store(stamp.cache_key(), fingerprint.blake2b);
  }
  return fingerprint;
}

bool model_folder_file(const fs::path& file) {
  const std::string extension = file.extension().string();
  return extension == ".json" || extension == ".safetensors";
}

}  // namespace

InputFileCollector::InputFileCollector() : outer_(innermost) { innermost = this; }

InputFileCollector::~InputFileCollector() { innermost = outer_; }

void record_input_file(const InputFile& file) {
  if (!innermost) return;
  std::vector<InputFile>& files = innermost->files_;
  const bool known = std::any_of(files.begin(), files.end(),
                                 [&](const InputFile& f) { return f.resolved == file.resolved; });
  if (!known) files.push_back(file);
}

std::vector<FileFingerprint> fingerprint_input_files(const std::vector<InputFile>& inputs) {
  std::vector<FileFingerprint> fingerprints;
  std::set<std::string> seen;
  const auto add = [&](const std::string& key, const std::string& shown, const std::string& path) {
    if (seen.insert(shown).second) fingerprints.push_back(fingerprint_file(key, shown, path));
  };
  for (const InputFile& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input.resolved, error)) {
      // A model folder: the files a Hugging Face load reads (config.json, tokenizer.json,
      // model.safetensors or its index and shards). Entries that are not regular files (a
      // dangling link, a pipe an interrupted download left) are no data and are skipped.
      std::vector<fs::path> files;
      for (fs::directory_iterator it(input.resolved, error), end; !error && it != end; it.increment(error)) {
        std::error_code kind_error;
        if (model_folder_file(it->path()) && fs::is_regular_file(it->path(), kind_error)) files.push_back(it->path());
      }
      EMBPRIV_CHECK(!error, input.key << ": cannot list the folder " << input.resolved << ": " << error.message());
      std::sort(files.begin(), files.end());
      for (const fs::path& file : files) {
        add(input.key, (fs::path(input.path) / file.filename()).generic_string(), file.string());
      }
      continue;
    }
    EMBPRIV_CHECK(fs::is_regular_file(input.resolved, error),
                  input.key << ": " << input.path << " is neither a regular file nor a folder (a pipe or a "
                            << "device cannot be read twice: once to fingerprint it, once to load it)");
    add(input.key, input.path, input.resolved);
  }
  HashCache::instance().save();
  std::sort(fingerprints.begin(), fingerprints.end(),
            [](const FileFingerprint& a, const FileFingerprint& b) { return a.file < b.file; });
  return fingerprints;
}

}  // namespace embpriv
