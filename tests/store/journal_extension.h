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
#include "store/extension.h"
#include "store/store_impl.h"

namespace vexfs::test {

class JournalExtension : public internal::Extension {
 public:
  // Registers the journal's table in `impl` and attaches an extension for it.
  static Result<std::shared_ptr<JournalExtension>> AttachTo(internal::StoreImpl* impl) {
    VEXFS_ASSIGN_OR_RETURN(auto dbis, impl->RegisterTables({{"journal", internal::TableScope::kPerBranch}}));
    auto journal = std::make_shared<JournalExtension>(dbis[0]);
    VEXFS_RETURN_IF_ERROR(impl->Attach(journal));
    return journal;
  }

  explicit JournalExtension(MDB_dbi table) : table_(table) {}
  const std::string& name() const override { return name_; }
  bool versions_data() const override { return true; }

  // Replaces the journal of the working tree of `branch` ("" = current).
  Status Write(Store* store, const std::vector<std::string>& lines, std::string_view branch = "") {
    VEXFS_ASSIGN_OR_RETURN(auto tree, store->Tree(branch));
    return tree->Edit([&](TreeEditor& ed) { return Replace(*internal::ScopeOf(ed), lines); });
  }

  Result<std::vector<std::string>> Read(Store* store, std::string_view branch = "") {
    VEXFS_ASSIGN_OR_RETURN(auto tree, store->Tree(branch));
    std::vector<std::string> lines;
    VEXFS_RETURN_IF_ERROR(tree->View([&](TreeEditor& ed) -> Status {
      internal::TxnScope& scope = *internal::ScopeOf(ed);
      VEXFS_ASSIGN_OR_RETURN(auto rows, internal::ScanPrefix(scope.txn(), table_,
                                                             internal::BranchPrefix(scope.branch_id())));
      for (auto& [key, value] : rows) lines.push_back(value);
      return Status::Ok();
    }));
    return lines;
  }

  Result<std::optional<ObjectId>> SnapshotRoot(internal::TxnScope& scope) override {
    VEXFS_ASSIGN_OR_RETURN(auto rows, internal::ScanPrefix(scope.txn(), table_,
                                                           internal::BranchPrefix(scope.branch_id())));
    if (rows.empty()) return std::optional<ObjectId>();
    internal::Node node;
    for (const auto& [key, value] : rows) {
      VEXFS_ASSIGN_OR_RETURN(ObjectId line, scope.objects().Put(internal::ObjectType::kChunk, value));
      node.refs.push_back(line);
    }
    node.data = "journal v1";
    VEXFS_ASSIGN_OR_RETURN(ObjectId id, scope.objects().Put(internal::ObjectType::kNode,
                                                            internal::EncodeNode(node)));
    return std::optional<ObjectId>(id);
  }

  Status RestoreRoot(internal::TxnScope& scope, const std::optional<ObjectId>& root) override {
    ++restores_;
    std::vector<std::string> lines;
    if (root) {
      VEXFS_ASSIGN_OR_RETURN(std::string payload, scope.objects().Get(*root, internal::ObjectType::kNode));
      internal::Node node;
      VEXFS_RETURN_IF_ERROR(internal::DecodeNode(payload, &node));
      for (const ObjectId& line : node.refs) {
        VEXFS_ASSIGN_OR_RETURN(std::string text, scope.objects().Get(line, internal::ObjectType::kChunk));
        lines.push_back(std::move(text));
      }
    }
    return Replace(scope, lines);
  }

  int restores() const { return restores_; }

 private:
  Status Replace(internal::TxnScope& scope, const std::vector<std::string>& lines) {
    std::string prefix = internal::BranchPrefix(scope.branch_id());
    VEXFS_RETURN_IF_ERROR(internal::DeletePrefix(&scope.txn(), table_, prefix));
    for (size_t i = 0; i < lines.size(); ++i) {
      Encoder key;
      key.PutFixed64BE(i);
      VEXFS_RETURN_IF_ERROR(scope.txn().Put(table_, prefix + key.Take(), lines[i]));
    }
    return Status::Ok();
  }

  std::string name_ = "journal";
  MDB_dbi table_;
  int restores_ = 0;
};

}  // namespace vexfs::test

#endif  // VEXFS_TESTS_STORE_JOURNAL_EXTENSION_H_
