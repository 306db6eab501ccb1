// QueryService::Answer over a real store: what a read costs (its points, the bytes it restores) is
// estimated from the store's listing and one restored sample per host and query, and a read over
// a limit is refused before the rest of its samples are loaded (issue 24); a read under them
// answers as it did, and the exact count of points still applies after loading.

#include "server/api/query_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfdata/title_database.h"
#include "server/enrollment/enrollment_registry.h"
#include "server/enrollment/token_table.h"
#include "store/sample_loader.h"
#include "tests/store/store_test_util.h"

namespace perfhive::testing {
namespace {

namespace v1 = perfhive::v1;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// SmallSnapshot's Process object: each process has 4 counters.
constexpr int kCounters = 4;

// web01's samples in a store, and a query service over it.
class QueryLimitsTest : public ::testing::Test {
 protected:
  QueryLimitsTest() {
    Open();
    TitleDatabase titles;
    titles.AddName(230, "Process");
    for (uint32_t c = 0; c < kCounters; ++c) {
      titles.AddName(6 + 2 * c, "Counter " + std::to_string(6 + 2 * c));
    }
    Result<Sha256Digest> digest =
        store_->catalog().PutTitleDatabase("009", titles.EncodeNames(), {});
    EXPECT_TRUE(digest.ok()) << digest.error();
    EXPECT_TRUE(store_->catalog().SetTitlesInForce("web01", "009", *digest, SampleNs(0)).ok());
  }

  // Opens the store and the service over it (again, after Spoil).
  void Open() {
    service_.reset();
    loader_.reset();
    store_ = std::move(Store::Open(dir_.path()).value());
    loader_ = std::make_unique<SampleLoader>(*store_);
    service_ = std::make_unique<QueryService>(*store_, *loader_, tokens_);
  }

  // Appends a sample of `query` at `second` with `processes` processes; returns its id.
  int64_t Add(int second, int processes = 20, const std::string& query = "Global") {
    Result<AppendResult> appended = store_->Append(
        MakeAppend("web01", "boot-" + query, ++sequence_,
                   SmallSnapshot(second, static_cast<uint64_t>(second), processes), query));
    EXPECT_TRUE(appended.ok()) << appended.error();
    return appended.ok() ? appended->id : 0;
  }

  // Makes the stored frames of `ids` unreadable, with the store closed: a read that restores
  // any of them fails.
  void Spoil(const std::vector<int64_t>& ids) {
    service_.reset();
    loader_.reset();
    store_.reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_.path() + "/perfhive.db").c_str(), &db), SQLITE_OK);
    for (int64_t id : ids) {
      std::string sql = "UPDATE frames SET frame = x'00' WHERE id = " + std::to_string(id);
      EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    }
    sqlite3_close(db);
    Open();
  }

  // Every process's counters on web01, over every sample.
  Result<std::vector<v1::ReadResponse>> Read(uint64_t max_points, int64_t step_ns = 0) {
    v1::ReadRequest request;
    request.add_paths("\\\\web01\\Process(*)\\*");
    request.set_max_points(max_points);
    request.set_step_nanos(step_ns);
    return service_->Answer(request);
  }

  static size_t Points(const std::vector<v1::ReadResponse>& responses) {
    size_t points = 0;
    for (const v1::ReadResponse& response : responses) {
      for (const v1::Series& series : response.series()) {
        points += static_cast<size_t>(series.points().time_deltas_size());
      }
    }
    return points;
  }

  TempDir dir_;
  TokenTable tokens_ = TokenTable::AllowAll();
  uint64_t sequence_ = 0;
  std::unique_ptr<Store> store_;
  std::unique_ptr<SampleLoader> loader_;
  std::unique_ptr<QueryService> service_;
};

// Ten samples of 20 processes: 800 points. The samples between the first (the keyframe the
// newest restores from) and the newest cannot be restored, so an answer that comes back refused
// for its size was refused before they were loaded; one that loaded them fails otherwise.
TEST_F(QueryLimitsTest, Issue24MaxPointsRefusesBeforeTheSamplesAreLoaded) {
  std::vector<int64_t> ids;
  for (int second = 0; second < 10; ++second) ids.push_back(Add(second));
  Spoil({ids.begin() + 1, ids.end() - 1});

  Result<std::vector<v1::ReadResponse>> refused = Read(500);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.error();
  EXPECT_THAT(refused.error(),
              AllOf(HasSubstr("more than 500 points"), HasSubstr("about 800 in 10 samples"),
                    HasSubstr("web01 800 points in 10 samples"), HasSubstr("a shorter time range"),
                    HasSubstr("--max-points")));
  // Within the limit the read loads the samples, which fail.
  Result<std::vector<v1::ReadResponse>> loaded = Read(0);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().code(), StatusCode::kResourceExhausted) << loaded.error();
}

TEST_F(QueryLimitsTest, RestoredBytesAreBoundedBeforeLoadingWithAStepToo) {
  std::vector<int64_t> ids;
  for (int second = 0; second < 10; ++second) ids.push_back(Add(second));
  Result<std::vector<SnapshotInfo>> listed = store_->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok()) << listed.error();
  const int64_t raw_size = listed->back().raw_size;
  Spoil({ids.begin() + 1, ids.end() - 1});
  // Every sample restores whole (the path selects its only object): ten of them are too many.
  service_->set_max_query_bytes(static_cast<uint64_t>(raw_size) * 5);

  for (int64_t step_ns : {int64_t{0}, int64_t{2'000'000'000}}) {
    Result<std::vector<v1::ReadResponse>> refused = Read(0, step_ns);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.error();
    EXPECT_THAT(refused.error(),
                AllOf(HasSubstr("about " + std::to_string(raw_size * 10) + " bytes"),
                      HasSubstr("the server's limit of " + std::to_string(raw_size * 5) + " bytes"),
                      HasSubstr("web01 " + std::to_string(raw_size * 10) + " bytes in 10 samples"),
                      HasSubstr("max_query_bytes")));
  }
}

TEST_F(QueryLimitsTest, AReadWithinTheLimitsAnswersAsBefore) {
  for (int second = 0; second < 10; ++second) Add(second);
  Result<std::vector<SnapshotInfo>> listed = store_->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok()) << listed.error();
  service_->set_max_query_bytes(static_cast<uint64_t>(listed->back().raw_size) * 10);

  // Exactly the limit: 20 processes × 4 counters × 10 samples.
  Result<std::vector<v1::ReadResponse>> answered = Read(800);
  ASSERT_TRUE(answered.ok()) << answered.error();
  EXPECT_EQ(Points(*answered), 800u);
  ASSERT_EQ(answered->front().series_size(), 20 * kCounters);
  // SmallSnapshot's value: seed (the second) · 1000 + process · 10 + counter position.
  const v1::Series& series = answered->front().series(kCounters * 3 + 2);
  EXPECT_EQ(series.paths(0), "\\\\web01\\Process(proc3)\\Counter 10");
  ASSERT_EQ(series.points().values_size(), 10);
  EXPECT_EQ(series.points().values(9), 9032.0);
}

// The newest sample has one process where the others had 20: the estimate (10 samples × 4
// points) is under the limit, the answer (9 × 80 + 4 points) is not.
TEST_F(QueryLimitsTest, TheExactCountStillRefusesWhatTheEstimateMissed) {
  for (int second = 0; second < 9; ++second) Add(second);
  Add(9, 1);
  Result<std::vector<v1::ReadResponse>> refused = Read(100);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.error();
  EXPECT_THAT(refused.error(), AllOf(HasSubstr("more than 100 points"), HasSubstr("so far"),
                                     Not(HasSubstr("about"))));
}

// Costly samples collect the same counters as Global ones, as a Linux host's do: an answer keeps
// one series of each (Global's, with more points), and so does the estimate.
TEST_F(QueryLimitsTest, ACounterTwoQueriesCollectIsCountedOnce) {
  for (int second = 0; second < 10; ++second) {
    Add(second);
    if (second % 5 == 0) Add(second + 30, 20, "Costly");
  }
  Result<std::vector<v1::ReadResponse>> answered = Read(800);
  ASSERT_TRUE(answered.ok()) << answered.error();
  EXPECT_EQ(Points(*answered), 800u);
}

// A read of the latest values needs the newest two samples of each query, bounded already.
TEST_F(QueryLimitsTest, LatestReadsAreNotEstimated) {
  for (int second = 0; second < 10; ++second) Add(second);
  service_->set_max_query_bytes(1);
  v1::ReadRequest request;
  request.add_paths("\\\\web01\\Process(proc1)\\Counter 8");
  request.set_latest_only(true);
  Result<std::vector<v1::ReadResponse>> answered = service_->Answer(request);
  ASSERT_TRUE(answered.ok()) << answered.error();
  EXPECT_EQ(answered->front().series_size(), 1);
}

// Issue 34: a reader (perfhive login --enroll) enrolled under the name of a revoked host made
// `perfhive hosts` show that host enrolled: the hosts' list took the newest credential of either
// kind. A host's state comes from hosts' credentials alone.
TEST_F(QueryLimitsTest, AReadersCredentialNeverShowsAsAHostsState) {
  Add(0);
  TempDir registry_dir;
  Result<std::unique_ptr<EnrollmentRegistry>> registry =
      EnrollmentRegistry::Open(registry_dir.path());
  ASSERT_TRUE(registry.ok()) << registry.error();
  auto now = std::chrono::system_clock::now();
  CredentialInfo host{.serial = "0a01",
                      .host = "web01",
                      .token_id = "hosttoken",
                      .issued = now - std::chrono::hours(1),
                      .expires = now + std::chrono::hours(24),
                      .revoked = std::nullopt};
  ASSERT_TRUE((*registry)->RecordCredential(host).ok());
  ASSERT_TRUE((*registry)->RevokeHost("web01", now).ok());
  CredentialInfo reader{.serial = "0a02",
                        .host = "WEB01",
                        .token_id = "readtoken",
                        .issued = now,
                        .expires = now + std::chrono::hours(24),
                        .revoked = std::nullopt,
                        .read = true};
  ASSERT_TRUE((*registry)->RecordCredential(reader).ok());
  service_->set_enrollment(registry->get(), nullptr);
  Result<v1::ListHostsResponse> hosts = service_->Hosts(v1::ListHostsRequest());
  ASSERT_TRUE(hosts.ok()) << hosts.error();
  ASSERT_EQ(hosts->hosts_size(), 1);
  EXPECT_EQ(hosts->hosts(0).credential(), "revoked");
}

// ListHosts gives each host its labels, the policy's over the agent's, and keeps the hosts a
// selector selects; a selector that does not parse is the reader's mistake.
TEST_F(QueryLimitsTest, TheHostListHasLabelsAndTakesASelector) {
  HostInfo web{"web01", "Linux", "6.1", "agent", "1", "boot"};
  web.labels = query::HostLabels{{"role", "web"}, {"site", "ams"}};
  ASSERT_TRUE(store_->catalog().UpsertHost(web, 1).ok());
  HostInfo sql{"sql01", "Linux", "6.1", "agent", "1", "boot"};
  sql.labels = query::HostLabels{{"role", "sql"}, {"site", "ams"}};
  ASSERT_TRUE(store_->catalog().UpsertHost(sql, 1).ok());
  const std::string path = dir_.path() + "/policies.toml";
  std::ofstream(path) << "[[policy]]\nname = \"fra\"\nhosts = [\"web*\"]\n"
                         "labels = { site = \"fra\", env = \"prod\" }\n";
  Result<std::unique_ptr<PolicyFile>> policies = PolicyFile::Open(Env::Default(), path);
  ASSERT_TRUE(policies.ok()) << policies.error();
  service_->set_policies(policies->get());

  auto listed = [&](const std::string& selector) {
    v1::ListHostsRequest request;
    request.set_select(selector);
    Result<v1::ListHostsResponse> hosts = service_->Hosts(request);
    EXPECT_TRUE(hosts.ok()) << hosts.error();
    std::map<std::string, query::HostLabels> labels;
    if (!hosts.ok()) return labels;
    for (const v1::HostInfo& host : hosts->hosts()) {
      labels[host.name()] = query::HostLabels(host.labels().begin(), host.labels().end());
    }
    return labels;
  };
  using Listed = std::map<std::string, query::HostLabels>;
  EXPECT_EQ(listed(""), (Listed{{"sql01", {{"role", "sql"}, {"site", "ams"}}},
                                {"web01", {{"env", "prod"}, {"role", "web"}, {"site", "fra"}}}}));
  EXPECT_EQ(listed("site=fra"),
            (Listed{{"web01", {{"env", "prod"}, {"role", "web"}, {"site", "fra"}}}}));
  EXPECT_EQ(listed("site=ams"), (Listed{{"sql01", {{"role", "sql"}, {"site", "ams"}}}}));
  EXPECT_EQ(listed("env=,role=s*"), (Listed{{"sql01", {{"role", "sql"}, {"site", "ams"}}}}));
  EXPECT_TRUE(listed("role=cache").empty());
  v1::ListHostsRequest bad;
  bad.set_select("role");
  Result<v1::ListHostsResponse> refused = service_->Hosts(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.error(), HasSubstr("is not KEY=VALUE"));
  service_->set_policies(nullptr);
}

}  // namespace
}  // namespace perfhive::testing
