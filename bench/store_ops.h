// The vexfs side of the benchmarks: the few store operations they time, through
// the public library API only, each ending the process on failure.
#ifndef VEXFS_BENCH_STORE_OPS_H_
#define VEXFS_BENCH_STORE_OPS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/store.h"

namespace vexfs::bench {

// Creates a store in `dir` (which must be absent or empty) with default options:
// every commit is synced, as a user of the store gets it.
std::unique_ptr<Store> CreateStore(const std::string& dir);

// Content of file `index` of a generated tree.
using ContentFn = std::function<std::string(size_t index)>;

// Puts `paths[i]` with content(i) for every i, `batch` files to one Edit (one
// transaction, one sync). Returns wall seconds.
double PutFiles(Store* store, const std::vector<std::string>& paths, const ContentFn& content,
                size_t batch);
// Replaces one file in its own Edit. Returns wall seconds.
double PutOne(Store* store, std::string_view path, std::string_view data);
// Takes snapshot `name` of the current branch. Returns wall seconds.
double TimedSnapshot(Store* store, std::string_view name);
// Bytes the store's LMDB data file occupies on disk.
uint64_t StoreDataBytes(const std::string& dir);

// Whether `cli` is a vexfs binary whose `--store DIR snapshot create NAME` really
// takes a snapshot: run against a scratch store in `scratch`, which must then hold
// the snapshot. Sets `why` when it does not.
bool CliTakesSnapshots(const std::string& cli, const std::string& scratch, std::string* why);

}  // namespace vexfs::bench

#endif  // VEXFS_BENCH_STORE_OPS_H_
