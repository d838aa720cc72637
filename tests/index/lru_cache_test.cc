// The index's small cache (src/index/search/lru_cache.h): hits move to the
// front, the least recent goes first, and values outlive their eviction.
#include "index/search/lru_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace vexfs::index {
namespace {

TEST(LruCacheTest, KeepsTheMostRecentlyUsed) {
  LruCache<std::string, int> cache(2);
  cache.Insert("a", std::make_shared<const int>(1));
  cache.Insert("b", std::make_shared<const int>(2));
  ASSERT_NE(cache.Find("a"), nullptr);  // now a is the most recent
  cache.Insert("c", std::make_shared<const int>(3));
  EXPECT_EQ(cache.Find("b"), nullptr) << "b was the least recently used";
  ASSERT_NE(cache.Find("a"), nullptr);
  EXPECT_EQ(*cache.Find("a"), 1);
  EXPECT_EQ(*cache.Find("c"), 3);
}

TEST(LruCacheTest, AValueHandedOutOutlivesItsEviction) {
  LruCache<int, std::string> cache(1);
  cache.Insert(1, std::make_shared<const std::string>("kept"));
  auto held = cache.Find(1);
  cache.Insert(2, std::make_shared<const std::string>("other"));
  EXPECT_EQ(cache.Find(1), nullptr);
  EXPECT_EQ(*held, "kept");
}

}  // namespace
}  // namespace vexfs::index
