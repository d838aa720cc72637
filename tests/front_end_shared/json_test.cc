// The JSON every front end prints (src/front_end_shared/json.cc): times both
// ways, and the fields of attributes and search hits.
#include "vexfs/json.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace vexfs {
namespace {

constexpr TimeNs kSecond = 1000000000;

TEST(JsonTest, TimesParseFromEveryFormAndFormatBack) {
  ASSIGN_OR_FAIL(TimeNs from_seconds, ParseTime("1700000000"));
  EXPECT_EQ(from_seconds, 1700000000 * kSecond);
  EXPECT_EQ(FormatTime(from_seconds), "2023-11-14T22:13:20Z");
  ASSIGN_OR_FAIL(TimeNs from_stamp, ParseTime("2023-11-14T22:13:20Z"));
  EXPECT_EQ(from_stamp, from_seconds);
  ASSIGN_OR_FAIL(TimeNs from_day, ParseTime("2023-11-14"));
  EXPECT_EQ(from_day, 1699920000 * kSecond);
}

TEST(JsonTest, BadTimesAreRefusedNamingTheText) {
  for (const char* bad : {"", "yesterday", "2023-13-45", "2023-11-14 22:13", "99999999999999",
                          "2023-11-14T22:13:20"}) {
    auto parsed = ParseTime(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(parsed.status().message().find(std::string("'") + bad + "'"), std::string::npos)
        << parsed.status().ToString();
  }
}

TEST(JsonTest, AttributesCarryTypeModeOwnerAndTimes) {
  Attributes a;
  a.type = FileType::kRegular;
  a.mode = 0640;
  a.size = 12;
  a.uid = 7;
  a.gid = 8;
  a.nlink = 1;
  a.ino = 42;
  a.mtime = 1700000000 * kSecond + 5;
  nlohmann::json j = AttributesJson(a);
  EXPECT_EQ(j["type"], "file");
  EXPECT_EQ(j["mode"], 0640);
  EXPECT_EQ(j["size"], 12);
  EXPECT_EQ(j["uid"], 7);
  EXPECT_EQ(j["gid"], 8);
  EXPECT_EQ(j["ino"], 42);
  EXPECT_EQ(j["mtime"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(j["mtime_ns"], a.mtime);
  EXPECT_FALSE(j.contains("rdev")) << "only device files have a device number";
}

TEST(JsonTest, SearchHitsShowBothRanksOnlyWhereASideFoundThem) {
  SearchHit h;
  h.path = "notes/a.md";
  h.offset = 10;
  h.length = 20;
  h.score = 0.5f;
  h.snippet = "text";
  h.lexical = HitRank{3, 1.25f};
  nlohmann::json j = SearchHitJson(h);
  EXPECT_EQ(j["path"], "notes/a.md");
  EXPECT_EQ(j["offset"], 10);
  EXPECT_EQ(j["length"], 20);
  EXPECT_EQ(j["snippet"], "text");
  EXPECT_EQ(j["lexical"]["rank"], 3);
  EXPECT_TRUE(j["dense"].is_null());
}

}  // namespace
}  // namespace vexfs
