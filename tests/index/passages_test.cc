// Tests for passage splitting: which boundary a cut prefers (heading > blank line >
// line > sentence > space > none), the target/max window, and on generated text
// the invariants every split keeps: passages in order, within max_bytes, never
// splitting a UTF-8 character, never only whitespace, and together covering every
// byte that is not whitespace.
#include "index/indexing/passages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace vexfs::index {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

bool OnlySpace(std::string_view s) { return std::all_of(s.begin(), s.end(), IsSpace); }

bool IsContinuationByte(char c) { return (static_cast<uint8_t>(c) & 0xc0) == 0x80; }

std::string X(size_t n) { return std::string(n, 'x'); }  // filler with no boundary

// Small sizes so a test can place boundaries by hand: the first cut is looked for
// in [20, 80] and aims at 40.
PassageOptions Small() {
  PassageOptions o;
  o.target_bytes = 40;
  o.max_bytes = 80;
  return o;
}

// End of the first passage (its length, since it starts at 0).
uint64_t FirstCut(std::string_view text, const PassageOptions& o = Small()) {
  std::vector<Passage> p = SplitPassages(text, o);
  if (p.empty()) return 0;
  EXPECT_EQ(p[0].offset, 0u);
  return p[0].length;
}

// Checks everything passages.h promises about any split of `text`, and that the
// same input splits the same way again.
::testing::AssertionResult SplitInvariantsHold(std::string_view text, const PassageOptions& o) {
  std::vector<Passage> passages = SplitPassages(text, o);
  size_t max_bytes = std::max<size_t>(o.max_bytes, 8);  // passages.cc's floor
  uint64_t covered_to = 0;                              // end of the previous passage
  for (size_t i = 0; i < passages.size(); ++i) {
    const Passage& p = passages[i];
    if (p.offset < covered_to) return ::testing::AssertionFailure() << "passage " << i << " overlaps";
    if (p.length == 0) return ::testing::AssertionFailure() << "passage " << i << " is empty";
    if (p.length > max_bytes) {
      return ::testing::AssertionFailure() << "passage " << i << " has " << p.length << " bytes";
    }
    if (p.offset + p.length > text.size()) {
      return ::testing::AssertionFailure() << "passage " << i << " runs past the text";
    }
    if (!OnlySpace(text.substr(covered_to, p.offset - covered_to))) {
      return ::testing::AssertionFailure() << "non-whitespace before passage " << i << " dropped";
    }
    std::string_view body = text.substr(p.offset, p.length);
    if (OnlySpace(body)) return ::testing::AssertionFailure() << "passage " << i << " only whitespace";
    if (IsContinuationByte(text[p.offset])) {
      return ::testing::AssertionFailure() << "passage " << i << " starts inside a character";
    }
    uint64_t end = p.offset + p.length;
    if (end < text.size() && IsContinuationByte(text[end])) {
      return ::testing::AssertionFailure() << "passage " << i << " ends inside a character";
    }
    covered_to = end;
  }
  if (!OnlySpace(text.substr(covered_to))) {
    return ::testing::AssertionFailure() << "non-whitespace after the last passage dropped";
  }
  std::vector<Passage> again = SplitPassages(text, o);
  bool same = again.size() == passages.size() &&
              std::equal(again.begin(), again.end(), passages.begin(),
                         [](const Passage& a, const Passage& b) {
                           return a.offset == b.offset && a.length == b.length;
                         });
  if (!same) return ::testing::AssertionFailure() << "a second split differs";
  return ::testing::AssertionSuccess();
}

TEST(SplitPassagesTest, EmptyTextHasNoPassages) { EXPECT_TRUE(SplitPassages("").empty()); }

TEST(SplitPassagesTest, WhitespaceOnlyTextHasNoPassages) {
  EXPECT_TRUE(SplitPassages(" \n\t\r\f  \n\n").empty());
  EXPECT_TRUE(SplitPassages(std::string(5000, '\n'), Small()).empty());
}

TEST(SplitPassagesTest, TextWithinMaxIsOnePassage) {
  std::string text = "# Title\n\nFirst paragraph. Second sentence.\n\nSecond paragraph.\n";
  std::vector<Passage> p = SplitPassages(text);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].offset, 0u);
  EXPECT_EQ(p[0].length, text.size());
}

TEST(SplitPassagesTest, TextOfExactlyMaxIsOnePassage) {
  std::vector<Passage> p = SplitPassages(X(80), Small());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].length, 80u);
}

TEST(SplitPassagesTest, WithoutBoundariesCutsAtMax) {
  std::vector<Passage> p = SplitPassages(X(200), Small());
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].offset, 0u);
  EXPECT_EQ(p[0].length, 80u);
  EXPECT_EQ(p[1].offset, 80u);
  EXPECT_EQ(p[1].length, 80u);
  EXPECT_EQ(p[2].offset, 160u);
  EXPECT_EQ(p[2].length, 40u);
}

TEST(SplitPassagesTest, HeadingBeatsABlankLineNearerTheTarget) {
  // Blank line ends at 40 (the target); heading starts at 69.
  std::string text = X(38) + "\n\n" + X(28) + "\n# Heading\n" + X(100);
  EXPECT_EQ(FirstCut(text), 69u);
  EXPECT_EQ(text[69], '#');
}

TEST(SplitPassagesTest, BlankLineBeatsALineEndNearerTheTarget) {
  std::string text = X(39) + "\n" + X(24) + "\n\n" + X(100);
  EXPECT_EQ(FirstCut(text), 66u);
}

TEST(SplitPassagesTest, LineEndBeatsASentenceEndNearerTheTarget) {
  std::string text = X(38) + ". " + X(30) + "\n" + X(100);
  EXPECT_EQ(FirstCut(text), 71u);
}

TEST(SplitPassagesTest, SentenceEndBeatsASpaceNearerTheTarget) {
  for (char mark : {'.', '!', '?'}) {
    std::string text = X(39) + " " + X(30) + mark + " " + X(100);
    EXPECT_EQ(FirstCut(text), 72u) << mark;
  }
}

TEST(SplitPassagesTest, SpaceOrTabBeatsCuttingAWord) {
  EXPECT_EQ(FirstCut(X(75) + " " + X(100)), 76u);
  EXPECT_EQ(FirstCut(X(75) + "\t" + X(100)), 76u);
}

TEST(SplitPassagesTest, AmongEqualBoundariesTheOneNearestTheTargetWins) {
  // Spaces end at 25, 45 and 75; the target is 40.
  std::string text = X(24) + " " + X(19) + " " + X(29) + " " + X(100);
  EXPECT_EQ(FirstCut(text), 45u);
  // Lines end at 30 and 60: 30 is nearer 40.
  std::string lines = X(29) + "\n" + X(29) + "\n" + X(100);
  EXPECT_EQ(FirstCut(lines), 30u);
}

TEST(SplitPassagesTest, BoundariesBeforeHalfTheTargetAreIgnored) {
  // A blank line ending at 11 is too early (the window starts at 20).
  EXPECT_EQ(FirstCut(X(9) + "\n\n" + X(200)), 80u);
  // A space ending at 19 is just outside the window; one ending at 20 is inside.
  EXPECT_EQ(FirstCut(X(18) + " " + X(200)), 80u);
  EXPECT_EQ(FirstCut(X(19) + " " + X(200)), 20u);
}

TEST(SplitPassagesTest, BoundariesPastMaxAreIgnored) {
  EXPECT_EQ(FirstCut(X(79) + "\n" + X(200)), 80u);  // a line end exactly at max is used
  EXPECT_EQ(FirstCut(X(60) + " " + X(19) + "\n\n" + X(200)), 61u);  // blank line at 82 is not
}

TEST(SplitPassagesTest, LaterPassagesMeasureTheWindowFromTheirOwnStart) {
  // First cut at the heading at 50. The second passage's window is [70, 130] and
  // aims at 90, so its cut is the heading at 120: past the first window's reach.
  std::string text = X(49) + "\n# A\n\n" + X(64) + "\n# B\n" + X(200);
  ASSERT_EQ(text.find("# A"), 50u);
  ASSERT_EQ(text.find("# B"), 120u);
  std::vector<Passage> p = SplitPassages(text, Small());
  ASSERT_GE(p.size(), 2u);
  EXPECT_EQ(p[0].length, 50u);
  EXPECT_EQ(p[1].offset, 50u);
  EXPECT_EQ(p[1].length, 70u);
}

TEST(SplitPassagesTest, FallbackCutNeverSplitsACharacter) {
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xe2\x82\xac";  // 3 bytes each, no boundaries
  std::vector<Passage> p = SplitPassages(euros, Small());
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].length, 78u);  // 80 would cut the 27th euro
  for (const Passage& passage : p) {
    EXPECT_EQ(passage.offset % 3, 0u);
    EXPECT_EQ(passage.length % 3, 0u);
  }
  EXPECT_TRUE(SplitInvariantsHold(euros, Small()));
}

TEST(SplitPassagesTest, FourByteCharactersAtEveryAlignment) {
  for (size_t pad = 0; pad < 4; ++pad) {
    std::string text = X(pad);
    for (int i = 0; i < 60; ++i) text += "\xf0\x9f\x98\x80";
    EXPECT_TRUE(SplitInvariantsHold(text, Small())) << "pad " << pad;
  }
}

TEST(SplitPassagesTest, WhitespaceStretchesBetweenParagraphsAreDropped) {
  std::string text = X(30) + "\n\n" + std::string(300, ' ') + "\n\n" + X(30);
  std::vector<Passage> p = SplitPassages(text, Small());
  ASSERT_GE(p.size(), 2u);
  for (const Passage& passage : p) {
    EXPECT_FALSE(OnlySpace(std::string_view(text).substr(passage.offset, passage.length)));
  }
  EXPECT_TRUE(SplitInvariantsHold(text, Small()));
}

TEST(SplitPassagesTest, TinyOptionsStillMakeProgressWithinEightBytes) {
  PassageOptions zero;
  zero.target_bytes = 0;
  zero.max_bytes = 0;
  std::string text = "The quick brown fox jumps over the lazy dog. \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80!";
  std::vector<Passage> p = SplitPassages(text, zero);
  ASSERT_FALSE(p.empty());
  for (const Passage& passage : p) EXPECT_LE(passage.length, 8u);
  EXPECT_TRUE(SplitInvariantsHold(text, zero));
}

TEST(SplitPassagesTest, TargetAboveMaxIsTreatedAsMax) {
  PassageOptions o;
  o.target_bytes = 10000;
  o.max_bytes = 80;
  std::vector<Passage> p = SplitPassages(X(200), o);
  ASSERT_FALSE(p.empty());
  for (const Passage& passage : p) EXPECT_LE(passage.length, 80u);
  EXPECT_TRUE(SplitInvariantsHold(X(75) + " " + X(300), o));
}

// A Markdown document whose sections are 1050..1340 bytes: with the default options
// (window [600, 2000], aim 1200) the next heading is always the nearest one in the
// window and two sections never fit in one passage, so each passage is one section.
TEST(SplitPassagesTest, DefaultOptionsCutMarkdownAtHeadings) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> section_bytes(1050, 1300);
  std::string text;
  std::vector<uint64_t> heading_offsets;
  for (int s = 0; s < 30; ++s) {
    heading_offsets.push_back(text.size());
    std::string section = "# Section " + std::to_string(s) + "\n\n";
    size_t want = section_bytes(rng);
    while (section.size() < want) {
      section += "The store keeps every version. ";
      if (section.size() % 5 == 0) section += "\n\n";
    }
    text += section + "\n";
  }
  std::vector<Passage> p = SplitPassages(text);
  ASSERT_EQ(p.size(), heading_offsets.size());
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(p[i].offset, heading_offsets[i]) << "passage " << i;
    EXPECT_EQ(text[p[i].offset], '#');
  }
  EXPECT_TRUE(SplitInvariantsHold(text, {}));
}

// Random text from pieces that make every kind of boundary, multibyte characters
// and long stretches of whitespace or of one word.
std::string RandomDocument(std::mt19937& rng, size_t n) {
  static const std::vector<std::string> kPieces = {
      "word",  "index", " ",     " ",  "\t",          "\n",           "\n\n",
      "\n# ",  ". ",    "! ",    "? ", "\xc3\xa9",    "\xe2\x82\xac", "\xf0\x9f\x98\x80",
      "\r\n",  "\f",    "       ",     std::string(150, 'z'),         std::string(120, '\n'),
      "\xe4\xb8\xad\xe6\x96\x87"};
  std::uniform_int_distribution<size_t> pick(0, kPieces.size() - 1);
  std::string s;
  while (s.size() < n) s += kPieces[pick(rng)];
  return s;
}

TEST(SplitPassagesTest, InvariantsHoldOnGeneratedText) {
  std::mt19937 rng(1234567);
  std::uniform_int_distribution<size_t> length(0, 5000);
  std::uniform_int_distribution<size_t> max_bytes(0, 400);
  for (int round = 0; round < 300; ++round) {
    std::string text = RandomDocument(rng, length(rng));
    PassageOptions o;
    o.max_bytes = max_bytes(rng);
    o.target_bytes = std::uniform_int_distribution<size_t>(0, o.max_bytes + 50)(rng);
    ASSERT_TRUE(SplitInvariantsHold(text, o))
        << "round " << round << " target " << o.target_bytes << " max " << o.max_bytes;
  }
}

TEST(SplitPassagesTest, InvariantsHoldOnGeneratedTextWithDefaultOptions) {
  std::mt19937 rng(99);
  for (int round = 0; round < 20; ++round) {
    std::string text = RandomDocument(rng, 20000 + round * 1000);
    ASSERT_TRUE(SplitInvariantsHold(text, {})) << "round " << round;
  }
}

}  // namespace
}  // namespace vexfs::index
