#include "base/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace sealvol {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument(std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  SV_ASSIGN_OR_RETURN(int h, Half(x));
  SV_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  SV_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(StatusTest, OkAndErrorsCarryCodeAndMessage) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = NotFound("blob x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "NotFound: blob x");
  EXPECT_EQ(s.WithContext("pull").message(), "pull: blob x");
}

TEST(StatusTest, ResultPropagatesThroughMacros) {
  auto q = Quarter(12);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(*q, 3);
  auto bad = Quarter(6);  // 6/2 = 3 is odd
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.error().message(), "3 is odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_FALSE(CheckEven(5).ok());
}

TEST(StatusTest, ErrnoMapsToCodes) {
  EXPECT_EQ(ErrnoStatus(ENOENT, "x").code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoStatus(EACCES, "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoStatus(ENOSPC, "x").code(), StatusCode::kIOError);
  EXPECT_NE(ErrnoStatus(ENOSPC, "write f").message().find("write f: "),
            std::string::npos);
}

}  // namespace
}  // namespace sealvol
