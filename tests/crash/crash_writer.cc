// vexfs_crash_writer: the process the crash test kills.
//
//   vexfs_crash_writer STORE SEED [NEXT_SEQ]
//     Runs the seeded operation stream of crash/workload.h from NEXT_SEQ (default
//     0) on an existing store, forever. After each operation returns ok it prints
//     "ack <seq> <description>" and flushes, so every acked line is a promise
//     that the operation is durable. Any failure is printed to stderr and ends
//     the process with status 2.
//   vexfs_crash_writer --hold STORE
//     Opens the store, prints "ready", and keeps it open until stdin closes. While
//     any process holds the store, LMDB keeps its lock table, so slots and the
//     writer mutex of killed processes must be recovered rather than reset.
//   vexfs_crash_writer --hold-readers STORE N
//     Opens N read transactions, prints "ready", and waits to be killed: it leaves
//     N stale reader slots behind.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "crash/workload.h"
#include "store/store_impl.h"
#include "vexfs/store.h"

namespace {

int Fail(const std::string& what, const vexfs::Status& st) {
  std::fprintf(stderr, "vexfs_crash_writer: %s: %s\n", what.c_str(), st.ToString().c_str());
  return 2;
}

int Usage() {
  std::fprintf(stderr,
               "usage: vexfs_crash_writer STORE SEED [NEXT_SEQ]\n"
               "       vexfs_crash_writer --hold STORE\n"
               "       vexfs_crash_writer --hold-readers STORE N\n");
  return 64;
}

int RunStream(const std::string& path, uint64_t seed, uint64_t next_seq) {
  auto store = vexfs::Store::Open(path);
  if (!store.ok()) return Fail("open", store.status());
  // The test checked that the store equals its model before starting us, so
  // the store's own shape is the model the stream continues from.
  auto model = vexfs::crash::Model::Load(store->get(), /*with_content=*/false);
  if (!model.ok()) return Fail("load model", model.status());
  auto tree = (*store)->Tree("");
  if (!tree.ok()) return Fail("working tree", tree.status());
  for (uint64_t seq = next_seq;; ++seq) {
    vexfs::crash::Op op = model->Generate(seed, seq);
    vexfs::Status st = vexfs::crash::Execute(store->get(), tree->get(), seed, op);
    if (!st.ok()) return Fail("op " + std::to_string(seq) + " (" + op.Describe() + ")", st);
    model->Apply(seed, op);
    std::printf("ack %llu %s\n", static_cast<unsigned long long>(seq), op.Describe().c_str());
    std::fflush(stdout);
  }
}

int Hold(const std::string& path) {
  auto store = vexfs::Store::Open(path);
  if (!store.ok()) return Fail("open", store.status());
  std::printf("ready\n");
  std::fflush(stdout);
  char buf[64];
  while (::read(STDIN_FILENO, buf, sizeof(buf)) > 0) {
  }
  return 0;
}

int HoldReaders(const std::string& path, int count) {
  auto store = vexfs::Store::Open(path);
  if (!store.ok()) return Fail("open", store.status());
  std::vector<vexfs::internal::Txn> readers(count);
  for (auto& txn : readers) {
    vexfs::Status st = vexfs::internal::ImplOf(store->get())->BeginTxn(&txn, /*write=*/false);
    if (!st.ok()) return Fail("begin read transaction", st);
  }
  std::printf("ready\n");
  std::fflush(stdout);
  while (true) ::pause();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "--hold") return Hold(args[1]);
  if (args.size() == 3 && args[0] == "--hold-readers") {
    return HoldReaders(args[1], std::atoi(args[2].c_str()));
  }
  if (args.size() < 2 || args.size() > 3 || args[0].rfind("--", 0) == 0) return Usage();
  uint64_t seed = std::strtoull(args[1].c_str(), nullptr, 10);
  uint64_t next = args.size() == 3 ? std::strtoull(args[2].c_str(), nullptr, 10) : 0;
  return RunStream(args[0], seed, next);
}
