// Terms of passages and queries for the lexical (BM25) index.
#include "index/lexical/analysis.h"

#include "common/coding.h"

namespace vexfs::index {
namespace {

constexpr unsigned kQueryFlags = Xapian::QueryParser::FLAG_DEFAULT |
                                 Xapian::QueryParser::FLAG_CJK_NGRAM;
constexpr unsigned kPlainQueryFlags = Xapian::QueryParser::FLAG_CJK_NGRAM;

// The English stop word list of the Snowball project (snowballstem.org,
// algorithms/english/stop.txt), used for queries only.
constexpr std::string_view kStopWords[] = {
    "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
    "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
    "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which",
    "who", "whom", "this", "that", "these", "those", "am", "is", "are", "was", "were", "be",
    "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "would",
    "should", "could", "ought", "i'm", "you're", "he's", "she's", "it's", "we're", "they're",
    "i've", "you've", "we've", "they've", "i'd", "you'd", "he'd", "she'd", "we'd", "they'd",
    "i'll", "you'll", "he'll", "she'll", "we'll", "they'll", "isn't", "aren't", "wasn't",
    "weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't", "won't",
    "wouldn't", "shan't", "shouldn't", "can't", "cannot", "couldn't", "mustn't", "let's",
    "that's", "who's", "what's", "here's", "there's", "when's", "where's", "why's", "how's",
    "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at",
    "by", "for", "with", "about", "against", "between", "into", "through", "during", "before",
    "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
    "under", "again", "further", "then", "once", "here", "there", "when", "where", "why",
    "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no",
    "nor", "not", "only", "own", "same", "so", "than", "too", "very", "will", "shall"};

const Xapian::SimpleStopper& Stopper() {
  static const Xapian::SimpleStopper* stopper = [] {
    auto* s = new Xapian::SimpleStopper;
    for (std::string_view w : kStopWords) s->add(std::string(w));
    return s;
  }();
  return *stopper;
}

Xapian::TermGenerator MakeTermGenerator() {
  Xapian::TermGenerator gen;
  gen.set_stemmer(Xapian::Stem("english"));
  gen.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
  gen.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM);
  return gen;
}

Xapian::QueryParser MakeQueryParser(const Xapian::Database& db) {
  Xapian::QueryParser parser;
  parser.set_stemmer(Xapian::Stem("english"));
  parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
  parser.set_stopper(&Stopper());
  parser.set_default_op(Xapian::Query::OP_OR);
  parser.set_database(db);
  return parser;
}

}  // namespace

std::string LexicalFingerprint() {
  return "xapian-" + std::to_string(Xapian::major_version()) + "." +
         std::to_string(Xapian::minor_version()) +
         ";stem=english/some;cjk-ngram;positions;analysis=" + std::string(kLexicalAnalysisVersion);
}

std::string EncodeIdValue(uint64_t id) {
  Encoder e;
  e.PutFixed64BE(id);
  return e.Take();
}

bool DecodeIdValue(std::string_view value, uint64_t* id) {
  Decoder d(value);
  return d.GetFixed64BE(id) && d.done();
}

Xapian::Document MakeLexicalDocument(std::string_view text, uint64_t id) {
  Xapian::Document doc;
  // One generator per thread: building the stemmer for every passage costs more
  // than the short passages' terms.
  thread_local Xapian::TermGenerator gen = MakeTermGenerator();
  gen.set_document(doc);
  gen.set_termpos(0);
  gen.index_text(std::string(text));
  doc.add_value(kIdSlot, EncodeIdValue(id));
  return doc;
}

Result<ParsedQuery> ParseLexicalQuery(std::string_view text, const Xapian::Database& db) {
  if (text.size() > kMaxQueryBytes) {
    return Status::InvalidArgument("the query is " + std::to_string(text.size()) +
                                   " bytes; at most " + std::to_string(kMaxQueryBytes) +
                                   " are searched");
  }
  Xapian::QueryParser parser = MakeQueryParser(db);
  ParsedQuery out;
  try {
    out.query = parser.parse_query(std::string(text), kQueryFlags);
  } catch (const Xapian::QueryParserError&) {
    // Unbalanced quotes or operators: read the text as words, as a person meant.
    try {
      out.query = parser.parse_query(std::string(text), kPlainQueryFlags);
    } catch (const Xapian::Error& e) {
      return Status::InvalidArgument("the query cannot be read: " + e.get_msg());
    }
  } catch (const Xapian::Error& e) {
    return Status::IOError("lexical query: " + e.get_description());
  }
  out.empty = out.query.empty();
  return out;
}

}  // namespace vexfs::index
