// vexfs_fault_child [--create] STORE COUNT: the process the fault tests inject
// failures into. Opens an existing store (or, with --create, creates it) and
// makes COUNT numbered puts (fault_workload.h), printing "ack <i>" after each
// put returns ok. On the first failure it prints the status to stderr and exits
// with status 1; a clean run exits 0.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fault/fault_workload.h"
#include "vexfs/store.h"

namespace {

int Fail(const std::string& what, const vexfs::Status& st) {
  std::fprintf(stderr, "vexfs_fault_child: %s: %s\n", what.c_str(), st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool create = argc == 4 && std::string(argv[1]) == "--create";
  if (argc != 3 && !create) {
    std::fprintf(stderr, "usage: vexfs_fault_child [--create] STORE COUNT\n");
    return 64;
  }
  const char* path = argv[argc - 2];
  auto store = create ? vexfs::Store::Create(path) : vexfs::Store::Open(path);
  if (!store.ok()) return Fail(create ? "create" : "open", store.status());
  auto tree = (*store)->Tree("");
  if (!tree.ok()) return Fail("working tree", tree.status());
  int count = std::atoi(argv[argc - 1]);
  for (int i = 0; i < count; ++i) {
    vexfs::Status st = (*tree)->Edit([i](vexfs::TreeEditor& ed) -> vexfs::Status {
      VEXFS_RETURN_IF_ERROR(
          ed.PutFile(vexfs::fault::FaultPath(i), vexfs::fault::FaultData(i), {}).status());
      return ed.PutFile(vexfs::fault::kLatestPath, vexfs::fault::LatestData(i), {}).status();
    });
    if (!st.ok()) return Fail("put " + std::to_string(i), st);
    std::printf("ack %d\n", i);
    std::fflush(stdout);
  }
  return 0;
}
