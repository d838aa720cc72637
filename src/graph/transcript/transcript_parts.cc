// Keys, times, properties and the batch builder both transcript forms use
// (transcript_parts.h).
#include "graph/transcript/transcript_parts.h"

#include <ctime>

namespace vexfs::graph::transcript {
namespace {

bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

std::string KeyOf(const std::string& thread, size_t line, const std::string& suffix) {
  return "transcript:" + thread + "#" + std::to_string(line) + suffix;
}

}  // namespace

Status LineError(size_t line, const std::string& what) {
  return Status::InvalidArgument("line " + std::to_string(line) + ": " + what);
}

Result<TimeNs> ParseRfc3339(std::string_view s) {
  auto bad = Status::InvalidArgument("timestamp '" + std::string(s) + "' is not RFC 3339");
  std::tm tm{};
  int year, month, day, hour, minute, second;
  if (!Digits(s, 0, 4, &year) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, &month) || s[7] != '-' ||
      !Digits(s, 8, 2, &day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !Digits(s, 11, 2, &hour) ||
      s[13] != ':' || !Digits(s, 14, 2, &minute) || s[16] != ':' || !Digits(s, 17, 2, &second)) {
    return bad;
  }
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (year < 1970 || year > 2261 || month < 1 || month > 12 || day < 1 ||
      day > kDays[month - 1] + (month == 2 && leap ? 1 : 0) || hour > 23 || minute > 59 || second > 60) {
    return bad;
  }
  size_t at = 19;
  int64_t nanos = 0;
  if (at < s.size() && s[at] == '.') {
    size_t digits = 0;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, ++digits) {
      if (digits < 9) nanos = nanos * 10 + (s[at] - '0');
    }
    if (digits == 0) return bad;
    for (; digits < 9; ++digits) nanos *= 10;
  }
  int64_t offset = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int oh, om;
    if (!Digits(s, at + 1, 2, &oh) || at + 3 >= s.size() || s[at + 3] != ':' || !Digits(s, at + 4, 2, &om)) {
      return bad;
    }
    offset = (s[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    at += 6;
  } else {
    return bad;
  }
  if (at != s.size()) return bad;
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  int64_t seconds = static_cast<int64_t>(timegm(&tm)) - offset;
  if (seconds < 0) return bad;
  return seconds * 1000000000 + nanos;
}

std::string JoinedText(const json& content) {
  if (!content.is_array()) return "";
  std::string out;
  for (const json& block : content) {
    if (!block.is_object() || block.value("type", "") != "text" || !block.contains("text") ||
        !block["text"].is_string()) {
      continue;
    }
    if (!out.empty()) out += "\n\n";
    out += block["text"].get<std::string>();
  }
  return out;
}

json FieldsWithout(const json& message, std::initializer_list<const char*> drop) {
  json out = message;
  for (const char* name : drop) out.erase(name);
  return out;
}

Result<NodeSpec> BatchBuilder::Spec(const Line& line, const std::string& key, const std::string& kind,
                                    const std::string& text, json transcript) {
  transcript["format"] = format_;
  std::string props = json{{"transcript", transcript}}.dump(-1, ' ', false, json::error_handler_t::replace);
  if (props.size() > kMaxGraphProperties) {
    return LineError(line.number, "its " + kind + " keeps more than " + std::to_string(kMaxGraphProperties) +
                                      " bytes besides its text");
  }
  if (text.size() > kMaxGraphText) {
    return LineError(line.number, "its " + kind + " text is longer than " + std::to_string(kMaxGraphText) + " bytes");
  }
  TimeNs valid_from = 0;
  if (line.message.contains("timestamp")) {
    const json& ts = line.message["timestamp"];
    if (!ts.is_string()) return LineError(line.number, "its timestamp is not a string");
    auto parsed = ParseRfc3339(ts.get<std::string>());
    if (!parsed.ok()) return LineError(line.number, parsed.status().message());
    valid_from = *parsed;
  }
  // A message already imported must be this message: importing part of a
  // transcript, or another one, into the thread is refused, not merged.
  return NodeSpec{.kind = kind, .text = text, .properties = props, .thread = thread_, .key = key,
                  .valid_from = valid_from, .must_match = true};
}

Result<GraphId> BatchBuilder::AddMessage(const Line& line, const std::string& kind, const std::string& text,
                                         json transcript, const std::string& speaker) {
  transcript["seq"] = line.seq;
  VEXFS_ASSIGN_OR_RETURN(NodeSpec spec, Spec(line, KeyOf(thread_, line.seq, ""), kind, text, transcript));
  spec.source = speaker;
  GraphId id = batch_.AddNode(std::move(spec));
  if (!previous_.IsZero()) Link(edge_kind::kRepliedTo, id, previous_);
  previous_ = id;
  return id;
}

Result<GraphId> BatchBuilder::AddPart(const Line& line, const std::string& suffix, const std::string& kind,
                                      const std::string& text, json transcript, const GraphId& from,
                                      const std::string& edge) {
  VEXFS_ASSIGN_OR_RETURN(NodeSpec spec, Spec(line, KeyOf(thread_, line.seq, suffix), kind, text, transcript));
  GraphId id = batch_.AddNode(std::move(spec));
  Link(edge, from, id);
  return id;
}

void BatchBuilder::Link(const std::string& kind, const GraphId& from, const GraphId& to) {
  batch_.Link({.kind = kind, .from = from, .to = to});
}

Result<json> TranscriptOf(const GraphNode& node) {
  json props = json::parse(node.properties, nullptr, /*allow_exceptions=*/false);
  if (!props.is_object() || !props.contains("transcript") || !props["transcript"].is_object()) {
    return Status::Corruption("node " + node.id.ToHex() + " was not imported from a transcript");
  }
  return props["transcript"];
}

}  // namespace vexfs::graph::transcript
