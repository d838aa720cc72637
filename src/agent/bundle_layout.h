// The section names of an agent bundle and the file system places it uses,
// shared by export, import and inspect (docs/agent-bundle.md, "Sections").
#ifndef VEXFS_AGENT_BUNDLE_LAYOUT_H_
#define VEXFS_AGENT_BUNDLE_LAYOUT_H_

#include <string>

namespace vexfs::agent {

inline constexpr char kManifestSection[] = "manifest";
inline std::string ObjectSection(size_t i) { return "objects." + std::to_string(i); }
inline std::string KvSection(size_t i) { return "kv." + std::to_string(i); }

}  // namespace vexfs::agent

#endif  // VEXFS_AGENT_BUNDLE_LAYOUT_H_
