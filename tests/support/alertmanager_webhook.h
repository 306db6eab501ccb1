// A webhook receiver for Alertmanager in tests: an HTTP server on 127.0.0.1 that keeps every
// notification Alertmanager posts to it, and waits for the alerts a test expects among them.

#ifndef PERFHIVE_TESTS_SUPPORT_ALERTMANAGER_WEBHOOK_H_
#define PERFHIVE_TESTS_SUPPORT_ALERTMANAGER_WEBHOOK_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "export/http_server.h"

namespace perfhive::testing {

// The notifications Alertmanager's webhook receiver posts, as they arrive.
class Webhook {
 public:
  Webhook() {
    auto server = HttpServer::Start("127.0.0.1", 0, [this](const HttpRequest& request) {
      std::lock_guard lock(mutex_);
      received_.push_back(nlohmann::json::parse(request.body, nullptr, false));
      return HttpReply{};
    });
    EXPECT_TRUE(server.ok()) << server.error();
    server_ = std::move(server).value();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(server_->port()) + "/"; }

  // The alerts of the notifications received so far whose status is `status` ("firing",
  // "resolved"), by their host label, waiting up to `timeout` for `host` to be among them.
  bool WaitFor(const std::string& status, const std::string& host,
               std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard lock(mutex_);
        for (const nlohmann::json& notification : received_) {
          if (!notification.is_object()) continue;
          for (const nlohmann::json& alert : notification["alerts"]) {
            if (alert["status"] == status && alert["labels"]["host"] == host) return true;
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::lock_guard lock(mutex_);
    ADD_FAILURE() << "no " << status << " alert for " << host << " in " << received_.size()
                  << " notifications: " << nlohmann::json(received_).dump();
    return false;
  }

  // Every alert of every notification received so far (status, labels, startsAt, ...), in the
  // order they arrived.
  std::vector<nlohmann::json> Alerts() {
    std::lock_guard lock(mutex_);
    std::vector<nlohmann::json> alerts;
    for (const nlohmann::json& notification : received_) {
      if (!notification.is_object()) continue;
      for (const nlohmann::json& alert : notification["alerts"]) alerts.push_back(alert);
    }
    return alerts;
  }

 private:
  std::mutex mutex_;
  std::vector<nlohmann::json> received_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_ALERTMANAGER_WEBHOOK_H_
