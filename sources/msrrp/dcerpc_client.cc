#include "sources/msrrp/dcerpc_client.h"

#include <algorithm>
#include <string>

namespace perfhive {

DcerpcClient::DcerpcClient(PipeTransport& transport, DcerpcClientOptions options)
    : transport_(transport), options_(options) {}

Result<std::vector<uint8_t>> DcerpcClient::ReadPdu() {
  std::vector<uint8_t> pdu(dcerpc::kHeaderSize);
  if (Status s = transport_.ReadExactly(pdu); !s.ok()) return s;
  Result<dcerpc::Header> header = dcerpc::ParseHeader(pdu);
  if (!header.ok()) return header.status();
  pdu.resize(header->fragment_length);
  if (Status s = transport_.ReadExactly(std::span(pdu).subspan(dcerpc::kHeaderSize)); !s.ok()) {
    return s;
  }
  return pdu;
}

Status DcerpcClient::Bind() {
  std::vector<uint8_t> bind =
      dcerpc::EncodeBind({.call_id = next_call_id_++,
                          .max_transmit_fragment = options_.max_transmit_fragment,
                          .max_receive_fragment = options_.max_receive_fragment,
                          .interface = dcerpc::kWinregInterface,
                          .transfer = dcerpc::kNdrTransferSyntax});
  if (Status s = transport_.Write(bind); !s.ok()) return s.Prefixed("bind: ");
  Result<std::vector<uint8_t>> answer = ReadPdu();
  if (!answer.ok()) return answer.status().Prefixed("bind: ");
  Result<dcerpc::BindAck> ack = dcerpc::ParseBindAnswer(*answer);
  if (!ack.ok()) return ack.status();
  transmit_fragment_ = std::min(options_.max_transmit_fragment, ack->max_receive_fragment);
  receive_fragment_ = ack->max_transmit_fragment;
  return Status();
}

Result<std::vector<uint8_t>> DcerpcClient::Call(uint16_t opnum, std::span<const uint8_t> stub,
                                                std::string_view name) {
  std::string what = std::string(name) + ": ";
  uint32_t call_id = next_call_id_++;
  for (const std::vector<uint8_t>& fragment :
       dcerpc::EncodeRequest(call_id, 0, opnum, stub, transmit_fragment_)) {
    if (Status s = transport_.Write(fragment); !s.ok()) return s.Prefixed(what);
  }
  std::vector<uint8_t> response;
  for (size_t index = 0;; ++index) {
    Result<std::vector<uint8_t>> pdu = ReadPdu();
    if (!pdu.ok()) return pdu.status().Prefixed(what);
    Result<dcerpc::Header> header = dcerpc::ParseHeader(*pdu);
    if (header->call_id != call_id) {
      return Status::DataLoss(what + "response fragment " + std::to_string(index) +
                              " has call id " + std::to_string(header->call_id) +
                              " at byte 12, expected " + std::to_string(call_id));
    }
    Result<dcerpc::ResponseFragment> fragment = dcerpc::ParseResponse(*pdu);
    if (!fragment.ok()) return fragment.status().Prefixed(what);
    bool first = (fragment->flags & dcerpc::kFirstFragment) != 0;
    if (first != (index == 0)) {
      return Status::DataLoss(what + "response fragment " + std::to_string(index) +
                              (first ? " repeats" : " lacks") + " the first-fragment flag");
    }
    if (response.size() + fragment->stub.size() > options_.max_response_bytes) {
      return Status::DataLoss(what + "the response grows past " +
                              std::to_string(options_.max_response_bytes) + " bytes at fragment " +
                              std::to_string(index));
    }
    // The allocation hint is only a hint, and trusted only up to the ceiling.
    if (index == 0)
      response.reserve(std::min<size_t>(fragment->alloc_hint, options_.max_response_bytes));
    response.insert(response.end(), fragment->stub.begin(), fragment->stub.end());
    if (fragment->flags & dcerpc::kLastFragment) return response;
  }
}

}  // namespace perfhive
