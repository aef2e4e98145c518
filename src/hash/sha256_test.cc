#include "hash/sha256.h"

#include <gtest/gtest.h>

#include "hash/hmac.h"

namespace sealvol {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256::Of("").Hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256::Of("abc").Hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256::Of(std::string(1000000, 'a')).Hex(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalEqualsOneShotAndResets) {
  std::string data(100000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  Sha256 h;
  for (size_t i = 0; i < data.size(); i += 333) {
    h.Update(std::string_view(data).substr(i, 333));
  }
  EXPECT_EQ(h.Finish(), Sha256::Of(data));
  h.Update("abc");  // Finish reset the state
  EXPECT_EQ(h.Finish(), Sha256::Of("abc"));
}

}  // namespace
// RFC 4231, test case 2.
TEST(HmacTest, MatchesRfc4231) {
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HexEncode(std::string("\x00\xff", 2)), "00ff");
}

}  // namespace sealvol
