// Tests for content-based text detection: what counts as text (valid UTF-8, no
// NUL, few control characters, a character cut at the end allowed) and where the
// last whole UTF-8 character before a position ends.
#include "index/indexing/text_detect.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace vexfs::index {
namespace {

using namespace std::string_literals;  // "\0"s keeps embedded NULs

// One encoding of each UTF-8 length, so generated text exercises every case.
const std::vector<std::string> kChars = {"a", " ", "\n", "\xc3\xa9" /* é */,
                                         "\xe2\x82\xac" /* € */, "\xe4\xb8\xad" /* 中 */,
                                         "\xf0\x9f\x98\x80" /* 😀 */};

// Random valid UTF-8 of about `n` bytes, built from whole characters.
std::string RandomUtf8(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<size_t> pick(0, kChars.size() - 1);
  std::string s;
  while (s.size() < n) s += kChars[pick(rng)];
  return s;
}

bool IsContinuationByte(char c) { return (static_cast<uint8_t>(c) & 0xc0) == 0x80; }

TEST(LooksLikeTextTest, EmptyIsNotText) { EXPECT_FALSE(LooksLikeText("")); }

TEST(LooksLikeTextTest, PlainAsciiIsText) {
  EXPECT_TRUE(LooksLikeText("a"));
  EXPECT_TRUE(LooksLikeText("# Notes\n\nThe index is rebuilt nightly.\n"));
}

TEST(LooksLikeTextTest, WhitespaceControlsAreAllowedInAnyNumber) {
  EXPECT_TRUE(LooksLikeText("\t\n\r\f\t\n\r\f"));
  EXPECT_TRUE(LooksLikeText("col1\tcol2\r\nrow\f"));
}

TEST(LooksLikeTextTest, MultibyteUtf8IsText) {
  EXPECT_TRUE(LooksLikeText("caf\xc3\xa9 \xe2\x82\xac 5 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80"));
}

TEST(LooksLikeTextTest, ExtremeValidCodePointsAreText) {
  EXPECT_TRUE(LooksLikeText("\xc2\x80"));          // U+0080, smallest 2-byte
  EXPECT_TRUE(LooksLikeText("\xdf\xbf"));          // U+07FF
  EXPECT_TRUE(LooksLikeText("\xe0\xa0\x80"));      // U+0800, smallest 3-byte
  EXPECT_TRUE(LooksLikeText("\xed\x9f\xbf"));      // U+D7FF, just below surrogates
  EXPECT_TRUE(LooksLikeText("\xee\x80\x80"));      // U+E000, just above surrogates
  EXPECT_TRUE(LooksLikeText("\xef\xbf\xbf"));      // U+FFFF
  EXPECT_TRUE(LooksLikeText("\xf0\x90\x80\x80"));  // U+10000, smallest 4-byte
  EXPECT_TRUE(LooksLikeText("\xf4\x8f\xbf\xbf"));  // U+10FFFF, the last code point
}

TEST(LooksLikeTextTest, NulAnywhereIsNotText) {
  EXPECT_FALSE(LooksLikeText("\0"s));
  EXPECT_FALSE(LooksLikeText("\0hello world"s));
  EXPECT_FALSE(LooksLikeText("hello\0world"s));
  EXPECT_FALSE(LooksLikeText(std::string(1000, 'a') + "\0"s));
}

TEST(LooksLikeTextTest, InvalidLeadBytesAreNotText) {
  EXPECT_FALSE(LooksLikeText("abc\x80"));      // lone continuation byte
  EXPECT_FALSE(LooksLikeText("\xbf" "abc"));   // lone continuation byte first
  EXPECT_FALSE(LooksLikeText("\xc0\x80"));     // overlong NUL
  EXPECT_FALSE(LooksLikeText("\xc1\xbf"));     // overlong 2-byte
  EXPECT_FALSE(LooksLikeText("\xf5\x80\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(LooksLikeText("\xff" "abc"));
  EXPECT_FALSE(LooksLikeText("\xfe" "abc"));
}

TEST(LooksLikeTextTest, InvalidSequencesAreNotText) {
  EXPECT_FALSE(LooksLikeText("\xe0\x80\x80x"));      // overlong 3-byte
  EXPECT_FALSE(LooksLikeText("\xe0\x9f\xbfx"));      // overlong 3-byte, top of range
  EXPECT_FALSE(LooksLikeText("\xed\xa0\x80x"));      // UTF-16 surrogate D800
  EXPECT_FALSE(LooksLikeText("\xed\xbf\xbfx"));      // UTF-16 surrogate DFFF
  EXPECT_FALSE(LooksLikeText("\xf0\x80\x80\x80x"));  // overlong 4-byte
  EXPECT_FALSE(LooksLikeText("\xf0\x8f\xbf\xbfx"));  // overlong 4-byte, top of range
  EXPECT_FALSE(LooksLikeText("\xf4\x90\x80\x80x"));  // U+110000
  EXPECT_FALSE(LooksLikeText("\xc3" "A rest"));      // lead byte without continuation
  EXPECT_FALSE(LooksLikeText("\xe2\x82" "A rest"));  // 3-byte sequence cut short mid-text
}

TEST(LooksLikeTextTest, ControlCharactersUpToOnePercentAreText) {
  std::string hundred(99, 'a');
  hundred.insert(50, 1, '\x01');
  ASSERT_EQ(hundred.size(), 100u);
  EXPECT_TRUE(LooksLikeText(hundred));

  std::string ninety_nine(98, 'a');
  ninety_nine.insert(10, 1, '\x1b');
  EXPECT_FALSE(LooksLikeText(ninety_nine));

  std::string two_in_hundred(98, 'a');
  two_in_hundred.insert(0, 1, '\x02');
  two_in_hundred.insert(60, 1, '\x1f');
  EXPECT_FALSE(LooksLikeText(two_in_hundred));
}

TEST(LooksLikeTextTest, DeleteCountsAsControl) {
  EXPECT_FALSE(LooksLikeText("\x7f"));
  EXPECT_FALSE(LooksLikeText(std::string(50, 'a') + "\x7f"));
  EXPECT_TRUE(LooksLikeText(std::string(99, 'a') + "\x7f"));
}

TEST(LooksLikeTextTest, MostlyControlBytesAreNotText) {
  EXPECT_FALSE(LooksLikeText("\x01\x02\x03\x04"));
  EXPECT_FALSE(LooksLikeText("\x1b[31mred\x1b[0m"));
}

TEST(LooksLikeTextTest, CharacterCutAtTheEndIsAllowed) {
  EXPECT_TRUE(LooksLikeText("caf\xc3"));              // é cut after its lead byte
  EXPECT_TRUE(LooksLikeText("price \xe2\x82"));       // € cut after two bytes
  EXPECT_TRUE(LooksLikeText("smile \xf0\x9f\x98"));   // 😀 cut after three bytes
  EXPECT_TRUE(LooksLikeText("smile \xf0"));
}

// Only a cut is forgiven: bytes that no continuation could make valid are not.
TEST(LooksLikeTextTest, InvalidBytesInACutSequenceAreNotText) {
  EXPECT_FALSE(LooksLikeText("abc\xe2" "A"));      // not a continuation byte
  EXPECT_FALSE(LooksLikeText("abc\xf0\x9f" "A"));
  EXPECT_FALSE(LooksLikeText("abc\xe0\x80"));      // overlong whatever follows
  EXPECT_FALSE(LooksLikeText("abc\xed\xa0"));      // surrogate whatever follows
  EXPECT_FALSE(LooksLikeText("abc\xf4\x90"));      // past U+10FFFF whatever follows
}

// A cut character at the end must not excuse the rest of the data.
TEST(LooksLikeTextTest, CutAtTheEndStillCountsControls) {
  EXPECT_FALSE(LooksLikeText("\x01\x02\x03\xe2"));
  EXPECT_FALSE(LooksLikeText("\x01\x02\x03\xe2\x82"));
  std::string many_controls(50, '\x01');
  EXPECT_FALSE(LooksLikeText(many_controls + "abc\xf0\x9f\x98"));
}

// Callers pass file prefixes: every prefix of valid text is text.
TEST(LooksLikeTextTest, EveryPrefixOfValidTextIsText) {
  std::mt19937 rng(20240601);
  for (int round = 0; round < 50; ++round) {
    std::string text = RandomUtf8(rng, 1 + round * 7);
    for (size_t n = 1; n <= text.size(); ++n) {
      ASSERT_TRUE(LooksLikeText(std::string_view(text).substr(0, n)))
          << "round " << round << " prefix " << n;
    }
  }
}

TEST(Utf8BoundaryTest, AsciiEveryPositionIsABoundary) {
  std::string_view s = "hello";
  for (size_t pos = 0; pos < s.size(); ++pos) EXPECT_EQ(Utf8BoundaryAtOrBefore(s, pos), pos);
}

TEST(Utf8BoundaryTest, PositionAtOrPastTheEndGivesTheWholeLength) {
  EXPECT_EQ(Utf8BoundaryAtOrBefore("hello", 5), 5u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore("hello", 6), 5u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore("a\xe2\x82\xac", 100), 4u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore("", 0), 0u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore("", 3), 0u);
}

TEST(Utf8BoundaryTest, BacksOffToTheStartOfASplitCharacter) {
  std::string_view s = "a\xe2\x82\xac" "b";  // a € b
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 0), 0u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 1), 1u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 2), 1u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 3), 1u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 4), 4u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 5), 5u);
}

TEST(Utf8BoundaryTest, FourByteCharacterAtTheStart) {
  std::string_view s = "\xf0\x9f\x98\x80!";
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 1), 0u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 2), 0u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 3), 0u);
  EXPECT_EQ(Utf8BoundaryAtOrBefore(s, 4), 4u);
}

// The result is the largest boundary not after `pos`: a boundary itself, and no
// boundary lies between it and `pos`.
TEST(Utf8BoundaryTest, LargestBoundaryAtOrBeforeOnRandomText) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::string text = RandomUtf8(rng, 40 + round);
    for (size_t pos = 0; pos < text.size(); ++pos) {
      size_t b = Utf8BoundaryAtOrBefore(text, pos);
      ASSERT_LE(b, pos);
      ASSERT_FALSE(IsContinuationByte(text[b])) << "round " << round << " pos " << pos;
      for (size_t k = b + 1; k <= pos; ++k) {
        ASSERT_TRUE(IsContinuationByte(text[k])) << "round " << round << " pos " << pos;
      }
    }
  }
}

}  // namespace
}  // namespace vexfs::index
