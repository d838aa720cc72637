// The "manifest" section of an agent bundle: what it holds, as JSON
// (docs/agent-bundle.md, "Manifest"). Decoding takes outside bytes: every
// field is checked for presence, type and range, and a bad one is
// kCorruption naming it.
#ifndef VEXFS_AGENT_MANIFEST_H_
#define VEXFS_AGENT_MANIFEST_H_

#include <string>
#include <string_view>

#include "vexfs/agent_bundle.h"

namespace vexfs::agent {

// EncodeManifest is public (vexfs/agent_bundle.h).
// kNotSupported for another format than kBundleFormat.
Result<BundleManifest> DecodeManifest(std::string_view json);

}  // namespace vexfs::agent

#endif  // VEXFS_AGENT_MANIFEST_H_
