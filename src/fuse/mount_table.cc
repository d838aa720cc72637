// VexfsStoreMountedAt: a scan of /proc/self/mountinfo (see mount_table.h).
#include "fuse/mount_table.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace vexfs::fuse {
namespace {

// mountinfo writes space, tab, newline and backslash in paths as \ooo.
std::string Unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    bool octal = field[i] == '\\' && i + 3 < field.size();
    if (octal && field[i + 1] >= '0' && field[i + 1] <= '3' && field[i + 2] >= '0' &&
        field[i + 2] <= '7' && field[i + 3] >= '0' && field[i + 3] <= '7') {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < line.size()) {
    size_t end = line.find(' ', start);
    if (end == std::string_view::npos) end = line.size();
    out.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

std::optional<VexfsMount> VexfsMountAt(std::string_view mountinfo,
                                       const std::string& mountpoint) {
  // "id parent major:minor root mountpoint options [optional...] - fstype source super"
  constexpr std::string_view kSourcePrefix = "vexfs:";
  std::optional<VexfsMount> found;
  size_t start = 0;
  while (start < mountinfo.size()) {
    size_t end = mountinfo.find('\n', start);
    if (end == std::string_view::npos) end = mountinfo.size();
    std::vector<std::string_view> f = Fields(mountinfo.substr(start, end - start));
    start = end + 1;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 6 || dash + 2 >= f.size() || Unescape(f[4]) != mountpoint) continue;
    // A newer mount on the same path hides the older: the last line decides.
    std::string source = Unescape(f[dash + 2]);
    found.reset();
    if (f[dash + 1] == "fuse.vexfs" && source.rfind(kSourcePrefix, 0) == 0) {
      std::string super = dash + 3 < f.size() ? std::string(f[dash + 3]) : "";
      found = VexfsMount{source.substr(kSourcePrefix.size()), std::string(f[5]), super};
    }
  }
  return found;
}

std::optional<VexfsMount> VexfsMountAt(const std::string& mountpoint) {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  return VexfsMountAt(text.str(), mountpoint);
}

std::optional<std::string> VexfsStoreMountedAt(std::string_view mountinfo,
                                               const std::string& mountpoint) {
  auto mount = VexfsMountAt(mountinfo, mountpoint);
  if (!mount) return std::nullopt;
  return mount->store;
}

std::optional<std::string> VexfsStoreMountedAt(const std::string& mountpoint) {
  auto mount = VexfsMountAt(mountpoint);
  if (!mount) return std::nullopt;
  return mount->store;
}

std::string ResolvedPath(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string out(real);
  std::free(real);
  return out;
}

bool HasOption(std::string_view options, std::string_view option) {
  while (!options.empty()) {
    size_t comma = options.find(',');
    if (options.substr(0, comma) == option) return true;
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace vexfs::fuse
