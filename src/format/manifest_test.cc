#include "format/manifest.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "hash/sha256.h"

namespace sealvol {
namespace {

const std::string kEmptyHex =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

Manifest Sample() {
  Manifest m;
  ManifestEntry big;
  big.path = "model.safetensors";
  big.size = 5000000;
  big.sha256 = Sha256::Of("big");
  big.chunks = Sha256::Of("index");
  ManifestEntry cfg;
  cfg.path = "config.json";
  cfg.size = 571;
  cfg.sha256 = Sha256::Of("cfg");
  ManifestEntry run;
  run.path = "bin/run.sh";
  run.executable = true;
  run.size = 0;
  run.sha256 = Sha256::Of("");
  ManifestEntry link;
  link.path = "ckpt/latest";
  link.type = EntryType::kSymlink;
  link.target = "step-100";
  ManifestEntry empty;
  empty.path = "empty";
  empty.type = EntryType::kDir;
  m.entries = {run, link, cfg, empty, big};  // sorted bytewise
  return m;
}

TEST(ManifestTest, SerializesCanonically) {
  auto bytes = SerializeManifest(Sample());
  ASSERT_TRUE(bytes.has_value()) << bytes.error().ToString();
  std::string want =
      R"({"chunking":{"algorithm":"fastcdc","avg":1048576,"max":4194304,"min":262144},)"
      R"("entries":[{"mode":"755","path":"bin/run.sh","sha256":")" +
      kEmptyHex +
      R"(","size":0},{"path":"ckpt/latest","symlink":"step-100"},)"
      R"({"mode":"644","path":"config.json","sha256":")" +
      Sha256::Of("cfg").Hex() +
      R"(","size":571},{"path":"empty","type":"dir"},)"
      R"({"chunks":")" +
      Sha256::Of("index").ToString() +
      R"(","mode":"644","path":"model.safetensors","sha256":")" +
      Sha256::Of("big").Hex() +
      R"(","size":5000000}],"schema":"sealvol.manifest.v1"})";
  EXPECT_EQ(*bytes, want);
  auto back = ParseManifest(*bytes);
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_EQ(back->entries, Sample().entries);
  EXPECT_EQ(back->TotalBytes(), 5000571u);
  EXPECT_EQ(back->FileCount(), 3u);
  ASSERT_NE(back->Find("config.json"), nullptr);
  EXPECT_EQ(back->Find("nope"), nullptr);
}

std::string Canonical() { return *SerializeManifest(Sample()); }

std::string Replace(std::string s, const std::string& from,
                    const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

TEST(ManifestTest, RejectsNonCanonicalBytes) {
  std::string c = Canonical();
  std::vector<std::string> bad = {
      "",
      "{}",
      "[]",
      "null",
      c + "\n",
      " " + c,
      Replace(c, "\"chunking\":{", "\"chunking\": {"),
      // unsorted keys
      Replace(c, R"({"path":"ckpt/latest","symlink":"step-100"})",
              R"({"symlink":"step-100","path":"ckpt/latest"})"),
      // duplicate key (the second wins in the parser, so bytes differ)
      Replace(c, R"({"path":"empty","type":"dir"})",
              R"({"path":"empty","path":"empty","type":"dir"})"),
      // needless escapes and number forms
      Replace(c, "step-100", "step\\u002d100"),
      Replace(c, "\"size\":571", "\"size\":571.0"),
      Replace(c, "\"size\":571", "\"size\":5.71e2"),
      c.substr(0, c.size() - 1),
  };
  for (const auto& b : bad) {
    auto r = ParseManifest(b);
    ASSERT_FALSE(r.has_value()) << b;
    EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  }
}

TEST(ManifestTest, RejectsWrongSchemaAndParameters) {
  std::string c = Canonical();
  for (const auto& b :
       {Replace(c, "sealvol.manifest.v1", "sealvol.manifest.v2"),
        Replace(c, "\"avg\":1048576", "\"avg\":1048577"),
        Replace(c, "fastcdc", "rabin"),
        Replace(c, ",\"schema\":\"sealvol.manifest.v1\"", ""),
        Replace(c, "\"schema\"", "\"extra\":1,\"schema\"")}) {
    EXPECT_FALSE(ParseManifest(b).has_value()) << b;
  }
}

// Each case breaks one rule on an otherwise valid manifest.
struct BadCase {
  const char* name;
  void (*mutate)(Manifest*);
};

TEST(ManifestTest, RejectsEveryRuleBreak) {
  BadCase cases[] = {
      {"dotdot", [](Manifest* m) { m->entries[2].path = "../config.json"; }},
      {"absolute", [](Manifest* m) { m->entries[0].path = "/bin/run.sh"; }},
      {"backslash", [](Manifest* m) { m->entries[2].path = "con\\fig.json"; }},
      {"control",
       [](Manifest* m) {
         m->entries[2].path =
             "con\x01"
             "fig";
       }},
      {"duplicate", [](Manifest* m) { m->entries[3].path = "config.json"; }},
      {"unsorted",
       [](Manifest* m) { std::swap(m->entries[0], m->entries[4]); }},
      {"under a file",
       [](Manifest* m) { m->entries[3].path = "config.json/x"; }},
      {"under a symlink",
       [](Manifest* m) { m->entries[2].path = "ckpt/latest/x"; }},
      {"under an empty dir",
       [](Manifest* m) { m->entries[4].path = "empty/model"; }},
      {"escaping symlink",
       [](Manifest* m) { m->entries[1].target = "../../etc/passwd"; }},
      {"absolute symlink", [](Manifest* m) { m->entries[1].target = "/etc"; }},
      {"empty file with data hash",
       [](Manifest* m) { m->entries[0].sha256 = Sha256::Of("x"); }},
      {"big file without index",
       [](Manifest* m) { m->entries[4].chunks.reset(); }},
      {"small file with index",
       [](Manifest* m) { m->entries[2].chunks = Sha256::Of("i"); }},
      {"absurd size",
       [](Manifest* m) { m->entries[4].size = kMaxFileSize + 1; }},
  };
  for (const auto& c : cases) {
    Manifest m = Sample();
    c.mutate(&m);
    EXPECT_FALSE(ValidateManifest(m).ok()) << c.name;
    EXPECT_FALSE(SerializeManifest(m).has_value()) << c.name;
  }
}

TEST(ManifestTest, RejectsBadFieldsInJson) {
  std::string c = Canonical();
  for (const auto& b : {
           Replace(c, "\"mode\":\"644\"", "\"mode\":\"600\""),
           Replace(c, "\"mode\":\"644\"", "\"mode\":644"),
           Replace(c, "\"size\":571", "\"size\":-571"),
           Replace(c, "\"size\":571", "\"size\":\"571\""),
           Replace(c, Sha256::Of("cfg").Hex(),
                   "sha256:" + Sha256::Of("cfg").Hex()),
           Replace(c, Sha256::Of("index").ToString(),
                   Sha256::Of("index").Hex()),
           Replace(c, R"("type":"dir")", R"("type":"fifo")"),
       }) {
    auto r = ParseManifest(b);
    ASSERT_FALSE(r.has_value()) << b;
    EXPECT_EQ(r.error().code(), StatusCode::kCorruption);
  }
}

TEST(ManifestTest, EmptyTreeIsValid) {
  auto bytes = SerializeManifest(Manifest{});
  ASSERT_TRUE(bytes.has_value());
  EXPECT_TRUE(ParseManifest(*bytes).has_value());
}

}  // namespace
}  // namespace sealvol

namespace sealvol {
namespace {

// The direct canonical reader and the reference parser must agree on every
// input: whether it is accepted, and the manifest it gives.
void ExpectSameVerdict(std::string_view bytes) {
  auto fast = ParseManifest(bytes);
  auto slow = ParseManifestReference(bytes);
  ASSERT_EQ(fast.has_value(), slow.has_value())
      << "input: " << bytes
      << "\nreference: " << (slow ? "accepts" : slow.error().ToString());
  if (fast) {
    EXPECT_EQ(fast->entries, slow->entries);
  } else {
    EXPECT_EQ(fast.error().ToString(), slow.error().ToString());
  }
}

TEST(ManifestDifferentialTest, DirectReaderAgreesWithReferenceParser) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> names = {
      "a",     "b.bin", "\xc3\xa9t\xc3\xa9", "q\"uote", "sp ace",
      "x.y-z", "0",     "\xf0\x9f\x98\x80",  "dir"};
  for (int round = 0; round < 300; ++round) {
    Manifest m;
    std::set<std::string> paths;
    int n = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      std::string p = names[rng() % names.size()];
      if (rng() % 2) p += "/" + names[rng() % names.size()];
      paths.insert(p);
    }
    for (const std::string& p : paths) {
      ManifestEntry e;
      e.path = p;
      switch (rng() % 4) {
        case 0:
          e.type = EntryType::kSymlink;
          e.target = names[rng() % 3];
          break;
        case 1:
          e.type = EntryType::kDir;
          break;
        default:
          e.size = rng() % 3 == 0 ? 0 : 1 + rng() % (3 << 20);
          e.sha256 = e.size == 0 ? Sha256::Of("") : Sha256::Of(p);
          e.executable = rng() % 2;
          break;
      }
      m.entries.push_back(e);
    }
    auto bytes = SerializeManifest(m);
    if (!bytes) continue;  // e.g. a file under a file: not a manifest
    ExpectSameVerdict(*bytes);
    // Damage it a few ways: every verdict must still agree.
    for (int k = 0; k < 20; ++k) {
      std::string bad = *bytes;
      size_t at = rng() % bad.size();
      switch (rng() % 4) {
        case 0:
          bad[at] = static_cast<char>(rng());
          break;
        case 1:
          bad.erase(at, 1);
          break;
        case 2:
          bad.insert(at, 1, " \\\"0,}u"[rng() % 7]);
          break;
        default:
          bad.insert(at, bad.substr(rng() % bad.size(), 1 + rng() % 8));
          break;
      }
      ExpectSameVerdict(bad);
    }
  }
}

TEST(ManifestDifferentialTest, NumbersAndEscapesAtTheEdges) {
  std::string head =
      R"({"chunking":{"algorithm":"fastcdc","avg":1048576,"max":4194304,"min":262144},"entries":[)";
  std::string tail = R"(],"schema":"sealvol.manifest.v1"})";
  std::string sha(64, 'a');
  for (std::string size :
       {"0", "01", "-1", "1e3", "1.0", "18446744073709551615",
        "18446744073709551616", "5"}) {
    ExpectSameVerdict(head + R"({"mode":"644","path":"f","sha256":")" + sha +
                      R"(","size":)" + size + "}" + tail);
  }
  for (std::string path :
       {R"(a\"b)", R"(a\\b)", R"(a\/b)", R"(a\u0041)", "a\x01", R"(a\n)"}) {
    ExpectSameVerdict(head + R"({"path":")" + path + R"(","type":"dir"})" +
                      tail);
  }
  ExpectSameVerdict(head + tail);
  ExpectSameVerdict(head + tail + " ");
}

}  // namespace
}  // namespace sealvol
