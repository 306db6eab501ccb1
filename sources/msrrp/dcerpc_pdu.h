// DCE/RPC connection-oriented PDUs (C706 chapter 12, with MS-RPCE's additions) as the winreg
// client needs them: bind and its answers (bind_ack, bind_nak), request fragments, and response
// or fault fragments. Only what a named pipe carries without RPC-level authentication: the SMB
// session below authenticates, signs and encrypts, as Windows' own clients do on \PIPE\winreg.
// Every parser checks each length against the bytes it was given.

#ifndef PERFHIVE_SOURCES_MSRRP_DCERPC_PDU_H_
#define PERFHIVE_SOURCES_MSRRP_DCERPC_PDU_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace perfhive::dcerpc {

enum class PacketType : uint8_t {
  kRequest = 0,
  kResponse = 2,
  kFault = 3,
  kBind = 11,
  kBindAck = 12,
  kBindNak = 13,
};

inline constexpr uint8_t kFirstFragment = 0x01;
inline constexpr uint8_t kLastFragment = 0x02;
inline constexpr size_t kHeaderSize = 16;
// Request and response PDUs carry 8 more bytes before the stub.
inline constexpr size_t kRequestHeaderSize = 24;

// An interface or transfer syntax: a UUID and a version (major in the low 16 bits).
struct SyntaxId {
  std::array<uint8_t, 16> uuid;  // in NDR's little-endian field order
  uint32_t version;
};

// "338cd001-2244-31f1-aaaa-900038001003" to the wire layout; the text must be well formed.
std::array<uint8_t, 16> UuidFromText(const char* text);

// winreg 1.0 and NDR 2.0.
extern const SyntaxId kWinregInterface;
extern const SyntaxId kNdrTransferSyntax;

// The 16 bytes every PDU starts with.
struct Header {
  PacketType type;
  uint8_t flags;
  uint16_t fragment_length;
  uint16_t auth_length;
  uint32_t call_id;
};

// Checks version 5.0, little-endian integers with ASCII characters, and a fragment length that
// covers at least the header.
Result<Header> ParseHeader(std::span<const uint8_t> bytes);

struct BindParameters {
  uint32_t call_id;
  uint16_t max_transmit_fragment;
  uint16_t max_receive_fragment;
  SyntaxId interface;
  SyntaxId transfer;
};
std::vector<uint8_t> EncodeBind(const BindParameters& bind);

// What the server accepted: its fragment limits (the client sends at most
// max_receive_fragment, the server at most max_transmit_fragment).
struct BindAck {
  uint16_t max_transmit_fragment;
  uint16_t max_receive_fragment;
  uint32_t association_group;
};
// A whole bind_ack or bind_nak PDU; a nak, or an ack that rejects the presentation context,
// is an error saying why.
Result<BindAck> ParseBindAnswer(std::span<const uint8_t> pdu);

// A request's stub cut into fragments of at most `max_fragment` bytes each, every one flagged
// first/last as it is and carrying the whole stub's size as its allocation hint.
std::vector<std::vector<uint8_t>> EncodeRequest(uint32_t call_id, uint16_t context_id,
                                                uint16_t opnum, std::span<const uint8_t> stub,
                                                uint16_t max_fragment);

// One response fragment: its flags and its piece of the stub.
struct ResponseFragment {
  uint8_t flags;
  uint32_t alloc_hint;
  std::span<const uint8_t> stub;
};
// A whole response PDU. A fault PDU becomes an error naming its status (DataLoss for a
// protocol or stub error, PermissionDenied for access denied, Unknown otherwise).
Result<ResponseFragment> ParseResponse(std::span<const uint8_t> pdu);

// "0x1c010003 (nca_s_unk_if: unknown interface)" for the faults a peer plausibly sends.
std::string DescribeFault(uint32_t status);

}  // namespace perfhive::dcerpc

#endif  // PERFHIVE_SOURCES_MSRRP_DCERPC_PDU_H_
