// TempDir: a scratch directory for tests, removed on destruction, with
// helpers to lay out source trees.
#ifndef SEALVOL_TESTING_TEMP_DIR_H_
#define SEALVOL_TESTING_TEMP_DIR_H_

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace sealvol::testing {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/sealvol-test-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const {
    return path_ + "/" + rel;
  }

  // Writes `content` to `rel`, creating parent directories.
  void Write(const std::string& rel, const std::string& content,
             mode_t mode = 0644) const {
    std::filesystem::path p(*this / rel);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
    ::chmod(p.c_str(), mode);
  }
  void Mkdir(const std::string& rel) const {
    std::filesystem::create_directories(*this / rel);
  }
  void Symlink(const std::string& target, const std::string& rel) const {
    std::filesystem::path p(*this / rel);
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_symlink(target, p);
  }
  std::string Read(const std::string& rel) const {
    std::ifstream f(*this / rel, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  std::string path_;
};

// Deterministic pseudo-random bytes (SplitMix64).
inline std::string RandomBytes(uint64_t seed, size_t n) {
  std::string out(n, '\0');
  uint64_t s = seed;
  for (size_t i = 0; i < n; i += 8) {
    s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    for (size_t k = 0; k < 8 && i + k < n; ++k) {
      out[i + k] = static_cast<char>(z >> (8 * k));
    }
  }
  return out;
}

}  // namespace sealvol::testing

#endif  // SEALVOL_TESTING_TEMP_DIR_H_
