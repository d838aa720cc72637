// Checks of graph writes (validation.h).
#include "graph/validation.h"

#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "graph/records.h"

namespace vexfs::graph {
namespace {

Status Invalid(std::string_view item, const std::string& what) {
  return Status::InvalidArgument(std::string(item) + ": " + what);
}

Status CheckName(std::string_view value, std::string_view field, std::string_view item) {
  if (value.size() > kMaxGraphName) {
    return Invalid(item, std::string(field) + " is longer than " + std::to_string(kMaxGraphName) + " bytes");
  }
  if (!IsValidUtf8(value) || value.find('\0') != std::string_view::npos) {
    return Invalid(item, std::string(field) + " is not UTF-8 text without NUL bytes");
  }
  return Status::Ok();
}

Status CheckKind(std::string_view kind, std::string_view item) {
  if (IsValidKind(kind)) return Status::Ok();
  return Invalid(item, "kind '" + std::string(kind) + "' is not 1-64 characters of [a-z0-9_]");
}

Status CheckSpan(const KvSpan& span, std::string_view item) {
  if (span.cache.empty()) return Invalid(item, "a KV span names no cache");
  VEXFS_RETURN_IF_ERROR(CheckName(span.cache, "the span's cache", item));
  VEXFS_RETURN_IF_ERROR(CheckName(span.tokens_hash, "the span's token hash", item));
  if (span.start >= span.end || span.end > span.cache_tokens) {
    return Invalid(item, "KV span [" + std::to_string(span.start) + ", " + std::to_string(span.end) +
                             ") is outside its cache of " + std::to_string(span.cache_tokens) +
                             " tokens");
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> CanonicalProperties(std::string_view properties, std::string_view item) {
  if (properties.size() > kMaxGraphProperties) {
    return Invalid(item, "properties are longer than " + std::to_string(kMaxGraphProperties) + " bytes");
  }
  if (!IsValidUtf8(properties)) return Invalid(item, "properties are not UTF-8");
  nlohmann::json parsed = nlohmann::json::parse(properties, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Invalid(item, "properties are not JSON");
  if (!parsed.is_object()) return Invalid(item, "properties are not a JSON object");
  std::string canonical = parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (canonical.size() > kMaxGraphProperties) {
    return Invalid(item, "properties are longer than " + std::to_string(kMaxGraphProperties) + " bytes");
  }
  return canonical;
}

Status CheckValidTime(TimeNs from, TimeNs to, std::string_view item) {
  if (from < 0 || to < 0) return Invalid(item, "a valid time is before 1970");
  if (to <= from) return Invalid(item, "its valid time ends before it starts");
  return Status::Ok();
}

Status CheckNodeSpec(const NodeSpec& spec, std::string_view item) {
  VEXFS_RETURN_IF_ERROR(CheckKind(spec.kind, item));
  if (spec.text.size() > kMaxGraphText) {
    return Invalid(item, "its text is longer than " + std::to_string(kMaxGraphText) + " bytes");
  }
  if (!IsValidUtf8(spec.text)) return Invalid(item, "its text is not UTF-8");
  VEXFS_RETURN_IF_ERROR(CheckName(spec.thread, "its thread", item));
  VEXFS_RETURN_IF_ERROR(CheckName(spec.key, "its key", item));
  VEXFS_RETURN_IF_ERROR(CheckName(spec.source, "its source", item));
  if (spec.kind == node_kind::kEntity && spec.key.empty() && NormaliseEntityName(spec.text).empty()) {
    return Invalid(item, "an entity without a key needs a name (its text)");
  }
  if (spec.kind == node_kind::kPendingAction && spec.key.empty()) {
    return Invalid(item, "a pending action needs a key (its idempotency key)");
  }
  if (spec.valid_from != 0 || spec.valid_to != kGraphForever) {
    VEXFS_RETURN_IF_ERROR(CheckValidTime(spec.valid_from, spec.valid_to, item));
  }
  if (spec.span) VEXFS_RETURN_IF_ERROR(CheckSpan(*spec.span, item));
  return Status::Ok();
}

Status CheckEdgeSpec(const EdgeSpec& spec, std::string_view item) {
  VEXFS_RETURN_IF_ERROR(CheckKind(spec.kind, item));
  if (spec.from.IsZero() || spec.to.IsZero()) return Invalid(item, "an edge needs both ends");
  if (spec.valid_from != 0 || spec.valid_to != kGraphForever) {
    VEXFS_RETURN_IF_ERROR(CheckValidTime(spec.valid_from, spec.valid_to, item));
  }
  return Status::Ok();
}

}  // namespace vexfs::graph
