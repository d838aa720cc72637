// Transfer quantisation for USXF sections: f32/f16/bf16 values carried as f16,
// bf16 or int8 with one f32 scale per group, and back. The error bounds below are
// the documented ones (docs/usxf.md, "Quantisation"); tests check them.
//
// Thread-safety: pure functions.
#ifndef VEXFS_USXF_QUANT_H_
#define VEXFS_USXF_QUANT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "vexfs/usxf.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::usxf {

// |decoded - x| <= kF16RelativeError * |x| for |x| in f16's normal range
// [2^-14, 65504]; below it the error is at most kF16AbsoluteErrorSubnormal.
inline constexpr double kF16RelativeError = 1.0 / 2048;             // 2^-11
inline constexpr double kF16AbsoluteErrorSubnormal = 1.0 / (1 << 25);  // 2^-25
// |decoded - x| <= kBF16RelativeError * |x| (normal range of f32).
inline constexpr double kBF16RelativeError = 1.0 / 256;  // 2^-8
// int8_group: scale = max|x| / 127 over the group; |decoded - x| <= scale / 2
// (plus f32 rounding of the product, below 2^-23 * max|x|).

uint16_t F32ToF16(float x);  // round to nearest even; overflow gives infinity
float F16ToF32(uint16_t h);
uint16_t F32ToBF16(float x);  // round to nearest even
float BF16ToF32(uint16_t b);

// Encodes `values` (count elements of dtype) with `encoding` into `out`.
// kInvalidArgument names the first element that cannot be carried (not finite,
// or beyond f16's range) or the disallowed combination.
Status EncodeValues(DType dtype, Encoding encoding, uint32_t group_size,
                    std::string_view values, std::string* out);
// Decodes a payload back to `count` elements of dtype. kCorruption if the payload
// length is wrong or a scale is not finite.
Status DecodeValues(DType dtype, Encoding encoding, uint32_t group_size,
                    std::string_view payload, uint64_t count, std::string* out);

size_t DTypeSize(DType dtype);  // bytes per element; 0 for kNone and kQ8_0

}  // namespace vexfs::usxf

#pragma GCC visibility pop

#endif  // VEXFS_USXF_QUANT_H_
