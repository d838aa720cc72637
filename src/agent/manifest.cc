// Encoding and strict decoding of a bundle's manifest (manifest.h).
#include "agent/manifest.h"

#include <nlohmann/json.hpp>

namespace vexfs::agent {
namespace {

using nlohmann::json;

constexpr size_t kMaxCacheIdentity = 256;

json IdsJson(const std::vector<ObjectId>& ids) {
  json out = json::array();
  for (const ObjectId& id : ids) out.push_back(id.ToHex());
  return out;
}

json KvJson(const BundleKv& kv) {
  return {{"cache", kv.cache}, {"section", kv.section}, {"bytes", kv.bytes}, {"nodes", kv.nodes}};
}

// Reads fields of one JSON object, naming the field (and where it sits) when
// one is missing or of the wrong type.
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  Result<const json*> Get(const char* key, json::value_t type) const {
    auto it = object_.find(key);
    if (it == object_.end()) return Bad(key, "is missing");
    bool ok = it->type() == type ||
              (type == json::value_t::number_unsigned && it->type() == json::value_t::number_integer &&
               it->get<int64_t>() >= 0);
    if (!ok) return Bad(key, std::string("is not ") + TypeName(type));
    return &*it;
  }
  Result<std::string> String(const char* key) const {
    VEXFS_ASSIGN_OR_RETURN(const json* v, Get(key, json::value_t::string));
    return v->get<std::string>();
  }
  Result<uint64_t> U64(const char* key) const {
    VEXFS_ASSIGN_OR_RETURN(const json* v, Get(key, json::value_t::number_unsigned));
    return v->get<uint64_t>();
  }
  Result<int64_t> I64(const char* key) const {
    auto it = object_.find(key);
    if (it == object_.end()) return Bad(key, "is missing");
    if (!it->is_number_integer()) return Bad(key, "is not an integer");
    if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX}) return Bad(key, "is out of range");
    return it->get<int64_t>();
  }
  Result<ObjectId> Id(const char* key) const {
    VEXFS_ASSIGN_OR_RETURN(std::string hex, String(key));
    return IdOf(hex, key);
  }
  Result<std::vector<ObjectId>> Ids(const char* key) const {
    VEXFS_ASSIGN_OR_RETURN(const json* v, Get(key, json::value_t::array));
    std::vector<ObjectId> out;
    for (const json& item : *v) {
      if (!item.is_string()) return Bad(key, "holds a value that is not a string");
      VEXFS_ASSIGN_OR_RETURN(ObjectId id, IdOf(item.get<std::string>(), key));
      out.push_back(id);
    }
    return out;
  }
  Result<std::vector<std::string>> Strings(const char* key) const {
    VEXFS_ASSIGN_OR_RETURN(const json* v, Get(key, json::value_t::array));
    std::vector<std::string> out;
    for (const json& item : *v) {
      if (!item.is_string()) return Bad(key, "holds a value that is not a string");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  Status Bad(const char* key, const std::string& what) const {
    return Status::Corruption("bundle manifest: " + where_ + key + " " + what);
  }

 private:
  Result<ObjectId> IdOf(const std::string& hex, const char* key) const {
    auto id = ObjectId::FromHex(hex);
    if (!id.ok()) return Bad(key, "holds '" + hex.substr(0, 80) + "', not a 64-digit object id");
    return *id;
  }
  static const char* TypeName(json::value_t type) {
    switch (type) {
      case json::value_t::string: return "a string";
      case json::value_t::array: return "an array";
      case json::value_t::object: return "an object";
      case json::value_t::number_unsigned: return "a non-negative integer";
      default: return "of the expected type";
    }
  }
  const json& object_;
  std::string where_;
};

Result<std::vector<std::pair<std::string, ObjectId>>> DecodeNames(const json& array) {
  std::vector<std::pair<std::string, ObjectId>> out;
  for (size_t i = 0; i < array.size(); ++i) {
    if (!array[i].is_object()) return Status::Corruption("bundle manifest: names[" + std::to_string(i) + "] is not an object");
    Fields f(array[i], "names[" + std::to_string(i) + "].");
    VEXFS_ASSIGN_OR_RETURN(std::string name, f.String("name"));
    VEXFS_ASSIGN_OR_RETURN(ObjectId commit, f.Id("commit"));
    out.emplace_back(std::move(name), commit);
  }
  return out;
}

Result<std::vector<BundleKv>> DecodeKv(const json& array) {
  std::vector<BundleKv> out;
  for (size_t i = 0; i < array.size(); ++i) {
    std::string where = "kv[" + std::to_string(i) + "].";
    if (!array[i].is_object()) return Status::Corruption("bundle manifest: " + where + " is not an object");
    Fields f(array[i], where);
    BundleKv kv;
    VEXFS_ASSIGN_OR_RETURN(kv.cache, f.String("cache"));
    if (kv.cache.empty() || kv.cache.size() > kMaxCacheIdentity) {
      return f.Bad("cache", "is not 1 to 256 bytes");
    }
    VEXFS_ASSIGN_OR_RETURN(kv.section, f.String("section"));
    VEXFS_ASSIGN_OR_RETURN(kv.bytes, f.U64("bytes"));
    VEXFS_ASSIGN_OR_RETURN(kv.nodes, f.Strings("nodes"));
    out.push_back(std::move(kv));
  }
  return out;
}

Status DecodeInto(const json& doc, BundleManifest* m) {
  Fields f(doc, "");
  VEXFS_ASSIGN_OR_RETURN(m->format, f.String("format"));
  if (m->format != kBundleFormat) {
    return Status::NotSupported("bundle format '" + m->format.substr(0, 80) + "' is not " + kBundleFormat +
                                " (a newer VexFS wrote it?)");
  }
  VEXFS_ASSIGN_OR_RETURN(m->agent, f.String("agent"));
  VEXFS_ASSIGN_OR_RETURN(m->source_store, f.String("source_store"));
  VEXFS_ASSIGN_OR_RETURN(m->created, f.I64("created_ns"));
  VEXFS_ASSIGN_OR_RETURN(m->snapshot, f.Id("snapshot"));
  VEXFS_ASSIGN_OR_RETURN(m->parents, f.Ids("parents"));
  VEXFS_ASSIGN_OR_RETURN(m->branch, f.String("branch"));
  VEXFS_ASSIGN_OR_RETURN(m->base, f.Ids("base"));
  VEXFS_ASSIGN_OR_RETURN(const json* names, f.Get("names", json::value_t::array));
  VEXFS_ASSIGN_OR_RETURN(m->names, DecodeNames(*names));
  VEXFS_ASSIGN_OR_RETURN(m->extensions, f.Strings("extensions"));
  VEXFS_ASSIGN_OR_RETURN(const json* objects, f.Get("objects", json::value_t::object));
  Fields o(*objects, "objects.");
  VEXFS_ASSIGN_OR_RETURN(m->objects, o.U64("count"));
  VEXFS_ASSIGN_OR_RETURN(m->object_bytes, o.U64("bytes"));
  VEXFS_ASSIGN_OR_RETURN(m->object_sections, o.Strings("sections"));
  VEXFS_ASSIGN_OR_RETURN(const json* kv, f.Get("kv", json::value_t::array));
  VEXFS_ASSIGN_OR_RETURN(m->kv, DecodeKv(*kv));
  return Status::Ok();
}

}  // namespace

std::string EncodeManifest(const BundleManifest& m) {
  json names = json::array();
  for (const auto& [name, commit] : m.names) names.push_back({{"name", name}, {"commit", commit.ToHex()}});
  json kv = json::array();
  for (const BundleKv& k : m.kv) kv.push_back(KvJson(k));
  json doc = {{"format", m.format},
              {"agent", m.agent},
              {"source_store", m.source_store},
              {"created_ns", m.created},
              {"snapshot", m.snapshot.ToHex()},
              {"parents", IdsJson(m.parents)},
              {"branch", m.branch},
              {"base", IdsJson(m.base)},
              {"names", std::move(names)},
              {"extensions", m.extensions},
              {"objects", {{"count", m.objects}, {"bytes", m.object_bytes}, {"sections", m.object_sections}}},
              {"kv", std::move(kv)}};
  // Invalid UTF-8 (a store path, say) is replaced rather than refused.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<BundleManifest> DecodeManifest(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Corruption("bundle manifest: not valid JSON");
  if (!doc.is_object()) return Status::Corruption("bundle manifest: not a JSON object");
  BundleManifest m;
  VEXFS_RETURN_IF_ERROR(DecodeInto(doc, &m));
  return m;
}

}  // namespace vexfs::agent
