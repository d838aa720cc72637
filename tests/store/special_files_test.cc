// Tests for special files (FIFOs, sockets, character and block devices) in the
// store: they are inodes with a mode, an owner, xattrs and (devices) a device
// number, hold no content, and are carried by snapshots, diff, restore and fsck.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;

constexpr uint64_t kTtyDevice = (uint64_t{136} << 8) | 3;
constexpr uint64_t kDiskDevice = (uint64_t{259} << 32) | 7;  // wider than 32 bits

class SpecialFilesTest : public StoreTest {
 protected:
  // fifo, sock, tty (char device) and disk (block device) under "dev/".
  void MakeNodes() {
    ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(Attributes dir, ed.Mkdir(kRootIno, "dev", {0755, 0, 0}));
      VEXFS_RETURN_IF_ERROR(
          ed.MakeSpecialFile(dir.ino, "fifo", FileType::kFifo, 99, {0640, 7, 8}).status());
      VEXFS_RETURN_IF_ERROR(
          ed.MakeSpecialFile(dir.ino, "sock", FileType::kSocket, 0, {0755, 7, 8}).status());
      VEXFS_RETURN_IF_ERROR(
          ed.MakeSpecialFile(dir.ino, "tty", FileType::kCharDevice, kTtyDevice, {0620, 0, 5})
              .status());
      return ed.MakeSpecialFile(dir.ino, "disk", FileType::kBlockDevice, kDiskDevice,
                                {0660, 0, 6})
          .status();
    }));
  }

  Attributes StatOf(TreeView& view, std::string_view path) {
    auto attr = view.Stat(path);
    EXPECT_TRUE(attr.ok()) << path << ": " << attr.status().ToString();
    return attr.ok() ? *attr : Attributes{};
  }

  // Types, modes, owners and device numbers as MakeNodes made them.
  void ExpectNodes(TreeView& view) {
    Attributes fifo = StatOf(view, "dev/fifo");
    EXPECT_EQ(fifo.type, FileType::kFifo);
    EXPECT_EQ(fifo.mode, 0640u);
    EXPECT_EQ(fifo.uid, 7u);
    EXPECT_EQ(fifo.gid, 8u);
    EXPECT_EQ(fifo.size, 0u);
    EXPECT_EQ(fifo.rdev, 0u);  // only devices keep a number
    EXPECT_EQ(StatOf(view, "dev/sock").type, FileType::kSocket);
    Attributes tty = StatOf(view, "dev/tty");
    EXPECT_EQ(tty.type, FileType::kCharDevice);
    EXPECT_EQ(tty.rdev, kTtyDevice);
    EXPECT_EQ(tty.mode, 0620u);
    Attributes disk = StatOf(view, "dev/disk");
    EXPECT_EQ(disk.type, FileType::kBlockDevice);
    EXPECT_EQ(disk.rdev, kDiskDevice);
    EXPECT_EQ(disk.gid, 6u);
  }
};

TEST_F(SpecialFilesTest, NodesKeepTypeModeOwnerAndDeviceAcrossReopen) {
  MakeNodes();
  ExpectNodes(tree());
  ASSIGN_OR_FAIL(auto listing, tree().List("dev"));
  ASSERT_EQ(listing.size(), 4u);
  EXPECT_EQ(listing[0].name, "disk");
  EXPECT_EQ(listing[0].attr.type, FileType::kBlockDevice);
  EXPECT_EQ(listing[0].attr.rdev, kDiskDevice);
  Reopen();
  ExpectNodes(tree());
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(SpecialFilesTest, NodesHaveNoContent) {
  MakeNodes();
  uint64_t fifo = Ino("dev/fifo");
  EXPECT_CODE(tree().Read("dev/fifo", 0, 10), StatusCode::kInvalidArgument);
  EXPECT_CODE(Edit([&](TreeEditor& ed) { return ed.Write(fifo, 0, "data"); }),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(Edit([&](TreeEditor& ed) { return ed.Truncate(fifo, 10); }),
              StatusCode::kInvalidArgument);
  EXPECT_EQ(StatOf(tree(), "dev/fifo").size, 0u);
}

TEST_F(SpecialFilesTest, MakeSpecialFileRefusesOtherTypesAndTakenNames) {
  MakeNodes();
  uint64_t dev = Ino("dev");
  for (FileType type : {FileType::kRegular, FileType::kDirectory, FileType::kSymlink}) {
    EXPECT_CODE(Edit([&](TreeEditor& ed) {
                  return ed.MakeSpecialFile(dev, "x", type, 0, {}).status();
                }),
                StatusCode::kInvalidArgument);
  }
  EXPECT_CODE(Edit([&](TreeEditor& ed) {
                return ed.MakeSpecialFile(dev, "fifo", FileType::kFifo, 0, {}).status();
              }),
              StatusCode::kAlreadyExists);
  EXPECT_FALSE(tree().Stat("dev/x").ok());
}

TEST_F(SpecialFilesTest, HardLinksRenamesAndXattrsWorkOnNodes) {
  MakeNodes();
  uint64_t fifo = Ino("dev/fifo"), root = kRootIno, dev = Ino("dev");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Link(fifo, root, "fifo-link").status());
    VEXFS_RETURN_IF_ERROR(ed.Rename(dev, "tty", root, "console"));
    return ed.SetXattr(fifo, "trusted.note", "kept");
  }));
  EXPECT_EQ(StatOf(tree(), "fifo-link").nlink, 2u);
  EXPECT_EQ(StatOf(tree(), "console").rdev, kTtyDevice);
  ASSIGN_OR_FAIL(XattrMap xattrs, tree().Xattrs("fifo-link"));
  EXPECT_EQ(xattrs, (XattrMap{{"trusted.note", "kept"}}));
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(SpecialFilesTest, SnapshotsCarryNodesAndTheirXattrs) {
  MakeNodes();
  uint64_t fifo = Ino("dev/fifo");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.SetXattr(fifo, "trusted.a", "1"); }));
  ASSERT_OK(Snap("s1"));
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot("s1"));
  ExpectNodes(*view);
  ASSIGN_OR_FAIL(XattrMap xattrs, view->Xattrs("dev/fifo"));
  EXPECT_EQ(xattrs, (XattrMap{{"trusted.a", "1"}}));
  EXPECT_CODE(view->Read("dev/tty", 0, 1), StatusCode::kInvalidArgument);
  // Nothing changed since s1: the diff of the working tree against it is empty.
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_TRUE(diff.empty());
}

TEST_F(SpecialFilesTest, DiffSeesNewDeviceNumbersModesAndTypes) {
  MakeNodes();
  ASSERT_OK(Snap("s1"));
  uint64_t dev = Ino("dev"), sock = Ino("dev/sock");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(dev, "tty"));
    VEXFS_RETURN_IF_ERROR(
        ed.MakeSpecialFile(dev, "tty", FileType::kCharDevice, kTtyDevice + 1, {0620, 0, 5})
            .status());
    TreeEditor::AttrChange change;
    change.mode = 0700;
    VEXFS_RETURN_IF_ERROR(ed.SetAttr(sock, change).status());
    VEXFS_RETURN_IF_ERROR(ed.Unlink(dev, "disk"));
    VEXFS_RETURN_IF_ERROR(
        ed.MakeSpecialFile(dev, "disk", FileType::kFifo, 0, {0660, 0, 6}).status());
    return ed.Unlink(dev, "fifo");
  }));
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  ASSERT_EQ(diff.size(), 4u);
  EXPECT_EQ(diff[0].path, "dev/disk");
  EXPECT_EQ(diff[0].kind, DiffEntry::Kind::kTypeChanged);
  EXPECT_EQ(diff[1].path, "dev/fifo");
  EXPECT_EQ(diff[1].kind, DiffEntry::Kind::kRemoved);
  EXPECT_EQ(diff[2].path, "dev/sock");
  EXPECT_EQ(diff[2].kind, DiffEntry::Kind::kModified);
  EXPECT_EQ(diff[3].path, "dev/tty");
  EXPECT_EQ(diff[3].kind, DiffEntry::Kind::kModified);
}

TEST_F(SpecialFilesTest, RestoreBringsNodesBackExactly) {
  MakeNodes();
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.SetXattr(Ino("dev/sock"), "trusted.s", "2"); }));
  ASSERT_OK(Snap("s1"));
  uint64_t dev = Ino("dev");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    for (const char* name : {"fifo", "sock", "tty", "disk"}) {
      VEXFS_RETURN_IF_ERROR(ed.Unlink(dev, name));
    }
    return Status::Ok();
  }));
  ASSERT_OK(store().Restore("s1"));
  ExpectNodes(tree());
  ASSIGN_OR_FAIL(XattrMap xattrs, tree().Xattrs("dev/sock"));
  EXPECT_EQ(xattrs, (XattrMap{{"trusted.s", "2"}}));
  ASSIGN_OR_FAIL(auto diff, store().Diff("s1", kWorkingName));
  EXPECT_TRUE(diff.empty());
  // A branch made from the snapshot has them too.
  ASSERT_OK(store().CreateBranch("copy", "s1"));
  ASSIGN_OR_FAIL(auto copy, store().Tree("copy"));
  ExpectNodes(*copy);
  EXPECT_TRUE(test::FsckClean(store()));
}

}  // namespace
}  // namespace vexfs
