#include "sources/msrrp/dcerpc_pdu.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

#include "base/byte_order.h"

namespace perfhive::dcerpc {
namespace {

// Integers little-endian, characters ASCII, floating point IEEE.
constexpr std::array<uint8_t, 4> kDataRepresentation = {0x10, 0, 0, 0};

void AppendHeader(std::vector<uint8_t>& out, PacketType type, uint8_t flags, uint32_t call_id) {
  out.insert(out.end(), {5, 0, static_cast<uint8_t>(type), flags});
  out.insert(out.end(), kDataRepresentation.begin(), kDataRepresentation.end());
  out.insert(out.end(), {0, 0, 0, 0});  // fragment length (set at the end), auth length 0
  uint8_t id[4];
  StoreU32(id, call_id);
  out.insert(out.end(), id, id + 4);
}

void SetFragmentLength(std::vector<uint8_t>& pdu) {
  StoreU16(pdu.data() + 8, static_cast<uint16_t>(pdu.size()));
}

void AppendU16(std::vector<uint8_t>& out, uint16_t v) {
  uint8_t raw[2];
  StoreU16(raw, v);
  out.insert(out.end(), raw, raw + 2);
}

void AppendU32(std::vector<uint8_t>& out, uint32_t v) {
  uint8_t raw[4];
  StoreU32(raw, v);
  out.insert(out.end(), raw, raw + 4);
}

void AppendSyntax(std::vector<uint8_t>& out, const SyntaxId& syntax) {
  out.insert(out.end(), syntax.uuid.begin(), syntax.uuid.end());
  AppendU32(out, syntax.version);
}

std::string Hex32(uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

// Why a server refused a presentation context or a whole bind (C706 p_provider_reason_t and
// p_reject_reason_t share their first values).
std::string DescribeRejection(uint16_t reason) {
  static constexpr std::array<std::string_view, 10> kReasons = {
      "reason not specified",
      "abstract syntax (interface) not supported",
      "proposed transfer syntaxes not supported",
      "local limit exceeded",
      "protocol version not supported",
      "default context not supported",
      "user data not readable",
      "no PSAP available",
      "authentication type not recognized",
      "invalid checksum",
  };
  return std::to_string(reason) +
         (reason < kReasons.size() ? " (" + std::string(kReasons[reason]) + ")" : "");
}

}  // namespace

std::array<uint8_t, 16> UuidFromText(const char* text) {
  unsigned int time_low = 0, time_mid = 0, time_hi = 0, clock[2] = {}, node[6] = {};
  std::sscanf(text, "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &time_low, &time_mid, &time_hi,
              &clock[0], &clock[1], &node[0], &node[1], &node[2], &node[3], &node[4], &node[5]);
  std::array<uint8_t, 16> uuid{};
  StoreU32(uuid.data(), time_low);
  StoreU16(uuid.data() + 4, static_cast<uint16_t>(time_mid));
  StoreU16(uuid.data() + 6, static_cast<uint16_t>(time_hi));
  uuid[8] = static_cast<uint8_t>(clock[0]);
  uuid[9] = static_cast<uint8_t>(clock[1]);
  for (int i = 0; i < 6; ++i) uuid[10 + i] = static_cast<uint8_t>(node[i]);
  return uuid;
}

const SyntaxId kWinregInterface = {UuidFromText("338cd001-2244-31f1-aaaa-900038001003"), 1};
const SyntaxId kNdrTransferSyntax = {UuidFromText("8a885d04-1ceb-11c9-9fe8-08002b104860"), 2};

Result<Header> ParseHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) {
    return Status::DataLoss("DCE/RPC header: " + std::to_string(bytes.size()) +
                            " bytes, a header has 16");
  }
  if (bytes[0] != 5 || bytes[1] != 0) {
    return Status::DataLoss("DCE/RPC header: version " + std::to_string(bytes[0]) + "." +
                            std::to_string(bytes[1]) + " at byte 0, expected 5.0");
  }
  // Only the integer representation matters to NDR here; a big-endian peer is not supported.
  if ((bytes[4] & 0xF0) != 0x10) {
    return Status::DataLoss("DCE/RPC header: data representation " + Hex32(LoadU32(&bytes[4])) +
                            " at byte 4 is not little-endian");
  }
  Header header{.type = static_cast<PacketType>(bytes[2]),
                .flags = bytes[3],
                .fragment_length = LoadU16(&bytes[8]),
                .auth_length = LoadU16(&bytes[10]),
                .call_id = LoadU32(&bytes[12])};
  if (header.fragment_length < kHeaderSize) {
    return Status::DataLoss("DCE/RPC header: fragment length " +
                            std::to_string(header.fragment_length) +
                            " at byte 8 is shorter than the header");
  }
  return header;
}

std::vector<uint8_t> EncodeBind(const BindParameters& bind) {
  std::vector<uint8_t> pdu;
  AppendHeader(pdu, PacketType::kBind, kFirstFragment | kLastFragment, bind.call_id);
  AppendU16(pdu, bind.max_transmit_fragment);
  AppendU16(pdu, bind.max_receive_fragment);
  AppendU32(pdu, 0);                    // association group: a new one
  pdu.insert(pdu.end(), {1, 0, 0, 0});  // one presentation context
  AppendU16(pdu, 0);                    // its id
  pdu.insert(pdu.end(), {1, 0});        // one transfer syntax
  AppendSyntax(pdu, bind.interface);
  AppendSyntax(pdu, bind.transfer);
  SetFragmentLength(pdu);
  return pdu;
}

Result<BindAck> ParseBindAnswer(std::span<const uint8_t> pdu) {
  Result<Header> header = ParseHeader(pdu);
  if (!header.ok()) return header.status();
  if (header->fragment_length != pdu.size()) {
    return Status::DataLoss("bind answer: fragment length " +
                            std::to_string(header->fragment_length) + " at byte 8, but " +
                            std::to_string(pdu.size()) + " bytes arrived");
  }
  if (header->type == PacketType::kBindNak) {
    if (pdu.size() < 18) return Status::DataLoss("bind_nak: no reason at byte 16");
    return Status::Unavailable("the server refused the bind (bind_nak), reason " +
                               DescribeRejection(LoadU16(&pdu[16])));
  }
  if (header->type != PacketType::kBindAck) {
    return Status::DataLoss("bind answer: packet type " +
                            std::to_string(static_cast<int>(header->type)) +
                            " at byte 2, expected bind_ack (12)");
  }
  if (pdu.size() < 26)
    return Status::DataLoss("bind_ack: " + std::to_string(pdu.size()) +
                            " bytes, too short for its fixed fields");
  BindAck ack{.max_transmit_fragment = LoadU16(&pdu[16]),
              .max_receive_fragment = LoadU16(&pdu[18]),
              .association_group = LoadU32(&pdu[20])};
  // The secondary address (the server's port name, NUL included), then alignment to 4.
  size_t address_length = LoadU16(&pdu[24]);
  size_t offset = 26 + address_length;
  offset = (offset + 3) & ~size_t{3};
  if (offset + 4 > pdu.size()) {
    return Status::DataLoss("bind_ack: secondary address length " + std::to_string(address_length) +
                            " at byte 24 runs past the result list");
  }
  uint8_t results = pdu[offset];
  if (results < 1) {
    return Status::DataLoss("bind_ack: result count 0 at byte " + std::to_string(offset));
  }
  offset += 4;
  if (offset + 24 > pdu.size()) {
    return Status::DataLoss("bind_ack: result 0 at byte " + std::to_string(offset) +
                            " runs past the end (" + std::to_string(pdu.size()) + " bytes)");
  }
  uint16_t result = LoadU16(&pdu[offset]);
  if (result != 0) {
    return Status::Unavailable("the server rejected the winreg interface (result " +
                               std::to_string(result) + ", reason " +
                               DescribeRejection(LoadU16(&pdu[offset + 2])) + ")");
  }
  if (ack.max_receive_fragment < kRequestHeaderSize + 8 ||
      ack.max_transmit_fragment < kRequestHeaderSize + 8) {
    return Status::DataLoss(
        "bind_ack: fragment limits " + std::to_string(ack.max_transmit_fragment) + "/" +
        std::to_string(ack.max_receive_fragment) + " at byte 16 leave no room for a stub");
  }
  return ack;
}

std::vector<std::vector<uint8_t>> EncodeRequest(uint32_t call_id, uint16_t context_id,
                                                uint16_t opnum, std::span<const uint8_t> stub,
                                                uint16_t max_fragment) {
  // Each fragment's stub piece is a multiple of 8 bytes (except the last), so that a receiver
  // that reassembles keeps the stub's alignment.
  size_t room = (max_fragment - kRequestHeaderSize) & ~size_t{7};
  std::vector<std::vector<uint8_t>> fragments;
  size_t offset = 0;
  do {
    size_t piece = std::min(room, stub.size() - offset);
    uint8_t flags =
        (offset == 0 ? kFirstFragment : 0) | (offset + piece == stub.size() ? kLastFragment : 0);
    std::vector<uint8_t> pdu;
    pdu.reserve(kRequestHeaderSize + piece);
    AppendHeader(pdu, PacketType::kRequest, flags, call_id);
    AppendU32(pdu, static_cast<uint32_t>(stub.size()));
    AppendU16(pdu, context_id);
    AppendU16(pdu, opnum);
    pdu.insert(pdu.end(), stub.begin() + offset, stub.begin() + offset + piece);
    SetFragmentLength(pdu);
    fragments.push_back(std::move(pdu));
    offset += piece;
  } while (offset < stub.size());
  return fragments;
}

Result<ResponseFragment> ParseResponse(std::span<const uint8_t> pdu) {
  Result<Header> header = ParseHeader(pdu);
  if (!header.ok()) return header.status();
  if (header->fragment_length != pdu.size()) {
    return Status::DataLoss("response: fragment length " + std::to_string(header->fragment_length) +
                            " at byte 8, but " + std::to_string(pdu.size()) + " bytes arrived");
  }
  if (header->type == PacketType::kFault) {
    if (pdu.size() < 28) return Status::DataLoss("fault: no status at byte 24");
    uint32_t status = LoadU32(&pdu[24]);
    std::string text = "the server answered with DCE/RPC fault " + DescribeFault(status);
    if (status == 5) return Status::PermissionDenied(text);
    if (status == 0x1c01000b || status == 0x6f7) return Status::DataLoss(text);
    return Status::Error(text);
  }
  if (header->type != PacketType::kResponse) {
    return Status::DataLoss("response: packet type " +
                            std::to_string(static_cast<int>(header->type)) +
                            " at byte 2, expected response (2) or fault (3)");
  }
  if (header->auth_length != 0) {
    return Status::DataLoss("response: auth length " + std::to_string(header->auth_length) +
                            " at byte 10 on an unauthenticated binding");
  }
  if (pdu.size() < kRequestHeaderSize) {
    return Status::DataLoss("response: " + std::to_string(pdu.size()) +
                            " bytes, shorter than its 24-byte header");
  }
  return ResponseFragment{.flags = header->flags,
                          .alloc_hint = LoadU32(&pdu[16]),
                          .stub = pdu.subspan(kRequestHeaderSize)};
}

std::string DescribeFault(uint32_t status) {
  struct Known {
    uint32_t status;
    std::string_view text;
  };
  static constexpr std::array kKnown = {
      Known{0x00000005, "access denied"},
      Known{0x000006f7, "RPC_X_BAD_STUB_DATA: the server could not parse the request"},
      Known{0x1c010002, "nca_s_op_rng_error: the server does not have this operation"},
      Known{0x1c010003, "nca_s_unk_if: unknown interface"},
      Known{0x1c01000b, "nca_s_proto_error: protocol error"},
      Known{0x1c00001a, "nca_s_fault_context_mismatch: the handle is not valid"},
  };
  for (const Known& known : kKnown) {
    if (known.status == status) return Hex32(status) + " (" + std::string(known.text) + ")";
  }
  return Hex32(status);
}

}  // namespace perfhive::dcerpc
