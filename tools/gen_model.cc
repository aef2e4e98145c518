// sealvol-genmodel: writes a synthetic model directory shaped like a real
// checkpoint, for tests, the demo and benchmarks.
//
//   sealvol-genmodel DIR --size BYTES [--seed N] [--variant 1|2]
//
// DIR gets config.json, tokenizer.json (a few MB) and model-0000K-of-0000N
// .safetensors shards of bf16 tensors drawn from normal(0, 0.02) (float32
// rounded to bf16, as trained weights look). --variant 2 is "the next
// checkpoint": the same tensors except that a few are rewritten and one
// small tensor is inserted in the middle of the first shard, so every byte
// after it shifts. Output is a pure function of the arguments.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Rng {
  uint64_t s;
  uint64_t Next() {
    s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return (Next() >> 11) * (1.0 / 9007199254740992.0); }
};

uint16_t ToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

// `count` bf16 values from normal(0, 0.02), Box-Muller, seeded.
void FillTensor(uint64_t seed, size_t count, std::vector<uint16_t>* out) {
  out->resize(count);
  Rng rng{seed};
  for (size_t i = 0; i < count; i += 2) {
    double u1 = rng.Uniform();
    double u2 = rng.Uniform();
    double r = std::sqrt(-2.0 * std::log(u1 + 1e-300)) * 0.02;
    (*out)[i] = ToBf16(static_cast<float>(r * std::cos(2 * M_PI * u2)));
    if (i + 1 < count) {
      (*out)[i + 1] = ToBf16(static_cast<float>(r * std::sin(2 * M_PI * u2)));
    }
  }
}

struct Tensor {
  std::string name;
  std::vector<uint64_t> shape;
  uint64_t seed;
  uint64_t Count() const {
    uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

void WriteAllOrDie(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w <= 0) {
      std::perror("write");
      std::exit(1);
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
}

void WriteShard(const std::string& path, const std::vector<Tensor>& tensors) {
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  uint64_t off = 0;
  for (const auto& t : tensors) {
    uint64_t bytes = t.Count() * 2;
    header += ",\"" + t.name + "\":{\"dtype\":\"BF16\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    }
    header += "],\"data_offsets\":[" + std::to_string(off) + "," +
              std::to_string(off + bytes) + "]}";
    off += bytes;
  }
  header += "}";
  while (header.size() % 8 != 0) header += ' ';
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
  uint64_t hlen = header.size();
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(hlen >> (8 * i));
  WriteAllOrDie(fd, le, 8);
  WriteAllOrDie(fd, header.data(), header.size());
  std::vector<uint16_t> data;
  for (const auto& t : tensors) {
    FillTensor(t.seed, t.Count(), &data);
    WriteAllOrDie(fd, data.data(), data.size() * 2);
  }
  ::close(fd);
}

void WriteText(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
  WriteAllOrDie(fd, text.data(), text.size());
  ::close(fd);
}

std::string Tokenizer(uint64_t seed, size_t vocab) {
  Rng rng{seed};
  std::string out =
      "{\"version\":\"1.0\",\"model\":{\"type\":\"BPE\",\"vocab\":{";
  for (size_t i = 0; i < vocab; ++i) {
    std::string tok;
    size_t len = 2 + rng.Next() % 8;
    for (size_t k = 0; k < len; ++k)
      tok += static_cast<char>('a' + rng.Next() % 26);
    out += (i ? ",\"" : "\"") + tok + std::to_string(i) +
           "\":" + std::to_string(i);
  }
  return out + "}}}\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: sealvol-genmodel DIR --size BYTES [--seed N] "
                 "[--variant 1|2]\n");
    return 2;
  }
  std::string dir = argv[1];
  uint64_t size = 64ull << 20, seed = 1;
  int variant = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    uint64_t v = std::strtoull(argv[i + 1], nullptr, 10);
    if (k == "--size")
      size = v;
    else if (k == "--seed")
      seed = v;
    else if (k == "--variant")
      variant = static_cast<int>(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  ::mkdir(dir.c_str(), 0755);
  // Tensor shapes like a small transformer: hidden h, mlp 4h, shards of at
  // most 1 GiB. Pick h so one layer (12 h^2 values) is about 1/8 of the size.
  uint64_t values = size / 2;
  uint64_t h = 64;
  while (12 * (2 * h) * (2 * h) * 8 <= values && h < 4096) h *= 2;
  uint64_t layer_values = 12 * h * h;
  uint64_t layers = std::max<uint64_t>(1, values / layer_values);
  uint64_t shard_limit = 1ull << 30;
  std::vector<std::vector<Tensor>> shards(1);
  uint64_t shard_bytes = 0;
  uint64_t tseed = seed * 1000003;
  int rewritten = 0;
  for (uint64_t l = 0; l < layers; ++l) {
    const char* names[] = {"self_attn.q_proj", "self_attn.k_proj",
                           "self_attn.v_proj", "self_attn.o_proj",
                           "mlp.up_proj",      "mlp.down_proj"};
    for (int k = 0; k < 6; ++k) {
      Tensor t{
          "model.layers." + std::to_string(l) + "." + names[k] + ".weight",
          k < 4 ? std::vector<uint64_t>{h, h} : std::vector<uint64_t>{4 * h, h},
          ++tseed};
      // Variant 2 rewrites every 7th tensor of the first few (fine-tuned
      // layers) ...
      if (variant == 2 && tseed % 7 == 0 && rewritten < 10) {
        t.seed += 0x5eed0000;
        ++rewritten;
      }
      if (shard_bytes + t.Count() * 2 > shard_limit && !shards.back().empty()) {
        shards.emplace_back();
        shard_bytes = 0;
      }
      shard_bytes += t.Count() * 2;
      shards.back().push_back(std::move(t));
      // ... and inserts one 256 KiB tensor in the middle of the first shard.
      if (variant == 2 && shards.size() == 1 && l == layers / 2 && k == 2) {
        shards.back().push_back(
            Tensor{"model.layers." + std::to_string(l) + ".adapter.weight",
                   {128, 1024},
                   seed + 0xada});
      }
    }
  }
  for (size_t s = 0; s < shards.size(); ++s) {
    char name[64];
    std::snprintf(name, sizeof(name), "model-%05zu-of-%05zu.safetensors", s + 1,
                  shards.size());
    WriteShard(dir + "/" + name, shards[s]);
  }
  WriteText(dir + "/config.json",
            "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":" +
                std::to_string(h) + ",\"num_hidden_layers\":" +
                std::to_string(layers) + ",\"torch_dtype\":\"bfloat16\"}\n");
  WriteText(dir + "/tokenizer.json", Tokenizer(seed, 200000));
  return 0;
}
