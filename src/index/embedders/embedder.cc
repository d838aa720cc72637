// Shared embedder helpers: metric names and vector validation.
#include "index/embedders/embedder.h"

#include <cmath>

namespace vexfs::index {

const char* MetricName(Metric m) { return m == Metric::kL2 ? "l2" : "ip"; }

Status ValidateVector(const ModelInfo& model, const float* v, size_t n) {
  if (n != model.dim) {
    return Status::InvalidArgument("vector has " + std::to_string(n) + " values; model '" +
                                   model.name + "' has dimension " + std::to_string(model.dim));
  }
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) {
      return Status::InvalidArgument("vector value " + std::to_string(i) +
                                     " is not finite (NaN or infinity)");
    }
  }
  return Status::Ok();
}

}  // namespace vexfs::index
