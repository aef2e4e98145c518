// The deployment spec: parsing with line-numbered errors, and the
// line-based rewrite that keeps comments and order.
#include "deploy/spec.h"

#include <gtest/gtest.h>

#include "hash/sha256.h"

namespace sealvol {
namespace {

const Digest kA = Sha256::Of("a");
const Digest kB = Sha256::Of("b");

constexpr const char* kSpec = R"(# chat, production
deployment: chat-prod
volumes:
  - ref: acme/llama3-8b:prod   # what the team follows
    path: /models/llama3
  # the tokenizer never moves
  - ref: acme/tok@sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb
    path: models/tok
)";

TEST(SpecTest, ParsesVolumesAndResolvesRelativePaths) {
  auto spec = ParseSpec(kSpec, "sealvol.yaml", "/srv/chat");
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  EXPECT_EQ(spec->deployment, "chat-prod");
  ASSERT_EQ(spec->volumes.size(), 2u);
  EXPECT_EQ(spec->volumes[0].ref.volume, "acme/llama3-8b");
  EXPECT_EQ(spec->volumes[0].ref.tag, "prod");
  EXPECT_FALSE(spec->volumes[0].Pinned().has_value());
  EXPECT_EQ(spec->volumes[0].line, 4);
  EXPECT_EQ(spec->volumes[1].Pinned(), kA);
  EXPECT_EQ(spec->volumes[1].path, "/srv/chat/models/tok");
}

// Each bad spec names its line and field.
TEST(SpecTest, ErrorsNameTheLineAndField) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"deployment: x\nvolumes: [\n", "sealvol.yaml:3: YAML"},
      {"- a\n- b\n", "sealvol.yaml:1: a spec is a mapping"},
      {"volumes:\n  - {ref: a/b, path: /m}\n",
       "sealvol.yaml:1: deployment: missing"},
      {"deployment: Chat\nvolumes:\n  - {ref: a/b, path: /m}\n",
       "sealvol.yaml:1: deployment: bad deployment name"},
      {"deployment: c\nvolumes: []\n", "sealvol.yaml:2: volumes: want a list"},
      {"deployment: c\nreplicas: 3\nvolumes:\n  - {ref: a/b, path: /m}\n",
       "sealvol.yaml:2: replicas: unknown key"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    path: /m\n    mode: rw\n",
       "sealvol.yaml:5: volumes[0].mode: unknown key"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    path: /m\n    path: /n\n",
       "sealvol.yaml:5: volumes[0].path: given twice (first at line 4)"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n", "volumes[0].path: missing"},
      {"deployment: c\nvolumes:\n  - path: /m\n", "volumes[0].ref: missing"},
      {"deployment: c\nvolumes:\n  - ref: Acme/B:prod\n    path: /m\n",
       "sealvol.yaml:3: volumes[0].ref: bad volume name"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    digest: sha256:12\n"
       "    path: /m\n",
       "sealvol.yaml:4: volumes[0].digest:"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    path: [x]\n",
       "sealvol.yaml:4: volumes[0].path: want a single value"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    path: /\n",
       "sealvol.yaml:4: volumes[0].path: bad mount path"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    path: /m\n"
       "  - ref: a/c\n    path: /m/\n",
       "sealvol.yaml:6: volumes[1].path: /m is already used at line 4"},
      {"deployment: c\nvolumes:\n  - ref: a/b\n    path: /m\n"
       "  - ref: a/c\n    path: /m/sub\n",
       "sealvol.yaml:6: volumes[1].path: /m/sub and /m (line 4) lie one "
       "inside the other"},
  };
  for (const Case& c : cases) {
    auto spec = ParseSpec(c.text, "sealvol.yaml", "/srv");
    ASSERT_FALSE(spec.has_value()) << c.text;
    EXPECT_EQ(spec.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(spec.error().message().find(c.want), std::string::npos)
        << "for:\n"
        << c.text << "got: " << spec.error().message();
  }
  std::string contradiction = "deployment: c\nvolumes:\n  - ref: a/b@" +
                              kA.ToString() + "\n    digest: " + kB.ToString() +
                              "\n    path: /m\n";
  auto spec = ParseSpec(contradiction, "s.yaml", "/");
  ASSERT_FALSE(spec.has_value());
  EXPECT_NE(spec.error().message().find(
                "s.yaml:4: volumes[0].digest: differs from the digest in "
                "the ref"),
            std::string::npos)
      << spec.error().message();
}

TEST(SpecTest, PinningInsertsOrReplacesOnlyTheDigest) {
  auto spec = ParseSpec(kSpec, "sealvol.yaml", "/srv/chat");
  ASSERT_TRUE(spec.has_value());
  auto once = ApplyPins(*spec, {{0, kA}, {1, kB}});
  ASSERT_TRUE(once.has_value()) << once.error().ToString();
  EXPECT_EQ(*once, std::string(R"(# chat, production
deployment: chat-prod
volumes:
  - ref: acme/llama3-8b:prod   # what the team follows
    digest: )") + kA.ToString() +
                       R"(
    path: /models/llama3
  # the tokenizer never moves
  - ref: acme/tok@)" + kB.ToString() +
                       R"(
    path: models/tok
)");
  // A second lock replaces the digest in place, comment included.
  std::string commented = *once;
  commented.replace(commented.find(kA.ToString()), kA.ToString().size(),
                    "\"" + kA.ToString() + "\"  # locked by CI");
  auto again = ParseSpec(commented, "sealvol.yaml", "/srv/chat");
  ASSERT_TRUE(again.has_value()) << again.error().ToString();
  auto twice = ApplyPins(*again, {{0, kB}});
  ASSERT_TRUE(twice.has_value()) << twice.error().ToString();
  EXPECT_NE(twice->find("    digest: " + kB.ToString() + "  # locked by CI\n"),
            std::string::npos)
      << *twice;
  EXPECT_EQ(twice->size(), commented.size() - 2);  // the quotes went
}

TEST(SpecTest, AnEmptyDigestIsFilledAndFlowStyleIsRefused) {
  std::string text =
      "deployment: c\nvolumes:\n  - ref: a/b\n    digest:   # soon\n"
      "    path: /m\n  - {ref: a/c, path: /n}\n";
  auto spec = ParseSpec(text, "s.yaml", "/");
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  EXPECT_FALSE(spec->volumes[0].Pinned().has_value());
  auto out = ApplyPins(*spec, {{0, kA}});
  ASSERT_TRUE(out.has_value()) << out.error().ToString();
  EXPECT_NE(out->find("    digest: " + kA.ToString() + "   # soon\n"),
            std::string::npos)
      << *out;
  auto flow = ApplyPins(*spec, {{1, kA}});
  ASSERT_FALSE(flow.has_value());
  EXPECT_NE(flow.error().message().find("s.yaml:6: volumes[1]: written in "
                                        "flow style"),
            std::string::npos)
      << flow.error().message();
}

}  // namespace
}  // namespace sealvol
