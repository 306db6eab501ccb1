// End to end: the console's HTTP endpoint (--http-listen) and /metrics of a real perfhive-server
// with TLS and tokens, asked over HTTPS by a real HTTP client (cpp-httplib) as a browser, a
// script or Prometheus would, and compared with what the perfhive CLI answers from the same
// server. docs/http_api.md is the contract.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e/e2e_cluster.h"

namespace perfhive::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

constexpr char kConsoleAgentSecret[] = "console-agent-secret-0001";
constexpr char kConsoleReaderSecret[] =
    "console reader; secret=\"0001\"";  // what a cookie cannot hold

// A server with TLS, a writer and a reader token, the console and /metrics, and two replayed
// hosts: WINA (builder-made, known values) and this host's own procfs recording.
class ConsoleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new ScratchDir("console");
    WriteText(*scratch_ / "tokens.toml",
              std::string("[[token]]\nname = \"agents\"\nsecret = \"") + kConsoleAgentSecret +
                  "\"\nwrite = [\"*\"]\n\n[[token]]\nname = \"console reader\"\nsecret = '" +
                  kConsoleReaderSecret + "'\nread = true\n");
    WriteText(*scratch_ / "agent.token", kConsoleAgentSecret);
    WriteText(*scratch_ / "reader.token", kConsoleReaderSecret);
    ASSERT_TRUE(MakeCertificates(*scratch_));
    console_port_ = UnusedLoopbackPort();
    metrics_port_ = UnusedLoopbackPort();
    server_ = new ServerProcess(
        *scratch_,
        {"--tls-cert", *scratch_ / "server.pem", "--tls-key", *scratch_ / "server.key", "--tokens",
         *scratch_ / "tokens.toml", "--http-listen", "127.0.0.1:" + std::to_string(console_port_),
         "--metrics-listen", "127.0.0.1:" + std::to_string(metrics_port_)});
    ASSERT_TRUE(server_->Start());
    windows_ = WriteReplayDir(*scratch_, "WINA", 4);
    linux_ = RecordThisHost(*scratch_, "LINUXREC", 3);
    for (auto [host, dir] : {std::pair{"WINA", &windows_}, std::pair{"LINUXREC", &linux_}}) {
      CommandResult shipped =
          RunCommand(*scratch_, {AgentBinary(),  "run",
                                 "--server",     server_->address(),
                                 "--ca",         *scratch_ / "ca.pem",
                                 "--token-file", *scratch_ / "agent.token",
                                 "--source",     "replay",
                                 "--replay",     dir->path,
                                 "--host-name",  host,
                                 "--interval",   "50ms",
                                 "--spool-dir",  *scratch_ / (std::string("spool-") + host),
                                 "--timeout",    "60s"},
                     std::chrono::seconds(90));
      ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    delete scratch_;
  }

  // An HTTPS client of the console (or of /metrics) that trusts the test CA.
  static std::unique_ptr<httplib::SSLClient> Client(int port) {
    auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
    client->set_ca_cert_path((*scratch_ / "ca.pem").c_str());
    client->enable_server_certificate_verification(true);
    client->set_read_timeout(30, 0);
    return client;
  }
  static httplib::Headers Bearer(const std::string& token) {
    return {{"Authorization", "Bearer " + token}};
  }
  // GET `target` as the reader; the JSON answer, with the status checked.
  static json ReaderGet(const std::string& target, int expected_status = 200) {
    httplib::Result result = Client(console_port_)->Get(target, Bearer(kConsoleReaderSecret));
    EXPECT_TRUE(result) << target << ": " << httplib::to_string(result.error());
    if (!result) return json();
    EXPECT_EQ(result->status, expected_status) << target << ": " << result->body;
    return json::parse(result->body, nullptr, /*allow_exceptions=*/false);
  }
  // The CLI's answer to `perfhive ARGS --format json` as the reader, exiting `expected_exit`.
  static json CliJson(const std::vector<std::string>& args, int expected_exit = 0) {
    std::vector<std::string> argv = {CliBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--server", server_->address(), "--ca", *scratch_ / "ca.pem",
                             "--token-file", *scratch_ / "reader.token", "--format", "json"});
    CommandResult answer = RunCommand(*scratch_, argv);
    EXPECT_EQ(answer.exit_code, expected_exit) << answer.err;
    return json::parse(answer.out, nullptr, false);
  }
  // The CLI's answer to `perfhive query PATH --format json` as the reader.
  static json CliQuery(const std::string& path, const std::vector<std::string>& options = {},
                       int expected_exit = 0) {
    std::vector<std::string> args = {"query", path};
    args.insert(args.end(), options.begin(), options.end());
    return CliJson(args, expected_exit);
  }

  static ScratchDir* scratch_;
  static ServerProcess* server_;
  static int console_port_;
  static int metrics_port_;
  static ReplayDir windows_;
  static ReplayDir linux_;
};

ScratchDir* ConsoleTest::scratch_ = nullptr;
ServerProcess* ConsoleTest::server_ = nullptr;
int ConsoleTest::console_port_ = 0;
int ConsoleTest::metrics_port_ = 0;
ReplayDir ConsoleTest::windows_;
ReplayDir ConsoleTest::linux_;

// A query parameter's value, percent-encoded.
std::string Encoded(const std::string& text) { return httplib::detail::encode_query_param(text); }

// Proves: the API's read is the CLI's JSON (one schema): every key the CLI gives, the API gives
// alike, every point at the same time with the same value; and WINA's processors are the 25%
// and 50% they were built with.
TEST_F(ConsoleTest, ReadGivesTheValuesTheCliGives) {
  const std::string path = "\\\\WINA\\Processor(*)\\% Processor Time";
  json api = ReaderGet("/api/v1/read?path=" + Encoded(path) + "&statistics=1");
  json cli = CliQuery(path);
  ASSERT_TRUE(api.contains("series")) << api.dump();
  ASSERT_EQ(api["series"].size(), cli["series"].size()) << api.dump();
  std::map<std::string, double> last;
  for (size_t i = 0; i < api["series"].size(); ++i) {
    const json& ours = api["series"][i];
    const json& theirs = cli["series"][i];
    for (const auto& [key, value] : theirs.items()) {
      EXPECT_EQ(ours[key], value) << theirs["path"] << ": " << key;
    }
    ASSERT_FALSE(ours["values"].empty()) << ours["path"];
    EXPECT_EQ(ours["last_status"], "PDH_CSTATUS_VALID_DATA");
    // The first point has no older sample to be computed against: counted as invalid.
    size_t valid = std::count_if(ours["values"].begin(), ours["values"].end(),
                                 [](const json& value) { return !value.is_null(); });
    EXPECT_EQ(ours["statistics"]["count"], valid);
    last[ours["instance"].get<std::string>()] = ours["values"].back().get<double>();
  }
  EXPECT_DOUBLE_EQ(last["0"], 25);
  EXPECT_DOUBLE_EQ(last["1"], 50);
}

// Proves: the fleet's questions get the same answer from the API and the CLI: aggregates of a
// group with their contributors, and a ranking; WINA's two processors (25% and 50% busy) give an
// average of 37.5 and a maximum of 50 at every step, and the busiest is processor 1.
TEST_F(ConsoleTest, AggregatesAndRankingsGiveTheValuesTheCliGives) {
  const std::string path = "\\\\*\\Processor(*)\\% Processor Time";
  const std::string range = "from=2026-11-22T10:00:00Z&to=2026-11-22T10:00:10Z&step=1s";
  json api = ReaderGet("/api/v1/read?path=" + Encoded(path) + "&" + range +
                       "&select=host%3DWINA&aggregate=avg,max,count&group_by=host");
  json cli = CliQuery(
      path, {"--from", "2026-11-22T10:00:00Z", "--to", "2026-11-22T10:00:10Z", "--step", "1s",
             "--select", "host=WINA", "--aggregate", "avg,max,count", "--group-by", "host"});
  ASSERT_EQ(api["series"].size(), 3u) << api.dump();
  EXPECT_EQ(api["series"], cli["series"]);
  std::map<std::string, json> by_function;
  for (const json& series : api["series"]) {
    by_function[series["aggregate"]["function"].get<std::string>()] = series;
  }
  const json& avg = by_function["avg"];
  EXPECT_EQ(avg["path"], "avg(\\\\WINA\\Processor(*)\\% Processor Time)");
  EXPECT_EQ(avg["aggregate"]["group"], "WINA");
  EXPECT_EQ(avg["aggregate"]["members"], 2);
  ASSERT_EQ(avg["values"].size(), 3u) << avg.dump();  // steps 1, 2, 3 of the samples 0 to 3
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(avg["values"][k].get<double>(), 37.5);
    EXPECT_DOUBLE_EQ(by_function["max"]["values"][k].get<double>(), 50);
    EXPECT_DOUBLE_EQ(by_function["count"]["values"][k].get<double>(), 2);
    EXPECT_EQ(avg["aggregate"]["contributors"][k], 2);
  }

  json top = ReaderGet("/api/v1/read?path=" + Encoded("\\\\WINA\\Processor(*)\\% Processor Time") +
                       "&top=1&rank_by=mean");
  json cli_top =
      CliQuery("\\\\WINA\\Processor(*)\\% Processor Time", {"--top", "1", "--rank-by", "mean"});
  ASSERT_EQ(top["series"].size(), 1u) << top.dump();
  EXPECT_EQ(top["series"][0]["instance"], "1");
  EXPECT_EQ(top["series"], cli_top["series"]);
  // A window beside the one before it: WINA's loads are steady, so the means are equal.
  const std::string wina = "\\\\WINA\\Processor(*)\\% Processor Time";
  json compared = ReaderGet("/api/v1/read?path=" + Encoded(wina) +
                            "&from=2026-11-22T10:00:02Z&to=2026-11-22T10:00:03Z&compare=1s");
  json cli_compared = CliQuery(
      wina, {"--from", "2026-11-22T10:00:02Z", "--to", "2026-11-22T10:00:03Z", "--compare", "1s"});
  ASSERT_EQ(compared["series"].size(), 2u) << compared.dump();
  EXPECT_EQ(compared["series"], cli_compared["series"]);
  for (const json& series : compared["series"]) {
    const json& baseline = series["baseline"];
    EXPECT_EQ(baseline["offset_ms"], 1000);
    EXPECT_DOUBLE_EQ(baseline["mean"].get<double>(), series["instance"] == "0" ? 25 : 50);
    EXPECT_DOUBLE_EQ(baseline["ratio"].get<double>(), 1);
    EXPECT_DOUBLE_EQ(baseline["difference"].get<double>(), 0);
  }
  // A condition: WINA's processor 1 is busy 50% throughout, processor 0 25%; the CLI exits 6 as
  // one holds at its last value.
  json held = ReaderGet("/api/v1/read?path=" + Encoded(wina) + "&held=" + Encoded("> 40 for 1s"));
  json cli_held = CliQuery(wina, {"--held", "> 40 for 1s"}, 6);
  ASSERT_EQ(held["series"].size(), 1u) << held.dump();
  EXPECT_EQ(held["series"][0]["instance"], "1");
  EXPECT_EQ(held["held_checked"], 2);
  EXPECT_EQ(held["series"][0]["held"][0]["ongoing"], true);
  EXPECT_EQ(held["series"], cli_held["series"]);
  // Mistakes are named, from either side.
  json refused = ReaderGet("/api/v1/read?path=" + Encoded(path) + "&aggregate=median", 400);
  EXPECT_THAT(refused.dump(), HasSubstr("median"));
}

// Proves: latest=1 gives one point per series, and a process is followed by PID as the CLI
// does (app#1, PID 1001, keeps its own series and its PID).
TEST_F(ConsoleTest, LatestGivesOnePointPerSeriesWithItsProcessIdentity) {
  json api =
      ReaderGet("/api/v1/read?latest=1&path=" + Encoded("\\\\WINA\\Process(*)\\% Processor Time"));
  std::map<uint64_t, double> by_pid;
  for (const json& series : api["series"]) {
    ASSERT_EQ(series["values"].size(), 1u) << series.dump();
    if (series.contains("pid")) by_pid[series["pid"]] = series["values"][0];
  }
  EXPECT_DOUBLE_EQ(by_pid[1000], 10);
  EXPECT_DOUBLE_EQ(by_pid[1001], 20);
  EXPECT_DOUBLE_EQ(by_pid[1002], 30);
}

// Proves: browsing lists the objects (Global's: Thread is Costly), counters with their detail
// level and type, and the instances with their PIDs, of a real recording of this host.
TEST_F(ConsoleTest, BrowsingListsObjectsCountersAndProcessesWithPids) {
  json objects = ReaderGet("/api/v1/objects?host=LINUXREC");
  std::vector<std::string> names;
  for (const json& object : objects["objects"]) names.push_back(object["name"]);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"Processor", "Process", "Memory", "LogicalDisk"}));
  json counters = ReaderGet("/api/v1/counters?host=LINUXREC&object=Process&detail=novice");
  bool found = false;
  for (const json& counter : counters["counters"]) {
    EXPECT_EQ(counter["detail"], "novice");
    if (counter["name"] == "% Processor Time") {
      found = true;
      EXPECT_EQ(counter["type_name"], "PERF_100NSEC_TIMER");
      EXPECT_EQ(counter["unit"], "%");
    }
  }
  EXPECT_TRUE(found) << counters.dump();
  json instances = ReaderGet("/api/v1/instances?host=WINA&object=Process");
  std::map<std::string, uint64_t> pids;
  for (const json& instance : instances["instances"]) pids[instance["name"]] = instance["pid"];
  EXPECT_EQ(pids["svc"], 1002u) << instances.dump();
}

// Proves: a pattern for the host (or select=) browses every host it picks, each name with how
// many of them have it and which lack it, as `perfhive objects` and `instances` answer (WINA was
// built without LogicalDisk, with processor 0 as every host has); a selector that does not parse is
// a 400 naming its term.
TEST_F(ConsoleTest, BrowsingSeveralHostsGivesWhatTheCliGives) {
  json objects = ReaderGet("/api/v1/objects?host=*");
  json cli_objects = CliJson({"objects", "\\\\*"});
  EXPECT_EQ(objects["hosts"], json({"LINUXREC", "WINA"})) << objects.dump();
  EXPECT_EQ(objects["hosts"], cli_objects["hosts"]);
  std::map<std::string, json> by_name;
  for (const json& object : objects["objects"]) by_name[object["name"]] = object;
  EXPECT_EQ(by_name["Processor"]["hosts"], 2);
  EXPECT_EQ(by_name["LogicalDisk"]["hosts"], 1);
  EXPECT_EQ(by_name["LogicalDisk"]["lacking"], json({"WINA"}));
  ASSERT_EQ(objects["objects"].size(), cli_objects["objects"].size());
  for (size_t i = 0; i < objects["objects"].size(); ++i) {
    for (const char* key : {"name", "index", "instances", "counters", "hosts", "lacking"}) {
      EXPECT_EQ(objects["objects"][i][key], cli_objects["objects"][i][key]) << i << " " << key;
    }
  }

  json instances = ReaderGet("/api/v1/instances?select=" + Encoded("host=*") + "&object=Processor");
  json cli_instances = CliJson({"instances", "\\\\*\\Processor", "--select", "host=*"});
  EXPECT_EQ(instances["object_hosts"], 2);
  EXPECT_EQ(instances["instances"], cli_instances["instances"]) << instances.dump();
  std::map<std::string, json> processors;
  for (const json& instance : instances["instances"]) processors[instance["name"]] = instance;
  EXPECT_EQ(processors["0"]["hosts"], 2) << instances.dump();

  json bad = ReaderGet("/api/v1/objects?select=role", 400);
  EXPECT_EQ(bad["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_THAT(bad["error"]["message"].get<std::string>(),
              HasSubstr("host selector \"role\": the term \"role\" is not KEY=VALUE"));
  json nothing = ReaderGet("/api/v1/objects", 400);
  EXPECT_THAT(nothing["error"]["message"].get<std::string>(), HasSubstr("select="));
}

// Proves: on a live Linux host that takes Global and Costly each 200 ms, browsing finds the
// Thread object that only the Costly samples hold, and a latest read gives every thread a valid
// % Processor Time: the newest two samples of each query are read, not the newest two of all
// (which were Global and Costly milliseconds apart, and no thread's rate had two samples).
TEST_F(ConsoleTest, ThreadsOfCostlySamplesAreBrowsedAndReadLatest) {
  ChildProcess agent({AgentBinary(), "run", "--server", server_->address(), "--ca",
                      *scratch_ / "ca.pem", "--token-file", *scratch_ / "agent.token", "--source",
                      "procfs", "--host-name", "LIVE", "--query", "Global@200ms", "--query",
                      "Costly@200ms", "--spool-dir", *scratch_ / "spool-LIVE"},
                     *scratch_ / "live-agent.out", *scratch_ / "live-agent.err");
  const std::string threads_path = "\\\\LIVE\\Thread(*)\\% Processor Time";
  // Valid once two Costly samples are stored (a thread born between them has one sample only).
  auto valid_threads = [&] {
    size_t valid = 0;
    httplib::Result read = Client(console_port_)
                               ->Get("/api/v1/read?latest=1&path=" + Encoded(threads_path),
                                     Bearer(kConsoleReaderSecret));
    if (!read || read->status != 200) return valid;
    json answer = json::parse(read->body, nullptr, false);
    for (const json& series : answer["series"]) {
      valid += series["last_status"] == "PDH_CSTATUS_VALID_DATA";
    }
    return valid;
  };
  ASSERT_TRUE(WaitUntil([&] { return valid_threads() >= 3; }));
  agent.Signal(SIGTERM);
  agent.Wait(std::chrono::seconds(10));
  json objects = ReaderGet("/api/v1/objects?host=LIVE");
  std::vector<std::string> names;
  for (const json& object : objects["objects"]) names.push_back(object["name"]);
  EXPECT_THAT(names, ::testing::Contains("Thread"));
  json counters = ReaderGet("/api/v1/counters?host=LIVE&object=Thread");
  EXPECT_FALSE(counters["counters"].empty()) << counters.dump();
  json threads = ReaderGet("/api/v1/read?latest=1&path=" + Encoded(threads_path));
  size_t valid = 0;
  bool agent_main_thread_valid = false;
  for (const json& series : threads["series"]) {
    bool ok = series["last_status"] == "PDH_CSTATUS_VALID_DATA";
    valid += ok;
    if (series.value("tid", 0) == agent.pid()) agent_main_thread_valid = ok;
  }
  // Read from the newest two samples of all, Global and Costly milliseconds apart, no thread
  // would be valid. Read right, the threads that lived through both Costly samples are: the
  // agent's own main thread surely, and most of this machine's. Not all: threads born between
  // the two samples, 200 ms apart, have one sample (other tests start processes side by side).
  EXPECT_TRUE(agent_main_thread_valid) << "thread " << agent.pid() << ": " << threads.dump();
  EXPECT_GE(valid * 2, threads["series"].size()) << threads.dump();
}

// Proves: the fleet's hosts carry their newest sample's own time (the host's clock), besides
// when the server last heard from them.
TEST_F(ConsoleTest, HostsGiveTheirNewestSampleTime) {
  json hosts = ReaderGet("/api/v1/hosts?pattern=WINA");
  ASSERT_EQ(hosts["hosts"].size(), 1u) << hosts.dump();
  EXPECT_EQ(hosts["hosts"][0]["last_sample_ms"].get<double>(),
            static_cast<double>(WallClockMilliseconds(windows_.snapshots.back())));
  EXPECT_GT(hosts["hosts"][0]["last_seen_ms"].get<double>(), 0);
}

// Proves: a path the CLI would refuse is refused with the same message, pointing at its column;
// an unknown host and a malformed time say what is wrong and how to write it; a read over the
// point limit is refused (413) with the server's estimate.
TEST_F(ConsoleTest, MistakesAreNamedWithTheColumn) {
  json bad =
      ReaderGet("/api/v1/read?path=" + Encoded("\\\\WINA\\Processor(0\\% Processor Time"), 400);
  EXPECT_EQ(bad["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_TRUE(bad["error"].contains("column")) << bad.dump();
  EXPECT_THAT(bad["error"]["message"].get<std::string>(), HasSubstr("^"));
  json unknown = ReaderGet("/api/v1/objects?host=NOSUCH", 404);
  EXPECT_THAT(unknown["error"]["message"].get<std::string>(), HasSubstr("WINA"));
  json time = ReaderGet("/api/v1/read?from=yesterday&path=" + Encoded("\\\\WINA\\Memory\\*"), 400);
  EXPECT_THAT(time["error"]["message"].get<std::string>(), HasSubstr("from: "));
  json too_large = ReaderGet(
      "/api/v1/read?max_points=5&path=" + Encoded("\\\\WINA\\Processor(*)\\% Processor Time"), 413);
  EXPECT_EQ(too_large["error"]["code"], "RESOURCE_EXHAUSTED");
  EXPECT_THAT(too_large["error"]["message"].get<std::string>(),
              AllOf(HasSubstr("more than 5 points"), HasSubstr("estimated"), HasSubstr("WINA")));
}

// Proves: the login form's token becomes an HTTP-only, Secure, SameSite cookie that lets the
// browser read; a wrong token goes back to the form with the reason; without either the API
// answers 401; log out ends it.
TEST_F(ConsoleTest, LoginKeepsTheTokenInAnHttpOnlyCookie) {
  auto client = Client(console_port_);
  httplib::Result anonymous = client->Get("/api/v1/hosts");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);

  httplib::Result wrong =
      client->Post("/login", httplib::Params{{"token", "guess"}, {"next", "/#/fleet"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 303);
  // (cpp-httplib's client decodes Location's percent-encoding.)
  EXPECT_THAT(wrong->get_header_value("Location"), HasSubstr("/?login_error=unknown token"));
  EXPECT_FALSE(wrong->has_header("Set-Cookie"));

  httplib::Result right = client->Post(
      "/login", httplib::Params{{"token", kConsoleReaderSecret}, {"next", "/#/fleet"}});
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 303);
  EXPECT_EQ(right->get_header_value("Location"), "/#/fleet");
  std::string cookie = right->get_header_value("Set-Cookie");
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("Secure"));
  EXPECT_THAT(cookie, HasSubstr("SameSite=Strict"));
  std::string session = cookie.substr(0, cookie.find(';'));

  httplib::Result hosts = client->Get("/api/v1/hosts", {{"Cookie", session}});
  ASSERT_TRUE(hosts);
  ASSERT_EQ(hosts->status, 200) << hosts->body;
  std::vector<std::string> names;
  json listed = json::parse(hosts->body);
  for (const json& host : listed["hosts"]) names.push_back(host["name"]);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"WINA", "LINUXREC"}));
  httplib::Result who = client->Get("/api/v1/session", {{"Cookie", session}});
  ASSERT_TRUE(who);
  EXPECT_EQ(json::parse(who->body)["name"], "console reader");

  // The writer's token may not read, in the form as on the API.
  httplib::Result writer = client->Post("/login", httplib::Params{{"token", kConsoleAgentSecret}});
  ASSERT_TRUE(writer);
  EXPECT_THAT(writer->get_header_value("Location"), HasSubstr("may not read"));
  httplib::Result written = client->Get("/api/v1/hosts", Bearer(kConsoleAgentSecret));
  ASSERT_TRUE(written);
  EXPECT_EQ(written->status, 403);

  // A login never sends the browser to another site.
  httplib::Result away = client->Post(
      "/login", httplib::Params{{"token", kConsoleReaderSecret}, {"next", "//evil.example/"}});
  ASSERT_TRUE(away);
  EXPECT_EQ(away->get_header_value("Location"), "/");

  // Issue 34, 9: another site's page cannot post the login form (with its author's own token)
  // nor the logout; the console's own page can.
  for (const char* target : {"/login", "/logout"}) {
    httplib::Result forged = client->Post(target, {{"Origin", "https://evil.example"}},
                                          httplib::Params{{"token", kConsoleReaderSecret}});
    ASSERT_TRUE(forged);
    EXPECT_EQ(forged->status, 403) << target;
    EXPECT_TRUE(forged->get_header_value("Set-Cookie").empty()) << target;
  }
  httplib::Result own =
      client->Post("/login", {{"Origin", "https://127.0.0.1:" + std::to_string(console_port_)}},
                   httplib::Params{{"token", kConsoleReaderSecret}});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 303);

  // Issue 34, 9: the cookie holds an opaque session ID, not the token (which it held in
  // hexadecimal), and logging out ends that session for every copy of the cookie.
  std::string hex_token;
  for (unsigned char c : std::string(kConsoleReaderSecret)) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex_token += kDigits[c >> 4];
    hex_token += kDigits[c & 15];
  }
  EXPECT_THAT(session, Not(HasSubstr(hex_token)));
  EXPECT_THAT(session, Not(HasSubstr(kConsoleReaderSecret)));
  httplib::Result out = client->Post("/logout", {{"Cookie", session}}, "", "text/plain");
  ASSERT_TRUE(out);
  EXPECT_THAT(out->get_header_value("Set-Cookie"), HasSubstr("Max-Age=0"));
  httplib::Result copied = client->Get("/api/v1/hosts", {{"Cookie", session}});
  ASSERT_TRUE(copied);
  EXPECT_EQ(copied->status, 401);
  EXPECT_THAT(copied->body, HasSubstr("log in again"));
}

// Proves: the page and its chart library come from the server itself, compressed on request,
// with a policy that lets the page load nothing from elsewhere.
TEST_F(ConsoleTest, ThePageAndChartJsAreServedFromTheBinary) {
  auto client = Client(console_port_);
  httplib::Result page = client->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->get_header_value("Content-Type"), HasSubstr("text/html"));
  EXPECT_THAT(page->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'self'"));
  EXPECT_THAT(page->body, HasSubstr("chart.min.js"));
  client->set_decompress(false);
  httplib::Result chart = client->Get("/chart.min.js", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(chart);
  EXPECT_EQ(chart->status, 200);
  EXPECT_EQ(chart->get_header_value("Content-Encoding"), "gzip");
  EXPECT_LT(chart->body.size(), 100'000u);  // 199,560 bytes as Debian ships it
  httplib::Result missing = client->Get("/nothing-here.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

// Issue 34: JSON answers had neither a Content-Security-Policy nor nosniff, the 404 page repeated
// the path it was asked for, and HTTPS answers had no HSTS.
TEST_F(ConsoleTest, EveryAnswerIsTypedFramelessAndHttpsOnlyAndA404RepeatsNothing) {
  auto client = Client(console_port_);
  httplib::Result data = client->Get("/api/v1/hosts", Bearer(kConsoleReaderSecret));
  httplib::Result refused = client->Get("/api/v1/hosts");
  httplib::Result missing = client->Get("/%3Cscript%3Ealert(1)%3C%2Fscript%3E");
  httplib::Result page = client->Get("/");
  for (const httplib::Result* answer : {&data, &refused, &missing, &page}) {
    ASSERT_TRUE(*answer);
    const httplib::Response& response = **answer;
    SCOPED_TRACE(std::to_string(response.status) + " " + response.get_header_value("Content-Type"));
    EXPECT_EQ(response.get_header_value("X-Content-Type-Options"), "nosniff");
    EXPECT_THAT(response.get_header_value("Content-Security-Policy"),
                HasSubstr("frame-ancestors 'none'"));
    EXPECT_THAT(response.get_header_value("Strict-Transport-Security"), HasSubstr("max-age="));
    EXPECT_EQ(response.get_header_value_count("Content-Security-Policy"), 1u);
  }
  EXPECT_EQ(data->status, 200);
  EXPECT_THAT(data->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'none'"));
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(missing->status, 404);
  EXPECT_THAT(missing->body, AllOf(Not(HasSubstr("script")), Not(HasSubstr("alert"))));
  EXPECT_THAT(page->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'self'"));
}

// Proves: the CSV download is typeperf's layout with a column per series.
TEST_F(ConsoleTest, CsvDownloadIsTypeperfsLayout) {
  httplib::Result csv =
      Client(console_port_)
          ->Get("/api/v1/read.csv?path=" + Encoded("\\\\WINA\\Processor(*)\\% Processor Time"),
                Bearer(kConsoleReaderSecret));
  ASSERT_TRUE(csv);
  ASSERT_EQ(csv->status, 200) << csv->body;
  EXPECT_THAT(csv->get_header_value("Content-Disposition"), HasSubstr("attachment"));
  EXPECT_THAT(csv->body,
              ::testing::StartsWith("\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\""));
  EXPECT_THAT(csv->body, HasSubstr("\"\\\\WINA\\Processor(1)\\% Processor Time\""));
}

// Proves: /metrics is served over the same TLS and wants a read token, as Prometheus scrapes
// with authorization.credentials_file.
TEST_F(ConsoleTest, MetricsWantsTlsAndAReadToken) {
  auto client = Client(metrics_port_);
  httplib::Result anonymous = client->Get("/metrics");
  ASSERT_TRUE(anonymous) << httplib::to_string(anonymous.error());
  EXPECT_EQ(anonymous->status, 401);
  httplib::Result writer = client->Get("/metrics", Bearer(kConsoleAgentSecret));
  ASSERT_TRUE(writer);
  EXPECT_EQ(writer->status, 403);
  httplib::Result reader = client->Get("/metrics", Bearer(kConsoleReaderSecret));
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->status, 200);
  EXPECT_THAT(reader->body, HasSubstr("host=\"WINA\""));
}

// Proves: --insecure keeps the console on loopback, as it keeps gRPC.
TEST(ConsoleListenTest, InsecureRefusesAConsoleOffLoopback) {
  ScratchDir scratch("console-insecure");
  CommandResult refused =
      RunCommand(scratch, {ServerBinary(), "--insecure", "--data", scratch / "data", "--listen",
                           "127.0.0.1:0", "--http-listen", "0.0.0.0:0"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("--http-listen: --insecure serves on loopback only"));
}

// Proves: an --insecure console, where nobody logs in, answers only requests addressed to
// loopback. Regression: it answered `Host: rebind.attacker.example`, so a page on another site
// that pointed its name at 127.0.0.1 (DNS rebinding) could read the API from the browser.
TEST(ConsoleListenTest, AnInsecureConsoleRefusesRequestsAddressedToAnotherHost) {
  ScratchDir scratch("console-rebinding");
  const int port = UnusedLoopbackPort();
  ServerProcess server(scratch,
                       {"--insecure", "--http-listen", "127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(server.Start());
  httplib::Client client("127.0.0.1", port);
  httplib::Result rebound = client.Get("/api/v1/hosts", {{"Host", "rebind.attacker.example"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 421);
  EXPECT_THAT(rebound->body, Not(HasSubstr("hosts")));
  for (const std::string& host : {"127.0.0.1:" + std::to_string(port), std::string("localhost")}) {
    httplib::Result local = client.Get("/api/v1/hosts", {{"Host", host}});
    ASSERT_TRUE(local);
    EXPECT_EQ(local->status, 200) << host << ": " << local->body;
  }
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace perfhive::testing
