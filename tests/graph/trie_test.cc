// The graph's hash tree: its shape depends only on its records (a tree built
// at once and one changed step by step have one root id), lookups and prefix
// scans find what was put, a diff reports exactly the records that differ, a
// small change rewrites few objects whatever the tree's size, and damaged
// objects are refused as corruption.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "graph/trie/trie_diff.h"
#include "graph/trie/trie_objects.h"
#include "graph/trie/trie_read.h"
#include "graph/trie/trie_write.h"
#include "test_util.h"

namespace vexfs::graph {
namespace {

using RecordMap = std::map<std::string, std::string>;

// Keys shaped like the graph's: 16 random bytes, then a suffix.
std::string RandomKey(test::Random& rng) { return rng.Bytes(16) + "N"; }

class TrieTest : public test::StoreTest {
 protected:
  // Runs `fn` in a write transaction of the store and commits.
  template <typename Fn>
  void InWrite(Fn fn) {
    StoreTxn txn;
    ASSERT_TRUE(txn.BeginOnBranch(&store(), true, "").ok());
    fn(txn);
    ASSERT_TRUE(txn.Commit().ok());
  }

  TrieRef Build(const RecordMap& records) {
    TrieRef ref;
    InWrite([&](StoreTxn& txn) {
      std::vector<Record> sorted(records.begin(), records.end());
      auto built = BuildTrie(txn, sorted);
      ASSERT_TRUE(built.ok()) << built.status().ToString();
      ref = *built;
    });
    return ref;
  }

  TrieRef Apply(const TrieRef& top, const std::map<std::string, std::optional<std::string>>& changes) {
    TrieRef ref;
    InWrite([&](StoreTxn& txn) {
      std::vector<RecordChange> sorted;
      for (const auto& [k, v] : changes) sorted.push_back({k, v});
      auto applied = ApplyToTrie(txn, top, sorted);
      ASSERT_TRUE(applied.ok()) << applied.status().ToString();
      ref = *applied;
    });
    return ref;
  }

  RecordMap Read(const TrieRef& top) {
    StoreTxn txn;
    EXPECT_TRUE(txn.Begin(&store(), false).ok());
    std::vector<Record> records;
    EXPECT_TRUE(TrieReader(txn).Collect(top, &records).ok());
    return RecordMap(records.begin(), records.end());
  }
};

TEST_F(TrieTest, ShapeDependsOnlyOnTheRecords) {
  test::Random rng(7);
  RecordMap all;
  for (int i = 0; i < 3000; ++i) all[RandomKey(rng)] = rng.Text(20);
  TrieRef built = Build(all);
  EXPECT_FALSE(built.leaf);
  EXPECT_EQ(built.count, all.size());

  // The same records, added in batches of random size in another order, then
  // some extra ones added and removed again.
  std::vector<std::string> keys;
  for (const auto& [k, v] : all) keys.push_back(k);
  std::shuffle(keys.begin(), keys.end(), rng.engine());
  TrieRef stepwise;
  size_t at = 0;
  while (at < keys.size()) {
    size_t n = std::min<size_t>(keys.size() - at, rng.Uniform(1, 400));
    std::map<std::string, std::optional<std::string>> changes;
    for (size_t i = at; i < at + n; ++i) changes[keys[i]] = all[keys[i]];
    stepwise = Apply(stepwise, changes);
    at += n;
  }
  std::map<std::string, std::optional<std::string>> extra;
  for (int i = 0; i < 500; ++i) extra[RandomKey(rng)] = "x";
  stepwise = Apply(stepwise, extra);
  for (auto& [k, v] : extra) v.reset();
  stepwise = Apply(stepwise, extra);

  EXPECT_EQ(stepwise, built);
  EXPECT_EQ(Read(stepwise), all);
}

TEST_F(TrieTest, ShrinkingBackToALeafGivesTheLeaf) {
  test::Random rng(8);
  RecordMap few;
  for (int i = 0; i < 10; ++i) few[RandomKey(rng)] = "v";
  TrieRef small = Build(few);
  EXPECT_TRUE(small.leaf);
  std::map<std::string, std::optional<std::string>> many;
  for (int i = 0; i < 1000; ++i) many[RandomKey(rng)] = "w";
  TrieRef big = Apply(small, many);
  EXPECT_FALSE(big.leaf);
  for (auto& [k, v] : many) v.reset();
  EXPECT_EQ(Apply(big, many), small);
  // Removing everything leaves the empty tree.
  std::map<std::string, std::optional<std::string>> none;
  for (const auto& [k, v] : few) none[k] = std::nullopt;
  EXPECT_EQ(Apply(small, none).count, 0u);
}

TEST_F(TrieTest, LookupAndPrefixScanFindWhatWasPut) {
  test::Random rng(9);
  RecordMap all;
  std::string owner = rng.Bytes(16);
  for (int i = 0; i < 2000; ++i) all[RandomKey(rng)] = rng.Text(10);
  for (int i = 0; i < 100; ++i) all[owner + "O" + rng.Name() + std::string(1, '\0') + rng.Bytes(32)] = "edge";
  TrieRef top = Build(all);

  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&store(), false).ok());
  TrieReader reader(txn);
  for (const auto& [k, v] : all) {
    auto got = reader.Lookup(top, k);
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ(**got, v);
  }
  auto missing = reader.Lookup(top, RandomKey(rng));
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  std::vector<std::string> scanned;
  ASSERT_TRUE(reader.Scan(top, owner + "O", [&](std::string_view k, std::string_view) -> Result<bool> {
    scanned.emplace_back(k);
    return true;
  }).ok());
  EXPECT_EQ(scanned.size(), 100u);
  EXPECT_TRUE(std::is_sorted(scanned.begin(), scanned.end()));
}

TEST_F(TrieTest, DiffReportsExactlyTheRecordsThatDiffer) {
  test::Random rng(10);
  RecordMap a;
  for (int i = 0; i < 5000; ++i) a[RandomKey(rng)] = rng.Text(12);
  RecordMap b = a;
  std::map<std::string, std::optional<std::string>> changes;
  auto it = b.begin();
  for (int i = 0; i < 20; ++i, std::advance(it, 97)) changes[it->first] = "changed";
  for (int i = 0; i < 20; ++i) changes[RandomKey(rng)] = "added";
  it = b.begin();
  std::advance(it, 13);
  changes[it->first] = std::nullopt;
  for (const auto& [k, v] : changes) {
    if (v) b[k] = *v; else b.erase(k);
  }
  TrieRef ta = Build(a);
  TrieRef tb = Apply(ta, changes);
  EXPECT_EQ(tb, Build(b));

  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&store(), false).ok());
  std::map<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>> seen;
  ASSERT_TRUE(DiffTries(txn, ta, tb, [&](const std::string& k, const std::optional<std::string>& x,
                                         const std::optional<std::string>& y) {
    seen[k] = {x, y};
    return Status::Ok();
  }).ok());
  ASSERT_EQ(seen.size(), changes.size());
  for (const auto& [k, v] : changes) {
    ASSERT_TRUE(seen.count(k)) << "missing a changed key";
    EXPECT_EQ(seen[k].second, v);
    EXPECT_EQ(seen[k].first, a.count(k) ? std::optional<std::string>(a[k]) : std::nullopt);
  }
}

TEST_F(TrieTest, ASmallChangeWritesFewObjectsWhateverTheSize) {
  for (int size : {2000, 40000}) {
    test::Random rng(size);
    RecordMap all;
    for (int i = 0; i < size; ++i) all[RandomKey(rng)] = rng.Text(8);
    TrieRef top = Build(all);
    auto before = store().Stats();
    ASSERT_TRUE(before.ok());
    std::map<std::string, std::optional<std::string>> changes;
    for (int i = 0; i < 10; ++i) changes[RandomKey(rng)] = "new";
    Apply(top, changes);
    auto after = store().Stats();
    ASSERT_TRUE(after.ok());
    // Ten leaves and the inner nodes above them: depth 2-3 here.
    EXPECT_LE(after->objects - before->objects, 40u) << size << " records";
  }
}

TEST_F(TrieTest, AHostileTreeIsCorruptionNotACrash) {
  // An inner node whose child claims the same depth (a chain that could nest
  // without end), and one whose children do not add up to its count.
  TrieRef leaf;
  InWrite([&](StoreTxn& txn) {
    std::vector<Record> records;
    for (int i = 0; i < 40; ++i) records.emplace_back(std::string(16, static_cast<char>(i)) + "N", "v");
    leaf = *BuildTrie(txn, records);
  });
  TrieRef wrong_depth, wrong_count;
  InWrite([&](StoreTxn& txn) {
    TrieInner bottom{0, {TrieChild{1, leaf}, TrieChild{2, leaf}}};
    TrieRef inner{*txn.PutNode(EncodeInner(bottom)), false, 80};
    TrieInner top{0, {TrieChild{1, inner}}};
    wrong_depth = TrieRef{*txn.PutNode(EncodeInner(top)), false, 80};
    TrieInner counted{0, {TrieChild{1, leaf}, TrieChild{2, leaf}}};
    wrong_count = TrieRef{*txn.PutNode(EncodeInner(counted)), false, 100};
  });
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&store(), false).ok());
  std::vector<Record> out;
  EXPECT_TRUE(TrieReader(txn).Collect(wrong_depth, &out).IsCorruption());
  EXPECT_TRUE(TrieReader(txn).Collect(wrong_count, &out).IsCorruption());
  // Label 1 at depth 0 is a key's high nibble.
  auto found = TrieReader(txn).Lookup(wrong_depth, std::string(1, '\x10') + std::string(15, 'x') + "N");
  EXPECT_TRUE(found.status().IsCorruption());
}

TEST_F(TrieTest, DamagedObjectsAreCorruption) {
  std::vector<Record> records;
  EXPECT_TRUE(DecodeLeaf("", &records).IsCorruption());
  std::string leaf = EncodeLeaf({{"b", "1"}, {"a", "2"}});
  EXPECT_TRUE(DecodeLeaf(leaf, &records).IsCorruption()) << "keys out of order";
  leaf = EncodeLeaf({{"a", "1"}, {"b", "2"}});
  EXPECT_TRUE(DecodeLeaf(leaf, &records).ok());
  EXPECT_TRUE(DecodeLeaf(leaf.substr(0, leaf.size() - 1), &records).IsCorruption());
  TrieInner inner;
  StoredNode node = EncodeInner(TrieInner{0, {TrieChild{1, TrieRef{ObjectId(), true, 10}}}});
  EXPECT_TRUE(DecodeInner(node, &inner).IsCorruption()) << "an inner node a leaf would hold";
  node.refs.clear();
  EXPECT_TRUE(DecodeInner(node, &inner).IsCorruption()) << "references missing";
  GraphRoot root;
  EXPECT_TRUE(DecodeRoot(StoredNode{{}, "junk"}, &root).IsCorruption());

  // A nibble tree's labels stop at 15; a byte tree's may go to 255.
  std::vector<TrieChild> children;
  for (uint8_t label : {3, 16}) children.push_back(TrieChild{label, TrieRef{ObjectId(), true, 40}});
  EXPECT_TRUE(DecodeInner(EncodeInner(TrieInner{0, children}), &inner).IsCorruption()) << "label 16";
  ASSERT_TRUE(DecodeInner(EncodeInner(TrieInner{0, children, kByteLabelBits}), &inner).ok());
  EXPECT_EQ(inner.label_bits, kByteLabelBits);
  EXPECT_EQ(inner.children[1].ref.label_bits, kByteLabelBits) << "a child is of its parent's format";
}

// A tree of root format 1 (byte labels), as a store written before nibble trees
// holds: built here by the old rule, since nothing writes one any more.
class ByteTrieTest : public TrieTest {
 protected:
  static Result<TrieRef> BuildBytes(StoreTxn& txn, std::span<const Record> records, uint32_t depth) {
    if (records.size() <= kLeafMax) {
      VEXFS_ASSIGN_OR_RETURN(ObjectId id, txn.PutBlob(EncodeLeaf({records.begin(), records.end()})));
      return TrieRef{id, true, records.size(), kByteLabelBits};
    }
    TrieInner inner{depth, {}, kByteLabelBits};
    for (size_t begin = 0, end = 0; begin < records.size(); begin = end) {
      auto label = static_cast<uint8_t>(records[begin].first[depth]);
      for (end = begin; end < records.size() && static_cast<uint8_t>(records[end].first[depth]) == label;) ++end;
      VEXFS_ASSIGN_OR_RETURN(TrieRef child, BuildBytes(txn, records.subspan(begin, end - begin), depth + 1));
      inner.children.push_back(TrieChild{label, child});
    }
    VEXFS_ASSIGN_OR_RETURN(ObjectId id, txn.PutNode(EncodeInner(inner)));
    return TrieRef{id, false, records.size(), kByteLabelBits};
  }

  TrieRef BuildOld(const RecordMap& records) {
    TrieRef ref;
    InWrite([&](StoreTxn& txn) {
      std::vector<Record> sorted(records.begin(), records.end());
      auto built = BuildBytes(txn, sorted, 0);
      ASSERT_TRUE(built.ok()) << built.status().ToString();
      // Through its root, as a snapshot holds it.
      auto root = WriteRoot(txn, *built);
      ASSERT_TRUE(root.ok());
      auto read = TrieReader(txn).ReadRoot(*root);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      ref = read->top;
    });
    return ref;
  }
};

TEST_F(ByteTrieTest, AnOlderByteTreeIsReadDiffedAndChangedIntoANibbleTree) {
  test::Random rng(11);
  RecordMap all;
  for (int i = 0; i < 3000; ++i) all[RandomKey(rng)] = rng.Text(12);
  TrieRef old_top = BuildOld(all);
  ASSERT_EQ(old_top.label_bits, kByteLabelBits);
  EXPECT_EQ(Read(old_top), all);
  {
    StoreTxn txn;
    ASSERT_TRUE(txn.Begin(&store(), false).ok());
    const std::string& key = std::next(all.begin(), 1234)->first;
    auto found = TrieReader(txn).Lookup(old_top, key);
    ASSERT_TRUE(found.ok() && found->has_value());
    EXPECT_EQ(**found, all[key]);
    int scanned = 0;
    ASSERT_TRUE(TrieReader(txn).Scan(old_top, key.substr(0, 1), [&](std::string_view k, std::string_view) {
      EXPECT_EQ(k[0], key[0]);
      ++scanned;
      return Result<bool>(true);
    }).ok());
    EXPECT_GT(scanned, 0);
  }

  // A change to it writes the nibble tree a build of the changed records makes.
  std::map<std::string, std::optional<std::string>> changes;
  RecordMap changed = all;
  for (int i = 0; i < 5; ++i) changes[RandomKey(rng)] = "added";
  changes[all.begin()->first] = std::nullopt;
  for (const auto& [k, v] : changes) v ? void(changed[k] = *v) : void(changed.erase(k));
  TrieRef new_top = Apply(old_top, changes);
  EXPECT_EQ(new_top.label_bits, kLabelBits);
  EXPECT_EQ(new_top, Build(changed));

  // The diff across formats reports exactly the changes.
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&store(), false).ok());
  std::map<std::string, std::optional<std::string>> seen;
  ASSERT_TRUE(DiffTries(txn, old_top, new_top, [&](const std::string& key, const auto&, const auto& newer) {
    seen[key] = newer;
    return Status::Ok();
  }).ok());
  EXPECT_EQ(seen, changes);
}

}  // namespace
}  // namespace vexfs::graph
