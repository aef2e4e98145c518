// Kernel micro-benchmarks: chunker, SHA-256, envelope codecs, on bf16-like
// data (normal(0, 0.02) rounded to bf16) and random bytes.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "chunk/chunker.h"
#include "format/envelope.h"
#include "format/manifest.h"
#include "hash/sha256.h"
#include "mount/volume_tree.h"

namespace {

const std::string& Bf16Data() {
  static const std::string data = [] {
    std::mt19937_64 rng(1);
    std::normal_distribution<float> dist(0.0f, 0.02f);
    std::string out(64 << 20, '\0');
    for (size_t i = 0; i < out.size(); i += 2) {
      float f = dist(rng);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t bf =
          static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
      std::memcpy(&out[i], &bf, 2);
    }
    return out;
  }();
  return data;
}

void BM_Chunker(benchmark::State& state) {
  const std::string& data = Bf16Data();
  for (auto _ : state) {
    sealvol::Chunker c;
    size_t pos = 0, chunks = 0;
    while (pos < data.size()) {
      bool cut;
      pos += c.Next(reinterpret_cast<const uint8_t*>(data.data()) + pos,
                    data.size() - pos, &cut);
      chunks += cut;
    }
    benchmark::DoNotOptimize(chunks);
  }
  state.SetBytesProcessed(state.iterations() * data.size());
}
BENCHMARK(BM_Chunker)->Unit(benchmark::kMillisecond);

void BM_Sha256(benchmark::State& state) {
  std::string_view data(Bf16Data());
  data = data.substr(0, state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(sealvol::Sha256::Of(data));
  state.SetBytesProcessed(state.iterations() * data.size());
}
BENCHMARK(BM_Sha256)->Arg(1 << 20)->Arg(64 << 20)->Unit(
    benchmark::kMillisecond);

void BM_EncodeZstd(benchmark::State& state) {
  std::string_view chunk = std::string_view(Bf16Data()).substr(0, 1 << 20);
  size_t out = 0;
  for (auto _ : state) {
    out = sealvol::EncodeEnvelope(chunk, sealvol::CompressPolicy::kZstd).size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(state.iterations() * chunk.size());
  state.counters["ratio"] = static_cast<double>(chunk.size()) / out;
}
BENCHMARK(BM_EncodeZstd)->Unit(benchmark::kMillisecond);

// Arg 0: raw envelope; 1: zstd envelope.
void BM_DecodeVerified(benchmark::State& state) {
  std::string_view chunk = std::string_view(Bf16Data()).substr(0, 1 << 20);
  auto policy = state.range(0) ? sealvol::CompressPolicy::kZstd
                               : sealvol::CompressPolicy::kNone;
  std::string env = sealvol::EncodeEnvelope(chunk, policy);
  sealvol::Digest d = sealvol::Sha256::Of(chunk);
  for (auto _ : state) {
    auto r = sealvol::DecodeVerified(env, d, chunk.size(), chunk.size());
    benchmark::DoNotOptimize(r.has_value());
  }
  state.SetBytesProcessed(state.iterations() * chunk.size());
}
BENCHMARK(BM_DecodeVerified)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

// A 10,000-file manifest (100 directories of 100 files), as `sealvol mount`
// reads before the mount is live.
const std::string& ManyFileManifest() {
  static const std::string bytes = [] {
    sealvol::Manifest m;
    for (int d = 0; d < 100; ++d) {
      for (int f = 0; f < 100; ++f) {
        sealvol::ManifestEntry e;
        e.path = "d" + std::to_string(1000 + d) + "/f" +
                 std::to_string(1000 + f) + ".txt";
        e.size = 100 + static_cast<uint64_t>(f);
        e.sha256 = sealvol::Sha256::Of(e.path);
        m.entries.push_back(e);
      }
    }
    return *sealvol::SerializeManifest(m);
  }();
  return bytes;
}

void BM_ParseManifest10k(benchmark::State& state) {
  for (auto _ : state) {
    auto m = sealvol::ParseManifest(ManyFileManifest());
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_ParseManifest10k)->Unit(benchmark::kMillisecond);

void BM_VolumeTree10k(benchmark::State& state) {
  auto m = *sealvol::ParseManifest(ManyFileManifest());
  for (auto _ : state) {
    auto t = sealvol::VolumeTree::Build(m);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_VolumeTree10k)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
