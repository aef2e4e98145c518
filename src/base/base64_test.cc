#include "base/base64.h"

#include <gtest/gtest.h>

namespace sealvol {
namespace {

TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<const char*, const char*> v[] = {{"", ""},
                                                   {"f", "Zg=="},
                                                   {"fo", "Zm8="},
                                                   {"foo", "Zm9v"},
                                                   {"foob", "Zm9vYg=="},
                                                   {"fooba", "Zm9vYmE="},
                                                   {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, enc] : v) {
    EXPECT_EQ(Base64Encode(plain), enc);
    EXPECT_EQ(Base64Decode(enc), std::string(plain));
  }
  std::string bin = {'\0', '\xff', '\xfe', '>', '?'};
  EXPECT_EQ(Base64Encode(bin), "AP/+Pj8=");
  EXPECT_EQ(Base64Decode("AP/+Pj8="), bin);
}

TEST(Base64Test, RefusesWhatIsNotCanonical) {
  for (const char* bad : {"Zg", "Zg=", "Z===", "Zh==", "Zm9v\n", "Zm-v", "=Zm9",
                          "Zg==Zg==", "Zm9vYmFy="}) {
    EXPECT_FALSE(Base64Decode(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace sealvol
