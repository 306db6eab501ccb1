#include "codec/snapshot_delta.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "base/byte_order.h"
#include "codec/zstd_codec.h"

namespace perfhive {

namespace {

// Frame header (docs/wire_protocol.md): magic, method, three zero bytes, the restored size and
// the base's size, both little-endian.
constexpr uint8_t kMagic[4] = {'P', 'H', 'D', 1};
constexpr size_t kHeaderBytes = 16;

using Method = DeltaMethod;

// The base, zero-extended or cut to `size` bytes, is the prediction; what is stored is the
// difference from it in little-endian 32-bit words (modulo 2^32), then single bytes for the
// tail. Counters that grow by a little leave words with small values and high zero bytes, which
// zstd codes in far fewer bits than the XOR would (a carry flips many bits, not one value).
uint32_t PredictedWord(std::span<const uint8_t> base, size_t at) {
  if (at + 4 <= base.size()) return LoadU32(base.data() + at);
  uint8_t word[4] = {0, 0, 0, 0};
  for (size_t i = 0; at + i < base.size() && i < 4; ++i) word[i] = base[at + i];
  return LoadU32(word);
}

// Applies `sign` (+1 to restore, -1 to take the difference) of the prediction to `bytes`.
void AddPrediction(std::span<const uint8_t> base, std::span<uint8_t> bytes, int sign) {
  size_t words = bytes.size() / 4 * 4;
  size_t common = std::min(words, base.size() / 4 * 4);
  // The common part, where the base is whole words, is the hot loop.
  for (size_t at = 0; at < common; at += 4) {
    uint32_t predicted = LoadU32(base.data() + at);
    uint32_t value = LoadU32(bytes.data() + at);
    StoreU32(bytes.data() + at, sign > 0 ? value + predicted : value - predicted);
  }
  for (size_t at = common; at < words; at += 4) {
    uint32_t predicted = PredictedWord(base, at);
    uint32_t value = LoadU32(bytes.data() + at);
    StoreU32(bytes.data() + at, sign > 0 ? value + predicted : value - predicted);
  }
  for (size_t at = words; at < bytes.size(); ++at) {
    uint8_t predicted = at < base.size() ? base[at] : 0;
    bytes[at] = static_cast<uint8_t>(sign > 0 ? bytes[at] + predicted : bytes[at] - predicted);
  }
}

void WriteHeader(Method method, size_t restored, size_t base, std::vector<uint8_t>& out) {
  out.assign(kMagic, kMagic + 4);
  out.push_back(static_cast<uint8_t>(method));
  out.insert(out.end(), 3, 0);
  out.resize(kHeaderBytes);
  StoreU32(out.data() + 8, static_cast<uint32_t>(restored));
  StoreU32(out.data() + 12, static_cast<uint32_t>(base));
}

}  // namespace

DeltaBody EncodeDeltaBody(std::span<const uint8_t> base, std::span<const uint8_t> current,
                          int level) {
  if (base.empty()) return {Method::kFull, ZstdCompress(current, level)};
  if (base.size() == current.size()) {
    // Same size: almost always the same layout, where the word difference wins.
    std::vector<uint8_t> difference(current.begin(), current.end());
    AddPrediction(base, difference, -1);
    return {Method::kDifference, ZstdCompress(difference, level)};
  }
  // Instances came or went and everything after them moved: let zstd find the moved runs.
  return {Method::kPrefix, ZstdCompress(current, level, base)};
}

Status DecodeDeltaBodyInto(DeltaMethod method, std::span<const uint8_t> base,
                           std::span<const uint8_t> compressed, std::span<uint8_t> out) {
  std::span<const uint8_t> prefix;
  switch (method) {
    case Method::kFull:
      if (!base.empty()) return Status::Error("a delta of method 0 (full) given a base");
      break;
    case Method::kDifference:
    case Method::kPrefix:
      if (base.empty()) {
        return Status::Error("a delta of method " + std::to_string(static_cast<int>(method)) +
                             " without its base");
      }
      if (method == Method::kPrefix) prefix = base;
      break;
    default:
      return Status::Error("unknown delta method " + std::to_string(static_cast<int>(method)));
  }
  if (Status s = ZstdDecompressInto(compressed, out, prefix); !s.ok()) return s;
  if (method == Method::kDifference) AddPrediction(base, out, +1);
  return Status();
}

Result<std::vector<uint8_t>> DecodeDeltaBody(DeltaMethod method, std::span<const uint8_t> base,
                                             std::span<const uint8_t> compressed,
                                             size_t restored_size) {
  std::vector<uint8_t> out(restored_size);
  if (Status s = DecodeDeltaBodyInto(method, base, compressed, out); !s.ok()) return s;
  return out;
}

std::vector<uint8_t> EncodeDelta(std::span<const uint8_t> base, std::span<const uint8_t> current,
                                 int level) {
  DeltaBody body = EncodeDeltaBody(base, current, level);
  std::vector<uint8_t> out;
  out.reserve(kHeaderBytes + body.compressed.size());
  WriteHeader(body.method, current.size(), body.method == Method::kFull ? 0 : base.size(), out);
  out.insert(out.end(), body.compressed.begin(), body.compressed.end());
  return out;
}

Result<std::vector<uint8_t>> DecodeDelta(std::span<const uint8_t> base,
                                         std::span<const uint8_t> delta, size_t max_size) {
  if (delta.size() < kHeaderBytes) {
    return Status::Error("delta frame: " + std::to_string(delta.size()) +
                         " bytes, shorter than the 16-byte header");
  }
  if (std::memcmp(delta.data(), kMagic, 4) != 0) {
    return Status::Error(
        "delta frame: bad magic at byte 0 (not a perfhive delta frame, or an "
        "unknown version)");
  }
  uint8_t method = delta[4];
  if (delta[5] != 0 || delta[6] != 0 || delta[7] != 0) {
    return Status::Error("delta frame: reserved bytes 5..7 are not zero");
  }
  uint32_t restored_size = LoadU32(delta.data() + 8);
  uint32_t base_size = LoadU32(delta.data() + 12);
  if (restored_size > max_size) {
    return Status::Error("delta frame: restored size " + std::to_string(restored_size) +
                         " at byte 8 is over the limit of " + std::to_string(max_size));
  }
  switch (static_cast<Method>(method)) {
    case Method::kFull:
      if (base_size != 0) {
        return Status::Error("delta frame: a keyframe with base size " + std::to_string(base_size) +
                             " at byte 12 (must be 0)");
      }
      base = {};
      break;
    case Method::kDifference:
    case Method::kPrefix:
      if (base_size == 0 || base_size != base.size()) {
        return Status::Error("delta frame: made against a base of " + std::to_string(base_size) +
                             " bytes (byte 12), given a base of " + std::to_string(base.size()));
      }
      break;
    default:
      return Status::Error("delta frame: unknown method " + std::to_string(method) + " at byte 4");
  }
  Result<std::vector<uint8_t>> content = DecodeDeltaBody(
      static_cast<Method>(method), base, delta.subspan(kHeaderBytes), restored_size);
  if (!content.ok()) return Status::Error("delta frame at byte 16: " + content.error());
  return content;
}

bool IsKeyframe(std::span<const uint8_t> frame) {
  return frame.size() >= kHeaderBytes && std::memcmp(frame.data(), kMagic, 4) == 0 &&
         frame[4] == static_cast<uint8_t>(Method::kFull);
}

}  // namespace perfhive
