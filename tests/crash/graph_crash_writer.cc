// vexfs_graph_crash_writer: the process the graph crash test kills.
//
//   vexfs_graph_crash_writer STORE NEXT
//     From step NEXT on, forever: adds fact k<i> (keyed, so repeating a step
//     changes nothing) linked `derived_from` to k<i-1>, every third step
//     invalidates k<i-2>, every tenth takes snapshot s<i>. After each step's
//     commit it prints "ack <i>" and flushes: every acked line is a promise that
//     the step is durable. A failure is printed to stderr and ends it with 2.
#include <cstdio>
#include <string>

#include "vexfs/db.h"

namespace {

int Fail(const std::string& what, const vexfs::Status& st) {
  std::fprintf(stderr, "vexfs_graph_crash_writer: %s: %s\n", what.c_str(), st.ToString().c_str());
  return 2;
}

vexfs::GraphId Fact(uint64_t i) { return vexfs::GraphIdForKey("k" + std::to_string(i)); }

vexfs::Status Step(vexfs::Db& db, uint64_t i) {
  vexfs::GraphBatch batch;
  batch.AddNode({.kind = "fact", .text = "fact " + std::to_string(i), .key = "k" + std::to_string(i),
                 .valid_from = 1000});
  if (i > 0) batch.Link({.kind = "derived_from", .from = Fact(i), .to = Fact(i - 1)});
  if (i >= 2 && i % 3 == 0) batch.Invalidate(Fact(i - 2), 5000);
  VEXFS_RETURN_IF_ERROR(db.graph().Apply(batch).status());
  if (i % 10 != 9) return vexfs::Status::Ok();
  auto snap = db.store().CreateSnapshot("s" + std::to_string(i), "", {});
  // A repeated step finds its snapshot taken before the kill.
  if (!snap.ok() && snap.status().code() != vexfs::StatusCode::kAlreadyExists) return snap.status();
  return vexfs::Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: vexfs_graph_crash_writer STORE NEXT\n");
    return 64;
  }
  vexfs::DbOptions options;
  options.background_indexing = false;
  auto db = vexfs::Db::Open(argv[1], options);
  if (!db.ok()) return Fail("open", db.status());
  for (uint64_t i = std::stoull(argv[2]);; ++i) {
    vexfs::Status st = Step(**db, i);
    if (!st.ok()) return Fail("step " + std::to_string(i), st);
    std::printf("ack %llu\n", static_cast<unsigned long long>(i));
    std::fflush(stdout);
  }
}
