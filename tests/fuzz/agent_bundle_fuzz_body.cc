// The agent bundle fuzz body (agent_bundle_fuzz_body.h).
#include "fuzz/agent_bundle_fuzz_body.h"

#include "agent/manifest.h"
#include "agent/object_pack.h"

namespace vexfs::agent::fuzz {
namespace {

using Records = std::vector<std::pair<ObjectId, std::string>>;

Status Decode(std::string_view pack, Records* out) {
  return DecodePack(pack, "objects.0", [&](const ObjectId& id, std::string_view stored) {
    out->emplace_back(id, std::string(stored));
    return Status::Ok();
  });
}

std::string Encode(const Records& records) {
  std::string out;
  for (const auto& [id, stored] : records) out += PackRecordHead(id, stored.size()) + stored;
  return out;
}

std::string CheckManifest(std::string_view json) {
  Result<BundleManifest> m = DecodeManifest(json);
  if (!m.ok()) {
    StatusCode code = m.status().code();
    return code == StatusCode::kCorruption || code == StatusCode::kNotSupported
               ? ""
               : "a manifest was refused with " + m.status().ToString();
  }
  const std::string once = EncodeManifest(*m);
  Result<BundleManifest> again = DecodeManifest(once);
  if (!again.ok()) return "an accepted manifest re-encoded does not decode: " + again.status().ToString();
  if (EncodeManifest(*again) != once) return "a manifest changed on its way through encode and decode";
  return "";
}

std::string CheckPack(std::string_view pack) {
  Records records;
  Status st = Decode(pack, &records);
  if (!st.ok()) return st.IsCorruption() ? "" : "a pack was refused with " + st.ToString();
  Records again;
  st = Decode(Encode(records), &again);
  if (!st.ok()) return "an accepted pack re-encoded does not decode: " + st.ToString();
  if (again != records) return "a pack changed on its way through encode and decode";
  return "";
}

}  // namespace

std::string CheckBundlePart(std::string_view input) {
  if (input.empty()) return "";
  std::string_view body = input.substr(1);
  return (input[0] & 1) == 0 ? CheckManifest(body) : CheckPack(body);
}

bool BundlePartDecodes(std::string_view input) {
  if (input.empty()) return false;
  std::string_view body = input.substr(1);
  if ((input[0] & 1) == 0) return DecodeManifest(body).ok();
  Records records;
  return Decode(body, &records).ok() && !records.empty();
}

std::vector<std::string> BundlePartSeeds() {
  BundleManifest m;
  m.agent = "planner";
  m.source_store = "/srv/agents/planner";
  m.created = 1765000000000000000;
  m.snapshot.bytes.fill(0xab);
  m.parents = {ObjectId{}};
  m.branch = "main";
  m.base = {ObjectId{}};
  m.names = {{"s2", m.snapshot}};
  m.extensions = {"graph"};
  m.objects = 2;
  m.object_bytes = 9;
  m.object_sections = {"objects.0"};
  m.kv = {{"ctx", "kv.0", 4096, {"00112233445566778899aabbccddeeff"}}};
  Records records = {{m.snapshot, "commit"}, {ObjectId{}, "abc"}};
  return {std::string(1, '\0') + EncodeManifest(m), std::string(1, '\1') + Encode(records)};
}

}  // namespace vexfs::agent::fuzz
