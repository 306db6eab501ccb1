#include "tests/support/samba_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <tdb.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/loopback_port.h"

namespace perfhive::testing {
namespace {

constexpr char kSmbd[] = "/usr/sbin/smbd";
constexpr char kDcerpcd[] = "/usr/libexec/samba/samba-dcerpcd";
constexpr char kRpcdWinreg[] = "/usr/libexec/samba/rpcd_winreg";
constexpr char kSmbpasswd[] = "/usr/bin/smbpasswd";
constexpr char kNet[] = "/usr/bin/net";
constexpr char kNssWrapper[] = "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so";

bool Accepts(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = LoopbackAddress(port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return ok;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The line of /etc/passwd or /etc/group for `name`, for the accounts Samba itself needs.
std::string SystemLine(const char* file, const std::string& name) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(name + ":")) return line + "\n";
  }
  return "";
}

// Runs `argv` with nss_wrapper's private passwd and group (so the test user exists for Samba
// and nowhere else), through env(1) so the PID is the program's own.
std::vector<std::string> Wrapped(const std::string& directory, std::vector<std::string> argv) {
  std::vector<std::string> wrapped = {"/usr/bin/env", std::string("LD_PRELOAD=") + kNssWrapper,
                                      "NSS_WRAPPER_PASSWD=" + directory + "/passwd",
                                      "NSS_WRAPPER_GROUP=" + directory + "/group"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

void Store(TDB_CONTEXT* tdb, const std::string& key, const std::string& value) {
  TDB_DATA k{reinterpret_cast<unsigned char*>(const_cast<char*>(key.data())), key.size()};
  TDB_DATA v{reinterpret_cast<unsigned char*>(const_cast<char*>(value.data())), value.size()};
  tdb_store(tdb, k, v, TDB_REPLACE);
}

// Running (a zombie is not: its parent may be an init that never reaps).
bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t end = line.rfind(')');
  return end != std::string::npos && end + 2 < line.size() && line[end + 2] != 'Z';
}

std::vector<pid_t> Descendants(pid_t pid) {
  std::vector<pid_t> all = {pid};
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                         "/children");
  for (pid_t child; children >> child;) {
    std::vector<pid_t> below = Descendants(child);
    all.insert(all.end(), below.begin(), below.end());
  }
  return all;
}

}  // namespace

std::string SambaServer::Unavailable() {
  if (geteuid() != 0) return "Samba's smbd needs root to switch to the logged-on user";
  for (const char* path : {kSmbd, kDcerpcd, kRpcdWinreg, kSmbpasswd, kNet, kNssWrapper}) {
    if (access(path, X_OK) != 0 && access(path, R_OK) != 0) {
      return std::string(path) + " is missing (apt-get install samba libnss-wrapper)";
    }
  }
  return "";
}

SambaServer::SambaServer(SambaServerOptions options) : options_(std::move(options)) {
  std::string pattern = (std::filesystem::temp_directory_path() / "perfhive-samba-XXXXXX").string();
  directory_ = mkdtemp(pattern.data());
  // mkdtemp makes it 0700; Samba's helpers run as the logged-on user and must reach state/.
  chmod(directory_.c_str(), 0755);
  const std::string& d = directory_;
  for (const char* sub :
       {"private", "state", "state/perfmon", "lock", "cache", "pid", "ncalrpc", "binddns", "log"}) {
    std::filesystem::create_directories(d + "/" + sub);
  }
  port_ = UnusedLoopbackPort();
  std::ostringstream conf;
  conf << "[global]\n"
       << "server role = standalone server\n"
       << "interfaces = 127.0.0.1\n"
       << "bind interfaces only = yes\n"
       << "smb ports = " << port_ << "\n"
       << "disable netbios = yes\n"
       << "private dir = " << d << "/private\n"
       << "state directory = " << d << "/state\n"
       << "lock directory = " << d << "/lock\n"
       << "cache directory = " << d << "/cache\n"
       << "pid directory = " << d << "/pid\n"
       << "ncalrpc dir = " << d << "/ncalrpc\n"
       << "binddns dir = " << d << "/binddns\n"
       << "passdb backend = tdbsam:" << d << "/private/passdb.tdb\n"
       << "load printers = no\n"
       << "disable spoolss = yes\n"
       << "rpc start on demand helpers = no\n"
       // Windows refuses anonymous registry access; Samba does so only when told.
       << "restrict anonymous = 2\n"
       << "server signing = " << (options_.require_signing ? "mandatory" : "default") << "\n";
  WriteText(d + "/smb.conf", conf.str());
  WriteText(d + "/passwd", options_.user + ":x:4242:4242::" + d + ":/bin/false\n" +
                               SystemLine("/etc/passwd", "root") +
                               SystemLine("/etc/passwd", "nobody"));
  WriteText(d + "/group", options_.user + ":x:4242:\n" + SystemLine("/etc/group", "root") +
                              SystemLine("/etc/group", "nogroup"));
  // smbpasswd reads the password twice from standard input; it never appears in an argument.
  WriteText(d + "/private/password-input", options_.password + "\n" + options_.password + "\n");
  {
    ChildProcess add(Wrapped(d, {"/bin/sh", "-c",
                                 std::string(kSmbpasswd) + " -c " + d + "/smb.conf -s -a " +
                                     options_.user + " < " + d + "/private/password-input"}),
                     d + "/log/smbpasswd.out", d + "/log/smbpasswd.out");
    if (add.Wait(std::chrono::seconds(20)) != 0) return;
  }
  std::filesystem::remove(d + "/private/password-input");
  Write(SambaPerfData{});
  // Each in a process group of its own (no --no-process-group): Samba signals its whole group
  // when it shuts down, and that must not include the test.
  dcerpcd_.emplace(
      Wrapped(d, {kDcerpcd, "-s", d + "/smb.conf", "-F", "-l", d + "/log", kRpcdWinreg}),
      d + "/log/dcerpcd.out", d + "/log/dcerpcd.out");
  smbd_.emplace(Wrapped(d, {kSmbd, "-s", d + "/smb.conf", "--foreground", "-l", d + "/log"}),
                d + "/log/smbd.out", d + "/log/smbd.out");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!smbd_->running() || !dcerpcd_->running()) return;
    if (std::filesystem::exists(d + "/ncalrpc/np/winreg") && Accepts(port_)) {
      ready_ = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

SambaServer::~SambaServer() {
  Stop();
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

std::string SambaServer::log() const {
  std::string text;
  for (const char* name : {"smbpasswd.out", "smbd.out", "dcerpcd.out", "log.smbd",
                           "log.samba-dcerpcd", "log.rpcd_winreg", "net.out"}) {
    text += "--- " + std::string(name) + "\n" + ReadWholeFile(directory_ + "/log/" + name);
  }
  return text;
}

std::vector<pid_t> SambaServer::AllPids() const {
  std::vector<pid_t> pids;
  for (const std::optional<ChildProcess>* process : {&smbd_, &dcerpcd_}) {
    if (!*process) continue;
    std::vector<pid_t> tree = Descendants((*process)->pid());
    pids.insert(pids.end(), tree.begin(), tree.end());
  }
  return pids;
}

bool SambaServer::SetRegistryValue(const std::string& key, const std::string& name,
                                   const std::string& type, const std::string& value) {
  const std::string conf = directory_ + "/smb.conf", out = directory_ + "/log/net.out";
  for (std::vector<std::string> args :
       {std::vector<std::string>{"createkey", key},
        std::vector<std::string>{"setvalue", key, name, type, value}}) {
    std::vector<std::string> argv = {kNet, "-s", conf, "registry"};
    argv.insert(argv.end(), args.begin(), args.end());
    ChildProcess net(Wrapped(directory_, argv), out, out);
    if (net.Wait(std::chrono::seconds(20)) != 0) return false;
  }
  return true;
}

void SambaServer::Pause() {
  for (pid_t pid : AllPids()) kill(pid, SIGSTOP);
}

void SambaServer::Resume() {
  for (pid_t pid : AllPids()) kill(pid, SIGCONT);
}

void SambaServer::StopTree(std::optional<ChildProcess>& process) {
  if (!process) return;
  // The children serving connections and the winreg helper would go with their parents; each
  // is signalled by its own PID anyway, so that none is left behind.
  std::vector<pid_t> pids = Descendants(process->pid());
  for (pid_t pid : pids) kill(pid, SIGCONT);
  for (pid_t pid : pids) kill(pid, SIGTERM);
  if (!process->Wait(std::chrono::seconds(5))) process->Signal(SIGKILL);
  process.reset();
  // The others are not this process's children: wait until they are gone.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (pid_t pid : pids) {
    while (Alive(pid) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (Alive(pid)) kill(pid, SIGKILL);
  }
}

void SambaServer::Stop() {
  StopTree(smbd_);
  StopTree(dcerpcd_);
}

void SambaServer::StopRegistryService() { StopTree(dcerpcd_); }

void SambaServer::Write(const SambaPerfData& data) {
  std::string folder = directory_ + "/state/perfmon/";
  TDB_CONTEXT* names =
      tdb_open((folder + "names.tdb").c_str(), 0, TDB_DEFAULT, O_RDWR | O_CREAT, 0644);
  TDB_CONTEXT* values =
      tdb_open((folder + "data.tdb").c_str(), 0, TDB_DEFAULT, O_RDWR | O_CREAT, 0644);
  uint32_t index = 0;
  for (const SambaObject& object : data.objects) {
    index += 2;
    std::string o = std::to_string(index);
    Store(names, o, object.name);
    Store(names, std::to_string(index + 1), object.name + " help");
    Store(names, o + "rel", "p");
    if (!object.instances.empty()) {
      Store(names, o + "inst", std::to_string(object.instances.size()));
      for (size_t i = 0; i < object.instances.size(); ++i) {
        Store(names, o + "i" + std::to_string(i) + "name", object.instances[i]);
      }
    }
    std::vector<std::string> blobs(object.instances.size());
    for (const SambaCounter& counter : object.counters) {
      index += 2;
      std::string c = std::to_string(index);
      Store(names, c, counter.name);
      Store(names, std::to_string(index + 1), counter.name + " help");
      Store(names, c + "rel", "c[" + o + "]");
      Store(names, c + "type", std::to_string(counter.type));
      Store(values, c, std::to_string(counter.value));
      for (size_t i = 0; i < blobs.size(); ++i) {
        uint64_t v = i < counter.per_instance.size() ? counter.per_instance[i] : 0;
        blobs[i].append(reinterpret_cast<const char*>(&v), sizeof v);
      }
    }
    for (size_t i = 0; i < blobs.size(); ++i) {
      Store(values, o + "i" + std::to_string(i), blobs[i]);
    }
  }
  Store(names, "1", std::to_string(index / 2));
  Store(names, "0PerfFreq", std::to_string(data.perf_freq));
  Store(values, "0PerfTime", std::to_string(data.perf_time));
  Store(values, "0PerfTime100nSec", std::to_string(data.perf_time_100ns));
  tdb_close(names);
  tdb_close(values);
}

}  // namespace perfhive::testing
