// End to end, the MSI as an administrator uses it: Wine's msiexec installs
// perfhive-agent-<version>-x64.msi with settings given as properties, upgrades it to a build with
// a higher version, runs it again with one property changed, and removes it; the service it
// installs ships to a Linux perfhive-server. Wine's HKEY_PERFORMANCE_DATA has no objects, so
// the first test's service replays builder-made Windows snapshots (SOURCE=replay), checked byte
// for byte on the server; the second's reads the registry, as a real host's does.
//
// Needs PERFHIVE_WINDOWS_MSI (this build's MSI), PERFHIVE_WINDOWS_MSI_UPGRADE (the same agent
// packaged with a higher version, scripts/build-msi.sh --version), WINEPREFIX and a persistent
// wineserver; scripts/test-windows.sh provides them. Each test leaves the prefix as it found it:
// the product uninstalled, %ProgramData%\perfhive removed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/wine.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kMsiAgentSecret[] = "msi-agent-secret-0000000000001";
constexpr char kMsiReaderSecret[] = "msi-reader-secret-000000000001";
constexpr char kServiceKey[] = "HKLM\\System\\CurrentControlSet\\Services\\perfhive-agent";
constexpr char kUninstallKey[] = "HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\";
constexpr char kMsiinfo[] = "/usr/bin/msiinfo";

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t Count(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

class WindowsMsiEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* msi = std::getenv("PERFHIVE_WINDOWS_MSI");
    const char* upgrade = std::getenv("PERFHIVE_WINDOWS_MSI_UPGRADE");
    const char* prefix = std::getenv("WINEPREFIX");
    if (msi == nullptr || upgrade == nullptr || prefix == nullptr) {
      GTEST_SKIP() << "PERFHIVE_WINDOWS_MSI, PERFHIVE_WINDOWS_MSI_UPGRADE and WINEPREFIX are not "
                      "all set; scripts/test-windows.sh runs this test with the MSIs it builds";
    }
    msi_ = msi;
    upgrade_ = upgrade;
    drive_c_ = std::string(prefix) + "/drive_c";
    ASSERT_EQ(access(kWine, X_OK), 0) << kWine << " is missing (scripts/install-deps.sh windows)";
    ASSERT_EQ(access(kMsiinfo, X_OK), 0) << kMsiinfo << " is missing (package msitools)";
    scratch_ = std::make_unique<ScratchDir>("windows-msi");
    RemoveProduct();
  }
  void TearDown() override {
    if (scratch_ == nullptr) return;
    RemoveProduct();
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0);
    }
  }

  // Uninstalls whichever of the two MSIs is installed (a test that failed half way leaves one)
  // and removes what the agent writes beside the product: settings, token, log, spool.
  void RemoveProduct() {
    for (const std::string& msi : {msi_, upgrade_}) Msiexec({"/x", WinePath(msi), "/qn"});
    std::filesystem::remove_all(ProgramData());
  }

  void StartServer(std::vector<std::string> flags) {
    server_ = std::make_unique<ServerProcess>(*scratch_, std::move(flags));
    ASSERT_TRUE(server_->Start());
  }

  CommandResult Msiexec(std::vector<std::string> args) {
    std::vector<std::string> argv = {kWine, "msiexec"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(*scratch_, argv, std::chrono::seconds(180));
  }

  // A registry value as `reg query` shows it, or nothing when the key or value is missing.
  std::optional<std::string> RegistryValue(const std::string& key, const std::string& name) {
    CommandResult queried = RunCommand(*scratch_, {kWine, "reg", "query", key, "/v", name});
    if (queried.exit_code != 0) return std::nullopt;
    size_t type = queried.out.find("REG_", queried.out.find(name));
    if (type == std::string::npos) return std::nullopt;
    size_t value = queried.out.find_first_not_of(' ', queried.out.find(' ', type));
    return queried.out.substr(value, queried.out.find_first_of("\r\n", value) - value);
  }
  bool ServiceInstalled() {
    return RunCommand(*scratch_, {kWine, "reg", "query", kServiceKey}).exit_code == 0;
  }

  // A property of an MSI's Property table (ProductCode, ProductVersion), read with msiinfo.
  std::string MsiProperty(const std::string& msi, const std::string& name) {
    CommandResult exported = RunCommand(*scratch_, {kMsiinfo, "export", msi, "Property"});
    EXPECT_EQ(exported.exit_code, 0) << exported.err;
    std::string row = "\n" + name + "\t";
    size_t at = exported.out.find(row);
    if (at == std::string::npos) return "";
    at += row.size();
    return exported.out.substr(at, exported.out.find_first_of("\r\n", at) - at);
  }
  // What Programs and Features shows as the version of the MSI's product, if it is installed.
  std::optional<std::string> InstalledVersion(const std::string& msi) {
    return RegistryValue(kUninstallKey + MsiProperty(msi, "ProductCode"), "DisplayVersion");
  }

  std::string ProgramData() const { return drive_c_ + "/ProgramData/perfhive"; }
  std::string InstalledAgent() const {
    return drive_c_ + "/Program Files/perfhive/perfhive-agent.exe";
  }
  AgentConfig Settings() {
    AgentConfig config;
    Status status = LoadConfigFile(Env::Default(), ProgramData() + "/agent.toml", config);
    EXPECT_TRUE(status.ok()) << status.message();
    return config;
  }
  std::string AgentLog() { return ReadText(ProgramData() + "/agent.log"); }
  // Waits up to 30 s for the agent's log to hold `part` `times` times.
  bool WaitForLog(const std::string& part, size_t times = 1) {
    for (int i = 0; i < 60 && Count(AgentLog(), part) < times; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return Count(AgentLog(), part) >= times;
  }

  std::string msi_;
  std::string upgrade_;
  std::string drive_c_;
  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<ServerProcess> server_;
};

// Proves: the MSI installs the agent and a service configured from its properties alone (TLS
// with the CA and token given, the host name, the replay), never writing the token to its log or
// the settings to the service's command line; the service ships the replayed files byte for
// byte. An upgrade given no property keeps agent.toml and the token byte for byte and starts
// the new build's service; running the MSI again with one property changes that setting only,
// and the service, started again, ships under the new name; so does the service after the
// installed agent's `configure` changed a setting and restarted it. Uninstalling removes the
// service and the program, and keeps the settings.
TEST_F(WindowsMsiEndToEndTest, InstallsUpgradesReconfiguresAndRemovesTheService) {
  ASSERT_TRUE(MakeCertificates(*scratch_));
  WriteText(*scratch_ / "tokens.toml",
            std::string("[[token]]\nname = \"msi agents\"\nsecret = \"") + kMsiAgentSecret +
                "\"\nwrite = [\"WINEMSI*\"]\n\n[[token]]\nname = \"cli\"\nsecret = \"" +
                kMsiReaderSecret + "\"\nread = true\n");
  WriteText(*scratch_ / "reader.token", kMsiReaderSecret);
  StartServer({"--tls-cert", *scratch_ / "server.pem", "--tls-key", *scratch_ / "server.key",
               "--tokens", *scratch_ / "tokens.toml"});
  const std::vector<std::string> cli = {"--ca", *scratch_ / "ca.pem", "--token-file",
                                        *scratch_ / "reader.token"};
  // 240 files, one every 250 ms: the service still replays when the MSI runs again.
  ReplayDir dir = WriteReplayDir(*scratch_, "WINEMSI", 240);
  const std::string run_line = " run: 1 host, server " + server_->address();

  // Install.
  std::string install_log = *scratch_ / "install.log";
  CommandResult installed = Msiexec(
      {"/i", WinePath(msi_), "/qn", "/l*v", WinePath(install_log), "SERVER=" + server_->address(),
       std::string("TOKEN=") + kMsiAgentSecret, "CA_FILE=" + WinePath(*scratch_ / "ca.pem"),
       "HOST_NAME=WINEMSI", "QUERIES=Global", "INTERVAL=250ms", "SOURCE=replay",
       "REPLAY=" + WinePath(dir.path), "LABELS=role=web;site=ams"});
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err << ReadText(install_log);
  std::string log = ReadText(install_log);
  EXPECT_THAT(log, HasSubstr("Configure"));  // the log is the whole install's
  EXPECT_THAT(log, Not(HasSubstr(kMsiAgentSecret)));
  EXPECT_TRUE(std::filesystem::exists(InstalledAgent()));
  std::optional<std::string> image = RegistryValue(kServiceKey, "ImagePath");
  ASSERT_TRUE(image.has_value());
  EXPECT_THAT(*image, HasSubstr("perfhive-agent.exe service run --name perfhive-agent --config "
                                "\"C:\\ProgramData\\perfhive\\agent.toml\""));
  EXPECT_THAT(*image, Not(HasSubstr(server_->address())));

  AgentConfig installed_settings = Settings();
  EXPECT_EQ(installed_settings.server, server_->address());
  EXPECT_EQ(installed_settings.host_name, "WINEMSI");
  EXPECT_EQ(installed_settings.source, "replay");
  EXPECT_EQ(installed_settings.replay_dir, WinePath(dir.path));
  EXPECT_EQ(installed_settings.interval, std::chrono::milliseconds(250));
  ASSERT_EQ(installed_settings.queries.size(), 1u);
  EXPECT_EQ(installed_settings.queries[0].name, "Global");
  EXPECT_EQ(installed_settings.labels, (query::HostLabels{{"role", "web"}, {"site", "ams"}}));
  EXPECT_EQ(installed_settings.ca_file, "C:\\ProgramData\\perfhive\\ca.pem");
  EXPECT_EQ(ReadText(ProgramData() + "/ca.pem"), ReadText(*scratch_ / "ca.pem"));
  EXPECT_EQ(installed_settings.token_file, "C:\\ProgramData\\perfhive\\agent.token");
  std::string token_path = ProgramData() + "/agent.token";
  EXPECT_EQ(ReadText(token_path), std::string(kMsiAgentSecret) + "\n");
  // Wine maps the token file's DACL (SYSTEM and Administrators only) onto its mode: nothing for
  // others, where agent.toml beside it, with the folder's permissions, is readable by all.
  struct stat info;
  ASSERT_EQ(stat(token_path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07, 0u) << std::oct << info.st_mode;

  nlohmann::json shipped = WaitForSnapshots(*scratch_, *server_, "WINEMSI", 3, cli);
  ASSERT_GE(shipped.size(), 3u) << AgentLog();
  EXPECT_EQ(HostEntry(*scratch_, *server_, "WINEMSI", cli)["labels"],
            nlohmann::json({{"role", "web"}, {"site", "ams"}}));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(shipped[i]["sha256"], Sha256Hex(dir.snapshots[i])) << "snapshot " << i;
  }
  EXPECT_THAT(AgentLog(), HasSubstr("configure C:\\ProgramData\\perfhive\\agent.toml: server, "
                                    "token, ca, host_name, query, interval, source, replay, labels "
                                    "given; written"));
  EXPECT_EQ(Count(AgentLog(), run_line), 1u) << AgentLog();

  // Upgrade, no property given.
  std::string settings_before = ReadText(ProgramData() + "/agent.toml");
  std::string upgrade_log = *scratch_ / "upgrade.log";
  CommandResult upgraded =
      Msiexec({"/i", WinePath(upgrade_), "/qn", "/l*v", WinePath(upgrade_log)});
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.out << upgraded.err << ReadText(upgrade_log);
  EXPECT_EQ(InstalledVersion(upgrade_), MsiProperty(upgrade_, "ProductVersion"));
  EXPECT_EQ(InstalledVersion(msi_), std::nullopt) << "the old product was not removed";
  EXPECT_EQ(ReadText(ProgramData() + "/agent.toml"), settings_before);
  EXPECT_EQ(ReadText(token_path), std::string(kMsiAgentSecret) + "\n");
  EXPECT_TRUE(WaitForLog(run_line, 2)) << AgentLog();
  EXPECT_THAT(AgentLog(), HasSubstr("no settings given; the files held them already"));

  // The same MSI again, one property given.
  std::string rerun_log = *scratch_ / "rerun.log";
  CommandResult rerun =
      Msiexec({"/i", WinePath(upgrade_), "/qn", "/l*v", WinePath(rerun_log), "HOST_NAME=WINEMSI2"});
  ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err << ReadText(rerun_log);
  AgentConfig changed = Settings();
  EXPECT_EQ(changed.host_name, "WINEMSI2");
  changed.host_name = installed_settings.host_name;
  EXPECT_EQ(changed.server, installed_settings.server);
  EXPECT_EQ(changed.ca_file, installed_settings.ca_file);
  EXPECT_EQ(changed.token_file, installed_settings.token_file);
  EXPECT_EQ(changed.source, installed_settings.source);
  EXPECT_EQ(changed.replay_dir, installed_settings.replay_dir);
  EXPECT_EQ(changed.interval, installed_settings.interval);
  EXPECT_EQ(changed.queries, installed_settings.queries);
  // The service runs with the new settings: Wine's msiexec reinstalls the component, stopping
  // and starting the service around Configure; Windows' maintenance install leaves the service
  // running and Configure restarts it (RestartServiceIfRunning).
  EXPECT_TRUE(WaitForLog(" host WINEMSI2 (agent), ")) << AgentLog();
  EXPECT_GE(WaitForSnapshots(*scratch_, *server_, "WINEMSI2", 3, cli).size(), 3u) << AgentLog();

  // An administrator changes a setting without the MSI: the installed agent's `configure`
  // writes it and restarts the running service, which reads it.
  CommandResult configured =
      RunCommand(*scratch_, {kWine, InstalledAgent(), "configure", "--service", "perfhive-agent",
                             "--host-name", "WINEMSI3"});
  ASSERT_EQ(configured.exit_code, 0) << configured.out << configured.err;
  EXPECT_THAT(configured.err, HasSubstr("restarted service perfhive-agent to read its settings"));
  EXPECT_EQ(Settings().host_name, "WINEMSI3");
  EXPECT_GE(WaitForSnapshots(*scratch_, *server_, "WINEMSI3", 3, cli).size(), 3u) << AgentLog();

  // Uninstall.
  CommandResult removed = Msiexec({"/x", WinePath(upgrade_), "/qn"});
  ASSERT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  EXPECT_FALSE(ServiceInstalled());
  EXPECT_FALSE(std::filesystem::exists(InstalledAgent()));
  EXPECT_EQ(InstalledVersion(upgrade_), std::nullopt);
  EXPECT_THAT(AgentLog(), HasSubstr("stopped WINEMSI3 (agent): "));
  EXPECT_TRUE(std::filesystem::exists(ProgramData() + "/agent.toml"));
}

// Proves: INSECURE=1 with a server elsewhere fails the install, leaving nothing installed and
// saying why in agent.log; with a server on this host it installs a service that ships what it
// reads from the registry (no SOURCE given: the agent's own), in plain text.
TEST_F(WindowsMsiEndToEndTest, PlainTextIsRefusedForAServerElsewhereAndWorksOnLoopback) {
  StartServer({"--insecure"});
  CommandResult refused = Msiexec({"/i", WinePath(msi_), "/qn", "SERVER=perfhive.example:7400",
                                   "INSECURE=1", "HOST_NAME=WINEPLAIN"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_FALSE(ServiceInstalled());
  EXPECT_FALSE(std::filesystem::exists(InstalledAgent()));
  EXPECT_EQ(InstalledVersion(msi_), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(ProgramData() + "/agent.toml"));
  EXPECT_THAT(AgentLog(), HasSubstr("only for a server on this host (127.0.0.1, localhost, "
                                    "[::1]), not perfhive.example:7400"));

  CommandResult installed = Msiexec({"/i", WinePath(msi_), "/qn", "SERVER=" + server_->address(),
                                     "INSECURE=1", "HOST_NAME=WINEPLAIN", "INTERVAL=500ms"});
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err << AgentLog();
  EXPECT_GE(WaitForSnapshots(*scratch_, *server_, "WINEPLAIN", 3, {"--insecure"}).size(), 3u)
      << AgentLog();
  CommandResult removed = Msiexec({"/x", WinePath(msi_), "/qn"});
  EXPECT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  EXPECT_FALSE(ServiceInstalled());
}

// Proves: the MSI given only the server, the CA's fingerprint and an enrollment token (hidden:
// in no log) installs a service that enrolls, deletes the spent token, and ships every replayed
// snapshot over mutual TLS to a server made by `perfhive-server init`.
TEST_F(WindowsMsiEndToEndTest, AnEnrollmentTokenAndAFingerprintAreAllTheMsiNeeds) {
  std::string data = *scratch_ / "server-data";
  std::string pin = InitServerCa(*scratch_, data, {"--name", "localhost"});
  ASSERT_FALSE(pin.empty());
  CommandResult created = RunCommand(
      *scratch_, {ServerBinary(), "enroll", "create", "--data", data, "--hosts", "WINEMSIENR*"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string token = created.out.substr(0, created.out.find('\n'));
  WriteText(*scratch_ / "tokens.toml", std::string("[[token]]\nname = \"cli\"\nsecret = \"") +
                                           kMsiReaderSecret + "\"\nread = true\n");
  WriteText(*scratch_ / "reader.token", kMsiReaderSecret);
  StartServer({"--tokens", *scratch_ / "tokens.toml"});
  ReplayDir dir = WriteReplayDir(*scratch_, "WINEMSIENR", 6);

  std::string install_log = *scratch_ / "install.log";
  CommandResult installed = Msiexec({"/i", WinePath(msi_), "/qn", "/l*v", WinePath(install_log),
                                     "SERVER=" + server_->address(), "CA_SHA256=" + pin,
                                     "ENROLL=" + token, "HOST_NAME=WINEMSIENR", "INTERVAL=250ms",
                                     "SOURCE=replay", "REPLAY=" + WinePath(dir.path)});
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err << ReadText(install_log);
  EXPECT_THAT(ReadText(install_log), Not(HasSubstr(token.substr(14))));
  nlohmann::json shipped =
      WaitForSnapshots(*scratch_, *server_, "WINEMSIENR", 6,
                       {"--ca-sha256", pin, "--token-file", *scratch_ / "reader.token"});
  ASSERT_EQ(shipped.size(), dir.snapshots.size()) << AgentLog();
  for (size_t i = 0; i < shipped.size(); ++i) {
    EXPECT_EQ(shipped[i]["sha256"], Sha256Hex(dir.snapshots[i])) << i;
  }
  EXPECT_THAT(AgentLog(), HasSubstr("enrolled WINEMSIENR"));
  EXPECT_FALSE(std::filesystem::exists(ProgramData() + "/enroll.token"));
  EXPECT_THAT(ReadText(ProgramData() + "/agent.toml"), Not(HasSubstr("enroll")));
  EXPECT_TRUE(std::filesystem::exists(ProgramData() + "/agent/credentials/winemsienr/key.pem"));
  CommandResult removed = Msiexec({"/x", WinePath(msi_), "/qn"});
  EXPECT_EQ(removed.exit_code, 0) << removed.out << removed.err;
}

}  // namespace
}  // namespace perfhive::testing
