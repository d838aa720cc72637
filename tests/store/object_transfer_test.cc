// Moving snapshots between stores as objects (vexfs/object_transfer.h): a
// whole history and an incremental step arrive with the same commit ids and
// contents and a clean fsck; the incremental selection costs what changed
// whatever the store's size; and a damaged, substituted or incomplete import,
// or one whose name is taken, leaves the target as it was.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "test_util.h"
#include "vexfs/object_transfer.h"

namespace vexfs {
namespace {

using Objects = std::vector<std::pair<ObjectId, std::string>>;

Objects Select(Store& store, const std::vector<ObjectId>& want, const std::vector<ObjectId>& have) {
  Objects out;
  Status st = SelectObjects(store, want, have, [&](const ObjectId& id, std::string_view stored) {
    out.emplace_back(id, std::string(stored));
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

Status Import(Store& store, const Objects& objects, const std::vector<std::pair<std::string, ObjectId>>& names) {
  VEXFS_ASSIGN_OR_RETURN(auto import, ObjectImport::Begin(store));
  for (const auto& [id, stored] : objects) VEXFS_RETURN_IF_ERROR(import->Add(id, stored));
  return import->Commit(names);
}

class ObjectTransferTest : public test::StoreTest {
 protected:
  void SetUp() override {
    test::StoreTest::SetUp();
    target_ = Store::Create(dir_.Sub("target")).value();
  }

  // `files` files in directories of 50, then a snapshot.
  CommitInfo Fill(int files, std::string_view name) {
    for (int i = 0; i < files; ++i) {
      EXPECT_TRUE(Put("d" + std::to_string(i / 50) + "/f" + std::to_string(i), "note " + std::to_string(i)).ok());
    }
    return *Snap(name);
  }

  std::map<std::string, std::string> Files(Store& store, std::string_view snapshot) {
    std::map<std::string, std::string> out;
    auto view = store.OpenSnapshot(snapshot).value();
    std::vector<DirEntry> dirs = view->List("/").value();
    for (const DirEntry& dir : dirs) {
      std::vector<DirEntry> files = view->List("/" + dir.name).value();
      for (const DirEntry& file : files) {
        std::string path = "/" + dir.name + "/" + file.name;
        out[path] = *view->ReadAll(path);
      }
    }
    return out;
  }

  std::unique_ptr<Store> target_;
};

TEST_F(ObjectTransferTest, AWholeHistoryArrivesWithTheSameIds) {
  CommitInfo first = Fill(120, "first");
  ASSERT_TRUE(Put("d0/f0", "changed").ok());
  CommitInfo second = *Snap("second");

  Objects objects = Select(store(), {second.id}, {});
  ASSERT_TRUE(Import(*target_, objects, {{"first", first.id}, {"second", second.id}}).ok());
  EXPECT_EQ(target_->ResolveSnapshot("second")->id, second.id);
  EXPECT_EQ(target_->ResolveSnapshot("first")->id, first.id);
  EXPECT_EQ(Files(*target_, "second"), Files(store(), "second"));
  EXPECT_EQ(Files(*target_, "first"), Files(store(), "first"));
  EXPECT_EQ(target_->Diff("first", "second")->size(), 1u);
  EXPECT_TRUE(test::FsckClean(*target_));

  // Every object once, and the same again adds nothing.
  std::set<ObjectId> distinct;
  for (const auto& [id, stored] : objects) EXPECT_TRUE(distinct.insert(id).second) << id.ToHex();
  auto again = ObjectImport::Begin(*target_).value();
  for (const auto& [id, stored] : objects) ASSERT_TRUE(again->Add(id, stored).ok());
  ASSERT_TRUE(again->Commit({{"second", second.id}}).ok());
  EXPECT_EQ(again->objects_added(), 0u);
}

TEST_F(ObjectTransferTest, AnIncrementalStepCostsWhatChangedWhateverTheSize) {
  // The same change (one file rewritten) on stores of 100 and 2,000 files: the
  // step selects the same number of objects. The 2,000-file store is this
  // test's own; the 100-file one a second source.
  auto small = Store::Create(dir_.Sub("small")).value();
  auto small_tree = small->Tree().value();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(test::PutFile(small_tree.get(), "d" + std::to_string(i / 50) + "/f" + std::to_string(i), "x" + std::to_string(i)).ok());
  }
  CommitInfo small_base = *small->CreateSnapshot("base", "", {});
  ASSERT_TRUE(test::PutFile(small_tree.get(), "d1/f70", "changed").ok());
  CommitInfo small_next = *small->CreateSnapshot("next", "", {});

  CommitInfo base = Fill(2000, "base");
  ASSERT_TRUE(Import(*target_, Select(store(), {base.id}, {}), {{"base", base.id}}).ok());
  ASSERT_TRUE(Put("d30/f1510", "changed").ok());
  CommitInfo next = *Snap("next");

  Objects step = Select(store(), {next.id}, {base.id});
  Objects small_step = Select(*small, {small_next.id}, {small_base.id});
  // The commit, the root tree, the changed directory, the file's manifest and
  // its chunk: the same five at either size.
  EXPECT_EQ(step.size(), small_step.size());
  EXPECT_LE(step.size(), 6u);
  ASSERT_TRUE(Import(*target_, step, {{"next", next.id}}).ok());
  EXPECT_EQ(Files(*target_, "next"), Files(store(), "next"));
  EXPECT_TRUE(test::FsckClean(*target_));
}

TEST_F(ObjectTransferTest, AStepWhoseBaseIsMissingIsRefusedAndChangesNothing) {
  CommitInfo base = Fill(60, "base");
  ASSERT_TRUE(Put("d0/f1", "changed").ok());
  CommitInfo next = *Snap("next");
  Status st = Import(*target_, Select(store(), {next.id}, {base.id}), {{"next", next.id}});
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("base"), std::string::npos) << st.ToString();
  EXPECT_TRUE(target_->ResolveSnapshot("next").status().IsNotFound());
  EXPECT_EQ(target_->Stats()->objects, 0u);
}

TEST_F(ObjectTransferTest, DamagedOrSubstitutedObjectsAreRefusedAndChangeNothing) {
  CommitInfo snap = Fill(60, "snap");
  Objects objects = Select(store(), {snap.id}, {});
  ASSERT_GT(objects.size(), 3u);
  for (size_t victim : {size_t{0}, objects.size() / 2, objects.size() - 1}) {
    Objects damaged = objects;
    damaged[victim].second.back() ^= 0x01;
    Status st = Import(*target_, damaged, {{"snap", snap.id}});
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find(damaged[victim].first.ToHex()), std::string::npos) << st.ToString();

    Objects substituted = objects;
    substituted[victim].second = objects[(victim + 1) % objects.size()].second;
    st = Import(*target_, substituted, {{"snap", snap.id}});
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  }
  EXPECT_EQ(target_->Stats()->objects, 0u);
  EXPECT_TRUE(target_->ListSnapshots()->empty());
}

TEST_F(ObjectTransferTest, ANameThatIsTakenIsRefusedAndChangesNothing) {
  auto other_tree = target_->Tree().value();
  ASSERT_TRUE(test::PutFile(other_tree.get(), "mine", "the target's own").ok());
  CommitInfo theirs = *target_->CreateSnapshot("snap", "", {});
  uint64_t objects_before = target_->Stats()->objects;

  CommitInfo snap = Fill(30, "snap");
  Status st = Import(*target_, Select(store(), {snap.id}, {}), {{"snap", snap.id}});
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_EQ(target_->ResolveSnapshot("snap")->id, theirs.id);
  EXPECT_EQ(target_->Stats()->objects, objects_before);
  // Under another name it goes in.
  EXPECT_TRUE(Import(*target_, Select(store(), {snap.id}, {}), {{"imported", snap.id}}).ok());
}

TEST_F(ObjectTransferTest, AWantThatIsNotACommitIsNotFound) {
  Fill(5, "snap");
  Status st = SelectObjects(store(), {ObjectId()}, {}, [](const ObjectId&, std::string_view) { return Status::Ok(); });
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
}

}  // namespace
}  // namespace vexfs
