// Xapian BM25 over a checkpoint and an in-memory tail, filtered by view.
#include "index/lexical/lexical_index.h"

#include <algorithm>

#include "index/lexical/analysis.h"
#include "index/lexical/checkpoint.h"
#include "index/lexical/log.h"
#include "index/lexical/visibility.h"
#include "index/model_registry.h"

namespace vexfs::index {
namespace {

// Expansion terms count half as much as the agent's own words (the usual
// interpolation of relevance-model feedback, RM3's lambda = 0.5).
constexpr double kFeedbackWeight = 0.5;

// Expansion takes stemmed terms (the "Z" forms) not already in the query.
class ExpansionDecider : public Xapian::ExpandDecider {
 public:
  explicit ExpansionDecider(const Xapian::Query& query)
      : used_(query.get_terms_begin(), query.get_terms_end()) {}
  bool operator()(const std::string& term) const override {
    return term.size() > 1 && term[0] == 'Z' &&
           std::find(used_.begin(), used_.end(), term) == used_.end();
  }

 private:
  std::vector<std::string> used_;
};

Status XapianStatus(const Xapian::Error& e, std::string_view what) {
  return Status::IOError(std::string(what) + ": " + e.get_description());
}

}  // namespace

LexicalIndex::LexicalIndex(Store* store, ModelRecord model, std::string dir)
    : store_(store), model_(std::move(model)), dir_(std::move(dir)) {}

Result<std::unique_ptr<LexicalIndex>> LexicalIndex::Open(Store* store,
                                                         const ModelRecord& model,
                                                         const std::string& dir,
                                                         const ProgressFn& progress) {
  std::unique_ptr<LexicalIndex> index(new LexicalIndex(store, model, dir));
  VEXFS_RETURN_IF_ERROR(index->Load(progress));
  return index;
}

Status LexicalIndex::Load(const ProgressFn& progress) {
  VEXFS_RETURN_IF_ERROR(RefreshModel());
  VEXFS_ASSIGN_OR_RETURN(auto cp, LoadLexicalCheckpoint(store_, model_, dir_));
  // No valid checkpoint of a large log, or one far behind: build one on disk
  // rather than holding that much in memory (a read-only store falls back to
  // memory).
  if (LexicalCheckpointDue(cp ? cp->count : 0, model_.next_vector) &&
      BuildLexicalCheckpoint(store_, model_, dir_, progress).ok()) {
    VEXFS_ASSIGN_OR_RETURN(cp, LoadLexicalCheckpoint(store_, model_, dir_));
  }
  checkpoint_.reset();
  checkpointed_ = 0;
  if (cp) {
    checkpoint_ = std::move(cp->db);
    checkpointed_ = cp->count;
  }
  try {
    tail_ = std::make_unique<Xapian::WritableDatabase>(std::string(), Xapian::DB_BACKEND_INMEMORY);
    tail_->set_metadata(std::string(kShardBaseKey), std::to_string(checkpointed_));
  } catch (const Xapian::Error& e) {
    return XapianStatus(e, "create the in-memory lexical index");
  }
  size_ = checkpointed_;
  return CatchUp();
}

Status LexicalIndex::RefreshModel() {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store_));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix, model_.info.name));
  if (!found) return Status::NotFound("model '" + model_.info.name + "' is not registered");
  model_ = *found;
  return Status::Ok();
}

Status LexicalIndex::CatchUp() {
  VEXFS_RETURN_IF_ERROR(RefreshModel());
  if (model_.next_vector < size_) {
    return Status::Corruption("lexical log of model '" + model_.info.name + "' shrank");
  }
  Status st;
  if (model_.next_vector > size_) {
    VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store_));
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
    // size_ follows every added document, so a catch-up that stops half-way
    // (a damaged record) resumes after what it added instead of adding it twice.
    try {
      st = ForEachLexicalRecord(txn, ix, model_, size_,
                                [&](uint64_t id, const ObjectId&, std::string_view text) {
                                  tail_->replace_document(
                                      static_cast<Xapian::docid>(id - checkpointed_ + 1),
                                      MakeLexicalDocument(text, id));
                                  size_ = id + 1;
                                  return Status::Ok();
                                });
      tail_->commit();
    } catch (const Xapian::Error& e) {
      st = XapianStatus(e, "update the in-memory lexical index");
    }
  }
  Combine();
  return st;
}

Result<uint64_t> LexicalIndex::IdOf(Xapian::docid combined) const {
  // Xapian numbers the documents of combined shards round-robin.
  Xapian::docid shards = checkpoint_ ? 2 : 1;
  Xapian::docid shard = (combined - 1) % shards, local = (combined - 1) / shards + 1;
  uint64_t id = (checkpoint_ && shard == 0 ? 0 : checkpointed_) + local - 1;
  if (id >= size_) return Status::Corruption("lexical index document past the log");
  return id;
}

void LexicalIndex::Combine() {
  combined_ = Xapian::Database();
  if (checkpoint_) combined_.add_database(*checkpoint_);
  combined_.add_database(*tail_);
}

Status LexicalIndex::SaveCheckpoint() {
  VEXFS_RETURN_IF_ERROR(BuildLexicalCheckpoint(store_, model_, dir_));
  return Load(nullptr);
}

Status LexicalIndex::Reload() { return Load(nullptr); }

Result<LexicalMatches> LexicalIndex::Search(std::string_view query, size_t k,
                                            const std::vector<uint8_t>& visible,
                                            uint64_t visible_count,
                                            const LexicalFeedback& feedback) {
  auto first = SearchOnce(query, k, visible, visible_count, feedback);
  if (first.ok() || first.status().code() == StatusCode::kInvalidArgument) return first;
  // The checkpoint was replaced twice under us, or its files went bad after they
  // were verified: reload (verifying again, or rebuilding) and ask once more.
  VEXFS_RETURN_IF_ERROR(Load(nullptr));
  return SearchOnce(query, k, visible, visible_count, feedback);
}

Result<LexicalMatches> LexicalIndex::SearchOnce(std::string_view query, size_t k,
                                                const std::vector<uint8_t>& visible,
                                                uint64_t visible_count,
                                                const LexicalFeedback& feedback) {
  VEXFS_ASSIGN_OR_RETURN(ParsedQuery parsed, ParseLexicalQuery(query, combined_));
  LexicalMatches out;
  out.empty_query = parsed.empty;
  if (parsed.empty) return out;
  try {
    Xapian::Enquire enquire(combined_);
    enquire.set_weighting_scheme(Xapian::BM25Weight());
    Xapian::Query in_view = VisibleIdsQuery(visible, visible_count, size_);
    enquire.set_query(Xapian::Query(Xapian::Query::OP_FILTER, parsed.query, in_view));
    if (feedback.enabled) {
      Xapian::MSet top = enquire.get_mset(0, feedback.documents);
      Xapian::RSet rset;
      for (auto it = top.begin(); it != top.end(); ++it) rset.add_document(*it);
      if (!rset.empty()) {
        ExpansionDecider fresh(parsed.query);
        Xapian::ESet eset = enquire.get_eset(feedback.terms, rset, &fresh);
        Xapian::Query expansion(Xapian::Query::OP_OR, eset.begin(), eset.end());
        Xapian::Query expanded(
            Xapian::Query::OP_OR, parsed.query,
            Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, expansion, kFeedbackWeight));
        enquire.set_query(Xapian::Query(Xapian::Query::OP_FILTER, expanded, in_view));
      }
    }
    Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(k));
    for (auto it = mset.begin(); it != mset.end(); ++it) {
      VEXFS_ASSIGN_OR_RETURN(uint64_t id, IdOf(*it));
      out.ids.push_back({id, static_cast<float>(it.get_weight())});
    }
  } catch (const Xapian::Error& e) {
    return XapianStatus(e, "lexical search");
  }
  return out;
}

}  // namespace vexfs::index
