#include "sources/aws_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "testing/temp_dir.h"

namespace sealvol {
namespace {

using testing::TempDir;

TEST(IniTest, SectionsKeysCommentsAndNestedSettings) {
  auto ini = ParseIni(
      "# comment\n[default]\nAWS_Access_Key_ID = AKIA1\n; more\n"
      "aws_secret_access_key=s3cr=t\r\n\n[profile cw]\nregion = us-east-04a\n"
      "s3 =\n  addressing_style = virtual\n");
  ASSERT_TRUE(ini.has_value()) << ini.error().ToString();
  EXPECT_EQ((*ini)["default"]["aws_access_key_id"], "AKIA1");
  EXPECT_EQ((*ini)["default"]["aws_secret_access_key"], "s3cr=t");
  EXPECT_EQ((*ini)["profile cw"]["region"], "us-east-04a");
  EXPECT_EQ((*ini)["profile cw"].count("addressing_style"), 0u);
}

TEST(IniTest, MalformedLinesNameTheLine) {
  for (auto [text, line] :
       {std::pair{"[default\n", "1:"}, std::pair{"[a]\nkey value\n", "2:"},
        std::pair{"key = v\n", "1:"}, std::pair{"[]\n", "1:"}}) {
    auto ini = ParseIni(text);
    ASSERT_FALSE(ini.has_value()) << text;
    EXPECT_EQ(ini.error().message().rfind(line, 0), 0u)
        << ini.error().message();
  }
}

class AwsEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : kVars) unsetenv(v);
  }
  static constexpr const char* kVars[] = {
      "AWS_ACCESS_KEY_ID",           "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",           "AWS_REGION",
      "AWS_DEFAULT_REGION",          "AWS_PROFILE",
      "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"};
};

TEST_F(AwsEnvTest, ProfilesFromTheFilesAndTheEnvironmentWins) {
  TempDir home;
  home.Write(".aws/credentials",
             "[default]\naws_access_key_id = DEF\naws_secret_access_key = "
             "defsecret\n[cw]\naws_access_key_id = CW\n"
             "aws_secret_access_key = cwsecret\n");
  home.Write(
      ".aws/config",
      "[default]\nregion = eu-west-1\n[profile cw]\nregion = US-EAST-04A\n"
      "[profile only-config]\naws_access_key_id = OC\n"
      "aws_secret_access_key = ocsecret\n");
  S3Options o;
  ASSERT_TRUE(LoadAwsCredentials(&o, home.path()).ok());
  EXPECT_EQ(o.creds.access_key, "DEF");
  EXPECT_EQ(o.region, "eu-west-1");

  setenv("AWS_PROFILE", "cw", 1);
  o = S3Options{};
  ASSERT_TRUE(LoadAwsCredentials(&o, home.path()).ok());
  EXPECT_EQ(o.creds.access_key, "CW");
  EXPECT_EQ(o.creds.secret_key, "cwsecret");
  EXPECT_EQ(o.region, "US-EAST-04A");

  setenv("AWS_PROFILE", "only-config", 1);
  o = S3Options{};
  ASSERT_TRUE(LoadAwsCredentials(&o, home.path()).ok());
  EXPECT_EQ(o.creds.access_key, "OC");

  setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  setenv("AWS_REGION", "ap-south-1", 1);
  o = S3Options{};
  ASSERT_TRUE(LoadAwsCredentials(&o, home.path()).ok());
  EXPECT_EQ(o.creds.access_key, "ENVKEY");
  EXPECT_EQ(o.region, "ap-south-1");
}

TEST_F(AwsEnvTest, AMissingNamedProfileIsAnErrorButMissingFilesAreNot) {
  TempDir home;
  S3Options o;
  EXPECT_TRUE(LoadAwsCredentials(&o, home.path()).ok());
  EXPECT_TRUE(o.creds.access_key.empty());
  setenv("AWS_PROFILE", "nope", 1);
  Status s = LoadAwsCredentials(&o, home.path());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("'nope'"), std::string::npos);
}

}  // namespace
}  // namespace sealvol
