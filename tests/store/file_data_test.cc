// Tests for file contents in the working tree: writes at any offset, holes,
// chunk boundaries, truncation both ways, ReplaceContent, size limits, the
// canonical form (equal bytes give equal manifests however they were written), and
// deduplication of equal content.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;

constexpr uint64_t kChunk = 64 * 1024;  // the store's chunk size

class FileDataTest : public StoreTest {
 protected:
  // Creates an empty file at `path` and returns its inode.
  uint64_t NewFile(std::string_view path) {
    EXPECT_OK(Put(path, ""));
    return Ino(path);
  }
  Status Write(uint64_t ino, uint64_t offset, std::string_view data) {
    return Edit([&](TreeEditor& ed) { return ed.Write(ino, offset, data); });
  }
  Status Truncate(uint64_t ino, uint64_t size) {
    return Edit([&](TreeEditor& ed) { return ed.Truncate(ino, size); });
  }
};

// Applies a write to an in-memory model of a file.
void ModelWrite(std::string* model, uint64_t offset, std::string_view data) {
  if (model->size() < offset + data.size()) model->resize(offset + data.size(), '\0');
  model->replace(offset, data.size(), data);
}

TEST_F(FileDataTest, SparseWriteReadsBackZeros) {
  uint64_t f = NewFile("sparse");
  ASSERT_OK(Write(f, 1000000, "tail"));
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("sparse"));
  EXPECT_EQ(a.size, 1000004u);
  ASSIGN_OR_FAIL(std::string head, tree().Read("sparse", 0, 1000000));
  EXPECT_EQ(head, std::string(1000000, '\0'));
  ASSIGN_OR_FAIL(std::string tail, tree().Read("sparse", 999998, 100));
  EXPECT_EQ(tail, std::string("\0\0tail", 6));
  // A snapshot reads the same bytes in place.
  ASSERT_OK(Snap("s"));
  ASSIGN_OR_FAIL(auto snap, store().OpenSnapshot("s"));
  ASSIGN_OR_FAIL(std::string whole, snap->ReadAll("sparse"));
  EXPECT_EQ(whole, std::string(1000000, '\0') + "tail");
}

TEST_F(FileDataTest, WritesCrossingChunkBoundaries) {
  uint64_t f = NewFile("f");
  std::string model;
  test::Random rng(11);
  // Writes that start just before, at, and just after chunk edges and span several.
  const std::vector<std::pair<uint64_t, uint64_t>> writes = {
      {0, 100},
      {kChunk - 10, 20},
      {2 * kChunk - 1, 2},
      {kChunk, kChunk},
      {3 * kChunk + 5, 2 * kChunk + 17},
      {10, 4 * kChunk},
      {5 * kChunk, 1},
      {kChunk / 2, kChunk},
  };
  for (const auto& [offset, length] : writes) {
    std::string data = rng.Bytes(length);
    ASSERT_OK(Write(f, offset, data));
    ModelWrite(&model, offset, data);
    ASSERT_EQ(Content("f"), model) << "after write at " << offset << " of " << length;
  }
  // Ranged reads at odd places agree with the model.
  for (int i = 0; i < 50; ++i) {
    uint64_t offset = rng.Uniform(0, model.size() + 10);
    uint64_t length = rng.Uniform(0, 3 * kChunk);
    ASSIGN_OR_FAIL(std::string got, tree().Read("f", offset, length));
    std::string want = offset < model.size() ? model.substr(offset, length) : "";
    EXPECT_EQ(got, want) << offset << "+" << length;
  }
}

TEST_F(FileDataTest, RandomWritesMatchModelInTreeAndSnapshot) {
  uint64_t f = NewFile("f");
  std::string model;
  test::Random rng(12);
  for (int i = 0; i < 60; ++i) {
    uint64_t offset = rng.Uniform(0, 6 * kChunk);
    std::string data = rng.Chance(0.3) ? std::string(rng.Uniform(1, 2 * kChunk), '\0')
                                       : rng.Bytes(rng.Uniform(1, 2 * kChunk));
    ASSERT_OK(Write(f, offset, data));
    ModelWrite(&model, offset, data);
    if (i % 7 == 0) {
      uint64_t size = rng.Uniform(0, 7 * kChunk);
      ASSERT_OK(Truncate(f, size));
      model.resize(size, '\0');
    }
  }
  EXPECT_EQ(Content("f"), model);
  ASSERT_OK(Snap("s"));
  ASSIGN_OR_FAIL(auto snap, store().OpenSnapshot("s"));
  ASSIGN_OR_FAIL(std::string from_snapshot, snap->ReadAll("f"));
  EXPECT_EQ(from_snapshot, model);
}

TEST_F(FileDataTest, ExtendPastPartialLastChunk) {
  uint64_t f = NewFile("f");
  ASSERT_OK(Write(f, 0, std::string(100, 'a')));
  ASSERT_OK(Write(f, 70000, "b"));
  std::string want = std::string(100, 'a') + std::string(70000 - 100, '\0') + "b";
  EXPECT_EQ(Content("f"), want);
  // Appending inside the same partial chunk.
  ASSERT_OK(Write(f, 70001, "cc"));
  EXPECT_EQ(Content("f"), want + "cc");
}

TEST_F(FileDataTest, TruncateDownThenUpGivesZerosNotOldBytes) {
  uint64_t f = NewFile("f");
  std::string data = test::RandomBytes(3, 200000);
  ASSERT_OK(Write(f, 0, data));
  ASSERT_OK(Truncate(f, 70000));
  EXPECT_EQ(Content("f"), data.substr(0, 70000));
  ASSERT_OK(Truncate(f, 150000));
  EXPECT_EQ(Content("f"), data.substr(0, 70000) + std::string(80000, '\0'));
  ASSERT_OK(Truncate(f, 0));
  EXPECT_EQ(Content("f"), "");
  ASSERT_OK(Truncate(f, 3 * kChunk + 1));
  EXPECT_EQ(Content("f"), std::string(3 * kChunk + 1, '\0'));
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("f"));
  EXPECT_EQ(a.size, 3 * kChunk + 1);
}

TEST_F(FileDataTest, TruncateToChunkMultipleAndSameSize) {
  uint64_t f = NewFile("f");
  std::string data = test::RandomBytes(4, 3 * kChunk + 500);
  ASSERT_OK(Write(f, 0, data));
  ASSERT_OK(Truncate(f, data.size()));
  EXPECT_EQ(Content("f"), data);
  ASSERT_OK(Truncate(f, 2 * kChunk));
  EXPECT_EQ(Content("f"), data.substr(0, 2 * kChunk));
  ASSERT_OK(Write(f, 2 * kChunk + 10, "x"));
  EXPECT_EQ(Content("f"), data.substr(0, 2 * kChunk) + std::string(10, '\0') + "x");
}

TEST_F(FileDataTest, ReadRanges) {
  ASSERT_OK(Put("f", "0123456789"));
  auto read = [&](uint64_t off, uint64_t len) {
    auto r = tree().Read("f", off, len);
    return r.ok() ? *r : "<" + r.status().ToString() + ">";
  };
  EXPECT_EQ(read(0, 10), "0123456789");
  EXPECT_EQ(read(3, 4), "3456");
  EXPECT_EQ(read(8, 100), "89");
  EXPECT_EQ(read(10, 5), "");
  EXPECT_EQ(read(1000, 5), "");
  EXPECT_EQ(read(2, 0), "");
  EXPECT_EQ(read(0, UINT64_MAX), "0123456789");
  EXPECT_EQ(read(5, UINT64_MAX), "56789");
}

TEST_F(FileDataTest, ReplaceContentShrinksAndGrows) {
  uint64_t f = NewFile("f");
  std::string big = test::RandomBytes(5, 5 * kChunk + 3);
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReplaceContent(f, big); }));
  EXPECT_EQ(Content("f"), big);
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReplaceContent(f, "small"); }));
  EXPECT_EQ(Content("f"), "small");
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("f"));
  EXPECT_EQ(a.size, 5u);
  // Nothing of the old content is left past the new end.
  ASSERT_OK(Truncate(f, 2 * kChunk));
  EXPECT_EQ(Content("f"), "small" + std::string(2 * kChunk - 5, '\0'));
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReplaceContent(f, ""); }));
  EXPECT_EQ(Content("f"), "");
}

TEST_F(FileDataTest, EmptyWriteChangesNothing) {
  uint64_t f = NewFile("f");
  ASSERT_OK(Write(f, 5000, ""));
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("f"));
  EXPECT_EQ(a.size, 0u);
}

TEST_F(FileDataTest, SizeLimits) {
  uint64_t f = NewFile("f");
  EXPECT_CODE(Write(f, kMaxFileSize, "x"), StatusCode::kFileTooLarge);
  EXPECT_CODE(Write(f, UINT64_MAX - 1, "xyz"), StatusCode::kFileTooLarge);
  EXPECT_CODE(Truncate(f, kMaxFileSize + 1), StatusCode::kFileTooLarge);
  ASSERT_OK(Write(f, kMaxFileSize - 1, "x"));  // the last byte allowed
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("f"));
  EXPECT_EQ(a.size, kMaxFileSize);
  ASSIGN_OR_FAIL(std::string last, tree().Read("f", kMaxFileSize - 3, 10));
  EXPECT_EQ(last, std::string("\0\0x", 3));
}

TEST_F(FileDataTest, SymlinkHasNoFileData) {
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Symlink(kRootIno, "l", "t", {}).status(); }));
  uint64_t l = Ino("l");
  EXPECT_CODE(Write(l, 0, "x"), StatusCode::kInvalidArgument);
  EXPECT_CODE(Truncate(l, 0), StatusCode::kInvalidArgument);
}

TEST_F(FileDataTest, WriteUpdatesMtime) {
  uint64_t f = NewFile("f");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    TreeEditor::AttrChange change;
    change.mtime = 1;
    return ed.SetAttr(f, change).status();
  }));
  ASSERT_OK(Write(f, 0, "x"));
  ASSIGN_OR_FAIL(Attributes a, tree().Stat("f"));
  EXPECT_GT(a.mtime, 1);
}

// Content with data, interior zeros spanning whole chunks, and a zero tail, so
// every way of writing it exercises holes and partial chunks.
std::string CanonicalTestContent() {
  test::Random rng(21);
  return rng.Bytes(150000) + std::string(3 * kChunk, '\0') + rng.Bytes(30001) +
         std::string(kChunk + 77, '\0');
}

// The regions of `content` that are not zero, as (offset, bytes). Zero gaps
// shorter than 64 bytes stay inside a run so the runs stay few.
std::vector<std::pair<uint64_t, std::string>> NonZeroRuns(const std::string& content) {
  std::vector<std::pair<uint64_t, std::string>> runs;
  size_t pos = 0;
  while (true) {
    size_t start = content.find_first_not_of('\0', pos);
    if (start == std::string::npos) break;
    size_t end = start;
    while (true) {
      size_t zero = content.find('\0', end);
      if (zero == std::string::npos) {
        end = content.size();
        break;
      }
      size_t next = content.find_first_not_of('\0', zero);
      if (next == std::string::npos || next - zero >= 64) {
        end = zero;
        break;
      }
      end = next;
    }
    runs.emplace_back(start, content.substr(start, end - start));
    pos = end;
  }
  return runs;
}

using WriteMethod = std::function<Status(TreeEditor&, uint64_t, const std::string&)>;

std::vector<std::pair<std::string, WriteMethod>> WriteMethods() {
  return {
      {"one write", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         return ed.Write(ino, 0, c);
       }},
      {"replace content", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         return ed.ReplaceContent(ino, c);
       }},
      {"many small writes", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         for (size_t pos = 0; pos < c.size(); pos += 4093) {
           VEXFS_RETURN_IF_ERROR(ed.Write(ino, pos, std::string_view(c).substr(pos, 4093)));
         }
         return Status::Ok();
       }},
      {"sparse writes backwards then fill zeros", [](TreeEditor& ed, uint64_t ino,
                                                    const std::string& c) {
         auto runs = NonZeroRuns(c);
         for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
           VEXFS_RETURN_IF_ERROR(ed.Write(ino, it->first, it->second));
         }
         // Explicit zeros over a hole, then the zero tail, written as data.
         VEXFS_RETURN_IF_ERROR(ed.Write(ino, 150000, std::string(kChunk, '\0')));
         size_t tail = c.find_last_not_of('\0') + 1;
         return ed.Write(ino, tail, std::string(c.size() - tail, '\0'));
       }},
      {"truncate then fill", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         VEXFS_RETURN_IF_ERROR(ed.Truncate(ino, c.size()));
         for (const auto& [offset, bytes] : NonZeroRuns(c)) {
           VEXFS_RETURN_IF_ERROR(ed.Write(ino, offset, bytes));
         }
         return Status::Ok();
       }},
      {"data then truncate-extend", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         size_t tail = c.find_last_not_of('\0') + 1;
         VEXFS_RETURN_IF_ERROR(ed.Write(ino, 0, std::string_view(c).substr(0, tail)));
         return ed.Truncate(ino, c.size());
       }},
      {"garbage punched out", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         // Every zero byte starts as garbage and is zeroed by ZeroRange.
         std::string dirty = c;
         for (char& ch : dirty) ch = ch == '\0' ? 'z' : ch;
         VEXFS_RETURN_IF_ERROR(ed.Write(ino, 0, dirty));
         for (size_t pos = 0; (pos = c.find('\0', pos)) != std::string::npos;) {
           size_t end = std::min(c.find_first_not_of('\0', pos), c.size());
           VEXFS_RETURN_IF_ERROR(ed.ZeroRange(ino, pos, end - pos));
           pos = end;
         }
         return Status::Ok();
       }},
      {"copied from another file", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         // Chunk-aligned, so the chunks are shared by reference.
         VEXFS_ASSIGN_OR_RETURN(Attributes src, ed.CreateFile(kRootIno, "copy-source", {}));
         VEXFS_RETURN_IF_ERROR(ed.Write(src.ino, 0, c));
         VEXFS_ASSIGN_OR_RETURN(uint64_t n, ed.CopyRange(src.ino, 0, ino, 0, c.size()));
         if (n != c.size()) return Status::IOError("short aligned copy");
         return ed.Unlink(kRootIno, "copy-source");
       }},
      {"copied in unaligned pieces", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         VEXFS_ASSIGN_OR_RETURN(Attributes src, ed.CreateFile(kRootIno, "copy-source", {}));
         VEXFS_RETURN_IF_ERROR(ed.Write(src.ino, 0, c));
         for (uint64_t pos = 0; pos < c.size();) {
           VEXFS_ASSIGN_OR_RETURN(uint64_t n, ed.CopyRange(src.ino, pos, ino, pos, 10007));
           if (n == 0) return Status::IOError("copy stopped early");
           pos += n;
         }
         return ed.Unlink(kRootIno, "copy-source");
       }},
      {"garbage overwritten", [](TreeEditor& ed, uint64_t ino, const std::string& c) {
         VEXFS_RETURN_IF_ERROR(ed.Write(ino, 0, std::string(c.size() + 99999, 'g')));
         VEXFS_RETURN_IF_ERROR(ed.Truncate(ino, c.size()));
         return ed.Write(ino, 0, c);
       }},
  };
}

// Rewriting a file with the same bytes in any way leaves the next snapshot
// reporting no change.
TEST_F(FileDataTest, SameBytesAnyWayGiveNoDiff) {
  const std::string content = CanonicalTestContent();
  uint64_t f = NewFile("f");
  ASSERT_OK(Write(f, 0, content));
  ASSERT_OK(Snap("base"));
  int n = 0;
  for (const auto& [name, method] : WriteMethods()) {
    SCOPED_TRACE(name);
    ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
      // Dirty the file first, then start each method from an empty file.
      VEXFS_RETURN_IF_ERROR(ed.ReplaceContent(f, "something else"));
      VEXFS_RETURN_IF_ERROR(ed.Truncate(f, 0));
      return method(ed, f, content);
    }));
    ASSERT_EQ(Content("f"), content);
    ASSIGN_OR_FAIL(auto working_diff, store().Diff("base", kWorkingName));
    EXPECT_TRUE(working_diff.empty()) << DiffKindName(working_diff[0].kind);
    std::string snap = "s" + std::to_string(n++);
    ASSERT_OK(Snap(snap));
    ASSIGN_OR_FAIL(auto diff, store().Diff("base", snap));
    EXPECT_TRUE(diff.empty()) << DiffKindName(diff[0].kind) << " " << diff[0].path;
  }
}

// A new file written any way with the same bytes as a deleted one is seen as a
// rename: the two manifests are identical.
TEST_F(FileDataTest, SameBytesAnyWayGiveIdenticalManifests) {
  const std::string content = CanonicalTestContent();
  ASSERT_OK(Put("orig", content));
  ASSERT_OK(Snap("base"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "orig"); }));
  for (const auto& [name, method] : WriteMethods()) {
    SCOPED_TRACE(name);
    ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(Attributes a, ed.CreateFile(kRootIno, "copy", {}));
      return method(ed, a.ino, content);
    }));
    ASSIGN_OR_FAIL(auto diff, store().Diff("base", kWorkingName));
    ASSERT_EQ(diff.size(), 1u);
    EXPECT_EQ(diff[0].kind, DiffEntry::Kind::kRenamed) << DiffKindName(diff[0].kind);
    EXPECT_EQ(diff[0].path, "copy");
    EXPECT_EQ(diff[0].old_path, "orig");
    ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "copy"); }));
  }
}

TEST_F(FileDataTest, EqualContentIsStoredOnce) {
  const std::string content = test::RandomBytes(8, 10 * 1024 * 1024);
  ASSIGN_OR_FAIL(StoreStats empty, store().Stats());
  ASSERT_OK(Put("first", content));
  ASSIGN_OR_FAIL(StoreStats one, store().Stats());
  ASSERT_OK(Put("dir/second", content));
  ASSERT_OK(Snap("s"));
  ASSIGN_OR_FAIL(StoreStats two, store().Stats());
  // Random bytes do not compress: the first copy costs about its size.
  EXPECT_GE(one.object_bytes - empty.object_bytes, content.size());
  // The second copy adds only trees, one manifest and a commit.
  EXPECT_LT(two.object_bytes - one.object_bytes, 64u * 1024);
  EXPECT_EQ(Content("dir/second"), content);
}

TEST_F(FileDataTest, ReadViewsGiveReadsBytesWithoutCopies) {
  // Chunk 0 raw (random), chunk 1 compressed (text), chunk 2 a hole, chunk 3 a
  // short raw tail.
  std::string content = test::RandomBytes(21, kChunk);
  std::string text;
  while (text.size() < kChunk) text += "the quick brown fox jumps over the lazy dog. ";
  content += text.substr(0, kChunk);
  content += std::string(kChunk, '\0');
  content += test::RandomBytes(22, 1000);
  ASSERT_OK(Put("f", content));
  uint64_t f = Ino("f");
  const std::vector<std::pair<uint64_t, uint64_t>> ranges = {
      {0, content.size()}, {100, 10}, {kChunk - 3, 6}, {kChunk + 5, 2 * kChunk},
      {2 * kChunk + 7, kChunk + 500}, {3 * kChunk + 999, 10}, {content.size(), 4}, {0, 0}};
  for (const auto& [offset, length] : ranges) {
    TreeEditor::ByteViews views;
    std::string joined;
    ASSERT_OK(tree().View([&](TreeEditor& ed) -> Status {
      VEXFS_RETURN_IF_ERROR(ed.ReadViews(f, offset, length, &views));
      for (std::string_view v : views.views) joined.append(v);  // inside the transaction
      return Status::Ok();
    }));
    uint64_t want = offset >= content.size() ? 0 : std::min(length, content.size() - offset);
    EXPECT_EQ(joined, content.substr(std::min<uint64_t>(offset, content.size()), want))
        << "at " << offset << " for " << length;
    EXPECT_EQ(views.size, want);
  }
  // Only the compressed chunk needed memory of its own.
  TreeEditor::ByteViews all;
  ASSERT_OK(tree().View([&](TreeEditor& ed) { return ed.ReadViews(f, 0, content.size(), &all); }));
  EXPECT_EQ(all.owned.size(), 1u);
  EXPECT_EQ(all.views.size(), 4u);
}

TEST_F(FileDataTest, LargeWriteWithRepeatsAndHolesMatchesModel) {
  // One write of many whole chunks is hashed and compressed on several threads:
  // the result must be the same as chunk by chunk, holes and dedup included.
  uint64_t f = NewFile("f");
  const std::string repeated = test::RandomBytes(31, kChunk);
  std::string data;
  for (int i = 0; i < 24; ++i) {
    if (i % 5 == 0) {
      data += std::string(kChunk, '\0');
    } else if (i % 3 == 0) {
      data += repeated;
    } else {
      data += test::RandomBytes(100 + i, kChunk);
    }
  }
  data += "tail";
  ASSIGN_OR_FAIL(StoreStats before, store().Stats());
  ASSERT_OK(Write(f, 0, data));
  ASSIGN_OR_FAIL(StoreStats after, store().Stats());
  EXPECT_EQ(Content("f"), data);
  // 24 chunks: 5 holes, 1 distinct repeated chunk, 13 others; plus the tail.
  EXPECT_EQ(after.objects - before.objects, 1u + 13u + 1u);
  // The same bytes written a piece at a time (chunk by chunk, one thread) give
  // the same manifest: a snapshot of the one-write file diffs as unchanged.
  ASSERT_OK(Snap("one-write"));
  ASSERT_OK(Truncate(f, 0));
  for (uint64_t at = 0; at < data.size(); at += 3 * kChunk / 2) {
    ASSERT_OK(Write(f, at, std::string_view(data).substr(at, 3 * kChunk / 2)));
  }
  EXPECT_EQ(Content("f"), data);
  ASSIGN_OR_FAIL(auto diff, store().Diff("one-write", kWorkingName));
  EXPECT_TRUE(diff.empty()) << DiffKindName(diff[0].kind);
}

TEST_F(FileDataTest, ZeroChunksAreHoles) {
  ASSIGN_OR_FAIL(StoreStats before, store().Stats());
  ASSERT_OK(Put("zeros", std::string(2 * 1024 * 1024, '\0')));
  uint64_t f = Ino("zeros");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Truncate(f, 50 * 1024 * 1024); }));
  ASSIGN_OR_FAIL(StoreStats after, store().Stats());
  EXPECT_EQ(after.objects, before.objects);
  ASSIGN_OR_FAIL(std::string tail, tree().Read("zeros", 50 * 1024 * 1024 - 5, 5));
  EXPECT_EQ(tail, std::string(5, '\0'));
}

}  // namespace
}  // namespace vexfs
