// Tests for the chunk-level range operations of working-tree files: ZeroRange
// (fallocate's punch hole and zero range), CopyRange (copy_file_range) and
// SeekData/SeekHole (lseek), against in-memory models, plus chunk sharing,
// errors and atomicity.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::Random;
using test::StoreTest;

constexpr uint64_t kChunk = 64 * 1024;  // the store's chunk size

class FileRangesTest : public StoreTest {
 protected:
  uint64_t NewFile(std::string_view path, const std::string& content) {
    EXPECT_OK(Put(path, content));
    return Ino(path);
  }
  Status ZeroRange(uint64_t ino, uint64_t offset, uint64_t length) {
    return Edit([&](TreeEditor& ed) { return ed.ZeroRange(ino, offset, length); });
  }
  // Copies until `length` bytes are done or the source ends, as a caller of
  // copy_file_range loops; returns the total.
  Result<uint64_t> CopyAll(uint64_t src, uint64_t src_off, uint64_t dst, uint64_t dst_off,
                           uint64_t length) {
    uint64_t total = 0;
    while (total < length) {
      uint64_t n = 0;
      VEXFS_RETURN_IF_ERROR(Edit([&](TreeEditor& ed) -> Status {
        VEXFS_ASSIGN_OR_RETURN(n, ed.CopyRange(src, src_off + total, dst, dst_off + total,
                                               length - total));
        return Status::Ok();
      }));
      if (n == 0) break;
      total += n;
    }
    return total;
  }
};

void ModelZero(std::string* model, uint64_t offset, uint64_t length) {
  if (offset >= model->size()) return;
  uint64_t n = std::min<uint64_t>(length, model->size() - offset);
  std::fill(model->begin() + static_cast<ptrdiff_t>(offset),
            model->begin() + static_cast<ptrdiff_t>(offset + n), '\0');
}

void ModelCopy(const std::string& src, uint64_t src_off, std::string* dst, uint64_t dst_off,
               uint64_t length) {
  if (src_off >= src.size()) return;
  std::string part = src.substr(src_off, length);
  if (dst->size() < dst_off + part.size()) dst->resize(dst_off + part.size(), '\0');
  dst->replace(dst_off, part.size(), part);
}

TEST_F(FileRangesTest, ZeroRangeZerosOnlyInsideTheFileAndKeepsItsSize) {
  Random rng(11);
  std::string model = rng.Bytes(3 * kChunk + kChunk / 2);
  uint64_t f = NewFile("f", model);
  struct Range {
    uint64_t offset, length;
  };
  for (Range r : {Range{10, 100}, Range{kChunk - 5, 10}, Range{kChunk, kChunk},
                  Range{2 * kChunk + 1, 5 * kChunk}, Range{model.size() + 10, 100},
                  Range{0, 1}}) {
    SCOPED_TRACE(std::to_string(r.offset) + "+" + std::to_string(r.length));
    ASSERT_OK(ZeroRange(f, r.offset, r.length));
    ModelZero(&model, r.offset, r.length);
    ASSERT_EQ(Content("f"), model);
  }
  ASSIGN_OR_FAIL(Attributes attr, tree().Stat("f"));
  EXPECT_EQ(attr.size, 3 * kChunk + kChunk / 2);
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Mkdir(kRootIno, "d", {}).status(); }));
  EXPECT_CODE(ZeroRange(Ino("d"), 0, 10), StatusCode::kIsDirectory);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(FileRangesTest, ZeroingAWholeFileLeavesOnlyHoles) {
  uint64_t f = NewFile("f", Random(3).Bytes(4 * kChunk));
  ASSIGN_OR_FAIL(StoreStats before, store().Stats());
  ASSERT_OK(ZeroRange(f, 0, 4 * kChunk));
  ASSERT_OK(Snap("s"));
  // Canonical: the same zeros written as data give the same manifest (holes
  // only), so the working tree does not differ from the snapshot.
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReplaceContent(f, std::string(4 * kChunk, '\0')); }));
  ASSIGN_OR_FAIL(auto diff, store().Diff("s", kWorkingName));
  EXPECT_TRUE(diff.empty()) << DiffKindName(diff[0].kind);
  // No chunk object was written for the zeros: the snapshot added only a
  // manifest, trees and a commit.
  ASSIGN_OR_FAIL(StoreStats after, store().Stats());
  EXPECT_LT(after.object_bytes - before.object_bytes, 4096u);
  EXPECT_EQ(Content("f"), std::string(4 * kChunk, '\0'));
}

TEST_F(FileRangesTest, CopyRangeMatchesAModel) {
  Random rng(test::EnvOr("VEXFS_TEST_SEED", 5150));
  std::string src_model = rng.Bytes(5 * kChunk + 1234);
  std::string dst_model = rng.Bytes(2 * kChunk + 99);
  uint64_t src = NewFile("src", src_model);
  uint64_t dst = NewFile("dst", dst_model);
  for (int round = 0; round < 40; ++round) {
    // Half the offsets chunk-aligned (the sharing path), half anywhere.
    auto offset = [&](uint64_t limit) {
      uint64_t o = rng.Uniform(0, limit);
      return rng.Chance(0.5) ? o / kChunk * kChunk : o;
    };
    uint64_t src_off = offset(src_model.size() + kChunk);
    uint64_t dst_off = offset(dst_model.size() + 2 * kChunk);
    uint64_t length = rng.Uniform(1, 3 * kChunk);
    SCOPED_TRACE("round " + std::to_string(round) + ": " + std::to_string(src_off) + " -> " +
                 std::to_string(dst_off) + " +" + std::to_string(length));
    ASSIGN_OR_FAIL(uint64_t copied, CopyAll(src, src_off, dst, dst_off, length));
    uint64_t expected =
        src_off >= src_model.size() ? 0 : std::min(length, src_model.size() - src_off);
    EXPECT_EQ(copied, expected);
    ModelCopy(src_model, src_off, &dst_model, dst_off, length);
    ASSERT_EQ(Content("dst"), dst_model);
    ASSERT_EQ(Content("src"), src_model);
  }
  // Within one file, ranges that do not overlap.
  ASSIGN_OR_FAIL(uint64_t copied, CopyAll(src, 0, src, 3 * kChunk, kChunk + 7));
  EXPECT_EQ(copied, kChunk + 7);
  ModelCopy(std::string(src_model), 0, &src_model, 3 * kChunk, kChunk + 7);
  EXPECT_EQ(Content("src"), src_model);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(FileRangesTest, CopyingAFilesTailPastItsEndKeepsTheChunksCanonical) {
  // Within one file, the short last chunk shared to a new end: the file grows,
  // and growing re-cuts that same chunk, which must not be what is shared.
  std::string model = Random(21).Bytes(kChunk + kChunk / 2);
  uint64_t f = NewFile("f", model);
  ASSIGN_OR_FAIL(uint64_t copied, CopyAll(f, kChunk, f, 2 * kChunk, kChunk / 2));
  EXPECT_EQ(copied, kChunk / 2);
  ModelCopy(std::string(model), kChunk, &model, 2 * kChunk, kChunk / 2);
  EXPECT_EQ(Content("f"), model);
  // Canonical: writing the same bytes plainly gives the same manifest, so the
  // diff against the snapshot of the copy is empty.
  ASSERT_OK(Snap("s"));
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.ReplaceContent(f, model); }));
  ASSIGN_OR_FAIL(auto diff, store().Diff("s", kWorkingName));
  EXPECT_TRUE(diff.empty()) << DiffKindName(diff[0].kind) << " " << diff[0].path;
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(FileRangesTest, AlignedCopiesShareChunksAndStayIndependent) {
  const std::string content = Random(8).Bytes(10 * 1024 * 1024 + 321);
  uint64_t src = NewFile("big", content);
  ASSERT_OK(Put("copy", ""));
  uint64_t dst = Ino("copy");
  ASSIGN_OR_FAIL(StoreStats before, store().Stats());
  ASSIGN_OR_FAIL(uint64_t copied, CopyAll(src, 0, dst, 0, content.size()));
  EXPECT_EQ(copied, content.size());
  ASSERT_OK(Snap("s"));
  ASSIGN_OR_FAIL(StoreStats after, store().Stats());
  // Trees, two manifests and a commit; no chunk is stored twice (the short last
  // chunk is shared too, since it lands as the copy's last chunk).
  EXPECT_LT(after.object_bytes - before.object_bytes, 64u * 1024);
  EXPECT_EQ(Content("copy"), content);
  // Changing the source afterwards leaves the copy alone.
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Write(src, 5, "CHANGED"); }));
  EXPECT_EQ(Content("copy"), content);
  // The control: a copy one byte off the chunk grid stores the bytes again.
  ASSERT_OK(Put("shifted", ""));
  ASSIGN_OR_FAIL(uint64_t shifted, CopyAll(src, 0, Ino("shifted"), 1, content.size()));
  EXPECT_EQ(shifted, content.size());
  ASSIGN_OR_FAIL(StoreStats byte_copy, store().Stats());
  EXPECT_GE(byte_copy.object_bytes - after.object_bytes, content.size());
}

TEST_F(FileRangesTest, CopyRangeRefusesBadRanges) {
  uint64_t f = NewFile("f", Random(1).Bytes(3 * kChunk));
  uint64_t g = NewFile("g", "");
  auto copy = [&](uint64_t s, uint64_t so, uint64_t d, uint64_t dof, uint64_t len) {
    return Edit([&](TreeEditor& ed) { return ed.CopyRange(s, so, d, dof, len).status(); });
  };
  EXPECT_CODE(copy(f, 0, f, kChunk, 2 * kChunk), StatusCode::kInvalidArgument);  // overlap
  EXPECT_CODE(copy(f, 0, g, kMaxFileSize - 10, kChunk), StatusCode::kFileTooLarge);
  ASSIGN_OR_FAIL(uint64_t none, CopyAll(f, 3 * kChunk, g, 0, 100));  // at the end
  EXPECT_EQ(none, 0u);
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Mkdir(kRootIno, "d", {}).status(); }));
  EXPECT_CODE(copy(f, 0, Ino("d"), 0, 10), StatusCode::kIsDirectory);
  ASSIGN_OR_FAIL(Attributes attr, tree().Stat("g"));
  EXPECT_EQ(attr.size, 0u);
}

TEST_F(FileRangesTest, AFailedEditKeepsNoPartOfACopyOrAPunch) {
  const std::string content = Random(2).Bytes(4 * kChunk);
  uint64_t f = NewFile("f", content);
  uint64_t g = NewFile("g", "old");
  EXPECT_CODE(Edit([&](TreeEditor& ed) -> Status {
                VEXFS_RETURN_IF_ERROR(ed.CopyRange(f, 0, g, 0, content.size()).status());
                VEXFS_RETURN_IF_ERROR(ed.ZeroRange(f, 0, content.size()));
                return Status::IOError("injected failure after the changes");
              }),
              StatusCode::kIOError);
  EXPECT_EQ(Content("g"), "old");
  EXPECT_EQ(Content("f"), content);
  EXPECT_TRUE(test::FsckClean(store()));
}

// Where lseek's SEEK_DATA / SEEK_HOLE land in `model`, a file whose chunks of
// zeros are holes (the store's canonical form): the reference for the store.
bool ChunkHasData(const std::string& model, uint64_t index) {
  std::string_view chunk = std::string_view(model).substr(index * kChunk, kChunk);
  return std::any_of(chunk.begin(), chunk.end(), [](char c) { return c != 0; });
}

std::optional<uint64_t> ModelSeekData(const std::string& model, uint64_t offset) {
  for (uint64_t c = offset / kChunk; offset < model.size() && c * kChunk < model.size(); ++c) {
    if (ChunkHasData(model, c)) return std::max(offset, c * kChunk);
  }
  return std::nullopt;
}

std::optional<uint64_t> ModelSeekHole(const std::string& model, uint64_t offset) {
  if (offset >= model.size()) return std::nullopt;
  uint64_t c = offset / kChunk;
  while (c * kChunk < model.size() && ChunkHasData(model, c)) ++c;
  return std::max(offset, std::min<uint64_t>(model.size(), c * kChunk));
}

std::string Describe(std::optional<uint64_t> at) {
  return at ? std::to_string(*at) : "ENXIO";
}

TEST_F(FileRangesTest, SeekDataAndSeekHoleMatchAModel) {
  Random rng(test::EnvOr("VEXFS_TEST_SEED", 77));
  // Each pattern gives its chunks in order: D data, Z zeros (a hole), d data
  // that ends part-way through the last chunk, z zeros that do.
  for (std::string pattern : {"D", "Z", "d", "z", "DZD", "ZDZ", "ZZDd", "DDZz", "ZZZZ",
                              "DZZDDZDz"}) {
    SCOPED_TRACE("pattern " + pattern);
    std::string model;
    for (char kind : pattern) {
      uint64_t n = (kind == 'd' || kind == 'z') ? kChunk / 3 : kChunk;
      model += (kind == 'D' || kind == 'd') ? rng.Bytes(n) : std::string(n, '\0');
    }
    // A file of data written after it (the next inode): seeks must not reach
    // into its chunks.
    uint64_t f = NewFile("f", model);
    NewFile("next", rng.Bytes(3 * kChunk));
    std::set<uint64_t> offsets = {0, model.size() - 1, model.size(), model.size() + 7};
    for (uint64_t c = 1; c * kChunk <= model.size() + kChunk; ++c) {
      offsets.insert({c * kChunk - 1, c * kChunk, c * kChunk + 1});
    }
    for (int i = 0; i < 20; ++i) offsets.insert(rng.Uniform(0, model.size() + kChunk));
    for (uint64_t offset : offsets) {
      SCOPED_TRACE("offset " + std::to_string(offset));
      std::optional<uint64_t> data, hole;
      ASSERT_OK(tree().View([&](TreeEditor& ed) -> Status {
        VEXFS_ASSIGN_OR_RETURN(data, ed.SeekData(f, offset));
        VEXFS_ASSIGN_OR_RETURN(hole, ed.SeekHole(f, offset));
        return Status::Ok();
      }));
      EXPECT_EQ(Describe(data), Describe(ModelSeekData(model, offset)));
      EXPECT_EQ(Describe(hole), Describe(ModelSeekHole(model, offset)));
    }
    ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
      VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "f"));
      return ed.Unlink(kRootIno, "next");
    }));
  }
}

TEST_F(FileRangesTest, SeeksFollowWritesPunchesAndTheFileKind) {
  uint64_t f = NewFile("f", "");
  auto seek = [&](uint64_t offset, bool hole) {
    std::optional<uint64_t> at;
    EXPECT_OK(tree().View([&](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(at, hole ? ed.SeekHole(f, offset) : ed.SeekData(f, offset));
      return Status::Ok();
    }));
    return Describe(at);
  };
  EXPECT_EQ(seek(0, false), "ENXIO");  // an empty file has neither
  EXPECT_EQ(seek(0, true), "ENXIO");
  // A write far out leaves a hole before it; its chunk is data from its start.
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Write(f, 5 * kChunk + 10, "x"); }));
  EXPECT_EQ(seek(0, false), std::to_string(5 * kChunk));
  EXPECT_EQ(seek(0, true), "0");
  EXPECT_EQ(seek(5 * kChunk + 3, true), std::to_string(5 * kChunk + 11));  // the end
  // Punching the chunk out leaves no data at all.
  ASSERT_OK(ZeroRange(f, 5 * kChunk, kChunk));
  EXPECT_EQ(seek(0, false), "ENXIO");
  EXPECT_EQ(seek(5 * kChunk + 3, true), std::to_string(5 * kChunk + 3));
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Mkdir(kRootIno, "d", {}).status());
    return ed.Symlink(kRootIno, "l", "f", {}).status();
  }));
  EXPECT_CODE(tree().View([&](TreeEditor& ed) { return ed.SeekData(Ino("d"), 0).status(); }),
              StatusCode::kIsDirectory);
  EXPECT_CODE(tree().View([&](TreeEditor& ed) { return ed.SeekHole(Ino("l"), 0).status(); }),
              StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vexfs
