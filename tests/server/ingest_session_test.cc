// The Ingest service over a real gRPC server on loopback and a real store: what it stores, what
// it acknowledges and when, and what it refuses while the stream goes on.

#include <gmock/gmock.h>
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "tests/server/server_fixture.h"

namespace perfhive::testing {
namespace {

namespace v1 = perfhive::v1;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Reads the Welcome that answers a Hello.
v1::Welcome ReadWelcome(IngestClient& client) {
  v1::ServerMessage reply;
  EXPECT_TRUE(client.Receive(&reply));
  EXPECT_TRUE(reply.has_welcome()) << reply.DebugString();
  return reply.welcome();
}

v1::ServerMessage ReadReply(IngestClient& client) {
  v1::ServerMessage reply;
  EXPECT_TRUE(client.Receive(&reply));
  return reply;
}

TEST(IngestSessionTest, StoresKeyframesAndDeltasBitIdenticalAndAcknowledgesEach) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  v1::Welcome welcome = ReadWelcome(client);
  ASSERT_EQ(welcome.needed_titles_size(), 1);
  EXPECT_EQ(welcome.needed_titles(0), AsString(DigestOf(titles)));
  EXPECT_EQ(welcome.durable_sequence(), 0u);
  ASSERT_TRUE(client.Titles(titles));

  std::vector<std::vector<uint8_t>> sent;
  for (int i = 0; i < 5; ++i) sent.push_back(SmallSnapshot(i, /*seed=*/i));
  for (int i = 0; i < 5; ++i) {
    const std::vector<uint8_t>* base = i == 0 ? nullptr : &sent[i - 1];
    ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", i + 1, sent[i], &titles, base,
                                                          static_cast<uint64_t>(i))));
  }
  for (int i = 0; i < 5; ++i) {
    v1::ServerMessage reply = ReadReply(client);
    ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    EXPECT_EQ(reply.ack().sequence(), static_cast<uint64_t>(i + 1));
    EXPECT_FALSE(reply.ack().duplicate());
  }
  EXPECT_TRUE(client.Finish().ok());

  Result<std::vector<SnapshotInfo>> stored = server.store().ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(stored.ok()) << stored.error();
  ASSERT_EQ(stored->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*stored)[i].sample_time_ns, SampleNs(i));
    Result<std::vector<uint8_t>> raw = server.store().ReadSnapshot((*stored)[i]);
    ASSERT_TRUE(raw.ok()) << raw.error();
    EXPECT_EQ(*raw, sent[i]) << "snapshot " << i;
  }
  Result<std::optional<TitleDatabaseRecord>> in_force =
      server.store().catalog().TitlesInForce("web01", "009", SampleNs(3));
  ASSERT_TRUE(in_force.ok() && in_force->has_value());
  EXPECT_EQ((*in_force)->counters, titles.counters);
}

TEST(IngestSessionTest, AResendIsAcknowledgedAsDuplicateAndStoredOnce) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  std::vector<uint8_t> raw = SmallSnapshot(1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
    v1::Welcome welcome = ReadWelcome(client);
    // The second stream learns where to resume and that the titles are held already.
    EXPECT_EQ(welcome.durable_sequence(), attempt == 0 ? 0u : 1u);
    EXPECT_EQ(welcome.needed_titles_size(), attempt == 0 ? 1 : 0);
    if (attempt == 0) {
      ASSERT_TRUE(client.Titles(titles));
    }
    ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, raw, &titles)));
    v1::ServerMessage reply = ReadReply(client);
    ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    EXPECT_EQ(reply.ack().duplicate(), attempt == 1);
    EXPECT_TRUE(client.Finish().ok());
  }
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), 1u);
}

TEST(IngestSessionTest, MalformedSnapshotsAreRefusedAndTheStreamGoesOn) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ReadWelcome(client);
  ASSERT_TRUE(client.Titles(titles));

  std::vector<uint8_t> good = SmallSnapshot(1);
  std::vector<uint8_t> bad = good;
  bad[0] = 'X';  // the signature is no longer "PERF" in UTF-16
  std::vector<uint8_t> later = SmallSnapshot(2);
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, good, &titles)));
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 2, bad, &titles)));
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 3, later, &titles)));

  std::map<uint64_t, v1::ServerMessage> replies;
  for (int i = 0; i < 3; ++i) {
    v1::ServerMessage reply = ReadReply(client);
    uint64_t sequence = reply.has_ack() ? reply.ack().sequence() : reply.refusal().sequence();
    replies[sequence] = reply;
  }
  EXPECT_TRUE(replies[1].has_ack());
  ASSERT_TRUE(replies[2].has_refusal());
  EXPECT_EQ(replies[2].refusal().code(), "INVALID_ARGUMENT");
  EXPECT_THAT(replies[2].refusal().message(), HasSubstr("Signature"));
  EXPECT_TRUE(replies[3].has_ack());
  EXPECT_TRUE(client.Finish().ok());
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), 2u);
  EXPECT_EQ(server.ingest().counters().snapshots_refused.load(), 1u);
  EXPECT_EQ(server.store().catalog().FindHost("web01").value()->refusals, 1);
}

TEST(IngestSessionTest, RefusesOversizedCorruptAndUnanchoredSnapshotsByName) {
  TestServer server(TokenTable::AllowAll(), IngestLimits{.max_snapshot_bytes = 4096});
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ReadWelcome(client);

  std::vector<uint8_t> big = SmallSnapshot(1, 0, /*processes=*/200);
  ASSERT_GT(big.size(), 4096u);
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, big, &titles)));
  v1::ServerMessage reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "RESOURCE_EXHAUSTED");
  EXPECT_THAT(reply.refusal().message(), HasSubstr("over the server's limit of 4096 bytes"));

  std::vector<uint8_t> small = SmallSnapshot(2);
  // The titles were never sent: the snapshot cannot be named, so it is refused.
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 2, small, &titles)));
  reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "FAILED_PRECONDITION");
  EXPECT_THAT(reply.refusal().message(), HasSubstr("unknown to the server"));
  ASSERT_TRUE(client.Titles(titles));

  v1::AgentMessage corrupt = IngestClient::SnapshotMessage("run-1", 3, small, &titles);
  corrupt.mutable_snapshot()->mutable_sha256()->at(0) ^= 1;
  ASSERT_TRUE(client.Send(corrupt));
  reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal());
  EXPECT_EQ(reply.refusal().code(), "DATA_LOSS");

  // A delta against a base this stream never carried is not the snapshot's fault: it is asked
  // for again, as a keyframe.
  std::vector<uint8_t> other = SmallSnapshot(3);
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 4, other, &titles, &small, 99)));
  reply = ReadReply(client);
  ASSERT_TRUE(reply.has_resend()) << reply.DebugString();
  EXPECT_EQ(reply.resend().sequence(), 4u);
  EXPECT_THAT(reply.resend().reason(), HasSubstr("send a keyframe"));

  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 5, small, &titles)));
  reply = ReadReply(client);
  EXPECT_TRUE(reply.has_ack()) << reply.DebugString();
  EXPECT_TRUE(client.Finish().ok());
}

// Issue 20, case 5: an agent that drained a backlog of hundreds of spooled snapshots at once was
// refused everything past the rate limit ("more than 50 snapshots per second on one stream"),
// and each refusal deleted a snapshot. Past the limit the stream is read more slowly instead:
// every snapshot is stored.
TEST(IngestSessionTest, ABacklogOverTheRateIsSlowedDownNotRefused) {
  TestServer server(TokenTable::AllowAll(), IngestLimits{.max_snapshots_per_second = 20});
  TitleBytes titles = SmallTitles();
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ReadWelcome(client);
  ASSERT_TRUE(client.Titles(titles));
  constexpr int kBacklog = 130;  // a burst of 100, then 30 at 20 per second
  // Every message is made before the first is sent, so that the backlog arrives at once even on a
  // busy machine: the 30 past the burst take 1.5 s at the rate, and sending takes far less.
  std::vector<std::vector<uint8_t>> sent;
  for (int i = 0; i < kBacklog; ++i) sent.push_back(SmallSnapshot(i % 60, i, 20, /*perf_time=*/i));
  std::vector<v1::AgentMessage> messages;
  for (int i = 0; i < kBacklog; ++i) {
    const std::vector<uint8_t>* base = i == 0 ? nullptr : &sent[i - 1];
    messages.push_back(IngestClient::SnapshotMessage("run-1", i + 1, sent[i], &titles, base, i));
  }
  for (const v1::AgentMessage& message : messages) ASSERT_TRUE(client.Send(message));
  for (int i = 0; i < kBacklog; ++i) {
    v1::ServerMessage reply = ReadReply(client);
    ASSERT_TRUE(reply.has_ack()) << "reply " << i << ": " << reply.DebugString();
  }
  EXPECT_TRUE(client.Finish().ok());
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), size_t{kBacklog});
  EXPECT_EQ(server.ingest().counters().snapshots_refused.load(), 0u);
  // At least the part of the 30 over the burst that the time spent sending did not pay for.
  EXPECT_GE(server.ingest().counters().snapshots_delayed.load(), 10u);
}

// Issue 24, under backlog: agents draining an outage's backlog at once each had up to 64
// snapshots waiting to be made durable, all in memory (a thousand agents with 300 KB snapshots:
// 19 GB). Past the server-wide budget of bytes in flight, a stream that has one in flight is read
// no further until it completes; every snapshot is still stored.
TEST(IngestSessionTest, BacklogsOfSeveralStreamsStayWithinTheBytesInFlight) {
  StoreOptions slow_commits;  // so that appends queue up behind the writer
  slow_commits.commit_interval = std::chrono::milliseconds(20);
  TestServer server(TokenTable::AllowAll(),
                    IngestLimits{.max_snapshots_per_second = 10'000, .max_bytes_in_flight = 1},
                    slow_commits);
  TitleBytes titles = SmallTitles();
  constexpr int kBacklog = 40;
  const std::vector<std::string> hosts = {"web01", "web02"};
  std::vector<std::unique_ptr<IngestClient>> clients;
  size_t largest = 0;
  for (size_t h = 0; h < hosts.size(); ++h) {
    clients.push_back(std::make_unique<IngestClient>(server.address()));
    IngestClient& client = *clients.back();
    ASSERT_TRUE(client.Hello(hosts[h], "run-" + hosts[h], {titles}));
    ReadWelcome(client);
    ASSERT_TRUE(client.Titles(titles));
  }
  for (size_t h = 0; h < hosts.size(); ++h) {  // every backlog sent before any answer is read
    std::vector<std::vector<uint8_t>> sent;
    for (int i = 0; i < kBacklog; ++i) {
      sent.push_back(SmallSnapshot(i % 60, i, 20, /*perf_time=*/i));
      largest = std::max(largest, sent.back().size());
      const std::vector<uint8_t>* base = i == 0 ? nullptr : &sent[i - 1];
      ASSERT_TRUE(clients[h]->Send(
          IngestClient::SnapshotMessage("run-" + hosts[h], i + 1, sent[i], &titles, base, i)));
    }
  }
  for (size_t h = 0; h < hosts.size(); ++h) {
    for (int i = 0; i < kBacklog; ++i) {
      v1::ServerMessage reply = ReadReply(*clients[h]);
      ASSERT_TRUE(reply.has_ack()) << hosts[h] << " reply " << i << ": " << reply.DebugString();
    }
    EXPECT_TRUE(clients[h]->Finish().ok());
    EXPECT_EQ(server.store().ListSnapshots(hosts[h], 0, INT64_MAX)->size(), size_t{kBacklog});
  }
  const IngestCounters& counters = server.ingest().counters();
  // One snapshot of each stream at a time: the budget of one byte is over once one is in flight.
  EXPECT_LE(counters.bytes_in_flight_peak.load(), hosts.size() * largest);
  EXPECT_GT(counters.bytes_in_flight_peak.load(), 0u);
  EXPECT_GT(counters.reads_held_for_memory.load(), 0u);
  EXPECT_EQ(counters.bytes_in_flight.load(), 0u);
  EXPECT_EQ(counters.snapshots_refused.load(), 0u);
}

// Issue 20, case 3: the same sample sent again by another run (a replay repeated, a machine
// restored from a backup resending its spool) was stored a second time.
TEST(IngestSessionTest, TheSameSampleFromAnotherRunIsAcknowledgedAsADuplicate) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  std::vector<uint8_t> raw = SmallSnapshot(4, 4);
  for (const char* run : {"run-1", "run-2"}) {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", run, {titles}));
    ReadWelcome(client);
    ASSERT_TRUE(client.Titles(titles));
    ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage(run, 1, raw, &titles)));
    v1::ServerMessage reply = ReadReply(client);
    ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    EXPECT_EQ(reply.ack().duplicate(), std::string(run) == "run-2");
    EXPECT_TRUE(client.Finish().ok());
  }
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), 1u);
}

// Issue 20, case 6: a snapshot whose identity was stored with other bytes made the server end
// the stream as UNAVAILABLE, and the agent sent it first again at every reconnect, so nothing
// more from the host was ever stored. It is refused as a conflict now, and the stream goes on.
TEST(IngestSessionTest, AConflictIsRefusedAndTheStreamGoesOn) {
  TestServer server;
  TitleBytes titles = SmallTitles();
  IngestClient first(server.address());
  ASSERT_TRUE(first.Hello("web01", "run-1", {titles}));
  ReadWelcome(first);
  ASSERT_TRUE(first.Titles(titles));
  ASSERT_TRUE(first.Send(IngestClient::SnapshotMessage("run-1", 1, SmallSnapshot(1, 1), &titles)));
  ASSERT_TRUE(ReadReply(first).has_ack());
  EXPECT_TRUE(first.Finish().ok());

  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ReadWelcome(client);
  // Sequence 1 again, the same sample time, other values.
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 1, SmallSnapshot(1, 2), &titles)));
  v1::ServerMessage reply = ReadReply(client);
  ASSERT_TRUE(reply.has_refusal()) << reply.DebugString();
  EXPECT_EQ(reply.refusal().code(), "ALREADY_EXISTS");
  EXPECT_THAT(reply.refusal().message(), HasSubstr("with other bytes"));
  ASSERT_TRUE(client.Send(IngestClient::SnapshotMessage("run-1", 2, SmallSnapshot(2, 2), &titles)));
  reply = ReadReply(client);
  EXPECT_TRUE(reply.has_ack()) << reply.DebugString();
  EXPECT_TRUE(client.Finish().ok());
  EXPECT_EQ(server.store().ListSnapshots("web01", 0, INT64_MAX)->size(), 2u);
  EXPECT_EQ(server.ingest().counters().snapshots_conflicting.load(), 1u);
}

// Issue 20, case 9: a token that may write `web*` was accepted as `web01<ESC>[31mRED`, as a name
// with a newline, as a PDH path and as 8 MiB of `a`. Each is refused, saying why.
TEST(IngestSessionTest, AHostNameThatIsNotAComputerNameIsRefused) {
  TestServer server;
  const std::pair<std::string, std::string> bad[] = {
      {"web01\x1b[31mRED", "a control character (U+001B)"},
      {"evil\nlevel=error", "a control character (U+000A)"},
      {"\\\\web01\\Process(x)", "'\\'"},
      {std::string(8 << 20, 'a'), "8388608 bytes long"},
      {"web 01", "' '"},
  };
  for (const auto& [name, why] : bad) {
    IngestClient client(server.address());
    client.Hello(name, "run-1");
    grpc::Status status = client.Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << why;
    EXPECT_THAT(status.error_message(), AllOf(HasSubstr("is not a computer name"), HasSubstr(why)));
  }
  EXPECT_TRUE(server.store().catalog().ListHosts()->empty());
}

// Issue 20, case 9: a 16 MiB health message was stored and printed whole.
TEST(IngestSessionTest, AHealthMessageIsKeptBounded) {
  TestServer server;
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1"));
  ReadWelcome(client);
  v1::AgentMessage message;
  message.mutable_health()->set_last_error(std::string(16 << 20, 'x') + "\r\n");
  message.mutable_health()->set_last_error_unix_nanos(SampleNs(1));
  ASSERT_TRUE(client.Send(message));
  EXPECT_TRUE(client.Finish().ok());
  std::optional<HostRecord> host = server.store().catalog().FindHost("web01").value();
  ASSERT_TRUE(host.has_value());
  EXPECT_LE(host->last_error.size(), 4096u + 32u);
  EXPECT_THAT(host->last_error, HasSubstr("(16777218 bytes in all)"));
}

// A ProviderReport is the host's disabled providers: kept with the time the server first heard of
// each, replaced by the next (a provider still disabled keeps its time, one enabled again goes),
// and a report beyond reason ends the stream and keeps nothing of it.
TEST(IngestSessionTest, ProviderReportsReplaceTheHostsDisabledProviders) {
  TestServer server;
  auto report = [](std::vector<std::string> services) {
    v1::AgentMessage message;
    for (const std::string& service : services) {
      v1::DisabledProvider* provider = message.mutable_providers()->add_disabled();
      provider->set_service(service);
      provider->set_disable_value(1);
      provider->set_library(service + ".dll");
      provider->add_object_indexes(238);
      provider->add_object_indexes(510);
    }
    return message;
  };
  {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", "run-1"));
    ReadWelcome(client);
    ASSERT_TRUE(client.Send(report({"PerfOS", "PerfDisk"})));
    EXPECT_TRUE(client.Finish().ok());
  }
  auto first = server.store().catalog().DisabledProviders().value();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first.at("web01").size(), 2u);
  const query::DisabledProviderSince perf_os = first.at("web01")[1];
  EXPECT_EQ(perf_os.provider, (DisabledProvider{.service = "PerfOS",
                                                .disable_value = 1,
                                                .library = "PerfOS.dll",
                                                .object_indexes = {238, 510}}));
  EXPECT_GT(perf_os.since_ns, 0);
  {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", "run-1"));
    ReadWelcome(client);
    ASSERT_TRUE(client.Send(report({"PerfOS"})));
    EXPECT_TRUE(client.Finish().ok());
  }
  auto second = server.store().catalog().DisabledProviders().value();
  ASSERT_EQ(second.at("web01").size(), 1u);
  EXPECT_EQ(second.at("web01")[0].provider.service, "PerfOS");
  EXPECT_EQ(second.at("web01")[0].since_ns, perf_os.since_ns);

  IngestClient hostile(server.address());
  ASSERT_TRUE(hostile.Hello("web01", "run-1"));
  ReadWelcome(hostile);
  v1::AgentMessage huge = report({"PerfNet"});
  huge.mutable_providers()->mutable_disabled(0)->set_service(std::string(2000, 'x'));
  hostile.Send(huge);
  grpc::Status ended = hostile.Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(ended.error_message(), HasSubstr("1024 bytes"));
  EXPECT_EQ(server.store().catalog().DisabledProviders().value().at("web01").size(), 1u);
}

// CollectionLosses are kept as the agent's latest counts; the time they last grew moves when a
// count grows, not when the same counts come again, and a new start's zeros leave it alone.
TEST(IngestSessionTest, CollectionLossesKeepWhenACountLastGrew) {
  TestServer server;
  auto send = [&](int64_t started, uint64_t dropped, uint64_t skipped) {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", "run-1"));
    ReadWelcome(client);
    v1::AgentMessage message;
    message.mutable_losses()->set_agent_started_unix_nanos(started);
    message.mutable_losses()->set_dropped(dropped);
    message.mutable_losses()->set_skipped_ticks(skipped);
    ASSERT_TRUE(client.Send(message));
    EXPECT_TRUE(client.Finish().ok());
  };
  auto latest = [&] { return server.store().catalog().CollectionLosses().value().at("web01"); };
  send(SampleNs(1), 0, 0);
  EXPECT_EQ(latest().grew_ns, 0) << "nothing lost yet";
  send(SampleNs(1), 3, 0);
  const query::CollectionLosses grown = latest();
  EXPECT_EQ(grown.dropped, 3u);
  EXPECT_GT(grown.grew_ns, 0);
  send(SampleNs(1), 3, 0);
  EXPECT_EQ(latest().grew_ns, grown.grew_ns) << "the same counts again";
  send(SampleNs(2), 0, 0);
  EXPECT_EQ(latest().grew_ns, grown.grew_ns) << "another start, nothing lost";
  EXPECT_EQ(latest().dropped, 0u);
  send(SampleNs(2), 0, 2);
  EXPECT_GE(latest().grew_ns, grown.grew_ns);
  EXPECT_EQ(latest().skipped_ticks, 2u);
}

// ObjectTimings are the host's latest sweep, replacing the one before; the Welcome says the
// server takes them (agents send them to no server that does not).
TEST(IngestSessionTest, ObjectTimingsReplaceTheHostsLastSweep) {
  TestServer server;
  auto send = [&](std::vector<std::pair<uint32_t, int64_t>> objects) {
    IngestClient client(server.address());
    ASSERT_TRUE(client.Hello("web01", "run-1"));
    EXPECT_TRUE(ReadWelcome(client).takes_collection_reports());
    v1::AgentMessage message;
    message.mutable_timings()->set_measured_unix_nanos(SampleNs(5));
    message.mutable_timings()->set_interval_nanos(10'000'000'000);
    for (const auto& [index, nanos] : objects) {
      v1::ObjectTiming* timing = message.mutable_timings()->add_objects();
      timing->set_object_index(index);
      timing->set_nanos(nanos);
      timing->set_bytes(4096);
    }
    message.mutable_timings()->mutable_objects(0)->set_error("error 5");
    ASSERT_TRUE(client.Send(message));
    EXPECT_TRUE(client.Finish().ok());
  };
  send({{230, 2'000'000'000}, {238, 1'000'000}});
  send({{238, 3'000'000}, {510, 7'000'000}});
  const query::ObjectTimings kept = server.store().catalog().ObjectTimings().value().at("web01");
  EXPECT_EQ(kept.measured_ns, SampleNs(5));
  EXPECT_EQ(kept.interval_ns, 10'000'000'000);
  ASSERT_EQ(kept.objects.size(), 2u);
  EXPECT_EQ(kept.objects[0].object_index, 238u);
  EXPECT_EQ(kept.objects[0].nanos, 3'000'000);
  EXPECT_EQ(kept.objects[0].error, "error 5");
  EXPECT_EQ(kept.objects[1].object_index, 510u);
  EXPECT_EQ(kept.objects[1].bytes, 4096u);
}

// Regression: a message of a kind the server does not know (from an agent newer than it) ended
// the stream as "an empty AgentMessage", and the agent, reconnecting, sent it again forever. It
// is skipped; a message that is truly empty still ends the stream.
TEST(IngestSessionTest, AMessageOfAKindTheServerDoesNotKnowIsSkipped) {
  TestServer server;
  IngestClient client(server.address());
  ASSERT_TRUE(client.Hello("web01", "run-1"));
  ReadWelcome(client);
  v1::AgentMessage newer;
  newer.GetReflection()->MutableUnknownFields(&newer)->AddLengthDelimited(99, "from the future");
  ASSERT_TRUE(client.Send(newer));
  v1::AgentMessage health;
  health.mutable_health()->set_last_error("still here");
  health.mutable_health()->set_last_error_unix_nanos(SampleNs(1));
  ASSERT_TRUE(client.Send(health));
  ASSERT_TRUE(client.Send(v1::AgentMessage()));
  grpc::Status ended = client.Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(ended.error_message(), HasSubstr("an empty AgentMessage"));
  EXPECT_EQ(server.store().catalog().FindHost("web01").value()->last_error, "still here");
}

// A Hello's labels are the host's agent labels: kept in its row, replaced by the next Hello's; a
// bad one is left out (and logged) while the rest count and the stream goes on; a Hello that says
// it does not know them (a drain's) keeps them.
TEST(IngestSessionTest, AHellosLabelsAreKeptCheckedAndReplaced) {
  TestServer server;
  auto hello = [&](const std::map<std::string, std::string>& labels, bool unknown) {
    IngestClient client(server.address());
    v1::AgentMessage message;
    v1::Hello* h = message.mutable_hello();
    h->set_protocol_version(1);
    h->set_host_name("web01");
    h->set_source_kind(v1::SOURCE_KIND_AGENT);
    h->set_instance_id("run-1");
    h->mutable_labels()->insert(labels.begin(), labels.end());
    h->set_labels_unknown(unknown);
    ASSERT_TRUE(client.Send(message));
    ReadWelcome(client);
    EXPECT_TRUE(client.Finish().ok());
  };
  auto stored = [&] { return server.store().catalog().FindHost("web01").value().value().labels; };
  hello({{"role", "web"}, {"site", "ams"}, {"9bad", "x"}, {"env", "a,b"}}, false);
  EXPECT_EQ(stored(), (query::HostLabels{{"role", "web"}, {"site", "ams"}}));
  hello({}, true);
  EXPECT_EQ(stored(), (query::HostLabels{{"role", "web"}, {"site", "ams"}}));
  hello({{"role", "sql"}}, false);
  EXPECT_EQ(stored(), (query::HostLabels{{"role", "sql"}}));
  hello({}, false);  // an agent started without labels, or an older one
  EXPECT_TRUE(stored().empty());
}

TokenTable TwoTokens() {
  return TokenTable::Parse(R"(
[[token]]
name = "web agents"
secret = "web-agents-secret-0123456789"
write = ["web*"]

[[token]]
name = "reader"
secret = "reader-secret-0123456789"
read = true
)",
                           "tokens.toml")
      .value();
}

TEST(IngestSessionTest, AnUnknownTokenIsUnauthenticated) {
  TestServer server(TwoTokens());
  IngestClient client(server.address(), "not-a-token-at-all-0000");
  client.Hello("web01", "run-1");
  grpc::Status status = client.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(), "unknown token");
}

TEST(IngestSessionTest, ATokenMayWriteOnlyAsItsHosts) {
  TestServer server(TwoTokens());
  {
    IngestClient client(server.address(), "web-agents-secret-0123456789");
    ASSERT_TRUE(client.Hello("WEB07", "run-1"));
    ReadWelcome(client);
    EXPECT_TRUE(client.Finish().ok());
  }
  IngestClient client(server.address(), "web-agents-secret-0123456789");
  client.Hello("db01", "run-1");
  grpc::Status status = client.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(status.error_message(), "token \"web agents\" may not send snapshots as host \"db01\"");
  EXPECT_FALSE(server.store().catalog().FindHost("db01").value().has_value());
}

TEST(IngestSessionTest, ASnapshotBeforeHelloEndsTheStream) {
  TestServer server;
  IngestClient client(server.address());
  TitleBytes titles = SmallTitles();
  client.Send(IngestClient::SnapshotMessage("run-1", 1, SmallSnapshot(1), &titles));
  grpc::Status status = client.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(), "a snapshot before Hello");
}

// Regression: the server signed every CertificateRenewal a stream sent, before Hello and
// unasked, as fast as they came (300 certificates in 1.5 s, each a row and a log line). It
// signs only the renewal it asked for; any other ends the stream and signs nothing.
TEST(IngestSessionTest, ARenewalTheServerDidNotAskForEndsTheStream) {
  TestServer server;
  for (bool after_hello : {false, true}) {
    IngestClient client(server.address());
    if (after_hello) {
      ASSERT_TRUE(client.Hello("web01", "run-1", {SmallTitles()}));
    }
    perfhive::v1::AgentMessage renewal;
    renewal.mutable_renewal()->set_request_pem("-----BEGIN CERTIFICATE REQUEST-----");
    client.Send(renewal);
    grpc::Status status = client.Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << after_hello;
    EXPECT_THAT(status.error_message(), HasSubstr("did not ask for")) << after_hello;
  }
}

// Issue 34: a client that sent Hello and then messages that each earn a reply, and never read
// one, grew the server without bound (32 to 91 MB for 2 MB sent): the replies waiting to be
// written were not part of the flow control. Now the stream is read no further once they queue
// up, and the client is stopped by HTTP/2's windows.
TEST(IngestSessionTest, AClientThatReadsNoReplyIsReadNoFurtherOnceTheyQueueUp) {
  // No rate limit: it would slow the reads down anyway.
  TestServer server(TokenTable::AllowAll(), IngestLimits{.max_snapshots_per_second = 1'000'000});
  TitleBytes titles = SmallTitles();
  // A client whose receive window stays at HTTP/2's 64 KiB: the replies it does not read fill it
  // within seconds, not the megabytes gRPC's probing would otherwise grow it to.
  grpc::ChannelArguments small_window;
  small_window.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  small_window.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 65'535);
  IngestClient client(server.address(), "", small_window);
  ASSERT_TRUE(client.Hello("web01", "run-1", {titles}));
  ASSERT_TRUE(client.Titles(titles));
  v1::AgentMessage corrupt = IngestClient::SnapshotMessage("run-1", 1, SmallSnapshot(1), &titles);
  corrupt.mutable_snapshot()->mutable_sha256()->at(0) ^= 1;  // each refused: one reply each
  constexpr int kMessages = 100'000;
  std::atomic<int> sent{0};
  std::thread sender([&] {
    for (int i = 0; i < kMessages && client.Send(corrupt); ++i) sent++;
  });
  // The refusals stop growing once the server reads no further (a second without one more).
  const IngestCounters& counters = server.ingest().counters();
  uint64_t refused = 0;
  int quiet = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (quiet < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    uint64_t now = counters.snapshots_refused.load();
    quiet = now == refused ? quiet + 1 : 0;
    refused = now;
  }
  EXPECT_EQ(quiet, 5) << "the server read on (" << refused << " refused) while no reply was read";
  EXPECT_GT(counters.reads_held_for_replies.load(), 0u);
  EXPECT_GT(refused, 0u);
  EXPECT_LT(sent.load(), kMessages);
  client.Cancel();
  sender.join();
}

}  // namespace
}  // namespace perfhive::testing
