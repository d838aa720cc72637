// Reading and atomically writing the store's marker file.
#include "store/store_config.h"

#include <fstream>
#include <sstream>

#include "common/file_util.h"

namespace vexfs::internal {

Result<StoreConfig> ReadStoreConfig(const std::string& dir) {
  std::string path = dir + "/" + kConfigFileName;
  std::ifstream in(path);
  if (!in) return Status::NotFound("no VexFS store at '" + dir + "' (run 'vexfs init')");
  StoreConfig config;
  std::string key;
  bool has_format = false;
  while (in >> key) {
    if (key == "vexfs-store-format") {
      in >> config.format;
      has_format = true;
    } else if (key == "map_size") {
      in >> config.map_size;
    } else {
      std::string ignored;  // unknown keys are kept for newer versions, not errors
      in >> ignored;
    }
    if (!in) break;
  }
  if (!has_format || config.map_size == 0) {
    return Status::Corruption("store marker '" + path + "' is malformed");
  }
  return config;
}

Status WriteStoreConfig(const std::string& dir, const StoreConfig& config) {
  std::string path = dir + "/" + kConfigFileName;
  std::ostringstream text;
  text << "vexfs-store-format " << config.format << "\nmap_size " << config.map_size << "\n";
  std::string bytes = text.str();
  return WriteFileAtomically(path, bytes);
}

}  // namespace vexfs::internal
