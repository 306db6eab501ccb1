// RuleEvaluator (server/alerts/rule_evaluator.h): alerts go pending, firing and resolved where a
// condition held over the samples, evaluation after evaluation, and carry on across a restart.
// The samples come from a fleet of timelines that answers reads as the query engine would (the
// points from the read's start on, of the samples that have arrived by then); the expected
// times are worked out by hand from the timelines below.

#include "server/alerts/rule_evaluator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "perfdata/pdh_status.h"

namespace perfhive {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr uint32_t kRawCount = 0x00010000;    // PERF_COUNTER_RAWCOUNT: one sample a value
constexpr uint32_t kTimer100Ns = 0x20510500;  // PERF_100NSEC_TIMER: measured over an interval
constexpr double kInvalid = -1;               // a sample whose value PDH would not give

// One host's samples of one counter, one a second from t = 0 unless a time is given.
struct Timeline {
  std::string host;
  uint32_t counter_type = kRawCount;
  std::vector<std::pair<int64_t, double>> samples;  // seconds, value (kInvalid: not valid)
};

class FakeFleet {
 public:
  explicit FakeFleet(std::vector<Timeline> timelines) : timelines_(std::move(timelines)) {}

  // What a read sees at `now_ns`: the points at or after its start among the samples taken by
  // then.
  Result<query::QueryAnswer> Read(const query::ReadRequest& request, int64_t now_ns) {
    ++reads_;
    first_read_from_.insert(request.from_ns);
    query::QueryAnswer answer;
    for (const Timeline& timeline : timelines_) {
      query::Series series;
      series.host = timeline.host;
      series.object = "Processor";
      series.counter = "% Processor Time";
      series.counter_type = timeline.counter_type;
      series.has_instance = true;
      series.instance = "_Total";
      series.paths = {"\\\\" + timeline.host + "\\Processor(_Total)\\% Processor Time"};
      for (const auto& [seconds, value] : timeline.samples) {
        const int64_t time_ns = seconds * kSecond;
        if (time_ns < request.from_ns || time_ns > now_ns) continue;
        const PdhStatus status =
            value == kInvalid ? PdhStatus::kNegativeValue : PdhStatus::kValidData;
        series.points.push_back({time_ns, CounterValue{status, value}, 0, 0});
      }
      if (!series.points.empty()) answer.series.push_back(std::move(series));
    }
    if (answer.series.empty()) return Status::NotFound("no host has \\Processor(_Total)");
    return answer;
  }

  int reads_ = 0;
  std::set<int64_t> first_read_from_;

 private:
  std::vector<Timeline> timelines_;
};

// t = 0..12 s: above 90 from 1 to 6, again at 8 and 9.
Timeline Busy(std::string host, uint32_t type = kRawCount) {
  Timeline timeline{std::move(host), type, {}};
  const double values[] = {50, 95, 95, 95, 95, 95, 95, 50, 95, 95, 50, 50, 50};
  for (int64_t t = 0; t < 13; ++t) timeline.samples.push_back({t, values[t]});
  return timeline;
}

RuleBook Book(const std::string& rules) {
  Result<RuleBook> book = RuleBook::Parse("interval = \"1s\"\n" + rules, "rules.toml");
  EXPECT_TRUE(book.ok()) << book.error();
  return book.ok() ? std::move(book).value() : RuleBook();
}

const std::string kBusyRule = R"([[rule]]
name = "Busy"
path = '\Processor(_Total)\% Processor Time'
condition = "> 90"
for = "3s"
severity = "critical"
labels = { team = "windows" }
summary = "{host} at {value}, over {threshold}"
)";

// An evaluator over `fleet` whose reads happen at the evaluation's time.
struct Harness {
  explicit Harness(FakeFleet& fleet, query::HostLabelsLookup labels = nullptr)
      : evaluator([&fleet,
                   this](const query::ReadRequest& request) { return fleet.Read(request, now_ns); },
                  std::move(labels)) {}

  void EvaluateAt(const RuleBook& book, int64_t ns) {
    now_ns = ns;
    evaluator.Evaluate(book, ns);
  }

  int64_t now_ns = 0;
  RuleEvaluator evaluator;
};

// Evaluations half a second after each sample, from `from` to `to` seconds.
void EvaluateEverySecond(Harness& harness, const RuleBook& book, int from, int to) {
  for (int t = from; t <= to; ++t) harness.EvaluateAt(book, t * kSecond + kSecond / 2);
}

TEST(RuleEvaluatorTest, AnAlertIsPendingThenFiresAfterItsDurationAndResolvesWhenItEnds) {
  FakeFleet fleet({Busy("web01")});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);

  EvaluateEverySecond(harness, book, 0, 0);
  EXPECT_TRUE(harness.evaluator.alerts().empty());

  EvaluateEverySecond(harness, book, 1, 3);  // held from 1 s, for 2 s: not yet 3
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kPending);
  EXPECT_EQ(alerts[0].active_since_ns, 1 * kSecond);
  EXPECT_EQ(alerts[0].firing_since_ns, 0);

  EvaluateEverySecond(harness, book, 4, 6);
  alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kFiring);
  EXPECT_EQ(alerts[0].active_since_ns, 1 * kSecond);
  EXPECT_EQ(alerts[0].firing_since_ns, 4 * kSecond);
  EXPECT_EQ(alerts[0].value, 95);
  EXPECT_EQ(alerts[0].annotations.at("summary"), "web01 at 95, over 90");

  EvaluateEverySecond(harness, book, 7, 7);  // 50 at 7 s: it last held at 6 s
  alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kResolved);
  EXPECT_EQ(alerts[0].resolved_ns, 6 * kSecond);
  EXPECT_EQ(alerts[0].firing_since_ns, 4 * kSecond);

  // 8 and 9 s: a run shorter than the duration is pending, then dropped without a word.
  EvaluateEverySecond(harness, book, 8, 8);
  alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(alerts[0].state, Alert::State::kPending);
  EXPECT_EQ(alerts[0].active_since_ns, 8 * kSecond);
  EvaluateEverySecond(harness, book, 9, 12);
  alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kResolved);
  EXPECT_EQ(alerts[0].active_since_ns, 1 * kSecond);
}

TEST(RuleEvaluatorTest, EachEvaluationReadsAFewIntervalsBackNotTheWholeDuration) {
  FakeFleet fleet({Busy("web01")});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);
  EvaluateEverySecond(harness, book, 0, 12);
  EXPECT_EQ(fleet.reads_, 13);
  // The first read reaches back over the duration too (3 s), the others 3 intervals (or to an
  // active alert's newest point).
  EXPECT_EQ(*fleet.first_read_from_.begin(), kSecond / 2 - 3 * kSecond - 3 * kSecond);
  EXPECT_EQ(*fleet.first_read_from_.rbegin(), 12 * kSecond + kSecond / 2 - 3 * kSecond);
}

TEST(RuleEvaluatorTest, ARunThatBeganAndEndedBetweenEvaluationsStillFiresAndResolves) {
  FakeFleet fleet({Busy("web01")});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);
  harness.EvaluateAt(book, kSecond / 2);
  harness.EvaluateAt(book, 12 * kSecond + kSecond / 2);  // as after a pause of the server
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kResolved);
  EXPECT_EQ(alerts[0].active_since_ns, 1 * kSecond);
  EXPECT_EQ(alerts[0].firing_since_ns, 4 * kSecond);
  EXPECT_EQ(alerts[0].resolved_ns, 6 * kSecond);
  // Seen again by the next, overlapping window: still one alert.
  harness.EvaluateAt(book, 13 * kSecond);
  EXPECT_EQ(harness.evaluator.alerts().size(), 1u);
}

// A value measured over an interval held since the sample before it.
TEST(RuleEvaluatorTest, ACounterMeasuredOverAnIntervalHeldSinceTheSampleBeforeIt) {
  FakeFleet fleet({Busy("web01", kTimer100Ns)});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);
  EvaluateEverySecond(harness, book, 0, 3);
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].active_since_ns, 0);
  EXPECT_EQ(alerts[0].state, Alert::State::kFiring);
  EXPECT_EQ(alerts[0].firing_since_ns, 3 * kSecond);
}

TEST(RuleEvaluatorTest, AnInvalidValueEndsARunAndAMissingSampleDoesNot) {
  Timeline gaps{
      "web01",
      kRawCount,
      {{0, 50}, {1, 95}, {2, 95}, {3, kInvalid}, {4, 95}, {5, 95}, {7, 95}, {9, 95}, {10, 50}}};
  FakeFleet fleet({gaps});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);
  EvaluateEverySecond(harness, book, 0, 3);
  EXPECT_TRUE(harness.evaluator.alerts().empty());  // 1..2 s ended by the invalid value
  EvaluateEverySecond(harness, book, 4, 10);
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kResolved);
  EXPECT_EQ(alerts[0].active_since_ns, 4 * kSecond);  // across the samples missing at 6 and 8
  EXPECT_EQ(alerts[0].firing_since_ns, 7 * kSecond);
  EXPECT_EQ(alerts[0].resolved_ns, 9 * kSecond);
}

TEST(RuleEvaluatorTest, AnAlertWhoseHostStopsSendingIsResolvedOnceStale) {
  Timeline stops{"web01", kRawCount, {{0, 95}, {1, 95}, {2, 95}, {3, 95}, {4, 95}}};
  FakeFleet fleet({stops, Busy("web02")});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);
  EvaluateEverySecond(harness, book, 0, 12);
  auto of = [&](const std::string& host) {
    for (const Alert& alert : harness.evaluator.alerts()) {
      if (alert.labels.at("host") == host) return alert;
    }
    return Alert();
  };
  EXPECT_EQ(of("web01").state, Alert::State::kFiring);  // its last samples held
  const int64_t stale = 4 * kSecond + RuleEvaluator::kStaleAfterNs;
  harness.EvaluateAt(book, stale);
  EXPECT_EQ(of("web01").state, Alert::State::kFiring);
  harness.EvaluateAt(book, stale + kSecond);
  EXPECT_EQ(of("web01").state, Alert::State::kResolved);
  EXPECT_EQ(of("web01").resolved_ns, 4 * kSecond);
}

TEST(RuleEvaluatorTest, ARestartCarriesAFiringAlertOnWithItsStart) {
  FakeFleet fleet({Busy("web01")});
  const RuleBook book = Book(kBusyRule);
  std::vector<Alert> saved;
  {
    Harness before(fleet);
    EvaluateEverySecond(before, book, 0, 4);
    saved = before.evaluator.alerts();
    ASSERT_EQ(saved.size(), 1u);
    ASSERT_EQ(saved[0].state, Alert::State::kFiring);
  }
  Harness after(fleet);
  after.evaluator.Restore(saved);
  after.EvaluateAt(book, 5 * kSecond + kSecond / 2);
  std::vector<Alert> alerts = after.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kFiring);
  EXPECT_EQ(alerts[0].active_since_ns, 1 * kSecond);
  EXPECT_EQ(alerts[0].firing_since_ns, 4 * kSecond);
  EXPECT_EQ(alerts[0].last_held_ns, 5 * kSecond);
  after.EvaluateAt(book, 7 * kSecond + kSecond / 2);
  alerts = after.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].state, Alert::State::kResolved);
  EXPECT_EQ(alerts[0].resolved_ns, 6 * kSecond);
}

// Regression: a window that began in an earlier run (samples ahead of the server's clock, or a
// first evaluation after a restart) carried a firing alert back to that run, which then
// "resolved" it before it had begun (found by the alert rules end-to-end test).
TEST(RuleEvaluatorTest, AnActiveAlertIsNotCarriedBackToAnEarlierRunInItsWindow) {
  FakeFleet fleet({Busy("web01")});
  const RuleBook book = Book(kBusyRule);
  Harness harness(fleet);
  Alert firing;
  firing.rule = "Busy";
  firing.series = "\\\\web01\\Processor(_Total)\\% Processor Time";
  firing.state = Alert::State::kFiring;
  firing.active_since_ns = 8 * kSecond;
  firing.firing_since_ns = 8 * kSecond;
  firing.last_held_ns = 8 * kSecond;
  harness.evaluator.Restore({firing});
  harness.EvaluateAt(book, 8 * kSecond + kSecond / 2);  // reads from 2.5 s: 3..6 held, 7 not
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(alerts[0].state, Alert::State::kFiring);
  EXPECT_EQ(alerts[0].active_since_ns, 8 * kSecond);
  EXPECT_EQ(alerts[0].last_held_ns, 8 * kSecond);
  // The earlier run, seen for the first time, lasted long enough: fired and resolved.
  EXPECT_EQ(alerts[1].state, Alert::State::kResolved);
  EXPECT_EQ(alerts[1].active_since_ns, 3 * kSecond);
  EXPECT_EQ(alerts[1].resolved_ns, 6 * kSecond);
}

TEST(RuleEvaluatorTest, AlertsCarryTheRulesAndTheHostsLabels) {
  FakeFleet fleet({Busy("web01")});
  Harness harness(fleet, [](const std::string& host) {
    return query::HostLabels{{"role", "web"}, {"team", "hosts-own"}, {"host_of", host}};
  });
  EvaluateEverySecond(harness, Book(kBusyRule), 0, 4);
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].labels, (std::map<std::string, std::string>{
                                  {"alertname", "Busy"},
                                  {"counter", "% Processor Time"},
                                  {"host", "web01"},
                                  {"host_of", "web01"},
                                  {"instance", "_Total"},
                                  {"object", "Processor"},
                                  {"role", "web"},
                                  {"severity", "critical"},
                                  {"team", "windows"},  // the rule's over the host's
                              }));
  EXPECT_EQ(alerts[0].series, "\\\\web01\\Processor(_Total)\\% Processor Time");
  EXPECT_EQ(alerts[0].annotations.at("condition"), "> 90 for 3s");
  EXPECT_EQ(alerts[0].annotations.at("threshold"), "90");
}

TEST(RuleEvaluatorTest, AlertsOfARuleThatIsGoneAreResolvedAndItsReportGoes) {
  FakeFleet fleet({Busy("web01")});
  Harness harness(fleet);
  EvaluateEverySecond(harness, Book(kBusyRule), 0, 4);
  ASSERT_EQ(harness.evaluator.alerts().at(0).state, Alert::State::kFiring);
  const RuleBook other = Book(R"([[rule]]
name = "Quiet"
path = '\Processor(_Total)\% Processor Time'
condition = "< 0"
)");
  harness.EvaluateAt(other, 5 * kSecond);
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].rule, "Busy");
  EXPECT_EQ(alerts[0].state, Alert::State::kResolved);
  std::vector<RuleReport> reports = harness.evaluator.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].rule, "Quiet");
  EXPECT_EQ(reports[0].series_checked, 1u);
}

TEST(RuleEvaluatorTest, DeliveredResolutionsAreForgottenAfterAnHour) {
  FakeFleet fleet({Busy("web01")});
  Harness harness(fleet);
  const RuleBook book = Book(kBusyRule);
  EvaluateEverySecond(harness, book, 0, 7);
  std::vector<Alert> alerts = harness.evaluator.alerts();
  ASSERT_EQ(alerts.size(), 1u);
  ASSERT_EQ(alerts[0].state, Alert::State::kResolved);
  const int64_t later = 6 * kSecond + RuleEvaluator::kResolvedKeptNs + kSecond;
  harness.EvaluateAt(book, later);
  EXPECT_EQ(harness.evaluator.alerts().size(), 1u);  // not delivered yet: kept
  harness.evaluator.MarkDelivered(alerts);
  harness.EvaluateAt(book, later + kSecond);
  EXPECT_TRUE(harness.evaluator.alerts().empty());
}

TEST(RuleEvaluatorTest, APathNoHostHasIsReportedNotAnError) {
  FakeFleet fleet({});
  Harness harness(fleet);
  harness.EvaluateAt(Book(kBusyRule), kSecond);
  std::vector<RuleReport> reports = harness.evaluator.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].error, "");
  EXPECT_THAT(reports[0].missing, ::testing::ElementsAre("no host has \\Processor(_Total)"));
  EXPECT_TRUE(harness.evaluator.alerts().empty());
}

}  // namespace
}  // namespace perfhive
