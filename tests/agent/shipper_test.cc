// The shipper against a real gRPC server on loopback (FakeIngestServer): what the server
// restores from the frames must be exactly what was pushed, whatever happens to the stream.

#include "agent/shipper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "agent/outbox.h"
#include "agent/server_reports.h"
#include "agent/spool.h"
#include "tests/agent/agent_test_util.h"
#include "tests/agent/fake_ingest_server.h"
#include "tests/support/large_snapshot.h"
#include "wire/title_digest.h"

namespace perfhive {
namespace {

using testing::FakeIngestServer;
using testing::FakeIngestService;
using testing::FakeRaw;
using testing::ReceivedSnapshot;
using testing::TempDir;
using testing::TestOwner;

const char* kInstance = "0123456789abcdef0123456789abcdef";

TitleBytes Titles() {
  const char text[] =
      "1\0"
      "1847\0"
      "2\0"
      "System\0";
  std::vector<uint8_t> counters;
  for (char c : std::string(text, sizeof text)) {
    counters.push_back(static_cast<uint8_t>(c));
    counters.push_back(0);
  }
  return TitleBytes{.language = "009", .counters = counters, .helps = {}};
}

// A shipper with its outbox and spool, as `run` wires them.
class ShipperTest : public ::testing::Test {
 protected:
  void StartShipper(const std::string& address, size_t window = 16, std::string token = "") {
    Result<std::unique_ptr<Spool>> spool =
        Spool::Open(env_, spool_dir_.path(), 1 << 30, TestOwner(), log_);
    ASSERT_TRUE(spool.ok()) << spool.error();
    spool_ = std::move(spool).value();
    outbox_ = std::make_unique<Outbox>(*spool_, spool_->TakeRecovered(), 64 << 20, log_);
    ShipperOptions options;
    options.server = address;
    options.credentials = grpc::InsecureChannelCredentials();
    options.token = std::move(token);
    options.owner = TestOwner();
    options.agent_version = "test";
    options.instance_id = kInstance;
    options.window = window;
    options.initial_backoff = std::chrono::milliseconds(50);
    options.max_backoff = std::chrono::milliseconds(200);
    shipper_ = std::make_unique<Shipper>(options, *outbox_, log_);
    title_refs_ = outbox_->AdoptTitles({Titles()});
    shipper_->Start();
  }
  void TearDown() override {
    if (shipper_) shipper_->Stop();
  }

  SnapshotRecord Record(uint64_t sequence, std::vector<uint8_t> raw, std::string query = "Global") {
    return SnapshotRecord{.owner = TestOwner(),
                          .instance_id = kInstance,
                          .sequence = sequence,
                          .query = std::move(query),
                          .titles = title_refs_,
                          .raw = std::move(raw)};
  }
  bool WaitForEmptyOutbox() {
    return service_.WaitFor([&] { return outbox_->size() == 0; });
  }

  Env& env_ = Env::Default();
  std::ostringstream log_text_;
  Logger log_{log_text_, env_};
  TempDir spool_dir_;
  FakeIngestService service_;
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<Outbox> outbox_;
  std::unique_ptr<Shipper> shipper_;
  std::vector<TitleRef> title_refs_;
};

TEST_F(ShipperTest, HelloNamesHostInstanceAndTitlesAndMissingTitlesAreSent) {
  FakeIngestServer server(service_);
  StartShipper(server.address(), 16, "secret-token");
  outbox_->Push(Record(1, FakeRaw(1)));
  ASSERT_TRUE(WaitForEmptyOutbox());

  std::vector<v1::Hello> hellos = service_.hellos();
  ASSERT_EQ(hellos.size(), 1u);
  EXPECT_EQ(hellos[0].host_name(), "TESTHOST");
  EXPECT_EQ(hellos[0].os(), "Windows");
  EXPECT_EQ(hellos[0].instance_id(), kInstance);
  EXPECT_EQ(hellos[0].protocol_version(), 1u);
  ASSERT_EQ(hellos[0].titles_size(), 1);
  Sha256Digest expected = TitleDigest("009", Titles().counters, {});
  EXPECT_EQ(hellos[0].titles(0).sha256(), std::string(expected.begin(), expected.end()));
  EXPECT_EQ(service_.authorizations(), std::vector<std::string>{"Bearer secret-token"});

  // The server lacked the database: it arrives before the snapshot, whole.
  std::vector<v1::TitleDatabase> titles = service_.title_messages();
  ASSERT_EQ(titles.size(), 1u);
  std::vector<uint8_t> counters = Titles().counters;
  EXPECT_TRUE(titles[0].counters() == std::string(counters.begin(), counters.end()));
  EXPECT_TRUE(service_.errors().empty());
  EXPECT_EQ(service_.stored().at({kInstance, 1}), FakeRaw(1));
}

// Regression: agents sent what they lost (and their disabled providers) to servers older than
// those messages, which end the stream on a message they do not know: the agent reconnected and
// sent it again, forever. Only a server whose Welcome says it takes them is sent them; the
// latest of each kind goes to the next server that does.
TEST_F(ShipperTest, ReportsGoOnlyToAServerThatTakesThem) {
  v1::CollectionLosses losses;
  losses.set_agent_started_unix_nanos(7);
  losses.set_dropped(3);
  v1::ObjectTimings timings;
  timings.add_objects()->set_object_index(230);
  int port = 0;
  {
    FakeIngestServer older(service_);
    port = older.port();
    StartShipper(older.address());
    outbox_->Report(LossesReportMessage(losses));
    outbox_->Report(TimingsReportMessage(timings));
    outbox_->Push(Record(1, FakeRaw(1)));
    ASSERT_TRUE(WaitForEmptyOutbox());
    EXPECT_TRUE(service_.reports().empty());
    EXPECT_NE(log_text_.str().find("the server is older than this agent"), std::string::npos);
  }
  // The server is upgraded where the agent expects it: the agent reconnects and sends both.
  FakeIngestService newer;
  newer.TakeReports(true);
  FakeIngestServer server(newer, port);
  outbox_->Push(Record(2, FakeRaw(2)));
  ASSERT_TRUE(newer.WaitFor([&] { return newer.reports().size() >= 2; }));
  std::vector<v1::AgentMessage> reports = newer.reports();
  EXPECT_TRUE(std::any_of(reports.begin(), reports.end(), [](const v1::AgentMessage& m) {
    return m.has_losses() && m.losses().dropped() == 3;
  }));
  EXPECT_TRUE(std::any_of(reports.begin(), reports.end(), [](const v1::AgentMessage& m) {
    return m.has_timings() && m.timings().objects(0).object_index() == 230;
  }));
}

TEST_F(ShipperTest, TitlesTheServerHoldsAreNotSent) {
  service_.AddTitles(TitleDigest("009", Titles().counters, {}));
  FakeIngestServer server(service_);
  StartShipper(server.address());
  outbox_->Push(Record(1, FakeRaw(1)));
  ASSERT_TRUE(WaitForEmptyOutbox());
  EXPECT_TRUE(service_.title_messages().empty());
  EXPECT_EQ(service_.stored().size(), 1u);
}

// Regression: titles adopted while the Hello was on its way (a remote host's titles are read on
// a worker while the stream connects) were taken as held by the server, never sent, and every
// snapshot naming them was refused.
TEST_F(ShipperTest, TitlesAdoptedWhileTheHelloIsAnsweredAreSent) {
  service_.HoldWelcome(true);
  FakeIngestServer server(service_);
  StartShipper(server.address());
  ASSERT_TRUE(service_.WaitFor([&] { return service_.hellos().size() == 1; }));
  TitleBytes changed = Titles();
  changed.counters.push_back(0);  // another database: one more (empty) string
  changed.counters.push_back(0);
  title_refs_ = outbox_->AdoptTitles({changed});
  service_.HoldWelcome(false);
  outbox_->Push(Record(1, FakeRaw(1)));
  ASSERT_TRUE(WaitForEmptyOutbox());

  Sha256Digest expected = TitleDigest("009", changed.counters, {});
  std::vector<v1::TitleDatabase> sent = service_.title_messages();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent.back().sha256(), std::string(expected.begin(), expected.end()));
}

TEST_F(ShipperTest, FirstSnapshotOfAQueryIsZstdLaterOnesDecodeFromDeltasToTheExactBytes) {
  FakeIngestServer server(service_);
  StartShipper(server.address());
  std::vector<std::vector<uint8_t>> raws;
  for (int i = 0; i < 4; ++i) raws.push_back(testing::BuildLargeSnapshot(i));
  for (int i = 0; i < 4; ++i) outbox_->Push(Record(static_cast<uint64_t>(i + 1), raws[i]));
  outbox_->Push(Record(5, FakeRaw(5), "238"));
  ASSERT_TRUE(WaitForEmptyOutbox());

  std::vector<ReceivedSnapshot> received = service_.received();
  ASSERT_EQ(received.size(), 5u);
  EXPECT_EQ(received[0].encoding, v1::ENCODING_ZSTD);
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(received[i].encoding, v1::ENCODING_DELTA_ZSTD) << i;
    EXPECT_EQ(received[i].base_sequence, static_cast<uint64_t>(i)) << i;
    // Consecutive samples share most bytes: the frame is far smaller than the snapshot.
    EXPECT_LT(received[i].payload_size * 10, raws[i].size()) << i;
  }
  EXPECT_EQ(received[4].encoding, v1::ENCODING_ZSTD);  // another query starts afresh
  for (int i = 0; i < 4; ++i) EXPECT_EQ(received[i].raw, raws[i]) << i;
  EXPECT_TRUE(service_.errors().empty());
}

TEST_F(ShipperTest, DroppedStreamIsResumedWithoutLossAndDuplicatesAreAcked) {
  service_.DropStreamAfterStoring(3);
  FakeIngestServer server(service_);
  StartShipper(server.address(), /*window=*/4);
  for (int i = 1; i <= 10; ++i) outbox_->Push(Record(static_cast<uint64_t>(i), FakeRaw(i)));
  ASSERT_TRUE(WaitForEmptyOutbox());

  auto stored = service_.stored();
  ASSERT_EQ(stored.size(), 10u);
  for (int i = 1; i <= 10; ++i) EXPECT_EQ(stored.at({kInstance, i}), FakeRaw(i)) << i;
  EXPECT_EQ(service_.hellos().size(), 2u);
  ShipperStats stats = shipper_->stats();
  EXPECT_EQ(stats.connects, 2u);
  EXPECT_TRUE(service_.errors().empty());
  // Sequence 3 was stored and its ack lost (and 2's too, if the stream broke before the shipper
  // read it): only an answer removes a snapshot (never Welcome's durable sequence), so the first
  // sent on the new stream is one of those again, and it is zstd: the old stream's bases are
  // gone.
  std::vector<ReceivedSnapshot> received = service_.received();
  size_t first_after_drop = 0;
  uint64_t highest = 0;
  for (size_t i = 0; i < received.size() && first_after_drop == 0; ++i) {
    if (received[i].sequence <= highest) first_after_drop = i;
    highest = std::max(highest, received[i].sequence);
  }
  ASSERT_GT(first_after_drop, 0u);
  EXPECT_LE(received[first_after_drop].sequence, 3u);
  EXPECT_EQ(received[first_after_drop].encoding, v1::ENCODING_ZSTD);
}

TEST_F(ShipperTest, RefusalIsCountedAndTheStreamGoesOnWithAFreshBase) {
  service_.Refuse(2);
  FakeIngestServer server(service_);
  StartShipper(server.address(), /*window=*/1);
  for (int i = 1; i <= 4; ++i) outbox_->Push(Record(static_cast<uint64_t>(i), FakeRaw(i)));
  ASSERT_TRUE(WaitForEmptyOutbox());

  auto stored = service_.stored();
  EXPECT_EQ(stored.size(), 3u);
  EXPECT_FALSE(stored.contains({kInstance, 2}));
  EXPECT_EQ(shipper_->stats().refused, 1u);
  EXPECT_EQ(shipper_->stats().connects, 1u);
  std::vector<ReceivedSnapshot> received = service_.received();
  ASSERT_EQ(received.size(), 4u);
  EXPECT_EQ(received[1].encoding, v1::ENCODING_DELTA_ZSTD);
  EXPECT_EQ(received[2].encoding, v1::ENCODING_ZSTD);  // 2 was refused: not a base
  EXPECT_EQ(received[3].encoding, v1::ENCODING_DELTA_ZSTD);
  EXPECT_EQ(received[3].base_sequence, 3u);
  EXPECT_NE(log_text_.str().find("refused by the test"), std::string::npos);
}

// A refused or resent base made every delta sent after it against it fail ("delta against
// sequence 283 ... send a keyframe") and be deleted. Now the server asks for them again, and they
// are sent again as keyframes: nothing is lost and delta chains stay valid.
TEST_F(ShipperTest, ASnapshotAskedForAgainIsResentAsAKeyframeAndNothingIsLost) {
  service_.AskAgainOnce(2);
  FakeIngestServer server(service_);
  StartShipper(server.address(), /*window=*/4);
  for (int i = 1; i <= 8; ++i) outbox_->Push(Record(static_cast<uint64_t>(i), FakeRaw(i)));
  ASSERT_TRUE(WaitForEmptyOutbox());

  auto stored = service_.stored();
  ASSERT_EQ(stored.size(), 8u);
  for (int i = 1; i <= 8; ++i) EXPECT_EQ(stored.at({kInstance, i}), FakeRaw(i)) << i;
  EXPECT_EQ(outbox_->lost().total(), 0u);
  EXPECT_GE(shipper_->stats().resent, 1u);  // 2, and the deltas already sent against it
  EXPECT_EQ(shipper_->stats().refused, 0u);
  EXPECT_TRUE(service_.errors().empty());
  std::vector<ReceivedSnapshot> received = service_.received();
  auto resent = std::find_if(received.begin() + 2, received.end(),
                             [](const ReceivedSnapshot& r) { return r.sequence == 2; });
  ASSERT_NE(resent, received.end());
  EXPECT_EQ(resent->encoding, v1::ENCODING_ZSTD);
}

TEST_F(ShipperTest, SpoolFillsWhileTheServerIsDownAndDrainsInOrderWhenItComesBack) {
  int port;
  {
    FakeIngestServer probe(service_);  // finds a free port, then goes away
    port = probe.port();
  }
  StartShipper("127.0.0.1:" + std::to_string(port));
  for (int i = 1; i <= 6; ++i) outbox_->Push(Record(static_cast<uint64_t>(i), FakeRaw(i)));
  EXPECT_EQ(spool_->size(), 6u);  // disconnected: each went to disk at once

  FakeIngestServer server(service_, port);
  ASSERT_TRUE(WaitForEmptyOutbox());
  EXPECT_EQ(spool_->size(), 0u);
  std::vector<ReceivedSnapshot> received = service_.received();
  ASSERT_EQ(received.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(received[i].sequence, static_cast<uint64_t>(i + 1));
    EXPECT_EQ(received[i].raw, FakeRaw(i + 1));
  }
}

}  // namespace
}  // namespace perfhive
