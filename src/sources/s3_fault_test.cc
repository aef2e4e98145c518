// S3Client against a scripted server on loopback: which answers are retried
// (throttling, server errors, a conflicting conditional write) and which end
// at once with a clear error (auth). Each connection gets one scripted
// answer and is closed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "sources/s3_client.h"

namespace sealvol {
namespace {

class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> answers)
      : answers_(std::move(answers)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 16);
    thread_ = std::thread([this] { Loop(); });
  }
  ~ScriptedServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  int requests() const { return requests_.load(); }

 private:
  void Loop() {
    for (size_t i = 0; i < answers_.size(); ++i) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[4096];
      // Headers, then the body Content-Length announces.
      while (req.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::read(c, buf, sizeof(buf));
        if (n <= 0) break;
        req.append(buf, n);
      }
      size_t cl = req.find("Content-Length: ");
      size_t body_at = req.find("\r\n\r\n") + 4;
      if (cl != std::string::npos) {
        size_t want = std::stoul(req.substr(cl + 16));
        while (req.size() - body_at < want) {
          ssize_t n = ::read(c, buf, sizeof(buf));
          if (n <= 0) break;
          req.append(buf, n);
        }
      }
      ++requests_;
      const std::string& body = answers_[i];
      std::string status = body.substr(0, body.find('\n'));
      std::string payload = body.substr(body.find('\n') + 1);
      std::string out = "HTTP/1.1 " + status +
                        "\r\nConnection: close\r\nContent-Length: " +
                        std::to_string(payload.size()) + "\r\n\r\n" + payload;
      (void)!::write(c, out.data(), out.size());
      ::close(c);
    }
  }

  std::vector<std::string> answers_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<int> requests_{0};
  std::thread thread_;
};

S3Client ClientFor(const ScriptedServer& s) {
  S3Options o;
  o.endpoint = s.url();
  o.creds = {"AKIDEXAMPLE", "secret-never-shown", ""};
  o.retry_for = std::chrono::milliseconds(10000);
  return S3Client(o, "bucket");
}

TEST(S3FaultTest, ThrottlingAndServerErrorsAreRetried) {
  ScriptedServer s({"503 Slow Down\n<Error><Code>SlowDown</Code></Error>",
                    "500 Internal Server Error\n<Error><Code>InternalError"
                    "</Code></Error>",
                    "429 Too Many Requests\n", "200 OK\n"});
  S3Client client = ClientFor(s);
  auto put = client.PutIfAbsent("k", "bytes");
  ASSERT_TRUE(put.has_value()) << put.error().ToString();
  EXPECT_TRUE(*put);
  EXPECT_EQ(s.requests(), 4);
}

TEST(S3FaultTest, AConflictingConditionalWriteIsAskedAgain) {
  ScriptedServer s(
      {"409 Conflict\n<Error><Code>ConditionalRequestConflict"
       "</Code></Error>",
       "412 Precondition Failed\n"});
  S3Client client = ClientFor(s);
  auto put = client.PutIfAbsent("k", "bytes");
  ASSERT_TRUE(put.has_value()) << put.error().ToString();
  EXPECT_FALSE(*put);  // the other writer created it
  EXPECT_EQ(s.requests(), 2);
}

TEST(S3FaultTest, AuthFailuresEndAtOnceAndNameTheCause) {
  ScriptedServer s(
      {"403 Forbidden\n<Error><Code>SignatureDoesNotMatch"
       "</Code></Error>",
       "200 OK\n"});
  S3Client client = ClientFor(s);
  auto put = client.PutIfAbsent("k", "bytes");
  ASSERT_FALSE(put.has_value());
  EXPECT_EQ(put.error().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(put.error().message().find("SignatureDoesNotMatch"),
            std::string::npos);
  EXPECT_NE(put.error().message().find("s3://bucket/k"), std::string::npos);
  EXPECT_EQ(put.error().message().find("secret-never-shown"),
            std::string::npos);
  EXPECT_EQ(s.requests(), 1);
}

TEST(S3FaultTest, ServerErrorsThatOutlastRetryForFail) {
  std::vector<std::string> answers(40, "500 Internal Server Error\n");
  ScriptedServer s(answers);
  S3Options o;
  o.endpoint = s.url();
  o.creds = {"AKIDEXAMPLE", "secret", ""};
  o.retry_for = std::chrono::milliseconds(500);
  auto head = S3Client(o, "bucket").Head("k");
  ASSERT_FALSE(head.has_value());
  EXPECT_EQ(head.error().code(), StatusCode::kUnavailable);
  EXPECT_NE(head.error().message().find("answered 500"), std::string::npos);
  EXPECT_NE(head.error().message().find("object store unreachable"),
            std::string::npos);
  EXPECT_GT(s.requests(), 1);
}

}  // namespace
}  // namespace sealvol
