// A small versioning store extension for tests: each branch has a journal (a
// list of lines, in a per-branch table) that snapshots carry as a root of their
// own and restores bring back. It is what the memory graph is to the store, in
// miniature: its snapshot root is a node whose references are one chunk per line.
#ifndef VEXFS_TESTS_STORE_JOURNAL_EXTENSION_H_
#define VEXFS_TESTS_STORE_JOURNAL_EXTENSION_H_

#include <memory>
#include <string>
#include <vector>

#include "common/coding.h"
#include "vexfs/extension.h"

namespace vexfs::test {

class JournalExtension : public Extension {
 public:
  // Registers the journal's table in `store` and attaches an extension for it.
  static Result<std::shared_ptr<JournalExtension>> AttachTo(Store* store) {
    VEXFS_ASSIGN_OR_RETURN(auto tables, RegisterTables(store, {{"journal", TableScope::kPerBranch}}));
    auto journal = std::make_shared<JournalExtension>(tables[0]);
    VEXFS_RETURN_IF_ERROR(AttachExtension(store, journal));
    return journal;
  }

  explicit JournalExtension(Table table) : table_(table) {}
  const std::string& name() const override { return name_; }
  bool versions_data() const override { return true; }

  // Replaces the journal of the working tree of `branch` ("" = current).
  Status Write(Store* store, const std::vector<std::string>& lines, std::string_view branch = "") {
    VEXFS_ASSIGN_OR_RETURN(auto tree, store->Tree(branch));
    return tree->Edit([&](TreeEditor& ed) {
      StoreTxn txn = TransactionOf(ed);
      return Replace(txn, lines);
    });
  }

  Result<std::vector<std::string>> Read(Store* store, std::string_view branch = "") {
    VEXFS_ASSIGN_OR_RETURN(auto tree, store->Tree(branch));
    std::vector<std::string> lines;
    VEXFS_RETURN_IF_ERROR(tree->View([&](TreeEditor& ed) -> Status {
      StoreTxn txn = TransactionOf(ed);
      VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(table_, BranchKeyPrefix(txn.branch_id())));
      for (auto& [key, value] : rows) lines.push_back(value);
      return Status::Ok();
    }));
    return lines;
  }

  Result<std::optional<ObjectId>> SnapshotRoot(StoreTxn& txn) override {
    VEXFS_ASSIGN_OR_RETURN(auto rows, txn.Scan(table_, BranchKeyPrefix(txn.branch_id())));
    if (rows.empty()) return std::optional<ObjectId>();
    StoredNode node;
    for (const auto& [key, value] : rows) {
      VEXFS_ASSIGN_OR_RETURN(ObjectId line, txn.PutBlob(value));
      node.refs.push_back(line);
    }
    node.data = "journal v1";
    VEXFS_ASSIGN_OR_RETURN(ObjectId id, txn.PutNode(node));
    return std::optional<ObjectId>(id);
  }

  Status RestoreRoot(StoreTxn& txn, const std::optional<ObjectId>& root) override {
    ++restores_;
    std::vector<std::string> lines;
    if (root) {
      VEXFS_ASSIGN_OR_RETURN(StoredNode node, txn.GetNode(*root));
      for (const ObjectId& line : node.refs) {
        VEXFS_ASSIGN_OR_RETURN(std::string text, txn.GetBlob(line));
        lines.push_back(std::move(text));
      }
    }
    return Replace(txn, lines);
  }

  int restores() const { return restores_; }

 private:
  Status Replace(StoreTxn& txn, const std::vector<std::string>& lines) {
    std::string prefix = BranchKeyPrefix(txn.branch_id());
    VEXFS_RETURN_IF_ERROR(txn.DeletePrefix(table_, prefix));
    for (size_t i = 0; i < lines.size(); ++i) {
      Encoder key;
      key.PutFixed64BE(i);
      VEXFS_RETURN_IF_ERROR(txn.Put(table_, prefix + key.Take(), lines[i]));
    }
    return Status::Ok();
  }

  std::string name_ = "journal";
  Table table_;
  int restores_ = 0;
};

}  // namespace vexfs::test

#endif  // VEXFS_TESTS_STORE_JOURNAL_EXTENSION_H_
