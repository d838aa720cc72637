// What a CLI test compares before and after a command that must change nothing:
// everything observable about a store, read in the test's own process through the
// library. Reading it through `vexfs` would start four programs for every look,
// and a sanitized `vexfs` takes a quarter of a second to start.
#ifndef VEXFS_TESTS_CLI_STORE_STATE_H_
#define VEXFS_TESTS_CLI_STORE_STATE_H_

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace vexfs::cli_test {

struct StoreState {
  std::string error;        // why the store could not be read; empty if it was
  nlohmann::json tree;      // every node of the current branch: attributes, bytes,
                            // link targets and extended attributes
  nlohmann::json snapshots; // every snapshot with its names, parents, roots and meta
  nlohmann::json branches;  // every branch, its head and which one is current
  bool operator==(const StoreState& other) const = default;
};
std::ostream& operator<<(std::ostream& os, const StoreState& s);

// Opens the store at `path` read-only (a read-only mount of it works too) and reads
// its state; `error` says what failed, if anything did.
StoreState ReadStoreState(const std::string& path);

// The problems fsck finds in the store at `path` (opened read-only); a store that
// cannot be opened or checked gives one problem saying why.
std::vector<std::string> FsckProblems(const std::string& path);

}  // namespace vexfs::cli_test

#endif  // VEXFS_TESTS_CLI_STORE_STATE_H_
