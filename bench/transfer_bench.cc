// A USXF stream (an agent bundle, a KV state) moved over loopback, verified as
// it arrives, against the same bytes copied over a loopback socket into a
// synced file with no verification at all (docs/kv-transport.md,
// docs/BENCHMARKS.md).
//
//   transfer_bench [--mib 1000] [--reps 5] [--dir DIR] [--markdown FILE]
//
// VexFS: `kv::SendFile` to an in-process `kv::Receiver` with a keyring: the
// stream's every section checksum and SHA-256 digest, its Merkle root and an
// Ed25519 signature over it checked, the stream kept in the spool and synced.
// Plain: sendfile(2) into a socket, recv(2) and write(2) into a file, fsync.
// Both write to DIR, each file removed between rounds; the rounds alternate.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <thread>

#include "bench_util.h"
#include "vexfs/kv/transport.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::bench {
namespace {

struct Options {
  uint64_t mib = 1000;
  int reps = 5;
  std::string dir = "/tmp/vexfs-transfer-bench";
  std::string markdown;
};

// A sealed, signed USXF file of `mib` MiB in 64 MiB blob sections, as a large
// bundle's object packs are.
std::string MakeStream(const std::string& path, uint64_t mib, const usxf::SigningKey& key) {
  const std::string pack = RandomContent(1, 64ull << 20);
  std::vector<usxf::SectionData> sections;
  for (uint64_t i = 0; i * 64 < mib; ++i) {
    usxf::SectionData s;
    s.info.name = "objects." + std::to_string(i);
    s.values = std::string_view(pack).substr(0, static_cast<size_t>(std::min<uint64_t>(64, mib - i * 64) << 20));
    sections.push_back(s);
  }
  Check(usxf::WriteFileToPath(path, sections, usxf::Metadata(), {}, {&key}), "write the stream");
  return path;
}

double VexfsRound(const std::string& file, const std::string& spool, const usxf::Keyring& keyring) {
  kv::ServeOptions o;
  o.spool = spool;
  o.keyring = keyring;
  o.max_streams = 1;
  auto receiver = CheckValue(kv::Receiver::Listen(o), "listen");
  const std::string to = "127.0.0.1:" + std::to_string(receiver->port());
  Status served;
  std::thread serve([&] { served = receiver->Run(); });
  double t0 = NowSeconds();
  Status sent = kv::SendFile(file, to, {});
  double t1 = NowSeconds();
  serve.join();
  Check(sent, "send");
  Check(served, "serve");
  return t1 - t0;
}

// The same bytes, unverified: sendfile into a loopback socket, recv and write
// into a file, fsync.
double PlainRound(const std::string& file, const std::string& out) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    DieErrno("plain: listen");
  }
  const uint64_t size = std::filesystem::file_size(file);
  std::thread receive([&] {
    int conn = ::accept(listener, nullptr, nullptr);
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::string buf(1 << 20, '\0');
    for (uint64_t got = 0; got < size;) {
      ssize_t n = ::recv(conn, buf.data(), buf.size(), 0);
      if (n <= 0) DieErrno("plain: recv");
      for (ssize_t w = 0; w < n;) {
        ssize_t k = ::write(fd, buf.data() + w, n - w);
        if (k <= 0) DieErrno("plain: write");
        w += k;
      }
      got += n;
    }
    ::fsync(fd);
    ::close(fd);
    ::close(conn);
  });
  double t0 = NowSeconds();
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) DieErrno("plain: connect");
  int in = ::open(file.c_str(), O_RDONLY);
  off_t at = 0;
  while (static_cast<uint64_t>(at) < size) {
    if (::sendfile(sock, in, &at, size - at) <= 0) DieErrno("plain: sendfile");
  }
  receive.join();
  double t1 = NowSeconds();
  ::close(in);
  ::close(sock);
  ::close(listener);
  return t1 - t0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  using namespace vexfs;
  using namespace vexfs::bench;
  Options o;
  CLI::App app{"A USXF stream over loopback, verified as it arrives, against an unverified socket copy"};
  app.add_option("--mib", o.mib, "stream size in MiB");
  app.add_option("--reps", o.reps, "alternating rounds (medians)");
  app.add_option("--dir", o.dir, "scratch directory (the stream, the spool, the plain copy)");
  app.add_option("--markdown", o.markdown, "write the results section to this file");
  CLI11_PARSE(app, argc, argv);
  const std::string base = FreshDir(o.dir, "run");
  const usxf::SigningKey key = CheckValue(usxf::SigningKey::Generate(), "key");
  const std::string ring = FreshDir(base, "keyring");
  Check(usxf::SavePublicKey(ring + "/sender.pub", key.public_key), "keyring");
  const usxf::Keyring keyring = CheckValue(usxf::Keyring::Load(ring), "keyring");
  Progress("writing a " + std::to_string(o.mib) + " MiB stream");
  const std::string file = MakeStream(base + "/stream.usxf", o.mib, key);
  const double bytes = static_cast<double>(std::filesystem::file_size(file));
  std::vector<double> vexfs, plain;
  for (int rep = 0; rep < o.reps; ++rep) {
    RemoveTree(base + "/spool");
    ::sync();
    vexfs.push_back(VexfsRound(file, base + "/spool", keyring));
    std::filesystem::remove(base + "/plain.out");
    ::sync();
    plain.push_back(PlainRound(file, base + "/plain.out"));
    Progress("round " + std::to_string(rep + 1) + ": vexfs " + Fixed(vexfs.back(), 3) + " s, plain " +
             Fixed(plain.back(), 3) + " s");
  }
  Table t({"stream", "vexfs: verified, signed, kept (s)", "vexfs GB/s", "plain socket copy (s)", "plain GB/s",
           "vexfs / plain"});
  t.AddRow({Bytes(static_cast<uint64_t>(bytes)), Fixed(Median(vexfs), 3), Fixed(bytes / Median(vexfs) / 1e9, 2),
            Fixed(Median(plain), 3), Fixed(bytes / Median(plain) / 1e9, 2), Ratio(Median(plain), Median(vexfs))});
  std::cout << t.Text();
  nlohmann::json out = {{"bench", "transfer"}, {"bytes", bytes}, {"vexfs_s", vexfs}, {"plain_s", plain}};
  Emit(out, t.Markdown(), o.markdown);
  RemoveTree(base);
  return 0;
}
