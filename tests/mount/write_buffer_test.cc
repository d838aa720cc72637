// WriteBuffer on its own: extents, reads overlaid on the store's bytes,
// and what reaches the store when it drains (tests/mount's mount tests cover it
// through the kernel).
#include "fuse/write_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "test_util.h"

namespace vexfs::fuse {
namespace {

using test::StoreTest;

class WriteBufferTest : public StoreTest {
 protected:
  Status Apply(const WriteBuffer& buffer, uint64_t ino) {
    return Edit([&](TreeEditor& ed) { return buffer.ApplyTo(ed, ino); });
  }
};

TEST_F(WriteBufferTest, OverlayShowsWritesOverStoredBytes) {
  WriteBuffer buffer;
  buffer.Write(2, "ab");
  buffer.Write(12, "zz");  // past the end: a hole of zeros in between
  EXPECT_EQ(buffer.end(), 14u);
  EXPECT_EQ(buffer.bytes(), 4u);
  std::string stored = "0123456789";
  EXPECT_EQ(buffer.Overlay(0, 100, stored, 14), std::string("01ab456789\0\0zz", 14));
  EXPECT_EQ(buffer.Overlay(3, 2, stored.substr(3), 14), "b4");
  EXPECT_EQ(buffer.Overlay(14, 5, "", 14), "");
  // A store file longer than the writes: the size is the store's.
  EXPECT_EQ(buffer.Overlay(12, 100, "89abcdef", 20), "zzabcdef");
}

TEST_F(WriteBufferTest, OverlappingWritesMergeAndCountBytesOnce) {
  WriteBuffer buffer;
  buffer.Write(0, "aaaa");
  buffer.Write(8, "cccc");
  buffer.Write(2, "bbbbbbbb");  // covers the gap and both ends
  EXPECT_EQ(buffer.bytes(), 12u);
  EXPECT_EQ(buffer.Overlay(0, 12, "", buffer.end()), "aabbbbbbbbcc");
}

TEST_F(WriteBufferTest, LongSequentialWritesSpanSeveralExtents) {
  // A sequential writer's bytes are kept in extents of about 1 MiB that touch;
  // writes across their seams, reads and the drain must not notice.
  ASSERT_OK(Put("f", ""));
  uint64_t ino = Ino("f");
  std::mt19937_64 rng(9);
  WriteBuffer buffer;
  std::string model;
  for (int i = 0; i < 40; ++i) {
    std::string piece(100 * 1024 + rng() % 1000, static_cast<char>('a' + i % 26));
    buffer.Write(model.size(), piece);
    model += piece;
  }
  EXPECT_EQ(buffer.bytes(), model.size());
  // Overwrites that straddle seams (the first extent ends at or past 1 MiB).
  for (uint64_t at : {uint64_t{1} << 20, (uint64_t{1} << 20) + 50000, uint64_t{3} << 20}) {
    std::string patch(70000, 'Z');
    buffer.Write(at - 30000, patch);
    model.replace(at - 30000, patch.size(), patch);
  }
  EXPECT_EQ(buffer.bytes(), model.size());
  EXPECT_EQ(buffer.end(), model.size());
  EXPECT_EQ(buffer.Overlay(0, model.size(), "", model.size()), model);
  EXPECT_EQ(buffer.Overlay(1000000, 100000, "", model.size()), model.substr(1000000, 100000));
  ASSERT_OK(Apply(buffer, ino));
  EXPECT_EQ(Content("f"), model);
}

TEST_F(WriteBufferTest, ApplyMatchesTheOverlay) {
  ASSERT_OK(Put("f", std::string(5000, 's')));
  uint64_t ino = Ino("f");
  std::mt19937_64 rng(7);
  WriteBuffer buffer;
  for (int i = 0; i < 200; ++i) {
    uint64_t offset = rng() % 9000;
    buffer.Write(offset, std::string(1 + rng() % 300, static_cast<char>('a' + i % 26)));
  }
  std::string stored = Content("f");
  uint64_t size = std::max<uint64_t>(stored.size(), buffer.end());
  std::string expected = buffer.Overlay(0, size, stored, size);
  ASSERT_OK(Apply(buffer, ino));
  EXPECT_EQ(Content("f"), expected);
}

TEST_F(WriteBufferTest, ApplyKeepsASizeChangeMadeMeanwhile) {
  // The CLI shrinks the file while the mount buffers a write at its start: the
  // drain must not grow the file back to the size the buffer first saw.
  ASSERT_OK(Put("f", "0123456789"));
  uint64_t ino = Ino("f");
  WriteBuffer buffer;
  buffer.Write(0, "ab");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Truncate(ino, 4); }));
  ASSERT_OK(Apply(buffer, ino));
  EXPECT_EQ(Content("f"), "ab23");
}

}  // namespace
}  // namespace vexfs::fuse
