// Tests for damaged stores: a flipped byte in a stored chunk (found in the LMDB
// file itself), damaged compressed objects, truncated tree and commit objects,
// and truncated inode records. Every read of damaged data must fail with
// kCorruption (never return wrong bytes, never crash), and fsck must name the
// damaged object or record.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "common/sha256.h"
#include "store/store_impl.h"
#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using internal::Databases;
using internal::Txn;
using test::StoreTest;

constexpr uint64_t kChunk = 64 * 1024;

class CorruptionTest : public StoreTest {
 protected:
  // Reads or replaces one raw LMDB value, bypassing every check.
  std::string RawGet(MDB_dbi Databases::*db, const std::string& key) {
    Txn txn;
    EXPECT_OK(internal::ImplOf(&store())->BeginTxn(&txn, false));
    auto value = txn.Get(internal::ImplOf(&store())->dbs().*db, key);
    EXPECT_TRUE(value.ok() && value->has_value()) << "no raw value";
    return value.ok() && value->has_value() ? std::string(**value) : "";
  }
  void RawPut(MDB_dbi Databases::*db, const std::string& key, const std::string& value) {
    Txn txn;
    ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
    ASSERT_OK(txn.Put(internal::ImplOf(&store())->dbs().*db, key, value));
    ASSERT_OK(txn.Commit());
  }
  void RawDelete(MDB_dbi Databases::*db, const std::string& key) {
    Txn txn;
    ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
    ASSERT_OK(txn.Delete(internal::ImplOf(&store())->dbs().*db, key).status());
    ASSERT_OK(txn.Commit());
  }
  uint32_t MainBranchId() {
    internal::TxnScope scope(internal::ImplOf(&store()));
    EXPECT_OK(scope.Begin(false, "main"));
    return scope.branch_id();
  }
  // The object id stored for `path` in snapshot `name`.
  ObjectId EntryId(const std::string& name, const std::string& dir, const std::string& entry) {
    Txn txn;
    EXPECT_OK(internal::ImplOf(&store())->BeginTxn(&txn, false));
    internal::ObjectTable objects(&txn, internal::ImplOf(&store())->dbs().objects);
    auto commit = internal::ResolveCommit(txn, internal::ImplOf(&store())->dbs(), name);
    EXPECT_TRUE(commit.ok());
    auto c = objects.GetCommit(*commit);
    EXPECT_TRUE(c.ok());
    ObjectId tree = c->tree;
    if (!dir.empty()) tree = EntryIn(objects, tree, dir);
    return EntryIn(objects, tree, entry);
  }
  bool FsckMentions(const std::string& text) {
    auto report = store().Fsck();
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok()) return false;
    for (const std::string& p : report->problems) {
      if (p.find(text) != std::string::npos) return true;
    }
    return false;
  }

 private:
  static ObjectId EntryIn(const internal::ObjectTable& objects, const ObjectId& tree_id,
                          const std::string& name) {
    auto tree = objects.GetTree(tree_id);
    EXPECT_TRUE(tree.ok()) << tree.status().ToString();
    if (tree.ok()) {
      for (const auto& e : tree->entries) {
        if (e.name == name) return e.id;
      }
    }
    ADD_FAILURE() << "no entry " << name;
    return ObjectId();
  }
};

// Flips one bit of every copy of `marker` in `file`; returns how many it changed.
int FlipEveryOccurrence(const std::string& file, const std::string& marker) {
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int flipped = 0;
  for (size_t pos = bytes.find(marker); pos != std::string::npos;
       pos = bytes.find(marker, pos + 1)) {
    bytes[pos + marker.size() / 2] ^= 0x01;
    ++flipped;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out.good() ? flipped : -1;
}

TEST_F(CorruptionTest, FlippedByteInDataFileIsDetected) {
  const std::string marker = test::RandomBytes(99, 32);
  std::string content = test::RandomBytes(98, 4 * kChunk);
  content.replace(100000, marker.size(), marker);  // inside chunk 1
  ASSERT_OK(Put("victim.bin", content));
  ASSERT_OK(Put("bystander.txt", "unaffected"));
  ASSERT_OK(Snap("s"));
  const ObjectId chunk_id =
      Sha256Of("c" + content.substr(kChunk, kChunk));  // tag byte, then payload

  tree_.reset();
  store_.reset();
  ASSERT_GE(FlipEveryOccurrence(store_path() + "/data.mdb", marker), 1);
  Reopen();

  EXPECT_CODE(tree().ReadAll("victim.bin"), StatusCode::kCorruption);
  EXPECT_CODE(tree().Read("victim.bin", 100000, 10), StatusCode::kCorruption);
  ASSIGN_OR_FAIL(std::string intact, tree().Read("victim.bin", 0, kChunk));
  EXPECT_EQ(intact, content.substr(0, kChunk));
  ASSIGN_OR_FAIL(std::string after, tree().Read("victim.bin", 2 * kChunk, 2 * kChunk));
  EXPECT_EQ(after, content.substr(2 * kChunk));
  EXPECT_EQ(Content("bystander.txt"), "unaffected");
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("s"));
  EXPECT_CODE(view->ReadAll("victim.bin"), StatusCode::kCorruption);
  // Each 4 KiB page of a chunk has its own checksum: the damaged page (8 of chunk
  // 1) fails wherever it is read, the chunk's other pages still read right.
  EXPECT_CODE(view->Read("victim.bin", 100000, 10), StatusCode::kCorruption);
  ASSIGN_OR_FAIL(std::string first_page, tree().Read("victim.bin", kChunk, 4096));
  EXPECT_EQ(first_page, content.substr(kChunk, 4096));
  ASSIGN_OR_FAIL(std::string snap_page, view->Read("victim.bin", kChunk, 4096));
  EXPECT_EQ(snap_page, content.substr(kChunk, 4096));
  EXPECT_TRUE(FsckMentions(chunk_id.ToHex()));

  // A partial write must read the damaged chunk, so it fails too...
  uint64_t ino = Ino("victim.bin");
  EXPECT_CODE(Edit([&](TreeEditor& ed) { return ed.Write(ino, 100005, "x"); }),
              StatusCode::kCorruption);
  // ...while replacing the whole chunk needs none of its old bytes.
  const std::string fresh = test::RandomBytes(97, kChunk);
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Write(ino, kChunk, fresh); }));
  content.replace(kChunk, kChunk, fresh);
  EXPECT_EQ(Content("victim.bin"), content);
}

TEST_F(CorruptionTest, DamagedCompressedObjectIsDetected) {
  test::Random rng(3);
  const std::string text = rng.Text(3 * kChunk);
  ASSERT_OK(Put("notes.txt", text));
  ASSERT_OK(Snap("s"));
  const ObjectId chunk_id = Sha256Of("c" + text.substr(0, kChunk));
  const std::string key(chunk_id.AsBytes());
  const std::string stored = RawGet(&Databases::objects, key);
  ASSERT_LT(stored.size(), kChunk / 2) << "text should have been stored compressed";

  std::string flipped = stored;
  flipped[flipped.size() / 2] ^= 0x10;
  RawPut(&Databases::objects, key, flipped);
  EXPECT_CODE(tree().ReadAll("notes.txt"), StatusCode::kCorruption);
  EXPECT_TRUE(FsckMentions(chunk_id.ToHex()));

  // A claimed size far beyond any object must fail before allocating it.
  std::string huge = stored.substr(0, 2) + std::string("\xff\xff\xff\xff\xff\xff\x7f", 7) +
                     stored.substr(2);
  RawPut(&Databases::objects, key, huge);
  EXPECT_CODE(tree().ReadAll("notes.txt"), StatusCode::kCorruption);

  for (std::string bad : {std::string(), std::string("c"), std::string("c\x07", 2),
                          std::string("z\x00", 2) + text.substr(0, kChunk)}) {
    RawPut(&Databases::objects, key, bad);
    EXPECT_CODE(tree().ReadAll("notes.txt"), StatusCode::kCorruption);
    EXPECT_TRUE(FsckMentions(chunk_id.ToHex()));
  }
  RawPut(&Databases::objects, key, stored);
  EXPECT_EQ(Content("notes.txt"), text);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(CorruptionTest, TruncatedTreeObjectNeverCrashes) {
  ASSERT_OK(Put("d/a", "A"));
  ASSERT_OK(Put("d/b", "B"));
  ASSERT_OK(Put("top", "T"));
  ASSERT_OK(Snap("s1"));
  ASSERT_OK(Put("d/a", "changed"));  // so a diff has to read the snapshot's "d"
  const ObjectId tree_id = EntryId("s1", "", "d");
  const std::string key(tree_id.AsBytes());
  const std::string stored = RawGet(&Databases::objects, key);
  ASSIGN_OR_FAIL(StoreStats stats, store().Stats());
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("s1"));
  for (size_t n = 0; n < stored.size(); ++n) {
    SCOPED_TRACE("truncated to " + std::to_string(n));
    RawPut(&Databases::objects, key, stored.substr(0, n));
    EXPECT_CODE(view->List("d"), StatusCode::kCorruption);
    EXPECT_CODE(view->Stat("d/a"), StatusCode::kCorruption);
    EXPECT_CODE(view->ReadAll("d/b"), StatusCode::kCorruption);
    ASSIGN_OR_FAIL(std::string top, view->ReadAll("top"));
    EXPECT_EQ(top, "T");
    EXPECT_CODE(store().Diff("s1", kWorkingName), StatusCode::kCorruption);
    EXPECT_CODE(store().Restore("s1"), StatusCode::kCorruption);
    EXPECT_EQ(Content("d/a"), "changed");  // the failed restore changed nothing
    // gc must refuse rather than guess what the damaged tree referenced.
    EXPECT_FALSE(store().Gc().ok());
    ASSIGN_OR_FAIL(StoreStats now, store().Stats());
    EXPECT_EQ(now.objects, stats.objects);
    EXPECT_TRUE(FsckMentions(tree_id.ToHex()));
  }
  RawPut(&Databases::objects, key, stored);
  ASSERT_OK(store().Restore("s1"));
  EXPECT_EQ(Content("d/a"), "A");
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(CorruptionTest, TruncatedCommitObjectNeverCrashes) {
  ASSERT_OK(Put("f", "x"));
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  const std::string key(s1.id.AsBytes());
  const std::string stored = RawGet(&Databases::objects, key);
  for (size_t n = 0; n < stored.size(); ++n) {
    SCOPED_TRACE("truncated to " + std::to_string(n));
    RawPut(&Databases::objects, key, stored.substr(0, n));
    EXPECT_CODE(store().OpenSnapshot("s1"), StatusCode::kCorruption);
    EXPECT_CODE(store().ResolveSnapshot(s1.id.ToHex()), StatusCode::kCorruption);
    EXPECT_CODE(store().Log(), StatusCode::kCorruption);
    EXPECT_CODE(store().ListSnapshots(), StatusCode::kCorruption);
    EXPECT_CODE(store().Diff("s1", kWorkingName), StatusCode::kCorruption);
    EXPECT_TRUE(FsckMentions(s1.id.ToHex()));
  }
  RawPut(&Databases::objects, key, stored);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(CorruptionTest, TruncatedInodeRecordNeverCrashes) {
  ASSERT_OK(Put("dir/f", "data"));
  ASSERT_OK(Snap("s0"));
  ASSERT_OK(Put("dir/f", "newer"));
  const uint64_t f = Ino("dir/f");
  const std::string key = internal::InodeKey(MainBranchId(), f);
  const std::string stored = RawGet(&Databases::inodes, key);
  std::vector<std::string> damaged;
  for (size_t n = 0; n < stored.size(); ++n) damaged.push_back(stored.substr(0, n));
  damaged.push_back(std::string(1, '\x02') + stored.substr(1));   // unknown version
  damaged.push_back(stored.substr(0, 1) + '\x09' + stored.substr(2));  // unknown type
  damaged.push_back(stored + "trailing");
  for (const std::string& bad : damaged) {
    SCOPED_TRACE("record of " + std::to_string(bad.size()) + " bytes");
    RawPut(&Databases::inodes, key, bad);
    EXPECT_CODE(tree().Stat("dir/f"), StatusCode::kCorruption);
    EXPECT_CODE(tree().Read("dir/f", 0, 10), StatusCode::kCorruption);
    EXPECT_CODE(tree().List("dir"), StatusCode::kCorruption);
    EXPECT_CODE(Snap("never"), StatusCode::kCorruption);
    EXPECT_CODE(store().Diff("s0", kWorkingName), StatusCode::kCorruption);
    EXPECT_CODE(Put("dir/f", "overwrite"), StatusCode::kCorruption);
    EXPECT_TRUE(FsckMentions("inode " + std::to_string(f) + " on branch 'main'"));
  }
  RawPut(&Databases::inodes, key, stored);
  EXPECT_EQ(Content("dir/f"), "newer");
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(CorruptionTest, MissingInodeBehindDirectoryEntry) {
  ASSERT_OK(Put("dir/f", "data"));
  uint64_t f = Ino("dir/f");
  const std::string key = internal::InodeKey(MainBranchId(), f);
  RawDelete(&Databases::inodes, key);
  EXPECT_FALSE(tree().Stat("dir/f").ok());
  EXPECT_FALSE(tree().List("dir").ok());
  EXPECT_FALSE(Snap("s").ok());
  EXPECT_TRUE(FsckMentions("missing inode " + std::to_string(f)));
}

}  // namespace
}  // namespace vexfs
