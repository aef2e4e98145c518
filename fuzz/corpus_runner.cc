// Runs a fuzz target over every file of its checked-in corpus, so the
// corpus is a regression test under any compiler (libFuzzer needs clang).
//   <target>_corpus_test DIR...
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(argv[i])) {
      if (!e.is_regular_file()) continue;
      std::ifstream f(e.path(), std::ios::binary);
      std::string data((std::istreambuf_iterator<char>(f)), {});
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()),
                             data.size());
      ++ran;
    }
  }
  std::printf("%zu corpus inputs ran clean\n", ran);
  return ran > 0 ? 0 : 1;
}
