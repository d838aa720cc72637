// How text becomes Xapian terms, for passages and for queries alike: one place,
// so that the indexer and every search agree. Changing anything here changes what
// the lexical index holds, so it must change kLexicalAnalysisVersion too: the
// lexical model's fingerprint then differs and the index is rebuilt.
//
// Choices (docs/search.md, "Lexical search"): Xapian's English Snowball stemmer
// with STEM_SOME (stemmed terms for ranking, exact terms kept for phrases),
// positions for phrase queries, CJK text split into n-grams, and English stop
// words dropped from queries only (documents keep them, so a quoted phrase with
// "of" or "the" still matches). Queries use Xapian's default syntax: words,
// "quoted phrases", +required and -excluded terms, AND/OR/NOT in capitals.
#ifndef VEXFS_INDEX_LEXICAL_ANALYSIS_H_
#define VEXFS_INDEX_LEXICAL_ANALYSIS_H_

#include <xapian.h>

#include <string>
#include <string_view>

#include "vexfs/status.h"

namespace vexfs::index {

inline constexpr std::string_view kLexicalModelName = "bm25-en";
inline constexpr std::string_view kLexicalAnalysisVersion = "1";
// Identifies the analysis: Xapian's major version, stemmer, flags and ours.
std::string LexicalFingerprint();

// Queries longer than this are refused rather than cut: a cut query would answer
// a different question.
inline constexpr size_t kMaxQueryBytes = 64 * 1024;

// A Xapian document holding the terms (with positions) of `text`, and the
// passage's lexical id in value slot kIdSlot. Searches derive ids from document
// numbers (lexical_index.h); the value lets the files be read on their own.
Xapian::Document MakeLexicalDocument(std::string_view text, uint64_t id);
inline constexpr Xapian::valueno kIdSlot = 0;
std::string EncodeIdValue(uint64_t id);
bool DecodeIdValue(std::string_view value, uint64_t* id);

struct ParsedQuery {
  Xapian::Query query;
  bool empty = true;  // nothing to search for (only punctuation or whitespace)
};

// Parses `text` (valid UTF-8, at most kMaxQueryBytes) against `db`, whose
// vocabulary lets the parser decide how to read wildcards and phrases. Never
// throws; a query Xapian cannot parse as syntax is read as plain words.
Result<ParsedQuery> ParseLexicalQuery(std::string_view text, const Xapian::Database& db);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_ANALYSIS_H_
