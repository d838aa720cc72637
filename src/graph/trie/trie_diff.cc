// Diffing two graph hash trees (trie_diff.h).
#include "graph/trie/trie_diff.h"

#include <vector>

#include "graph/trie/trie_read.h"

namespace vexfs::graph {
namespace {

// Merges two sorted record lists, reporting the keys whose values differ.
Status DiffRecords(const std::vector<Record>& a, const std::vector<Record>& b,
                   const RecordDiffVisitor& visit) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      VEXFS_RETURN_IF_ERROR(visit(a[i].first, a[i].second, std::nullopt));
      ++i;
    } else if (i == a.size() || b[j].first < a[i].first) {
      VEXFS_RETURN_IF_ERROR(visit(b[j].first, std::nullopt, b[j].second));
      ++j;
    } else {
      if (a[i].second != b[j].second) VEXFS_RETURN_IF_ERROR(visit(a[i].first, a[i].second, b[j].second));
      ++i;
      ++j;
    }
  }
  return Status::Ok();
}

class Differ {
 public:
  Differ(const StoreTxn& txn, const RecordDiffVisitor& visit) : reader_(txn), visit_(visit) {}

  Status Diff(const TrieRef& a, const TrieRef& b, uint32_t depth) {
    if (a.count > 0 && b.count > 0 && a.id == b.id) return Status::Ok();
    if (a.count > 0 && b.count > 0 && !a.leaf && !b.leaf && a.label_bits == b.label_bits) {
      return DiffInner(a, b, depth);
    }
    // A leaf on either side is small, or one side is empty: read both whole.
    // So are two trees of different formats (a byte tree against the nibble
    // tree written after it), whose subtrees do not line up.
    std::vector<Record> ra, rb;
    VEXFS_RETURN_IF_ERROR(reader_.Collect(a, &ra, depth));
    VEXFS_RETURN_IF_ERROR(reader_.Collect(b, &rb, depth));
    return DiffRecords(ra, rb, visit_);
  }

 private:
  Status DiffInner(const TrieRef& a, const TrieRef& b, uint32_t depth) {
    VEXFS_ASSIGN_OR_RETURN(TrieInner ia, reader_.ReadInner(a, depth));
    VEXFS_ASSIGN_OR_RETURN(TrieInner ib, reader_.ReadInner(b, depth));
    size_t i = 0, j = 0;
    while (i < ia.children.size() || j < ib.children.size()) {
      int la = i < ia.children.size() ? ia.children[i].label : 256;
      int lb = j < ib.children.size() ? ib.children[j].label : 256;
      TrieRef ca = la <= lb ? ia.children[i].ref : TrieRef{};
      TrieRef cb = lb <= la ? ib.children[j].ref : TrieRef{};
      if (la <= lb) ++i;
      if (lb <= la) ++j;
      VEXFS_RETURN_IF_ERROR(Diff(ca, cb, depth + 1));
    }
    return Status::Ok();
  }

  TrieReader reader_;
  const RecordDiffVisitor& visit_;
};

}  // namespace

Status DiffTries(const StoreTxn& txn, const TrieRef& older, const TrieRef& newer,
                 const RecordDiffVisitor& visit) {
  return Differ(txn, visit).Diff(older, newer, 0);
}

}  // namespace vexfs::graph
