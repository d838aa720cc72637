// Word tokenisation for the GloVe embedder. Character classes are decided per UTF-8
// code point; only ASCII and the Latin-1 block get case and accent rules, which
// covers the vocabulary (lower-case English, ASCII only apart from a few
// punctuation marks) without Unicode tables.
#include "index/embedders/word_tokens.h"

#include <cstdint>

namespace vexfs::index {
namespace {

enum class CharKind { kWord, kConnector, kSeparator };

struct CharClass {
  CharKind kind;
  size_t len;  // bytes of the code point (1 for a stray byte)
};

bool IsAsciiAlnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool IsConnector(unsigned char c) { return c == '-' || c == '_' || c == '.' || c == '\''; }

// Bytes of the UTF-8 sequence led by `c`, or 1 when it is not a valid lead.
size_t SequenceLength(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 1;
  if (len > s.size() - i) return 1;
  for (size_t k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  }
  return len;
}

// Non-ASCII code points that separate words: Latin-1 punctuation and symbols, × ÷,
// U+2000-U+2BFF (general punctuation, currency, arrows, maths, boxes, dingbats),
// CJK punctuation and the emoji planes. U+2019 is an apostrophe.
CharKind NonAsciiKind(std::string_view s, size_t i, size_t len) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (len == 1) return CharKind::kWord;  // invalid UTF-8: kept, it can only be unknown
  if (len == 2) {
    if (b(0) == 0xC2) return CharKind::kSeparator;
    if (b(0) == 0xC3 && (b(1) == 0x97 || b(1) == 0xB7)) return CharKind::kSeparator;
    return CharKind::kWord;
  }
  if (len == 3) {
    if (b(0) == 0xE2 && b(1) == 0x80 && b(2) == 0x99) return CharKind::kConnector;
    if (b(0) == 0xE2 && b(1) <= 0xAF) return CharKind::kSeparator;
    if (b(0) == 0xE3 && b(1) == 0x80) return CharKind::kSeparator;
    return CharKind::kWord;
  }
  return b(0) == 0xF0 && b(1) == 0x9F ? CharKind::kSeparator : CharKind::kWord;
}

CharClass Classify(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    if (IsAsciiAlnum(c)) return {CharKind::kWord, 1};
    return {IsConnector(c) ? CharKind::kConnector : CharKind::kSeparator, 1};
  }
  size_t len = SequenceLength(s, i);
  return {NonAsciiKind(s, i, len), len};
}

// ASCII spelling of Latin-1 letters U+00C0-U+00DF and, 0x20 above, their lower-case
// forms (second UTF-8 byte & 0x1F indexes both halves); null: no folding.
constexpr const char* kFold[32] = {
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e",  "e", "e", "i", "i", "i", "i",
    "d", "n", "o", "o", "o", "o", "o",  nullptr, "o", "u", "u", "u", "u", "y", "th", "ss"};

bool IsLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80; }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(unsigned char c) { return c >= 'a' && c <= 'z'; }

// Whether a piece boundary falls before byte `i` (0 < i < size) of an identifier.
bool BoundaryBefore(std::string_view s, size_t i) {
  unsigned char prev = static_cast<unsigned char>(s[i - 1]);
  unsigned char cur = static_cast<unsigned char>(s[i]);
  if (IsLower(prev) && IsUpper(cur)) return true;
  if (IsUpper(prev) && IsUpper(cur) && i + 1 < s.size() &&
      IsLower(static_cast<unsigned char>(s[i + 1]))) {
    return true;
  }
  return (IsLetter(prev) && IsDigit(cur)) || (IsDigit(prev) && IsLetter(cur));
}

}  // namespace

void SplitRawWords(std::string_view text, std::vector<std::string_view>* words) {
  constexpr size_t kNone = std::string_view::npos;
  size_t start = kNone;
  size_t i = 0;
  while (i < text.size()) {
    CharClass c = Classify(text, i);
    bool inside = c.kind == CharKind::kWord ||
                  (c.kind == CharKind::kConnector && start != kNone && i + c.len < text.size() &&
                   Classify(text, i + c.len).kind == CharKind::kWord);
    if (inside && start == kNone) start = i;
    if (!inside && start != kNone) {
      words->push_back(text.substr(start, i - start));
      start = kNone;
    }
    i += c.len;
  }
  if (start != kNone) words->push_back(text.substr(start));
}

void NormalizeWord(std::string_view raw, std::string* cased, std::string* lower) {
  cased->clear();
  lower->clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(raw[i]);
    if (c == 0xE2 && raw.substr(i, 3) == "\xE2\x80\x99") {
      cased->push_back('\'');
      lower->push_back('\'');
      i += 2;
      continue;
    }
    cased->push_back(static_cast<char>(c));
    if (IsUpper(c)) {
      c = static_cast<unsigned char>(c + 32);
    } else if (c == 0xC3 && i + 1 < raw.size()) {  // Latin-1 capitals À-Þ, not ×
      unsigned char d = static_cast<unsigned char>(raw[i + 1]);
      if (d >= 0x80 && d <= 0x9E && d != 0x97) d = static_cast<unsigned char>(d + 0x20);
      lower->push_back(static_cast<char>(c));
      cased->push_back(raw[i + 1]);
      c = d;
      ++i;
    }
    lower->push_back(static_cast<char>(c));
  }
}

bool SplitClitic(std::string_view lower, Clitic* out) {
  size_t apos = lower.rfind('\'');
  if (apos == std::string_view::npos || apos == 0) return false;
  std::string_view suffix = lower.substr(apos);
  if (suffix == "'t" && lower[apos - 1] == 'n') {
    std::string_view stem = lower.substr(0, apos - 1);
    // PTB splits "can't" as "ca n't"; these stems are the words they stand for.
    if (stem == "ca") stem = "can";
    if (stem == "wo") stem = "will";
    if (stem == "sha") stem = "shall";
    if (stem == "ai") stem = "is";
    *out = {stem, "not"};
    return true;
  }
  static constexpr std::pair<std::string_view, std::string_view> kClitics[] = {
      {"'s", ""}, {"'re", "are"}, {"'ve", "have"}, {"'ll", "will"}, {"'d", "would"},
      {"'m", "am"}};
  for (const auto& [clitic, expansion] : kClitics) {
    if (suffix == clitic) {
      *out = {lower.substr(0, apos), expansion};
      return true;
    }
  }
  return false;
}

bool FoldAccents(std::string_view lower, std::string* out) {
  out->clear();
  bool folded = false;
  for (size_t i = 0; i < lower.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(lower[i]);
    if (c == 0xC3 && i + 1 < lower.size()) {
      unsigned char d = static_cast<unsigned char>(lower[i + 1]);
      const char* ascii = d == 0xBF ? "y" : (d >= 0x80 && d <= 0xBF) ? kFold[d & 0x1F] : nullptr;
      if (ascii != nullptr) {
        out->append(ascii);
        folded = true;
        ++i;
        continue;
      }
    }
    out->push_back(static_cast<char>(c));
  }
  return folded;
}

void SplitIdentifier(std::string_view cased, IdentifierSplit how,
                     std::vector<std::pair<size_t, size_t>>* pieces) {
  bool humps = how == IdentifierSplit::kAtHumps;
  size_t start = 0;
  for (size_t i = 0; i <= cased.size(); ++i) {
    bool end = i == cased.size();
    bool connector = !end && !humps && IsConnector(static_cast<unsigned char>(cased[i]));
    bool boundary = end || connector || (humps && i > start && BoundaryBefore(cased, i));
    if (!boundary) continue;
    if (i > start) pieces->emplace_back(start, i);
    start = connector ? i + 1 : i;
  }
}

}  // namespace vexfs::index
