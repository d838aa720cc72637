// The graph as a store extension (vexfs/extension.h): it versions its data, so
// every snapshot carries the graph's root beside the file tree, restores and
// branches from snapshots bring the graph back, gc keeps every branch's base
// tree and fsck checks the records.
//
// A snapshot does not rebuild the tree: it applies the records written since
// the branch's base (the dirty set) to the base's tree, stores the new root as
// the base and clears the set, so its cost follows what changed.
#ifndef VEXFS_GRAPH_GRAPH_EXTENSION_H_
#define VEXFS_GRAPH_GRAPH_EXTENSION_H_

#include <string>

#include "graph/working_graph.h"
#include "vexfs/extension.h"

namespace vexfs::graph {

inline constexpr char kGraphExtensionName[] = "graph";
// The name a snapshot's graph root has in CommitInfo::roots.
inline constexpr char kGraphRootName[] = "graph";

class GraphExtension : public Extension {
 public:
  explicit GraphExtension(GraphTables tables) : tables_(tables) {}
  const GraphTables& tables() const { return tables_; }

  const std::string& name() const override { return name_; }
  bool keeps_objects() const override { return true; }
  bool versions_data() const override { return true; }
  Status AddGcRoots(const StoreTxn& txn, std::vector<ObjectId>* roots) override;
  Status Check(const StoreTxn& txn, FsckReport* report) override;
  Result<std::optional<ObjectId>> SnapshotRoot(StoreTxn& txn) override;
  Status RestoreRoot(StoreTxn& txn, const std::optional<ObjectId>& root) override;

 private:
  Status CheckQueuedTexts(const StoreTxn& txn, FsckReport* report);
  Status CheckRecord(const StoreTxn& txn, const std::string& key, const std::string& value,
                     FsckReport* report);
  std::string name_ = kGraphExtensionName;
  GraphTables tables_;
};

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_GRAPH_EXTENSION_H_
