// Tests of the USXF transfer layer over loopback: delivery, refusals (damage,
// bad preamble, signatures, hostile protocol input) and resuming after a cut
// connection or a stopped receiver. A test proxy cuts connections half-way.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "common/file_util.h"
#include "kv/transport_protocol.h"
#include "kv/transport_socket.h"
#include "test_util.h"
#include "usxf/le.h"
#include "vexfs/kv/transport.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::kv {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

// Writes a sealed USXF file of blob sections "alpha", "beta", ... with random
// contents and returns its bytes.
std::string MakeUsxf(const std::string& path, const std::vector<size_t>& sizes, uint64_t seed = 1,
                     const std::vector<const usxf::SigningKey*>& signers = {}, bool seal = true) {
  static const char* kNames[] = {"alpha", "beta", "gamma", "delta"};
  std::vector<std::string> data;
  for (size_t i = 0; i < sizes.size(); ++i) data.push_back(test::RandomBytes(seed + i, sizes[i]));
  std::vector<usxf::SectionData> sections(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    sections[i].info.name = kNames[i];
    sections[i].values = data[i];
  }
  usxf::WriterOptions options;
  options.seal = seal;
  Status st = usxf::WriteFileToPath(path, sections, usxf::Metadata(), options, signers);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return ReadWholeFile(path).value();
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::string bytes = ReadWholeFile(path).value();
  ASSERT_LT(offset, bytes.size());
  bytes[offset] ^= 0x40;
  ASSERT_OK(WriteFileAtomically(path, bytes));
}

size_t FilesIn(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) ++n;
  return n;
}

SendOptions FastSend(int attempts = 1) {
  SendOptions o;
  o.connect_timeout_ms = 5000;
  o.io_timeout_ms = 10'000;
  o.verdict_timeout_ms = 30'000;
  o.max_attempts = attempts;
  o.retry_delay_ms = 50;
  return o;
}

// Forwards connections to `upstream`; the first `cuts` connections are closed
// (both sides) once `cut_after` bytes went from the client to the receiver.
class CuttingProxy {
 public:
  CuttingProxy(uint16_t upstream, uint64_t cut_after, int cuts)
      : upstream_(upstream), cut_after_(cut_after), cuts_(cuts) {
    listener_ = net::Listen("127.0.0.1:0", &port_).value();
    thread_ = std::thread([this] { Loop(); });
  }
  ~CuttingProxy() {
    stop_ = true;
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  void Loop() {
    for (int n = 0; !stop_; ++n) {
      auto ready = net::Wait(listener_.get(), POLLIN, 100, -1);
      if (!ready.ok() || *ready != net::Ready::kReady) {
        --n;
        continue;
      }
      std::string peer;
      auto client = net::Accept(listener_.get(), &peer);
      auto server = net::Connect("127.0.0.1:" + std::to_string(upstream_), 5000);
      if (!client.ok() || !server.ok()) continue;
      Forward(client->get(), server->get(), n < cuts_ ? cut_after_ : UINT64_MAX);
    }
  }
  // Shuttles bytes both ways until one side closes or the cut is reached.
  void Forward(int client, int server, uint64_t limit) {
    std::string buf(64 << 10, '\0');
    uint64_t up = 0;
    while (!stop_) {
      pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
      if (::poll(fds, 2, 100) <= 0) continue;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].revents == 0) continue;
        size_t want = buf.size();
        if (i == 0) want = static_cast<size_t>(std::min<uint64_t>(want, limit - up));
        ssize_t n = ::recv(fds[i].fd, buf.data(), want, 0);
        if (n <= 0) return;
        if (!net::SendAll(fds[1 - i].fd, std::string_view(buf.data(), n), 5000).ok()) return;
        if (i == 0 && (up += n) >= limit) return;  // the cut: both sockets close now
      }
    }
  }

  uint16_t upstream_;
  uint64_t cut_after_;
  int cuts_;
  uint16_t port_ = 0;
  net::Fd listener_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class TransportTest : public ::testing::Test {
 protected:
  void TearDown() override { StopReceiver(); }

  std::string spool() const { return dir_.Sub("spool"); }
  std::string address() const { return "127.0.0.1:" + std::to_string(receiver_->port()); }

  void StartReceiver(ServeOptions options = {}, const std::string& listen = "127.0.0.1:0") {
    options.listen = listen;
    options.spool = spool();
    options.idle_timeout_ms = 5000;
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      log_ += line + "\n";
    };
    if (!options.on_verified) {
      options.on_verified = [this](const VerifiedStream& s) {
        std::lock_guard<std::mutex> lock(mu_);
        delivered_.push_back(s);
        return Status::Ok();
      };
    }
    auto r = Receiver::Listen(std::move(options));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    receiver_ = std::move(r).value();
    thread_ = std::thread([this] { run_status_ = receiver_->Run(); });
  }

  void StopReceiver() {
    if (!receiver_) return;
    receiver_->Stop();
    thread_.join();
    EXPECT_OK(run_status_);
    receiver_.reset();
  }

  size_t Delivered() {
    std::lock_guard<std::mutex> lock(mu_);
    return delivered_.size();
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

  TempDir dir_;
  std::unique_ptr<Receiver> receiver_;
  std::thread thread_;
  Status run_status_;
  std::mutex mu_;
  std::vector<VerifiedStream> delivered_;
  std::string log_;
};

// ---------------------------------------------------------------------------
// Delivery.

TEST_F(TransportTest, LoopbackDeliversIdenticalBytes) {
  const std::string path = dir_.Sub("state.usxf");
  const std::string bytes = MakeUsxf(path, {3 << 20, 1 << 20, 12345});
  StartReceiver();
  SendReport report;
  uint64_t last_progress = 0;
  SendOptions options = FastSend();
  options.progress = [&](uint64_t sent, uint64_t total) {
    EXPECT_EQ(total, bytes.size());
    last_progress = sent;
  };
  ASSERT_OK(SendFile(path, address(), options, &report));
  EXPECT_EQ(report.attempts, 1);
  EXPECT_EQ(report.bytes_sent, bytes.size());
  EXPECT_EQ(report.resumed_from, 0u);
  EXPECT_EQ(last_progress, bytes.size());
  EXPECT_EQ(report.transfer_id, TransferIdHex(TransferIdOf(path).value()));
  EXPECT_EQ(ReadWholeFile(report.verified_path).value(), bytes);
  ASSERT_EQ(Delivered(), 1u);
  EXPECT_EQ(delivered_[0].path, report.verified_path);
  EXPECT_EQ(delivered_[0].name, "state.usxf");
  EXPECT_EQ(delivered_[0].summary.sections.size(), 3u);
  EXPECT_EQ(FilesIn(spool() + "/partial"), 0u);
}

TEST_F(TransportTest, ResendOfVerifiedStreamCostsNothingAndIsNotDeliveredTwice) {
  const std::string path = dir_.Sub("state.usxf");
  MakeUsxf(path, {1 << 20});
  StartReceiver();
  ASSERT_OK(SendFile(path, address(), FastSend()));
  SendReport again;
  ASSERT_OK(SendFile(path, address(), FastSend(), &again));
  EXPECT_EQ(again.bytes_sent, 0u);
  EXPECT_EQ(Delivered(), 1u);
  EXPECT_NE(Log().find("already verified"), std::string::npos);
}

TEST_F(TransportTest, ReceiverStopsAfterMaxStreams) {
  const std::string path = dir_.Sub("state.usxf");
  MakeUsxf(path, {4096});
  ServeOptions options;
  options.max_streams = 1;
  StartReceiver(options);
  ASSERT_OK(SendFile(path, address(), FastSend()));
  thread_.join();  // Run returns on its own
  EXPECT_OK(run_status_);
  EXPECT_EQ(receiver_->stats().verified, 1);
  receiver_.reset();
}

TEST_F(TransportTest, HookRefusalReachesSenderAndKeepsNothing) {
  const std::string path = dir_.Sub("state.usxf");
  MakeUsxf(path, {1 << 20});
  ServeOptions options;
  options.on_verified = [](const VerifiedStream&) { return Status::NotSupported("model mismatch: wrong arch"); };
  StartReceiver(options);
  Status st = SendFile(path, address(), FastSend());
  EXPECT_EQ(st.code(), StatusCode::kNotSupported) << st.ToString();
  EXPECT_NE(st.message().find("wrong arch"), std::string::npos) << st.message();
  EXPECT_EQ(FilesIn(spool() + "/verified"), 0u);
}

// ---------------------------------------------------------------------------
// Refusals.

TEST_F(TransportTest, DamagedSectionIsRefusedAndNamed) {
  const std::string path = dir_.Sub("state.usxf");
  MakeUsxf(path, {1 << 20, 1 << 20});
  auto file = usxf::MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  const uint64_t beta = (*file)->sections()[1].offset + 1000;
  file->reset();
  FlipByte(path, beta);
  StartReceiver();
  SendReport report;
  Status st = SendFile(path, address(), FastSend(3), &report);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("beta"), std::string::npos) << st.message();
  EXPECT_TRUE(report.verdict_received);
  EXPECT_EQ(report.attempts, 1);  // a refusal is not retried
  EXPECT_EQ(Delivered(), 0u);
  EXPECT_EQ(FilesIn(spool() + "/verified"), 0u);
  EXPECT_EQ(FilesIn(spool() + "/partial"), 0u);
}

TEST_F(TransportTest, UnsealedStreamIsRefused) {
  const std::string path = dir_.Sub("state.usxf");
  MakeUsxf(path, {1 << 20}, 1, {}, /*seal=*/false);
  StartReceiver();
  Status st = SendFile(path, address(), FastSend());
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("not sealed"), std::string::npos) << st.ToString();
  EXPECT_EQ(Delivered(), 0u);
}

// The receiver speaks as soon as the preamble is wrong: a raw client sends the
// hello and 80 bad bytes of a stream announced as 64 MiB, and gets the refusal
// without sending anything more.
TEST_F(TransportTest, BadPreambleIsRefusedBeforeTheBody) {
  StartReceiver();
  auto sock = net::Connect(address(), 5000);
  ASSERT_TRUE(sock.ok());
  wire::Hello hello;
  hello.total_size = 64 << 20;
  hello.id[0] = 7;
  hello.name = "garbage";
  ASSERT_OK(net::SendAll(sock->get(), wire::EncodeHello(hello), 5000));
  char fixed[wire::kMessageFixedSize];
  ASSERT_OK(net::RecvExactly(sock->get(), fixed, sizeof(fixed), 5000, "resume"));
  ASSERT_OK(net::SendAll(sock->get(), std::string(usxf::kPreambleSize, 'x'), 5000));
  ASSERT_OK(net::RecvExactly(sock->get(), fixed, sizeof(fixed), 5000, "the verdict"));
  uint32_t text_length = 0;
  auto verdict = wire::DecodeMessageFixed(std::string_view(fixed, sizeof(fixed)), &text_length);
  ASSERT_TRUE(verdict.ok());
  EXPECT_EQ(verdict->kind, wire::MessageKind::kVerdict);
  EXPECT_EQ(verdict->code, StatusCode::kCorruption);
  std::string text(text_length, '\0');
  ASSERT_OK(net::RecvExactly(sock->get(), text.data(), text_length, 5000, "the verdict text"));
  EXPECT_NE(text.find("magic"), std::string::npos) << text;
  EXPECT_EQ(FilesIn(spool() + "/partial"), 0u);
}

// Through SendFile: the sender notices the early refusal and stops sending.
TEST_F(TransportTest, SenderStopsAtAnEarlyRefusal) {
  const std::string path = dir_.Sub("junk.usxf");
  ASSERT_OK(WriteFileAtomically(path, std::string(48 << 20, 'j')));
  StartReceiver();
  SendReport report;
  Status st = SendFile(path, address(), FastSend(), &report);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("magic"), std::string::npos) << st.message();
  EXPECT_LT(report.bytes_sent, report.total_bytes / 2);
}

class KeyringTest : public TransportTest {
 protected:
  void SetUp() override {
    trusted_ = usxf::SigningKey::Generate().value();
    stranger_ = usxf::SigningKey::Generate().value();
    fs::create_directories(dir_.Sub("keyring"));
    ASSERT_OK(usxf::SavePublicKey(dir_.Sub("keyring") + "/alice.pub", trusted_.public_key));
    ServeOptions options;
    options.keyring = usxf::Keyring::Load(dir_.Sub("keyring")).value();
    StartReceiver(options);
  }
  usxf::SigningKey trusted_, stranger_;
};

TEST_F(KeyringTest, TrustedSignatureIsAccepted) {
  const std::string path = dir_.Sub("signed.usxf");
  MakeUsxf(path, {1 << 20}, 1, {&trusted_});
  ASSERT_OK(SendFile(path, address(), FastSend()));
  EXPECT_EQ(Delivered(), 1u);
}

TEST_F(KeyringTest, UnsignedIsRefused) {
  const std::string path = dir_.Sub("unsigned.usxf");
  MakeUsxf(path, {1 << 20});
  Status st = SendFile(path, address(), FastSend());
  EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << st.ToString();
  EXPECT_EQ(Delivered(), 0u);
  EXPECT_EQ(FilesIn(spool() + "/verified"), 0u);
  EXPECT_EQ(FilesIn(spool() + "/partial"), 0u);
}

TEST_F(KeyringTest, UntrustedSignatureIsRefused) {
  const std::string path = dir_.Sub("stranger.usxf");
  MakeUsxf(path, {1 << 20}, 1, {&stranger_});
  Status st = SendFile(path, address(), FastSend());
  EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << st.ToString();
  EXPECT_EQ(Delivered(), 0u);
  EXPECT_EQ(FilesIn(spool() + "/verified"), 0u);
}

// ---------------------------------------------------------------------------
// Hostile or broken peers.

// Sends raw hello bytes and returns the receiver's verdict ("code: text").
std::string VerdictForRawHello(const std::string& address, const std::string& hello) {
  auto sock = net::Connect(address, 5000);
  if (!sock.ok()) return sock.status().ToString();
  if (Status st = net::SendAll(sock->get(), hello, 5000); !st.ok()) return st.ToString();
  char fixed[wire::kMessageFixedSize];
  if (Status st = net::RecvExactly(sock->get(), fixed, sizeof(fixed), 5000, "verdict"); !st.ok()) {
    return st.ToString();
  }
  uint32_t n = 0;
  auto m = wire::DecodeMessageFixed(std::string_view(fixed, sizeof(fixed)), &n);
  if (!m.ok()) return m.status().ToString();
  std::string text(n, '\0');
  if (Status st = net::RecvExactly(sock->get(), text.data(), n, 5000, "text"); !st.ok()) return st.ToString();
  return Status(m->code, text).ToString();
}

TEST_F(TransportTest, HostileHellosAreRefusedWithoutAllocating) {
  ServeOptions options;
  options.max_stream_bytes = 1 << 30;
  StartReceiver(options);
  wire::Hello hello;
  hello.total_size = 1 << 20;
  std::string huge_name = wire::EncodeHello(hello);
  usxf::StoreLE<uint32_t>(huge_name.data() + 12, 0xFFFFFFFFu);
  EXPECT_NE(VerdictForRawHello(address(), huge_name).find("name length 4294967295 exceeds 255"), std::string::npos);

  hello.total_size = 1ull << 62;
  EXPECT_NE(VerdictForRawHello(address(), wire::EncodeHello(hello)).find("exceeds this receiver's limit"),
            std::string::npos);

  std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n" + std::string(40, ' ');
  EXPECT_NE(VerdictForRawHello(address(), http).find("bad magic"), std::string::npos);

  hello.total_size = 1 << 20;
  hello.name = std::string("a\nb");
  EXPECT_NE(VerdictForRawHello(address(), wire::EncodeHello(hello)).find("control character"), std::string::npos);

  EXPECT_EQ(FilesIn(spool() + "/partial"), 0u);
  // The receiver is still there for an honest sender.
  const std::string path = dir_.Sub("state.usxf");
  MakeUsxf(path, {4096});
  EXPECT_OK(SendFile(path, address(), FastSend()));
  EXPECT_EQ(receiver_->stats().refused, 4);
}

TEST_F(TransportTest, SenderVanishingMidStreamLeavesAResumablePrefix) {
  const std::string path = dir_.Sub("state.usxf");
  const std::string bytes = MakeUsxf(path, {2 << 20});
  StartReceiver();
  {
    auto sock = net::Connect(address(), 5000);
    ASSERT_TRUE(sock.ok());
    wire::Hello hello;
    hello.total_size = bytes.size();
    hello.id = TransferIdOf(path).value();
    hello.name = "state.usxf";
    ASSERT_OK(net::SendAll(sock->get(), wire::EncodeHello(hello), 5000));
    char fixed[wire::kMessageFixedSize];
    ASSERT_OK(net::RecvExactly(sock->get(), fixed, sizeof(fixed), 5000, "resume"));
    ASSERT_OK(net::SendAll(sock->get(), std::string_view(bytes).substr(0, 100'000), 5000));
  }  // closed: the sender is gone
  SendReport report;
  ASSERT_OK(SendFile(path, address(), FastSend(), &report));
  EXPECT_EQ(report.resumed_from, 100'000u);
  EXPECT_EQ(report.bytes_sent, bytes.size() - 100'000);
  EXPECT_EQ(ReadWholeFile(report.verified_path).value(), bytes);
  EXPECT_EQ(receiver_->stats().dropped, 1);
}

// A receiver that answers with a text length beyond the bound: the sender
// refuses it instead of allocating.
TEST(TransportSenderTest, HostileAnswerIsRefused) {
  TempDir dir;
  const std::string path = dir.Sub("state.usxf");
  MakeUsxf(path, {4096});
  uint16_t port = 0;
  net::Fd listener = net::Listen("127.0.0.1:0", &port).value();
  std::thread fake([&] {
    std::string peer;
    ASSERT_TRUE(net::Wait(listener.get(), POLLIN, 5000, -1).ok());
    net::Fd conn = net::Accept(listener.get(), &peer).value();
    std::string answer = wire::EncodeMessage({wire::MessageKind::kResume, StatusCode::kOk, 0, ""});
    usxf::StoreLE<uint32_t>(answer.data() + 24, 1u << 31);
    EXPECT_OK(net::SendAll(conn.get(), answer, 5000));
    char sink[4096];
    for (;;) {
      Result<size_t> got = net::RecvSome(conn.get(), sink, sizeof(sink), 2000);
      if (!got.ok() || *got == 0) break;
    }
  });
  Status st = SendFile(path, "127.0.0.1:" + std::to_string(port), FastSend(3));
  fake.join();
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("text length 2147483648 exceeds 4096"), std::string::npos) << st.message();
}

TEST(TransportSenderTest, NothingListeningFailsAfterTheAttempts) {
  TempDir dir;
  const std::string path = dir.Sub("state.usxf");
  MakeUsxf(path, {4096});
  uint16_t port = 0;
  { net::Fd gone = net::Listen("127.0.0.1:0", &port).value(); }
  SendReport report;
  Status st = SendFile(path, "127.0.0.1:" + std::to_string(port), FastSend(3), &report);
  EXPECT_EQ(st.code(), StatusCode::kIOError) << st.ToString();
  EXPECT_EQ(report.attempts, 3);
  EXPECT_NE(st.message().find("gave up after 3 attempt(s)"), std::string::npos) << st.message();
}

TEST(TransportSenderTest, BadAddressesAreNamed) {
  TempDir dir;
  const std::string path = dir.Sub("state.usxf");
  MakeUsxf(path, {4096});
  EXPECT_CODE(SendFile(path, "localhost", FastSend()), StatusCode::kInvalidArgument);
  EXPECT_CODE(SendFile(path, "127.0.0.1:99999", FastSend()), StatusCode::kInvalidArgument);
  EXPECT_CODE(SendFile(path, "::1:80", FastSend()), StatusCode::kInvalidArgument);
  EXPECT_CODE(SendFile(dir.Sub("missing.usxf"), "127.0.0.1:1", FastSend()), StatusCode::kNotFound);
}

// ---------------------------------------------------------------------------
// Cut connections and restarts.

TEST_F(TransportTest, CutConnectionThenSecondSendResumes) {
  const std::string path = dir_.Sub("state.usxf");
  const std::string bytes = MakeUsxf(path, {4 << 20, 2 << 20});
  StartReceiver();
  {
    CuttingProxy proxy(receiver_->port(), bytes.size() / 2, 1);
    SendReport report;
    Status st = SendFile(path, proxy.address(), FastSend(1), &report);
    EXPECT_EQ(st.code(), StatusCode::kIOError) << st.ToString();
    EXPECT_FALSE(report.verdict_received);
  }
  SendReport report;
  ASSERT_OK(SendFile(path, address(), FastSend(), &report));
  EXPECT_GT(report.resumed_from, 0u);
  EXPECT_LE(report.resumed_from, bytes.size() / 2);
  EXPECT_EQ(report.bytes_sent, bytes.size() - report.resumed_from);
  EXPECT_EQ(ReadWholeFile(report.verified_path).value(), bytes);
  EXPECT_EQ(Delivered(), 1u);
  EXPECT_NE(Log().find("re-verifying from 0"), std::string::npos);
}

TEST_F(TransportTest, OneSendRetriesThroughACut) {
  const std::string path = dir_.Sub("state.usxf");
  const std::string bytes = MakeUsxf(path, {4 << 20});
  StartReceiver();
  CuttingProxy proxy(receiver_->port(), bytes.size() / 3, 1);
  SendReport report;
  ASSERT_OK(SendFile(path, proxy.address(), FastSend(3), &report));
  EXPECT_EQ(report.attempts, 2);
  EXPECT_GT(report.resumed_from, 0u);
  EXPECT_EQ(ReadWholeFile(report.verified_path).value(), bytes);
  EXPECT_EQ(Delivered(), 1u);
}

TEST_F(TransportTest, ReceiverStoppedHalfwayThenRestartedOnTheSamePort) {
  const std::string path = dir_.Sub("state.usxf");
  const std::string bytes = MakeUsxf(path, {6 << 20});
  ServeOptions options;
  options.progress = [this, half = bytes.size() / 2](uint64_t held, uint64_t) {
    if (held >= half) receiver_->Stop();  // cut like a crash: no verdict
  };
  StartReceiver(options);
  const uint16_t port = receiver_->port();
  Status st = SendFile(path, address(), FastSend(1));
  EXPECT_EQ(st.code(), StatusCode::kIOError) << st.ToString();
  StopReceiver();
  EXPECT_EQ(FilesIn(spool() + "/verified"), 0u);
  EXPECT_EQ(FilesIn(spool() + "/partial"), 1u);

  StartReceiver({}, "127.0.0.1:" + std::to_string(port));
  SendReport report;
  ASSERT_OK(SendFile(path, address(), FastSend(), &report));
  EXPECT_GE(report.resumed_from, bytes.size() / 2);
  EXPECT_EQ(ReadWholeFile(report.verified_path).value(), bytes);
  EXPECT_EQ(Delivered(), 1u);
}

// The prefix a resume builds on is verified again: damage it on the
// receiver's disk and the resumed stream is refused, then sent again whole.
TEST_F(TransportTest, DamagedPrefixIsCaughtOnResumeAndSentAgain) {
  const std::string path = dir_.Sub("state.usxf");
  const std::string bytes = MakeUsxf(path, {4 << 20});
  StartReceiver();
  {
    CuttingProxy proxy(receiver_->port(), bytes.size() / 2, 1);
    EXPECT_FALSE(SendFile(path, proxy.address(), FastSend(1)).ok());
  }
  const std::string partial = spool() + "/partial/" + TransferIdHex(TransferIdOf(path).value()) + ".part";
  FlipByte(partial, 8192);  // inside section alpha
  SendReport report;
  ASSERT_OK(SendFile(path, address(), FastSend(3), &report));
  EXPECT_EQ(report.attempts, 2);
  EXPECT_EQ(report.resumed_from, 0u);
  EXPECT_EQ(ReadWholeFile(report.verified_path).value(), bytes);
  EXPECT_EQ(Delivered(), 1u);
}

// ---------------------------------------------------------------------------
// Wire format.

TEST(TransportProtocolTest, HelloRoundTripsAndBoundsItsFields) {
  wire::Hello hello;
  hello.total_size = 12345;
  hello.id[31] = 9;
  hello.name = "kv.usxf";
  const std::string bytes = wire::EncodeHello(hello);
  ASSERT_EQ(bytes.size(), wire::kHelloFixedSize + hello.name.size());
  auto fixed = wire::DecodeHelloFixed(std::string_view(bytes).substr(0, wire::kHelloFixedSize), 1 << 20);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ(fixed->name_length, 7u);
  EXPECT_EQ(fixed->hello.total_size, 12345u);
  EXPECT_EQ(fixed->hello.id, hello.id);
  EXPECT_CODE(wire::DecodeHelloFixed(std::string_view(bytes).substr(0, wire::kHelloFixedSize), 1000),
              StatusCode::kFileTooLarge);
  std::string v2 = bytes.substr(0, wire::kHelloFixedSize);
  v2[8] = 2;
  EXPECT_CODE(wire::DecodeHelloFixed(v2, 1 << 20), StatusCode::kNotSupported);
  hello.total_size = 79;
  EXPECT_CODE(wire::DecodeHelloFixed(wire::EncodeHello(hello).substr(0, wire::kHelloFixedSize), 1 << 20),
              StatusCode::kInvalidArgument);
}

TEST(TransportProtocolTest, MessageRoundTripsAndCutsLongText) {
  wire::Message m{wire::MessageKind::kVerdict, StatusCode::kPermissionDenied, wire::kVerdictRetry,
                  std::string(10000, 'e')};
  const std::string bytes = wire::EncodeMessage(m);
  ASSERT_EQ(bytes.size(), wire::kMessageFixedSize + wire::kMaxTextLength);
  uint32_t n = 0;
  auto back = wire::DecodeMessageFixed(std::string_view(bytes).substr(0, wire::kMessageFixedSize), &n);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(n, wire::kMaxTextLength);
  EXPECT_EQ(back->code, StatusCode::kPermissionDenied);
  EXPECT_EQ(back->value, wire::kVerdictRetry);
  std::string bad = bytes.substr(0, wire::kMessageFixedSize);
  usxf::StoreLE<uint32_t>(bad.data() + 12, 99);
  EXPECT_CODE(wire::DecodeMessageFixed(bad, &n), StatusCode::kCorruption);
}

}  // namespace
}  // namespace vexfs::kv
