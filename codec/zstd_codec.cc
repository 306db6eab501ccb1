#include "codec/zstd_codec.h"

#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>
#include <string>

namespace perfhive {

namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

// Compression of bytes in memory fails only when memory runs out or parameters are invalid,
// which are programming errors here.
size_t CheckCompress(size_t code) {
  if (ZSTD_isError(code)) std::abort();
  return code;
}

// zstd's window sizes: 2^10 to 2^31 on 64-bit (ZSTD_WINDOWLOG_MIN/MAX_64, which zstd.h shows
// only to static linking).
constexpr int kMinWindowLog = 10;
constexpr int kMaxWindowLog = 31;

// The window must reach back over the prefix and the whole content, or matches against the
// start of the prefix are lost.
int WindowLogFor(size_t bytes) {
  int log = static_cast<int>(std::bit_width(bytes | 1));
  return std::clamp(log, kMinWindowLog, kMaxWindowLog);
}

}  // namespace

std::vector<uint8_t> ZstdCompress(std::span<const uint8_t> data, int level,
                                  std::span<const uint8_t> prefix) {
  // One context per thread, reset for each frame: creating one cost more than compressing a
  // store section (half of a store writer's zstd time, measured with perf on ingest_load), and a
  // snapshot is dozens of sections.
#ifdef _WIN32
  // Not on Windows: a thread_local context's destructor, run by MinGW at the exit of the agent's
  // shipper thread, crashed the agent under Wine (page faults at exit, 3 runs in 4).
  std::unique_ptr<ZSTD_CCtx, CCtxDeleter> context(ZSTD_createCCtx());
#else
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> context(ZSTD_createCCtx());
#endif
  if (context == nullptr) std::abort();
  CheckCompress(ZSTD_CCtx_reset(context.get(), ZSTD_reset_session_and_parameters));
  CheckCompress(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, level));
  CheckCompress(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1));
  CheckCompress(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_contentSizeFlag, 1));
  if (!prefix.empty()) {
    CheckCompress(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_windowLog,
                                         WindowLogFor(prefix.size() + data.size())));
    CheckCompress(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_enableLongDistanceMatching, 1));
    CheckCompress(ZSTD_CCtx_refPrefix(context.get(), prefix.data(), prefix.size()));
  }
  std::vector<uint8_t> out(ZSTD_compressBound(data.size()));
  size_t written = CheckCompress(
      ZSTD_compress2(context.get(), out.data(), out.size(), data.data(), data.size()));
  out.resize(written);
  return out;
}

namespace {

// The content size a frame declares, checked: one whole frame, its size declared, at most
// `max_size`.
Result<size_t> DeclaredSize(std::span<const uint8_t> frame, size_t max_size) {
  size_t frame_size = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
  if (ZSTD_isError(frame_size)) {
    return Status::Error(std::string("zstd frame: ") + ZSTD_getErrorName(frame_size));
  }
  if (frame_size != frame.size()) {
    return Status::Error("zstd frame: " + std::to_string(frame.size() - frame_size) +
                         " bytes after the end of the frame at byte " + std::to_string(frame_size));
  }
  unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) return Status::Error("zstd frame: malformed header");
  if (declared == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Status::Error("zstd frame: the header does not declare the content size");
  }
  if (declared > max_size) {
    return Status::Error("zstd frame: declares " + std::to_string(declared) +
                         " bytes of content, more than the limit of " + std::to_string(max_size));
  }
  return static_cast<size_t>(declared);
}

// Decodes a frame checked by DeclaredSize into `out`, of the declared size.
Status DecodeChecked(std::span<const uint8_t> frame, std::span<uint8_t> out,
                     std::span<const uint8_t> prefix) {
  // One context per thread, reset for each frame: creating one costs more than decoding a small
  // delta, and a query decodes thousands of them.
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> context(ZSTD_createDCtx());
  if (context == nullptr) std::abort();
  ZSTD_DCtx_reset(context.get(), ZSTD_reset_session_and_parameters);
  // Decoding into one buffer of the declared size needs no separate window, so the window the
  // frame asks for costs nothing; allow the largest one the encoder may choose.
  ZSTD_DCtx_setParameter(context.get(), ZSTD_d_windowLogMax, kMaxWindowLog);
  if (!prefix.empty()) ZSTD_DCtx_refPrefix(context.get(), prefix.data(), prefix.size());
  size_t written =
      ZSTD_decompressDCtx(context.get(), out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(written)) {
    return Status::Error(std::string("zstd frame: ") + ZSTD_getErrorName(written));
  }
  if (written != out.size()) {
    return Status::Error("zstd frame: " + std::to_string(written) +
                         " bytes of content where the header declares " +
                         std::to_string(out.size()));
  }
  return Status();
}

}  // namespace

Result<std::vector<uint8_t>> ZstdDecompress(std::span<const uint8_t> frame, size_t max_size,
                                            std::span<const uint8_t> prefix) {
  Result<size_t> declared = DeclaredSize(frame, max_size);
  if (!declared.ok()) return declared.status();
  std::vector<uint8_t> out(*declared);
  if (Status s = DecodeChecked(frame, out, prefix); !s.ok()) return s;
  return out;
}

Status ZstdDecompressInto(std::span<const uint8_t> frame, std::span<uint8_t> out,
                          std::span<const uint8_t> prefix) {
  Result<size_t> declared = DeclaredSize(frame, out.size());
  if (!declared.ok()) return declared.status();
  if (*declared != out.size()) {
    return Status::Error("zstd frame: declares " + std::to_string(*declared) +
                         " bytes of content where " + std::to_string(out.size()) + " are expected");
  }
  return DecodeChecked(frame, out, prefix);
}

}  // namespace perfhive
