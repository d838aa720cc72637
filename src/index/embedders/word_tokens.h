// Word tokenisation for the GloVe embedder: splits text roughly the way GloVe 6B's
// training text was split (lower-cased words, punctuation apart), and offers the
// fallbacks the embedder tries for a word the vocabulary lacks: clitic expansion
// ("don't" -> "do" "not"), accent folding ("café" -> "cafe") and identifier
// splitting ("parseConfig_v2" -> "parse" "config" "v2").
//
// Pure functions on bytes; no allocation beyond the output arguments, which callers
// reuse across calls. Non-ASCII UTF-8 letters stay inside words; invalid UTF-8 is
// kept as word bytes (it can only end up as an unknown word).
#ifndef VEXFS_INDEX_EMBEDDERS_WORD_TOKENS_H_
#define VEXFS_INDEX_EMBEDDERS_WORD_TOKENS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vexfs::index {

// Appends the raw words of `text` (views into it, original case) to `words`. A word
// is a run of letters and digits, where a single connector ('-', '_', '.', an
// apostrophe ' or U+2019) between two such characters stays inside the word.
// Everything else, ASCII and Unicode punctuation included, separates words.
void SplitRawWords(std::string_view text, std::vector<std::string_view>* words);

// `raw` with U+2019 turned into an apostrophe (`*cased`) and additionally lower-cased
// (`*lower`, ASCII and Latin-1 letters); the two have the same length, so an index
// into one is an index into the other.
void NormalizeWord(std::string_view raw, std::string* cased, std::string* lower);

// An English clitic at the end of a lower-cased word: `stem` is what precedes it and
// `expansion` the full word it stands for ("not", "are", "will", ...; "" for 's,
// which is a possessive or "is", both near-stopwords). The vocabulary has no
// apostrophe tokens, so "n't" and friends are expanded rather than looked up. For
// "can't", "won't", "shan't" and "ain't" the stem is rewritten ("can", "will", ...).
struct Clitic {
  std::string_view stem;
  std::string_view expansion;
};
bool SplitClitic(std::string_view lower, Clitic* out);

// `lower` with Latin-1 accented letters folded to ASCII ("naïve" -> "naive").
// Returns false (and leaves `out` unspecified) when there was nothing to fold.
bool FoldAccents(std::string_view lower, std::string* out);

// Splits an identifier into pieces [begin, end) of `cased` and appends them to
// `pieces`. kAtConnectors: at '-', '_', '.' and apostrophes ("os.path_v2" -> "os"
// "path" "v2"). kAtHumps, for a piece without connectors: at lower->upper case
// changes ("parseConfig"), before the last capital of a capital run followed by a
// lower-case letter ("XMLParser" -> "XML" "Parser") and between letters and digits
// ("v2" -> "v" "2"). Connector pieces come first because the vocabulary has many
// of them whole ("v2", "mp3", "x86").
enum class IdentifierSplit { kAtConnectors, kAtHumps };
void SplitIdentifier(std::string_view cased, IdentifierSplit how,
                     std::vector<std::pair<size_t, size_t>>* pieces);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_WORD_TOKENS_H_
