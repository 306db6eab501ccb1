// A real Debian `prometheus-alertmanager` for tests: started on 127.0.0.1 with gossip off, a
// storage folder and a configuration the test owns (its receivers: webhooks the test serves),
// stopped by PID. Tests that need it skip when it is not installed.

#ifndef PERFHIVE_TESTS_SUPPORT_ALERTMANAGER_PROCESS_H_
#define PERFHIVE_TESTS_SUPPORT_ALERTMANAGER_PROCESS_H_

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "export/http_client.h"
#include "tests/support/child_process.h"

namespace perfhive::testing {

inline constexpr const char* kAlertmanagerBinary = "/usr/bin/prometheus-alertmanager";

#define SKIP_WITHOUT_ALERTMANAGER()                                                \
  if (!std::filesystem::exists(::perfhive::testing::kAlertmanagerBinary)) {        \
    GTEST_SKIP() << ::perfhive::testing::kAlertmanagerBinary                       \
                 << " is not installed (apt-get install prometheus-alertmanager; " \
                    "scripts/install-deps.sh)";                                    \
  }

// One Alertmanager on 127.0.0.1 whose only receiver posts every notification to `webhook_url`
// at once (group_wait and group_interval of a second), on a port the kernel chooses (read back
// from its log) unless the test gives one. Its state under `dir` survives Stop and Start.
class Alertmanager {
 public:
  Alertmanager(const std::filesystem::path& dir, const std::string& webhook_url, uint16_t port = 0)
      : dir_(dir), port_(port) {
    std::filesystem::create_directories(dir / "data");
    std::ofstream(dir / "alertmanager.yml") << "route:\n"
                                            << "  receiver: test\n"
                                            << "  group_by: ['...']\n"
                                            << "  group_wait: 1s\n"
                                            << "  group_interval: 1s\n"
                                            << "  repeat_interval: 1h\n"
                                            << "receivers:\n"
                                            << "  - name: test\n"
                                            << "    webhook_configs:\n"
                                            << "      - url: '" << webhook_url << "'\n"
                                            << "        send_resolved: true\n";
    log_ = (dir / "alertmanager.log").string();
  }
  ~Alertmanager() {
    Stop();
    if (::testing::Test::HasFailure()) {
      std::string log = ReadWholeFile(log_);
      if (log.size() > 8000) log = "..." + log.substr(log.size() - 8000);
      std::fprintf(stderr, "the log of alertmanager (%s):\n%s\n", log_.c_str(), log.c_str());
    }
  }

  // Starts it and waits until it answers; false (with a failure) if it does not.
  bool Start() {
    if (process_) return true;
    std::filesystem::remove(log_);
    process_.emplace(
        std::vector<std::string>{
            kAlertmanagerBinary, "--config.file=" + (dir_ / "alertmanager.yml").string(),
            "--storage.path=" + (dir_ / "data").string(),
            "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--cluster.listen-address="},
        log_, log_);
    if (port_ == 0) {
      std::optional<std::string> port = WaitForMatch(
          log_, R"(msg="Listening on" address=127\.0\.0\.1:([0-9]+))", std::chrono::seconds(30));
      if (!port) {
        ADD_FAILURE() << "alertmanager never said where it listens; its log:\n"
                      << ReadWholeFile(log_);
        return false;
      }
      port_ = static_cast<uint16_t>(std::stoi(*port));
    }
    HttpClient client({});
    for (int i = 0; i < 300 && process_->running(); ++i) {
      Result<HttpResponse> ready = client.Get(Url() + "/-/ready");
      if (ready.ok() && ready->status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "alertmanager on " << Url() << " not ready; its log:\n" << ReadWholeFile(log_);
    return false;
  }

  void Stop() {
    if (!process_) return;
    process_->Signal(SIGTERM);
    if (!process_->Wait(std::chrono::milliseconds(20000))) process_->Signal(SIGKILL);
    process_.reset();
  }

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  std::filesystem::path dir_;
  uint16_t port_;
  std::string log_;
  std::optional<ChildProcess> process_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_ALERTMANAGER_PROCESS_H_
