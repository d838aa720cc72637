// A small cache of shared, immutable values, most recently used kept: the
// index's catalogs (per view and model) and filter results (per catalog and
// filters) are both one.
//
// Thread-safety: every method may be called from any thread; values are
// shared_ptr<const>, so one handed out stays valid after it is evicted.
#ifndef VEXFS_INDEX_SEARCH_LRU_CACHE_H_
#define VEXFS_INDEX_SEARCH_LRU_CACHE_H_

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

namespace vexfs::index {

template <typename Key, typename Value>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  // The value cached for `key`, now the most recent; null when there is none.
  std::shared_ptr<const Value> Find(const Key& key) {
    std::lock_guard lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (!(it->first == key)) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().second;
    }
    return nullptr;
  }

  // Caches `value` for `key` as the most recent, evicting the least recent
  // beyond the capacity. A value built twice by racing callers is kept twice
  // at most until evicted: both are correct.
  void Insert(Key key, std::shared_ptr<const Value> value) {
    std::lock_guard lock(mu_);
    entries_.emplace_front(std::move(key), std::move(value));
    if (entries_.size() > capacity_) entries_.pop_back();
  }

 private:
  const size_t capacity_;
  std::mutex mu_;  // guards entries_
  std::list<std::pair<Key, std::shared_ptr<const Value>>> entries_;  // most recent first
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCH_LRU_CACHE_H_
