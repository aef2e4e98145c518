#include "client/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace sealvol {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sealvol-config-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    setenv("SEALVOL_CONFIG", (dir_ + "/config.toml").c_str(), 1);
    unsetenv("SEALVOL_REMOTE");
    unsetenv("SEALVOL_TOKEN");
  }
  void TearDown() override {
    unsetenv("SEALVOL_CONFIG");
    unsetenv("SEALVOL_REMOTE");
    unsetenv("SEALVOL_TOKEN");
    std::filesystem::remove_all(dir_);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string dir_;
};

TEST_F(ConfigTest, NoConfigMeansTheEmbeddedStore) {
  auto r = ResolveRemote("");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_FALSE(r->has_value());
}

TEST_F(ConfigTest, NamedRemotesDefaultsAndPrecedence) {
  Write("tok", "file-token\n");
  Write("config.toml",
        "remote = \"team\"\n"
        "[remotes.team]\n"
        "url = \"http://team:5000/\"\n"
        "token = \"team-token\"\n"
        "[remotes.ci]\n"
        "url = \"https://ci.example\"\n"
        "token_file = \"" +
            dir_ + "/tok\"\n");
  auto team = ResolveRemote("");
  ASSERT_TRUE(team.has_value() && team->has_value());
  EXPECT_EQ((*team)->url, "http://team:5000");
  EXPECT_EQ((*team)->token, "team-token");
  auto ci = ResolveRemote("ci");
  ASSERT_TRUE(ci.has_value() && ci->has_value());
  EXPECT_EQ((*ci)->token, "file-token");
  setenv("SEALVOL_REMOTE", "http://env:1", 1);
  EXPECT_EQ((*ResolveRemote(""))->url, "http://env:1");
  EXPECT_EQ((*ResolveRemote("ci"))->url, "https://ci.example");  // flag wins
  EXPECT_FALSE(ResolveRemote("local")->has_value());
  EXPECT_EQ((*ResolveRemote("http://team:5000"))->token, "team-token");
  EXPECT_EQ((*ResolveRemote("http://other:1"))->token, "");
  // Replicas of one registry, tried in turn; each must be a URL.
  EXPECT_EQ((*ResolveRemote("http://a:1,http://b:2"))->url,
            "http://a:1,http://b:2");
  auto bad = ResolveRemote("http://a:1,b:2");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("b:2"), std::string::npos);
  setenv("SEALVOL_TOKEN", "env-token", 1);
  EXPECT_EQ((*ResolveRemote("team"))->token, "env-token");
}

TEST_F(ConfigTest, ClearErrors) {
  Write("config.toml", "[remotes.x]\nurl = \"http://x\"\nbroken = \n");
  auto bad = ResolveRemote("x");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("line 3"), std::string::npos)
      << bad.error().message();
  Write("config.toml", "[remotes.x]\nurl = \"http://x\"\n");
  auto unknown = ResolveRemote("nope");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message().find("no remote named 'nope'"),
            std::string::npos);
  EXPECT_FALSE(ResolveRemote("ftp://x").has_value());
}

}  // namespace
}  // namespace sealvol
