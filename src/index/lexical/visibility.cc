// The posting source behind VisibleIdsQuery: the set bits of a bitmap, in the
// local document ids of one shard.
#include "index/lexical/visibility.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace vexfs::index {
namespace {

class VisibleIdSource : public Xapian::PostingSource {
 public:
  VisibleIdSource(const std::vector<uint8_t>& visible, uint64_t visible_count, uint64_t total)
      : visible_(visible), visible_count_(visible_count), total_(total) {}

  Xapian::PostingSource* clone() const override {
    return new VisibleIdSource(visible_, visible_count_, total_);
  }

  void init(const Xapian::Database& db) override {
    base_ = 0;
    std::string base = db.get_metadata(std::string(kShardBaseKey));
    if (!base.empty()) {
      auto [end, ec] = std::from_chars(base.data(), base.data() + base.size(), base_);
      if (ec != std::errc() || end != base.data() + base.size()) {
        throw Xapian::DatabaseCorruptError("lexical shard with a bad base id '" + base + "'");
      }
    }
    last_ = db.get_lastdocid();
    current_ = 0;
  }

  Xapian::doccount get_termfreq_min() const override { return 0; }
  Xapian::doccount get_termfreq_max() const override { return last_; }
  Xapian::doccount get_termfreq_est() const override {
    if (total_ == 0) return 0;
    double share = std::min(1.0, double(visible_count_) / double(total_));
    return static_cast<Xapian::doccount>(share * last_);
  }

  void next(double) override { current_ = NextVisible(current_ + 1); }
  void skip_to(Xapian::docid did, double) override {
    if (did > current_) current_ = NextVisible(did);
  }
  bool at_end() const override { return current_ > last_; }
  Xapian::docid get_docid() const override { return current_; }
  std::string get_description() const override { return "VisibleIdSource"; }

 private:
  // The first local id >= `from` whose lexical id is visible, or last_ + 1.
  Xapian::docid NextVisible(Xapian::docid from) const {
    uint64_t id = base_ + from - 1;
    uint64_t end = std::min<uint64_t>(base_ + last_, uint64_t(visible_.size()) * 8);
    while (id < end) {
      uint8_t byte = visible_[id / 8] >> (id % 8);
      if (byte == 0) {  // nothing left in this byte: skip whole empty bytes
        id = (id / 8 + 1) * 8;
        while (id < end && visible_[id / 8] == 0) id += 8;
        continue;
      }
      if (byte & 1) return static_cast<Xapian::docid>(id - base_ + 1);
      ++id;
    }
    return last_ + 1;
  }

  const std::vector<uint8_t>& visible_;
  uint64_t visible_count_;
  uint64_t total_;
  uint64_t base_ = 0;
  Xapian::docid last_ = 0;
  Xapian::docid current_ = 0;
};

}  // namespace

Xapian::Query VisibleIdsQuery(const std::vector<uint8_t>& visible, uint64_t visible_count,
                              uint64_t total) {
  auto* source = new VisibleIdSource(visible, visible_count, total);
  return Xapian::Query(source->release());
}

}  // namespace vexfs::index
