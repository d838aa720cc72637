// The vexfs operations the benchmarks time (see store_ops.h).
#include "store_ops.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "bench_util.h"

namespace vexfs::bench {

std::unique_ptr<Store> CreateStore(const std::string& dir) {
  return CheckValue(Store::Create(dir), "create store in '" + dir + "'");
}

double PutFiles(Store* store, const std::vector<std::string>& paths, const ContentFn& content,
                size_t batch) {
  auto tree = CheckValue(store->Tree(), "open working tree");
  double start = NowSeconds();
  for (size_t begin = 0; begin < paths.size(); begin += batch) {
    size_t end = std::min(paths.size(), begin + batch);
    Check(tree->Edit([&](TreeEditor& editor) -> Status {
      for (size_t i = begin; i < end; ++i) {
        VEXFS_RETURN_IF_ERROR(editor.PutFile(paths[i], content(i), {}).status());
      }
      return Status::Ok();
    }),
          "put files");
  }
  return NowSeconds() - start;
}

double PutOne(Store* store, std::string_view path, std::string_view data) {
  auto tree = CheckValue(store->Tree(), "open working tree");
  double start = NowSeconds();
  Check(tree->Edit([&](TreeEditor& editor) { return editor.PutFile(path, data, {}).status(); }),
        "put file");
  return NowSeconds() - start;
}

double TimedSnapshot(Store* store, std::string_view name) {
  double start = NowSeconds();
  Check(store->CreateSnapshot(name, "bench", {}).status(), "create snapshot");
  return NowSeconds() - start;
}

uint64_t StoreDataBytes(const std::string& dir) {
  struct stat st;
  std::string data = dir + "/data.mdb";
  if (::stat(data.c_str(), &st) != 0) DieErrno("stat '" + data + "'");
  return uint64_t(st.st_blocks) * 512;
}

bool CliTakesSnapshots(const std::string& cli, const std::string& scratch, std::string* why) {
  if (cli.empty() || !std::filesystem::exists(cli)) {
    *why = "binary '" + cli + "' not found";
    return false;
  }
  RemoveTree(scratch);
  CreateStore(scratch).reset();  // closed again: the CLI opens it on its own
  int rc = RunProcess({cli, "--store", scratch, "snapshot", "create", "probe"});
  auto store = CheckValue(Store::Open(scratch), "reopen probe store");
  bool taken = store->ResolveSnapshot("probe").ok();
  store.reset();
  RemoveTree(scratch);
  if (rc == 0 && taken) return true;
  *why = rc != 0 ? "'snapshot create' exited with " + std::to_string(rc)
                 : "'snapshot create' exited 0 but took no snapshot";
  return false;
}

}  // namespace vexfs::bench
