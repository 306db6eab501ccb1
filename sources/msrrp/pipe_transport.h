// PipeTransport: the seam under the DCE/RPC client, one open named pipe (\PIPE\winreg) that
// carries PDUs both ways. The real one (SmbPipeTransport) is an SMB2/3 session through
// libsmbclient; tests of the DCE/RPC and winreg code use scripted bytes instead, so everything
// above the seam runs without a server. Opening is the implementation's constructor or factory
// and closing its destructor, so the seam is only the two calls that move bytes.

#ifndef PERFHIVE_SOURCES_MSRRP_PIPE_TRANSPORT_H_
#define PERFHIVE_SOURCES_MSRRP_PIPE_TRANSPORT_H_

#include <cstdint>
#include <span>

#include "base/status.h"

namespace perfhive {

class PipeTransport {
 public:
  virtual ~PipeTransport() = default;

  // Writes all of `bytes` (one or more whole PDUs).
  virtual Status Write(std::span<const uint8_t> bytes) = 0;

  // Fills all of `out`. The DCE/RPC layer asks for a PDU's 16-byte header first and then for
  // exactly the rest of that PDU: a pipe read larger than what the server has queued can hang.
  // Errors carry their class in the code: DeadlineExceeded for a timeout, Unavailable for a
  // lost connection.
  virtual Status ReadExactly(std::span<uint8_t> out) = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_PIPE_TRANSPORT_H_
