// Path operations every front end shares (src/front_end_shared/tree_ops.cc):
// mkdir -p, rm -r, mv into a directory, and their refusals.
#include "vexfs/tree_ops.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace vexfs {
namespace {

class TreeOpsTest : public test::StoreTest {
 protected:
  Status Do(const std::function<Status(TreeEditor&)>& fn) { return Edit(fn); }
  TreeEditor::NewNode Dir() { return CallerOwnedNode(0755); }
};

TEST_F(TreeOpsTest, MakeDirectoryWithParentsIsIdempotent) {
  EXPECT_CODE(Do([&](TreeEditor& ed) { return MakeDirectory(ed, "a/b/c", false, Dir()); }),
              StatusCode::kNotFound);
  ASSERT_OK(Do([&](TreeEditor& ed) { return MakeDirectory(ed, "a/b/c", true, Dir()); }));
  ASSERT_OK(Do([&](TreeEditor& ed) { return MakeDirectory(ed, "a/b/c", true, Dir()); }));
  EXPECT_CODE(Do([&](TreeEditor& ed) { return MakeDirectory(ed, "a/b/c", false, Dir()); }),
              StatusCode::kAlreadyExists);
  EXPECT_NE(Ino("a/b/c"), 0u);
}

TEST_F(TreeOpsTest, RemoveNeedsRecursiveForADirectory) {
  ASSERT_OK(Put("d/x.txt", "x"));
  EXPECT_CODE(Do([&](TreeEditor& ed) { return RemovePath(ed, "d", false); }),
              StatusCode::kIsDirectory);
  EXPECT_CODE(Do([&](TreeEditor& ed) { return RemoveEmptyDirectory(ed, "d"); }),
              StatusCode::kNotEmpty);
  ASSERT_OK(Do([&](TreeEditor& ed) { return RemovePath(ed, "d", true); }));
  EXPECT_EQ(Content("d/x.txt").substr(0, 1), "<");  // gone: a status, not content
}

TEST_F(TreeOpsTest, MoveRenamesOrMovesIntoADirectory) {
  ASSERT_OK(Put("a/x.md", "x"));
  ASSERT_OK(Put("y.md", "y"));
  ASSERT_OK(Do([&](TreeEditor& ed) { return MakeDirectory(ed, "d", false, Dir()); }));
  std::string moved_to;
  ASSERT_OK(Do([&](TreeEditor& ed) { return MovePath(ed, "a/x.md", "d", false, &moved_to); }));
  EXPECT_EQ(moved_to, "d/x.md");
  EXPECT_EQ(Content("d/x.md"), "x");
  EXPECT_CODE(Do([&](TreeEditor& ed) { return MovePath(ed, "y.md", "d/x.md", false); }),
              StatusCode::kAlreadyExists);
  EXPECT_EQ(Content("d/x.md"), "x");  // nothing replaced without asking
  ASSERT_OK(Do([&](TreeEditor& ed) { return MovePath(ed, "y.md", "d/x.md", true); }));
  EXPECT_EQ(Content("d/x.md"), "y");
}

}  // namespace
}  // namespace vexfs
