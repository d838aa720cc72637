// vexfs::Version (vexfs/version.h): the version CMake's project() declares.
#include "vexfs/version.h"

namespace vexfs {

const char* Version() { return VEXFS_VERSION_STRING; }

}  // namespace vexfs
